/* SPDX-License-Identifier: MIT */
/* The P2P mapping model: stock PCIe peer, NVLink peer with a fabric base, the BAR1-P2P
 * patch, and the ways each can fail. Expected entries are worked out by hand from the header
 * bit positions (see the comments), not by libgmmu's encoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "gmmu_test_util.h"

/* The peer BAR1 of the seed's RTX 4090 (lspci: Memory at 28800000000, 32G). */
#define BAR1 0x28800000000ull

static struct gmmu_p2p_request req(enum gmmu_p2p_mode m)
{
	return (struct gmmu_p2p_request){.mode = m, .kind = 6 /* GENERIC_MEMORY */};
}

static void stock_pcie_v2(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_STOCK);
	rq.peer_index = 2;
	rq.offset = 0x5e9000000ull; /* near the top of a 24 GB framebuffer */
	struct gmmu_p2p_result r;
	struct p2ps_error err;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, &err), 0);
	/* VALID 1 | APERTURE PEER 1 << 1 | ADDRESS_VID 32:8 = 0x5e9000 << 8 = 0x5e900000 |
	 * PEER 2 << 33 = 0x400000000 |
	 * KIND 6 << 56 */
	assert_int_equal(r.pte, 0x060000045e900003ull);
	assert_string_equal(r.addr_field->name, "ADDRESS_VID");
	assert_int_equal(r.addr, 0x5e9000000ull);
	assert_string_equal(r.level->name, "PT_SMALL");
}

static void stock_pcie_v3_flags(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_STOCK);
	rq.peer_index = 7;
	rq.offset = 0x10000;
	rq.page_size = 0x10000;
	rq.vol = rq.read_only = true;
	struct gmmu_p2p_result r;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GH100"), &rq, &r, NULL), 0);
	/* PCF = UNCACHED 1 | RO 4 | ACD 0x10 = 0x15 (REGULAR_RO_ATOMIC_UNCACHED_ACD) << 3 = 0xa8;
	 * VALID | PEER << 1 = 0x3; KIND 6 << 8; ADDRESS 0x10000 in place; PEER_ID 7 << 61. */
	assert_int_equal(r.pte, 0xe0000000000106abull);
	assert_string_equal(r.level->name, "PT_BIG");
	/* --ace: access counting enabled, PCF 0x05. */
	rq.access_counting = true;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GH100"), &rq, &r, NULL), 0);
	assert_int_equal(r.pte, 0xe00000000001062bull);
}

static void nvlink_adds_fabric_base(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_NVLINK);
	rq.peer_index = 1;
	rq.fabric_base = 0x100000000000ull; /* 16 TiB */
	rq.offset = 0x200000;
	rq.page_size = 0x200000;
	struct gmmu_p2p_result r;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GH100"), &rq, &r, NULL), 0);
	/* ADDRESS 51:12 holds 0x100000200000 in place; PEER_ID 1 << 61; PCF ACD 0x80; KIND 0x600;
	 * VALID | PEER 0x3. */
	assert_int_equal(r.pte, 0x2000100000200683ull);
	assert_int_equal(r.addr, 0x100000200000ull);
	assert_string_equal(r.level->name, "PD0");
	/* On v2 the same base does not fit the 25-bit ADDRESS_VID (128 GiB). */
	struct p2ps_error err;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GA100"), &rq, &r, &err), P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "nvlink mapping on v2-ga"));
}

/* The entries the 580.159.04 driver wrote on two H200s (NVLink through NVSwitches) for its
 * own RM mappings of the peer's memory, read back by pte-probe (tests/fixtures/pte-probe/
 * h200-580.159.04-peer.json and -peer-back.json): peer id 0 both ways (GET_P2P_CAPS_V2
 * busPeerIds), the peer's FB offset (GET_SURFACE_PHYS_ATTR) plus the peer GPU's NVSwitch
 * fabric base, GPU 1's seen from GPU 0 and GPU 0's seen from GPU 1, default allocations
 * (P2P uncached). The expected words are the captured ones. */
