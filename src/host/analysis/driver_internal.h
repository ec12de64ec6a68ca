/* SPDX-License-Identifier: MIT */
/* The driver model's own tables (driver_tables.c: CPU types, I/O hubs, switches), shared
 * with its predicates. The rows per series are the driver table's (nvidia_drivers.h). */
#ifndef P2PS_DRIVER_INTERNAL_H
#define P2PS_DRIVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/driver_model.h"
#include "p2pscope/nvidia_chips.h"
#include "p2pscope/nvidia_drivers.h"

/* The row cfg models: the one p2ps_drv_config_make() picked (by the driver table's fallback
 * rule when the series has none), or the same rule for a config made by hand. */
static inline const struct p2ps_nv_driver *p2ps_drv_row(const struct p2ps_drv_config *cfg)
{
	bool exact;
	return cfg->row ? cfg->row
	                : p2ps_nv_driver_find(cfg->known ? (unsigned)cfg->series
	                                                 : P2PS_NV_SERIES_NONE,
	                                      cfg->flavor, &exact);
}

/* The CPU type platform/cpu.c derives from CPUID ("RYZEN", "XEON_SPR", "OTHER"), and
 * whether it is one _p2pCapsGetHostSystemStatusOverPcieBar1 lets read. */
const char *p2ps_drv_cpu_type(const struct p2ps_nv_driver *s, const char *vendor, int family,
                              int model, bool *bar1_reads);

/* Root port of an Intel I/O hub whose P2P stops at the hub (_kp2pCapsGetStatusOverPcie). */
bool p2ps_drv_intel_ioh_port(uint16_t vendor, uint16_t device);

/* A switch clFindCommonDownstreamBR accepts (IS_SUPPORTED_PCIE_SWITCH). */
bool p2ps_drv_supported_switch(uint16_t vendor, uint16_t device);

/* A fact the model derives: yes, no, or the snapshot cannot tell. */
enum p2ps_drv_tri { P2PS_DRV_NO = 0, P2PS_DRV_YES, P2PS_DRV_UNKNOWN };

/* Whether GPU d is self-hosted (gpuIsSelfHosted: a Grace superchip's GPU), from its chip,
 * board and the host's CPU; why gets the reason. */
enum p2ps_drv_tri p2ps_drv_self_hosted(const struct p2ps_dev *d, const struct p2ps_host_cpu *cpu,
                                       char *why, size_t n);

/* Whether the chipset of host bridge hb (NULL: none seen) is peer read- and write-capable
 * (bPciePeerReadCapable / bPciePeerWriteCapable, chipset_pcie.c); why gets the reason. */
enum p2ps_drv_tri p2ps_drv_chipset_capable(const struct p2ps_dev *hb, char *why, size_t n);

struct p2ps_pair;
/* One pair through p2pGetCapsStatus (driver_model.c); r holds the GPUs' static BAR1. */
void p2ps_drv_pair_model(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                         const struct p2ps_drv_report *r, const struct p2ps_pair *ap,
                         struct p2ps_drv_pair *out);

/* Persistent fixes for a pair's deciding gates (driver_fixes.c), into out->fix. */
void p2ps_drv_pair_fixes(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                         const struct p2ps_drv_report *r, struct p2ps_drv_pair *out);

/* The driver's CPU type needs the x86 vendor, family and model (platform/cpu.c). */
static inline bool p2ps_drv_cpu_known(const struct p2ps_host_cpu *c)
{
	return c->vendor[0] && c->family >= 0 && c->model >= 0;
}

/* The GPUDirect P2P clique the hypervisor gave GPU d (its virtual P2P approval capability,
 * QEMU's x-nv-gpudirect-clique): the clique id, -1 none, -2 config space not readable. */
int p2ps_drv_p2p_clique(const struct p2ps_dev *d);

#endif
