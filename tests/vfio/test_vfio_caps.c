/* SPDX-License-Identifier: MIT */
/* VFIO INFO-buffer parsers against well-formed and malformed capability chains.
 * Buffers are built with the kernel's struct layouts from <linux/vfio.h>, so a
 * layout mistake in the parser shows up as a wrong field here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/vfio.h>
#include <string.h>

#include "p2pscope/vfio.h"

/* A region-info buffer: struct vfio_region_info, then caps appended at offsets. */
struct rbuf {
	uint8_t b[512];
	size_t len;
};

static void region_init(struct rbuf *r, uint32_t index, uint32_t flags, uint64_t size,
                        uint64_t offset, uint32_t cap_offset, uint32_t argsz)
{
	memset(r, 0, sizeof(*r));
	struct vfio_region_info ri = {.argsz = argsz,
	                              .flags = flags,
	                              .index = index,
	                              .cap_offset = cap_offset,
	                              .size = size,
	                              .offset = offset};
	memcpy(r->b, &ri, sizeof(ri));
	r->len = argsz;
}

static void put_hdr(struct rbuf *r, uint32_t at, uint16_t id, uint16_t ver, uint32_t next)
{
	struct vfio_info_cap_header h = {.id = id, .version = ver, .next = next};
	memcpy(r->b + at, &h, sizeof(h));
}

static void put_sparse(struct rbuf *r, uint32_t at, uint32_t next, uint32_t nr,
                       const struct vfio_region_sparse_mmap_area *areas, unsigned n_written)
{
	put_hdr(r, at, VFIO_REGION_INFO_CAP_SPARSE_MMAP, 1, next);
	memcpy(r->b + at + 8, &nr, 4);
	for (unsigned i = 0; i < n_written; i++)
		memcpy(r->b + at + 16 + 16 * i, &areas[i], sizeof(areas[i]));
}

static void well_formed_sparse_and_type(void **state)
{
	(void)state;
	struct rbuf r;
	const uint32_t f = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
	                   VFIO_REGION_INFO_FLAG_MMAP | VFIO_REGION_INFO_FLAG_CAPS;
	/* Like an NVMe BAR0 of 16 KiB with the MSI-X table page punched out. */
	region_init(&r, 0, f, 0x4000, 0, 32, 32 + 48 + 16 + 8);
	struct vfio_region_sparse_mmap_area areas[2] = {{0, 0x2000}, {0x3000, 0x1000}};
	put_sparse(&r, 32, 80, 2, areas, 2);
	put_hdr(&r, 80, VFIO_REGION_INFO_CAP_TYPE, 1, 96);
	uint32_t type = 0x80000000u | 0x10de, sub = 1;
	memcpy(r.b + 88, &type, 4);
	memcpy(r.b + 92, &sub, 4);
	put_hdr(&r, 96, VFIO_REGION_INFO_CAP_MSIX_MAPPABLE, 1, 0);

	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.index, 0);
	assert_int_equal(out.size, 0x4000);
	assert_int_equal(out.flags, f);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_OK);
	assert_int_equal(out.chain.n, 3);
	assert_true(out.has_sparse);
	assert_false(out.sparse_malformed);
	assert_false(out.sparse_outside);
	assert_int_equal(out.n_areas, 2);
	assert_int_equal(out.areas[1].offset, 0x3000);
	assert_int_equal(out.areas[1].size, 0x1000);
	assert_true(out.has_type);
	assert_int_equal(out.type, 0x800010de);
	assert_int_equal(out.subtype, 1);
	assert_true(out.msix_mappable);
}

static void caps_flag_clear_means_no_chain(void **state)
{
	(void)state;
	struct rbuf r;
	/* cap_offset set but CAPS flag clear: the kernel's contract says no chain. */
	region_init(&r, 2, VFIO_REGION_INFO_FLAG_READ, 4096, 0x20000000000ull, 32, 64);
	put_hdr(&r, 32, VFIO_REGION_INFO_CAP_MSIX_MAPPABLE, 1, 0);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_NONE);
	assert_false(out.msix_mappable);
	assert_int_equal(out.offset, 0x20000000000ull);
}

static void offset_outside_buffer_is_broken(void **state)
{
	(void)state;
	struct rbuf r;
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 4096, 0, 4000, 64);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_BROKEN);
	assert_int_equal(out.chain.bad_offset, 4000);
	assert_int_equal(out.chain.n, 0);

	/* A header that starts inside but does not fit whole. */
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 4096, 0, 60, 64);
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_BROKEN);

	/* next pointing far past the end after one good entry. */
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 4096, 0, 32, 48);
	put_hdr(&r, 32, VFIO_REGION_INFO_CAP_MSIX_MAPPABLE, 1, 0xfffffff0u);
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_BROKEN);
	assert_int_equal(out.chain.n, 1);
	assert_true(out.msix_mappable);
}

