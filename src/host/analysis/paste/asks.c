/* SPDX-License-Identifier: MIT */
/* What to send next. Each fact a verdict can turn on has one command that shows it; a
 * symptom lists the facts that separate its causes, most telling first, and the asks
 * follow that order, skipping the facts the paste already holds. */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"

static const struct {
	const char *command;
	const char *what;
} fact_asks[] = {
        [PO_F_BAR1] = {"nvidia-smi -q -d MEMORY",
                       "BAR1 and VRAM (FB Memory Usage) of every GPU: a peer mapping needs BAR1 "
                       "room"},
        [PO_F_CMDLINE] = {"cat /proc/cmdline",
                          "the IOMMU flags the kernel booted with (iommu=, intel_iommu=, "
                          "amd_iommu=)"},
        [PO_F_IOMMU] = {"sudo dmesg | grep -iE 'iommu|dmar|amd-vi'",
                        "whether an IOMMU is on and in which default domain"},
        [PO_F_ACS] = {"sudo lspci -vvv",
                      "ACS (the ACSCtl line) of the switch and root ports between the GPUs: run "
                      "lspci as root"},
        [PO_F_DRIVER] = {"cat /proc/driver/nvidia/version",
                         "which driver is loaded: the stock one, or the P2P-patched open kernel "
                         "modules"},
        [PO_F_MODELS] = {"nvidia-smi --query-gpu=index,pci.bus_id,name,memory.total "
                         "--format=csv",
                         "the PCI address, model and VRAM of every GPU nvidia-smi numbers"},
        [PO_F_P2P_MATRIX] = {"nvidia-smi topo -p2p r",
                             "whether the driver allows P2P reads per pair (OK, CNS, GNS, NS)"},
        [PO_F_TREE] = {"lspci -tv", "how the GPUs hang off PCIe switches and root ports"},
        [PO_F_DATA] = {"./p2pBandwidthLatencyTest",
                       "the whole output: whether peer copies beat copies through host memory"},
        [PO_F_NVRM] = {"sudo dmesg | grep -E 'NVRM|Xid'",
                       "the driver's log: the static BAR1 mapping of every GPU, Xid faults"},
        [PO_F_SHM] = {"df -h /dev/shm",
                      "the size of /dev/shm where NCCL runs (a container's default is 64 MB)"},
        [PO_F_NCCL_LOG] = {"NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM <the failing command>",
                           "NCCL's log: the transport each channel used and its warnings"},
        [PO_F_PEERMEM] = {"lsmod | grep -E 'nvidia_peermem|nv_peer_mem'",
                          "whether a peer-memory module lets the NIC map GPU memory "
                          "(GPUDirect RDMA)"},
};

