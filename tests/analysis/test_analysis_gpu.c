/* SPDX-License-Identifier: MIT */
/* The analysis' per-GPU and host checks on constructed host models: IOMMU modes, BAR1
 * against VRAM, BAR sources and windows, link, model and driver findings — each verdict
 * and reason checked on a model built for it. */
#include "analysis_fx.h"

/* The switch with an Intel IOMMU translating (DMA-FQ domains) and, as Linux sets it up
 * with the IOMMU on, ACS redirect on the switch's downstream ports: peer requests go up to
 * the root complex and meet the translation. */
static struct p2ps_host *build_iommu_on(struct fx *f)
{
	build_switch(f);
	struct p2ps_host *h = &f->h;
	h->iommu.present = true;
	snprintf(h->iommu.kind, sizeof(h->iommu.kind), "intel");
	snprintf(h->cmdline.intel_iommu, sizeof(h->cmdline.intel_iommu), "on");
	h->devs[f->g0].iommu_group = 12;
	h->devs[f->g1].iommu_group = 13;
	snprintf(h->devs[f->g0].iommu_domain_type, 16, "DMA-FQ");
	snprintf(h->devs[f->g1].iommu_domain_type, 16, "DMA-FQ");
	tm_acs(&h->devs[f->dsp0], 0x7f, 0x1d);
	tm_acs(&h->devs[f->dsp1], 0x7f, 0x1d);
	return h;
}

static void test_iommu_translating(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = build_iommu_on(f);
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(f->a.gpus[0].iommu, P2PS_IOMMU_TRANSLATING);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_IOMMU_TRANSLATING, f->g0);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_BLOCKER);
	assert_non_null(strstr(r->text, "group 12"));
	assert_non_null(strstr(r->fix, "iommu=pt"));
	assert_non_null(strstr(f->a.iommu_flags, "intel_iommu=on"));
	assert_non_null(strstr(f->a.iommu_summary, "DMA-FQ"));
	p2ps_analysis_free(&f->a);

	/* Switch ports without redirect (no ACS capability, as on many cheap switches): the
	 * requests turn inside the switch and never meet the IOMMU: a warning, ready. */
	h->devs[f->dsp0].acs.present = h->devs[f->dsp1].acs.present = false;
	run(f);
	p = pair01(f);
	r = tm_find(&p->reasons, P2PS_R_IOMMU_TRANSLATING, f->g1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_WARNING);
	assert_non_null(strstr(r->text, "0000:01:00.0"));
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	p2ps_analysis_free(&f->a);
	/* ... unless a turning port's ACS is unreadable: then it may well redirect. */
	snprintf(h->devs[f->dsp0].unknown[P2PS_FACT_ACS], P2PS_HOST_REASON_MAX, "needs root");
	run(f);
	r = tm_find(&pair01(f)->reasons, P2PS_R_IOMMU_TRANSLATING, f->g1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_BLOCKER);
	done(f);
}

/* The same host with the switch ports turning the requests (no ACS capability). */
static void test_iommu_identity_and_unknown(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = build_iommu_on(f);
	h->devs[f->dsp0].acs.present = h->devs[f->dsp1].acs.present = false;
	const struct p2ps_reason *r;

	/* iommu=pt: identity domains, the usual compromise: ready. */
	snprintf(h->devs[f->g0].iommu_domain_type, 16, "identity");
	snprintf(h->devs[f->g1].iommu_domain_type, 16, "identity");
	run(f);
	assert_int_equal(f->a.gpus[1].iommu, P2PS_IOMMU_IDENTITY);
	assert_int_equal(pair01(f)->verdict, P2PS_VERDICT_READY);
	p2ps_analysis_free(&f->a);

	/* Group type not readable while the requests may go up (switch ports with
	 * redirect): unknown, not ready-by-default. */
	h->devs[f->g1].iommu_domain_type[0] = '\0';
	tm_acs(&h->devs[f->dsp0], 0x7f, 0x1d);
	run(f);
	assert_int_equal(f->a.gpus[1].iommu, P2PS_IOMMU_UNKNOWN);
	r = tm_find(&pair01(f)->reasons, P2PS_R_IOMMU_UNKNOWN, f->g1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_UNKNOWN);
	p2ps_analysis_free(&f->a);

	/* No IOMMU state at all (an lspci dump), ports that cannot redirect: the requests
	 * stay in the switch, so the unknown IOMMU does not matter: ready. */
	h->iommu.known = false;
	h->devs[f->dsp0].acs.present = false;
	run(f);
	assert_int_equal(f->a.gpus[0].iommu, P2PS_IOMMU_UNKNOWN);
	r = tm_find(&pair01(f)->reasons, P2PS_R_IOMMU_UNKNOWN, f->g0);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_INFO);
	assert_int_equal(pair01(f)->verdict, P2PS_VERDICT_READY);
	p2ps_analysis_free(&f->a);
	/* ... and with ACS unreadable at a turning port it does. */
	snprintf(h->devs[f->dsp1].unknown[P2PS_FACT_ACS], P2PS_HOST_REASON_MAX, "needs root");
	run(f);
	assert_int_equal(pair01(f)->verdict, P2PS_VERDICT_UNKNOWN);
	r = tm_find(&pair01(f)->reasons, P2PS_R_IOMMU_UNKNOWN, f->g0);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_UNKNOWN);
	done(f);
}

