/* SPDX-License-Identifier: MIT */
/* Per-pair verdicts: what stands between two endpoints and static-BAR1 P2P — the IOMMU
 * on the path, ACS redirects at the ports where the traffic turns, the path class,
 * mixed models, NCCL's own choice — plus every non-info finding of either GPU. */
#include "analysis_internal.h"
#include "p2pscope/driver_model.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"
#include "p2pscope/parse.h"

static void copy_gpu_reasons(struct p2ps_an_ctx *c, struct p2ps_pair *p,
                             const struct p2ps_gpu_report *g)
{
	for (size_t i = 0; i < g->reasons.n; i++) {
		const struct p2ps_reason *r = &g->reasons.v[i];
		if (r->sev == P2PS_SEV_INFO)
			continue;
		struct p2ps_reason *x =
		        p2ps_an_add(c, &p->reasons, r->code, r->sev, r->dev_idx, "%s", r->text);
		if (x)
			memcpy(x->fix, r->fix, sizeof(x->fix));
	}
}

const char *p2ps_an_iommu_fix(const char *kind)
{
	if (!strcmp(kind, "intel"))
		return "boot with intel_iommu=on iommu=pt (pass-through) or intel_iommu=off, or "
		       "disable VT-d in the firmware setup";
	if (!strcmp(kind, "amd"))
		return "boot with iommu=pt (pass-through) or amd_iommu=off, or disable AMD-Vi/"
		       "IOMMU in the firmware setup";
	return "boot with iommu=pt (or iommu.passthrough=1), or turn the IOMMU off";
}

/* Whether the pair's peer requests turn below a common bridge without any port
 * sending them up: then they never reach the root complex, and the IOMMU (which sits
 * there) neither translates nor blocks them. Unknown ACS at a turning port counts as
 * "may go up". */
static bool stays_below_lca(const struct p2ps_host *h, const struct p2ps_pair *p)
{
	if (p->lca_idx < 0)
		return false;
	for (int k = 0; k < 2; k++) {
		int t = p->turn[k];
		if (t < 0)
			continue;
		const struct p2ps_dev *br = &h->devs[t];
		if (br->acs.present ? p2ps_acs_redirect_bits(br->acs.ctl) != 0
		                    : p2ps_dev_unknown(br, P2PS_FACT_ACS) != NULL)
			return false;
	}
	return true;
}

/* A fork that needs the IOMMU in pass-through (aikitoria's README at 26e1ff53: its hugetlb
 * registration does not handle the scatterlist entries a translating IOMMU merges): a
 * translating IOMMU is a blocker whatever path the peer requests take. */
static bool iommu_pt_required(struct p2ps_an_ctx *c, struct p2ps_pair *p, int k)
{
	char as[224];
	const struct p2ps_nv_driver *r = p2ps_an_driver_row(c, as, sizeof(as));
	const struct p2ps_gpu_report *g = &c->a->gpus[k ? p->b : p->a];
	if (!r || !(r->props & P2PS_NV_FP_NEEDS_IOMMU_PT) || g->iommu != P2PS_IOMMU_TRANSLATING)
		return false;
	char lbl[48];
	p2ps_an_label(c->a, k ? p->b : p->a, lbl, sizeof(lbl));
	struct p2ps_reason *x = p2ps_an_add(
	        c, &p->reasons, P2PS_R_IOMMU_TRANSLATING, P2PS_SEV_BLOCKER, g->dev_idx,
	        "%s: the IOMMU translates its DMA (default domain %s), and %s (%s) needs it in "
	        "pass-through",
	        lbl, c->host->devs[g->dev_idx].iommu_domain_type, p2ps_nv_flavor_name(r->flavor),
	        as);
	p2ps_an_fix(x, "iommu=pt on the kernel command line (with %s_iommu=on)",
	            strcmp(c->host->iommu.kind, "amd") ? "intel" : "amd");
	return true;
}

/* "group 12", or "group unknown" where only the domain type is known (a paste). */
static const char *group_name(int group, char *buf, size_t size)
{
	if (group >= 0)
		snprintf(buf, size, "group %d", group);
	else
		snprintf(buf, size, "group unknown");
	return buf;
}

