/* Page-directory walks, summaries and verify over hand-built page-table images.
 *
 * Every entry below is written as a literal whose bits were computed by hand
 * from the hwref defines (NVIDIA open-gpu-kernel-modules 595.45.04,
 * pascal/gp100/dev_mmu.h for VER2, hopper/gh100/dev_mmu.h for VER3), never by
 * libgmmu's encoder; the comment beside each shows the arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

#define MEM_BASE 0x100000ull
#define MEM_SIZE 0x10000ull

static uint8_t mem_img[MEM_SIZE];

static void put64(uint64_t pa, uint64_t v)
{
	assert_true(pa >= MEM_BASE && pa + 8 <= MEM_BASE + MEM_SIZE);
	p2ps_put_le64(mem_img + (pa - MEM_BASE), v);
}

/* ---- collecting results --------------------------------------------------- */

#define MAX_ITEMS 64

struct got {
	struct gmmu_mapping m[MAX_ITEMS];
	size_t nm;
	struct gmmu_range r[MAX_ITEMS];
	size_t nr;
	struct gmmu_diff d[MAX_ITEMS];
	/* copies: d[i].act and d[i].exp point into lists freed after gmmu_verify */
	struct gmmu_range dact[MAX_ITEMS];
	struct gmmu_expect dexp[MAX_ITEMS];
	size_t nd;
};

static int on_mapping(void *ctx, const struct gmmu_mapping *m, struct p2ps_error *err)
{
	(void)err;
	struct got *g = ctx;
	assert_true(g->nm < MAX_ITEMS);
	g->m[g->nm++] = *m;
	return 0;
}

static int on_range(void *ctx, const struct gmmu_range *r, struct p2ps_error *err)
{
	(void)err;
	struct got *g = ctx;
	assert_true(g->nr < MAX_ITEMS);
	g->r[g->nr++] = *r;
	return 0;
}

static int on_diff(void *ctx, const struct gmmu_diff *d, struct p2ps_error *err)
{
	(void)err;
	struct got *g = ctx;
	assert_true(g->nd < MAX_ITEMS);
	g->d[g->nd] = *d;
	if (d->act)
		g->dact[g->nd] = *d->act;
	if (d->exp)
		g->dexp[g->nd] = *d->exp;
	g->nd++;
	return 0;
}

static const struct gmmu_format *fmt_of(const char *chip)
{
	const struct gmmu_format *f = NULL;
	struct p2ps_error err = {0};
	assert_int_equal(gmmu_chip_lookup(chip, &f, &err), 0);
	assert_non_null(f);
	return f;
}

static int walk_image(const struct gmmu_format *f, uint64_t pdb, struct got *g,
                      struct gmmu_walk_stats *st, struct p2ps_error *err)
{
	struct p2ps_mem_set mem;
	p2ps_mem_set_init(&mem);
	assert_int_equal(p2ps_mem_set_add_buffer(&mem, P2PS_MEM_VID, MEM_BASE, mem_img, MEM_SIZE,
	                                         "img", err),
	                 0);
	struct gmmu_walk_opts o = {.fmt = f, .pdb_space = P2PS_MEM_VID, .pdb = pdb};
	int rc = gmmu_walk(&mem, &o, on_mapping, g, st, err);
	p2ps_mem_set_cleanup(&mem);
	return rc;
}

static void summarize(const struct gmmu_format *f, struct got *g)
{
	struct gmmu_summary s;
	struct p2ps_error err = {0};
	gmmu_summary_init(&s, f, on_range, g);
	for (size_t i = 0; i < g->nm; i++)
		assert_int_equal(gmmu_summary_add(&s, &g->m[i], &err), 0);
	assert_int_equal(gmmu_summary_finish(&s, &err), 0);
}

static void assert_range(const struct gmmu_range *r, uint64_t va, unsigned shift, uint64_t count,
                         enum gmmu_aperture ap, uint64_t target)
{
	assert_true(r->v.valid);
	assert_int_equal(r->va, va);
	assert_int_equal(r->page_shift, shift);
	assert_int_equal(r->count, count);
	assert_int_equal(r->v.aperture, ap);
	assert_int_equal(r->v.addr, target);
}

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

