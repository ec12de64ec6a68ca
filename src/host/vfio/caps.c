/* SPDX-License-Identifier: MIT */
/* p2pscope: parsers for the buffers VFIO's INFO ioctls return.
 *
 * A VFIO INFO buffer is a fixed struct followed by a chain of capabilities:
 * struct vfio_info_cap_header { u16 id; u16 version; u32 next; }, where next and
 * the first offset (cap_offset) are byte offsets from the start of the buffer
 * and 0 ends the chain. The kernel builds well-formed chains, but the buffer is
 * still input: these functions never read outside [0, len), never follow an
 * offset twice, and stop after P2PS_VFIO_MAX_CAPS entries. Nothing here makes a
 * system call, so the libFuzzer target and the unit tests drive it directly.
 */
#include "p2pscope/vfio/caps.h"

#include <stdio.h>
#include <string.h>

#include "vfio_uapi.h"

/* Host-order loads: ioctl buffers are written by the kernel in the CPU's byte
 * order, and memcpy keeps the loads alignment-safe. */
static uint16_t ld16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

#define CAP_HDR_LEN 8u /* sizeof(struct vfio_info_cap_header) */
/* Array capabilities: header, u32 count, u32 reserved, then 16-byte entries
 * (vfio_region_sparse_mmap_area, vfio_iova_range). */
#define ARRAY_CAP_HDR_LEN   16u
#define ARRAY_CAP_ENTRY_LEN 16u

static bool offset_seen(const struct p2ps_vfio_cap_chain *c, uint32_t off)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->caps[i].offset == off)
			return true;
	return false;
}

int p2ps_vfio_caps_walk(const uint8_t *buf, size_t len, uint32_t first, size_t fixed,
                        struct p2ps_vfio_cap_chain *out, struct p2ps_error *err)
{
	if (!out || (!buf && len))
		return p2ps_error_set(err, P2PS_EINVAL, "vfio caps: NULL argument");
	memset(out, 0, sizeof(*out));
	if (first == 0) {
		out->end = P2PS_VFIO_CHAIN_NONE;
		return 0;
	}
	uint32_t off = first;
	/* The visited set is the list of entries itself: a chain of at most
	 * P2PS_VFIO_MAX_CAPS entries is checked in O(n^2) = 1024 compares. */
	while (off != 0) {
		if (off < fixed || (uint64_t)off + CAP_HDR_LEN > len) {
			out->end = P2PS_VFIO_CHAIN_BROKEN;
			out->bad_offset = off;
			return 0;
		}
		if (offset_seen(out, off)) {
			out->end = P2PS_VFIO_CHAIN_LOOPED;
			out->bad_offset = off;
			return 0;
		}
		if (out->n == P2PS_VFIO_MAX_CAPS) {
			out->end = P2PS_VFIO_CHAIN_TOO_LONG;
			out->bad_offset = off;
			return 0;
		}
		struct p2ps_vfio_cap_ref *r = &out->caps[out->n++];
		r->offset = off;
		r->id = ld16(buf + off);
		r->version = ld16(buf + off + 2);
		uint32_t next = ld32(buf + off + 4);
		/* A capability's payload runs to the next header when that one
		 * follows it, else to the end of the buffer. */
		uint32_t end = (next > off && next <= len) ? next : (uint32_t)len;
		r->len = end - off;
		off = next;
	}
	out->end = P2PS_VFIO_CHAIN_OK;
	return 0;
}

/* ---- regions ----------------------------------------------------------------- */

#define REGION_FIXED_LEN 32u /* sizeof(struct vfio_region_info) */
#define TYPE_CAP_LEN     16u /* struct vfio_region_info_cap_type */

/* A capability that is an array: a 16-byte header whose u32 at +8 counts 16-byte
 * entries of two u64 each (sparse mmap areas, IOVA ranges; both are read into arrays of
 * two-u64 structs). Reads the entries the capability's bytes hold, at most max, into
 * dst; *claimed receives the count as written and *malformed is set when it claims more
 * than the bytes hold. Returns the number read, or -1 when the header does not fit. */
