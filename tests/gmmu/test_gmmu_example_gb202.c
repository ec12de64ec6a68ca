/* The worked example of docs/gmmu.md ("Unit-testing a driver patch"): a BAR1-P2P port to an
 * RTX 5090-class GB202. The block between the doc-example markers is quoted verbatim in the
 * docs; tests/gmmu/doc_examples.sh fails when the two differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "p2pscope/gmmu.h"

/* A stand-in for the patched driver code under test: it writes the PTE field by field the
 * way the patched nvGpuOpsBuildExternalAllocPtes does (aperture SYS_NONCOH, fabric base =
 * peer BAR1, sysmem address field, no peer index, PCF uncached because peer memory is not
 * P2P-cacheable by default). `forget_base` models a common porting bug: the BAR1 base not
 * added because the software aperture was already rewritten. */
static uint64_t patched_driver_pte(const struct gmmu_format *f, uint64_t bar1, uint64_t offset,
                                   bool forget_base)
{
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, GMMU_ENTRY_PTE);
	uint64_t w[2] = {0, 0};
	gmmu_entry_set(ef, "VALID", "TRUE", GMMU_WRITE_AS_WRITTEN, w, NULL);
	gmmu_entry_set(ef, "APERTURE", "SYSTEM_NON_COHERENT_MEMORY", GMMU_WRITE_AS_WRITTEN, w,
	               NULL);
	gmmu_entry_set(ef, "KIND", "GENERIC_MEMORY", GMMU_WRITE_AS_WRITTEN, w, NULL);
	gmmu_entry_set(ef, "PCF", "REGULAR_RW_ATOMIC_UNCACHED_ACD", GMMU_WRITE_AS_WRITTEN, w, NULL);
	gmmu_field_set_addr(gmmu_field_find(ef, "ADDRESS"), (forget_base ? 0 : bar1) + offset,
	                    GMMU_WRITE_AS_WRITTEN, w, NULL);
	return w[0];
}

/* doc-example-begin */
/* Peer GPU: an RTX 5090 whose 32 GiB BAR1 sits at bus address 0x28800000000. We map the
 * 2 MiB page at offset 0x123400000 of its framebuffer. */
#define PEER_BAR1   0x28800000000ull
#define PEER_OFFSET 0x123400000ull

static void gb202_bar1_p2p_pte(void **state)
{
	(void)state;
	const struct gmmu_chip *chip = gmmu_chip_find("GB202");
	assert_non_null(chip);
	const struct gmmu_format *f = chip->format; /* v3-gb */

	/* What the BAR1-P2P patch must write, from the model. */
	struct gmmu_p2p_request rq = {
	        .mode = GMMU_P2P_BAR1,
	        .bar1_base = PEER_BAR1,
	        .offset = PEER_OFFSET,
	        .page_size = 2u << 20,
	        .kind = 6,   /* GENERIC_MEMORY */
	        .vol = true, /* GPU-uncached: the driver's default for peer memory */
	        .write_mode = GMMU_WRITE_CHECKED,
	        /* .bar1_form = GMMU_BAR1_PATCH (0) is the default: SYSTEM_NON_COHERENT */
	};
	struct gmmu_p2p_result want;
	struct p2ps_error err;
	assert_int_equal(gmmu_p2p_encode(f, &rq, &want, &err), 0);
	/* By hand from dev_mmu.h: VALID 0:0 = 1, APERTURE 2:1 = SYS_NONCOH 3, PCF 7:3 = 0x11
	 * (UNCACHED, ACD), KIND 11:8 = 6, ADDRESS 51:12 = (0x28800000000 + 0x123400000) in
	 * place. */
	assert_int_equal(want.pte, 0x000002892340068full);
	assert_string_equal(want.level->name, "PD0"); /* 2 MiB PTEs live in PD0 */

	/* What the ported driver code writes. */
	uint64_t got = patched_driver_pte(f, PEER_BAR1, PEER_OFFSET, false);
	assert_int_equal(got, want.pte);

	/* Decoded: a sysmem PTE at the peer's BAR1 address, no peer index. */
	struct gmmu_pte_view v;
	gmmu_pte_view(f, got, &v);
	assert_true(v.valid);
	assert_int_equal(v.aperture, GMMU_APERTURE_SYS_NONCOH);
	assert_int_equal(v.addr, PEER_BAR1 + PEER_OFFSET);
	assert_int_equal(v.peer_index, 0);

	/* The test catches the classic porting bug: BAR1 base not added. */
	uint64_t buggy = patched_driver_pte(f, PEER_BAR1, PEER_OFFSET, true);
	assert_true(buggy != want.pte);
	gmmu_pte_view(f, buggy, &v);
	assert_int_equal(v.addr, PEER_OFFSET); /* would hit host RAM at 0x123400000 */

	/* And the stock PCIe entry for the same page, for comparison: PEER aperture, peer
	 * index 1 in PEER_ID 63:61, the FB offset itself. */
	rq.mode = GMMU_P2P_STOCK;
	rq.peer_index = 1;
	assert_int_equal(gmmu_p2p_encode(f, &rq, &want, &err), 0);
	assert_int_equal(want.pte, 0x200000012340068bull);
}
/* doc-example-end */

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(gb202_bar1_p2p_pte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