static void test_bar1_smaller_than_vram(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_dev *g = &f->h.devs[f->g1];
	g->bars[1].size = 256 * TM_MIB; /* ReBAR off: the legacy 256 MiB aperture */
	g->rebar.e[0].current = 8;
	run(f);
	assert_int_equal(f->a.gpus[1].bar1_index, 1);
	assert_false(f->a.gpus[1].bar1_covers_vram);
	assert_true(f->a.gpus[0].bar1_covers_vram);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, f->g1);
	assert_non_null(r);
	assert_non_null(strstr(r->text, "256 MiB"));
	assert_non_null(strstr(r->text, "24 GiB"));
	/* The smallest offered size covering 24 GiB is 32 GiB = 2^15 MiB. */
	assert_non_null(
	        strstr(r->fix, "echo 15 > /sys/bus/pci/devices/0000:04:00.0/resource1_resize"));
	assert_null(tm_find(&p->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, f->g0));
	done(f);
}

static void test_bar1_vbios_limit(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_dev *g = &f->h.devs[f->g0];
	g->bars[1].size = 256 * TM_MIB;
	g->rebar.e[0].sizes = 1ull << 8; /* a 3090 VBIOS offering 256 MiB only */
	run(f);
	const struct p2ps_reason *r =
	        tm_find(&pair01(f)->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, f->g0);
	assert_non_null(r);
	assert_non_null(strstr(r->fix, "at most 256 MiB"));
	done(f);
}

static void test_vram_unknown(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *g = &f->h.devs[k ? f->g1 : f->g0];
		g->gpu.vram_known = false;
		snprintf(g->unknown[P2PS_FACT_VRAM], P2PS_HOST_REASON_MAX, "NVML not available");
	}
	/* GPU1 at 256 MiB: no Ada GPU has so little VRAM, so this is a blocker anyway. */
	f->h.devs[f->g1].bars[1].size = 256 * TM_MIB;
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_non_null(tm_find(&p->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, f->g1));
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	/* GPU0 at 32 GiB with up to 512 GiB offered: probably not maximal -> unknown. */
	const struct p2ps_reason *r =
	        tm_find(&f->a.gpus[0].reasons, P2PS_R_BAR1_NOT_MAXIMAL, f->g0);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_UNKNOWN);
	assert_non_null(strstr(r->text, "NVML not available"));
	p2ps_analysis_free(&f->a);

	/* Both at the largest size they offer: only "VRAM unknown" remains. */
	f->h.devs[f->g1].bars[1].size = 32 * TM_GIB;
	f->h.devs[f->g0].rebar.e[0].sizes = f->h.devs[f->g1].rebar.e[0].sizes = 0x3ffull << 6;
	run(f);
	p = pair01(f);
	assert_int_equal(p->verdict, P2PS_VERDICT_UNKNOWN);
	assert_non_null(tm_find(&p->reasons, P2PS_R_VRAM_UNKNOWN, f->g0));
	assert_null(tm_find(&p->reasons, P2PS_R_BAR1_NOT_MAXIMAL, -2));
	done(f);
}