static int verify_walk(const struct gmmu_format *f, const char *spec_text, struct got *g,
                       struct gmmu_verify_stats *vst)
{
	struct p2ps_error err = {0};
	struct got w = {0};
	assert_int_equal(walk_image(f, 0x100000, &w, NULL, &err), 0);
	struct gmmu_range_list list = {0};
	struct gmmu_summary s;
	gmmu_summary_init(&s, f, gmmu_verify_collect, &list);
	for (size_t i = 0; i < w.nm; i++)
		assert_int_equal(gmmu_summary_add(&s, &w.m[i], &err), 0);
	assert_int_equal(gmmu_summary_finish(&s, &err), 0);
	struct gmmu_spec spec;
	int rc = gmmu_spec_parse(spec_text, strlen(spec_text), "spec.json", f, &spec, &err);
	if (rc) {
		print_error("%s\n", err.msg);
		gmmu_range_list_cleanup(&list);
		return rc;
	}
	rc = gmmu_verify(&spec, &list, on_diff, g, vst, &err);
	gmmu_spec_cleanup(&spec);
	gmmu_range_list_cleanup(&list);
	return rc;
}

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

/* ---- VER3 (GH100) --------------------------------------------------------------
 *
 * v3 addresses sit in place: ADDRESS(51:12) holds PA >> 12 at bit 12, so an
 * aligned PA reads as itself. PDE: IS_PTE(0)=0, APERTURE(2:1)=1 VIDEO -> 0x2.
 *
 *  0x100000 PD4 [0] -> PD3 0x101000
 *  0x101000 PD3 [0] -> PD2 0x102000
 *  0x102000 PD2 [0] -> PD1 0x103000
 *  0x103000 PD1 [0] -> PD0 0x104000, [2] 512M PTE (VA 0x40000000)
 *  0x104000 PD0 [0] dual: small -> 0x105000 (big INVALID); [1] 2M PTE
 *  0x105000 PT_SMALL [0..2] BAR1-P2P 4K pages, [3] PEER 5
 */
static void build_v3(void)
{
	memset(mem_img, 0, sizeof(mem_img));
	put64(0x100000, 0x101002ull);
	put64(0x101000, 0x102002ull);
	put64(0x102000, 0x103002ull);
	put64(0x103000, 0x104002ull);
	/* 512M PTE: VALID 1, APERTURE VIDEO 0, PCF(7:3) 0 REGULAR_RW_ATOMIC_CACHED_ACE,
	 * KIND(11:8)=6 -> 0x600, ADDRESS = 0x80000000 in place */
	put64(0x103010, 0x80000601ull);
	/* Dual PDE [0]: big half INVALID (0); small: APERTURE_SMALL(66:65)=1 -> word1 0x2,
	 * ADDRESS_SMALL(115:76) -> word1 bits 51:12 = 0x105000 in place. */
	put64(0x104000, 0);
	put64(0x104008, 0x105002ull);
	/* 2M PTE at PD0 [1] (VA 0x200000): VALID, VIDEO, KIND 6, PA 0x1200000 */
	put64(0x104010, 0x1200601ull);
	/* BAR1-P2P: VALID 1, APERTURE SYS_NONCOH 3 -> 0x6, PCF 0x11 (UNCACHED|ACD) -> 0x88,
	 * KIND 6 -> 0x600, ADDRESS 0x38000000000 + n*4K in place. */
	for (unsigned i = 0; i < 3; i++)
		put64(0x105000 + 8 * i, 0x3800000068full + 0x1000ull * i);
	/* Stock peer: VALID 1, APERTURE PEER 1 -> 0x2, PCF 0x10 (ACD) -> 0x80, KIND 6,
	 * PEER_ID(63:61)=5 -> 0xa000000000000000, ADDRESS 0x7000 */
	put64(0x105018, 0xa000000000007683ull);
}

