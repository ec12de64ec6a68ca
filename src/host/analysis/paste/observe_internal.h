/* SPDX-License-Identifier: MIT */
/* Private interfaces of the paste findings (observe*.c). */
#ifndef P2PS_PASTE_OBSERVE_INTERNAL_H
#define P2PS_PASTE_OBSERVE_INTERNAL_H

#include <stdbool.h>

#include "analysis_internal.h"
#include "p2pscope/paste_report.h"

struct octx {
	const struct p2ps_analysis *a;
	const struct p2ps_host *h;
	const struct p2ps_paste *p;
	struct p2ps_paste_report *r;
	bool oom;
};

/* Appends a finding (text printf-style; the analysis' own appender); NULL when out of
 * memory. Its fix is set with p2ps_an_fix(). */
struct p2ps_reason *po_add(struct octx *c, enum p2ps_reason_code code, enum p2ps_severity sev,
                           struct p2ps_paste_where from, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

/* Appends a "send next" item unless the same command is listed already. */
void po_ask(struct octx *c, const char *command, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Label of the GPU at an address: "GPU0 0000:01:00.0" as the analysis numbers it, or the
 * address alone. */
const char *po_gpu_label(const struct octx *c, const struct p2ps_bdf *b, char *buf, size_t size);

/* The IOMMU fix for the host's IOMMU kind (as the analysis prints it). */

void po_kernel(struct octx *c); /* NVRM, IOMMU and PCI-core lines */
void po_gmmu_fault(struct octx *c, const struct p2ps_paste_event *ev); /* Xid 31 */
void po_devices(struct octx *c);      /* capabilities denied, Resizable BAR ceilings */
void po_nvidia_smi(struct octx *c);   /* topo -m and topo -p2p */
void po_cuda(struct octx *c);         /* peer access, bandwidth, verification */
int po_pairs(struct octx *c);         /* the per-pair table and its disagreements */
void po_verdict(struct octx *c);      /* causes, verdict, what to send next */
void po_symptoms(struct octx *c);     /* symptoms, NCCL, loose ACS, GeForce, unread blocks */
void po_symptom_asks(struct octx *c); /* per symptom, the facts that separate its causes */
/* Whether something in the paste speaks against P2P working (a symptom of failure). */
bool po_failure_seen(const struct octx *c);

#endif