static int cap_u64_pairs(const uint8_t *buf, const struct p2ps_vfio_cap_ref *r, void *dst,
                         unsigned max, uint32_t *claimed, bool *malformed)
{
	if (r->len < ARRAY_CAP_HDR_LEN)
		return -1;
	const uint8_t *p = buf + r->offset;
	*claimed = ld32(p + 8);
	/* A larger count (a huge one, or a truncated buffer) is malformed; only the entries
	 * actually present are read. */
	uint64_t n = (r->len - ARRAY_CAP_HDR_LEN) / ARRAY_CAP_ENTRY_LEN;
	if (*claimed > n)
		*malformed = true;
	else
		n = *claimed;
	if (n > max)
		n = max;
	for (uint64_t i = 0; i < 2 * n; i++) {
		uint64_t v = ld64(p + ARRAY_CAP_HDR_LEN + 8 * i);
		memcpy((uint8_t *)dst + 8 * i, &v, sizeof(v));
	}
	return (int)n;
}

_Static_assert(sizeof(struct p2ps_vfio_area) == 16 && sizeof(struct p2ps_vfio_iova_range) == 16,
               "array capabilities are read as pairs of u64");

static void region_cap_sparse(const uint8_t *buf, const struct p2ps_vfio_cap_ref *r,
                              struct p2ps_vfio_region *out)
{
	int n = cap_u64_pairs(buf, r, out->areas, P2PS_VFIO_MAX_AREAS, &out->sparse_nr_areas,
	                      &out->sparse_malformed);
	if (n < 0) {
		out->cap_truncated = true;
		return;
	}
	out->has_sparse = true;
	out->n_areas = (unsigned)n;
	for (int i = 0; i < n; i++)
		if (out->areas[i].offset > out->size ||
		    out->areas[i].size > out->size - out->areas[i].offset)
			out->sparse_outside = true;
}

static void region_cap_type(const uint8_t *buf, const struct p2ps_vfio_cap_ref *r,
                            struct p2ps_vfio_region *out)
{
	if (r->len < TYPE_CAP_LEN) {
		out->cap_truncated = true;
		return;
	}
	out->has_type = true;
	out->type = ld32(buf + r->offset + 8);
	out->subtype = ld32(buf + r->offset + 12);
}

/* Every INFO parser starts alike: both pointers given, *out cleared, the fixed struct
 * present in the buffer. what names the buffer in messages ("vfio region info"). */
static int info_start(const uint8_t *buf, size_t len, void *out, size_t out_size, size_t fixed,
                      const char *what, struct p2ps_error *err)
{
	if (!buf || !out)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: NULL argument", what);
	memset(out, 0, out_size);
	if (len < fixed)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: %zu bytes, need at least %zu", what,
		                      len, fixed);
	return 0;
}

int p2ps_vfio_region_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_region *out,
                           struct p2ps_error *err)
{
	int rc = info_start(buf, len, out, sizeof(*out), REGION_FIXED_LEN, "vfio region info", err);
	if (rc)
		return rc;
	out->argsz = ld32(buf);
	out->flags = ld32(buf + 4);
	out->index = ld32(buf + 8);
	uint32_t cap_offset = ld32(buf + 12);
	out->size = ld64(buf + 16);
	out->offset = ld64(buf + 24);
	/* Only the bytes the kernel said it filled count as the chain's buffer. */
	size_t avail = len;
	if (out->argsz >= REGION_FIXED_LEN && out->argsz < avail)
		avail = out->argsz;
	if (!(out->flags & VFIO_REGION_INFO_FLAG_CAPS))
		cap_offset = 0;
	p2ps_vfio_caps_walk(buf, avail, cap_offset, REGION_FIXED_LEN, &out->chain, NULL);
	for (unsigned i = 0; i < out->chain.n; i++) {
		const struct p2ps_vfio_cap_ref *r = &out->chain.caps[i];
		/* A repeated capability is ignored: the kernel adds each once, and
		 * merging two would mix counts from different headers. */
		switch (r->id) {
		case VFIO_REGION_INFO_CAP_SPARSE_MMAP:
			if (!out->has_sparse)
				region_cap_sparse(buf, r, out);
			break;
		case VFIO_REGION_INFO_CAP_TYPE:
			if (!out->has_type)
				region_cap_type(buf, r, out);
			break;
		case VFIO_REGION_INFO_CAP_MSIX_MAPPABLE: out->msix_mappable = true; break;
		default: break; /* kept in chain.caps[] by id; renderers name it unknown */
		}
	}
	return 0;
}

