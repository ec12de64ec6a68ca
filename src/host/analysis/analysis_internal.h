/* SPDX-License-Identifier: MIT */
/* The analysis's files share these (not installed). One analysis run is one context;
 * each concern's file exports the step it runs (p2ps_an_gpu, p2ps_an_pairs, ...). */
#ifndef P2PS_ANALYSIS_INTERNAL_H
#define P2PS_ANALYSIS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/analysis.h"

struct p2ps_an_ctx {
	const struct p2ps_host *host;
	struct p2ps_analysis *a;
	const struct p2ps_drv_config *drv; /* the driver whose static BAR1 rule applies */
	bool oom; /* an allocation failed: the run fails with P2PS_ENOMEM */
};

/* ---- reasons.c ---- */

/* Appends a reason with a formatted text (fix left empty); NULL when out of memory. */
struct p2ps_reason *p2ps_reasons_addv(struct p2ps_reasons *r, enum p2ps_reason_code code,
                                      enum p2ps_severity sev, int dev_idx, const char *fmt,
                                      va_list ap);

/* Appends a reason to r; records running out of memory in c and returns NULL then. */
struct p2ps_reason *p2ps_an_add(struct p2ps_an_ctx *c, struct p2ps_reasons *r,
                                enum p2ps_reason_code code, enum p2ps_severity sev, int dev_idx,
                                const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Sets the fix of x (NULL is fine: the add that made it ran out of memory). */
void p2ps_an_fix(struct p2ps_reason *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The leading dot-separated numbers of a version or kernel release ("6.18.44-fc" -> 6 18
 * 44, "535.14" -> 535 14 0) into v[0..2]; returns how many were read. */
int p2ps_an_version(const char *s, int v[3]);
/* Whether that version is at least major.minor (false when s holds none). */
bool p2ps_an_version_at_least(const char *s, int major, int minor);

/* Blockers first, then unknowns, warnings, infos; equal severities keep their order. */
void p2ps_an_reasons_sort(struct p2ps_reasons *r);
void p2ps_an_reasons_free(struct p2ps_reasons *r);

/* ---- topology.c ---- */

/* Ancestors of host->devs[idx], nearest first, at most max. Returns the count; *looped
 * when the chain is longer than max (a parent cycle in a malformed dump). */
int p2ps_an_ancestors(const struct p2ps_host *h, int idx, int *out, int max, bool *looped);

/* Classifies every pair of endpoints into the matrix and runs the pair verdicts. */
void p2ps_an_pairs(struct p2ps_an_ctx *c);

/* ---- gpu_checks.c ---- */

/* "GPU<n> <bdf>" (or "DEV<n> ..." for an extra peer) for the texts of findings. */
const char *p2ps_an_label(const struct p2ps_analysis *a, int gi, char *buf, size_t size);

/* The IOMMU mode a device's DMA goes through. */
enum p2ps_iommu_mode p2ps_an_iommu_mode(const struct p2ps_host *h, const struct p2ps_dev *d);

/* Every per-GPU check of endpoint gi; its findings end up sorted in its report. */
void p2ps_an_gpu(struct p2ps_an_ctx *c, size_t gi);

/* ---- pair_verdicts.c ---- */

/* ACS findings for a path that turns at turn[0..1] below lca_idx (-1: a host bridge). */
void p2ps_an_path_acs(struct p2ps_an_ctx *c, struct p2ps_reasons *reasons, int lca_idx,
                      const int turn[2]);

/* What to boot with so that the IOMMU stops translating (per IOMMU kind). */
/* A verdict from reasons: not ready on any blocker, else unknown on any unknown. */
enum p2ps_verdict p2ps_an_verdict(const struct p2ps_reasons *r);
const char *p2ps_an_iommu_fix(const char *kind); /* h->iommu.kind: "intel", "amd", ... */

/* The driver row the host was said or seen to run (--driver, --driver-flavor, the version
 * line), NULL when neither a series nor a flavor is known: the verdicts that follow a
 * fork's props read it, and never assume a fork. "as 610 duanyll" into as (with
 * "assumed" when the row is another series'). */
const struct p2ps_nv_driver *p2ps_an_driver_row(const struct p2ps_an_ctx *c, char *as, size_t n);

/* The NCCL path type (enum p2ps_nccl_path) of a pair of this topology class; nvidia-smi's
 * NODE is NCCL's PHB. -1 for UNKNOWN. */
int p2ps_an_nccl_rank(enum p2ps_topo t);
/* An NCCL_*_LEVEL value (a path type's name, or an old number) as a path type; -1 if unset
 * or bad. */
int p2ps_an_nccl_level(const char *value);
const char *p2ps_an_nccl_level_name(int level);

/* Every check of one classified pair, then its verdict. */
void p2ps_an_pair(struct p2ps_an_ctx *c, struct p2ps_pair *p);

/* ---- host_findings.c ---- */

/* Vendor of the first host bridge (class 0600) in the model, 0 if none is listed. */
uint16_t p2ps_an_host_bridge_vendor(const struct p2ps_host *h);
bool p2ps_an_is_intel_host(const struct p2ps_host *h);

/* The value of NAME= among the captured NCCL variables, or NULL. */
const char *p2ps_an_nccl_var(const struct p2ps_host *h, const char *name);

/* Whether a NCCL_P2P_DISABLE value turns P2P off (it reads as the number 1). */
bool p2ps_an_nccl_disables(const char *value);

/* The IOMMU summary, the command-line flags behind it and the host-wide findings. */
void p2ps_an_host_findings(struct p2ps_an_ctx *c);

/* ---- gdr.c ---- */

/* GPUDirect RDMA: finds the RDMA devices and judges every GPU x device pair. */
void p2ps_an_gdr(struct p2ps_an_ctx *c, const struct p2ps_analysis_opts *opts);
void p2ps_an_gdr_free(struct p2ps_analysis *a);

#endif
