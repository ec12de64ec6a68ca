/* SPDX-License-Identifier: MIT */
/* libgmmu's model of the driver's ordinary mappings (gmmu_drvmap.h), golden values:
 *   v3 (GH100): the entries the 580.159.04 driver wrote on the H100 (pte-probe capture
 *               tests/fixtures/pte-probe/h100-580.159.04-root.json, and the throwaway
 *               probe's 0x114a5568d of ../shared/research/rm-pte-probe-h100.md);
 *   v2 (TU102): assembled by hand from the NV_MMU_VER2_PTE/PDE/DUAL_PDE bit positions of
 *               pascal/gp100's dev_mmu.h (VALID 0, APERTURE 2:1, VOL 3, READ_ONLY 6,
 *               ADDRESS_VID 32:8, ADDRESS_SYS 53:8, KIND 63:56; PDE APERTURE 2:1, VOL 3;
 *               dual ADDRESS_BIG 32:4 >> 8, APERTURE_SMALL 66:65, ADDRESS_SMALL 96:72),
 *               with the choices of dmaAllocMapping_GM107 (aperture, volatility) — never
 *               from the encoder under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "p2pscope/gmmu_drvmap.h"
#include "p2pscope/nvidia_drivers.h"

#define KIND_GENERIC 6
#define SNOOP        true

struct pte_case {
	const char *what;
	enum gmmu_drvmap_mem mem;
	uint64_t addr, page_size;
	bool ro, snoop, alloc_cached;
	enum gmmu_drvmap_cache cache;
	uint64_t want;
};

static void check_ptes(const char *chip, const struct pte_case *c, size_t n)
{
	const struct gmmu_chip *ch = gmmu_chip_find(chip);
	assert_non_null(ch);
	for (size_t i = 0; i < n; i++) {
		struct gmmu_drvmap_request rq = {
		        .mem = c[i].mem,
		        .addr = c[i].addr,
		        .page_size = c[i].page_size,
		        .kind = KIND_GENERIC,
		        .alloc_gpu_cached = c[i].alloc_cached,
		        .read_only = c[i].ro,
		        .gpu_cacheable = c[i].cache,
		        .cache_snoop = c[i].snoop,
		};
		struct gmmu_drvmap_result r;
		struct p2ps_error err = {0};
		if (gmmu_drvmap_pte(ch->format, &rq, &r, &err) || r.pte != c[i].want)
			fail_msg("%s %s: got 0x%016llx, want 0x%016llx (%s)", chip, c[i].what,
			         (unsigned long long)r.pte, (unsigned long long)c[i].want, err.msg);
	}
}

#define K 1024ull
#define M (1024ull * K)

static void test_v3_h100_ptes(void **state)
{
	(void)state;
	static const struct pte_case c[] = {
	        {"vid 4K", GMMU_DRVMAP_VIDEO, 0x10000, 4 * K, 0, 0, 0, 0, 0x0000000000010681},
	        {"vid 64K", GMMU_DRVMAP_VIDEO, 0x20000, 64 * K, 0, 0, 0, 0, 0x0000000000020681},
	        {"vid 2M", GMMU_DRVMAP_VIDEO, 0x200000, 2 * M, 0, 0, 0, 0, 0x0000000000200681},
	        {"vid 512M", GMMU_DRVMAP_VIDEO, 0x20000000, 512 * M, 0, 0, 0, 0,
	         0x0000000020000681},
	        {"vid 2M ro", GMMU_DRVMAP_VIDEO, 0x200000, 2 * M, 1, 0, 0, 0, 0x00000000002006a1},
	        {"vid 2M uncached", GMMU_DRVMAP_VIDEO, 0x200000, 2 * M, 0, 0, 0,
	         GMMU_DRVMAP_CACHE_NO, 0x0000000000200689},
	        {"sys 4K coh", GMMU_DRVMAP_SYSTEM, 0x150cdb000, 4 * K, 0, SNOOP, 0, 0,
	         0x0000000150cdb68d},
	        {"sys 4K noncoh", GMMU_DRVMAP_SYSTEM, 0x150cdb000, 4 * K, 0, 0, 0, 0,
	         0x0000000150cdb68f},
	        {"sys 4K ro", GMMU_DRVMAP_SYSTEM, 0x150cdb000, 4 * K, 1, SNOOP, 0, 0,
	         0x0000000150cdb6ad},
	        {"sys 4K map-cached", GMMU_DRVMAP_SYSTEM, 0x150cdb000, 4 * K, 0, SNOOP, 0,
	         GMMU_DRVMAP_CACHE_YES, 0x0000000150cdb685},
	        {"sys 4K alloc-cached", GMMU_DRVMAP_SYSTEM, 0x153067000, 4 * K, 0, SNOOP, 1, 0,
	         0x0000000153067685},
	        {"sys 64K", GMMU_DRVMAP_SYSTEM, 0x14f160000, 64 * K, 0, SNOOP, 0, 0,
	         0x000000014f16068d},
	        {"sys 2M", GMMU_DRVMAP_SYSTEM, 0x168200000, 2 * M, 0, SNOOP, 0, 0,
	         0x000000016820068d},
	        {"throwaway probe sys 4K", GMMU_DRVMAP_SYSTEM, 0x114a55000, 4 * K, 0, SNOOP, 0, 0,
	         0x0000000114a5568d},
	};
	check_ptes("GH100", c, sizeof(c) / sizeof(c[0]));
}

static void test_v2_ptes(void **state)
{
	(void)state;
	static const struct pte_case c[] = {
	        /* VALID | ADDRESS_VID 0x10 << 8 | KIND 6 << 56 */
	        {"vid 4K", GMMU_DRVMAP_VIDEO, 0x10000, 4 * K, 0, 0, 0, 0, 0x0600000000001001},
	        /* + READ_ONLY (bit 6) */
	        {"vid 2M ro", GMMU_DRVMAP_VIDEO, 0x200000, 2 * M, 1, 0, 0, 0, 0x0600000000020041},
	        /* + VOL (bit 3) */
	        {"vid 64K uncached", GMMU_DRVMAP_VIDEO, 0x20000, 64 * K, 0, 0, 0,
	         GMMU_DRVMAP_CACHE_NO, 0x0600000000002009},
	        /* APERTURE 2 (coherent) | VOL | ADDRESS_SYS 0x150cdb << 8 */
	        {"sys 4K coh", GMMU_DRVMAP_SYSTEM, 0x150cdb000, 4 * K, 0, SNOOP, 0, 0,
	         0x06000000150cdb0d},
	        /* APERTURE 3 (non-coherent) | VOL */
	        {"sys 4K noncoh", GMMU_DRVMAP_SYSTEM, 0x150cdb000, 4 * K, 0, 0, 0, 0,
	         0x06000000150cdb0f},
	        /* GPU-cached allocation: no VOL */
	        {"sys 4K cached", GMMU_DRVMAP_SYSTEM, 0x150cdb000, 4 * K, 0, SNOOP, 1, 0,
	         0x06000000150cdb05},
	        /* a system address above 2^40 (ADDRESS_SYS is 46 bits wide) */
	        {"sys 4K high", GMMU_DRVMAP_SYSTEM, 0x28800000000, 4 * K, 0, SNOOP, 0, 0,
	         0x060000288000000d},
	};
	check_ptes("TU102", c, sizeof(c) / sizeof(c[0]));
	check_ptes("AD102", c, sizeof(c) / sizeof(c[0]));
}