static void v3_walk_summary_verify(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("GH100");
	build_v3();
	struct got g = {0};
	struct gmmu_walk_stats st;
	struct p2ps_error err = {0};
	assert_int_equal(walk_image(f, 0x100000, &g, &st, &err), 0);
	assert_int_equal(st.tables, 6); /* PD4 PD3 PD2 PD1 PD0 PT_SMALL */
	assert_int_equal(g.nm, 6);
	assert_int_equal(g.m[0].va, 0);
	assert_int_equal(g.m[0].v.aperture, GMMU_APERTURE_SYS_NONCOH);
	assert_int_equal(g.m[0].v.addr, 0x38000000000ull);
	assert_true(g.m[0].v.vol); /* PCF UNCACHED */
	assert_true(g.m[0].v.acd);
	assert_int_equal(g.m[0].v.kind, 6);
	assert_int_equal(g.m[3].v.aperture, GMMU_APERTURE_PEER);
	assert_int_equal(g.m[3].v.peer_index, 5);
	assert_int_equal(g.m[3].v.addr, 0x7000);
	assert_int_equal(g.m[4].va, 0x200000);
	assert_int_equal(g.m[4].page_shift, 21);
	assert_int_equal(g.m[4].v.addr, 0x1200000);
	assert_int_equal(g.m[5].va, 0x40000000);
	assert_int_equal(g.m[5].page_shift, 29);
	assert_int_equal(g.m[5].v.addr, 0x80000000);

	summarize(f, &g);
	assert_int_equal(g.nr, 4);
	assert_range(&g.r[0], 0, 12, 3, GMMU_APERTURE_SYS_NONCOH, 0x38000000000ull);
	assert_range(&g.r[1], 0x3000, 12, 1, GMMU_APERTURE_PEER, 0x7000);

	/* The BAR1-P2P intent with the third page pointing one page off. */
	put64(0x105010, 0x3800000368full); /* 0x38000003000, expected 0x38000002000 */
	const char *spec =
	        "{ \"chip\": \"GH100\",\n"
	        "  \"peers\": [ { \"index\": 1, \"bar1_base\": \"0x38000000000\" },\n"
	        "             { \"index\": 5 } ],\n"
	        "  \"mappings\": [\n"
	        "    { \"va\": \"0\", \"size\": \"12K\", \"page_size\": \"4K\",\n"
	        "      \"aperture\": \"SYS_NONCOH\", \"peer\": 1, \"offset\": \"0\",\n"
	        "      \"kind\": \"GENERIC_MEMORY\", \"flags\": { \"vol\": true } },\n"
	        "    { \"va\": \"0x3000\", \"size\": \"4K\", \"aperture\": \"PEER\",\n"
	        "      \"peer\": 4, \"offset\": \"0x7000\" },\n"
	        "    { \"va\": \"0x200000\", \"size\": \"2M\", \"aperture\": \"VIDEO\",\n"
	        "      \"target\": \"0x1200000\" },\n"
	        "    { \"va\": \"0x40000000\", \"size\": \"512M\", \"aperture\": \"VIDEO\",\n"
	        "      \"target\": \"0x80000000\", \"flags\": { \"vol\": true } } ] }";
	struct got d = {0};
	struct gmmu_verify_stats vst;
	assert_int_equal(verify_walk(f, spec, &d, &vst), 0);
	assert_int_equal(vst.diffs, 3);
	assert_int_equal(d.d[0].va, 0x2000);
	assert_int_equal(d.d[0].what, GMMU_DIFF_ADDRESS);
	assert_int_equal(d.d[0].exp_target, 0x38000002000ull);
	assert_int_equal(d.d[1].va, 0x3000);
	assert_int_equal(d.d[1].what, GMMU_DIFF_PEER); /* 5 mapped, 4 intended */
	assert_int_equal(d.d[2].va, 0x40000000);
	assert_int_equal(d.d[2].what, GMMU_DIFF_FLAGS);
}

/* ---- the tight path equals the generic one ------------------------------------ */

struct store {
	struct gmmu_range *v;
	size_t *n;
};

static int on_range_store(void *ctx, const struct gmmu_range *r, struct p2ps_error *err)
{
	(void)err;
	struct store *st = ctx;
	st->v[(*st->n)++] = *r;
	return 0;
}