static void pair_iommu(struct p2ps_an_ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	bool below = stays_below_lca(h, p);
	for (int k = 0; k < 2; k++) {
		const struct p2ps_gpu_report *g = &c->a->gpus[k ? p->b : p->a];
		const struct p2ps_dev *d = &h->devs[g->dev_idx];
		char lbl[48], grp[32];
		p2ps_an_label(c->a, k ? p->b : p->a, lbl, sizeof(lbl));
		group_name(d->iommu_group, grp, sizeof(grp));
		struct p2ps_reason *x = NULL;
		if (iommu_pt_required(c, p, k))
			continue;
		switch (g->iommu) {
		case P2PS_IOMMU_TRANSLATING:
			if (below) {
				p2ps_an_add(c, &p->reasons, P2PS_R_IOMMU_TRANSLATING,
				            P2PS_SEV_WARNING, g->dev_idx,
				            "%s: the IOMMU translates its DMA (%s, default "
				            "domain "
				            "%s), but "
				            "this pair's peer requests turn at %s without an ACS "
				            "redirect, "
				            "so "
				            "they never reach it (and the pair is not isolated "
				            "from each "
				            "other)",
				            lbl, grp, d->iommu_domain_type,
				            h->devs[p->lca_idx].bdf_str);
				break;
			}
			x = p2ps_an_add(
			        c, &p->reasons, P2PS_R_IOMMU_TRANSLATING, P2PS_SEV_BLOCKER,
			        g->dev_idx,
			        "%s: the IOMMU translates its DMA (%s, default domain %s), "
			        "so a "
			        "peer BAR1 bus address reaching the root complex faults or lands "
			        "elsewhere",
			        lbl, grp, d->iommu_domain_type);
			p2ps_an_fix(x, "%s", p2ps_an_iommu_fix(h->iommu.kind));
			break;
		case P2PS_IOMMU_BLOCKED:
			x = p2ps_an_add(
			        c, &p->reasons, P2PS_R_IOMMU_BLOCKED, P2PS_SEV_BLOCKER, g->dev_idx,
			        "%s: its IOMMU group %d has a blocked domain: no DMA at all", lbl,
			        d->iommu_group);
			p2ps_an_fix(x, "%s", p2ps_an_iommu_fix(h->iommu.kind));
			break;
		case P2PS_IOMMU_UNMANAGED:
			p2ps_an_add(c, &p->reasons, P2PS_R_IOMMU_UNMANAGED, P2PS_SEV_WARNING,
			            g->dev_idx,
			            "%s: IOMMU group %d is owned by a VFIO user; peer DMA works "
			            "only where "
			            "that "
			            "user maps the peer's BARs (QEMU does)",
			            lbl, d->iommu_group);
			break;
		case P2PS_IOMMU_UNKNOWN: {
			const char *why = !h->iommu.known
			                          ? "the source carries no IOMMU state"
			                          : p2ps_dev_unknown(d, P2PS_FACT_IOMMU_GROUP);
			/* Requests that turn inside a switch never meet the IOMMU anyway. */
			p2ps_an_add(c, &p->reasons, P2PS_R_IOMMU_UNKNOWN,
			            below ? P2PS_SEV_INFO : P2PS_SEV_UNKNOWN, g->dev_idx,
			            "%s: IOMMU mode unknown%s: %s", lbl,
			            below ? " (irrelevant: this pair's requests stay in the switch)"
			                  : "",
			            why ? why
			                : "IOMMU present but the group's domain type is not known");
			break;
		}
		case P2PS_IOMMU_OFF:
		case P2PS_IOMMU_IDENTITY: break;
		}
	}
}

/* How to learn a bridge's ACS state, by where the host came from: extended config space
 * needs root to read, and what reads it depends on the source. */
