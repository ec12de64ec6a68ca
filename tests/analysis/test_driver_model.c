/* SPDX-License-Identifier: MIT */
/* The driver model's golden cases: every expected status below was read off the NVIDIA
 * driver's source (function and tag in the comment beside it), never from the model. */
#include <stdlib.h>
#include <string.h>

#include "analysis_fx.h"
#include "../../src/host/analysis/driver_internal.h"
#include "p2pscope/driver_model.h"

#define GB202 0x2b85 /* RTX 5090 */
#define GB203 0x2c05 /* RTX 5070 Ti */
#define GH100 0x2330 /* H100 SXM */

struct dm {
	struct fx f;
	struct p2ps_drv_config cfg;
	struct p2ps_drv_report r;
};

static void model(struct dm *m, const char *spec)
{
	char err[160] = "";
	struct p2ps_error e = {0};
	tm_finish(&m->f.h);
	assert_int_equal(p2ps_drv_config_make(&m->f.h, spec, NULL, &m->cfg, err, sizeof(err)), 0);
	struct p2ps_analysis_opts ao = {.driver = &m->cfg};
	assert_int_equal(p2ps_analysis_run_opts(&m->f.h, &ao, &m->f.a, &e), 0);
	assert_int_equal(p2ps_drv_model_run(&m->f.a, &m->cfg, &m->r), 0);
}

static void finish(struct dm *m)
{
	p2ps_drv_report_free(&m->r);
	done(&m->f);
}

static const struct p2ps_drv_pair *pair(const struct dm *m)
{
	assert_int_equal(m->r.n_pairs, 1);
	return &m->r.pairs[0];
}

/* Two GPUs on two Intel root ports (no switch): a bare PHB pair. */
static void build_root_ports(struct fx *f, uint16_t rp_device, uint16_t gpu, bool two_hubs)
{
	struct p2ps_host *h = &f->h;
	tm_init(h);
	f->rp = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	f->usp = tm_bridge(h, two_hubs ? "0000:80:01.0" : "0000:00:02.0", P2PS_PCIE_ROOT_PORT, -1);
	h->devs[f->rp].device_id = h->devs[f->usp].device_id = rp_device;
	f->g0 = tm_gpu(h, "0000:03:00.0", gpu, f->rp);
	f->g1 = tm_gpu(h, two_hubs ? "0000:83:00.0" : "0000:04:00.0", gpu, f->usp);
}

static void test_config_series_and_registry(void **state)
{
	(void)state;
	struct p2ps_drv_config c;
	char err[160];
	/* A series newer than the driver table's newest: named, modelled as the newest row,
	 * said to be assumed. */
	bool exact;
	const struct p2ps_nv_driver *newest =
	        p2ps_nv_driver_find(P2PS_NV_SERIES_NONE, P2PS_NV_FLAVOR_STOCK, &exact);
	char spec[16], want[64];
	snprintf(spec, sizeof(spec), "%u", newest->series + 15);
	assert_int_equal(p2ps_drv_config_make(NULL, spec, NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(c.series, (int)newest->series + 15);
	assert_int_equal(c.model_series, (int)newest->series);
	assert_ptr_equal(c.row, newest);
	assert_false(c.row_exact);
	snprintf(want, sizeof(want), "%s stock has no row in the driver table", spec);
	assert_non_null(strstr(c.note, want));
	assert_non_null(strstr(c.note, "(assumed)"));
	assert_int_equal(p2ps_drv_config_make(NULL, "565-tinygrad", NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(c.flavor, P2PS_NV_FLAVOR_TINYGRAD);
	assert_int_equal(c.model_series, 565);
	assert_int_equal(p2ps_drv_config_make(NULL, "58x", NULL, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--driver"));
	assert_int_equal(p2ps_drv_config_make(NULL, "580", "nvidia", &c, err, sizeof(err)), -1);
	/* Key names of nvrm_registry.h (595.45.04): RMForceP2PType, RMPcieP2PType. */
	struct p2ps_drv_regkeys r = {-1, -1, -1, -1, -1, -1};
	assert_int_equal(p2ps_drv_registry_parse("RMForceP2PType=1;RMPcieP2PType=0x2;Other=5", &r),
	                 2);
	assert_int_equal(r.force_p2p_type, 1);
	assert_int_equal(r.pcie_p2p_type, 2);
	assert_int_equal(p2ps_drv_registry_parse("RMForceP2PType", &r), -1);
	assert_int_equal(p2ps_drv_registry_parse("ForceP2P=0x11 ;", &r), -1); /* blank in value */
	enum p2ps_nv_status st;
	assert_int_equal(p2ps_nv_status_parse("TNS", &st), 0);
	assert_int_equal(st, P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED);
	assert_int_equal(p2ps_nv_status_parse("DISABLED_BY_REGKEY", &st), 0);
	assert_int_equal(st, P2PS_NV_ST_DISABLED_BY_REGKEY);
	assert_int_equal(p2ps_nv_status_parse("maybe", &st), -1);
}

/* IOH: _kp2pCapsGetStatusOverPcie (580.65.06): root ports 0x2f01..0x2f0b on different
 * buses => IOH_TOPOLOGY_NOT_SUPPORTED for read and write; atomics never over mailbox. */
static void test_ioh_two_hubs(void **state)
{
	struct dm *m = *state;
	build_root_ports(&m->f, 0x2f02, AD102, true);
	model(m, "580");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED);
	assert_int_equal(p->st[P2PS_NV_CAPS_WRITE], P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED);
	assert_int_equal(p->gate[P2PS_NV_CAPS_READ], P2PS_NV_GATE_IOH);
	assert_int_equal(p->st[P2PS_NV_CAPS_ATOMICS], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(p->chosen, P2PS_NV_PATH_NONE);
	assert_string_equal(p2ps_nv_status_code(p->st[P2PS_NV_CAPS_READ]), "TNS");
	finish(m);
}

/* Same hub: the IOH gate passes; the rest is GSP's answer, which the model leaves U. */
static void test_one_hub_goes_to_gsp(void **state)
{
	struct dm *m = *state;
	build_root_ports(&m->f, 0x2f02, AD102, false);
	model(m, "580");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_MAILBOX].read.gate, P2PS_NV_GATE_GSP);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_UNKNOWN);
	/* 580.65.06 RMPcieP2PType defaults to MAILBOX: BAR1 never tried without the key. */
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_BAR1].read.gate, P2PS_NV_GATE_PCIE_P2P_TYPE);
	assert_non_null(strstr(p->fix, "RMPcieP2PType=1"));
	finish(m);
}

/* GeForce under a stock driver: GSP's answer is GPU_NOT_SUPPORTED, as nvidia-smi topo -p2p
 * printed GNS for 2 x RTX 5090 on driver 580-series (club-3090 issue 1124, a capture: GSP's
 * code is not public). */
static void test_geforce_stock_gns(void **state)
{
	struct dm *m = *state;
	build_root_ports(&m->f, 0x1483, AD102, false);
	for (int k = 0; k < 2; k++)
		snprintf(m->f.h.devs[k ? m->f.g1 : m->f.g0].device_name, P2PS_HOST_NAME_MAX,
		         "AD102 [GeForce RTX 4090]");
	model(m, "580");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_GPU_NOT_SUPPORTED);
	assert_int_equal(p->gate[P2PS_NV_CAPS_WRITE], P2PS_NV_GATE_GSP);
	assert_int_equal(p->chosen, P2PS_NV_PATH_NONE);
	finish(m);
}

