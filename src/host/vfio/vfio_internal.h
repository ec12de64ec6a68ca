/* SPDX-License-Identifier: MIT */
/* p2pscope: helpers shared by the VFIO files (not a public API). */
#ifndef P2PS_VFIO_INTERNAL_H
#define P2PS_VFIO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "p2pscope/vfio/session.h"

/* Records a failed system call in err as "who: call(what): strerror(e)" with the P2PS_E*
 * code e maps to, leaves errno = e for callers that record it, and returns the code. */
int p2ps_vfio_sys_fail(struct p2ps_error *err, int e, const char *who, const char *call,
                       const char *what);

/* Closes *fd through sys when it is open and sets it to -1. */
void p2ps_vfio_close_fd(const struct p2ps_vfio_sys *sys, int *fd);

/* A BAR's bus address from sysfs's resource file; 0 when it cannot be read. */
uint64_t p2ps_vfio_sysfs_bar_addr(const struct p2ps_vfio_sys *sys, const char *root,
                                  const char *bdf, unsigned bar);

#endif
