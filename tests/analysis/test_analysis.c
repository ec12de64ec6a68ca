/* The analysis on constructed host models: topology classes (PIX, PXB, PHB, NODE, SYS,
 * NV#), ACS redirect on named bridges, IOMMU modes, BAR1 against VRAM, link, model and
 * driver findings — each verdict and reason checked on a model built for it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"

#define AD102 0x2684 /* RTX 4090 */
#define GA102 0x2204 /* RTX 3090 */
#define GP102 0x1b06 /* GTX 1080 Ti */

struct fx {
	struct p2ps_host h;
	struct p2ps_analysis a;
	int rp, usp, dsp0, dsp1, g0, g1;
};

/* Root port 00:01.0 -> switch (upstream 01:00.0, downstream 02:00.0 / 02:01.0) ->
 * GPUs 03:00.0 and 04:00.0, both RTX 4090. */
static void build_switch(struct fx *f)
{
	struct p2ps_host *h = &f->h;
	tm_init(h);
	f->rp = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	f->usp = tm_bridge(h, "0000:01:00.0", P2PS_PCIE_SWITCH_UPSTREAM, f->rp);
	f->dsp0 = tm_bridge(h, "0000:02:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, f->usp);
	f->dsp1 = tm_bridge(h, "0000:02:01.0", P2PS_PCIE_SWITCH_DOWNSTREAM, f->usp);
	f->g0 = tm_gpu(h, "0000:03:00.0", AD102, f->dsp0);
	f->g1 = tm_gpu(h, "0000:04:00.0", AD102, f->dsp1);
}

static void run(struct fx *f)
{
	struct p2ps_error err = {0};
	tm_finish(&f->h);
	assert_int_equal(p2ps_analysis_run(&f->h, &f->a, &err), 0);
}

static void done(struct fx *f)
{
	p2ps_analysis_free(&f->a);
	p2ps_host_free(&f->h);
}

static const struct p2ps_pair *pair01(const struct fx *f)
{
	const struct p2ps_pair *p = p2ps_analysis_pair(&f->a, 0, 1);
	assert_non_null(p);
	return p;
}

static void test_switch_clean_is_pix_and_ready(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	/* ACS present but not redirecting: the kernel leaves it so with the IOMMU off. */
	tm_acs(&f->h.devs[f->dsp0], 0x7f, 0x00);
	tm_acs(&f->h.devs[f->dsp1], 0x7f, 0x00);
	run(f);
	assert_int_equal(f->a.n_gpus, 2);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->topo, P2PS_TOPO_PIX);
	assert_int_equal(p->lca_idx, f->usp);
	assert_int_equal(p->turn[0], f->dsp0);
	assert_int_equal(p->turn[1], f->dsp1);
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	assert_false(p->moot);
	for (size_t i = 0; i < p->reasons.n; i++)
		assert_true(p->reasons.v[i].sev == P2PS_SEV_INFO ||
		            p->reasons.v[i].sev == P2PS_SEV_WARNING);
	assert_int_equal(f->a.matrix[1], P2PS_TOPO_PIX);
	assert_int_equal(f->a.matrix[0], P2PS_TOPO_X);
	/* Gen4 x16 after 128b/130b: 16 * 16 * 128/130 / 8 = 31.5 GB/s. */
	assert_true(p->pcie_gbps > 31.4 && p->pcie_gbps < 31.6);
	/* The path of GPU0 is its downstream port, the switch's upstream port, the root port. */
	assert_int_equal(f->a.gpus[0].path_len, 3);
	assert_int_equal(f->a.gpus[0].path[0], f->dsp0);
	assert_int_equal(f->a.gpus[0].path[2], f->rp);
	done(f);
}