/* Both GPUs in a VM, each with the virtual P2P approval capability (vendor cap 0x09,
 * signature 0x503250, version 0) carrying clique id clique[k] in bits 22:19 of the second
 * dword (objClLoadPcieVirtualP2PApproval, nvpcie.h; 595.45.04). */
static void vm_cliques(struct dm *m, const unsigned clique[2])
{
	build_root_ports(&m->f, 0x1483, AD102, false);
	m->f.h.vm.in_vm = true;
	for (int k = 0; k < 2; k++) {
		uint8_t *c = m->f.h.devs[k ? m->f.g1 : m->f.g0].config;
		c[0x34] = 0xc8;
		const uint8_t cap[8] = {
		        0x09, 0x00, 0x08, 0x50, 0x32, 0x50, (uint8_t)(clique[k] << 3), 0};
		memcpy(c + 0xc8, cap, sizeof(cap));
	}
}

/* In a VM, _kp2pCapsGetStatusOverPcie (595.45.04) says OK for read and write when
 * hypervisorPcieP2pDetection finds both GPUs in one clique of the virtual P2P approval
 * capability. */
static void test_vm_p2p_clique(void **state)
{
	struct dm *m = *state;
	vm_cliques(m, (const unsigned[2]){3, 3});
	model(m, "595");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_MAILBOX].read.st, P2PS_NV_ST_OK);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_MAILBOX].read.gate, P2PS_NV_GATE_HYPERVISOR);
	assert_int_equal(p->chosen, P2PS_NV_PATH_PCIE_MAILBOX);
	assert_int_equal(p->st[P2PS_NV_CAPS_PROP],
	                 P2PS_NV_ST_OK); /* client_resource.c: PROP for mailbox */
	finish(m);
}

/* The host finding that shows each GPU's clique as the driver reads it: clique 3 on both
 * GPUs; then GPU1 without the capability (as the Firecracker guests of the GPU machines
 * show: PM, MSI, Express, MSI-X and nothing else) reads "none", and the fix names QEMU's
 * x-nv-gpudirect-clique. */
static void test_vm_clique_finding(void **state)
{
	struct dm *m = *state;
	vm_cliques(m, (const unsigned[2]){3, 3});
	m->f.h.vm.known = true;
	model(m, "595");
	const struct p2ps_reason *x = tm_find(&m->f.a.host_reasons, P2PS_R_VM_P2P_CLIQUE, -1);
	assert_non_null(x);
	assert_int_equal(x->sev, P2PS_SEV_INFO);
	const char *t = strstr(x->text, "clique 3");
	assert_non_null(t);
	assert_non_null(strstr(t + 1, "clique 3"));
	assert_string_equal(x->fix, "");
	finish(m);

	vm_cliques(m, (const unsigned[2]){3, 3});
	m->f.h.vm.known = true;
	m->f.h.devs[m->f.g1].config[0x34] = 0;
	model(m, "595");
	x = tm_find(&m->f.a.host_reasons, P2PS_R_VM_P2P_CLIQUE, -1);
	assert_non_null(x);
	assert_non_null(strstr(x->text, "clique 3"));
	assert_non_null(strstr(x->text, " none"));
	assert_non_null(strstr(x->fix, "x-nv-gpudirect-clique"));
	assert_int_equal(pair(m)->path[P2PS_NV_PATH_PCIE_MAILBOX].read.gate, P2PS_NV_GATE_GSP);
	finish(m);
}