static void nvlink_nvswitch_h200_capture(void **state)
{
	(void)state;
	static const struct {
		uint64_t base, offset, page, raw;
	} cap[] = {
	        {0x8230000000000ull, 0x0, 0x1000, 0x000823000000068bull},        /* PT_SMALL[12] */
	        {0x8230000000000ull, 0x1000, 0x1000, 0x000823000000168bull},     /* PT_SMALL[13] */
	        {0x8230000000000ull, 0x10000, 0x10000, 0x000823000001068bull},   /* PT_BIG[5] */
	        {0x8230000000000ull, 0x400000, 0x200000, 0x000823000040068bull}, /* PD0[9] */
	        {0x8210000000000ull, 0x20000, 0x10000, 0x000821000002068bull}, /* back: PT_BIG[6] */
	        {0x8210000000000ull, 0x200000, 0x200000, 0x000821000020068bull}, /* back: PD0[8] */
	};
	for (size_t i = 0; i < sizeof(cap) / sizeof(cap[0]); i++) {
		struct gmmu_p2p_request rq = req(GMMU_P2P_NVLINK);
		rq.fabric_base = cap[i].base;
		rq.offset = cap[i].offset;
		rq.page_size = cap[i].page;
		rq.vol = true;
		struct gmmu_p2p_result r;
		assert_int_equal(gmmu_p2p_encode(gt_chip("GH100"), &rq, &r, NULL), 0);
		assert_int_equal(r.pte, cap[i].raw);
		assert_int_equal(r.aperture, GMMU_APERTURE_PEER);
	}
}

/* The patch: SYSTEM_NON_COHERENT, BAR1 base + offset in the sysmem field, no peer index. */
static void bar1_patch_v2(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_BAR1);
	rq.bar1_base = BAR1;
	rq.offset = 0x1000;
	rq.peer_index = 0xffffffff; /* ignored: the patch writes no peer index */
	struct gmmu_p2p_result r;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, NULL), 0);
	/* VALID | SYS_NONCOH 3 << 1 = 0x7; ADDRESS_SYS 53:8 = 0x28800001 << 8; KIND 6 << 56. */
	assert_int_equal(r.pte, 0x0600002880000107ull);
	assert_string_equal(r.addr_field->name, "ADDRESS_SYS");
	/* PA bits 39:37 of 0x28800001000 are 0b100: in the PTE they sit at 35:33, where a peer
	 * entry keeps its index. A sysmem entry must not have a peer index ORed in. */
	struct gmmu_pte_view v;
	gmmu_pte_view(gt_chip("AD102"), r.pte, &v);
	assert_int_equal(v.aperture, GMMU_APERTURE_SYS_NONCOH);
	assert_int_equal(v.addr, BAR1 + 0x1000);
}

/* What the first attempt did: the BAR1 address in the PEER entry's address field.
 * 0x28800000000 >> 12 = 0x28800000 needs 30 bits; ADDRESS_VID holds 25. */
static void bar1_address_does_not_fit_peer_field(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_NVLINK);
	rq.fabric_base = BAR1;
	struct gmmu_p2p_result r;
	struct p2ps_error err;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, &err), P2PS_ERANGE);
	assert_string_equal(
	        err.msg, "nvlink mapping on v2-ga: fabric base + offset address (PEER aperture): "
	                 "address 0x28800000000 does not fit ADDRESS_VID (32:8, 25 bits of "
	                 "address >> 12: max 0x1ffffff000)");
	rq.mode = GMMU_P2P_STOCK;
	rq.offset = BAR1;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, &err), P2PS_ERANGE);
	/* As written, nvFieldSet64 keeps the low 25 bits: 0x0800000 -> 0x800000000. */
	rq.write_mode = GMMU_WRITE_AS_WRITTEN;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, &err), 0);
	assert_int_equal(r.pte, 0x0600000080000003ull);
	/* v3 has room: 0x28800000000 < 2^52. */
	rq.write_mode = GMMU_WRITE_CHECKED;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), 0);
}

/* The BAR1-P2P path has no peer id; the stock template still writes BUS_INVALID_PEER. */
static void invalid_peer_smears_kind(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_STOCK);
	rq.peer_index = 0xffffffff;
	rq.offset = 0x1000;
	struct gmmu_p2p_result r;
	struct p2ps_error err;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, &err), P2PS_ERANGE);
	assert_string_equal(err.msg, "stock mapping on v2-ga: peer index 4294967295: value "
	                             "0xffffffff does not fit ADDRESS_VID_PEER (35:33, 3 bits, max "
	                             "0x7)");
	rq.write_mode = GMMU_WRITE_AS_WRITTEN;
	assert_int_equal(gmmu_p2p_encode(gt_chip("AD102"), &rq, &r, &err), 0);
	/* nvGpuOpsBuildExternalAllocPtes writes KIND (6), then ORs (NvU32)(0xffffffff << 1) =
	 * 0xfffffffe into bits 63:32: KIND 0xFF, COMPTAGLINE 0xfffff, peer 7; below them VALID |
	 * PEER = 0x3 and ADDRESS_VID 0x1000 >> 12 << 8 = 0x100. */
	assert_int_equal(r.pte, 0xfffffffe00000103ull);
	struct gmmu_pte_view v;
	gmmu_pte_view(gt_chip("AD102"), r.pte, &v);
	assert_int_equal(v.kind, 0xff);
	/* On v3 the same write stays inside PEER_ID (63:61 is the top of its 32-bit word). */
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), 0);
	gmmu_pte_view(gt_chip("GB202"), r.pte, &v);
	assert_int_equal(v.kind, 6);
	assert_int_equal(v.peer_index, 7);
}

