/* SPDX-License-Identifier: MIT */
/* pte-probe's judgement of peer entries on a v2 chip (AD102), on a run synthesized here:
 * one 2 MiB peer page at FB offset 0x123400000 and the PTE the walk would have read, the
 * entry written by hand from pascal/gp100 dev_mmu.h (VER2: VALID 0, APERTURE 2:1 (1 PEER),
 * VOL 3, ADDRESS_VID 32:8, ADDRESS_VID_PEER 35:33, ADDRESS_SYS 53:8, KIND 63:56):
 *   - an RM NVLink peer entry under the 550-570 patches (gmmuFmtPtePhysAddrFld(PEER) returns
 *     the sysmem field, gmmu_fmt.c in tinygrad 550.54.15-p2p .. aikitoria 570.86.16-p2p): the
 *     address write covers 35:33 and the peer index 3 is gone. With --flavor tinygrad it
 *     agrees and the report explains it; judged as stock, the difference names
 *     ADDRESS_VID_PEER;
 *   - a BAR1-P2P peer on v2: no RM row writes one (the map step is a stub, or 550 maps PEER),
 *     so the entry is not modelled and the reason is given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/probe.h"

#define OFF 0x123400000ull
#define VA  0x200000000ull

static const struct probe_alloc alloc = {
        .name = "peer-2m", .mem = PROBE_PEER, .page_shift = 21, .size = 4u << 20};
static const struct probe_spec spec = {
        .name = "peer-2m", .alloc = "peer-2m", .page_shift = 21, .what = "peer (P2P)"};

static struct probe_run *synth(enum gmmu_p2p_mode mode, unsigned series, enum p2ps_nv_flavor fl,
                               uint64_t raw)
{
	struct probe_run *run = calloc(1, sizeof(*run));
	assert_non_null(run);
	run->fmt = gmmu_chip_find("AD102")->format;
	run->walked = true;
	run->driver.major = series;
	run->flavor = fl;
	run->peer.asked = true;
	run->peer.p2p = 0x5c000007; /* the NV50_P2P handle: the report shows the peer part */
	run->peer.mode = mode;
	run->peer.peer_id = 3;
	run->peer.gpu.card.fb_address = 0x28800000000ull;
	run->peer.gpu.card.fb_size = 32ull << 30;
	run->n_maps = 1;
	struct probe_map *m = &run->maps[0];
	*m = (struct probe_map){.spec = &spec,
	                        .alloc = &alloc,
	                        .state = PROBE_MAPPED,
	                        .va = VA,
	                        .size = alloc.size,
	                        .n_pages = 1};
	m->pages[0] = (struct probe_page){
	        .va = VA, .phys_known = true, .phys = OFF, .pte = -1, .pte_status = 1};
	struct probe_entry *e;
	assert_int_equal(probe_entry_add(run, &e, NULL), 0);
	e->pte = true;
	e->level = gmmu_level_for_page(run->fmt, 21);
	e->va = VA;
	e->raw[0] = raw;
	e->ef = run->fmt->entry[GMMU_ENTRY_PTE];
	assert_int_equal(probe_compare(run, NULL), 0);
	return run;
}

static char *report(const struct probe_run *run)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	probe_print_text(run, f);
	fclose(f);
	return text;
}

static void nvlink_peer_field_patched(void **state)
{
	(void)state;
	/* VALID 1 | PEER 1 << 1 | VOL 1 << 3 = 0xb; ADDRESS_SYS = OFF >> 12 = 0x123400 << 8 =
	 * 0x12340000 (bits 35:33 = address bits 39:37 = 0); KIND 6 << 56. */
	const uint64_t patched = 0x060000001234000bull;
	static const unsigned series[] = {550, 565, 570};
	for (size_t i = 0; i < 3; i++) {
		unsigned s = series[i];
		enum p2ps_nv_flavor fl =
		        s == 570 ? P2PS_NV_FLAVOR_AIKITORIA : P2PS_NV_FLAVOR_TINYGRAD;
		struct probe_run *run = synth(GMMU_P2P_NVLINK, s, fl, patched);
		assert_int_equal(run->agree, 1);
		assert_int_equal(run->differ, 0);
		char *text = report(run);
		assert_non_null(strstr(text,
		                       "return the sysmem address field, and RM's peer entries "
		                       "carry the address there: on this v2 chip over the peer "
		                       "index (35:33)"));
		free(text);
		probe_run_cleanup(run);
		free(run);
	}
	/* The stock driver writes the peer index: PEER 3 << 33 = 0x600000000. */
	struct probe_run *run = synth(GMMU_P2P_NVLINK, 580, P2PS_NV_FLAVOR_STOCK, patched);
	assert_int_equal(run->differ, 1);
	const struct probe_entry *e = &run->entries[0];
	assert_int_equal(e->n_diffs, 1);
	assert_string_equal(e->diffs[0].field->name, "ADDRESS_VID_PEER");
	assert_string_equal(e->diffs[0].got, "0");
	assert_string_equal(e->diffs[0].want, "3");
	probe_run_cleanup(run);
	free(run);
	run = synth(GMMU_P2P_NVLINK, 580, P2PS_NV_FLAVOR_STOCK, 0x060000061234000bull);
	assert_int_equal(run->agree, 1);
	probe_run_cleanup(run);
	free(run);
}

static void bar1_on_v2_not_modelled(void **state)
{
	(void)state;
	/* The tinygrad 565 UVM row's word for this page (SYS_NONCOH 3 << 1 | VALID | VOL = 0xf,
	 * ADDRESS_SYS = (0x28800000000 + OFF) >> 12 << 8, KIND 6 << 56): RM never writes it. */
	const uint64_t uvm = 0x060000289234000full;
	static const struct {
		unsigned series;
		enum p2ps_nv_flavor fl;
		const char *why;
	} cases[] = {
	        {565, P2PS_NV_FLAVOR_TINYGRAD, "dmaAllocBar1P2PMapping_46f6a7"},
	        {570, P2PS_NV_FLAVOR_AIKITORIA, "dmaAllocBar1P2PMapping_46f6a7"},
	        {550, P2PS_NV_FLAVOR_TINYGRAD, "RM maps the peer as a PEER entry"},
	        {580, P2PS_NV_FLAVOR_STOCK, "no BAR1-P2P on Turing..Ada"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_run *run = synth(GMMU_P2P_BAR1, cases[i].series, cases[i].fl, uvm);
		assert_int_equal(run->unmodelled, 1);
		assert_false(run->entries[0].modelled);
		assert_non_null(strstr(run->entries[0].why, cases[i].why));
		assert_int_equal(run->peer.bar1.src, PROBE_BAR1_NO_ROW);
		char *text = report(run);
		assert_non_null(strstr(text, "peer: no BAR1-P2P model: "));
		free(text);
		probe_run_cleanup(run);
		free(run);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(nvlink_peer_field_patched),
	        cmocka_unit_test(bar1_on_v2_not_modelled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