/* _hypervisorCheckVirtualPcieP2PApproval (hypervisor.c, 595.45.04): every GPU of the
 * pair must carry the same clique id; cliques 3 and 4 approve nothing, and the decision
 * falls to GSP (unknown here). */
static void test_vm_two_cliques(void **state)
{
	struct dm *m = *state;
	vm_cliques(m, (const unsigned[2]){3, 4});
	model(m, "595");
	assert_int_equal(pair(m)->path[P2PS_NV_PATH_PCIE_MAILBOX].read.gate, P2PS_NV_GATE_GSP);
	assert_int_equal(pair(m)->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_UNKNOWN);
	finish(m);
}

/* Two H100s in a VM with a P2P clique (mailbox OK without GSP) and RMPcieP2PType=1:
 * _kp2pCapsGetStatusOverPcieBar1 (580.65.06) then asks _p2pCapsGetHostSystemStatusOverPcieBar1:
 * no common switch and an Intel family 6 model 207 CPU (cpu.c: only model 143 is XEON_SPR)
 * => read CHIPSET_NOT_SUPPORTED, BAR1 refused, the pair keeps the mailbox path; with model
 * 143 (XEON_SPR) BAR1 is the connectivity: PCI_BAR1 OK, PROP NOT_SUPPORTED
 * (client_resource.c). */
static void h100_clique(struct dm *m, int cpu_model)
{
	build_root_ports(&m->f, 0x1483, GH100, false);
	struct p2ps_host *h = &m->f.h;
	h->vm.in_vm = true;
	h->nvidia.params_known = true;
	snprintf(h->nvidia.registry_dwords, sizeof(h->nvidia.registry_dwords), "RMPcieP2PType=1");
	h->cpu = (struct p2ps_host_cpu){
	        .known = true, .vendor = "GenuineIntel", .family = 6, .model = cpu_model};
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *d = &h->devs[k ? m->f.g1 : m->f.g0];
		d->bars[1].size = 128 * TM_GIB;
		d->gpu.vram_bytes = 80 * TM_GIB;
		d->config[0x34] = 0xc8;
		const uint8_t cap[8] = {0x09, 0x00, 0x08, 0x50, 0x32, 0x50, 1 << 3, 0x00};
		memcpy(d->config + 0xc8, cap, sizeof(cap));
	}
	model(m, "580");
}

static void test_bar1_host_read_cpu(void **state)
{
	struct dm *m = *state;
	h100_clique(m, 207);
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(m->r.bar1[0].st, P2PS_NV_ST_OK);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_BAR1].read.st, P2PS_NV_ST_CHIPSET_NOT_SUPPORTED);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_BAR1].read.gate, P2PS_NV_GATE_HOST_READ);
	assert_int_equal(p->chosen, P2PS_NV_PATH_PCIE_MAILBOX);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PROP], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PCI_BAR1], P2PS_NV_ST_NOT_SUPPORTED);
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	p2ps_host_free(&m->f.h);
	h100_clique(m, 143);
	p = pair(m);
	assert_string_equal(m->r.cpu_type, "XEON_SPR");
	assert_int_equal(p->chosen, P2PS_NV_PATH_PCIE_BAR1);
	assert_int_equal(p->st[P2PS_NV_CAPS_PCI_BAR1], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PROP], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(p->st[P2PS_NV_CAPS_ATOMICS],
	                 P2PS_NV_ST_NOT_SUPPORTED); /* BAR1 atomics: not implemented */
	finish(m);
}

/* cpu.c cpuidInfoAMD: Zen 5 (Linux family 26 = 0x1A) is RYZEN from 570.86.15 (case 0x0B0),
 * K8 in 550.54.15 and 565.57.01 (default branch). */
static void test_cpu_types(void **state)
{
	(void)state;
	size_t n;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	bool reads;
	for (size_t i = 0; i < n; i++) {
		if (t[i].flavor != P2PS_NV_FLAVOR_STOCK)
			continue;
		const char *ty = p2ps_drv_cpu_type(&t[i], "AuthenticAMD", 26, 68, &reads);
		assert_string_equal(ty, t[i].series >= 570 ? "RYZEN" : "K8");
		assert_string_equal(p2ps_drv_cpu_type(&t[i], "AuthenticAMD", 25, 97, &reads),
		                    "RYZEN");
		assert_true(reads);
		assert_string_equal(p2ps_drv_cpu_type(&t[i], "GenuineIntel", 6, 207, &reads),
		                    "INTEL_OTHER");
		assert_false(reads);
	}
}

/* A PCI id and whether a predicate of the driver model holds for it. */
struct id_case {
	uint16_t vendor, device;
	bool want;
};

