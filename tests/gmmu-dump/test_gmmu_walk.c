/* SPDX-License-Identifier: MIT */
/* Page-directory walks, summaries and verify over hand-built VER2 page-table images
 * (VER3 and the summary's fast path: test_gmmu_summary.c).
 *
 * Every entry below is written as a literal whose bits were computed by hand
 * from the hwref defines (NVIDIA open-gpu-kernel-modules 595.45.04,
 * pascal/gp100/dev_mmu.h for VER2, hopper/gh100/dev_mmu.h for VER3), never by
 * libgmmu's encoder; the comment beside each shows the arithmetic. */
#include "walk_image.h"

/* ---- VER2 (AD102: v2 with 512 MB pages at PD1) ------------------------------
 *
 *  0x100000 PD3  [0] -> PD2 0x101000
 *  0x101000 PD2  [0] -> PD1 0x102000
 *  0x102000 PD1  [0] -> PD0 0x103000, [1] 512M PTE sysmem 0x38000000000
 *  0x103000 PD0  [0] dual: big -> 0x104000, small -> 0x105000
 *                [1..3] 2M PTEs vidmem 0x40000000, 0x40200000, 0x40600000 (wrong: 0x40400000)
 *  0x104000 PT_BIG   [0..1] 64K SYS_NONCOH 0x38000000000 + n*64K, VOL
 *  0x105000 PT_SMALL [32..35] 4K VIDEO 0x200000 + n*4K; [40] 4K PEER 2, 0x1000
 */
static void build_v2(void)
{
	memset(mem_img, 0, sizeof(mem_img));
	/* PDE: APERTURE(2:1)=VIDEO_MEMORY 1 -> 0x2; ADDRESS_VID(32:8) = PA >> 12 */
	put64(0x100000, 0x101ull << 8 | 0x2); /* 0x10102 */
	put64(0x101000, 0x10202ull);
	put64(0x102000, 0x10302ull);
	/* 512M PTE: VALID(0)=1, APERTURE(2:1)=3 SYS_NONCOH -> 0x6, VOL(3) -> 0x8,
	 * ADDRESS_SYS(53:8) = 0x38000000000 >> 12 = 0x38000000 -> << 8 = 0x3800000000,
	 * KIND(63:56) = 6 GENERIC_MEMORY */
	put64(0x102008, 0x060000380000000full);
	/* Dual PDE [0]: APERTURE_BIG(2:1)=1 -> 0x2; ADDRESS_BIG_VID(32:4) = 0x104000 >> 8 =
	 * 0x1040 -> << 4 = 0x10400. APERTURE_SMALL(66:65)=1 -> word1 bit 1 = 0x2;
	 * ADDRESS_SMALL_VID(96:72) = 0x105000 >> 12 = 0x105 -> word1 << 8 = 0x10500. */
	put64(0x103000, 0x10402ull);
	put64(0x103008, 0x10502ull);
	/* 2M PTEs in PD0 [1..3] (first quad-word of each 16-byte entry): VALID 1, VIDEO,
	 * ADDRESS_VID = PA >> 12 << 8, KIND 6. */
	put64(0x103010, 0x0600000004000001ull); /* 0x40000000 >> 12 = 0x40000 -> 0x4000000 */
	put64(0x103020, 0x0600000004020001ull); /* 0x40200000 */
	put64(0x103030, 0x0600000004060001ull); /* 0x40600000: the deliberately wrong one */
	/* PT_BIG: VALID|SYS_NONCOH|VOL = 0xf, ADDRESS_SYS = 0x38000000 (+0x10) << 8 */
	put64(0x104000, 0x060000380000000full);
	put64(0x104008, 0x060000380000100full);
	/* PT_SMALL [32..35]: VALID, VIDEO, ADDRESS_VID = 0x200..0x203 << 8, KIND 0 PITCH */
	for (unsigned i = 0; i < 4; i++)
		put64(0x105000 + 8 * (32 + i), (0x200ull + i) << 8 | 1);
	/* PT_SMALL [40]: VALID 1, APERTURE PEER 1 -> 0x2, ADDRESS_VID 0x1 << 8 = 0x100,
	 * ADDRESS_VID_PEER(35:33) = 2 -> 2 << 33 = 0x400000000 */
	put64(0x105000 + 8 * 40, 0x0000000400000103ull);
}

