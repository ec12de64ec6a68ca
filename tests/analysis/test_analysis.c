/* SPDX-License-Identifier: MIT */
/* The analysis on constructed host models: topology classes (PIX, PXB, PHB, NODE, SYS,
 * NV#), ACS redirect on named bridges, NCCL levels and bounded walks — each verdict and
 * reason checked on a model built for it (the per-GPU and host checks are in
 * test_analysis_gpu.c). */
#include "analysis_fx.h"
#include "p2pscope/paste_report.h"

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
	assert_null(f->a.paste); /* a live or snapshot host: no paste observations */
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
	assert_int_equal(pair01(f)->nccl_p2p, 0);
	assert_int_equal(pair01(f)->nccl_level, P2PS_NCCL_PXB);
	assert_string_equal(pair01(f)->nccl_level_from, "NCCL_P2P_LEVEL");
	p2ps_analysis_free(&f->a);
	/* Names of NCCL's path types (topoPathTypeStr), and an old number above 4 is SYS
	 * (levelsOldToNew clamps it). */
	static const struct {
		const char *value;
		int level, p2p;
	} levels[] = {{"PHB", P2PS_NCCL_PHB, 1}, {"P2C", P2PS_NCCL_P2C, 0},
	              {"NVL", P2PS_NCCL_NVL, 0}, {"SYS", P2PS_NCCL_SYS, 1},
	              {"3", P2PS_NCCL_PHB, 1},   {"7", P2PS_NCCL_SYS, 1}};
	for (size_t k = 0; k < sizeof(levels) / sizeof(levels[0]); k++) {
		snprintf(h->nccl_env[0], 128, "NCCL_P2P_LEVEL=%s", levels[k].value);
		run(f);
		assert_int_equal(pair01(f)->nccl_level, levels[k].level);
		assert_int_equal(pair01(f)->nccl_p2p, levels[k].p2p);
		p2ps_analysis_free(&f->a);
	}
	snprintf(h->nccl_env[0], 128, "NCCL_P2P_DISABLE=1");
	run(f);
	r = tm_find(&pair01(f)->reasons, P2PS_R_NCCL_LEVEL, -1);
	assert_non_null(strstr(r->text, "NCCL will not use P2P for this pair"));
	assert_int_equal(pair01(f)->nccl_p2p, 0);
	assert_int_equal(pair01(f)->nccl_level, P2PS_NCCL_LOC);
	assert_string_equal(pair01(f)->nccl_level_from, "NCCL_P2P_DISABLE");
	p2ps_analysis_free(&f->a);
	/* NCCL disables P2P only when the value reads as 1 (ncclGetLevel: strtol(...) == 1):
	 * 2 leaves the default level, PXB on an Intel host. */
	h->devs[0].vendor_id = 0x8086;
	snprintf(h->nccl_env[0], 128, "NCCL_P2P_DISABLE=2");
	run(f);
	assert_int_equal(pair01(f)->nccl_level, P2PS_NCCL_PXB);
	assert_string_equal(pair01(f)->nccl_level_from, "default");
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
	for (int c = P2PS_PF_DRIVER; c < P2PS_PF_CODE_END; c++)
		assert_string_not_equal(p2ps_paste_finding_name((enum p2ps_reason_code)c), "?");
	assert_string_equal(p2ps_paste_finding_name(P2PS_PF_IOMMU_FAULT), "iommu_fault");
}

/* Every reason of the analysis has a title (what --fleet groups hosts under), found by
 * its JSON code; the names and titles are one table. */
static void test_every_reason_has_a_title(void **state)
{
	(void)state;
	for (int c = 0; c < P2PS_R_CODE_COUNT; c++) {
		const char *t = p2ps_reason_code_title((enum p2ps_reason_code)c);
		assert_non_null(t);
		assert_true(t[0] != '\0');
		const char *by_name =
		        p2ps_reason_title(p2ps_reason_code_name((enum p2ps_reason_code)c));
		assert_ptr_equal(by_name, t);
	}
	assert_string_equal(p2ps_reason_title("iommu_translating"), "IOMMU translates peer DMA");
	assert_null(p2ps_reason_title("no_such_reason"));
	assert_null(p2ps_reason_code_title(P2PS_PF_DRIVER));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_every_reason_has_a_title),
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
	        cmocka_unit_test_setup_teardown(test_ancestor_peer_and_nvlink_unknown, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_missing_bridge_is_unknown, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_nccl_level, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_parent_loop_is_bounded, setup, teardown),
	        cmocka_unit_test(test_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
