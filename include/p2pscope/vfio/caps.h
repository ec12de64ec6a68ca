/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: parsers over the byte buffers the VFIO INFO ioctls return.
 *
 * They trust nothing in the buffer: every capability offset is checked against the
 * buffer length, a walk stops on a loop or after P2PS_VFIO_MAX_CAPS entries and says how
 * it ended. No system calls: the libFuzzer target and the malformed-chain tests drive
 * them directly.
 */
#ifndef P2PSCOPE_VFIO_CAPS_H
#define P2PSCOPE_VFIO_CAPS_H

#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/vfio/facts.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P2PS_VFIO_INFO_MAX (1u << 20) /* largest argsz we follow (1 MiB) */

/* Walks the chain in buf[0..len) that starts at byte offset first. fixed is the
 * size of the info struct in front of the chain: a capability may not start
 * inside it. A header must fit whole (8 bytes) inside the buffer. Always returns
 * 0 with out->end set, or P2PS_EINVAL for NULL arguments. */
int p2ps_vfio_caps_walk(const uint8_t *buf, size_t len, uint32_t first, size_t fixed,
                        struct p2ps_vfio_cap_chain *out, struct p2ps_error *err);

/* Decodes a region-info buffer (struct vfio_region_info + its capability chain)
 * of len bytes. len must cover the fixed struct (32 bytes) or P2PS_EINVAL is
 * returned; a damaged chain is recorded in out, not returned as an error. */
int p2ps_vfio_region_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_region *out,
                           struct p2ps_error *err);

/* Decodes a struct vfio_iommu_type1_info buffer and its chain. */
int p2ps_vfio_iommu_info_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_iommu_info *out,
                               struct p2ps_error *err);

/* Decodes a struct vfio_device_info buffer (fixed part + chain). */
int p2ps_vfio_device_info_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_device_info *out,
                                struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