static void check_ids(const struct id_case *cases, size_t n, bool (*pred)(uint16_t, uint16_t),
                      const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (pred(cases[i].vendor, cases[i].device) != cases[i].want)
			fail_msg("%04x:%04x %s %d", cases[i].vendor, cases[i].device, what,
			         !cases[i].want);
}

/* pcie_switch_ref.h IS_SUPPORTED_PCIE_SWITCH (580.65.06): NVIDIA BR03 0x01B3 and BR04
 * (device >> 4 == 0x05B0 >> 4), PLX 0x87xx and 0x97xx, PMC-Sierra 0x85xx and 0x40xx,
 * Mellanox 0x1976; nothing else (Broadcom's PEX 88xxx/89xxx are vendor 0x1000). */
static void test_supported_switches(void **state)
{
	(void)state;
	static const struct id_case cases[] = {
	        {0x10de, 0x01b3, true},  {0x10de, 0x05b7, true},  {0x10de, 0x05c0, false},
	        {0x10de, 0x01b4, false}, {0x10b5, 0x8747, true},  {0x10b5, 0x9797, true},
	        {0x10b5, 0x8605, false}, {0x10b5, 0x9600, false}, {0x11f8, 0x8531, true},
	        {0x11f8, 0x4052, true},  {0x11f8, 0x8600, false}, {0x15b3, 0x1976, true},
	        {0x15b3, 0x1977, false}, {0x1000, 0xc010, false}, {0x8086, 0x8747, false}};
	check_ids(cases, sizeof(cases) / sizeof(cases[0]), p2ps_drv_supported_switch, "supported");
}

/* nvdevid.h DEVICE_ID_INTEL_*_ROOT_PORT (580.65.06), the ranges _kp2pCapsGetStatusOverPcie
 * takes as I/O-hub root ports: 3408-3411, 3C02-3C0B, 0E02-0E0B, 2F01-2F0B, 6F01-6F0B,
 * 3420, 3421. */
static void test_ioh_ports(void **state)
{
	(void)state;
	static const struct id_case cases[] = {
	        {0x8086, 0x3408, true},  {0x8086, 0x3411, true},  {0x8086, 0x3407, false},
	        {0x8086, 0x3412, false}, {0x8086, 0x3c02, true},  {0x8086, 0x3c0b, true},
	        {0x8086, 0x3c0c, false}, {0x8086, 0x0e02, true},  {0x8086, 0x0e0b, true},
	        {0x8086, 0x0e01, false}, {0x8086, 0x2f01, true},  {0x8086, 0x2f0b, true},
	        {0x8086, 0x2f00, false}, {0x8086, 0x6f01, true},  {0x8086, 0x6f0b, true},
	        {0x8086, 0x6f0c, false}, {0x8086, 0x3420, true},  {0x8086, 0x3421, true},
	        {0x8086, 0x3422, false}, {0x1022, 0x3408, false}, {0x8086, 0x2030, false}};
	check_ids(cases, sizeof(cases) / sizeof(cases[0]), p2ps_drv_intel_ioh_port, "I/O hub");
}

/* Two H100s in a P2P clique asked for BAR1 (580.65.06: RMPcieP2PType=1) with a CPU the
 * driver types INTEL_OTHER: _p2pCapsGetHostSystemStatusOverPcieBar1 lets them read only
 * through a common supported switch (clFindCommonDownstreamBR). Under a PLX PEX 9797 (0x97xx
 * is in IS_SUPPORTED_PCIE_SWITCH) BAR1 is the connectivity; under Broadcom's PEX 88096
 * (0x1000:0xc010, not in it) reads are CHIPSET_NOT_SUPPORTED and the mailbox stays. */
static void plx_switch(struct dm *m, uint16_t vendor, uint16_t device)
{
	struct fx *f = &m->f;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	h->vm.in_vm = true;
	h->nvidia.params_known = true;
	snprintf(h->nvidia.registry_dwords, sizeof(h->nvidia.registry_dwords), "RMPcieP2PType=1");
	h->cpu = (struct p2ps_host_cpu){
	        .known = true, .vendor = "GenuineIntel", .family = 6, .model = 207};
	const int ports[] = {f->usp, f->dsp0, f->dsp1};
	for (int k = 0; k < 3; k++) {
		h->devs[ports[k]].vendor_id = vendor;
		h->devs[ports[k]].device_id = device;
	}
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *d = &h->devs[k ? f->g1 : f->g0];
		d->device_id = GH100;
		d->bars[1].size = 128 * TM_GIB;
		d->rebar.e[0].sizes = 1ull << 17; /* 128 GiB only */
		d->rebar.e[0].current = 17;
		d->gpu.vram_bytes = 80 * TM_GIB;
		d->config[0x34] = 0xc8;
		const uint8_t cap[8] = {0x09, 0x00, 0x08, 0x50, 0x32, 0x50, 1 << 3, 0x00};
		memcpy(d->config + 0xc8, cap, sizeof(cap));
	}
	model(m, "580");
}

