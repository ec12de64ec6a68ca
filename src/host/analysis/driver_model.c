/* SPDX-License-Identifier: MIT */
/* The driver's P2P decision for one GPU pair, in the order p2pGetCapsStatus
 * (p2p_caps.c) takes it: MIG, C2C, NVLink, the NVSwitch no-fallback rule, NVLink
 * indirect, PCIe mailbox (_kp2pCapsGetStatusOverPcie: the ForceP2P override, the
 * self-hosted gate (615), the hypervisor, I/O hubs, compatibility, the CPU-side chipset
 * check (610+) or GSP's per-pair answer (before 610)), PCIe BAR1
 * (_kp2pCapsGetStatusOverPcieBar1); then the status array the control
 * NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS fills from it (client_resource.c
 * _getP2PCapsStatus... : every index NOT_SUPPORTED, READ/WRITE from the decision,
 * NVLINK/PCI/PROP/PCI_BAR1/C2C OK for the connectivity chosen, ATOMICS only when OK). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"
#include "p2pscope/analysis.h"

struct pair_ctx {
	const struct p2ps_analysis *a;
	const struct p2ps_drv_config *cfg;
	const struct p2ps_nv_driver *s;
	const struct p2ps_drv_report *r;
	const struct p2ps_dev *d[2];
	const struct p2ps_pair *ap;
	struct p2ps_drv_pair *out;
	long force_type, pcie_type, override;
};

static void set3(struct p2ps_drv_path_result *p, enum p2ps_nv_status st, enum p2ps_nv_gate g)
{
	p->tried = true;
	p->read = p->write = p->atomics = (struct p2ps_drv_verdict){st, g};
}

static long eff(long reg, long patch)
{
	return reg >= 0 ? reg : patch;
}

/* ForceP2P field (2 bits) to a status: 0 disable, 1 enable, other: leave st. */
static void override_field(long ov, int shift, struct p2ps_drv_verdict *v)
{
	long f = (ov >> shift) & 3;
	if (f == 0)
		*v = (struct p2ps_drv_verdict){P2PS_NV_ST_DISABLED_BY_REGKEY,
		                               P2PS_NV_GATE_P2P_OVERRIDE};
	else if (f == 1)
		*v = (struct p2ps_drv_verdict){P2PS_NV_ST_OK, P2PS_NV_GATE_P2P_OVERRIDE};
}

static bool type_allows(const struct pair_ctx *c, uint8_t value)
{
	return c->force_type <= 0 || (value && c->force_type == value);
}

static bool nvswitch_present(const struct p2ps_host *h)
{
	for (size_t i = 0; i < h->n_devs; i++)
		if (h->devs[i].vendor_id == 0x10de && (h->devs[i].class_code >> 16) == 0x06 &&
		    !p2ps_dev_is_bridge(&h->devs[i]))
			return true;
	return false;
}

/* A GPU on an NVSwitch fabric even where the switches are not in the PCI tree (a VM):
 * a chip with NVSwitch support (the chip table's fabric alignment) whose NVLink peers
 * use all 18 links (NV18 in nvidia-smi topo -m), as HGX H100/H200/B200 boards do. */
static bool fabric_gpu(const struct p2ps_dev *d)
{
	if (!d->chip || !d->chip->nvlink_fabric_align)
		return false;
	for (int i = 0; i < d->gpu.n_nvlink_peers; i++)
		if (d->gpu.nvlink_peers[i].links >= P2PS_HOST_MAX_NVLINK)
			return true;
	return false;
}

