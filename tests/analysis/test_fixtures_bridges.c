/* SPDX-License-Identifier: MIT */
/* The analysis on real bridge trees: pciutils' own test dumps
 * (../shared/fixtures/pciutils-tests/, real machines; their cases skip when absent, fail
 * under CI=true) and a QEMU guest's snapshot (tests/fixtures/qemu-switch/): the path,
 * topology class and ACS facts bar-inspect derives from the bridge tree. */
#include "fixture_load.h"

/* X58 board with an NVIDIA NF200 switch (upstream 02:00.0, downstream 03:00.0/03:02.0)
 * and a GeForce 210 on root port 00:07.0. */
static void test_asus_p6t6_tree(void **state)
{
	(void)state;
	struct load l;
	const char *dump = p2ps_test_shared_path("fixtures/pciutils-tests/tree-asus-p6t6.txt");
	load(&l, P2PS_HOST_LSPCI_DUMP, dump);
	const struct p2ps_host *h = &l.h;
	int lca, turn[2];
	int nic = dev_index(h, "04:00.0"), gpu = dev_index(h, "06:00.0"),
	    gpu_audio = dev_index(h, "06:00.1");
	int usp = dev_index(h, "02:00.0"), dsp0 = dev_index(h, "03:00.0"),
	    dsp2 = dev_index(h, "03:02.0");
	int rp = dev_index(h, "00:07.0");
	/* Through the NF200 and root port 00:03.0, over to root port 00:07.0: PHB. */
	assert_int_equal(p2ps_topo_classify(h, nic, gpu, &lca, turn), P2PS_TOPO_PHB);
	assert_int_equal(lca, -1);
	assert_int_equal(turn[0], dev_index(h, "00:03.0"));
	assert_int_equal(turn[1], rp);
	/* The GPU's two functions meet at their root port: one bridge. */
	assert_int_equal(p2ps_topo_classify(h, gpu, gpu_audio, &lca, turn), P2PS_TOPO_PIX);
	assert_int_equal(lca, rp);
	/* Below the switch: the device under 03:00.0 and the empty port 03:02.0 meet at the
	 * upstream port. */
	assert_int_equal(p2ps_topo_classify(h, nic, dsp2, &lca, turn), P2PS_TOPO_PIX);
	assert_int_equal(lca, usp);
	assert_int_equal(turn[0], dsp0);
	/* Bus ff (the X58's uncore devices) hangs under another host bridge; a dump has no
	 * NUMA nodes, so the class is NODE. */
	assert_int_equal(p2ps_topo_classify(h, gpu, dev_index(h, "ff:00.0"), &lca, turn),
	                 P2PS_TOPO_NODE);

	assert_int_equal(l.a.n_gpus, 1);
	const struct p2ps_gpu_report *g = &l.a.gpus[0];
	assert_int_equal(g->dev_idx, gpu);
	assert_int_equal(g->path_len, 1);
	assert_int_equal(g->path[0], rp);
	assert_int_equal(g->bar1_index, 1); /* GeForce: 32-bit BAR0, BAR1 at register 1 */
	/* A dump carries no sizes and no IOMMU state: said so, not guessed. */
	assert_false(g->bar1_size_known);
	assert_int_equal(g->iommu, P2PS_IOMMU_UNKNOWN);
	bool bar1_unknown = false;
	for (size_t i = 0; i < g->reasons.n; i++)
		bar1_unknown |= g->reasons.v[i].code == P2PS_R_BAR1_UNKNOWN;
	assert_true(bar1_unknown);
	unload(&l);
}

/* Sunrise Point root port with ACS (capable of SV TB RR CR, nothing enabled) above a
 * GP108M (MX150): ACS decoded, Pascal flagged as outside the open kernel modules. */