static void test_common_switch_reads(void **state)
{
	struct dm *m = *state;
	plx_switch(m, 0x10b5, 0x9797);
	assert_int_equal(pair(m)->chosen, P2PS_NV_PATH_PCIE_BAR1);
	assert_int_equal(pair(m)->st[P2PS_NV_CAPS_PCI_BAR1], P2PS_NV_ST_OK);
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	p2ps_host_free(&m->f.h);
	plx_switch(m, 0x1000, 0xc010);
	assert_int_equal(pair(m)->chosen, P2PS_NV_PATH_PCIE_MAILBOX);
	assert_int_equal(pair(m)->path[P2PS_NV_PATH_PCIE_BAR1].read.st,
	                 P2PS_NV_ST_CHIPSET_NOT_SUPPORTED);
	assert_int_equal(pair(m)->path[P2PS_NV_PATH_PCIE_BAR1].read.gate, P2PS_NV_GATE_HOST_READ);
	finish(m);
}

/* areGpusP2PCompatible (595.45.04): a different chip implementation => NOT_SUPPORTED. */
static void test_mixed_chips_not_compatible(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	m->f.h.devs[m->f.g1].device_id = GA102;
	model(m, "595");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(p->gate[P2PS_NV_CAPS_READ], P2PS_NV_GATE_GPU_COMPAT);
	finish(m);
}

/* NVLink: p2pGetCapsStatus takes NVLink before PCIe; the control (client_resource.c,
 * 595.45.04) sets NVLINK OK, ATOMICS OK, leaves PROP NOT_SUPPORTED. As the H200 pair. */
static void test_nvlink_pair(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	tm_nvlink(&m->f.h.devs[m->f.g0], &m->f.h.devs[m->f.g1], 4);
	tm_nvlink(&m->f.h.devs[m->f.g1], &m->f.h.devs[m->f.g0], 4);
	model(m, "580");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->chosen, P2PS_NV_PATH_NVLINK);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_WRITE], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_NVLINK], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_ATOMICS], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PROP], P2PS_NV_ST_NOT_SUPPORTED);
	finish(m);
}

/* tinygrad's 565 patch sets forceP2PType BAR1P2P: _gpumgrGetP2PCapsStatusOverNvLink
 * (565.57.01) then returns NOT_SUPPORTED for an NVLink-bridged pair, which falls to PCIe. */
static void test_tinygrad_565_drops_nvlink(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	tm_nvlink(&m->f.h.devs[m->f.g0], &m->f.h.devs[m->f.g1], 4);
	tm_nvlink(&m->f.h.devs[m->f.g1], &m->f.h.devs[m->f.g0], 4);
	model(m, "565-tinygrad");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->path[P2PS_NV_PATH_NVLINK].read.gate, P2PS_NV_GATE_FORCE_P2P_TYPE);
	assert_int_equal(p->st[P2PS_NV_CAPS_NVLINK], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(p->chosen, P2PS_NV_PATH_PCIE_BAR1);
	finish(m);
}

/* One link is a link: _gpumgrGetP2PCapsStatusOverNvLink (580.65.06) asks whether the GPUs
 * are NVLink peers, not how many links join them. */
static void test_nvlink_one_link(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	tm_nvlink(&m->f.h.devs[m->f.g0], &m->f.h.devs[m->f.g1], 1);
	tm_nvlink(&m->f.h.devs[m->f.g1], &m->f.h.devs[m->f.g0], 1);
	model(m, "580");
	assert_int_equal(pair(m)->chosen, P2PS_NV_PATH_NVLINK);
	finish(m);
}

/* p2pGetCapsStatus (595.45.04): a GPU with NVLink on an NVSwitch system gets no PCIe
 * fallback. Where the NVSwitches are not in the PCI tree (a VM), an H100 whose NVLink
 * peer uses all 18 links is such a GPU (HGX boards: NV18); with 17 it is not. */
static void fabric_pair(struct dm *m, int links)
{
	build_switch(&m->f);
	struct p2ps_host *h = &m->f.h;
	int other = tm_gpu(h, "0000:05:00.0", GH100, m->f.rp);
	for (int k = 0; k < 2; k++)
		h->devs[k ? m->f.g1 : m->f.g0].device_id = GH100;
	tm_nvlink(&h->devs[m->f.g0], &h->devs[other], links);
	model(m, "595");
}

static void test_nvswitch_fabric_gpu(void **state)
{
	struct dm *m = *state;
	fabric_pair(m, P2PS_HOST_MAX_NVLINK);
	const struct p2ps_drv_pair *p = &m->r.pairs[0];
	assert_int_equal(p->a, 0);
	assert_int_equal(p->b, 1);
	assert_int_equal(p->gate[P2PS_NV_CAPS_READ], P2PS_NV_GATE_NVSWITCH);
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	p2ps_host_free(&m->f.h);
	fabric_pair(m, P2PS_HOST_MAX_NVLINK - 1);
	assert_int_not_equal(m->r.pairs[0].gate[P2PS_NV_CAPS_READ], P2PS_NV_GATE_NVSWITCH);
	finish(m);
}

/* _kp2pCapsGetStatusOverPcie (595.45.04) reconciles GSP's answer GPU by GPU: the first
 * not OK stands. One GeForce board of the pair (the other an RTX 6000 Ada, the same AD102)
 * is enough for GPU_NOT_SUPPORTED. */