static void test_switch_acs_redirect_names_bridges(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	/* What Linux programs with an IOMMU on: SV+ RR+ CR+ UF+. */
	tm_acs(&f->h.devs[f->dsp0], 0x7f, 0x1d);
	tm_acs(&f->h.devs[f->dsp1], 0x7f, 0x1d);
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->topo, P2PS_TOPO_PIX);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	const struct p2ps_reason *r0 = tm_find(&p->reasons, P2PS_R_ACS_REDIRECT, f->dsp0);
	const struct p2ps_reason *r1 = tm_find(&p->reasons, P2PS_R_ACS_REDIRECT, f->dsp1);
	assert_non_null(r0);
	assert_non_null(r1);
	assert_int_equal(r0->sev, P2PS_SEV_BLOCKER);
	assert_non_null(strstr(r0->text, "0000:02:00.0"));
	assert_non_null(strstr(r0->text, "ReqRedir+"));
	/* Clearing RR and CR from 0x1d leaves SV and UF: 0x11. */
	assert_non_null(strstr(r0->fix, "setpci -s 0000:02:00.0 ECAP_ACS+0x6.w=0011"));
	assert_non_null(strstr(r1->fix, "setpci -s 0000:02:01.0 ECAP_ACS+0x6.w=0011"));
	/* The upstream port and the root port are not where this pair's traffic turns. */
	assert_null(tm_find(&p->reasons, P2PS_R_ACS_REDIRECT, f->rp));
	done(f);
}

static void test_switch_egress_control_alone_redirects(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	tm_acs(&f->h.devs[f->dsp0], 0x7f, 0x00);
	tm_acs(&f->h.devs[f->dsp1], 0x7f, P2PS_ACS_EC);
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	assert_null(tm_find(&p->reasons, P2PS_R_ACS_REDIRECT, f->dsp0));
	assert_non_null(tm_find(&p->reasons, P2PS_R_ACS_REDIRECT, f->dsp1));
	done(f);
}

static void test_switch_acs_unknown_without_root(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	snprintf(f->h.devs[f->dsp1].unknown[P2PS_FACT_ACS], P2PS_HOST_REASON_MAX,
	         "needs root: config space past 64 bytes is not readable");
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->verdict, P2PS_VERDICT_UNKNOWN);
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_ACS_UNKNOWN, f->dsp1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_UNKNOWN);
	assert_non_null(strstr(r->text, "needs root"));
	/* A port without the capability (known) cannot redirect: no reason for dsp0. */
	assert_null(tm_find(&p->reasons, P2PS_R_ACS_UNKNOWN, f->dsp0));
	done(f);
}

static void test_two_switches_is_pxb(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	/* Second GPU moves below a second switch hanging off dsp1. */
	struct p2ps_host *h = &f->h;
	int usp2 = tm_bridge(h, "0000:05:00.0", P2PS_PCIE_SWITCH_UPSTREAM, f->dsp1);
	int dsp2 = tm_bridge(h, "0000:06:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, usp2);
	h->devs[f->g1].parent_idx = dsp2;
	tm_acs(&h->devs[dsp2], 0x7f, 0x1d); /* below the turning point: irrelevant */
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->topo, P2PS_TOPO_PXB);
	assert_int_equal(p->lca_idx, f->usp);
	assert_int_equal(p->turn[1], f->dsp1);
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	assert_null(tm_find(&p->reasons, P2PS_R_ACS_REDIRECT, dsp2));
	done(f);
}

/* The analysis classifies each pair once and mirrors it into the matrix; that holds
 * only if the classification does not depend on the order of the two devices. Every
 * ordered pair of devices (bridges included) of a tree with two stacked switches, two
 * root ports and a second host bridge is checked both ways. */
static void test_topology_is_symmetric(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	int usp2 = tm_bridge(h, "0000:05:00.0", P2PS_PCIE_SWITCH_UPSTREAM, f->dsp1);
	int dsp2 = tm_bridge(h, "0000:06:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, usp2);
	tm_gpu(h, "0000:07:00.0", AD102, dsp2);
	int rp1 = tm_bridge(h, "0000:00:03.0", P2PS_PCIE_ROOT_PORT, -1);
	tm_gpu(h, "0000:08:00.0", AD102, rp1);
	int rp2 = tm_bridge(h, "0000:80:01.0", P2PS_PCIE_ROOT_PORT, -1);
	int g4 = tm_gpu(h, "0000:81:00.0", AD102, rp2);
	h->devs[rp2].numa_node = h->devs[g4].numa_node = 1;
	run(f);
	int seen[P2PS_TOPO_SYS + 1] = {0};
	for (int a = 0; a < (int)h->n_devs; a++) {
		for (int b = 0; b < (int)h->n_devs; b++) {
			int lab, lba, tab[2], tba[2];
			enum p2ps_topo ab = p2ps_topo_classify(h, a, b, &lab, tab);
			enum p2ps_topo ba = p2ps_topo_classify(h, b, a, &lba, tba);
			assert_int_equal(ab, ba);
			assert_int_equal(lab, lba);
			seen[ab]++;
		}
	}
	/* The tree is rich enough to exercise every PCIe class. */
	assert_true(seen[P2PS_TOPO_X] && seen[P2PS_TOPO_PIX] && seen[P2PS_TOPO_PXB] &&
	            seen[P2PS_TOPO_PHB] && seen[P2PS_TOPO_SYS]);
	size_t n = f->a.n_gpus;
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			assert_int_equal(f->a.matrix[i * n + j], f->a.matrix[j * n + i]);
	done(f);
}

static void test_root_ports_phb_and_root_acs_is_warning(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	int rp0 = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	int rp1 = tm_bridge(h, "0000:00:03.1", P2PS_PCIE_ROOT_PORT, -1);
	tm_acs(&h->devs[rp0], 0x5f, 0x1d);
	tm_gpu(h, "0000:01:00.0", AD102, rp0);
	tm_gpu(h, "0000:02:00.0", AD102, rp1);
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->topo, P2PS_TOPO_PHB);
	assert_int_equal(p->lca_idx, -1);
	assert_int_equal(p->turn[0], rp0);
	assert_int_equal(p->turn[1], rp1);
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp0);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_WARNING);
	assert_non_null(tm_find(&p->reasons, P2PS_R_PATH_HOST_BRIDGE, -1));
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	done(f);
}

