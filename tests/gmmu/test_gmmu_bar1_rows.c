/* SPDX-License-Identifier: MIT */
/* The BAR1-P2P rows: each listed driver's entry for AD102, GA102 (v2) and GB202 (v3), and
 * GH100 where pte-probe reads it. Every expected value is worked out by hand from the bit
 * positions of the published dev_mmu.h (VER2: pascal/gp100, VER3: hopper/gh100; both at
 * 580.142): VER2 VALID 0, APERTURE 2:1, VOL 3, ADDRESS_SYS 53:8 (>> 12), ADDRESS_VID 32:8,
 * ADDRESS_VID_PEER 35:33, KIND 63:56; VER3 VALID 0, APERTURE 2:1, PCF 7:3, KIND 11:8,
 * ADDRESS 51:12 (in place), PEER_ID 63:61; APERTURE 1 PEER, 2 SYSTEM_COHERENT,
 * 3 SYSTEM_NON_COHERENT; KIND GENERIC_MEMORY 6; PCF REGULAR_RW_ATOMIC_UNCACHED_ACD 0x11.
 * Which aperture and address each driver writes is cited beside each case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "gmmu_test_util.h"
#include "p2pscope/nvidia_drivers.h"

#define BAR1 0x28800000000ull /* a peer BAR1 bus address (RTX 4090, 32G BAR) */
#define OFF  0x123400000ull   /* FB offset of a 2 MiB page */
#define IOVA 0x1000000000ull

/* The driver table's row for (series, flavor): its own, else the fallback rule's. */
static const struct p2ps_nv_driver *drv(unsigned series, enum p2ps_nv_flavor fl, bool *exact)
{
	bool e;
	return p2ps_nv_driver_find(series, fl, exact ? exact : &e);
}

static int encode(const char *chip, unsigned series, enum p2ps_nv_flavor fl,
                  enum gmmu_bar1_path path, uint64_t base, uint64_t start, uint64_t *pte)
{
	const struct gmmu_format *f = gt_chip(chip);
	const struct gmmu_bar1_row *row;
	struct p2ps_error err;
	int rc = gmmu_bar1_row_find(drv(series, fl, NULL), path, f, &row, &err);
	if (rc)
		return rc;
	struct gmmu_p2p_request rq = {.mode = GMMU_P2P_BAR1,
	                              .bar1_row = row,
	                              .bar1_base = base,
	                              .bar1_start = start,
	                              .offset = OFF,
	                              .page_size = 2u << 20,
	                              .kind = 6,
	                              .vol = true};
	struct gmmu_p2p_result r;
	rc = gmmu_p2p_encode(f, &rq, &r, &err);
	*pte = r.pte;
	return rc;
}

static void v2_patched(void **state)
{
	(void)state;
	uint64_t pte;
	/* tinygrad 550.54.15-p2p and 565.57.01-p2p, nvGpuOpsBuildExternalAllocPtes, v2 branch:
	 * APERTURE PEER rewritten to SYS_NONCOH (3 << 1 = 0x6), VALID 1, VOL 1 (0x8: the peer
	 * memory's P2P cache attribute, uncached) = 0xf; fabricBaseAddress =
	 * gpumgrGetGpuPhysFbAddr(peer) = BAR1, so ADDRESS_SYS = (BAR1 + OFF) >> 12 =
	 * 0x28923400 << 8 = 0x2892340000; KIND 6 << 56. No peer index (write commented out). */
	const uint64_t want = 0x060000289234000full;
	for (unsigned s = 550; s <= 565; s += 15) {
		assert_int_equal(encode("AD102", s, P2PS_NV_FLAVOR_TINYGRAD, GMMU_BAR1_PATH_UVM,
		                        BAR1, 0, &pte),
		                 0);
		assert_int_equal(pte, want);
		assert_int_equal(encode("GA102", s, P2PS_NV_FLAVOR_TINYGRAD, GMMU_BAR1_PATH_UVM,
		                        BAR1, 0, &pte),
		                 0);
		assert_int_equal(pte, want);
	}
	/* aikitoria 570.86.16-p2p, the same diff: the bus address only, so a static BAR1 the 570
	 * driver placed at 2 MiB (kbusEnableStaticBar1Mapping_TU102 lets BAR1's allocator pick
	 * it) is missing from the entry: the same word. */
	assert_int_equal(encode("AD102", 570, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x200000, &pte),
	                 0);
	assert_int_equal(pte, want);
	assert_int_equal(
	        encode("GA102", 570, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_UVM, BAR1, 0, &pte),
	        0);
	assert_int_equal(pte, want);
	/* The RM map step of a BAR1-P2P peer is the stub dmaAllocBar1P2PMapping_46f6a7 on
	 * Turing..Ada (g_virt_mem_allocator_nvoc.c, every tag): no entry. */
	assert_int_equal(
	        encode("AD102", 565, P2PS_NV_FLAVOR_TINYGRAD, GMMU_BAR1_PATH_RM, BAR1, 0, &pte),
	        P2PS_ENOTSUP);
}