static void test_one_geforce(void **state)
{
	struct dm *m = *state;
	build_root_ports(&m->f, 0x1483, AD102, false);
	snprintf(m->f.h.devs[m->f.g0].device_name, P2PS_HOST_NAME_MAX, "AD102 [GeForce RTX 4090]");
	snprintf(m->f.h.devs[m->f.g1].device_name, P2PS_HOST_NAME_MAX, "AD102GL [RTX 6000 Ada]");
	model(m, "580");
	assert_int_equal(pair(m)->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_GPU_NOT_SUPPORTED);
	finish(m);
}

/* A fact the check needs is missing (the VRAM, so static BAR1 is unknown): the BAR1 path
 * says unknown and names the fact, it does not pass. */
static void test_static_bar1_unknown(void **state)
{
	struct dm *m = *state;
	h100_clique(m, 143);
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	m->f.h.devs[m->f.g1].gpu.vram_known = false;
	model(m, "580");
	assert_int_equal(m->r.bar1[1].st, P2PS_NV_ST_UNKNOWN);
	const struct p2ps_drv_path_result *b = &pair(m)->path[P2PS_NV_PATH_PCIE_BAR1];
	assert_int_equal(b->read.st, P2PS_NV_ST_UNKNOWN);
	assert_int_equal(b->read.gate, P2PS_NV_GATE_UNKNOWN_FACT);
	assert_non_null(strstr(b->why, "GPU memory size"));
	finish(m);
}

/* clFindCommonDownstreamBR (chipset_pcie.c, 580.65.06): the GPUs share a switch when a
 * supported switch port is above both on one bus. Two PLX switches under two root ports
 * share none: with a CPU the driver does not let read (INTEL_OTHER), BAR1 reads are
 * CHIPSET_NOT_SUPPORTED. */
static void test_two_switches(void **state)
{
	struct dm *m = *state;
	struct fx *f = &m->f;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	int rp0 = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	int rp1 = tm_bridge(h, "0000:00:02.0", P2PS_PCIE_ROOT_PORT, -1);
	int up0 = tm_bridge(h, "0000:01:00.0", P2PS_PCIE_SWITCH_UPSTREAM, rp0);
	int up1 = tm_bridge(h, "0000:05:00.0", P2PS_PCIE_SWITCH_UPSTREAM, rp1);
	int dn0 = tm_bridge(h, "0000:02:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, up0);
	int dn1 = tm_bridge(h, "0000:06:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, up1);
	f->g0 = tm_gpu(h, "0000:03:00.0", GH100, dn0);
	f->g1 = tm_gpu(h, "0000:07:00.0", GH100, dn1);
	h->vm.in_vm = true;
	h->nvidia.params_known = true;
	snprintf(h->nvidia.registry_dwords, sizeof(h->nvidia.registry_dwords), "RMPcieP2PType=1");
	h->cpu = (struct p2ps_host_cpu){
	        .known = true, .vendor = "GenuineIntel", .family = 6, .model = 207};
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *d = &h->devs[k ? f->g1 : f->g0];
		d->bars[1].size = 128 * TM_GIB;
		d->rebar.e[0].sizes = 1ull << 17;
		d->rebar.e[0].current = 17;
		d->gpu.vram_bytes = 80 * TM_GIB;
		d->config[0x34] = 0xc8;
		const uint8_t cap[8] = {0x09, 0x00, 0x08, 0x50, 0x32, 0x50, 1 << 3, 0x00};
		memcpy(d->config + 0xc8, cap, sizeof(cap));
	}
	model(m, "580");
	assert_int_equal(pair(m)->path[P2PS_NV_PATH_PCIE_BAR1].read.st,
	                 P2PS_NV_ST_CHIPSET_NOT_SUPPORTED);
	assert_int_equal(pair(m)->chosen, P2PS_NV_PATH_PCIE_MAILBOX);
	finish(m);
}

/* NVSwitch present, a GPU with NVLink, no NVLink between the pair: p2pGetCapsStatus
 * (595.45.04) returns NOT_SUPPORTED for read, write and atomics (no PCIe fallback). */
static void test_nvswitch_no_fallback(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	int sw = tm_dev(&m->f.h, "0000:05:00.0", 0x10de, 0x22a3, 0x068000, -1);
	tm_nvlink(&m->f.h.devs[m->f.g0], &m->f.h.devs[sw], 4);
	model(m, "595");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->chosen, P2PS_NV_PATH_NONE);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(p->gate[P2PS_NV_CAPS_READ], P2PS_NV_GATE_NVSWITCH);
	finish(m);
}

/* tinygrad 565.57.01-p2p: _kbifInitRegistryOverrides sets p2pOverride 0x11 and
 * forceP2PType BAR1P2P; kbusIsStaticBar1Supported_TU102 (565.57.01, ONLY_GPU default)
 * wants BAR1 VA - 128 KiB >= ALIGN_UP(FB, 2 MiB): 32 GiB BAR1, 24 GiB VRAM passes. The
 * BAR1 path returns the overrides: read/write OK, atomics field 0 => DISABLED_BY_REGKEY,
 * which the control reports as NOT_SUPPORTED (only OK is copied); PCI_BAR1 OK, PROP NS. */
static void test_tinygrad_565_4090_ready(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	model(m, "565-tinygrad");
	assert_int_equal(m->r.bar1[0].st, P2PS_NV_ST_OK);
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->chosen, P2PS_NV_PATH_PCIE_BAR1);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_WRITE], P2PS_NV_ST_OK);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_BAR1].atomics.st, P2PS_NV_ST_DISABLED_BY_REGKEY);
	assert_int_equal(p->st[P2PS_NV_CAPS_ATOMICS], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(p->st[P2PS_NV_CAPS_PCI_BAR1], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PROP], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(m->f.a.pairs[0].verdict, P2PS_VERDICT_READY);
	finish(m);
}

