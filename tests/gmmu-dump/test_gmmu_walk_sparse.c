/* SPDX-License-Identifier: MIT */
/* Sparse directory entries in walks: the driver marks a PDE sparse with the "uncached" bit
 * under aperture INVALID (v2 VOL, kgmmuFmtFamiliesInit_GM200; v3 PCF SPARSE_ATS_*,
 * kgmmuFmtFamiliesInit_GH100), a dual PDE through its big half; nouveau writes the same
 * (gp100_vmm_pd0_sparse, gh100_vmm_pd0_sparse, *_pgt_sparse on PD1 and up). Such an entry
 * ends the walk of its range as sparse, not as an error and not as a hole.
 *
 * Entries are literals computed by hand from the hwref defines; the comment beside each
 * shows the arithmetic. */
#include "walk_image.h"

/* Walks the image from 0x100000 with or without reporting invalid entries, then summarizes
 * what the walk reported. */
static void walk(const char *chip, bool all, struct got *g, struct gmmu_walk_stats *st,
                 struct gmmu_summary_stats *sum)
{
	const struct gmmu_chip *c = gmmu_chip_find(chip);
	assert_non_null(c);
	struct p2ps_error err = {0};
	struct gmmu_walk_opts o = {.fmt = c->format,
	                           .pdb_space = P2PS_MEM_VID,
	                           .pdb = MEM_BASE,
	                           .report_invalid = all};
	memset(g, 0, sizeof(*g));
	assert_int_equal(walk_image_opts(&o, g, st, &err), 0);
	*sum = summarize(c->format, g);
}

/* v2 (AD102):
 *  0x100000 PD3 [0] -> PD2 0x101000
 *  0x101000 PD2 [0] -> PD1 0x102000
 *  0x102000 PD1 [0] -> PD0 0x103000, [1] sparse (VA 0x20000000, 512 MiB), [2] INVALID with
 *           NO_ATS only (tinygrad's freed slot: not sparse)
 *  0x103000 PD0 [0] sparse dual PDE (2 MiB at VA 0), [1] dual, small half sparse (VA
 *           0x200000), [2] 2M PTE (VA 0x400000) */
static void build_v2(void)
{
	memset(mem_img, 0, sizeof(mem_img));
	/* PDE: APERTURE(2:1) VIDEO 1 -> 0x2, ADDRESS_VID(32:8) = PA >> 12 << 8 */
	put64(0x100000, 0x10102ull);
	put64(0x101000, 0x10202ull);
	put64(0x102000, 0x10302ull);
	/* Sparse PDE: APERTURE INVALID 0, VOL(3) 1 -> 0x8 */
	put64(0x102008, 0x8ull);
	/* INVALID, NO_ATS(5) 1 -> 0x20: no VOL, so a hole */
	put64(0x102010, 0x20ull);
	/* Sparse dual PDE: APERTURE_BIG INVALID, VOL_BIG(3) 1 -> word 0 0x8; small INVALID */
	put64(0x103000, 0x8ull);
	put64(0x103008, 0);
	/* Small half marked: VOL_SMALL(67) -> word 1 bit 3 */
	put64(0x103010, 0);
	put64(0x103018, 0x8ull);
	/* 2M PTE: VALID 1, VIDEO, ADDRESS_VID 0x40000000 >> 12 << 8 = 0x4000000, KIND 6 */
	put64(0x103020, 0x0600000004000001ull);
}