static void v2_walk_finds_every_level(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	struct got g = {0};
	struct gmmu_walk_stats st;
	struct p2ps_error err = {0};
	assert_int_equal(walk_image(f, 0x100000, &g, &st, &err), 0);
	/* 2 big + 4 small + 1 peer + 3 2M + 1 512M */
	assert_int_equal(g.nm, 11);
	assert_int_equal(st.ptes_valid, 11);
	/* PD3, PD2, PD1, PD0, PT_BIG, PT_SMALL */
	assert_int_equal(st.tables, 6);
	/* big half first, then the small half, then the 2M PTEs of PD0, then PD1's 512M */
	assert_int_equal(g.m[0].va, 0x0);
	assert_int_equal(g.m[0].page_shift, 16);
	assert_string_equal(g.m[0].level->name, "PT_BIG");
	assert_int_equal(g.m[0].v.aperture, GMMU_APERTURE_SYS_NONCOH);
	assert_int_equal(g.m[0].v.addr, 0x38000000000ull);
	assert_true(g.m[0].v.vol);
	assert_int_equal(g.m[1].va, 0x10000);
	assert_int_equal(g.m[1].v.addr, 0x38000010000ull);
	assert_int_equal(g.m[2].va, 0x20000);
	assert_int_equal(g.m[2].page_shift, 12);
	assert_int_equal(g.m[2].entry_pa, 0x105000 + 8 * 32);
	assert_int_equal(g.m[2].v.addr, 0x200000);
	assert_int_equal(g.m[6].va, 0x28000);
	assert_int_equal(g.m[6].v.aperture, GMMU_APERTURE_PEER);
	assert_int_equal(g.m[6].v.peer_index, 2);
	assert_int_equal(g.m[6].v.addr, 0x1000);
	assert_int_equal(g.m[7].va, 0x200000);
	assert_int_equal(g.m[7].page_shift, 21);
	assert_string_equal(g.m[7].level->name, "PD0");
	assert_int_equal(g.m[7].v.addr, 0x40000000);
	assert_int_equal(g.m[9].v.addr, 0x40600000);
	assert_int_equal(g.m[10].va, 0x20000000);
	assert_int_equal(g.m[10].page_shift, 29);
	assert_int_equal(g.m[10].v.addr, 0x38000000000ull);
}

/* 128 KiB big pages: PT_BIG indexes VA 20:17, 16 entries. */
static void v2_walk_with_128k_big_pages(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	struct p2ps_mem_set mem;
	struct p2ps_error err = {0};
	p2ps_mem_set_init(&mem);
	assert_int_equal(p2ps_mem_set_add_buffer(&mem, P2PS_MEM_VID, MEM_BASE, mem_img, MEM_SIZE,
	                                         "img", &err),
	                 0);
	struct gmmu_walk_opts o = {
	        .fmt = f, .pdb_space = P2PS_MEM_VID, .pdb = 0x100000, .big_page_shift = 17};
	struct got g = {0};
	assert_int_equal(gmmu_walk(&mem, &o, on_mapping, &g, NULL, &err), 0);
	assert_int_equal(g.m[0].page_shift, 17);
	assert_int_equal(g.m[0].va, 0);
	assert_int_equal(g.m[1].page_shift, 17);
	assert_int_equal(g.m[1].va, 0x20000); /* entry 1 of a 128K table */
	assert_int_equal(g.m[1].v.addr, 0x38000010000ull);
	p2ps_mem_set_cleanup(&mem);
}