/* C2C, NVLink, NVSwitch, NVLink indirect. Returns true when the pair is decided. */
static bool links(struct pair_ctx *c)
{
	struct p2ps_drv_pair *o = c->out;
	struct p2ps_drv_path_result *p;
	if (c->s->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_NO_C2C)) {
		p = &o->path[P2PS_NV_PATH_C2C];
		set3(p, P2PS_NV_ST_NOT_SUPPORTED,
		     type_allows(c, c->s->ft_c2c) ? P2PS_NV_GATE_NO_C2C
		                                  : P2PS_NV_GATE_FORCE_P2P_TYPE);
		snprintf(p->why, sizeof(p->why), "no C2C link between discrete GPUs");
	}
	p = &o->path[P2PS_NV_PATH_NVLINK];
	bool known = c->d[0]->gpu.nvlink_known && c->d[1]->gpu.nvlink_known;
	if (!type_allows(c, c->s->ft_nvlink)) {
		set3(p, P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_GATE_FORCE_P2P_TYPE);
		snprintf(p->why, sizeof(p->why), "RMForceP2PType=%ld selects another path",
		         c->force_type);
	} else if (c->ap->nvlinks > 0) {
		set3(p, P2PS_NV_ST_OK, P2PS_NV_GATE_NONE);
		o->chosen = P2PS_NV_PATH_NVLINK;
		return true;
	} else if (!known) {
		set3(p, P2PS_NV_ST_UNKNOWN, P2PS_NV_GATE_UNKNOWN_FACT);
		snprintf(p->why, sizeof(p->why),
		         "unknown: needs NVLink facts (NVML or nvidia-smi topo -m)");
	} else {
		set3(p, P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_GATE_NO_NVLINK);
		snprintf(p->why, sizeof(p->why), "no NVLink between the GPUs");
	}
	bool linked = c->d[0]->gpu.n_nvlink_peers > 0 || c->d[1]->gpu.n_nvlink_peers > 0;
	if (linked &&
	    (nvswitch_present(c->a->host) || fabric_gpu(c->d[0]) || fabric_gpu(c->d[1]))) {
		set3(p, P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_GATE_NVSWITCH);
		snprintf(p->why, sizeof(p->why),
		         "NVLink with an NVSwitch present: no fallback to PCIe");
		o->chosen = P2PS_NV_PATH_NONE;
		return true;
	}
	p = &o->path[P2PS_NV_PATH_NVLINK_INDIRECT];
	set3(p, P2PS_NV_ST_NOT_SUPPORTED,
	     type_allows(c, c->s->ft_nvlink) ? P2PS_NV_GATE_NO_NVLINK
	                                     : P2PS_NV_GATE_FORCE_P2P_TYPE);
	snprintf(p->why, sizeof(p->why), "no indirect NVLink peers");
	return false;
}

/* The root port above a GPU (the topmost bridge of its path), or NULL. */
static const struct p2ps_dev *root_port(const struct p2ps_analysis *a, int gi)
{
	const struct p2ps_gpu_report *g = &a->gpus[gi];
	return g->path_len ? &a->host->devs[g->path[g->path_len - 1]] : NULL;
}

/* clFindCommonDownstreamBR: two supported switch ports on one bus above both GPUs. */
static bool common_switch(const struct pair_ctx *c)
{
	const struct p2ps_gpu_report *g0 = &c->a->gpus[c->out->a], *g1 = &c->a->gpus[c->out->b];
	if (c->d[0]->bdf.domain != c->d[1]->bdf.domain)
		return false;
	for (int i = 0; i < g0->path_len; i++) {
		const struct p2ps_dev *b0 = &c->a->host->devs[g0->path[i]];
		if (!p2ps_drv_supported_switch(b0->vendor_id, b0->device_id))
			continue;
		for (int j = 0; j < g1->path_len; j++) {
			const struct p2ps_dev *b1 = &c->a->host->devs[g1->path[j]];
			if (b1->bdf.bus == b0->bdf.bus &&
			    p2ps_drv_supported_switch(b1->vendor_id, b1->device_id))
				return true;
		}
	}
	return false;
}

/* Host-side checks of _kp2pCapsGetStatusOverPcie before GSP is asked. Returns true when
 * one of them decided read and write. */