static void v2_sparse_pdes_end_the_walk_as_sparse(void **state)
{
	(void)state;
	build_v2();
	struct got g;
	struct gmmu_walk_stats st;
	struct gmmu_summary_stats sum;
	/* Without --all: one valid PTE, three sparse directory entries counted. */
	walk("AD102", false, &g, &st, &sum);
	assert_int_equal(g.nm, 1);
	assert_int_equal(st.ptes_valid, 1);
	assert_int_equal(st.pdes_sparse, 3);
	assert_int_equal(st.tables, 4); /* PD3, PD2, PD1, PD0: nothing below a sparse entry */

	/* With --all: the sparse entries come out in table order with their span. */
	walk("AD102", true, &g, &st, &sum);
	assert_int_equal(g.nm, 4);
	assert_int_equal(g.m[0].entry, GMMU_ENTRY_DUAL_PDE);
	assert_int_equal(g.m[0].va, 0);
	assert_int_equal(g.m[0].page_shift, 21);
	assert_true(g.m[0].v.sparse && !g.m[0].v.valid);
	assert_int_equal(g.m[0].raw, 0x8);
	assert_int_equal(g.m[1].entry, GMMU_ENTRY_DUAL_PDE);
	assert_int_equal(g.m[1].va, 0x200000);
	assert_int_equal(g.m[1].raw_hi, 0x8);
	assert_int_equal(g.m[2].entry, GMMU_ENTRY_PTE);
	assert_int_equal(g.m[2].va, 0x400000);
	assert_int_equal(g.m[3].entry, GMMU_ENTRY_PDE);
	assert_string_equal(g.m[3].level->name, "PD1");
	assert_int_equal(g.m[3].va, 0x20000000);
	assert_int_equal(g.m[3].page_shift, 29);
	assert_int_equal(g.m[3].entry_pa, 0x102008);

	/* The summary: the two 2M sparse entries (different raw values, so two runs), the 2M
	 * PTE, the 512M sparse entry. */
	assert_int_equal(g.nr, 4);
	assert_false(g.r[0].v.valid);
	assert_true(g.r[0].v.sparse && g.r[1].v.sparse);
	assert_int_equal(g.r[0].count, 1);
	assert_int_equal(g.r[0].page_shift, 21);
	assert_int_equal(g.r[1].va, 0x200000);
	assert_true(g.r[2].v.valid);
	assert_true(g.r[3].v.sparse);
	assert_int_equal(g.r[3].va, 0x20000000);
	assert_int_equal(gmmu_range_bytes(&g.r[3]), 512ull << 20);
	assert_int_equal(sum.sparse, 3);
	assert_int_equal(sum.valid, 1);
}

/* v3 (GB202):
 *  0x100000 PD4 [0] -> PD3 0x101000 -> PD2 0x102000 -> PD1 0x103000
 *  0x103000 PD1 [0] sparse SPARSE_ATS_ALLOWED, [1] sparse SPARSE_ATS_NOT_ALLOWED,
 *           [2] INVALID_ATS_NOT_ALLOWED (tinygrad's invalid PDE: a hole) */
static void build_v3(void)
{
	memset(mem_img, 0, sizeof(mem_img));
	/* PDE: APERTURE VIDEO 1 -> 0x2, ADDRESS(51:12) in place */
	put64(0x100000, 0x101002ull);
	put64(0x101000, 0x102002ull);
	put64(0x102000, 0x103002ull);
	/* PCF(5:3) SPARSE_ATS_ALLOWED 1 -> 0x8, SPARSE_ATS_NOT_ALLOWED 3 -> 0x18,
	 * INVALID_ATS_NOT_ALLOWED 2 -> 0x10 */
	put64(0x103000, 0x8ull);
	put64(0x103008, 0x18ull);
	put64(0x103010, 0x10ull);
}

static void v3_sparse_pdes_end_the_walk_as_sparse(void **state)
{
	(void)state;
	build_v3();
	struct got g;
	struct gmmu_walk_stats st;
	struct gmmu_summary_stats sum;
	walk("GB202", true, &g, &st, &sum);
	assert_int_equal(st.pdes_sparse, 2);
	assert_int_equal(g.nm, 2);
	assert_int_equal(g.m[0].va, 0);
	assert_int_equal(g.m[1].va, 512ull << 20);
	assert_int_equal(g.m[1].raw, 0x18);
	/* Different raw values: two runs of one 512 MiB sparse entry each. */
	assert_int_equal(g.nr, 2);
	assert_int_equal(sum.sparse, 2);
	assert_int_equal(sum.valid, 0);
}

/* The views agree: the sparse marking of every format's directory entries, and the
 * driver's templates (ef->sparse) read as sparse. */
static void views_name_sparse_directory_entries(void **state)
{
	(void)state;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		struct gmmu_pde_view p, big, small;
		gmmu_pde_view(f, f->entry[GMMU_ENTRY_PDE]->sparse[0], &p);
		assert_true(p.sparse && !p.valid);
		gmmu_dual_pde_view(f, f->entry[GMMU_ENTRY_DUAL_PDE]->sparse, &big, &small);
		assert_true(big.sparse && !small.sparse && !small.valid);
		struct gmmu_pte_view v;
		gmmu_pte_view(f, f->entry[GMMU_ENTRY_PTE]->sparse[0], &v);
		assert_true(v.sparse && !v.valid);
		/* A valid uncached PDE is not sparse; an all-zero one is neither. */
		const uint64_t valid_vol = 0x2 | f->entry[GMMU_ENTRY_PDE]->sparse[0];
		gmmu_pde_view(f, valid_vol, &p);
		assert_true(p.valid && !p.sparse);
		gmmu_pde_view(f, 0, &p);
		assert_false(p.valid || p.sparse);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(v2_sparse_pdes_end_the_walk_as_sparse),
	        cmocka_unit_test(v3_sparse_pdes_end_the_walk_as_sparse),
	        cmocka_unit_test(views_name_sparse_directory_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