static void acs_unknown_fix(struct p2ps_reason *x, enum p2ps_host_backend_kind kind,
                            const char *bdf)
{
	switch (kind) {
	case P2PS_HOST_SNAPSHOT:
		p2ps_an_fix(x,
		            "capture the host as root (sudo p2pscope-capture-host) to keep %s's "
		            "extended config space",
		            bdf);
		break;
	case P2PS_HOST_LSPCI_DUMP:
		p2ps_an_fix(x,
		            "dump as root with sudo lspci -xxxx, which includes %s's extended "
		            "config space",
		            bdf);
		break;
	case P2PS_HOST_PASTE:
		p2ps_an_fix(x, "paste the output of sudo lspci -vvv -s %s (its ACSCtl line)", bdf);
		break;
	case P2PS_HOST_LIVE:
	case P2PS_HOST_VFIO:
	default:
		p2ps_an_fix(x, "run bar-inspect as root (sudo) to read %s's extended config space",
		            bdf);
		break;
	}
}

void p2ps_an_path_acs(struct p2ps_an_ctx *c, struct p2ps_reasons *reasons, int lca_idx,
                      const int turn[2])
{
	const struct p2ps_host *h = c->host;
	for (int k = 0; k < 2; k++) {
		int t = turn[k];
		if (t < 0 || (k == 1 && t == turn[0]))
			continue;
		const struct p2ps_dev *br = &h->devs[t];
		bool root = br->pcie.present && br->pcie.port_type == P2PS_PCIE_ROOT_PORT;
		if (br->acs.present) {
			uint16_t red = p2ps_acs_redirect_bits(br->acs.ctl);
			if (!red)
				continue;
			/* Through a host bridge the traffic reaches the root complex anyway; a
			 * redirecting switch port bounces traffic that would stay in the switch. */
			bool blocker = !root && lca_idx >= 0;
			struct p2ps_reason *x = p2ps_an_add(
			        c, reasons,
			        blocker ? P2PS_R_ACS_REDIRECT : P2PS_R_ACS_REDIRECT_ROOT,
			        blocker ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING, t,
			        "bridge %s (%s) redirects peer traffic to the root complex: "
			        "ACSCtl%s%s%s",
			        br->bdf_str,
			        br->pcie.present ? p2ps_pcie_type_name(br->pcie.port_type)
			                         : "bridge",
			        (red & P2PS_ACS_RR) ? " ReqRedir+" : "",
			        (red & P2PS_ACS_CR) ? " CmpltRedir+" : "",
			        (red & P2PS_ACS_EC) ? " EgressCtrl+" : "");
			p2ps_an_fix(
			        x,
			        "setpci -s %s ECAP_ACS+0x6.w=%04x (as root; until reboot, and it "
			        "weakens "
			        "IOMMU isolation) or boot with pci=disable_acs_redir=%s",
			        br->bdf_str, p2ps_acs_ctl_without_redirect(br->acs.ctl),
			        br->bdf_str);
			continue;
		}
		const char *why = p2ps_dev_unknown(br, P2PS_FACT_ACS);
		if (why) {
			struct p2ps_reason *x = p2ps_an_add(
			        c, reasons, P2PS_R_ACS_UNKNOWN,
			        (root || lca_idx < 0) ? P2PS_SEV_INFO : P2PS_SEV_UNKNOWN, t,
			        "ACS state of bridge %s unknown: %s", br->bdf_str, why);
			acs_unknown_fix(x, c->host->kind, br->bdf_str);
		}
	}
}

static void pair_acs(struct p2ps_an_ctx *c, struct p2ps_pair *p)
{
	p2ps_an_path_acs(c, &p->reasons, p->lca_idx, p->turn);
}