/* ---- IOMMU info ---------------------------------------------------------------- */

#define IOMMU_FIXED_LEN 20u /* argsz, flags, iova_pgsizes, cap_offset (6.1 layout) */
#define DMA_AVAIL_LEN   12u

static void iommu_cap_ranges(const uint8_t *buf, const struct p2ps_vfio_cap_ref *r,
                             struct p2ps_vfio_iommu_info *out)
{
	int n = cap_u64_pairs(buf, r, out->ranges, P2PS_VFIO_MAX_RANGES, &out->nr_iovas,
	                      &out->ranges_malformed);
	out->ranges_malformed |= n < 0;
	out->has_ranges = n >= 0;
	out->n_ranges = n < 0 ? 0 : (unsigned)n;
	for (int i = 0; i < n; i++)
		out->ranges_malformed |= out->ranges[i].end < out->ranges[i].start;
}

int p2ps_vfio_iommu_info_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_iommu_info *out,
                               struct p2ps_error *err)
{
	/* 16 bytes: argsz, flags, iova_pgsizes; cap_offset only with the CAPS flag. */
	int rc = info_start(buf, len, out, sizeof(*out), 16, "vfio iommu info", err);
	if (rc)
		return rc;
	uint32_t argsz = ld32(buf);
	out->flags = ld32(buf + 4);
	out->iova_pgsizes = ld64(buf + 8);
	uint32_t cap_offset = 0;
	if ((out->flags & VFIO_IOMMU_INFO_CAPS) && len >= IOMMU_FIXED_LEN)
		cap_offset = ld32(buf + 16);
	size_t avail = len;
	if (argsz >= IOMMU_FIXED_LEN && argsz < avail)
		avail = argsz;
	p2ps_vfio_caps_walk(buf, avail, cap_offset, IOMMU_FIXED_LEN, &out->chain, NULL);
	for (unsigned i = 0; i < out->chain.n; i++) {
		const struct p2ps_vfio_cap_ref *r = &out->chain.caps[i];
		if (r->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE && !out->has_ranges) {
			iommu_cap_ranges(buf, r, out);
		} else if (r->id == VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL && r->len >= DMA_AVAIL_LEN) {
			out->has_dma_avail = true;
			out->dma_avail = ld32(buf + r->offset + 8);
		}
	}
	return 0;
}

/* ---- device info --------------------------------------------------------------- */

#define DEVICE_FIXED_LEN 16u /* argsz, flags, num_regions, num_irqs */

int p2ps_vfio_device_info_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_device_info *out,
                                struct p2ps_error *err)
{
	int rc = info_start(buf, len, out, sizeof(*out), DEVICE_FIXED_LEN, "vfio device info", err);
	if (rc)
		return rc;
	uint32_t argsz = ld32(buf);
	out->flags = ld32(buf + 4);
	out->num_regions = ld32(buf + 8);
	out->num_irqs = ld32(buf + 12);
	uint32_t cap_offset = 0;
	/* cap_offset (and its pad) exist since Linux 5.3; older kernels report a
	 * 16-byte argsz and never set the CAPS flag. */
	if ((out->flags & VFIO_DEVICE_FLAGS_CAPS) && len >= DEVICE_FIXED_LEN + 4)
		cap_offset = ld32(buf + 16);
	size_t avail = len;
	if (argsz >= DEVICE_FIXED_LEN && argsz < avail)
		avail = argsz;
	p2ps_vfio_caps_walk(buf, avail, cap_offset, DEVICE_FIXED_LEN + 8, &out->chain, NULL);
	return 0;
}
