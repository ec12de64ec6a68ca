/* SPDX-License-Identifier: MIT */
/* GPUDirect RDMA verdicts on constructed hosts, one rule at a time. Expected outcomes come
 * from NVIDIA's "GPUDirect RDMA" guide (CUDA 13.0 edition: 5.4 Supported Systems and
 * IOMMUs, 5.5 PCI BAR sizes, 6.7 Using nvidia-peermem, 4.2 the R515-R535 race and the
 * releases that fix it) and from NCCL's ncclTopoCheckGdr (src/graph/paths.cc: GDR when the
 * GPU-NIC path is no farther than NCCL_NET_GDR_LEVEL, PXB by default). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"
#include "p2pscope/render.h"

struct host {
	struct p2ps_host h;
	struct p2ps_analysis a;
	int gpu, nic, rp, dsp_gpu, dsp_nic;
};

/* A root port, a PLX switch, a GPU and a ConnectX-6 (15b3:101b, class 0207) on two of its
 * downstream ports; IOMMU off, nvidia-peermem loaded, open modules on kernel 6.8. */
static void build(struct host *t)
{
	struct p2ps_host *h = &t->h;
	tm_init(h);
	t->rp = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	int usp = tm_bridge(h, "0000:01:00.0", P2PS_PCIE_SWITCH_UPSTREAM, t->rp);
	t->dsp_gpu = tm_bridge(h, "0000:02:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, usp);
	t->dsp_nic = tm_bridge(h, "0000:02:01.0", P2PS_PCIE_SWITCH_DOWNSTREAM, usp);
	t->gpu = tm_gpu(h, "0000:03:00.0", 0x2684, t->dsp_gpu);
	t->nic = tm_dev(h, "0000:04:00.0", 0x15b3, 0x101b, 0x020700, t->dsp_nic);
	h->rdma.known = true;
	h->rdma.nvidia_peermem = true;
	snprintf(h->kernel, sizeof(h->kernel), "6.8.0-45-generic");
	snprintf(h->nvidia.proc_version, sizeof(h->nvidia.proc_version),
	         "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.51.02  Release "
	         "Build");
}

static const struct p2ps_gdr_pair *run(struct host *t, const struct p2ps_analysis_opts *o)
{
	struct p2ps_error err;
	tm_finish(&t->h);
	p2ps_error_clear(&err);
	assert_int_equal(p2ps_analysis_run_opts(&t->h, o, &t->a, &err), 0);
	return t->a.n_gdr ? &t->a.gdr[0] : NULL;
}

static void done(struct host *t)
{
	p2ps_analysis_free(&t->a);
	p2ps_host_free(&t->h);
}

static const struct p2ps_reason *find(const struct p2ps_gdr_pair *p, enum p2ps_reason_code c)
{
	return tm_find(&p->reasons, c, -2);
}

static void test_switch_only_is_best(void **state)
{
	struct host t;
	(void)state;
	build(&t);
	const struct p2ps_gdr_pair *p = run(&t, NULL);
	assert_int_equal(t.a.n_rdma_devs, 1);
	assert_int_equal(t.a.n_gdr, 1);
	assert_int_equal(p->dev_idx, t.nic);
	assert_int_equal(p->topo, P2PS_TOPO_PIX); /* 5.4: "PCIe switches only" */
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	assert_int_equal(find(p, P2PS_R_GDR_PATH)->sev, P2PS_SEV_INFO);
	assert_int_equal(find(p, P2PS_R_GDR_PEER_MEMORY)->sev, P2PS_SEV_INFO);
	assert_int_equal(p->nccl_gdr, 1); /* PIX <= PXB */
	assert_null(find(p, P2PS_R_GDR_DRIVER_RACE));
	done(&t);
}

/* The NIC on a second root port of the same root complex: through the CPU. */
static void move_nic_to_root_port(struct host *t, int numa)
{
	int rp2 = tm_bridge(&t->h, "0000:00:02.0", P2PS_PCIE_ROOT_PORT, -1);
	t->h.devs[t->nic].parent_idx = rp2;
	t->h.devs[t->nic].numa_node = numa;
	t->h.devs[rp2].numa_node = numa;
}

static void test_through_cpu_warns_and_nccl_declines(void **state)
{
	struct host t;
	(void)state;
	build(&t);
	move_nic_to_root_port(&t, 0);
	const struct p2ps_gdr_pair *p = run(&t, NULL);
	assert_int_equal(p->topo, P2PS_TOPO_PHB); /* 5.4: "single CPU/IOH": works, slower */
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	assert_int_equal(find(p, P2PS_R_GDR_PATH)->sev, P2PS_SEV_WARNING);
	assert_int_equal(p->nccl_gdr, 0); /* PHB is beyond NCCL's default PXB */
	assert_non_null(strstr(find(p, P2PS_R_GDR_NCCL)->fix, "NCCL_NET_GDR_LEVEL=PHB"));
	done(&t);
}

static void test_nccl_gdr_level_names_and_numbers(void **state)
{
	static const struct {
		const char *value;
		int gdr;
	} cases[] = {{"PHB", 1}, {"SYS", 1}, {"PXB", 0}, {"PIX", 0},
	             {"3", 1},   {"2", 0},   {"LOC", 0}};
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct host t;
		build(&t);
		move_nic_to_root_port(&t, 0);
		snprintf(t.h.nccl_env[0], sizeof(t.h.nccl_env[0]), "NCCL_NET_GDR_LEVEL=%s",
		         cases[k].value);
		t.h.n_nccl_env = 1;
		const struct p2ps_gdr_pair *p = run(&t, NULL);
		assert_int_equal(p->nccl_gdr, cases[k].gdr);
		done(&t);
	}
}