static void test_pdes(void **state)
{
	(void)state;
	const struct gmmu_format *v3 = gmmu_chip_find("GH100")->format;
	const struct gmmu_format *v2 = gmmu_chip_find("TU102")->format;
	struct p2ps_error err;
	uint64_t pde, w[2];
	struct gmmu_drvmap_table t = {
	        .present = true, .aperture = GMMU_APERTURE_VIDEO, .addr = 0x5000};
	/* H100: PD1[9] = 0x5012 (VIDEO, VALID_CACHED_ATS_NOT_ALLOWED, 0x5000). */
	assert_int_equal(gmmu_drvmap_pde(v3, &t, false, &pde, &err), 0);
	assert_int_equal(pde, 0x5012);
	/* With ATS: PCF VALID_CACHED_ATS_ALLOWED (0). */
	assert_int_equal(gmmu_drvmap_pde(v3, &t, true, &pde, &err), 0);
	assert_int_equal(pde, 0x5002);
	/* v2: APERTURE 1 (VIDEO) | ADDRESS_VID 0x5 << 8. */
	assert_int_equal(gmmu_drvmap_pde(v2, &t, false, &pde, &err), 0);
	assert_int_equal(pde, 0x502);
	/* A GPU-uncached system-memory table: v3 SYS_NONCOH (3) + VALID_UNCACHED_ATS_NOT_ALLOWED
	 * (3); v2 SYS_COH (2) + VOL + ADDRESS_SYS. */
	struct gmmu_drvmap_table s = {.present = true,
	                              .aperture = GMMU_APERTURE_SYS_NONCOH,
	                              .addr = 0x8000,
	                              .uncached = true};
	assert_int_equal(gmmu_drvmap_pde(v3, &s, false, &pde, &err), 0);
	assert_int_equal(pde, 0x801e);
	s.aperture = GMMU_APERTURE_SYS_COH;
	assert_int_equal(gmmu_drvmap_pde(v2, &s, false, &pde, &err), 0);
	assert_int_equal(pde, 0x80c);
	/* H100 PD0[0]: big half -> PT_BIG 0x7000, small half -> PT_SMALL 0x6000. */
	struct gmmu_drvmap_table big = {
	        .present = true, .aperture = GMMU_APERTURE_VIDEO, .addr = 0x7000};
	struct gmmu_drvmap_table small = {
	        .present = true, .aperture = GMMU_APERTURE_VIDEO, .addr = 0x6000};
	assert_int_equal(gmmu_drvmap_dual_pde(v3, &big, &small, false, w, &err), 0);
	assert_int_equal(w[0], 0x7012);
	assert_int_equal(w[1], 0x6012);
	/* Only a small table (the throwaway probe's 0x5010 entry): big half zero. */
	big.present = false;
	assert_int_equal(gmmu_drvmap_dual_pde(v3, &big, &small, false, w, &err), 0);
	assert_int_equal(w[0], 0);
	assert_int_equal(w[1], 0x6012);
	/* v2: ADDRESS_BIG_VID holds PA >> 8 at bit 4; the small half in the upper word. */
	big.present = true;
	assert_int_equal(gmmu_drvmap_dual_pde(v2, &big, &small, false, w, &err), 0);
	assert_int_equal(w[0], 0x702);
	assert_int_equal(w[1], 0x602);
	/* A table cannot live in peer memory. */
	t.aperture = GMMU_APERTURE_PEER;
	assert_int_equal(gmmu_drvmap_pde(v3, &t, false, &pde, &err), P2PS_EINVAL);
}

