/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: a peer's BAR mapped into another device's IOMMU context
 * (include/p2pscope/vfio/peer.h). B's BAR is mapped PROT_READ, the IOMMU mapping is
 * readable-only (VFIO_DMA_MAP_FLAG_READ, IOMMU_IOAS_MAP_READABLE) and removed again. */
#include "p2pscope/vfio/peer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "vfio_internal.h"
#include "vfio_uapi.h"

const char *p2ps_vfio_map_errno_meaning(int e, bool iommufd)
{
	if (iommufd && (e == EFAULT || e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP))
		return "iommufd pins user pages and refuses a VFIO BAR mapping (VM_PFNMAP/MMIO): "
		       "peer BARs need the legacy type1 container, or dma-buf based mapping on "
		       "newer kernels";
	switch (e) {
	case 0:
		return "accepted: the IOMMU now translates this IOVA to the peer's BAR, so the "
		       "device may reach it by DMA (routing and ACS still decide the path)";
	case EFAULT:
		return "the kernel could not resolve the BAR mapping to physical pages (the BAR's "
		       "vma is not a PFN map it follows, or the range is not fully mapped)";
	case EINVAL:
		return "IOVA, size or address not aligned to the IOMMU page size, or outside the "
		       "container's usable IOVA ranges";
	case EEXIST: return "the IOVA range overlaps an existing mapping in this container";
	case ENOSPC:
		return "the container's DMA mapping limit is reached (vfio_iommu_type1 "
		       "dma_entry_limit)";
	case ENOMEM: return "locked-memory limit (RLIMIT_MEMLOCK) or kernel memory exhausted";
	case EPERM:
	case EACCES:
		return "not permitted (privilege, or the IOMMU refuses the requested permissions)";
	case EBUSY: return "the range is busy (being reset or already pinned elsewhere)";
	case ENOTTY:
	case EOPNOTSUPP:
		return "this container has no DMA-map API (no-IOMMU mode or an IOMMU model without "
		       "it): devices use bus addresses directly";
	default: return "unexpected error from the IOMMU mapping call";
	}
}

static int pick_bar(const struct p2ps_vfio_region *regs, unsigned n, int want,
                    const struct p2ps_vfio_region **out)
{
	const struct p2ps_vfio_region *best = NULL;
	for (unsigned i = 0; i < n && i < P2PS_VFIO_PCI_ROM; i++) {
		const struct p2ps_vfio_region *r = &regs[i];
		if (want >= 0 && (int)i != want)
			continue;
		if (!(r->flags & VFIO_REGION_INFO_FLAG_MMAP) || r->size == 0)
			continue;
		if (!best || r->size > best->size)
			best = r;
	}
	*out = best;
	return best ? 0 : -1;
}

/* The largest range of the region that may be mmapped: a sparse area, or all. */
static void mappable_range(const struct p2ps_vfio_region *r, uint64_t *off, uint64_t *size)
{
	*off = 0;
	*size = r->size;
	if (!r->has_sparse)
		return;
	*size = 0;
	for (unsigned i = 0; i < r->n_areas; i++) {
		const struct p2ps_vfio_area *a = &r->areas[i];
		if (a->size > *size && a->offset <= r->size && a->size <= r->size - a->offset) {
			*off = a->offset;
			*size = a->size;
		}
	}
}

static uint64_t lowest_pgsize(uint64_t bitmap)
{
	return bitmap ? (bitmap & (~bitmap + 1)) : 4096;
}

/* IOVA for a size-byte mapping: B's bus address when the IOMMU allows it (the
 * address the P2P hack would put in the PTE), else the first aligned fit in the
 * container's usable ranges. Alignment to the mapping's size (capped at 1 GiB)
 * lets the IOMMU use large pages. */