static void test_host_bridges_node_and_sys(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	int hb = tm_dev(h, "0000:00:00.0", 0x8086, 0x2020, 0x060000, -1); /* Intel host bridge */
	(void)hb;
	int rp0 = tm_bridge(h, "0000:16:00.0", P2PS_PCIE_ROOT_PORT, -1);
	int rp1 = tm_bridge(h, "0000:30:00.0", P2PS_PCIE_ROOT_PORT, -1);
	int rp2 = tm_bridge(h, "0000:b0:00.0", P2PS_PCIE_ROOT_PORT, -1);
	int g0 = tm_gpu(h, "0000:17:00.0", AD102, rp0);
	int g1 = tm_gpu(h, "0000:31:00.0", AD102, rp1);
	int g2 = tm_gpu(h, "0000:b1:00.0", AD102, rp2);
	h->devs[rp2].numa_node = h->devs[g2].numa_node = 1;
	run(f);
	(void)g0;
	(void)g1;
	const struct p2ps_pair *p01 = p2ps_analysis_pair(&f->a, 0, 1);
	const struct p2ps_pair *p02 = p2ps_analysis_pair(&f->a, 0, 2);
	assert_int_equal(p01->topo, P2PS_TOPO_NODE);
	assert_int_equal(p02->topo, P2PS_TOPO_SYS);
	assert_int_equal(f->a.matrix[2 * 3 + 1], P2PS_TOPO_SYS);
	/* NODE: a warning only. SYS on an Intel host: UPI does not forward peer traffic. */
	assert_int_equal(p01->verdict, P2PS_VERDICT_READY);
	const struct p2ps_reason *r = tm_find(&p02->reasons, P2PS_R_PATH_CPU_INTERCONNECT, -1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_BLOCKER);
	assert_int_equal(p02->verdict, P2PS_VERDICT_NOT_READY);
	p2ps_analysis_free(&f->a);
	/* The same tree behind an AMD host bridge: a warning, not a blocker. */
	h->devs[0].vendor_id = 0x1022;
	run(f);
	p02 = p2ps_analysis_pair(&f->a, 0, 2);
	r = tm_find(&p02->reasons, P2PS_R_PATH_CPU_INTERCONNECT, -1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_WARNING);
	assert_int_equal(p02->verdict, P2PS_VERDICT_READY);
	done(f);
}

static void test_nvlink_pair_is_moot(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	/* Two H100 SXM (GH100) on one root bus, like the H200 guest: no bridges. */
	int g0 = tm_gpu(h, "0000:00:06.0", 0x2330, -1);
	int g1 = tm_gpu(h, "0000:00:07.0", 0x2330, -1);
	tm_nvlink(&h->devs[g0], &h->devs[g1], 18);
	tm_nvlink(&h->devs[g1], &h->devs[g0], 18);
	run(f);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->topo, P2PS_TOPO_NV);
	assert_int_equal(p->nvlinks, 18);
	assert_int_equal(p->pcie_topo, P2PS_TOPO_PHB);
	assert_true(p->moot);
	assert_non_null(tm_find(&p->reasons, P2PS_R_NVLINK, -1));
	assert_int_equal(f->a.nvlink_matrix[1], 18);
	/* The PHB note is dropped when NVLink carries the traffic. */
	assert_null(tm_find(&p->reasons, P2PS_R_PATH_HOST_BRIDGE, -1));
	done(f);
}