static bool pcie_host_gates(struct pair_ctx *c, struct p2ps_drv_path_result *p)
{
	const struct p2ps_dev *rp0 = root_port(c->a, c->out->a), *rp1 = root_port(c->a, c->out->b);
	if (rp0 && rp1 && p2ps_drv_intel_ioh_port(rp0->vendor_id, rp0->device_id) &&
	    p2ps_drv_intel_ioh_port(rp1->vendor_id, rp1->device_id) &&
	    (rp0->bdf.domain != rp1->bdf.domain || rp0->bdf.bus != rp1->bdf.bus)) {
		p->read = p->write = (struct p2ps_drv_verdict){
		        P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED, P2PS_NV_GATE_IOH};
		snprintf(p->why, sizeof(p->why),
		         "root ports %s and %s belong to two Intel I/O hubs", rp0->bdf_str,
		         rp1->bdf_str);
		return true;
	}
	const struct p2ps_nvidia_chip *k0 = c->d[0]->chip, *k1 = c->d[1]->chip;
	if (k0 && k1 && k0->boot0_id != k1->boot0_id) {
		p->read = p->write = (struct p2ps_drv_verdict){P2PS_NV_ST_NOT_SUPPORTED,
		                                               P2PS_NV_GATE_GPU_COMPAT};
		snprintf(p->why, sizeof(p->why), "different chips (%s, %s): areGpusP2PCompatible",
		         k0->gmmu.name, k1->gmmu.name);
		return true;
	}
	return false;
}

static bool has_gate(const struct pair_ctx *c, enum p2ps_nv_gate g)
{
	return (c->s->gates & P2PS_NV_GATE_BIT(g)) != 0;
}

/* gpuIsSelfHosted on any GPU of the pair (615.71.09): PCIe P2P NOT_SUPPORTED. Returns true
 * when it decided read and write (NS, or unknown when a GPU's mode cannot be told). */
static bool self_hosted_gate(const struct pair_ctx *c, struct p2ps_drv_path_result *p)
{
	if (!has_gate(c, P2PS_NV_GATE_SELF_HOSTED))
		return false;
	char why[2][200];
	int yes = -1, unknown = -1;
	for (int k = 0; k < 2; k++) {
		enum p2ps_drv_tri mode =
		        p2ps_drv_self_hosted(c->d[k], &c->a->host->cpu, why[k], sizeof(why[k]));
		if (mode == P2PS_DRV_YES && yes < 0)
			yes = k;
		if (mode == P2PS_DRV_UNKNOWN && unknown < 0)
			unknown = k;
	}
	if (yes >= 0) {
		p->read = p->write = (struct p2ps_drv_verdict){P2PS_NV_ST_NOT_SUPPORTED,
		                                               P2PS_NV_GATE_SELF_HOSTED};
		snprintf(p->why, sizeof(p->why), "no PCIe P2P on self-hosted platforms: %.150s",
		         why[yes]);
		return true;
	}
	if (unknown < 0)
		return false;
	p->read = p->write =
	        (struct p2ps_drv_verdict){P2PS_NV_ST_UNKNOWN, P2PS_NV_GATE_UNKNOWN_FACT};
	snprintf(p->why, sizeof(p->why), "%.150s (a self-hosted GPU gets no PCIe P2P)",
	         why[unknown]);
	return true;
}

/* The host bridge, 00:00.0 of the first domain's bus 0, or NULL. */
static const struct p2ps_dev *host_bridge(const struct p2ps_host *h)
{
	for (size_t i = 0; i < h->n_devs; i++) {
		const struct p2ps_dev *d = &h->devs[i];
		if (d->bdf.bus == 0 && d->bdf.dev == 0 && d->bdf.fn == 0 &&
		    (d->class_code >> 8) == 0x0600)
			return d;
	}
	return NULL;
}

/* 610+: the CPU-side chipset check that replaced GSP's per-pair answer. Without a common
 * switch, a chipset that is not peer read- and write-capable gives CHIPSET_NOT_SUPPORTED
 * (615: unless GSP set bSkipChipsetCheck for the GPU). Returns true when it decided. */
