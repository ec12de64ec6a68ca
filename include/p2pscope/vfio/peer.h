/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: mapping a peer's BAR into the IOMMU context of another device.
 *
 * This is what QEMU does for devices assigned to one guest: it mmaps device B's BAR
 * through VFIO and hands that user address to VFIO_IOMMU_MAP_DMA on the container that
 * holds device A. If the kernel accepts, A's DMA to the IOVA is translated by the IOMMU
 * to B's BAR, so P2P with the IOMMU on is possible as far as the IOMMU is concerned
 * (routing, ACS and the bridges still decide whether the packets take the short path).
 * If it refuses, the errno says why.
 *
 * Safety: B's BAR is mapped PROT_READ and the IOMMU mapping is readable-only: no device
 * can write through it, and nothing here touches either device. The mapping is removed
 * before returning.
 */
#ifndef P2PSCOPE_VFIO_PEER_H
#define P2PSCOPE_VFIO_PEER_H

#include <stdbool.h>

#include "p2pscope/error.h"
#include "p2pscope/vfio/facts.h"
#include "p2pscope/vfio/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Maps B's BAR (the largest mmappable BAR when bar < 0) into the IOMMU context
 * that holds A (A and B must be open in the same session), reports the IOVA or
 * the kernel's refusal, and unmaps. Returns 0 when the attempt was made (the
 * outcome is in out), negative when it could not be made. */
int p2ps_vfio_map_peer(struct p2ps_vfio_device *a, struct p2ps_vfio_device *b, int bar,
                       struct p2ps_vfio_peer_map *out, struct p2ps_error *err);

/* What an errno from VFIO_IOMMU_MAP_DMA / IOMMU_IOAS_MAP of a BAR means. */
const char *p2ps_vfio_map_errno_meaning(int err_no, bool iommufd);

#ifdef __cplusplus
}
#endif

#endif