/* Per symptom: what it means and the facts that separate its causes, in order. */
static const struct {
	const char *meaning;
	enum po_fact order[5];
} sym_rows[P2PS_PS_COUNT] = {
        [P2PS_PS_MAP_FAILED] = {"the driver refused to map a peer's memory (CUDA error 205): "
                                "BAR1 too small for the peer mappings first, then what the "
                                "driver logged about the mapping it refused, then an IOMMU "
                                "that translates or a driver without P2P for these GPUs",
                                {PO_F_BAR1, PO_F_NVRM, PO_F_CMDLINE, PO_F_DRIVER, PO_F_NONE}},
        [P2PS_PS_PEER_UNSUPPORTED] = {"CUDA will not enable peer access for this pair: the "
                                      "driver's decision (GPU model, driver, chipset or "
                                      "topology)",
                                      {PO_F_MODELS, PO_F_DRIVER, PO_F_P2P_MATRIX, PO_F_TREE,
                                       PO_F_NONE}},
        [P2PS_PS_ILLEGAL_ACCESS] = {"a kernel touched memory it may not (CUDA error 700): "
                                    "with peer copies, a peer address the IOMMU or ACS "
                                    "routing did not deliver",
                                    {PO_F_CMDLINE, PO_F_IOMMU, PO_F_ACS, PO_F_NVRM, PO_F_NONE}},
        [P2PS_PS_WRONG_DATA] = {"peer copies deliver wrong data (zeros): writes routed "
                                "through an IOMMU that translates them, or ACS redirecting "
                                "them, or a GPU without its static BAR1 mapping",
                                {PO_F_CMDLINE, PO_F_IOMMU, PO_F_ACS, PO_F_DATA, PO_F_NVRM}},
        [P2PS_PS_HANG] = {"a collective hung or timed out: peer writes that never arrive "
                          "(ACS, IOMMU) look like this",
                          {PO_F_ACS, PO_F_CMDLINE, PO_F_DATA, PO_F_NCCL_LOG, PO_F_NONE}},
        [P2PS_PS_P2P_DISABLED] = {"CUDA refuses peer access between GPUs that NCCL's "
                                  "topology would connect directly: the driver's decision "
                                  "(GPU model and driver, chipset, a VM)",
                                  {PO_F_MODELS, PO_F_DRIVER, PO_F_P2P_MATRIX, PO_F_CMDLINE,
                                   PO_F_NONE}},
        [P2PS_PS_SHM] = {"NCCL could not create its shared-memory segment", {PO_F_SHM, PO_F_NONE}},
        [P2PS_PS_CUDA_ERROR] = {"a CUDA or NCCL call failed",
                                {PO_F_DRIVER, PO_F_NCCL_LOG, PO_F_MODELS, PO_F_NONE}},
        [P2PS_PS_NET_ERROR] = {"the NIC completed a transfer with an error: with GPUDirect "
                               "RDMA, ACS redirecting the NIC's peer requests on the ports "
                               "between it and the GPU (NCCL's maintainers on IB error 4, "
                               "vendor error 81: NVIDIA/nccl#928), or an IOMMU translating "
                               "them",
                               {PO_F_ACS, PO_F_CMDLINE, PO_F_PEERMEM, PO_F_NONE}},
        [P2PS_PS_TOO_MANY_PEERS] = {"a GPU ran out of peer mappings (CUDA error 711): CUDA "
                                    "maps at most eight peers per GPU where no NVSwitch "
                                    "joins them, so enabling peer access among more GPUs "
                                    "fails",
                                    {PO_F_MODELS, PO_F_P2P_MATRIX, PO_F_TREE, PO_F_NONE}},
        [P2PS_PS_GDR_REG] = {"the NIC could not register GPU memory: without a peer-memory "
                             "module (nvidia-peermem) or dma-buf the RDMA stack cannot map "
                             "it",
                             {PO_F_PEERMEM, PO_F_DRIVER, PO_F_ACS, PO_F_NONE}},
        [P2PS_PS_GDR_PIN] = {"GPU memory could not be pinned for a third-party device "
                             "(gdrcopy's gdr_pin_buffer): the driver and the kernel module "
                             "that pins (gdrdrv, a peer-memory module) out of step, or the "
                             "driver refusing the pages",
                             {PO_F_DRIVER, PO_F_NVRM, PO_F_PEERMEM, PO_F_NONE}},
};

const char *po_symptom_meaning(enum p2ps_paste_symptom s)
{
	return (unsigned)s < P2PS_PS_COUNT ? sym_rows[s].meaning : "";
}

static bool acs_known(const struct octx *c)
{
	if (c->ev->acs_loose.lines)
		return true;
	for (size_t i = 0; i < c->h->n_devs; i++)
		if (p2ps_dev_is_bridge(&c->h->devs[i]) && c->h->devs[i].acs.present)
			return true;
	return false;
}

static bool bar1_known(const struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_gpus; i++)
		if (c->ev->gpus[i].bar1_known)
			return true;
	for (size_t i = 0; i < c->h->n_devs; i++)
		if (p2ps_dev_is_nvidia_gpu(&c->h->devs[i]) && c->h->devs[i].bars[1].size_known)
			return true;
	return false;
}