static bool chipset_gate(const struct pair_ctx *c, bool common, struct p2ps_drv_path_result *p)
{
	if (!has_gate(c, P2PS_NV_GATE_CHIPSET) || common)
		return false;
	char why[200];
	enum p2ps_drv_tri t = p2ps_drv_chipset_capable(host_bridge(c->a->host), why, sizeof(why));
	if (t == P2PS_DRV_YES)
		return false;
	if (t == P2PS_DRV_UNKNOWN) {
		p->read = p->write =
		        (struct p2ps_drv_verdict){P2PS_NV_ST_UNKNOWN, P2PS_NV_GATE_CHIPSET};
		snprintf(p->why, sizeof(p->why), "%.150s; no common switch", why);
		return true;
	}
	if (has_gate(c, P2PS_NV_GATE_CHIPSET_SKIP)) {
		p->read = p->write =
		        (struct p2ps_drv_verdict){P2PS_NV_ST_UNKNOWN, P2PS_NV_GATE_CHIPSET_SKIP};
		snprintf(p->why, sizeof(p->why),
		         "%.80s, no common switch: CNS unless GSP set bSkipChipsetCheck for "
		         "the GPU (not in the open source)",
		         why);
		return true;
	}
	p->read = p->write =
	        (struct p2ps_drv_verdict){P2PS_NV_ST_CHIPSET_NOT_SUPPORTED, P2PS_NV_GATE_CHIPSET};
	snprintf(p->why, sizeof(p->why), "%.150s and no common switch", why);
	return true;
}

static void mailbox(struct pair_ctx *c, bool *common)
{
	struct p2ps_drv_path_result *p = &c->out->path[P2PS_NV_PATH_PCIE_MAILBOX];
	set3(p, P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_GATE_NONE);
	p->atomics =
	        (struct p2ps_drv_verdict){P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_GATE_MAILBOX_ATOMICS};
	*common = common_switch(c);
	if (c->override >= 0) {
		override_field(c->override, 0, &p->read);
		override_field(c->override, 4, &p->write);
		snprintf(p->why, sizeof(p->why), "ForceP2P=0x%lx decides before any host check",
		         c->override);
		return;
	}
	if (self_hosted_gate(c, p))
		return;
	int q0 = c->a->host->vm.in_vm ? p2ps_drv_p2p_clique(c->d[0]) : -1;
	int q1 = c->a->host->vm.in_vm ? p2ps_drv_p2p_clique(c->d[1]) : -1;
	if (q0 >= 0 && q0 == q1) {
		p->read = p->write =
		        (struct p2ps_drv_verdict){P2PS_NV_ST_OK, P2PS_NV_GATE_HYPERVISOR};
		snprintf(p->why, sizeof(p->why), "the hypervisor put both GPUs in P2P clique %d",
		         q0);
		return;
	}
	if (pcie_host_gates(c, p) || chipset_gate(c, *common, p))
		return;
	/* What is left is GSP's per-GPU answer (chipset allow-list, GeForce policy): not in
	 * the open source. GeForce boards are answered GPU_NOT_SUPPORTED by stock drivers, as
	 * captured topo -p2p outputs show (2 x RTX 5090, club-3090 issue 1124: GNS). */
	if (strstr(c->d[0]->device_name, "GeForce") || strstr(c->d[1]->device_name, "GeForce")) {
		p->read = p->write =
		        (struct p2ps_drv_verdict){P2PS_NV_ST_GPU_NOT_SUPPORTED, P2PS_NV_GATE_GSP};
		snprintf(p->why, sizeof(p->why),
		         "GSP firmware refuses PCIe P2P on GeForce boards (observed in captures, "
		         "not in the open source)");
		return;
	}
	p->read = p->write = (struct p2ps_drv_verdict){P2PS_NV_ST_UNKNOWN, P2PS_NV_GATE_GSP};
	snprintf(p->why, sizeof(p->why),
	         "decided by GSP firmware (INTERNAL_GET_PCIE_P2P_CAPS; common switch %s%s)",
	         *common ? "found" : "not found",
	         c->a->host->vm.in_vm ? "; in a VM a hypervisor P2P clique would say OK" : "");
}