static void test_bar1_index_and_size_sources(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	int g = tm_gpu(h, "0000:61:00.0", 0x2331, -1); /* H100 PCIe: three 64-bit BARs */
	struct p2ps_dev *d = &h->devs[g];
	memset(d->bars, 0, sizeof(d->bars));
	tm_bar(d, 0, 0x1e042000000ull, 16 * TM_MIB, true, true);
	tm_bar(d, 2, 0x1a000000000ull, 128 * TM_GIB, true, true);
	tm_bar(d, 4, 0x1e040000000ull, 32 * TM_MIB, true, true);
	d->bars[2].size_known = false; /* as from a dump: the size must come from ReBAR */
	d->rebar.e[0].bar = 2;
	d->rebar.e[0].current = 17; /* 128 GiB */
	d->gpu.vram_bytes = 80 * TM_GIB;
	run(f);
	assert_int_equal(p2ps_gpu_bar1_index(d), 2);
	assert_int_equal(f->a.gpus[0].bar1_index, 2);
	assert_true(f->a.gpus[0].bar1_size_known);
	assert_int_equal(f->a.gpus[0].bar1_size, 128 * TM_GIB);
	assert_string_equal(f->a.gpus[0].bar1_size_source, "ReBAR control");
	assert_true(f->a.gpus[0].bar1_covers_vram);
	assert_int_equal(f->a.n_pairs, 0);
	done(f);
}

static void test_bar_unassigned_and_window(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	h->devs[f->g0].bars[1].unassigned = true;
	/* dsp1's prefetchable window is 16 GiB: too small for a 32 GiB BAR1. */
	h->devs[f->dsp1].bridge.pref.present = true;
	h->devs[f->dsp1].bridge.pref.base = h->devs[f->g1].bars[1].address;
	h->devs[f->dsp1].bridge.pref.limit = h->devs[f->g1].bars[1].address + 16 * TM_GIB - 1;
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	assert_non_null(tm_find(&p->reasons, P2PS_R_BAR_UNASSIGNED, f->g0));
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_BAR_EXCEEDS_WINDOW, f->g1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_BLOCKER);
	assert_non_null(strstr(r->text, "0000:02:01.0"));
	assert_non_null(strstr(r->text, "16 GiB"));
	done(f);
}

static void test_link_findings(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	tm_link(&h->devs[f->g0], 4, 16, 4, 8);  /* x8 in an x16 slot */
	tm_link(&h->devs[f->g1], 5, 16, 1, 16); /* Gen5 GPU idling at 2.5 GT/s */
	run(f);
	const struct p2ps_pair *p = pair01(f);
	const struct p2ps_reason *w = tm_find(&p->reasons, P2PS_R_LINK_WIDTH_DOWN, f->g0);
	assert_non_null(w);
	assert_int_equal(w->sev, P2PS_SEV_WARNING);
	assert_non_null(strstr(w->text, "x8 of x16"));
	assert_non_null(tm_find(&p->reasons, P2PS_R_LINK_SPEED_DOWN, f->g1));
	/* The Gen4 downstream port limits the Gen5 GPU: an info on the GPU only. */
	assert_non_null(tm_find(&f->a.gpus[1].reasons, P2PS_R_LINK_SLOT_LIMIT, f->g1));
	assert_null(tm_find(&p->reasons, P2PS_R_LINK_SLOT_LIMIT, f->g1));
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	/* Narrowest trained link: 2.5 GT/s x16 = 4.0 GB/s. */
	assert_true(p->pcie_gbps > 3.99 && p->pcie_gbps < 4.01);
	done(f);
}

/* A link that is down (LnkSta Width x0) is a fact, not an unknown: on the GPU and on a
 * bridge of its path it blocks the pair. */
static void test_link_down(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	tm_link(&h->devs[f->g0], 4, 16, 4, 16);
	tm_link(&h->devs[f->g1], 4, 16, 1, 0); /* lspci: "LnkSta: Speed 2.5GT/s, Width x0" */
	tm_link(&h->devs[f->dsp0], 4, 16, 1, 0);
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_LINK_DOWN, f->g1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_BLOCKER);
	assert_non_null(strstr(r->text, "link is down"));
	r = tm_find(&p->reasons, P2PS_R_LINK_DOWN, f->g0);
	assert_non_null(r);
	assert_non_null(strstr(r->text, h->devs[f->dsp0].bdf_str));
	assert_null(tm_find(&p->reasons, P2PS_R_LINK_UNKNOWN, f->g1));
	assert_true(p2ps_link_is_down(&h->devs[f->g1].pcie));
	/* The same zero width from no source at all stays unknown. */
	h->devs[f->g0].pcie.sta_source = P2PS_LINK_NONE;
	assert_false(p2ps_link_is_down(&h->devs[f->g0].pcie));
	done(f);
}