bool po_held(const struct octx *c, enum po_fact f)
{
	const struct p2ps_evidence *ev = c->ev;
	switch (f) {
	case PO_F_BAR1: return bar1_known(c);
	case PO_F_CMDLINE: return ev->host.cmdline_known;
	case PO_F_IOMMU: return c->h->iommu.known;
	case PO_F_ACS: return acs_known(c);
	case PO_F_DRIVER:
		return ev->host.driver_open >= 0 || strstr(ev->host.driver_version, "p2p");
	case PO_F_MODELS: return po_any_gpu_named(c);
	case PO_F_P2P_MATRIX: return ev->matrix[P2PS_PM_P2P].present;
	case PO_F_TREE: return po_block_read(c, P2PS_PASTE_LSPCI_TREE);
	case PO_F_DATA: return po_measured(c);
	case PO_F_NVRM:
		return ev->event_count[P2PS_PE_DRIVER_LOAD] || ev->event_count[P2PS_PE_STATIC_BAR1];
	case PO_F_NCCL_LOG: return ev->nccl.version[0] || ev->nccl.via[P2PS_NV_P2P];
	case PO_F_PEERMEM: return ev->host.modules_listed > 0;
	default: return false;
	}
}

void po_ask_fact(struct octx *c, enum po_fact f)
{
	if ((unsigned)f < PO_F_NONE)
		po_ask(c, fact_asks[f].command, "%s", fact_asks[f].what);
}

/* Asks for f unless the paste holds it. */
static void need(struct octx *c, enum po_fact f)
{
	if (!po_held(c, f))
		po_ask_fact(c, f);
}

/* The symptom's own order of facts. */
static void symptom_order(struct octx *c, enum p2ps_paste_symptom s)
{
	for (int k = 0; k < 5 && sym_rows[s].order[k] != PO_F_NONE; k++)
		need(c, sym_rows[s].order[k]);
}

/* Whether CUDA's peer access grants some pairs and refuses others, and the GPUs' models do
 * not explain the split (refusals exactly between different models are their own
 * finding). */
static bool access_split(const struct octx *c)
{
	for (size_t i = 0; i < c->r->findings.n; i++) {
		enum p2ps_reason_code k = c->r->findings.v[i].code;
		if (k == P2PS_R_MIXED_GENERATIONS || k == P2PS_R_MIXED_CHIPS ||
		    k == P2PS_R_MIXED_MODELS)
			return false;
	}
	bool yes = false, no = false;
	int n = c->ev->matrix[P2PS_PM_CUDA_ACCESS].n;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			const char *s = i != j ? po_cell(c, P2PS_PM_CUDA_ACCESS, i, j) : NULL;
			yes |= s && s[0] == '1';
			no |= s && s[0] == '0';
		}
	return yes && no;
}

/* Peer access refused. Refused outright (CUDA, NCCL's "could not enable P2P"): what the
 * cards are first (GeForce cards without P2P on the stock driver against a platform that
 * refuses it), then which driver runs where the cards' P2P depends on it (not in a VM:
 * there the host's driver decides). Refused for some pairs only, refused where the
 * topology is in the paste, or NCCL quietly on host memory: what the driver itself says
 * per pair and where the GPUs sit first. */
static void refused_asks(struct octx *c)
{
	/* CUDA granting some pairs and refusing others (groups): where the GPUs sit first. */
	if (access_split(c) && !c->ev->matrix[P2PS_PM_TOPO].present)
		need(c, PO_F_TREE);
	if (!po_refused_explicitly(c) || po_granted(c) || c->ev->matrix[P2PS_PM_TOPO].present) {
		need(c, PO_F_P2P_MATRIX);
		need(c, PO_F_TREE);
	}
	need(c, PO_F_MODELS);
	if (po_driver_dependent(c) && !po_driver_known(c) && !c->ev->host.vm)
		need(c, PO_F_DRIVER);
	need(c, PO_F_P2P_MATRIX);
	need(c, PO_F_TREE);
	need(c, PO_F_DRIVER);
}

/* Whether the driver asserted in its IO virtual address space code (the IOMMU's). */
static bool iommu_assert(const struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_events; i++) {
		const struct p2ps_paste_event *e = &c->ev->events[i];
		if (e->kind == P2PS_PE_ASSERT &&
		    (strstr(e->text, "IOVAS") || strstr(e->text, "iovas") ||
		     strstr(e->text, "io_vaspace") || strstr(e->text, "IOMMU")))
			return true;
	}
	return false;
}

/* Peer access granted on GeForce cards the stock driver gives no P2P: a P2P-patched driver
 * runs, whatever its version says. */
static bool patched_at_work(const struct octx *c)
{
	bool family = false;
	for (size_t i = 0; i < c->ev->n_gpus; i++)
		family |= po_geforce_family(c->ev->gpus[i].name) != NULL;
	return family && po_granted(c);
}

