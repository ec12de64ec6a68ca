/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: reading one 32-bit register of a BAR, read-only.
 *
 * Two ways in: the VFIO region of a device bound to vfio-pci (mmap PROT_READ of the one
 * page that holds the register, or pread where the region or its sparse areas do not
 * allow mmap), or the sysfs resourceN file of any device (mmap PROT_READ, needs root).
 * The access is a single aligned 32-bit load, as MMIO requires; nothing is ever written.
 */
#ifndef P2PSCOPE_VFIO_MMIO_H
#define P2PSCOPE_VFIO_MMIO_H

#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/pci_addr.h"
#include "p2pscope/vfio/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the 32-bit register at byte offset off of BAR bar, never writing:
 *  - d != NULL: through the device's VFIO region;
 *  - d == NULL: mmap PROT_READ of sysfs_root/bus/pci/devices/<bdf>/resource<bar>
 *    (needs root).
 * off must be 4-byte aligned and inside the BAR. how receives the access path. */
int p2ps_vfio_read_reg(struct p2ps_vfio_device *d, const struct p2ps_vfio_opts *opts,
                       const struct p2ps_bdf *bdf, unsigned bar, uint64_t off, uint32_t *value,
                       char *how, size_t how_size, struct p2ps_error *err);

/* Parses a register address "BAR:OFFSET" ("0:0x0", "1:256"): BAR 0..5, the offset an
 * unsigned number (p2pscope/parse.h: 0x hex or decimal) that is 4-byte aligned. The
 * message quotes the text ("'0:0x3': offset 0x3 is not 4-byte aligned"). */
int p2ps_vfio_reg_spec_parse(const char *s, unsigned *bar, uint64_t *off, struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