/* A 16 GiB BAR1 / 16 GiB GB203 with a boot console under stock 580 AUTO
 * (kbusIsStaticBar1Supported_TU102 580.65.06: FB + reserves + console + mailbox + padding
 * to 512 MiB): static BAR1 is not enabled; the analysis calls the pair not ready. */
static void test_gb203_console_580_not_ready(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *d = &m->f.h.devs[k ? m->f.g1 : m->f.g0];
		d->device_id = GB203;
		d->bars[1].size = 16 * TM_GIB;
		d->gpu.vram_bytes = 16303 * TM_MIB;
		d->rebar.e[0].sizes = 0x3ffull << 6; /* up to 16 GiB */
		d->rebar.e[0].current = 14;
	}
	m->f.h.devs[m->f.g0].boot_vga = 1;
	model(m, "580");
	const struct p2ps_drv_static_bar1 *sb = &m->r.bar1[0];
	assert_int_equal(sb->st, P2PS_NV_ST_NOT_SUPPORTED);
	assert_true(sb->console);
	/* kbusIsStaticBar1Supported_TU102 (580.65.06), AUTO: requiredAutoBar1Size = FB
	 * address space (the estimate: 16303 MiB up to 512 MiB = 16384 MiB, 2 MiB-aligned) +
	 * UserD (estimate 2 MiB) + MMIO priv 16 x 4 KiB + doorbell 16 x 4 KiB + console
	 * (estimate 8 MiB) + mailbox (estimate 4 MiB) + 512 MiB - (8 + 4) MiB of padding =
	 * 16898 MiB + 128 KiB, compared with bar1VASizeAligned: kbusInitBar1_GM107's
	 * mappableLength (BAR1 - 1 - 4 KiB) aligned down to 2 MiB. The smallest BAR1 that holds
	 * it: 16900 MiB + 2 MiB = 16902 MiB. */
	assert_int_equal(sb->required, 16902 * TM_MIB);
	assert_non_null(strstr(sb->fix, "display"));
	assert_int_equal(m->f.a.pairs[0].verdict, P2PS_VERDICT_NOT_READY);
	assert_non_null(tm_find(&m->f.a.gpus[0].reasons, P2PS_R_STATIC_BAR1, m->f.g0));
	/* 580: the mapping starts at ALIGN_UP(console + mailbox, 512 MiB) (kbusInitBar1_GM107). */
	assert_int_equal(sb->start, 512 * TM_MIB);
	finish(m);
}

/* An RTX 5090 with a 256 MiB BAR1 behind a 32-bit window: nv_resize_pcie_bars would grow
 * it (aikitoria's port drops the EnableResizableBar check), the platform cannot place it. */
static void test_5090_without_platform_rebar(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *d = &m->f.h.devs[k ? m->f.g1 : m->f.g0];
		d->device_id = GB202;
		d->bars[1].size = 256 * TM_MIB;
		d->gpu.vram_bytes = 32607 * TM_MIB;
		d->rebar.e[0].sizes = 0x7ffull << 6; /* up to 64 GiB */
		d->rebar.e[0].current = 8;
	}
	model(m, "580-aikitoria");
	const struct p2ps_drv_static_bar1 *sb = &m->r.bar1[0];
	assert_int_equal(sb->st, P2PS_NV_ST_NOT_SUPPORTED);
	assert_false(sb->resized);
	assert_non_null(strstr(sb->fix, "platform Resizable BAR"));
	assert_int_equal(m->f.a.pairs[0].verdict, P2PS_VERDICT_NOT_READY);
	finish(m);
}

/* aikitoria's 580 port (PR #41's statement of the PR #36 rule): static BAR1 needs BAR1 >=
 * client FB + ALIGN_UP(console + mailbox, 512 MiB); the port asks for BAR1 P2P
 * (RMPcieP2PType 1: no mailbox). A 32 GiB RTX 5090 driving the display misses it; the pair
 * then fails kbusIsPcieBar1P2PMappingSupported_GH100 (580.65.06: static BAR1 on both) and
 * keeps the mailbox connectivity with the built-in ForceP2P 0x11 statuses: nvidia-smi says
 * OK while the path is the mailbox (aikitoria issue 11, PRs #34/#36). */
static void test_aikitoria_580_display_5090(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *d = &m->f.h.devs[k ? m->f.g1 : m->f.g0];
		d->device_id = GB202;
		d->gpu.vram_bytes = 32607 * TM_MIB;
	}
	m->f.h.devs[m->f.g0].boot_vga = 1;
	model(m, "580-aikitoria");
	assert_int_equal(m->r.bar1[0].st, P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(m->r.bar1[1].st, P2PS_NV_ST_OK);
	assert_false(m->r.bar1[1].mailbox);
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_BAR1].read.gate, P2PS_NV_GATE_STATIC_BAR1);
	assert_int_equal(p->chosen, P2PS_NV_PATH_PCIE_MAILBOX);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PROP], P2PS_NV_ST_OK);
	finish(m);
}