static void test_nvswitch_links_count(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	int g0 = tm_gpu(h, "0000:00:06.0", 0x2330, -1);
	int g1 = tm_gpu(h, "0000:00:07.0", 0x2330, -1);
	/* Each GPU's links end at NVSwitches that are not visible as GPUs. */
	struct p2ps_dev sw = {.bdf = {0, 0x80, 0, 0}}, sw2 = {.bdf = {0, 0x81, 0, 0}};
	tm_nvlink(&h->devs[g0], &sw, 10);
	tm_nvlink(&h->devs[g0], &sw2, 8);
	tm_nvlink(&h->devs[g1], &sw, 9);
	tm_nvlink(&h->devs[g1], &sw2, 9);
	run(f);
	assert_int_equal(pair01(f)->nvlinks, 18);
	done(f);
}

static void test_iommu_modes(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	h->iommu.present = true;
	snprintf(h->iommu.kind, sizeof(h->iommu.kind), "intel");
	snprintf(h->cmdline.intel_iommu, sizeof(h->cmdline.intel_iommu), "on");
	h->devs[f->g0].iommu_group = 12;
	h->devs[f->g1].iommu_group = 13;
	snprintf(h->devs[f->g0].iommu_domain_type, 16, "DMA-FQ");
	snprintf(h->devs[f->g1].iommu_domain_type, 16, "DMA-FQ");
	/* With the IOMMU on, Linux enables ACS redirect on the switch's downstream ports:
	 * peer requests go up to the root complex and meet the translation. */
	tm_acs(&h->devs[f->dsp0], 0x7f, 0x1d);
	tm_acs(&h->devs[f->dsp1], 0x7f, 0x1d);
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
	p2ps_analysis_free(&f->a);
	h->devs[f->dsp0].unknown[P2PS_FACT_ACS][0] = '\0';

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

static void test_ancestor_peer_and_nvlink_unknown(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	struct p2ps_dev *g1 = &f->h.devs[f->g1];
	g1->gpu.nvlink_known = false;
	snprintf(g1->unknown[P2PS_FACT_NVLINK], P2PS_HOST_REASON_MAX, "NVML not available");
	run(f);
	int lca, turn[2];
	/* A GPU and a bridge above it meet at the bridge. */
	assert_int_equal(p2ps_topo_classify(&f->h, f->g0, f->dsp0, &lca, turn), P2PS_TOPO_PIX);
	assert_int_equal(lca, f->dsp0);
	assert_int_equal(turn[0], -1);
	assert_int_equal(p2ps_topo_classify(&f->h, f->usp, f->g1, &lca, turn), P2PS_TOPO_PIX);
	assert_int_equal(lca, f->usp);
	assert_int_equal(turn[1], f->dsp1);
	const struct p2ps_pair *p = pair01(f);
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_NVLINK, -1);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_INFO);
	assert_non_null(strstr(r->text, "NVML not available"));
	assert_false(p->moot);
	done(f);
}

static void test_missing_bridge_is_unknown(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	tm_finish(&f->h);
	/* GPU1's downstream port is missing from the source (e.g. hidden by a hypervisor):
	 * the GPU must not be taken for a device on the root bus (which would say PHB). */
	struct p2ps_dev *g1 = &f->h.devs[f->g1];
	g1->parent = NULL;
	g1->parent_idx = -1;
	g1->has_parent = true;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_analysis_run(&f->h, &f->a, &err), 0);
	const struct p2ps_pair *p = pair01(f);
	assert_int_equal(p->topo, P2PS_TOPO_UNKNOWN);
	assert_int_equal(p->verdict, P2PS_VERDICT_UNKNOWN);
	const struct p2ps_reason *r = tm_find(&p->reasons, P2PS_R_TOPOLOGY_UNKNOWN, -1);
	assert_non_null(r);
	assert_non_null(strstr(r->text, "bridge 0000:02:01.0 above 0000:04:00.0"));
	done(f);
}