/* A PDE with a sysmem aperture sends the walk to sys: chunks. */
static void v2_walk_follows_sysmem_pdes(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	/* PD3 [0]: APERTURE (2:1) = SYSTEM_COHERENT_MEMORY 2 -> 0x4, ADDRESS_SYS (53:8) =
	 * 0x101000 >> 12 = 0x101 -> 0x10100 */
	put64(0x100000, 0x10104ull);
	static uint8_t sys_img[0x1000];
	memcpy(sys_img, mem_img + 0x1000, sizeof(sys_img)); /* PD2 in system memory */
	struct p2ps_mem_set mem;
	struct p2ps_error err = {0};
	p2ps_mem_set_init(&mem);
	assert_int_equal(p2ps_mem_set_add_buffer(&mem, P2PS_MEM_VID, MEM_BASE, mem_img, MEM_SIZE,
	                                         "img", &err),
	                 0);
	struct gmmu_walk_opts o = {.fmt = f, .pdb_space = P2PS_MEM_VID, .pdb = 0x100000};
	struct got g = {0};
	assert_int_equal(gmmu_walk(&mem, &o, on_mapping, &g, NULL, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "PD2 table at sys PA 0x101000-0x101fff"));
	assert_int_equal(p2ps_mem_set_add_buffer(&mem, P2PS_MEM_SYS, 0x101000, sys_img,
	                                         sizeof(sys_img), "sys", &err),
	                 0);
	struct gmmu_walk_stats st;
	assert_int_equal(gmmu_walk(&mem, &o, on_mapping, &g, &st, &err), 0);
	assert_int_equal(g.nm, 11);
	assert_int_equal(st.tables, 6);
	p2ps_mem_set_cleanup(&mem);
}

static void v2_summary_coalesces_runs(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	struct got g = {0};
	struct p2ps_error err = {0};
	assert_int_equal(walk_image(f, 0x100000, &g, NULL, &err), 0);
	summarize(f, &g);
	assert_int_equal(g.nr, 6);
	assert_range(&g.r[0], 0x0, 16, 2, GMMU_APERTURE_SYS_NONCOH, 0x38000000000ull);
	assert_range(&g.r[1], 0x20000, 12, 4, GMMU_APERTURE_VIDEO, 0x200000);
	assert_range(&g.r[2], 0x28000, 12, 1, GMMU_APERTURE_PEER, 0x1000);
	assert_int_equal(g.r[2].v.peer_index, 2);
	/* 0x40000000 and 0x40200000 continue one another; 0x40600000 does not */
	assert_range(&g.r[3], 0x200000, 21, 2, GMMU_APERTURE_VIDEO, 0x40000000);
	assert_range(&g.r[4], 0x600000, 21, 1, GMMU_APERTURE_VIDEO, 0x40600000);
	assert_range(&g.r[5], 0x20000000, 29, 1, GMMU_APERTURE_SYS_NONCOH, 0x38000000000ull);
}

static const char v2_spec[] =
        "{ \"chip\": \"AD102\",\n"
        "  \"peers\": [ { \"index\": 1, \"bar1_base\": \"0x38000000000\" } ],\n"
        "  \"mappings\": [\n"
        "    { \"name\": \"bar1-64k\", \"va\": \"0x0\", \"size\": \"128K\", \"page_size\": "
        "\"64K\",\n"
        "      \"aperture\": \"SYS_NONCOH\", \"peer\": 1, \"offset\": \"0\",\n"
        "      \"flags\": { \"vol\": true } },\n"
        "    { \"name\": \"small\", \"va\": \"0x20000\", \"size\": \"16K\", \"page_size\": "
        "\"4K\",\n"
        "      \"aperture\": \"VIDEO_MEMORY\", \"target\": \"0x200000\", \"kind\": \"PITCH\" },\n"
        "    { \"name\": \"stock-peer\", \"va\": \"0x28000\", \"size\": \"4K\",\n"
        "      \"aperture\": \"PEER\", \"peer\": 2, \"offset\": \"0x1000\" },\n"
        "    { \"name\": \"vram-2m\", \"va\": \"0x200000\", \"size\": \"6M\", \"page_size\": "
        "\"2M\",\n"
        "      \"aperture\": \"VIDEO\", \"target\": \"0x40000000\", \"kind\": 6 },\n"
        "    { \"name\": \"bar1-512m\", \"va\": \"0x20000000\", \"size\": \"512M\",\n"
        "      \"page_size\": \"512M\", \"aperture\": \"SYSTEM_NON_COHERENT_MEMORY\",\n"
        "      \"peer\": 1, \"offset\": \"0\", \"flags\": { \"vol\": true, \"read_only\": false } "
        "}\n"
        "  ] }\n";