static void offset_into_fixed_part_is_broken(void **state)
{
	(void)state;
	struct rbuf r;
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 4096, 0, 8, 64);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_BROKEN);
	assert_int_equal(out.chain.bad_offset, 8);
}

static void loops_are_detected(void **state)
{
	(void)state;
	struct rbuf r;
	struct p2ps_vfio_region out;
	/* Self loop. */
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 4096, 0, 32, 64);
	put_hdr(&r, 32, 99, 1, 32);
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_LOOPED);
	assert_int_equal(out.chain.n, 1);
	/* Two-entry cycle 32 -> 48 -> 32. */
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 4096, 0, 32, 64);
	put_hdr(&r, 32, 98, 1, 48);
	put_hdr(&r, 48, 99, 1, 32);
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_LOOPED);
	assert_int_equal(out.chain.n, 2);
	assert_int_equal(out.chain.bad_offset, 32);
}

static void zero_next_ends_chain(void **state)
{
	(void)state;
	struct rbuf r;
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 4096, 0, 32, 64);
	put_hdr(&r, 32, 77, 3, 0);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_OK);
	assert_int_equal(out.chain.n, 1);
	assert_int_equal(out.chain.caps[0].id, 77);
	assert_int_equal(out.chain.caps[0].version, 3);
	assert_int_equal(out.chain.caps[0].len, 32);
}

static void long_chain_is_bounded(void **state)
{
	(void)state;
	/* 40 well-formed entries, 8 bytes apart: the walk keeps 32 and says why. */
	uint8_t b[32 + 40 * 8];
	memset(b, 0, sizeof(b));
	struct vfio_region_info ri = {.argsz = sizeof(b),
	                              .flags = VFIO_REGION_INFO_FLAG_CAPS,
	                              .cap_offset = 32,
	                              .size = 4096};
	memcpy(b, &ri, sizeof(ri));
	for (uint32_t i = 0; i < 40; i++) {
		struct vfio_info_cap_header h = {
		        .id = 200, .version = 1, .next = i == 39 ? 0 : 32 + 8 * (i + 1)};
		memcpy(b + 32 + 8 * i, &h, sizeof(h));
	}
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(b, sizeof(b), &out, NULL), 0);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_TOO_LONG);
	assert_int_equal(out.chain.n, P2PS_VFIO_MAX_CAPS);
}

static void huge_area_count_is_malformed(void **state)
{
	(void)state;
	struct rbuf r;
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS | VFIO_REGION_INFO_FLAG_MMAP, 0x4000, 0, 32,
	            32 + 16 + 32);
	struct vfio_region_sparse_mmap_area areas[2] = {{0, 0x1000}, {0x2000, 0x1000}};
	put_sparse(&r, 32, 0, 0xffffffffu, areas, 2);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_true(out.has_sparse);
	assert_true(out.sparse_malformed);
	assert_int_equal(out.sparse_nr_areas, 0xffffffffu);
	assert_int_equal(out.n_areas, 2); /* only what the buffer holds */
	assert_int_equal(out.areas[1].offset, 0x2000);
}

static void truncated_sparse_cap(void **state)
{
	(void)state;
	struct rbuf r;
	/* nr_areas 4 but argsz cuts the buffer after one and a half areas. */
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 0x4000, 0, 32, 32 + 16 + 24);
	struct vfio_region_sparse_mmap_area areas[2] = {{0, 0x1000}, {0x2000, 0x1000}};
	put_sparse(&r, 32, 0, 4, areas, 2);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_true(out.sparse_malformed);
	assert_int_equal(out.n_areas, 1);

	/* Header only, no room for nr_areas: a truncated capability. */
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 0x4000, 0, 32, 40);
	put_hdr(&r, 32, VFIO_REGION_INFO_CAP_SPARSE_MMAP, 1, 0);
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_false(out.has_sparse);
	assert_true(out.cap_truncated);
}

static void area_past_region_end_is_flagged(void **state)
{
	(void)state;
	struct rbuf r;
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 0x4000, 0, 32, 32 + 16 + 16);
	struct vfio_region_sparse_mmap_area a = {0x3000, 0xffffffffffff0000ull};
	put_sparse(&r, 32, 0, 1, &a, 1);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_true(out.sparse_outside);
}

static void repeated_sparse_cap_is_ignored(void **state)
{
	(void)state;
	/* Found by the fuzzer: two sparse caps must not merge their areas. */
	struct rbuf r;
	region_init(&r, 0, VFIO_REGION_INFO_FLAG_CAPS, 0x4000, 0, 32, 32 + 32 + 32);
	struct vfio_region_sparse_mmap_area a = {0, 0x1000}, b = {0x2000, 0x1000};
	put_sparse(&r, 32, 64, 1, &a, 1);
	put_sparse(&r, 64, 0, 1, &b, 1);
	struct p2ps_vfio_region out;
	assert_int_equal(p2ps_vfio_region_parse(r.b, r.len, &out, NULL), 0);
	assert_int_equal(out.chain.n, 2);
	assert_int_equal(out.n_areas, 1);
	assert_int_equal(out.areas[0].offset, 0);
}