/* Whether the series' row (s) gives the chip the GH100 BAR1-P2P HAL: the chips the
 * bus HAL lists at the series, and in a patched row every chip of the generations from
 * bar1_hal_min up to the listed ones (the patches route every chip to the GH100 function). */
static bool has_bar1_hal(const struct p2ps_nv_driver *s, const struct p2ps_nvidia_chip *chip)
{
	if (chip->generation < s->bar1_hal_min)
		return false;
	return chip->generation < P2PS_NV_GEN_HOPPER ||
	       p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_HAL, s->series, chip->gmmu.name);
}

/* Whether the row has the optional gate g and the chip is in the series' list of it. */
static bool listed_gate(const struct p2ps_nv_driver *s, enum p2ps_nv_gate g,
                        enum p2ps_nv_chip_list l, const struct p2ps_nvidia_chip *chip)
{
	return (s->gates & P2PS_NV_GATE_BIT(g)) &&
	       p2ps_nv_chip_listed(l, s->series, chip->gmmu.name);
}

/* The per-chip checks of kbusIsPcieBar1P2PMappingSupported for one GPU; NONE when passed. */
static enum p2ps_nv_gate bar1_chip(struct pair_ctx *c, const struct p2ps_nvidia_chip *chip,
                                   char *why, size_t n)
{
	if (!has_bar1_hal(c->s, chip)) {
		snprintf(why, n, "%s has no BAR1 P2P mapping in this driver", chip->gmmu.name);
		return P2PS_NV_GATE_BAR1_HAL;
	}
	if ((c->s->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_BY_DEFAULT)) && c->pcie_type != 1 &&
	    !p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_BY_DEFAULT, c->s->series, chip->gmmu.name)) {
		snprintf(why, n, "AUTO needs a chip with BAR1 P2P by default; %s is not",
		         chip->gmmu.name);
		return P2PS_NV_GATE_BAR1_BY_DEFAULT;
	}
	/* bBar1Disabled: kbusInitBarsSize sizes BAR1 0, so kbusIsStaticBar1Supported_TU102
	 * refuses static BAR1, which the mapping needs on both GPUs. */
	if (listed_gate(c->s, P2PS_NV_GATE_BAR1_DISABLED, P2PS_NV_LIST_BAR1_DISABLED, chip)) {
		snprintf(why, n, "the driver disables BAR1 on %s (bBar1Disabled): no BAR1 P2P",
		         chip->gmmu.name);
		return P2PS_NV_GATE_BAR1_DISABLED;
	}
	return P2PS_NV_GATE_NONE;
}

/* Method 3 (Duanyll's kern_bus_gh100.c kbusIsPcieBar1P2PMappingSupported_GH100): no static
 * BAR1 needed; a GPU without it gets a BAR1 window per peer allocation. A pair with one
 * static and one dynamic side is refused (the 615 port; LingzheZhao's p2pGetCapsStatus
 * reports NS where a GPU has no mailbox area, which a BAR1-forced GPU never has). */
static enum p2ps_nv_gate on_demand_pair(struct pair_ctx *c, char *why, size_t n)
{
	const struct p2ps_drv_static_bar1 *sa = &c->r->bar1[c->out->a],
	                                  *sb = &c->r->bar1[c->out->b];
	if (sa->st == P2PS_NV_ST_UNKNOWN || sb->st == P2PS_NV_ST_UNKNOWN) {
		snprintf(why, n, "unknown: static or on-demand BAR1 needs the BAR1 and VRAM sizes");
		return P2PS_NV_GATE_UNKNOWN_FACT;
	}
	if (sa->st != sb->st) {
		snprintf(why, n,
		         "one GPU has static BAR1 and the other maps windows on demand: this fork "
		         "refuses such a pair");
		return P2PS_NV_GATE_STATIC_BAR1;
	}
	return P2PS_NV_GATE_NONE;
}

