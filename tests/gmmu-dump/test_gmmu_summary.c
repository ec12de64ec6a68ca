/* SPDX-License-Identifier: MIT */
/* VER3 walks, summaries and verify, and the summary's fast path against the generic one,
 * over hand-built page-table images.
 *
 * Every entry below is written as a literal whose bits were computed by hand
 * from the hwref defines (NVIDIA open-gpu-kernel-modules 595.45.04,
 * pascal/gp100/dev_mmu.h for VER2, hopper/gh100/dev_mmu.h for VER3), never by
 * libgmmu's encoder; the comment beside each shows the arithmetic. */
#include "walk_image.h"

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
	        cmocka_unit_test(v3_walk_summary_verify),
	        cmocka_unit_test(summary_fast_path_matches_generic),
	        cmocka_unit_test(summary_ignores_comptagline_of_video_ptes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