static void test_nccl_level(void **state)
{
	struct fx *f = *state;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	tm_dev(h, "0000:00:00.0", 0x8086, 0x2020, 0x060000, -1); /* Intel host bridge */
	int rp0 = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	int rp1 = tm_bridge(h, "0000:00:02.0", P2PS_PCIE_ROOT_PORT, -1);
	tm_gpu(h, "0000:01:00.0", AD102, rp0);
	tm_gpu(h, "0000:02:00.0", AD102, rp1);
	run(f);
	/* PHB is beyond NCCL's default level PXB. */
	const struct p2ps_reason *r = tm_find(&pair01(f)->reasons, P2PS_R_NCCL_LEVEL, -1);
	assert_non_null(r);
	assert_non_null(strstr(r->text, "level PXB, NCCL's default) would not use P2P"));
	p2ps_analysis_free(&f->a);
	/* An AMD host with two GPUs: NCCL raises the level to SYS. */
	h->devs[0].vendor_id = 0x1022;
	run(f);
	r = tm_find(&pair01(f)->reasons, P2PS_R_NCCL_LEVEL, -1);
	assert_non_null(strstr(r->text, "level SYS, NCCL's default on AMD hosts with two GPUs) "
	                                "would use P2P"));
	p2ps_analysis_free(&f->a);
	/* NCCL_P2P_LEVEL, in the old numeric form (2 = PXB), and NCCL_P2P_DISABLE. */
	h->n_nccl_env = 1;
	snprintf(h->nccl_env[0], 128, "NCCL_P2P_LEVEL=2");
	run(f);
	r = tm_find(&pair01(f)->reasons, P2PS_R_NCCL_LEVEL, -1);
	assert_non_null(strstr(r->text, "level PXB, set) would not use P2P"));
	p2ps_analysis_free(&f->a);
	snprintf(h->nccl_env[0], 128, "NCCL_P2P_DISABLE=1");
	run(f);
	r = tm_find(&pair01(f)->reasons, P2PS_R_NCCL_LEVEL, -1);
	assert_non_null(strstr(r->text, "NCCL will not use P2P for this pair"));
	done(f);
}

static void test_parent_loop_is_bounded(void **state)
{
	struct fx *f = *state;
	build_switch(f);
	/* A malformed dump could make two bridges each other's parent. */
	f->h.devs[f->rp].parent_idx = f->usp;
	tm_finish(&f->h);
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_analysis_run(&f->h, &f->a, &err), 0);
	assert_true(f->a.gpus[0].path_looped);
	assert_int_equal(f->a.gpus[0].path_len, P2PS_PATH_MAX);
	done(f);
}

static void test_helpers(void **state)
{
	(void)state;
	char buf[128];
	assert_string_equal(p2ps_acs_format(0x1d, buf, sizeof(buf)),
	                    "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
	                    "DirectTrans-");
	assert_int_equal(p2ps_acs_redirect_bits(0x7f), 0x2c);
	assert_int_equal(p2ps_acs_ctl_without_redirect(0x7f), 0x53);
	assert_string_equal(p2ps_size_format(256 * TM_MIB, buf, sizeof(buf)), "256 MiB");
	assert_string_equal(p2ps_size_format(143771 * TM_MIB, buf, sizeof(buf)), "140.4 GiB");
	assert_string_equal(p2ps_topo_name(P2PS_TOPO_PXB), "PXB");
	assert_string_equal(p2ps_reason_code_name(P2PS_R_ACS_REDIRECT), "acs_redirect");
	for (int c = 0; c < P2PS_R_CODE_COUNT; c++)
		assert_string_not_equal(p2ps_reason_code_name((enum p2ps_reason_code)c), "?");
}

static int setup(void **state)
{
	*state = calloc(1, sizeof(struct fx));
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	done(*state);
	free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_switch_clean_is_pix_and_ready, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_switch_acs_redirect_names_bridges, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_switch_egress_control_alone_redirects, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_switch_acs_unknown_without_root, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_topology_is_symmetric, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_two_switches_is_pxb, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_root_ports_phb_and_root_acs_is_warning, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_host_bridges_node_and_sys, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_nvlink_pair_is_moot, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_nvswitch_links_count, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_iommu_modes, setup, teardown),
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
	        cmocka_unit_test_setup_teardown(test_ancestor_peer_and_nvlink_unknown, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_missing_bridge_is_unknown, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_nccl_level, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_parent_loop_is_bounded, setup, teardown),
	        cmocka_unit_test(test_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