static void v2_stock_has_none(void **state)
{
	(void)state;
	uint64_t pte;
	/* kbusCreateP2PMappingForBar1P2P is a stub outside GH100/Blackwell (g_kern_bus_nvoc.c,
	 * 580.142); before 580 UVM has no BAR1-P2P case at all (nvGpuOpsGetExternalAllocAperture,
	 * 570.86.16). */
	assert_int_equal(
	        encode("AD102", 580, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_UVM, BAR1, 0, &pte),
	        P2PS_ENOTSUP);
	assert_int_equal(
	        encode("GA102", 595, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_RM, BAR1, 0, &pte),
	        P2PS_ENOTSUP);
	assert_int_equal(
	        encode("GB202", 570, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_UVM, BAR1, 0, &pte),
	        P2PS_ENOTSUP);
	/* aikitoria's 575 port: its BAR1-P2P entries were not read (the row's era is NONE). */
	assert_int_equal(
	        encode("AD102", 575, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_UVM, BAR1, 0, &pte),
	        P2PS_ENOTSUP);
}

/* The fallback rule: tinygrad has no 580 branch, so 580 is modelled by its newest older row,
 * 565.57.01-p2p (assumed): the same entry as 565's (v2_patched). */
static void fallback_row(void **state)
{
	(void)state;
	uint64_t pte;
	bool exact = true;
	assert_int_equal(drv(580, P2PS_NV_FLAVOR_TINYGRAD, &exact)->series, 565);
	assert_false(exact);
	assert_int_equal(
	        encode("AD102", 580, P2PS_NV_FLAVOR_TINYGRAD, GMMU_BAR1_PATH_UVM, BAR1, 0, &pte),
	        0);
	assert_int_equal(pte, 0x060000289234000full);
}

static void v3_stock(void **state)
{
	(void)state;
	uint64_t pte;
	/* 580.142 nvGpuOpsGetExternalAllocAperture: BAR1-P2P on arch >= BLACKWELL_GB1XX is
	 * SYS_COH (2 << 1 | VALID = 0x5) with PCF 0x11 << 3 = 0x88: 0x8d; KIND 6 << 8; address =
	 * kbusGetBar1P2PDmaInfo_GH100's base (the static BAR1 at BAR1 + 512 MiB, kbusInitBar1_GM107
	 * ALIGN_UP(console + mailbox, 512M)) + OFF = 0x28943400000, in place. */
	assert_int_equal(encode("GB202", 580, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x20000000, &pte),
	                 0);
	assert_int_equal(pte, 0x000002894340068dull);
	/* 595.45.04: the same through _nvGpuOpsIsBar1P2pAtomicEnabled; with an IOMMU the base is
	 * the IOVA: 0x1000000000 + 0x20000000 + OFF = 0x1143400000. */
	assert_int_equal(encode("GB202", 595, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_UVM, IOVA,
	                        0x20000000, &pte),
	                 0);
	assert_int_equal(pte, 0x000000114340068dull);
	/* The RM path, dmaAllocBar1P2PMapping_GH100 (580.142): uncached sysmem with CACHE_SNOOP
	 * disabled: SYS_NONCOH (3 << 1 | 1 = 0x7) | 0x88 = 0x8f. */
	assert_int_equal(encode("GB202", 580, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_RM, BAR1,
	                        0x20000000, &pte),
	                 0);
	assert_int_equal(pte, 0x000002894340068full);
	/* Hopper, 580 UVM: pre-Blackwell, SYS_NONCOH. */
	assert_int_equal(encode("GH100", 580, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x20000000, &pte),
	                 0);
	assert_int_equal(pte, 0x000002894340068full);
	/* 570.86.16 RM path: the static BAR1 where the 2 MiB allocator put it (0x200000):
	 * 0x28800000000 + 0x200000 + OFF = 0x28923600000. */
	assert_int_equal(
	        encode("GB202", 570, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_RM, BAR1, 0x200000, &pte),
	        0);
	assert_int_equal(pte, 0x000002892360068full);
	/* A start the series cannot have: 580 aligns it to 512 MiB. */
	assert_int_equal(encode("GB202", 580, P2PS_NV_FLAVOR_STOCK, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x200000, &pte),
	                 P2PS_EINVAL);
}