/* kbusIsPcieBar1P2PMappingSupported for both GPUs; NONE when supported. */
static enum p2ps_nv_gate bar1_mapping(struct pair_ctx *c, char *why, size_t n)
{
	for (int k = 0; k < 2; k++) {
		const struct p2ps_nvidia_chip *chip = c->d[k]->chip;
		if (!chip) {
			snprintf(why, n, "unknown: needs the chip of %s", c->d[k]->bdf_str);
			return P2PS_NV_GATE_UNKNOWN_FACT;
		}
		enum p2ps_nv_gate g = bar1_chip(c, chip, why, n);
		if (g != P2PS_NV_GATE_NONE)
			return g;
	}
	if (c->s->props & P2PS_NV_FP_BAR1_ON_DEMAND)
		return on_demand_pair(c, why, n);
	for (int k = 0; k < 2; k++) {
		const struct p2ps_drv_static_bar1 *sb = &c->r->bar1[k ? c->out->b : c->out->a];
		if (sb->st != P2PS_NV_ST_OK) {
			snprintf(why, n, "%sstatic BAR1 on %s: %.150s",
			         sb->st == P2PS_NV_ST_UNKNOWN ? "unknown: " : "", c->d[k]->bdf_str,
			         sb->why);
			return sb->st == P2PS_NV_ST_UNKNOWN ? P2PS_NV_GATE_UNKNOWN_FACT
			                                    : P2PS_NV_GATE_STATIC_BAR1;
		}
	}
	return P2PS_NV_GATE_NONE;
}

/* _kp2pCapsGetStatusOverPcieBar1; true when BAR1 becomes the connectivity. */
static bool bar1(struct pair_ctx *c, bool common)
{
	struct p2ps_drv_path_result *p = &c->out->path[P2PS_NV_PATH_PCIE_BAR1];
	const struct p2ps_drv_path_result *mb = &c->out->path[P2PS_NV_PATH_PCIE_MAILBOX];
	*p = *mb;
	p->tried = true;
	p->atomics = (struct p2ps_drv_verdict){P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_GATE_BAR1_ATOMICS};
	bool type_ok = c->s->bar1_needs_force
	                       ? c->force_type == c->s->ft_bar1
	                       : (c->force_type <= 0 || c->force_type == c->s->ft_pcie) &&
	                                 (c->pcie_type == 1 || c->pcie_type == 2);
	if (!type_ok) {
		set3(p, P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_GATE_PCIE_P2P_TYPE);
		snprintf(p->why, sizeof(p->why), "%s",
		         c->s->bar1_needs_force ? "BAR1 P2P only with RMForceP2PType=BAR1P2P"
		                                : "RMPcieP2PType is mailbox (the default)");
		return false;
	}
	char why[200] = "";
	enum p2ps_nv_gate map =
	        c->s->bar1_map_first ? bar1_mapping(c, why, sizeof(why)) : P2PS_NV_GATE_NONE;
	if (map != P2PS_NV_GATE_NONE) {
		set3(p,
		     map == P2PS_NV_GATE_UNKNOWN_FACT ? P2PS_NV_ST_UNKNOWN
		                                      : P2PS_NV_ST_NOT_SUPPORTED,
		     map);
		snprintf(p->why, sizeof(p->why), "%s", why);
		return map == P2PS_NV_GATE_UNKNOWN_FACT;
	}
	if (c->override >= 0) {
		override_field(c->override, 0, &p->read);
		override_field(c->override, 4, &p->write);
		if (c->s->override_atomics)
			override_field(c->override, 8, &p->atomics);
		if (!c->s->bar1_map_first && bar1_mapping(c, why, sizeof(why)) != P2PS_NV_GATE_NONE)
			snprintf(p->why, sizeof(p->why),
			         "chosen by ForceP2P before the mapping check; peer mappings will "
			         "fail: %.100s",
			         why);
		return true;
	}
	if (!c->s->bar1_map_first &&
	    (map = bar1_mapping(c, why, sizeof(why))) != P2PS_NV_GATE_NONE) {
		set3(p,
		     map == P2PS_NV_GATE_UNKNOWN_FACT ? P2PS_NV_ST_UNKNOWN
		                                      : P2PS_NV_ST_NOT_SUPPORTED,
		     map);
		snprintf(p->why, sizeof(p->why), "%s", why);
		return map == P2PS_NV_GATE_UNKNOWN_FACT;
	}
	bool reads = common;
	const struct p2ps_host_cpu *cpu = &c->a->host->cpu;
	bool cpu_ok = false;
	p2ps_drv_cpu_type(c->s, cpu->vendor, cpu->family, cpu->model, &cpu_ok);
	reads = reads || cpu_ok;
	if (p->read.st == P2PS_NV_ST_OK && !reads)
		p->read = (struct p2ps_drv_verdict){p2ps_drv_cpu_known(cpu)
		                                            ? P2PS_NV_ST_CHIPSET_NOT_SUPPORTED
		                                            : P2PS_NV_ST_UNKNOWN,
		                                    P2PS_NV_GATE_HOST_READ};
	if (!reads)
		snprintf(p->why, sizeof(p->why), "%s: no common supported switch, CPU %s",
		         p2ps_drv_cpu_known(cpu) ? "reads refused"
		                                 : "unknown: needs the CPU (/proc/cpuinfo)",
		         c->r->cpu_type);
	return p->read.st == P2PS_NV_ST_OK && p->write.st == P2PS_NV_ST_OK;
}