static void summary_fast_path_matches_generic(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	enum { N = 4096 };
	static uint8_t buf[N * 8];
	uint64_t seed = 12345;
	uint64_t e = 0;
	for (size_t i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		unsigned r = (unsigned)(seed >> 59);
		if (r < 20)
			e += 0x100; /* next 4K frame in ADDRESS_VID / ADDRESS_SYS */
		else if (r < 24)
			e = seed & 0xff000000ffffff0full; /* anything, often invalid */
		else if (r < 26)
			e = 0;
		else if (r < 28)
			e = 0x00000001ffffff01ull; /* ADDRESS_VID all ones: cannot advance */
		else
			e ^= 0x40; /* READ_ONLY flips: breaks the run */
		p2ps_put_le64(buf + 8 * i, e);
	}
	struct p2ps_error err = {0};
	struct gmmu_summary s;
	static struct gmmu_range ra[N], rb[N];
	size_t na = 0, nb = 0;
	struct store ca = {ra, &na}, cb = {rb, &nb};
	/* fast path, fed in uneven slices so that runs cross slice boundaries */
	gmmu_summary_init(&s, f, NULL, NULL);
	s.fn = on_range_store;
	s.ctx = &ca;
	size_t pos = 0, slice = 1;
	while (pos < N) {
		size_t n = pos + slice > N ? N - pos : slice;
		assert_int_equal(gmmu_summary_add_ptes(&s, buf + 8 * pos, n,
		                                       0x7f0000000000ull + ((uint64_t)pos << 12),
		                                       12, NULL, &err),
		                 0);
		pos += n;
		slice = slice * 3 % 97 + 1;
	}
	assert_int_equal(gmmu_summary_finish(&s, &err), 0);
	struct gmmu_summary_stats fast = s.st;
	gmmu_summary_init(&s, f, on_range_store, &cb);
	for (size_t i = 0; i < N; i++) {
		struct gmmu_mapping m = {.va = 0x7f0000000000ull + ((uint64_t)i << 12),
		                         .raw = p2ps_le64(buf + 8 * i),
		                         .page_shift = 12};
		assert_int_equal(gmmu_summary_add(&s, &m, &err), 0);
	}
	assert_int_equal(gmmu_summary_finish(&s, &err), 0);
	assert_int_equal(na, nb);
	assert_true(na > 100);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ra[i].va, rb[i].va);
		assert_int_equal(ra[i].count, rb[i].count);
		assert_int_equal(ra[i].raw, rb[i].raw);
	}
	assert_int_equal(fast.entries, N);
	assert_int_equal(s.st.entries, N);
	assert_int_equal(fast.valid, s.st.valid);
	assert_int_equal(fast.zero, s.st.zero);
	/* every range's entries really continue one another */
	for (size_t i = 0; i < na; i++) {
		size_t first = (size_t)((ra[i].va - 0x7f0000000000ull) >> 12);
		for (uint64_t k = 1; k < ra[i].count; k++) {
			struct gmmu_pte_view v;
			gmmu_pte_view(f, p2ps_le64(buf + 8 * (first + k)), &v);
			assert_int_equal(v.addr, ra[i].v.addr + (k << 12));
			assert_int_equal(v.aperture, ra[i].v.aperture);
		}
	}
}

/* COMPTAGLINE (v2 55:36 on TU+) advances along a compressible allocation and is
 * not part of the mapping: video PTEs that differ only there still coalesce.
 * In a sysmem PTE the same bits are ADDRESS_SYS (53:8) and must be compared. */
static void summary_ignores_comptagline_of_video_ptes(void **state)
{
	(void)state;
	const struct gmmu_format *f = fmt_of("AD102");
	uint8_t buf[8 * 8];
	for (unsigned i = 0; i < 4; i++) {
		/* VALID 1, VIDEO, ADDRESS_VID (32:8) = 0x100 + i, COMPTAGLINE (55:36) = 0x20 + i,
		 * KIND (63:56) = 8 GENERIC_MEMORY_COMPRESSIBLE */
		p2ps_put_le64(buf + 8 * i,
		              0x08ull << 56 | (0x20ull + i) << 36 | (0x100ull + i) << 8 | 1);
		/* SYS_NONCOH (0x6): bits 36.. belong to ADDRESS_SYS; page i + 1 is 2^28 pages
		 * further on, not the next page */
		p2ps_put_le64(buf + 32 + 8 * i, (0x20ull + i) << 36 | (0x100ull + i) << 8 | 0x7);
	}
	struct store st;
	static struct gmmu_range r[16];
	size_t n = 0;
	st.v = r;
	st.n = &n;
	struct gmmu_summary s;
	struct p2ps_error err = {0};
	gmmu_summary_init(&s, f, on_range_store, &st);
	assert_int_equal(gmmu_summary_add_ptes(&s, buf, 8, 0, 12, NULL, &err), 0);
	assert_int_equal(gmmu_summary_finish(&s, &err), 0);
	assert_int_equal(n, 5); /* one video range, four sysmem pages */
	assert_range(&r[0], 0, 12, 4, GMMU_APERTURE_VIDEO, 0x100000);
	assert_int_equal(r[0].v.comptagline, 0x20);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(r[1 + i].count, 1);
		assert_int_equal(r[1 + i].v.addr, (0x20ull + i) << 40 | (0x100ull + i) << 12);
	}
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
	        cmocka_unit_test(v3_walk_summary_verify),
	        cmocka_unit_test(summary_fast_path_matches_generic),
	        cmocka_unit_test(summary_ignores_comptagline_of_video_ptes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