static void v3_patched(void **state)
{
	(void)state;
	uint64_t pte;
	/* tinygrad 565.57.01-p2p built for GB202: the v3 branch keeps APERTURE PEER (1 << 1 |
	 * VALID = 0x3) | PCF 0x88 = 0x8b; PEER_ID 0 (the write is commented out); the address
	 * the bus address + OFF = 0x28923400000 through the sysmem field (the same ADDRESS bits
	 * on v3). */
	assert_int_equal(
	        encode("GB202", 565, P2PS_NV_FLAVOR_TINYGRAD, GMMU_BAR1_PATH_UVM, BAR1, 0, &pte),
	        0);
	assert_int_equal(pte, 0x000002892340068bull);
	assert_int_equal(
	        encode("GB202", 550, P2PS_NV_FLAVOR_TINYGRAD, GMMU_BAR1_PATH_UVM, BAR1, 0, &pte),
	        0);
	assert_int_equal(pte, 0x000002892340068bull);
	/* aikitoria 570.86.16-p2p: the same, the start offset not added. */
	assert_int_equal(encode("GB202", 570, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x200000, &pte),
	                 0);
	assert_int_equal(pte, 0x000002892340068bull);
	/* Their RM path on GB202 is NVIDIA's dmaAllocBar1P2PMapping_GH100 (not edited). */
	assert_int_equal(encode("GB202", 570, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_RM, BAR1,
	                        0x200000, &pte),
	                 0);
	assert_int_equal(pte, 0x000002892360068full);
}

static void aikitoria_595_port(void **state)
{
	(void)state;
	uint64_t pte;
	/* aikitoria's 595.71.05 port (nvGpuOpsGetExternalAllocAperture with
	 * _nvGpuOpsIsBar1P2pAtomicEnabled: arch of the owning GPU >= BLACKWELL_GB1XX): AD102 and
	 * GA102 SYS_NONCOH (0xf with VOL, as v2_patched), the address the static BAR1's DMA
	 * base: 0x28800000000 + start 0x200000 + OFF = 0x28923600000 >> 12 << 8 in ADDRESS_SYS. */
	assert_int_equal(encode("AD102", 595, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x200000, &pte),
	                 0);
	assert_int_equal(pte, 0x060000289236000full);
	assert_int_equal(encode("GA102", 595, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x200000, &pte),
	                 0);
	assert_int_equal(pte, 0x060000289236000full);
	/* GB202: SYS_COH, 0x8d, as the stock 580 row. */
	assert_int_equal(encode("GB202", 595, P2PS_NV_FLAVOR_AIKITORIA, GMMU_BAR1_PATH_UVM, BAR1,
	                        0x200000, &pte),
	                 0);
	assert_int_equal(pte, 0x000002892360068dull);
}

static void v2_peer_field_side_effect(void **state)
{
	(void)state;
	/* An RM PEER write (NVLink peer 3, no fabric base) on AD102. Stock: ADDRESS_VID =
	 * OFF >> 12 << 8 = 0x12340000, PEER 3 << 33 = 0x600000000, PEER 1 << 1 | VALID | VOL =
	 * 0xb, KIND 6 << 56. With tinygrad's gmmuFmtPtePhysAddrFld(PEER) -> fldAddrSysmem
	 * (gmmu_fmt.c, 550.54.15-p2p .. 570.86.16-p2p) the address goes to ADDRESS_SYS 53:8,
	 * whose bits 35:33 (address bits 39:37: 0) overwrite the peer index. */
	struct gmmu_p2p_request rq = {.mode = GMMU_P2P_NVLINK,
	                              .peer_index = 3,
	                              .offset = OFF,
	                              .page_size = 2u << 20,
	                              .kind = 6,
	                              .vol = true};
	struct gmmu_p2p_result r;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, NULL), 0);
	assert_int_equal(r.pte, 0x060000061234000bull);
	assert_true(gmmu_bar1_peer_field_patched(drv(565, P2PS_NV_FLAVOR_TINYGRAD, NULL)));
	assert_true(gmmu_bar1_peer_field_patched(drv(570, P2PS_NV_FLAVOR_AIKITORIA, NULL)));
	assert_false(gmmu_bar1_peer_field_patched(drv(580, P2PS_NV_FLAVOR_STOCK, NULL)));
	rq.peer_addr_sysmem = true;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, NULL), 0);
	assert_int_equal(r.pte, 0x060000001234000bull);
	/* v3: ADDRESS serves both apertures and PEER_ID 63:61 stays. */
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, NULL), 0);
	assert_int_equal(r.pte, 0x600000012340068bull);
}

static bool overlap(const struct gmmu_bar1_row *a, const struct gmmu_bar1_row *b)
{
	return a->path == b->path && (a->gens & b->gens) && a->first <= b->last &&
	       b->first <= a->last;
}