static void test_errors(void **state)
{
	(void)state;
	const struct gmmu_format *v3 = gmmu_chip_find("GH100")->format;
	struct gmmu_drvmap_result r;
	struct p2ps_error err;
	struct gmmu_drvmap_request rq = {.mem = GMMU_DRVMAP_VIDEO,
	                                 .addr = 0x10000,
	                                 .page_size = 8 * K,
	                                 .kind = KIND_GENERIC};
	assert_int_equal(gmmu_drvmap_pte(v3, &rq, &r, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "page size"));
	rq.page_size = 64 * K;
	rq.addr = 0x11000;
	assert_int_equal(gmmu_drvmap_pte(v3, &rq, &r, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "aligned"));
	/* TU10x has no 512M PTEs. */
	rq.page_size = 512 * M;
	rq.addr = 0;
	assert_int_equal(gmmu_drvmap_pte(gmmu_chip_find("TU102")->format, &rq, &r, &err),
	                 P2PS_EINVAL);
	/* A kind that does not fit v3's 4-bit field. */
	rq.page_size = 4 * K;
	rq.kind = 0x1f;
	assert_int_equal(gmmu_drvmap_pte(v3, &rq, &r, &err), P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "kind"));
}

static void test_entry_diff(void **state)
{
	(void)state;
	const struct gmmu_entry_format *ef = gmmu_chip_find("GH100")->format->entry[GMMU_ENTRY_PTE];
	struct gmmu_field_diff d[4];
	uint64_t coh[2] = {0x0000000150cdb68d, 0}, non[2] = {0x0000000150cdb68f, 0};
	assert_int_equal(gmmu_entry_diff(ef, coh, coh, d, 4), 0);
	assert_int_equal(gmmu_entry_diff(ef, non, coh, d, 4), 1);
	assert_string_equal(d[0].field->name, "APERTURE");
	assert_string_equal(d[0].got, "SYSTEM_NON_COHERENT_MEMORY");
	assert_string_equal(d[0].want, "SYSTEM_COHERENT_MEMORY");
	/* PCF and ADDRESS at once. */
	uint64_t other[2] = {0x0000000150cdc695, 0};
	assert_int_equal(gmmu_entry_diff(ef, other, coh, d, 4), 2);
	assert_string_equal(d[0].field->name, "PCF");
	assert_string_equal(d[1].field->name, "ADDRESS");
	/* A bit no field names (60:52 are unnamed in a v3 PTE). */
	uint64_t stray[2] = {coh[0] | 1ull << 55, 0};
	assert_int_equal(gmmu_entry_diff(ef, stray, coh, d, 4), 1);
	assert_null(d[0].field);
	/* PEER_ID is shown for a peer entry only, but a peer id set on a video (or sysmem) PTE
	 * is still named: PEER_ID 63:61 (hopper/gh100 dev_mmu.h), raw 1 against 0. */
	uint64_t vid[2] = {0x0000000000200681, 0}, vid_peer[2] = {0x2000000000200681, 0};
	assert_int_equal(gmmu_entry_diff(ef, vid_peer, vid, d, 4), 1);
	assert_non_null(d[0].field);
	assert_string_equal(d[0].field->name, "PEER_ID");
	assert_string_equal(d[0].got, "0x1 (unused here)");
	assert_string_equal(d[0].want, "0x0 (unused here)");
	/* ... and a stray unnamed bit beside it is still reported on its own. */
	vid_peer[0] |= 1ull << 55;
	assert_int_equal(gmmu_entry_diff(ef, vid_peer, vid, d, 4), 2);
	assert_string_equal(d[0].field->name, "PEER_ID");
	assert_null(d[1].field);
	/* More differences than room: counted, not written past max. */
	uint64_t zero[2] = {0, 0};
	assert_true(gmmu_entry_diff(ef, coh, zero, d, 1) > 1);
}