static void test_mixed_models(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	f->h.devs[f->g1].device_id = GA102;
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_non_null(tm_find(&p->reasons, P2PS_R_MIXED_GENERATIONS, -1));
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	p2ps_analysis_free(&f->a);
	f->h.devs[f->g1].device_id = 0x2782; /* AD104: same generation, other chip */
	run(f);
	assert_non_null(tm_find(&pair01(f)->reasons, P2PS_R_MIXED_CHIPS, -1));
	p2ps_analysis_free(&f->a);
	f->h.devs[f->g1].device_id = 0x2685; /* 4090 D: same chip, other model */
	run(f);
	const struct p2ps_reason *r = tm_find(&pair01(f)->reasons, P2PS_R_MIXED_MODELS, -1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_WARNING);
	assert_int_equal(pair01(f)->verdict, P2PS_VERDICT_READY);
	done(f);
}

static void test_pre_turing_unsupported(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	f->h.devs[f->g0].device_id = GP102;
	f->h.devs[f->g1].device_id = GP102;
	run(f);
	const struct p2ps_reason *r =
	        tm_find(&pair01(f)->reasons, P2PS_R_GENERATION_UNSUPPORTED, f->g0);
	assert_non_null(r);
	assert_non_null(strstr(r->text, "Pascal"));
	assert_int_equal(pair01(f)->verdict, P2PS_VERDICT_NOT_READY);
	done(f);
}

/* A device id no row of the chip table holds (0x3200: past GB110's 0x3180 block; the
 * chips of 615.71.09, GB10C, GR100 and GR102, have no public ids) is an unknown chip, never
 * a guess from a neighbouring block; a listed one (GB10, 0x2e12: GB20B) is its chip. */
static void test_unknown_device_id(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	f->h.devs[f->g0].device_id = 0x3200;
	f->h.devs[f->g1].device_id = 0x2e12;
	run(f);
	assert_null(f->h.devs[f->g0].chip);
	const struct p2ps_reason *r = tm_find(&f->a.gpus[0].reasons, P2PS_R_CHIP_UNKNOWN, f->g0);
	assert_non_null(r);
	assert_non_null(strstr(r->text, "unknown device id 10de:3200"));
	assert_non_null(strstr(r->text, "generation unknown"));
	assert_string_equal(p2ps_nvidia_chip_name(f->h.devs[f->g1].chip), "GB20B");
	assert_null(tm_find(&f->a.gpus[1].reasons, P2PS_R_CHIP_UNKNOWN, f->g1));
	done(f);
}

static void test_driver_and_host_findings(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	snprintf(h->devs[f->g0].driver, 64, "nouveau");
	h->devs[f->g1].boot_vga = 1;
	snprintf(h->nvidia.module_version, 64, "575.51.02");
	snprintf(h->nvidia.proc_driver_version, 64, "570.86.15");
	h->vm.in_vm = true;
	snprintf(h->vm.hypervisor, sizeof(h->vm.hypervisor), "KVM");
	h->n_nccl_env = 2;
	snprintf(h->nccl_env[0], 128, "NCCL_P2P_DISABLE=1");
	snprintf(h->nccl_env[1], 128, "NCCL_P2P_LEVEL=PXB");
	h->config_limited_any = true;
	run(f);
	const struct p2ps_reason *r = tm_find(&f->a.gpus[0].reasons, P2PS_R_DRIVER, f->g0);
	assert_non_null(r);
	assert_non_null(strstr(r->text, "nouveau"));
	assert_non_null(tm_find(&f->a.gpus[1].reasons, P2PS_R_BOOT_VGA, f->g1));
	const struct p2ps_reasons *hr = &f->a.host_reasons;
	r = tm_find(hr, P2PS_R_DRIVER_VERSION_MISMATCH, -1);
	assert_non_null(r);
	assert_non_null(strstr(r->text, "570.86.15"));
	assert_non_null(tm_find(hr, P2PS_R_VM, -1));
	assert_non_null(tm_find(hr, P2PS_R_NEEDS_ROOT, -1));
	int disable = 0, level = 0;
	for (size_t i = 0; i < hr->n; i++)
		if (hr->v[i].code == P2PS_R_NCCL_ENV) {
			if (strstr(hr->v[i].text, "NCCL_P2P_DISABLE=1"))
				disable = hr->v[i].sev == P2PS_SEV_WARNING;
			if (strstr(hr->v[i].text, "NCCL_P2P_LEVEL=PXB"))
				level = hr->v[i].sev == P2PS_SEV_INFO;
		}
	assert_true(disable);
	assert_true(level);
	done(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_iommu_translating, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_iommu_identity_and_unknown, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bar1_smaller_than_vram, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bar1_vbios_limit, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_vram_unknown, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bar1_index_and_size_sources, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bar_unassigned_and_window, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_link_findings, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_link_down, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_mixed_models, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_pre_turing_unsupported, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_driver_and_host_findings, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_unknown_device_id, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