static uint64_t choose_iova(const struct p2ps_vfio_iommu_info *info, uint64_t bus, uint64_t size,
                            bool *is_bus)
{
	uint64_t pg = lowest_pgsize(info->iova_pgsizes);
	*is_bus = false;
	if (!info->has_ranges || info->n_ranges == 0) {
		if (bus && (bus % pg) == 0) {
			*is_bus = true;
			return bus;
		}
		return UINT64_C(1) << 32;
	}
	for (unsigned i = 0; i < info->n_ranges; i++) {
		const struct p2ps_vfio_iova_range *rg = &info->ranges[i];
		if (bus && (bus % pg) == 0 && bus >= rg->start && bus <= rg->end &&
		    size - 1 <= rg->end - bus) {
			*is_bus = true;
			return bus;
		}
	}
	uint64_t align = UINT64_C(1) << 30;
	while (align > pg && align > size)
		align >>= 1;
	for (unsigned i = 0; i < info->n_ranges; i++) {
		const struct p2ps_vfio_iova_range *rg = &info->ranges[i];
		uint64_t start = rg->start < align ? align : rg->start;
		start = (start + align - 1) & ~(align - 1);
		if (start >= rg->start && start <= rg->end && size - 1 <= rg->end - start)
			return start;
	}
	return 0;
}

/* Records the kernel's answer to the map call (rc < 0: refused, errno says why). */
static bool mapped(struct p2ps_vfio_peer_map *out, int rc, bool iommufd)
{
	out->mapped = rc >= 0;
	out->map_errno = rc < 0 ? errno : 0;
	out->meaning = p2ps_vfio_map_errno_meaning(out->map_errno, iommufd);
	return out->mapped;
}

static int map_legacy(struct p2ps_vfio *v, void *va, struct p2ps_vfio_peer_map *out,
                      struct p2ps_error *err)
{
	const struct p2ps_vfio_sys *sys = v->sys;
	out->method = "VFIO_IOMMU_MAP_DMA";
	out->iommu_type = v->iommu_type;
	uint64_t bus = out->bar_bus_addr ? out->bar_bus_addr + out->map_offset : 0;
	if (v->iommu_type == VFIO_NOIOMMU_IOMMU) {
		/* No IOMMU to describe: the call is still made, so the report shows
		 * the kernel's own answer (the no-IOMMU driver has no DMA-map API). */
		out->iova = bus ? bus : UINT64_C(1) << 32;
		out->iova_is_bus_addr = bus != 0;
	} else {
		if (!v->have_iommu_info) {
			int rc = p2ps_vfio_iommu_get_info(v, err);
			if (rc)
				return rc;
		}
		out->iova = choose_iova(&v->iommu, bus, out->map_size, &out->iova_is_bus_addr);
	}
	if (out->iova == 0)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "no usable IOVA range of 0x%" PRIx64
		                      " bytes in the container",
		                      out->map_size);
	struct vfio_iommu_type1_dma_map map = {
	        .argsz = sizeof(map),
	        .flags = VFIO_DMA_MAP_FLAG_READ,
	        .vaddr = (uint64_t)(uintptr_t)va,
	        .iova = out->iova,
	        .size = out->map_size,
	};
	if (!mapped(out, sys->ioctl(sys->ctx, v->container_fd, VFIO_IOMMU_MAP_DMA, &map), false))
		return 0;
	struct vfio_iommu_type1_dma_unmap unmap = {
	        .argsz = sizeof(unmap), .iova = out->iova, .size = out->map_size};
	if (sys->ioctl(sys->ctx, v->container_fd, VFIO_IOMMU_UNMAP_DMA, &unmap) < 0)
		return p2ps_error_set(err, P2PS_EIO,
		                      "VFIO_IOMMU_UNMAP_DMA(iova 0x%" PRIx64 "): %s (mapping left "
		                      "until the container closes)",
		                      out->iova, strerror(errno));
	out->unmapped = true;
	out->unmapped_size = unmap.size;
	return 0;
}