/* Why the path between da and db has no class: the first fact missing. */
static const char *topology_unknown_why(const struct p2ps_dev *da, const struct p2ps_dev *db,
                                        char *missing, size_t size)
{
	const char *why = p2ps_dev_unknown(da, P2PS_FACT_PARENT);
	if (!why)
		why = p2ps_dev_unknown(db, P2PS_FACT_PARENT);
	for (int k = 0; k < 2 && !why; k++) {
		/* The topmost known device hangs below a bridge the source lacks. */
		const struct p2ps_dev *t = k ? db : da;
		for (int n = 0; t->parent && n < P2PS_PATH_MAX; n++)
			t = t->parent;
		if (t->parent_idx < 0 && t->has_parent) {
			char pb[20];
			snprintf(missing, size, "bridge %s above %s is not in the source",
			         p2ps_bdf_format(&t->parent_bdf, pb, sizeof(pb)), t->bdf_str);
			why = missing;
		}
	}
	if (!why && (da->numa_node < 0 || db->numa_node < 0))
		why = p2ps_dev_unknown(da->numa_node < 0 ? da : db, P2PS_FACT_NUMA);
	return why;
}

static void pair_topology(struct p2ps_an_ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	const struct p2ps_dev *da = &h->devs[c->a->gpus[p->a].dev_idx];
	const struct p2ps_dev *db = &h->devs[c->a->gpus[p->b].dev_idx];
	if (!p->nvlinks && c->a->gpus[p->a].is_gpu && c->a->gpus[p->b].is_gpu &&
	    (!da->gpu.nvlink_known || !db->gpu.nvlink_known)) {
		const struct p2ps_dev *u = da->gpu.nvlink_known ? db : da;
		const char *why = p2ps_dev_unknown(u, P2PS_FACT_NVLINK);
		p2ps_an_add(c, &p->reasons, P2PS_R_NVLINK, P2PS_SEV_INFO, -1,
		            "NVLink between the pair unknown (%s): without NVLink the BAR1 path is "
		            "what "
		            "CUDA peer access would use",
		            why ? why : "no NVML and no captured nvidia-smi");
	}
	if (p->nvlinks > 0)
		p2ps_an_add(c, &p->reasons, P2PS_R_NVLINK, P2PS_SEV_INFO, -1,
		            "NVLink connects the pair (NV%d): CUDA peer access uses NVLink, so the "
		            "BAR1 "
		            "path is moot",
		            p->nvlinks);
	switch (p->pcie_topo) {
	case P2PS_TOPO_PHB:
		if (!p->moot)
			p2ps_an_add(
			        c, &p->reasons, P2PS_R_PATH_HOST_BRIDGE, P2PS_SEV_INFO, -1,
			        "peer traffic crosses the host bridge (PHB): it relies on the root "
			        "complex forwarding peer writes, which AMD and recent Intel CPUs "
			        "do");
		break;
	case P2PS_TOPO_NODE:
		if (!p->moot)
			p2ps_an_add(c, &p->reasons, P2PS_R_PATH_HOST_BRIDGE, P2PS_SEV_WARNING, -1,
			            "peer traffic crosses two host bridges inside one NUMA node "
			            "(NODE): "
			            "bandwidth depends on the CPU's internal fabric");
		break;
	case P2PS_TOPO_SYS: {
		if (p->moot)
			break;
		bool intel = p2ps_an_is_intel_host(h);
		struct p2ps_reason *x = p2ps_an_add(
		        c, &p->reasons, P2PS_R_PATH_CPU_INTERCONNECT,
		        intel ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING, -1,
		        "peer traffic crosses the CPU interconnect between NUMA nodes %d and "
		        "%d (SYS)%s",
		        da->numa_node, db->numa_node,
		        intel ? ": Intel's UPI/QPI does not forward PCIe peer traffic"
		              : ": expect a fraction of the PCIe bandwidth");
		p2ps_an_fix(x,
		            "put both GPUs under one CPU socket (same NUMA node), ideally one PCIe "
		            "switch");
		break;
	}
	case P2PS_TOPO_UNKNOWN: {
		char missing[96];
		const char *why = topology_unknown_why(da, db, missing, sizeof(missing));
		p2ps_an_add(c, &p->reasons, P2PS_R_TOPOLOGY_UNKNOWN,
		            p->moot ? P2PS_SEV_INFO : P2PS_SEV_UNKNOWN, -1,
		            "PCIe path between the GPUs unknown: %s",
		            why ? why : "the PCI tree or NUMA nodes are incomplete");
		break;
	}
	case P2PS_TOPO_PIX:
	case P2PS_TOPO_PXB:
	case P2PS_TOPO_X:
	case P2PS_TOPO_NV: break;
	}
}

