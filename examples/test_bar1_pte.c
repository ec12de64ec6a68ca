/* SPDX-License-Identifier: MIT */
/* The patched encoder (bar1_pte.c) against libgmmu's model of the BAR1-P2P entry, for an
 * RTX 5090 (GB202, format v3) and an RTX 4090 (AD102, format v2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <p2pscope/gmmu.h>

#include "bar1_pte.h"

/* The peer's BAR1 sits at bus address 0x28800000000; we map the 2 MiB page at offset
 * 0x123400000 of its framebuffer. */
#define PEER_BAR1   0x28800000000ull
#define PEER_OFFSET 0x123400000ull
#define PAGE_2M     (2ull << 20)

/* What the driver must write for this page, from libgmmu's model: the patch's form of the
 * entry, with the KIND and caching the driver uses for peer memory by default. */
static struct gmmu_p2p_result model(const struct gmmu_format *f)
{
	struct gmmu_p2p_request rq = {.mode = GMMU_P2P_BAR1,
	                              .bar1_form = GMMU_BAR1_PATCH,
	                              .bar1_base = PEER_BAR1,
	                              .offset = PEER_OFFSET,
	                              .page_size = PAGE_2M,
	                              .write_mode = GMMU_WRITE_CHECKED};
	rq.kind = gmmu_p2p_default_kind(f); /* GENERIC_MEMORY (6) */
	rq.vol = gmmu_p2p_default_vol(&rq); /* GPU-uncached: peer memory is not P2P-cacheable */
	struct gmmu_p2p_result want;
	struct p2ps_error err;
	if (gmmu_p2p_encode(f, &rq, &want, &err))
		fail_msg("%s", err.msg);
	return want;
}

/* The checks every chip gets: the encoder agrees with the model, the entry means a sysmem
 * page at the peer's BAR1 address, and the classic porting bug is caught. */
static void check_chip(const char *chip, enum mmu_version ver, uint64_t by_hand)
{
	const struct gmmu_chip *c = gmmu_chip_find(chip);
	assert_non_null(c);
	struct gmmu_p2p_result want = model(c->format);
	assert_int_equal(want.pte, by_hand);
	assert_string_equal(want.level->name, "PD0"); /* 2 MiB PTEs live in PD0 */

	uint64_t got =
	        bar1_pte(ver, PEER_BAR1, PEER_OFFSET, gmmu_p2p_default_kind(c->format), true);
	assert_int_equal(got, want.pte);

	struct gmmu_pte_view v;
	gmmu_pte_view(c->format, got, &v);
	assert_true(v.valid);
	assert_int_equal(v.aperture, GMMU_APERTURE_SYS_NONCOH);
	assert_int_equal(v.addr, PEER_BAR1 + PEER_OFFSET);
	if (ver == MMU_VER3)
		assert_int_equal(v.peer_index, 0); /* PEER_ID 63:61 untouched */
	/* (v2: the peer index bits 35:33 are address bits of a sysmem entry) */
	assert_true(v.vol);

	uint64_t buggy = bar1_pte_without_base(ver, PEER_BAR1, PEER_OFFSET, 6, true);
	assert_true(buggy != want.pte);
	gmmu_pte_view(c->format, buggy, &v);
	assert_int_equal(v.addr, PEER_OFFSET); /* would hit host RAM at 0x123400000 */
}

static void gb202_bar1_pte(void **state)
{
	(void)state;
	/* By hand from dev_mmu.h (VER3): VALID 0:0 = 1, APERTURE 2:1 = 3 (SYS_NONCOH), PCF 7:3
	 * = 0x11 (UNCACHED_ACD), KIND 11:8 = 6, ADDRESS 51:12 = 0x28923400000 in place. */
	check_chip("GB202", MMU_VER3, 0x000002892340068full);
}

static void ad102_bar1_pte(void **state)
{
	(void)state;
	/* By hand from dev_mmu.h (VER2): VALID 0:0 = 1, APERTURE 2:1 = 3, VOL 3:3 = 1,
	 * ADDRESS_SYS 53:8 = 0x28923400000 >> 12, KIND 63:56 = 6. */
	check_chip("AD102", MMU_VER2, 0x060000289234000full);
}

/* For comparison, the stock PCIe peer entry of the same page on GB202: PEER aperture, peer
 * index 1 in PEER_ID 63:61, the framebuffer offset itself, uncached as the driver maps it. */
static void gb202_stock_peer_pte(void **state)
{
	(void)state;
	const struct gmmu_format *f = gmmu_chip_find("GB202")->format;
	struct gmmu_p2p_request rq = {.mode = GMMU_P2P_STOCK,
	                              .peer_index = 1,
	                              .offset = PEER_OFFSET,
	                              .page_size = PAGE_2M};
	rq.kind = gmmu_p2p_default_kind(f);
	rq.vol = gmmu_p2p_default_vol(&rq);
	struct gmmu_p2p_result want;
	struct p2ps_error err;
	assert_int_equal(gmmu_p2p_encode(f, &rq, &want, &err), 0);
	assert_int_equal(want.pte, 0x200000012340068bull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(gb202_bar1_pte),
	        cmocka_unit_test(ad102_bar1_pte),
	        cmocka_unit_test(gb202_stock_peer_pte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