static void test_sunrise_point_acs(void **state)
{
	(void)state;
	struct load l;
	const char *dump = p2ps_test_shared_path("fixtures/pciutils-tests/cap-exp-lnkcap2.txt");
	load(&l, P2PS_HOST_LSPCI_DUMP, dump);
	int rp = dev_index(&l.h, "00:1c.0");
	const struct p2ps_dev *d = &l.h.devs[rp];
	assert_true(d->acs.present);
	char buf[128];
	/* The strings lspci -vv prints for this dump. */
	assert_string_equal(p2ps_acs_format(d->acs.cap, buf, sizeof(buf)),
	                    "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- "
	                    "DirectTrans-");
	assert_int_equal(p2ps_acs_redirect_bits(d->acs.ctl), 0);
	assert_int_equal(l.a.n_gpus, 1);
	const struct p2ps_gpu_report *g = &l.a.gpus[0];
	assert_int_equal(g->path_len, 1);
	assert_int_equal(g->path[0], rp);
	bool pascal = false;
	for (size_t i = 0; i < g->reasons.n; i++)
		pascal |= g->reasons.v[i].code == P2PS_R_GENERATION_UNSUPPORTED &&
		          strstr(g->reasons.v[i].text, "GP108") != NULL;
	assert_true(pascal);
	unload(&l);
}

/* ---- the QEMU guest: a real kernel's view of a PCIe switch, root ports with ACS and an
 * Intel IOMMU (tests/fixtures/qemu-switch/README.md). QEMU cannot present an NVIDIA GPU,
 * so the three ivshmem functions with 4/8/16 GiB prefetchable BARs are the peers. */

static const char *const qemu_peers[] = {"0000:03:00.0", "0000:04:00.0", "0000:06:00.0"};

static const struct p2ps_reason *find(const struct p2ps_reasons *r, enum p2ps_reason_code code,
                                      int dev_idx)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].code == code && r->v[i].dev_idx == dev_idx)
			return &r->v[i];
	return NULL;
}

/* The ACSCtl line lspci -vvv printed inside the guest for bdf, whitespace-normalised. */
static bool lspci_acsctl(const char *vvv, const char *bdf, char *out, size_t size)
{
	char *text = slurp(vvv);
	assert_non_null(text);
	char head[32];
	snprintf(head, sizeof(head), "\n%s ", bdf);
	const char *blk = strstr(text, head);
	bool found = false;
	if (blk) {
		const char *end = strstr(blk + 1, "\n\n");
		const char *acs = strstr(blk, "ACSCtl:");
		if (acs && (!end || acs < end)) {
			acs += strlen("ACSCtl:");
			while (*acs == ' ' || *acs == '\t')
				acs++;
			size_t n = strcspn(acs, "\n");
			snprintf(out, size, "%.*s", (int)n, acs);
			found = true;
		}
	}
	free(text);
	return found;
}

static void check_qemu_classes(const struct load *l)
{
	assert_int_equal(l->a.n_gpus, 3);
	for (size_t i = 0; i < 3; i++)
		assert_false(l->a.gpus[i].is_gpu);
	/* 03:00.0 and 04:00.0 under one x3130 switch; 06:00.0 on another root port. */
	assert_int_equal(l->a.matrix[0 * 3 + 1], P2PS_TOPO_PIX);
	assert_int_equal(l->a.matrix[0 * 3 + 2], P2PS_TOPO_PHB);
	assert_int_equal(l->a.matrix[1 * 3 + 2], P2PS_TOPO_PHB);
	const struct p2ps_pair *p = p2ps_analysis_pair(&l->a, 0, 1);
	assert_int_equal(p->lca_idx, dev_index(&l->h, "01:00.0"));
	assert_int_equal(p->turn[0], dev_index(&l->h, "02:00.0"));
	assert_int_equal(p->turn[1], dev_index(&l->h, "02:01.0"));
	/* The peer window is the 64-bit prefetchable BAR2 the test sized. */
	assert_int_equal(l->a.gpus[0].bar1_index, 2);
	if (l->a.gpus[2].bar1_size_known)
		assert_true(l->a.gpus[2].bar1_size == 16ull << 30);
}