/* Peer access granted (or nccl-tests started) and nothing measured the copies: on
 * GeForce cards the stock driver gives no P2P (access granted: a P2P-patched driver) its
 * first need, a BAR1 that covers VRAM; GPUs behind one switch, its ACS; else whether the
 * copies complete and beat host copies. */
static void unmeasured_asks(struct octx *c)
{
	if (patched_at_work(c))
		need(c, PO_F_BAR1);
	need(c, po_switch_pairs(c) ? PO_F_ACS : PO_F_DATA);
}

/* A hang: on GeForce cards whose P2P depends on the driver, the driver first; on NVLink
 * boards whether the GPUs reach each other (the copies, NCCL's transport per channel);
 * where peer access is granted and nothing measured the copies, unless the GPUs share a
 * switch, whether the copies complete; else the symptom's order (ACS, IOMMU). */
static void hang_asks(struct octx *c)
{
	if (po_driver_dependent(c) && !po_driver_known(c)) {
		need(c, PO_F_DRIVER);
		need(c, PO_F_P2P_MATRIX);
	}
	if (po_nvlink_boards_only(c) && !po_measured(c)) {
		need(c, PO_F_DATA);
		need(c, PO_F_NCCL_LOG);
	}
	if (po_granted(c) && !po_measured(c) && !po_switch_pairs(c))
		need(c, PO_F_DATA);
	symptom_order(c, P2PS_PS_HANG);
}

/* GPUDirect RDMA off: whether a peer-memory module is loaded, then which NCCL runs (before
 * 2.23 NCCL looks for nv_peer_mem only), then the path between GPU and NIC. */
static void gdr_asks(struct octx *c)
{
	need(c, PO_F_PEERMEM);
	if (!c->ev->nccl.version[0])
		po_ask_fact(c, PO_F_NCCL_LOG);
	need(c, PO_F_ACS);
}

/* Whether every block read is an inventory: nvidia-smi's table or -q, the environment. */
static bool inventory_only(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	bool any = false;
	for (size_t i = 0; i < ev->n_blocks; i++) {
		enum p2ps_paste_kind k = ev->blocks[i].kind;
		if (k == P2PS_PASTE_TEXT)
			continue;
		if (k != P2PS_PASTE_NVSMI_TABLE && k != P2PS_PASTE_NVSMI_Q &&
		    k != P2PS_PASTE_ENVIRONMENT)
			return false;
		any = true;
	}
	return any && !ev->host.vm;
}

/* Whether the paste names GPUs and shows nothing gone wrong (no symptom, no failed test,
 * no fault or assertion the driver logged, no blocker found) and no copy between them;
 * and what it does show is P2P allowed (CUDA's grants, the driver's OK, NVLink in the
 * topology) with no pair refused, or only an inventory of the GPUs. The driver's or
 * CUDA's word is not a copy: whether peer copies complete and beat host copies is the
 * first question. */
static bool allowed_and_unmeasured(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	static const enum p2ps_paste_event_kind faults[] = {
	        P2PS_PE_PEER_DMA_UNALIGNED, P2PS_PE_IOMMU_MAP_FAILED, P2PS_PE_ASSERT, P2PS_PE_XID,
	        P2PS_PE_IOMMU_FAULT,        P2PS_PE_BAR1_INVALID};
	if (!ev->n_gpus || po_measured(c) || po_failure_seen(c) || po_gdr_paste(c))
		return false;
	for (int s = 0; s < P2PS_PS_COUNT; s++)
		if (ev->sym.count[s])
			return false;
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		if (ev->event_count[faults[i]])
			return false;
	for (size_t i = 0; i < c->r->findings.n; i++)
		if (c->r->findings.v[i].sev == P2PS_SEV_BLOCKER)
			return false;
	bool allowed = false;
	for (size_t i = 0; i < c->r->n_pairs; i++)
		allowed |= c->r->pairs[i].works == 1;
	return (allowed && !po_refused(c)) || inventory_only(c);
}

/* P2P=Enabled figures without the P2P=Disabled ones they are measured against (an
 * excerpt that kept only the matrices with P2P on). */