static void v2_verify_finds_the_wrong_entry(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	struct got g = {0};
	struct gmmu_verify_stats vst;
	assert_int_equal(verify_walk(f, v2_spec, &g, &vst), 0);
	/* Exactly one difference: the third 2M page of vram-2m. */
	assert_int_equal(vst.diffs, 1);
	assert_int_equal(g.nd, 1);
	assert_int_equal(g.d[0].what, GMMU_DIFF_ADDRESS);
	assert_int_equal(g.d[0].va, 0x600000);
	assert_int_equal(g.d[0].size, 0x200000);
	assert_int_equal(g.d[0].exp_target, 0x40400000);
	assert_int_equal(g.d[0].act_target, 0x40600000);
	assert_string_equal(g.dexp[0].name, "vram-2m");
	/* 128K + 16K + 4K + 4M (of 6M) + 512M as intended */
	assert_int_equal(vst.intended_bytes, 0x20000 + 0x4000 + 0x1000 + 0x600000 + 0x20000000);
	assert_int_equal(vst.matched_bytes, 0x20000 + 0x4000 + 0x1000 + 0x400000 + 0x20000000);

	/* Fix the entry: everything matches. */
	put64(0x103030, 0x0600000004040001ull);
	struct got ok = {0};
	assert_int_equal(verify_walk(f, v2_spec, &ok, &vst), 0);
	assert_int_equal(vst.diffs, 0);
	assert_int_equal(vst.matched_bytes, vst.intended_bytes);
}

static void v2_verify_reports_missing_extra_and_attributes(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	/* Drop PT_SMALL [34] (a hole in "small"), make PT_BIG [1] read-only (bit 6 ->
	 * 0x40), and map one page nobody intended at PT_SMALL [100] (VA 0x64000). */
	put64(0x105000 + 8 * 34, 0);
	put64(0x104008, 0x060000380000104full);
	put64(0x105000 + 8 * 100, 0x3001ull); /* VALID, VIDEO, 0x30000 >> 12 = 0x30 << 8 */
	const char *spec =
	        "{ \"format\": \"v2\", \"mappings\": [\n"
	        "  { \"va\": \"0x0\", \"size\": \"0x20000\", \"page_size\": \"64K\",\n"
	        "    \"aperture\": \"SYS_NONCOH\", \"target\": \"0x38000000000\",\n"
	        "    \"flags\": { \"read_only\": false } },\n"
	        "  { \"va\": \"0x20000\", \"size\": \"0x4000\", \"aperture\": \"VIDEO\",\n"
	        "    \"target\": \"0x200000\" } ] }";
	struct got g = {0};
	struct gmmu_verify_stats vst;
	assert_int_equal(verify_walk(f, spec, &g, &vst), 0);
	/* flags at 0x10000, missing at 0x22000, extra: peer 0x28000, 0x64000, 2M x3, 512M */
	assert_true(g.nd >= 4);
	assert_int_equal(g.d[0].va, 0x10000);
	assert_int_equal(g.d[0].what, GMMU_DIFF_FLAGS);
	assert_int_equal(g.d[0].flags_wrong, 1u << GMMU_FLAG_READ_ONLY);
	assert_int_equal(g.d[1].va, 0x22000);
	assert_int_equal(g.d[1].what, GMMU_DIFF_MISSING);
	assert_int_equal(g.d[1].size, 0x1000);
	assert_int_equal(g.d[2].va, 0x28000);
	assert_int_equal(g.d[2].what, GMMU_DIFF_EXTRA);
	assert_int_equal(g.d[3].va, 0x64000);
	assert_int_equal(g.d[3].what, GMMU_DIFF_EXTRA);
	assert_int_equal(g.dact[3].v.addr, 0x30000);
}

