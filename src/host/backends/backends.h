/* SPDX-License-Identifier: MIT */
/* The backends' tables and the steps their loader shares (not installed). Each backend
 * file ends with one const struct p2ps_host_backend; registry.c lists them. */
#ifndef P2PS_BACKENDS_H
#define P2PS_BACKENDS_H

#include "p2pscope/host_load.h"

extern const struct p2ps_host_backend p2ps_host_backend_sysfs;      /* sysfs.c */
extern const struct p2ps_host_backend p2ps_host_backend_snapshot;   /* sysfs.c */
extern const struct p2ps_host_backend p2ps_host_backend_lspci_dump; /* lspci_dump.c */
extern const struct p2ps_host_backend p2ps_host_backend_vfio;       /* vfio.c */
extern const struct p2ps_host_backend p2ps_host_backend_paste;      /* paste/paste_host.c */

/* Links devices without a parent to the bridge whose secondary..subordinate bus range
 * holds their bus (as `lspci -t` does on a dump) and sets every device's root_bus by
 * following parents up. Used by the dump and paste backends (lspci_dump.c). */
void p2ps_host_tree_from_buses(struct p2ps_host *host);

/* Register reads through sysfs resourceN for a live model (no VFIO devices): fills
 * host->vfio with one result per device req->reg_filter selects (vfio_probe.c). */
int p2ps_vfio_probe_sysfs_regs(struct p2ps_host *host, const struct p2ps_vfio_request *req,
                               struct p2ps_error *err);

#endif