static void finish(struct p2ps_drv_pair *o)
{
	for (int k = 0; k < P2PS_NV_CAPS_COUNT; k++)
		o->st[k] = P2PS_NV_ST_NOT_SUPPORTED, o->gate[k] = P2PS_NV_GATE_NONE;
	const struct p2ps_drv_path_result *p =
	        o->chosen < P2PS_NV_PATH_COUNT ? &o->path[o->chosen] : NULL;
	const struct p2ps_drv_path_result *last = NULL;
	for (int k = P2PS_NV_PATH_COUNT - 1; k >= 0 && !p && !last; k--)
		if (o->path[k].tried)
			last = &o->path[k];
	const struct p2ps_drv_path_result *src = p ? p : last;
	if (src) {
		o->st[P2PS_NV_CAPS_READ] = src->read.st,
		o->gate[P2PS_NV_CAPS_READ] = src->read.gate;
		o->st[P2PS_NV_CAPS_WRITE] = src->write.st,
		o->gate[P2PS_NV_CAPS_WRITE] = src->write.gate;
		o->gate[P2PS_NV_CAPS_ATOMICS] = src->atomics.gate;
		if (p && src->atomics.st == P2PS_NV_ST_OK)
			o->st[P2PS_NV_CAPS_ATOMICS] = P2PS_NV_ST_OK;
		else if (src->atomics.st == P2PS_NV_ST_UNKNOWN)
			o->st[P2PS_NV_CAPS_ATOMICS] = P2PS_NV_ST_UNKNOWN;
	}
	const struct p2ps_drv_path_result *nv = &o->path[P2PS_NV_PATH_NVLINK];
	o->st[P2PS_NV_CAPS_NVLINK] = o->chosen == P2PS_NV_PATH_NVLINK    ? P2PS_NV_ST_OK
	                             : nv->read.st == P2PS_NV_ST_UNKNOWN ? P2PS_NV_ST_UNKNOWN
	                                                                 : P2PS_NV_ST_NOT_SUPPORTED;
	o->gate[P2PS_NV_CAPS_NVLINK] = nv->read.gate;
	bool pcie = o->chosen == P2PS_NV_PATH_PCIE_MAILBOX || o->chosen == P2PS_NV_PATH_PCIE_BAR1;
	o->st[P2PS_NV_CAPS_PCI] = pcie ? P2PS_NV_ST_OK : P2PS_NV_ST_NOT_SUPPORTED;
	o->st[P2PS_NV_CAPS_PROP] =
	        o->chosen == P2PS_NV_PATH_PCIE_MAILBOX ? P2PS_NV_ST_OK : P2PS_NV_ST_NOT_SUPPORTED;
	o->st[P2PS_NV_CAPS_PCI_BAR1] =
	        o->chosen == P2PS_NV_PATH_PCIE_BAR1 ? P2PS_NV_ST_OK : P2PS_NV_ST_NOT_SUPPORTED;
	o->st[P2PS_NV_CAPS_C2C] =
	        o->chosen == P2PS_NV_PATH_C2C ? P2PS_NV_ST_OK : P2PS_NV_ST_NOT_SUPPORTED;
	o->st[P2PS_NV_CAPS_LOOPBACK] = P2PS_NV_ST_NOT_SUPPORTED;
	const struct p2ps_drv_path_result *b1 = &o->path[P2PS_NV_PATH_PCIE_BAR1];
	if (b1->tried && b1->read.st == P2PS_NV_ST_UNKNOWN && o->chosen != P2PS_NV_PATH_PCIE_BAR1)
		o->st[P2PS_NV_CAPS_PROP] = o->st[P2PS_NV_CAPS_PCI_BAR1] = P2PS_NV_ST_UNKNOWN;
	/* Undecided (a path left unknown): every index that depends on the choice is U. */
	if (src && (src->read.st == P2PS_NV_ST_UNKNOWN || src->write.st == P2PS_NV_ST_UNKNOWN) &&
	    o->chosen != P2PS_NV_PATH_NVLINK)
		for (int k = P2PS_NV_CAPS_PROP; k < P2PS_NV_CAPS_COUNT; k++)
			if (k != P2PS_NV_CAPS_LOOPBACK && k != P2PS_NV_CAPS_C2C)
				o->st[k] = P2PS_NV_ST_UNKNOWN;
}