static bool enabled_without_baseline(const struct octx *c)
{
	const struct p2ps_paste_matrix_info *m = c->ev->matrix;
	bool on = m[P2PS_PM_BW_UNI_ON].present || m[P2PS_PM_BW_BI_ON].present ||
	          m[P2PS_PM_LAT_ON].present;
	bool off = m[P2PS_PM_BW_UNI_OFF].present || m[P2PS_PM_BW_BI_OFF].present ||
	           m[P2PS_PM_LAT_OFF].present;
	return on && !off && !po_failure_seen(c);
}

static bool no_gain(const struct octx *c)
{
	for (size_t i = 0; i < c->r->findings.n; i++)
		if (c->r->findings.v[i].code == P2PS_PF_P2P_NO_GAIN &&
		    c->r->findings.v[i].sev == P2PS_SEV_BLOCKER)
			return true;
	return false;
}

/* Whether the paste gives some GPU's BAR1 and not its VRAM: the one fact that says whether
 * that BAR1 covers it. */
static bool bar1_without_vram(const struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_gpus; i++)
		if (c->ev->gpus[i].bar1_known && !c->ev->gpus[i].vram_known)
			return true;
	return false;
}

/* p2pBandwidthLatencyTest's output that stops before its P2P=Enabled figures (the devices
 * and access lines, perhaps the P2P=Disabled rows): the rest of the same run answers, unless
 * GPUs share a switch, whose ACS comes first whatever the figures say. */
static bool bandwidth_test_cut(const struct octx *c)
{
	const struct p2ps_paste_matrix_info *m = c->ev->matrix;
	if (m[P2PS_PM_BW_UNI_ON].present || m[P2PS_PM_BW_BI_ON].present ||
	    m[P2PS_PM_LAT_ON].present)
		return false;
	return !strcmp(c->ev->cuda.test, "p2pBandwidthLatencyTest") && !po_failure_seen(c) &&
	       !po_switch_pairs(c);
}

/* Whether nvidia-smi topo -p2p prints the driver refusing a GPU or the chipset (GNS,
 * CNS): the driver's own decision, which its release and build (stock, P2P-patched)
 * decide first. */
static bool driver_refuses(const struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_obs; i++) {
		const struct p2ps_pair_obs *o = &c->ev->obs[i];
		enum p2ps_nv_status st;
		if (o->kind == P2PS_PM_P2P && !p2ps_nv_status_from_code(o->text, &st) &&
		    (st == P2PS_NV_ST_GPU_NOT_SUPPORTED || st == P2PS_NV_ST_CHIPSET_NOT_SUPPORTED))
			return true;
	}
	return false;
}