static void short_buffer_is_an_error(void **state)
{
	(void)state;
	uint8_t b[16] = {0};
	struct p2ps_vfio_region out;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_vfio_region_parse(b, sizeof(b), &out, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "16 bytes"));
}

static void iommu_info_ranges(void **state)
{
	(void)state;
	uint8_t b[128];
	memset(b, 0, sizeof(b));
	struct vfio_iommu_type1_info info = {.argsz = 24 + 16 + 32 + 12,
	                                     .flags =
	                                             VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS,
	                                     .iova_pgsizes = 0x40201000ull,
	                                     .cap_offset = 24};
	memcpy(b, &info, sizeof(info));
	struct vfio_info_cap_header h = {
	        .id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE, .version = 1, .next = 72};
	memcpy(b + 24, &h, sizeof(h));
	uint32_t nr = 2;
	memcpy(b + 32, &nr, 4);
	struct vfio_iova_range rg[2] = {{0, 0xfedfffffull}, {0xfef00000ull, 0xffffffffffull}};
	memcpy(b + 40, rg, sizeof(rg));
	struct vfio_info_cap_header h2 = {.id = VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL, .version = 1};
	memcpy(b + 72, &h2, sizeof(h2));
	uint32_t avail = 65535;
	memcpy(b + 80, &avail, 4);
	struct p2ps_vfio_iommu_info out;
	assert_int_equal(p2ps_vfio_iommu_info_parse(b, sizeof(b), &out, NULL), 0);
	assert_int_equal(out.iova_pgsizes, 0x40201000ull);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_OK);
	assert_true(out.has_ranges);
	assert_false(out.ranges_malformed);
	assert_int_equal(out.n_ranges, 2);
	assert_int_equal(out.ranges[0].end, 0xfedfffffull);
	assert_int_equal(out.ranges[1].start, 0xfef00000ull);
	assert_true(out.has_dma_avail);
	assert_int_equal(out.dma_avail, 65535);
}

static void device_info_chain(void **state)
{
	(void)state;
	uint8_t b[64];
	memset(b, 0, sizeof(b));
	struct vfio_device_info di = {.argsz = 40,
	                              .flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET |
	                                       VFIO_DEVICE_FLAGS_CAPS,
	                              .num_regions = 9,
	                              .num_irqs = 5,
	                              .cap_offset = 24};
	memcpy(b, &di, sizeof(di));
	struct vfio_info_cap_header h = {.id = 5, .version = 1, .next = 24}; /* loops */
	memcpy(b + 24, &h, sizeof(h));
	struct p2ps_vfio_device_info out;
	assert_int_equal(p2ps_vfio_device_info_parse(b, sizeof(b), &out, NULL), 0);
	assert_int_equal(out.num_regions, 9);
	assert_int_equal(out.num_irqs, 5);
	assert_int_equal(out.chain.end, P2PS_VFIO_CHAIN_LOOPED);
}

static void names(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(p2ps_vfio_region_name(1, b, sizeof(b)), "bar1");
	assert_string_equal(p2ps_vfio_region_name(6, b, sizeof(b)), "rom");
	assert_string_equal(p2ps_vfio_region_name(7, b, sizeof(b)), "config");
	assert_string_equal(p2ps_vfio_region_name(8, b, sizeof(b)), "vga");
	assert_string_equal(p2ps_vfio_region_name(9, b, sizeof(b)), "region9");
	assert_string_equal(p2ps_vfio_region_flags_str(0xf, b, sizeof(b)), "read write mmap caps");
	assert_string_equal(p2ps_vfio_region_flags_str(0x5, b, sizeof(b)), "read mmap");
	assert_string_equal(p2ps_vfio_chain_end_name(P2PS_VFIO_CHAIN_LOOPED), "looped");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(well_formed_sparse_and_type),
	        cmocka_unit_test(caps_flag_clear_means_no_chain),
	        cmocka_unit_test(offset_outside_buffer_is_broken),
	        cmocka_unit_test(offset_into_fixed_part_is_broken),
	        cmocka_unit_test(loops_are_detected),
	        cmocka_unit_test(zero_next_ends_chain),
	        cmocka_unit_test(long_chain_is_bounded),
	        cmocka_unit_test(huge_area_count_is_malformed),
	        cmocka_unit_test(truncated_sparse_cap),
	        cmocka_unit_test(area_past_region_end_is_flagged),
	        cmocka_unit_test(repeated_sparse_cap_is_ignored),
	        cmocka_unit_test(short_buffer_is_an_error),
	        cmocka_unit_test(iommu_info_ranges),
	        cmocka_unit_test(device_info_chain),
	        cmocka_unit_test(names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
