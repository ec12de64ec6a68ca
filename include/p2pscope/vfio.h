/* SPDX-License-Identifier: MIT */
/* p2pscope: VFIO — what a device bound to vfio-pci tells user space. One header per
 * concern, all included here:
 *  - vfio/facts.h   the facts as the host model keeps them (host->vfio)
 *  - vfio/caps.h    parsers over the INFO ioctls' buffers and capability chains
 *  - vfio/session.h sessions and devices: the legacy and cdev/iommufd open flows
 *  - vfio/mmio.h    one 32-bit register of a BAR, read-only
 *  - vfio/peer.h    a peer's BAR mapped into another device's IOMMU context
 * bar-inspect reaches them through the VFIO backend (p2pscope/host_load.h, --vfio);
 * docs/vfio.md describes the whole. Opening a VFIO device can reset it; nothing here
 * writes config space or MMIO, BAR mappings are PROT_READ and peer DMA mappings are
 * readable-only and removed before the session closes.
 */
#ifndef P2PSCOPE_VFIO_H
#define P2PSCOPE_VFIO_H

#include "p2pscope/vfio/caps.h"
#include "p2pscope/vfio/facts.h"
#include "p2pscope/vfio/mmio.h"
#include "p2pscope/vfio/peer.h"
#include "p2pscope/vfio/session.h"

#endif
