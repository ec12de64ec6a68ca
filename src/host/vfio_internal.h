/* p2pscope: helpers shared by the VFIO backend's files (not a public API). */
#ifndef P2PS_VFIO_INTERNAL_H
#define P2PS_VFIO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "p2pscope/vfio.h"

/* "BB:DD.F" or "DDDD:BB:DD.F" -> "DDDD:BB:DD.F"; P2PS_EINVAL for anything else. */
int p2ps_vfio_bdf_normalize(const char *in, char *out, size_t size, struct p2ps_error *err);

/* A BAR's bus address from sysfs's resource file; 0 when it cannot be read. */
uint64_t p2ps_vfio_sysfs_bar_addr(const struct p2ps_vfio_sys *sys, const char *root,
                                  const char *bdf, unsigned bar);

#endif