static void test_other_socket_blocks(void **state)
{
	struct host t;
	(void)state;
	build(&t);
	int rp2 = tm_bridge(&t.h, "0000:80:01.0", P2PS_PCIE_ROOT_PORT, -1);
	t.h.devs[rp2].numa_node = 1;
	t.h.devs[t.nic].parent_idx = rp2;
	t.h.devs[t.nic].numa_node = 1;
	const struct p2ps_gdr_pair *p = run(&t, NULL);
	assert_int_equal(p->topo, P2PS_TOPO_SYS); /* 5.4: across QPI/HT may not work */
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	assert_int_equal(find(p, P2PS_R_GDR_PATH)->sev, P2PS_SEV_BLOCKER);
	done(&t);
}

static void test_translating_iommu_blocks(void **state)
{
	struct host t;
	(void)state;
	build(&t);
	t.h.iommu.present = true;
	snprintf(t.h.iommu.kind, sizeof(t.h.iommu.kind), "intel");
	snprintf(t.h.devs[t.nic].iommu_domain_type, 16, "DMA-FQ");
	snprintf(t.h.devs[t.gpu].iommu_domain_type, 16, "identity");
	const struct p2ps_gdr_pair *p = run(&t, NULL);
	/* 5.4, IOMMUs: off or pass-through only. */
	const struct p2ps_reason *x = find(p, P2PS_R_IOMMU_TRANSLATING);
	assert_non_null(x);
	assert_int_equal(x->dev_idx, t.nic);
	assert_non_null(strstr(x->fix, "iommu=pt"));
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	done(&t);
}

static void test_acs_redirect_on_switch_blocks(void **state)
{
	struct host t;
	(void)state;
	build(&t);
	tm_acs(&t.h.devs[t.dsp_nic], 0x7f, 0x1d); /* SV RR CR UF */
	const struct p2ps_gdr_pair *p = run(&t, NULL);
	const struct p2ps_reason *x = tm_find(&p->reasons, P2PS_R_ACS_REDIRECT, t.dsp_nic);
	assert_non_null(x);
	assert_int_equal(x->sev, P2PS_SEV_BLOCKER);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	done(&t);
}

static enum p2ps_severity peer_memory_sev(struct host *t)
{
	const struct p2ps_gdr_pair *p = run(t, NULL);
	enum p2ps_severity s = find(p, P2PS_R_GDR_PEER_MEMORY)->sev;
	done(t);
	return s;
}

static void test_peer_memory(void **state)
{
	struct host t;
	(void)state;
	/* 6.7: no service loads nvidia-peermem. Open modules on 5.12+ export dma-buf. */
	build(&t);
	t.h.rdma.nvidia_peermem = false;
	assert_int_equal(peer_memory_sev(&t), P2PS_SEV_INFO);

	build(&t);
	t.h.rdma.nvidia_peermem = false;
	snprintf(t.h.nvidia.proc_version, sizeof(t.h.nvidia.proc_version),
	         "NVRM version: NVIDIA UNIX x86_64 Kernel Module  575.51.02  Release Build");
	assert_int_equal(peer_memory_sev(&t), P2PS_SEV_BLOCKER);

	build(&t);
	t.h.rdma.nvidia_peermem = false;
	snprintf(t.h.kernel, sizeof(t.h.kernel), "5.4.0-150-generic");
	assert_int_equal(peer_memory_sev(&t), P2PS_SEV_BLOCKER);

	build(&t);
	t.h.rdma.nvidia_peermem = false;
	t.h.rdma.nv_peer_mem = true; /* deprecated since R470 (4.2) */
	assert_int_equal(peer_memory_sev(&t), P2PS_SEV_WARNING);

	build(&t);
	t.h.rdma.known = false; /* a dump cannot show loaded modules */
	t.h.backend_name = "lspci-dump";
	const struct p2ps_gdr_pair *p = run(&t, NULL);
	assert_int_equal(find(p, P2PS_R_GDR_PEER_MEMORY)->sev, P2PS_SEV_UNKNOWN);
	assert_int_equal(p->verdict, P2PS_VERDICT_UNKNOWN);
	done(&t);
}