#if P2PS_HAVE_VFIO_CDEV
static int map_iommufd(struct p2ps_vfio *v, void *va, struct p2ps_vfio_peer_map *out,
                       struct p2ps_error *err)
{
	const struct p2ps_vfio_sys *sys = v->sys;
	out->method = "IOMMU_IOAS_MAP";
	/* No FIXED_IOVA: the kernel picks an IOVA inside the IOAS's allowed ranges. */
	struct iommu_ioas_map map = {
	        .size = sizeof(map),
	        .flags = IOMMU_IOAS_MAP_READABLE,
	        .ioas_id = v->ioas_id,
	        .user_va = (uint64_t)(uintptr_t)va,
	        .length = out->map_size,
	};
	if (!mapped(out, sys->ioctl(sys->ctx, v->iommufd, IOMMU_IOAS_MAP, &map), true))
		return 0;
	out->iova = map.iova;
	out->iova_is_bus_addr =
	        out->bar_bus_addr && map.iova == out->bar_bus_addr + out->map_offset;
	struct iommu_ioas_unmap unmap = {.size = sizeof(unmap),
	                                 .ioas_id = v->ioas_id,
	                                 .iova = map.iova,
	                                 .length = map.length};
	if (sys->ioctl(sys->ctx, v->iommufd, IOMMU_IOAS_UNMAP, &unmap) < 0)
		return p2ps_error_set(err, P2PS_EIO, "IOMMU_IOAS_UNMAP(iova 0x%" PRIx64 "): %s",
		                      (uint64_t)map.iova, strerror(errno));
	out->unmapped = true;
	out->unmapped_size = unmap.length;
	return 0;
}
#endif

int p2ps_vfio_map_peer(struct p2ps_vfio_device *a, struct p2ps_vfio_device *b, int bar,
                       struct p2ps_vfio_peer_map *out, struct p2ps_error *err)
{
	if (!a || !b || !out || a->fd < 0 || b->fd < 0 || a->v != b->v)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "map-peer: both devices must be open in one VFIO session");
	struct p2ps_vfio *v = a->v;
	memset(out, 0, sizeof(*out));
	snprintf(out->a, sizeof(out->a), "%s", a->bdf);
	snprintf(out->b, sizeof(out->b), "%s", b->bdf);
	out->same_group = a->group == b->group;
	if (bar > 5)
		return p2ps_error_set(err, P2PS_EINVAL, "map-peer: BAR %d out of range", bar);

	struct p2ps_vfio_region regs[P2PS_VFIO_PCI_ROM];
	unsigned n = 0;
	for (unsigned i = 0; i < P2PS_VFIO_PCI_ROM; i++) {
		if (p2ps_vfio_region_get(b, i, &regs[i], NULL) != 0)
			memset(&regs[i], 0, sizeof(regs[i]));
		n++;
	}
	const struct p2ps_vfio_region *r;
	if (pick_bar(regs, n, bar, &r) != 0) {
		if (bar >= 0)
			return p2ps_error_set(
			        err, P2PS_ENOTSUP,
			        "%s: BAR%d is absent or its VFIO region cannot be mmapped", b->bdf,
			        bar);
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "%s: no BAR whose VFIO region can be mmapped", b->bdf);
	}
	out->bar = r->index;
	out->bar_size = r->size;
	out->bar_bus_addr = p2ps_vfio_sysfs_bar_addr(v->sys, v->sysfs_root, b->bdf, r->index);
	mappable_range(r, &out->map_offset, &out->map_size);
	if (out->map_size == 0)
		return p2ps_error_set(err, P2PS_ENOTSUP, "%s: BAR%u has no mmappable area", b->bdf,
		                      r->index);

	void *va = v->sys->mmap(v->sys->ctx, (size_t)out->map_size, PROT_READ, MAP_SHARED, b->fd,
	                        (off_t)(r->offset + out->map_offset));
	if (va == MAP_FAILED)
		return p2ps_error_set(err, P2PS_EIO,
		                      "%s: mmap(bar%u, 0x%" PRIx64 " bytes, PROT_READ): %s", b->bdf,
		                      r->index, out->map_size, strerror(errno));
	int rc;
#if P2PS_HAVE_VFIO_CDEV
	if (a->flow == P2PS_VFIO_FLOW_CDEV)
		rc = map_iommufd(v, va, out, err);
	else
#endif
		rc = map_legacy(v, va, out, err);
	v->sys->munmap(v->sys->ctx, va, (size_t)out->map_size);
	return rc;
}