static void test_qemu_switch_acs_on(void **state)
{
	(void)state;
	const char *root = repo_fixture("tests/fixtures/qemu-switch/acs-on");
	struct load l;
	load_peers(&l, P2PS_HOST_SNAPSHOT, root, qemu_peers, 3);
	check_qemu_classes(&l);
	assert_true(l.h.iommu.present);
	int rp1 = dev_index(&l.h, "00:01.0"), rp2 = dev_index(&l.h, "00:02.0");
	/* The kernel's ACS control on the root port, as lspci decoded it in the guest. */
	char want[128], got[128];
	char vvv[4200];
	snprintf(vvv, sizeof(vvv), "%s/p2pscope/lspci-vvv.txt", root);
	assert_true(lspci_acsctl(vvv, "0000:00:01.0", want, sizeof(want)));
	assert_true(l.h.devs[rp1].acs.present);
	assert_string_equal(p2ps_acs_format(l.h.devs[rp1].acs.ctl, got, sizeof(got)), want);

	/* Within the switch: no ACS on the downstream ports, so the requests turn there and
	 * never meet the IOMMU: translation is a warning, the pair is ready. */
	const struct p2ps_pair *p = p2ps_analysis_pair(&l.a, 0, 1);
	const struct p2ps_reason *r =
	        find(&p->reasons, P2PS_R_IOMMU_TRANSLATING, l.a.gpus[0].dev_idx);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_WARNING);
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	/* Across root ports: through the root complex, translated (DMA-FQ): not ready, and
	 * both root ports redirect (warnings, with the setpci value for ctl 0x1d). */
	p = p2ps_analysis_pair(&l.a, 0, 2);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	r = find(&p->reasons, P2PS_R_IOMMU_TRANSLATING, l.a.gpus[2].dev_idx);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_BLOCKER);
	r = find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp1);
	assert_non_null(r);
	char fix[96];
	snprintf(fix, sizeof(fix), "setpci -s 0000:00:01.0 ECAP_ACS+0x6.w=%04x",
	         p2ps_acs_ctl_without_redirect(l.h.devs[rp1].acs.ctl));
	assert_non_null(strstr(r->fix, fix));
	assert_non_null(find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp2));
	unload(&l);

	/* The guest's own lspci -xxxx dump gives the same tree and classes. */
	char dump[4200];
	snprintf(dump, sizeof(dump), "%s/p2pscope/lspci-xxxx.txt", root);
	load_peers(&l, P2PS_HOST_LSPCI_DUMP, dump, qemu_peers, 3);
	check_qemu_classes(&l);
	assert_int_equal(p2ps_analysis_pair(&l.a, 0, 2)->verdict, P2PS_VERDICT_UNKNOWN);
	unload(&l);
}

static void test_qemu_switch_acs_off(void **state)
{
	(void)state;
	const char *root = repo_fixture("tests/fixtures/qemu-switch/acs-off");
	struct load l;
	load_peers(&l, P2PS_HOST_SNAPSHOT, root, qemu_peers, 3);
	check_qemu_classes(&l);
	int rp1 = dev_index(&l.h, "00:01.0"), rp2 = dev_index(&l.h, "00:02.0");
	/* disable-acs=on: no capability on 00:01.0, so no redirect reason for it; the
	 * switch and its endpoints collapse into one IOMMU group. */
	assert_false(l.h.devs[rp1].acs.present);
	assert_null(p2ps_dev_unknown(&l.h.devs[rp1], P2PS_FACT_ACS));
	const struct p2ps_pair *p = p2ps_analysis_pair(&l.a, 0, 2);
	assert_null(find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp1));
	assert_non_null(find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp2));
	const struct p2ps_dev *d0 = &l.h.devs[l.a.gpus[0].dev_idx];
	const struct p2ps_dev *d1 = &l.h.devs[l.a.gpus[1].dev_idx];
	assert_true(d0->iommu_group >= 0);
	assert_int_equal(d0->iommu_group, d1->iommu_group);
	assert_int_equal(p2ps_analysis_pair(&l.a, 0, 1)->verdict, P2PS_VERDICT_READY);
	unload(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_asus_p6t6_tree),
	        cmocka_unit_test(test_sunrise_point_acs),
	        cmocka_unit_test(test_qemu_switch_acs_on),
	        cmocka_unit_test(test_qemu_switch_acs_off),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