/* ACS: the bridges under the common switch that redirect get the kernel parameter that
 * opens exactly them: pci=config_acs= from Linux 6.11 (commit 47c8846a49ba; 7 flags, bit 6
 * leftmost, here EC CR RR cleared), pci=disable_acs_redir= before (4.19). */
static void test_acs_kernel_parameter(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	tm_acs(&m->f.h.devs[m->f.dsp0], 0x7f, 0x1d);
	tm_acs(&m->f.h.devs[m->f.dsp1], 0x7f, 0x1d);
	snprintf(m->f.h.kernel, sizeof(m->f.h.kernel), "6.14.0-37-generic");
	model(m, "565-tinygrad");
	assert_non_null(strstr(pair(m)->fix,
	                       "\"pci=config_acs=x0x00xx@0000:02:00.0;x0x00xx@0000:02:01.0\""));
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	snprintf(m->f.h.kernel, sizeof(m->f.h.kernel), "6.8.0-51-generic");
	model(m, "565-tinygrad");
	assert_non_null(
	        strstr(pair(m)->fix, "\"pci=disable_acs_redir=0000:02:00.0;0000:02:01.0\""));
	finish(m);
}

/* 550 stock: the BAR1 path needs RMForceP2PType=BAR1P2P (2) (_kp2pCapsGetStatusOverPcieBar1
 * 550.54.15); the 550 static BAR1 (kbusIsBar1P2PCapable_GH100) needs it too. */
static void test_550_stock_bar1_needs_force_type(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	model(m, "550");
	const struct p2ps_drv_pair *p = pair(m);
	assert_int_equal(p->path[P2PS_NV_PATH_PCIE_BAR1].read.gate, P2PS_NV_GATE_PCIE_P2P_TYPE);
	assert_int_equal(m->r.bar1[0].st, P2PS_NV_ST_NOT_SUPPORTED);
	assert_non_null(strstr(p->fix, "RMForceP2PType=2"));
	finish(m);
}

/* The driver's own statuses (the seam): agree, then differ with the gate named. */
static void test_reported_caps_compared(void **state)
{
	struct dm *m = *state;
	build_switch(&m->f);
	struct p2ps_host_driver_caps *dc = &m->f.h.driver_caps;
	memset(dc->st, 0xff, sizeof(dc->st));
	dc->known = true;
	dc->n_gpus = 2;
	snprintf(dc->source, sizeof(dc->source), "test");
	dc->st[0][1][P2PS_NV_CAPS_READ] = dc->st[1][0][P2PS_NV_CAPS_READ] = P2PS_NV_ST_OK;
	dc->st[0][1][P2PS_NV_CAPS_PROP] = P2PS_NV_ST_NOT_SUPPORTED;
	model(m, "565-tinygrad");
	assert_true(pair(m)->reported.known);
	assert_int_equal(pair(m)->agree, 1);
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	dc->st[0][1][P2PS_NV_CAPS_READ] =
	        P2PS_NV_ST_CHIPSET_NOT_SUPPORTED; /* a stock module answering instead */
	model(m, "565-tinygrad");
	assert_int_equal(pair(m)->agree, 0);
	finish(m);
}

static int dm_setup(void **state)
{
	*state = calloc(1, sizeof(struct dm));
	return *state ? 0 : -1;
}

static int dm_teardown(void **state)
{
	free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_config_series_and_registry),
	        cmocka_unit_test_setup_teardown(test_ioh_two_hubs, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_one_hub_goes_to_gsp, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_geforce_stock_gns, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_vm_p2p_clique, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_vm_clique_finding, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_vm_two_cliques, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_bar1_host_read_cpu, dm_setup, dm_teardown),
	        cmocka_unit_test(test_cpu_types),
	        cmocka_unit_test(test_supported_switches),
	        cmocka_unit_test(test_ioh_ports),
	        cmocka_unit_test_setup_teardown(test_common_switch_reads, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_mixed_chips_not_compatible, dm_setup,
	                                        dm_teardown),
	        cmocka_unit_test_setup_teardown(test_nvlink_pair, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_nvswitch_no_fallback, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_nvlink_one_link, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_nvswitch_fabric_gpu, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_one_geforce, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_static_bar1_unknown, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_two_switches, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_tinygrad_565_drops_nvlink, dm_setup,
	                                        dm_teardown),
	        cmocka_unit_test_setup_teardown(test_tinygrad_565_4090_ready, dm_setup,
	                                        dm_teardown),
	        cmocka_unit_test_setup_teardown(test_gb203_console_580_not_ready, dm_setup,
	                                        dm_teardown),
	        cmocka_unit_test_setup_teardown(test_5090_without_platform_rebar, dm_setup,
	                                        dm_teardown),
	        cmocka_unit_test_setup_teardown(test_aikitoria_580_display_5090, dm_setup,
	                                        dm_teardown),
	        cmocka_unit_test_setup_teardown(test_acs_kernel_parameter, dm_setup, dm_teardown),
	        cmocka_unit_test_setup_teardown(test_550_stock_bar1_needs_force_type, dm_setup,
	                                        dm_teardown),
	        cmocka_unit_test_setup_teardown(test_reported_caps_compared, dm_setup, dm_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