static void test_driver_race_range(void **state)
{
	/* 4.2: R515 up to R535 race, except R525 from 525.105.17 and R535 from 535.14. */
	static const struct {
		const char *version;
		bool race;
	} cases[] = {{"510.108.03", false}, {"515.65.01", true},   {"520.61.05", true},
	             {"525.85.12", true},   {"525.105.17", false}, {"530.30.02", true},
	             {"535.10", true},      {"535.14", false},     {"535.129.03", false},
	             {"580.159.04", false}};
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct host t;
		build(&t);
		snprintf(t.h.nvidia.proc_driver_version, sizeof(t.h.nvidia.proc_driver_version),
		         "%s", cases[k].version);
		const struct p2ps_gdr_pair *p = run(&t, NULL);
		if (cases[k].race)
			assert_non_null(find(p, P2PS_R_GDR_DRIVER_RACE));
		else
			assert_null(find(p, P2PS_R_GDR_DRIVER_RACE));
		done(&t);
	}
}

static void test_which_devices_pair(void **state)
{
	struct host t;
	(void)state;
	build(&t);
	/* An Intel Ethernet function is no RDMA device by its IDs; one the kernel lists
	 * under /sys/class/infiniband is, whatever its vendor. An NVMe drive pairs only when
	 * named with --peers. */
	int eth = tm_dev(&t.h, "0000:05:00.0", 0x8086, 0x1533, 0x020000, -1);
	int efa = tm_dev(&t.h, "0000:06:00.0", 0x1d0f, 0xefa1, 0x020000, -1);
	int nvme = tm_dev(&t.h, "0000:07:00.0", 0x144d, 0xa808, 0x010802, -1);
	snprintf(t.h.rdma.devs[0].name, sizeof(t.h.rdma.devs[0].name), "rdmap6s0");
	t.h.rdma.devs[0].bdf = t.h.devs[efa].bdf;
	t.h.rdma.n_devs = 1;
	struct p2ps_bdf peers[1] = {t.h.devs[nvme].bdf};
	struct p2ps_analysis_opts o = {.peers = peers, .n_peers = 1};
	run(&t, &o);
	assert_int_equal(t.a.n_rdma_devs, 2);
	assert_int_equal(t.a.n_gdr, 3);
	bool seen[3] = {false, false, false};
	for (size_t k = 0; k < t.a.n_gdr; k++) {
		const struct p2ps_gdr_pair *p = &t.a.gdr[k];
		assert_int_not_equal(p->dev_idx, eth);
		seen[0] |= p->dev_idx == t.nic;
		if (p->dev_idx == efa) {
			seen[1] = true;
			assert_string_equal(p->rdma_name, "rdmap6s0");
		}
		if (p->dev_idx == nvme) {
			seen[2] = true;
			assert_int_equal(p->nccl_gdr, -1); /* NCCL does not use a drive */
		}
	}
	assert_true(seen[0] && seen[1] && seen[2]);
	done(&t);
}

static void test_no_nic_one_line(void **state)
{
	struct host t;
	struct p2ps_strbuf b = {0};
	struct p2ps_error err;
	(void)state;
	build(&t);
	t.h.devs[t.nic].vendor_id = 0x8086;
	t.h.devs[t.nic].class_code = 0x020000;
	run(&t, NULL);
	assert_int_equal(t.a.n_gdr, 0);
	p2ps_error_clear(&err);
	assert_int_equal(p2ps_render_text(&t.a, NULL, &b, &err), 0);
	assert_non_null(strstr(b.s, "GPUDirect RDMA: no RDMA NIC found"));
	free(b.s);
	done(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_switch_only_is_best),
	        cmocka_unit_test(test_through_cpu_warns_and_nccl_declines),
	        cmocka_unit_test(test_nccl_gdr_level_names_and_numbers),
	        cmocka_unit_test(test_other_socket_blocks),
	        cmocka_unit_test(test_translating_iommu_blocks),
	        cmocka_unit_test(test_acs_redirect_on_switch_blocks),
	        cmocka_unit_test(test_peer_memory),
	        cmocka_unit_test(test_driver_race_range),
	        cmocka_unit_test(test_which_devices_pair),
	        cmocka_unit_test(test_no_nic_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
