/* SPDX-License-Identifier: MIT */
/* Kernel-log messages about one device (parse_kernel_dev.c), used by parse_kernel.c. */
#ifndef P2PS_PASTE_KERNEL_H
#define P2PS_PASTE_KERNEL_H

#include "paste_internal.h"

/* "NVRM: Xid (PCI:0000:01:00): 31, ... MMU Fault: ... Fault is of type ..." */
void pt_kernel_xid(struct pctx *c, const char *m, int line);
/* "NVRM: GPU at PCI:0000:01:00: GPU-..." (p points after "PCI:") */
void pt_kernel_gpu_at(struct pctx *c, const char *p, int line);
/* An AMD-Vi IO_PAGE_FAULT or DMAR fault; devb from a "driver BDF:" prefix or NULL. */
void pt_kernel_iommu_fault(struct pctx *c, const char *t, const struct p2ps_bdf *devb, bool amd,
                           int line);
/* "pci BDF: ..." enumeration lines: ids, class, BARs, bridge windows, unassigned BARs. */
void pt_kernel_pci(struct pctx *c, const struct p2ps_bdf *b, const char *rest, int line);
/* "nvidia BDF: ...": the device is bound to that driver. */
void pt_kernel_driver(struct pctx *c, const struct p2ps_bdf *b, const char *drv, int line);
/* "Kernel command line: ..." */
void pt_kernel_cmdline(struct pctx *c, const char *s, int line);

#endif