void po_symptom_asks(struct octx *c)
{
	if (driver_refuses(c) && !po_driver_known(c))
		need(c, PO_F_DRIVER);
	if (bandwidth_test_cut(c))
		po_ask(c, fact_asks[PO_F_DATA].command,
		       "the whole output: the paste stops before its P2P=Enabled matrices, which "
		       "say whether peer copies beat copies through host memory");
	if (bar1_without_vram(c) && !po_failure_seen(c))
		po_ask_fact(c, PO_F_MODELS);
	if (enabled_without_baseline(c))
		po_ask(c, fact_asks[PO_F_DATA].command,
		       "the whole output: its P2P=Disabled matrices are the copies through host "
		       "memory that the P2P=Enabled figures are measured against");
	if (allowed_and_unmeasured(c))
		need(c, PO_F_DATA);
	const struct p2ps_evidence *ev = c->ev;
	const int *n = ev->sym.count;
	bool wrong = n[P2PS_PS_WRONG_DATA] || ev->cuda.verify_errors || ev->cuda.result == 0 ||
	             ev->cuda.nccl_wrong > 0;
	if (n[P2PS_PS_SHM])
		symptom_order(c, P2PS_PS_SHM);
	/* ACS lines that redirect, without the ports they belong to: the full listing. */
	if (ev->acs_loose.redirect)
		po_ask_fact(c, PO_F_ACS);
	if (n[P2PS_PS_MAP_FAILED])
		symptom_order(c, P2PS_PS_MAP_FAILED);
	/* Peer copies slower than copies through host memory: the writes take a detour
	 * through the root complex, which ACS redirect or the IOMMU send them on. */
	if (no_gain(c)) {
		need(c, PO_F_ACS);
		need(c, PO_F_CMDLINE);
	}
	/* Wrong data between NVLink boards: the copies never touch the PCIe path, the
	 * driver's log (Xid, NVLink errors) comes first. */
	if (wrong && po_nvlink_boards_only(c))
		need(c, PO_F_NVRM);
	if (wrong) {
		need(c, PO_F_CMDLINE);
		need(c, PO_F_IOMMU);
		if (po_driver_dependent(c) && !po_driver_known(c))
			need(c, PO_F_DRIVER);
		symptom_order(c, P2PS_PS_WRONG_DATA);
	}
	if (n[P2PS_PS_ILLEGAL_ACCESS])
		symptom_order(c, P2PS_PS_ILLEGAL_ACCESS);
	if (n[P2PS_PS_GDR_PIN])
		symptom_order(c, P2PS_PS_GDR_PIN);
	if (n[P2PS_PS_GDR_REG])
		symptom_order(c, P2PS_PS_GDR_REG);
	if (n[P2PS_PS_TOO_MANY_PEERS])
		symptom_order(c, P2PS_PS_TOO_MANY_PEERS);
	if (n[P2PS_PS_NET_ERROR])
		symptom_order(c, P2PS_PS_NET_ERROR);
	if ((ev->nccl.gdr_disabled && !ev->nccl.gdr_enabled) ||
	    (ev->nccl.via_gdr && ev->nccl.recv_no_gdr))
		gdr_asks(c);
	if (po_refused(c))
		refused_asks(c);
	if (n[P2PS_PS_HANG])
		hang_asks(c);
	if (n[P2PS_PS_CUDA_ERROR])
		symptom_order(c, P2PS_PS_CUDA_ERROR);
	/* The context, where no symptom decided: GPUDirect RDMA (the GPU-NIC path's ACS),
	 * IOMMU faults or an assertion in the driver's IOMMU code (the IOMMU flags), a GeForce
	 * family whose P2P depends on an unnamed driver (which driver). */
	if (po_gdr_paste(c))
		need(c, PO_F_ACS);
	if (ev->event_count[P2PS_PE_IOMMU_FAULT] || iommu_assert(c))
		need(c, PO_F_CMDLINE);
	if (po_driver_dependent(c) && !po_driver_known(c) && !ev->host.vm && !patched_at_work(c))
		need(c, PO_F_DRIVER);
	/* NCCL told to use P2P, or tuned: what the driver itself says per pair. */
	if (po_nccl_tuned(c))
		need(c, PO_F_P2P_MATRIX);
	/* nccl-tests started, or NCCL ran on GPUs the paste names and nothing failed: a
	 * question of speed (where no GPU is named, which GPUs comes first). */
	bool started = (!strcmp(ev->cuda.test, "nccl-tests") && ev->cuda.from.line) ||
	               (ev->nccl.version_from.line && ev->n_gpus && !po_failure_seen(c));
	if ((po_granted(c) || started) && !po_measured(c))
		unmeasured_asks(c);
	/* In a VM (or WSL) the host's driver or hypervisor decides: its own word per pair. */
	if (ev->host.vm)
		need(c, PO_F_P2P_MATRIX);
	/* ACS shown and not redirecting: the IOMMU is the next candidate. */
	if (ev->acs_loose.lines && !ev->acs_loose.redirect)
		need(c, PO_F_CMDLINE);
}

void po_iommu_asks(struct octx *c)
{
	if (c->h->iommu.known && c->h->iommu.present) {
		po_ask(c, "cat /sys/kernel/iommu_groups/*/type",
		       "whether the IOMMU translates the GPUs' DMA (DMA, DMA-FQ) or passes it "
		       "through "
		       "(identity)");
		return;
	}
	if (!c->ev->host.cmdline_known) /* never a fact the paste holds */
		po_ask(c, "cat /proc/cmdline",
		       "the IOMMU flags the kernel booted with (iommu=, intel_iommu=, amd_iommu=)");
	po_ask(c, "sudo dmesg | grep -iE 'iommu|dmar|amd-vi'",
	       "whether an IOMMU is on and in which default domain");
}