static void rows_are_consistent(void **state)
{
	(void)state;
	/* Every row names its source with a tag and holds for a range of one flavor's eras; no
	 * two rows of one path cover the same era and generation. */
	for (size_t i = 0; i < gmmu_bar1_row_count(); i++) {
		const struct gmmu_bar1_row *a = gmmu_bar1_row_at(i);
		assert_non_null(a->source);
		assert_true(strpbrk(a->source, "0123456789") != NULL);
		assert_true(a->first != P2PS_NV_BAR1_NONE && a->first <= a->last && a->gens);
		assert_int_equal(p2ps_nv_bar1_era_flavor(a->first),
		                 p2ps_nv_bar1_era_flavor(a->last));
		for (size_t j = i + 1; j < gmmu_bar1_row_count(); j++)
			assert_false(overlap(a, gmmu_bar1_row_at(j)));
	}
	assert_null(gmmu_bar1_row_at(gmmu_bar1_row_count()));
}

/* Every driver row whose BAR1-P2P entries were read has, through its era, a row (an entry
 * or a refusal saying why) for each path and generation, of its own flavor. */
static void driver_rows_covered(void **state)
{
	(void)state;
	size_t n;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].bar1 == P2PS_NV_BAR1_NONE)
			continue;
		assert_int_equal(p2ps_nv_bar1_era_flavor(t[i].bar1), t[i].flavor);
		for (int path = GMMU_BAR1_PATH_UVM; path <= GMMU_BAR1_PATH_RM; path++)
			for (int g = GMMU_BAR1_GEN_V2; g <= GMMU_BAR1_GEN_BLACKWELL; g++)
				if (!gmmu_bar1_row_of(&t[i], (enum gmmu_bar1_path)path,
				                      (enum gmmu_bar1_gen)g))
					fail_msg("%u %s: no %s row for %s", t[i].series,
					         p2ps_nv_flavor_name(t[i].flavor),
					         gmmu_bar1_path_name((enum gmmu_bar1_path)path),
					         gmmu_bar1_gen_name((enum gmmu_bar1_gen)g));
	}
}

/* Method 3 (Duanyll's docs/48g-4090-p2p/method3-impl-notes.md at 12870848, nv_gpu_ops.c
 * _nvGpuOpsDynBar1Create in 595.71.05-p2p-48g; LingzheZhao's 610.57.04-p2p-48g carries it):
 * a peer without static BAR1 gets a window in its BAR1 per allocation and each entry is the
 * window's DMA base + the offset in the allocation, so the BAR1 offset is the driver's per
 * mapping; the aperture follows the port's test (SYSTEM_NON_COHERENT before Blackwell,
 * SYSTEM_COHERENT from it). Every series of the flavor has the rows; the RM path was not
 * read and says so. */
static void method3_windows(void **state)
{
	(void)state;
	static const unsigned series[] = {595, 610, 615};
	for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		const struct p2ps_nv_driver *d =
		        p2ps_nv_driver_exact(series[i], P2PS_NV_FLAVOR_DUANYLL);
		assert_non_null(d);
		const struct gmmu_bar1_row *ad =
		        gmmu_bar1_row_of(d, GMMU_BAR1_PATH_UVM, GMMU_BAR1_GEN_V2);
		const struct gmmu_bar1_row *gh =
		        gmmu_bar1_row_of(d, GMMU_BAR1_PATH_UVM, GMMU_BAR1_GEN_HOPPER);
		const struct gmmu_bar1_row *gb =
		        gmmu_bar1_row_of(d, GMMU_BAR1_PATH_UVM, GMMU_BAR1_GEN_BLACKWELL);
		const struct gmmu_bar1_row *rm =
		        gmmu_bar1_row_of(d, GMMU_BAR1_PATH_RM, GMMU_BAR1_GEN_V2);
		assert_non_null(ad);
		assert_non_null(gh);
		assert_non_null(gb);
		assert_non_null(rm);
		assert_null(ad->refused);
		assert_true(ad->dynamic_offset && gh->dynamic_offset && gb->dynamic_offset);
		assert_false(ad->adds_start);
		assert_int_equal(ad->aperture, GMMU_APERTURE_SYS_NONCOH);
		assert_int_equal(gh->aperture, GMMU_APERTURE_SYS_NONCOH);
		assert_int_equal(gb->aperture, GMMU_APERTURE_SYS_COH);
		assert_non_null(rm->refused);
		assert_non_null(strstr(ad->source, "_nvGpuOpsDynBar1Create"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(v2_patched),
	        cmocka_unit_test(method3_windows),
	        cmocka_unit_test(v2_stock_has_none),
	        cmocka_unit_test(v3_stock),
	        cmocka_unit_test(v3_patched),
	        cmocka_unit_test(aikitoria_595_port),
	        cmocka_unit_test(v2_peer_field_side_effect),
	        cmocka_unit_test(fallback_row),
	        cmocka_unit_test(rows_are_consistent),
	        cmocka_unit_test(driver_rows_covered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