/* NVSwitch peer addressing on v2 (kgmmuFmtInitPeerPteFld_TU10X): address >> 12 fills
 * ADDRESS_VID 32:8 (25 bits), then COMPTAGLINE 55:36 (20 bits). */
static void nvswitch_peer_address_v2(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_NVLINK);
	rq.peer_index = 1;
	rq.fabric_base = 1ull << 48;
	rq.nvswitch = true;
	struct gmmu_p2p_result r;
	struct p2ps_error err;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GA100"), &rq, &r, &err), 0);
	/* 2^48 >> 12 = 2^36: ADDRESS_VID gets 0, COMPTAGLINE 2^(36-25) = 0x800 -> PTE bit 47;
	 * peer 1 << 33; KIND 6 << 56; VALID | PEER = 0x3. */
	assert_int_equal(r.pte, 0x0600800200000003ull);
	/* 2^57 needs 46 bits of frame number: one too many. */
	rq.fabric_base = 1ull << 57;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GA100"), &rq, &r, &err), P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "ADDRESS_VID + COMPTAGLINE (32:8 + 55:36, 45 bits"));
	/* Only for nvlink on TU10x..AD10x. */
	rq.fabric_base = 1ull << 48;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GP100"), &rq, &r, &err), P2PS_ENOTSUP);
	assert_int_equal(gmmu_p2p_encode(gt_chip("GH100"), &rq, &r, &err), P2PS_ENOTSUP);
	rq.mode = GMMU_P2P_STOCK;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GA100"), &rq, &r, &err), P2PS_ENOTSUP);
}

static void bad_requests(void **state)
{
	(void)state;
	struct gmmu_p2p_request rq = req(GMMU_P2P_BAR1);
	rq.bar1_base = BAR1;
	struct gmmu_p2p_result r;
	struct p2ps_error err;
	rq.offset = 0x1800; /* not page aligned */
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "not aligned"));
	rq.offset = 0;
	rq.page_size = 0x20000000; /* 512 MB: GA10x and later only */
	assert_int_equal(gmmu_p2p_encode(gt_chip("TU102"), &rq, &r, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "page size 0x20000000"));
	assert_int_equal(gmmu_p2p_encode(gt_chip("GA102"), &rq, &r, &err), 0);
	assert_string_equal(r.level->name, "PD1");
	rq.page_size = 0x4000000000ull; /* 256 GB: GB10x/GB20x only */
	assert_int_equal(gmmu_p2p_encode(gt_chip("GH100"), &rq, &r, &err), P2PS_EINVAL);
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), P2PS_EINVAL);
	rq.bar1_base = 0;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), 0);
	assert_string_equal(r.level->name, "PD2");
	rq.page_size = 3000;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), P2PS_EINVAL);
	rq.page_size = 0;
	rq.bar1_base = UINT64_MAX - 0xfff;
	rq.offset = 0x1000;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "overflows"));
	rq.bar1_base = 1ull << 52; /* beyond v3's 52-bit physical address */
	rq.offset = 0;
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), P2PS_ERANGE);
	rq.bar1_base = BAR1;
	rq.kind = 0x10; /* 4-bit KIND on v3 */
	assert_int_equal(gmmu_p2p_encode(gt_chip("GB202"), &rq, &r, &err), P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "KIND (11:8"));
	enum gmmu_p2p_mode m;
	assert_int_equal(gmmu_p2p_mode_parse("BAR1", &m, NULL), 0);
	assert_int_equal(m, GMMU_P2P_BAR1);
	assert_int_equal(gmmu_p2p_mode_parse("pcie", &m, &err), P2PS_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(stock_pcie_v2),
	        cmocka_unit_test(stock_pcie_v3_flags),
	        cmocka_unit_test(nvlink_adds_fabric_base),
	        cmocka_unit_test(nvlink_nvswitch_h200_capture),
	        cmocka_unit_test(bar1_patch_v2),
	        cmocka_unit_test(bar1_address_does_not_fit_peer_field),
	        cmocka_unit_test(invalid_peer_smears_kind),
	        cmocka_unit_test(nvswitch_peer_address_v2),
	        cmocka_unit_test(bad_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