static void v2_cycle_is_an_error(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	/* PD1 [2] points back at PD2 0x101000 (a directory on its own path). */
	put64(0x102010, 0x10102ull);
	struct got g = {0};
	struct p2ps_error err = {0};
	assert_int_equal(walk_image(f, 0x100000, &g, NULL, &err), P2PS_ELOOP);
	assert_non_null(strstr(err.msg, "PD1[2]"));
	assert_non_null(strstr(err.msg, "cycle"));
	/* A PDE pointing at the table it sits in. */
	build_v2();
	put64(0x101008, 0x10102ull); /* PD2 [1] -> 0x101000 */
	memset(&g, 0, sizeof(g));
	assert_int_equal(walk_image(f, 0x100000, &g, NULL, &err), P2PS_ELOOP);
}

static void v2_pde_outside_memory_is_an_error(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	/* PD2 [3] -> PA 0x7654000 (0x7654 << 8 | 2): no chunk there. */
	put64(0x101018, 0x765402ull);
	struct got g = {0};
	struct p2ps_error err = {0};
	assert_int_equal(walk_image(f, 0x100000, &g, NULL, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "PD2[3]"));
	assert_non_null(strstr(err.msg, "0x7654000"));
	assert_non_null(strstr(err.msg, "not inside any memory image"));
	/* The root itself outside. */
	assert_int_equal(walk_image(f, 0x900000, &g, NULL, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "PDB vid:0x900000"));
	/* A table that starts inside a chunk but runs past its end: PD2 [3] -> a 2 KiB
	 * chunk at 0x200000 (0x200 << 8 | 2) where a 4 KiB PD1 should be. */
	build_v2();
	put64(0x101018, 0x20002ull);
	static uint8_t small_chunk[0x800];
	struct p2ps_mem_set mem;
	p2ps_mem_set_init(&mem);
	assert_int_equal(p2ps_mem_set_add_buffer(&mem, P2PS_MEM_VID, MEM_BASE, mem_img, MEM_SIZE,
	                                         "img", &err),
	                 0);
	assert_int_equal(p2ps_mem_set_add_buffer(&mem, P2PS_MEM_VID, 0x200000, small_chunk,
	                                         sizeof(small_chunk), "small", &err),
	                 0);
	struct gmmu_walk_opts o = {.fmt = f, .pdb_space = P2PS_MEM_VID, .pdb = 0x100000};
	memset(&g, 0, sizeof(g));
	assert_int_equal(gmmu_walk(&mem, &o, on_mapping, &g, NULL, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "0x200000-0x200fff"));
	/* The same table in sysmem is not found in vidmem chunks. */
	o.pdb_space = P2PS_MEM_SYS;
	assert_int_equal(gmmu_walk(&mem, &o, on_mapping, &g, NULL, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "sys PA 0x100000"));
	p2ps_mem_set_cleanup(&mem);
}

static void v2_pte_bit_where_no_pages_live(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	build_v2();
	put64(0x100008, 0x0600000000000001ull); /* PD3 [1]: VALID set, PD3 has no pages */
	struct got g = {0};
	struct p2ps_error err = {0};
	assert_int_equal(walk_image(f, 0x100000, &g, NULL, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "PD3[1]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(v2_walk_finds_every_level),
	        cmocka_unit_test(v2_walk_with_128k_big_pages),
	        cmocka_unit_test(v2_walk_follows_sysmem_pdes),
	        cmocka_unit_test(v2_summary_coalesces_runs),
	        cmocka_unit_test(v2_verify_finds_the_wrong_entry),
	        cmocka_unit_test(v2_verify_reports_missing_extra_and_attributes),
	        cmocka_unit_test(v2_cycle_is_an_error),
	        cmocka_unit_test(v2_pde_outside_memory_is_an_error),
	        cmocka_unit_test(v2_pte_bit_where_no_pages_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