/* RM's peer map path (gmmu_drvmap_peer_pte) against the two-H200 capture: peer-2m's first
 * page (FB offset 0x200000) as the 580.159.04 driver wrote it over NVLink through NVSwitches
 * (tests/fixtures/pte-probe/h200-580.159.04-peer.json, entry at vid 0x5080), and the same page
 * as dmaAllocBar1P2PMapping_GH100 writes it for a BAR1-P2P peer whose static BAR1 sits at
 * bus 0x108000000000 + 512 MiB (hopper/gh100 dev_mmu.h: SYS_NONCOH 3 << 1 | VALID, PCF 0x11
 * << 3, KIND 6 << 8, ADDRESS in place). */
static void test_peer(void **state)
{
	(void)state;
	const struct gmmu_format *f = gmmu_chip_find("GH100")->format;
	struct gmmu_drvmap_peer rq = {.mode = GMMU_P2P_NVLINK,
	                              .peer_id = 0,
	                              .fabric_base = 0x8230000000000ull,
	                              .fb_offset = 0x200000,
	                              .page_size = 2u << 20,
	                              .kind = 6};
	uint64_t pte;
	assert_int_equal(gmmu_drvmap_peer_pte(f, &rq, &pte, NULL), 0);
	assert_int_equal(pte, 0x000823000020068bull);
	const struct gmmu_bar1_row *row;
	assert_int_equal(gmmu_bar1_row_find(p2ps_nv_driver_exact(580, P2PS_NV_FLAVOR_STOCK),
	                                    GMMU_BAR1_PATH_RM, f, &row, NULL),
	                 0);
	rq = (struct gmmu_drvmap_peer){.mode = GMMU_P2P_BAR1,
	                               .bar1_row = row,
	                               .bar1_base = 0x108020000000ull,
	                               .fb_offset = 0x200000,
	                               .page_size = 2u << 20,
	                               .kind = 6};
	assert_int_equal(gmmu_drvmap_peer_pte(f, &rq, &pte, NULL), 0);
	assert_int_equal(pte, 0x000010802020068full);
	/* A GPU-cacheable mapping: PCF 0x10 (REGULAR_RW_ATOMIC_CACHED_ACD). */
	rq.gpu_cacheable = GMMU_DRVMAP_CACHE_YES;
	assert_int_equal(gmmu_drvmap_peer_pte(f, &rq, &pte, NULL), 0);
	assert_int_equal(pte, 0x0000108020200687ull);
	rq.bar1_row = NULL;
	assert_int_equal(gmmu_drvmap_peer_pte(f, &rq, &pte, NULL), P2PS_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_v3_h100_ptes), cmocka_unit_test(test_v2_ptes),
	        cmocka_unit_test(test_pdes),         cmocka_unit_test(test_errors),
	        cmocka_unit_test(test_peer),         cmocka_unit_test(test_entry_diff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