static void pcie(struct pair_ctx *c)
{
	bool common = false;
	mailbox(c, &common);
	const struct p2ps_drv_path_result *mb = &c->out->path[P2PS_NV_PATH_PCIE_MAILBOX];
	bool any = mb->read.st == P2PS_NV_ST_OK || mb->write.st == P2PS_NV_ST_OK;
	bool maybe = mb->read.st == P2PS_NV_ST_UNKNOWN || mb->write.st == P2PS_NV_ST_UNKNOWN;
	c->out->chosen = any || maybe ? P2PS_NV_PATH_PCIE_MAILBOX : P2PS_NV_PATH_NONE;
	if ((any || maybe) && bar1(c, common) &&
	    c->out->path[P2PS_NV_PATH_PCIE_BAR1].read.st != P2PS_NV_ST_UNKNOWN)
		c->out->chosen = P2PS_NV_PATH_PCIE_BAR1;
}

void p2ps_drv_pair_model(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                         const struct p2ps_drv_report *r, const struct p2ps_pair *ap,
                         struct p2ps_drv_pair *out)
{
	memset(out, 0, sizeof(*out));
	out->a = ap->a;
	out->b = ap->b;
	out->chosen = P2PS_NV_PATH_NONE;
	struct pair_ctx c = {
	        .a = a, .cfg = cfg, .s = p2ps_drv_row(cfg), .r = r, .ap = ap, .out = out};
	c.d[0] = &a->host->devs[a->gpus[ap->a].dev_idx];
	c.d[1] = &a->host->devs[a->gpus[ap->b].dev_idx];
	c.force_type = eff(cfg->reg.force_p2p_type, c.s->patch_force);
	c.pcie_type = eff(cfg->reg.pcie_p2p_type, c.s->patch_pcie_type);
	c.override = eff(cfg->reg.force_p2p, c.s->patch_override);
	if (!links(&c))
		pcie(&c);
	finish(out);
	p2ps_drv_reported_pair(a, (size_t)ap->a, (size_t)ap->b, &out->reported);
	out->agree = -1;
	for (int k = 0; out->reported.known && k < P2PS_NV_CAPS_COUNT; k++) {
		if (out->reported.st[k] == P2PS_NV_ST_UNKNOWN || out->st[k] == P2PS_NV_ST_UNKNOWN)
			continue;
		if (out->agree < 0)
			out->agree = 1;
		if (out->reported.st[k] != out->st[k])
			out->agree = 0;
	}
}