static const char *const nccl_path_names[P2PS_NCCL_PATH_COUNT] = {
        "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};

const char *p2ps_nccl_path_name(int t)
{
	return t >= 0 && t < P2PS_NCCL_PATH_COUNT ? nccl_path_names[t] : "?";
}

const char *p2ps_an_nccl_level_name(int level)
{
	return p2ps_nccl_path_name(level);
}

/* NCCL's ncclGetLevel (src/graph/paths.cc): a path type's name up to SYS, or an old number
 * (levelsOldToNew: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and above SYS); -1 unset or neither. */
int p2ps_an_nccl_level(const char *v)
{
	static const int old_levels[] = {P2PS_NCCL_LOC, P2PS_NCCL_PIX, P2PS_NCCL_PXB, P2PS_NCCL_PHB,
	                                 P2PS_NCCL_SYS};
	uint64_t n;
	if (!v)
		return -1;
	for (int i = 0; i <= P2PS_NCCL_SYS; i++)
		if (!strcmp(v, nccl_path_names[i]))
			return i;
	if (v[0] < '0' || v[0] > '9' || !p2ps_scan_uint(v, 10, UINT32_MAX, &n))
		return -1;
	return old_levels[n < 4 ? n : 4];
}

/* The path type NCCL gives a pair of GPUs of one host (its PCI classes as nvidia-smi's;
 * NCCL has no NODE: a NUMA node's host bridges hang off one CPU node, so NODE is its PHB). */
int p2ps_an_nccl_rank(enum p2ps_topo t)
{
	switch (t) {
	case P2PS_TOPO_X: return P2PS_NCCL_LOC;
	case P2PS_TOPO_NV: return P2PS_NCCL_NVL;
	case P2PS_TOPO_PIX: return P2PS_NCCL_PIX;
	case P2PS_TOPO_PXB: return P2PS_NCCL_PXB;
	case P2PS_TOPO_PHB:
	case P2PS_TOPO_NODE: return P2PS_NCCL_PHB;
	case P2PS_TOPO_SYS: return P2PS_NCCL_SYS;
	case P2PS_TOPO_UNKNOWN: break;
	}
	return -1;
}

int p2ps_nccl_path_of(enum p2ps_topo t)
{
	return p2ps_an_nccl_rank(t);
}

/* NCCL's P2P level for this host (ncclTopoCheckP2p, src/graph/paths.cc): PXB by default,
 * SYS on x86 AMD hosts with at most two GPUs, NCCL_P2P_LEVEL when set, LOC (no P2P at all)
 * when NCCL_P2P_DISABLE reads as 1 (ncclGetLevel). *from says which. */
static int nccl_p2p_level(const struct p2ps_an_ctx *c, const char **from)
{
	const struct p2ps_host *h = c->host;
	if (p2ps_an_nccl_disables(p2ps_an_nccl_var(h, "NCCL_P2P_DISABLE"))) {
		*from = "NCCL_P2P_DISABLE";
		return P2PS_NCCL_LOC;
	}
	int level = p2ps_an_nccl_level(p2ps_an_nccl_var(h, "NCCL_P2P_LEVEL"));
	if (level >= 0) {
		*from = "NCCL_P2P_LEVEL";
		return level;
	}
	bool amd = !p2ps_an_is_intel_host(h) &&
	           (!strcmp(h->iommu.kind, "amd") || p2ps_an_host_bridge_vendor(h) == 0x1022);
	size_t gpus = 0;
	for (size_t i = 0; i < c->a->n_gpus; i++)
		gpus += c->a->gpus[i].is_gpu;
	*from = amd && gpus <= 2 ? "default on AMD hosts with two GPUs" : "default";
	return amd && gpus <= 2 ? P2PS_NCCL_SYS : P2PS_NCCL_PXB;
}

/* What NCCL would do with this pair: P2P when the path is within its P2P level. NCCL
 * then still asks NVML whether the driver allows P2P reads and writes and CUDA whether
 * the GPUs can access each other (p2pCanConnect, src/transport/p2p.cc); those are the
 * driver's and CUDA's answers, which the analysis does not have. NCCL never looks at ACS
 * or the IOMMU itself, which is why a pair it admits can hang. */
static void pair_nccl(struct p2ps_an_ctx *c, struct p2ps_pair *p)
{
	p->nccl_p2p = p->nccl_level = -1;
	p->nccl_level_from = NULL;
	if (!c->a->gpus[p->a].is_gpu || !c->a->gpus[p->b].is_gpu || p->topo == P2PS_TOPO_UNKNOWN)
		return;
	const char *from = NULL;
	int level = nccl_p2p_level(c, &from);
	int r = p2ps_an_nccl_rank(p->topo);
	p->nccl_level = level;
	p->nccl_level_from = from;
	p->nccl_p2p = r <= level;
	if (level == P2PS_NCCL_LOC) {
		p2ps_an_add(c, &p->reasons, P2PS_R_NCCL_LEVEL, P2PS_SEV_INFO, -1,
		            "NCCL will not use P2P for this pair: NCCL_P2P_DISABLE=%s",
		            p2ps_an_nccl_var(c->host, "NCCL_P2P_DISABLE"));
		return;
	}
	bool set = !strcmp(from, "NCCL_P2P_LEVEL");
	p2ps_an_add(c, &p->reasons, P2PS_R_NCCL_LEVEL, P2PS_SEV_INFO, -1,
	            "NCCL (P2P level %s, %s%s) would %s P2P for this pair (%s path)%s",
	            p2ps_an_nccl_level_name(level), set ? "" : "NCCL's ", set ? "set" : from,
	            r <= level ? "use" : "not use",
	            p->topo == P2PS_TOPO_NV ? "NVLink" : p2ps_topo_name(p->topo),
	            r <= level ? "" : "; it copies through host memory instead");
}

/* A fork whose BAR1 path skips the chip check (aikitoria's p2p_caps.c at 3228cfd8: BAR1 with
 * fresh statuses, compatibility gating the mailbox only) and that ships a libcuda patch:
 * two chips of one generation peer; two generations only with libcuda patched, as CUDA
 * compares the architectures itself. Returns true when it judged the pair. */
static bool fork_mixed(struct p2ps_an_ctx *c, struct p2ps_pair *p, const struct p2ps_dev *da,
                       const struct p2ps_dev *db)
{
	char as[224];
	const struct p2ps_nv_driver *r = p2ps_an_driver_row(c, as, sizeof(as));
	if (!r || !(r->props & P2PS_NV_FP_LIBCUDA_MIXED_GEN) || !da->chip || !db->chip ||
	    da->chip == db->chip)
		return false;
	const char *fl = p2ps_nv_flavor_name(r->flavor);
	const char *na = p2ps_nvidia_chip_name(da->chip), *nb = p2ps_nvidia_chip_name(db->chip);
	if (da->chip->generation == db->chip->generation) {
		p2ps_an_add(c, &p->reasons, P2PS_R_MIXED_CHIPS, P2PS_SEV_INFO, -1,
		            "different chips of one generation (%s, %s): %s (%s) maps BAR1 peers "
		            "across models",
		            na, nb, fl, as);
		return true;
	}
	const struct p2ps_drv_config *cfg = c->drv;
	const char *gens = p2ps_nv_generation_name(da->chip->generation);
	const char *genb = p2ps_nv_generation_name(db->chip->generation);
	if (cfg->libcuda == P2PS_NV_LIBCUDA_PATCHED) {
		p2ps_an_add(c, &p->reasons, P2PS_R_MIXED_GENERATIONS, P2PS_SEV_INFO, -1,
		            "different generations (%s %s, %s %s): %s (%s) maps them, and libcuda "
		            "is patched (%s)",
		            na, gens, nb, genb, fl, as, cfg->libcuda_row->what);
		return true;
	}
	bool unpatched = cfg->libcuda == P2PS_NV_LIBCUDA_UNPATCHED;
	struct p2ps_reason *x = p2ps_an_add(
	        c, &p->reasons, P2PS_R_MIXED_GENERATIONS,
	        unpatched ? P2PS_SEV_BLOCKER : P2PS_SEV_UNKNOWN, -1,
	        "different generations (%s %s, %s %s): %s (%s) maps them, but CUDA refuses peers "
	        "of two generations unless libcuda is patched; libcuda: %s",
	        na, gens, nb, genb, fl, as,
	        unpatched ? cfg->libcuda_row->what
	        : c->host->nvidia.libcuda_sha256[0]
	                ? "a digest no known release or patch has (unknown)"
	                : "not hashed (bar-inspect --libcuda FILE hashes it)");
	p2ps_an_fix(x, "patch libcuda for mixed generations (aikitoria's patch-libcuda-p2p.py), "
	               "or pair GPUs of one generation");
	return true;
}

static void pair_models(struct p2ps_an_ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	const struct p2ps_dev *da = &h->devs[c->a->gpus[p->a].dev_idx];
	const struct p2ps_dev *db = &h->devs[c->a->gpus[p->b].dev_idx];
	/* Device id 0: not known (a paste may name only the board); the chips still compare. */
	bool ids = da->device_id && db->device_id;
	if (!c->a->gpus[p->a].is_gpu || !c->a->gpus[p->b].is_gpu ||
	    (ids && da->device_id == db->device_id))
		return;
	if (fork_mixed(c, p, da, db))
		return;
	if (da->chip && db->chip && da->chip->generation != db->chip->generation) {
		p2ps_an_add(c, &p->reasons, P2PS_R_MIXED_GENERATIONS, P2PS_SEV_BLOCKER, -1,
		            "different generations: %s (%s) and %s (%s); the patched driver maps "
		            "peers of "
		            "one generation only",
		            p2ps_nvidia_chip_name(da->chip),
		            p2ps_nv_generation_name(da->chip->generation),
		            p2ps_nvidia_chip_name(db->chip),
		            p2ps_nv_generation_name(db->chip->generation));
	} else if (da->chip && db->chip && da->chip != db->chip) {
		p2ps_an_add(c, &p->reasons, P2PS_R_MIXED_CHIPS, P2PS_SEV_BLOCKER, -1,
		            "different chips: %s and %s; users report that mixed-model pairs never "
		            "peer "
		            "with the patched driver",
		            p2ps_nvidia_chip_name(da->chip), p2ps_nvidia_chip_name(db->chip));
	} else if (ids) {
		p2ps_an_add(c, &p->reasons, P2PS_R_MIXED_MODELS, P2PS_SEV_WARNING, -1,
		            "different models: device ids %04x and %04x%s%s", da->device_id,
		            db->device_id, da->chip ? " of chip " : "",
		            da->chip ? p2ps_nvidia_chip_name(da->chip) : "");
	}
}

enum p2ps_verdict p2ps_an_verdict(const struct p2ps_reasons *r)
{
	bool blocker = false, unknown = false;
	for (size_t i = 0; i < r->n; i++) {
		blocker |= r->v[i].sev == P2PS_SEV_BLOCKER;
		unknown |= r->v[i].sev == P2PS_SEV_UNKNOWN;
	}
	return blocker   ? P2PS_VERDICT_NOT_READY
	       : unknown ? P2PS_VERDICT_UNKNOWN
	                 : P2PS_VERDICT_READY;
}

void p2ps_an_pair(struct p2ps_an_ctx *c, struct p2ps_pair *p)
{
	pair_topology(c, p);
	pair_models(c, p);
	pair_iommu(c, p);
	pair_acs(c, p);
	pair_nccl(c, p);
	copy_gpu_reasons(c, p, &c->a->gpus[p->a]);
	copy_gpu_reasons(c, p, &c->a->gpus[p->b]);
	p->verdict = p2ps_an_verdict(&p->reasons);
	p2ps_an_reasons_sort(&p->reasons);
}
