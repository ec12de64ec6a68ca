/* SPDX-License-Identifier: MIT */
/* What went wrong, as the paste shows it: the symptoms of error lines, NCCL's log and the
 * tests (a refused peer mapping, peer access not supported, an illegal access, wrong data,
 * a hang), the ACS values of ports the paste does not name, GeForce cards without the
 * P2P-patched driver, blocks read but not understood; and for each symptom the facts that
 * separate its causes, asked in that order, skipping those the paste already holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"

/* The facts a symptom's causes turn on. */
enum fact {
	F_BAR1 = 0,   /* BAR1 and VRAM per GPU */
	F_CMDLINE,    /* the IOMMU flags the kernel booted with */
	F_IOMMU,      /* whether an IOMMU is on and translating */
	F_ACS,        /* ACS control of the ports between the GPUs */
	F_DRIVER,     /* which driver: stock or P2P-patched open modules */
	F_MODELS,     /* GPU models and addresses */
	F_P2P_MATRIX, /* the driver's own P2P status per pair */
	F_TREE,       /* the PCIe tree */
	F_DATA,       /* a copy test that checks the data */
	F_NVRM,       /* the driver's log (static BAR1, Xid) */
	F_SHM,        /* /dev/shm */
	F_NCCL_LOG,   /* NCCL's log */
	F_NONE
};

static const struct {
	const char *command;
	const char *what;
} fact_asks[] = {
        [F_BAR1] = {"nvidia-smi -q -d MEMORY",
                    "BAR1 and VRAM (FB Memory Usage) of every GPU: a peer mapping needs BAR1 "
                    "room"},
        [F_CMDLINE] = {"cat /proc/cmdline",
                       "the IOMMU flags the kernel booted with (iommu=, intel_iommu=, "
                       "amd_iommu=)"},
        [F_IOMMU] = {"sudo dmesg | grep -iE 'iommu|dmar|amd-vi'",
                     "whether an IOMMU is on and in which default domain"},
        [F_ACS] = {"sudo lspci -vvv",
                   "ACS (the ACSCtl line) of the switch and root ports between the GPUs: run "
                   "lspci as root"},
        [F_DRIVER] = {"cat /proc/driver/nvidia/version",
                      "which driver is loaded: the stock one, or the P2P-patched open kernel "
                      "modules"},
        [F_MODELS] = {"nvidia-smi --query-gpu=index,pci.bus_id,name,memory.total --format=csv",
                      "the PCI address, model and VRAM of every GPU nvidia-smi numbers"},
        [F_P2P_MATRIX] = {"nvidia-smi topo -p2p r",
                          "whether the driver allows P2P reads per pair (OK, CNS, GNS, NS)"},
        [F_TREE] = {"lspci -tv", "how the GPUs hang off PCIe switches and root ports"},
        [F_DATA] = {"./p2pBandwidthLatencyTest",
                    "the whole output: whether peer copies beat copies through host memory"},
        [F_NVRM] = {"sudo dmesg | grep -E 'NVRM|Xid'",
                    "the driver's log: the static BAR1 mapping of every GPU, Xid faults"},
        [F_SHM] = {"df -h /dev/shm",
                   "the size of /dev/shm where NCCL runs (a container's default is 64 MB)"},
        [F_NCCL_LOG] = {"NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM <the failing command>",
                        "NCCL's log: the transport each channel used and its warnings"},
};

/* Per symptom: what it means and the facts that separate its causes, in order. */
static const struct {
	const char *meaning;
	enum fact order[5];
} sym_rows[P2PS_PS_COUNT] = {
        [P2PS_PS_MAP_FAILED] = {"the driver refused to map a peer's memory (CUDA error 205): "
                                "BAR1 too small for the peer mappings first, then an IOMMU "
                                "that translates, then a driver without P2P for these GPUs",
                                {F_BAR1, F_CMDLINE, F_DRIVER, F_NVRM, F_NONE}},
        [P2PS_PS_PEER_UNSUPPORTED] = {"CUDA will not enable peer access for this pair: the "
                                      "driver's decision (GPU model, driver, chipset or "
                                      "topology)",
                                      {F_MODELS, F_DRIVER, F_P2P_MATRIX, F_TREE, F_NONE}},
        [P2PS_PS_ILLEGAL_ACCESS] = {"a kernel touched memory it may not (CUDA error 700): "
                                    "with peer copies, a peer address the IOMMU or ACS "
                                    "routing did not deliver",
                                    {F_CMDLINE, F_IOMMU, F_ACS, F_NVRM, F_NONE}},
        [P2PS_PS_WRONG_DATA] = {"peer copies deliver wrong data (zeros): writes routed "
                                "through an IOMMU that translates them, or ACS redirecting "
                                "them, or a GPU without its static BAR1 mapping",
                                {F_CMDLINE, F_IOMMU, F_ACS, F_DATA, F_NVRM}},
        [P2PS_PS_HANG] = {"a collective hung or timed out: peer writes that never arrive "
                          "(IOMMU, ACS) look like this",
                          {F_CMDLINE, F_ACS, F_DATA, F_NCCL_LOG, F_NONE}},
        [P2PS_PS_P2P_DISABLED] = {"CUDA refuses peer access between GPUs that NCCL's "
                                  "topology would connect directly: the driver's decision "
                                  "(GPU model and driver, chipset, a VM)",
                                  {F_MODELS, F_DRIVER, F_P2P_MATRIX, F_CMDLINE, F_NONE}},
        [P2PS_PS_SHM] = {"NCCL could not create its shared-memory segment", {F_SHM, F_NONE}},
        [P2PS_PS_CUDA_ERROR] = {"a CUDA or NCCL call failed", {F_NCCL_LOG, F_MODELS, F_NONE}},
};

static bool any_gpu_named(const struct p2ps_paste *p)
{
	for (size_t i = 0; i < p->n_gpus; i++)
		if (p->gpus[i].name[0])
			return true;
	return false;
}

static bool acs_known(const struct octx *c)
{
	if (c->p->acs_loose.lines)
		return true;
	for (size_t i = 0; i < c->h->n_devs; i++)
		if (p2ps_dev_is_bridge(&c->h->devs[i]) && c->h->devs[i].acs.present)
			return true;
	return false;
}

static bool block_of(const struct p2ps_paste *p, enum p2ps_paste_kind k)
{
	for (size_t i = 0; i < p->n_blocks; i++)
		if (p->blocks[i].kind == k)
			return true;
	return false;
}

/* Whether the paste already holds a fact. */
static bool held(const struct octx *c, enum fact f)
{
	const struct p2ps_paste *p = c->p;
	switch (f) {
	case F_BAR1:
		for (size_t i = 0; i < p->n_gpus; i++)
			if (p->gpus[i].bar1_known)
				return true;
		for (size_t i = 0; i < c->h->n_devs; i++)
			if (p2ps_dev_is_nvidia_gpu(&c->h->devs[i]) &&
			    c->h->devs[i].bars[1].size_known)
				return true;
		return false;
	case F_CMDLINE: return p->host.cmdline_known;
	case F_IOMMU: return c->h->iommu.known;
	case F_ACS: return acs_known(c);
	case F_DRIVER: return p->host.driver_open >= 0 || strstr(p->host.driver_version, "p2p");
	case F_MODELS: return any_gpu_named(p) || c->a->n_gpus;
	case F_P2P_MATRIX: return p->m[P2PS_PM_P2P].present;
	case F_TREE: return block_of(p, P2PS_PASTE_LSPCI_TREE);
	case F_DATA:
		return p->m[P2PS_PM_BW_UNI_ON].present || p->cuda.result >= 0 ||
		       p->cuda.verify_errors;
	case F_NVRM:
		return p->event_count[P2PS_PE_DRIVER_LOAD] || p->event_count[P2PS_PE_STATIC_BAR1];
	case F_NCCL_LOG: return p->nccl.version[0] || p->nccl.via[P2PS_NV_P2P];
	default: return false;
	}
}

void po_symptom_asks(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	int wrong =
	        p->sym.count[P2PS_PS_WRONG_DATA] || p->cuda.verify_errors || p->cuda.result == 0;
	for (int s = 0; s < P2PS_PS_COUNT; s++) {
		if (!p->sym.count[s] && !(s == P2PS_PS_WRONG_DATA && wrong))
			continue;
		for (int k = 0; k < 5 && sym_rows[s].order[k] != F_NONE; k++) {
			enum fact f = sym_rows[s].order[k];
			if (!held(c, f))
				po_ask(c, fact_asks[f].command, "%s", fact_asks[f].what);
		}
	}
}

bool po_failure_seen(const struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	static const enum p2ps_paste_symptom bad[] = {
	        P2PS_PS_MAP_FAILED,     P2PS_PS_PEER_UNSUPPORTED,
	        P2PS_PS_ILLEGAL_ACCESS, P2PS_PS_WRONG_DATA,
	        P2PS_PS_HANG,           P2PS_PS_P2P_DISABLED};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (p->sym.count[bad[i]])
			return true;
	return p->cuda.verify_errors || p->cuda.result == 0;
}

static void symptom_findings(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	for (int s = 0; s < P2PS_PS_COUNT; s++) {
		if (!p->sym.count[s])
			continue;
		if (s == P2PS_PS_SHM) {
			struct p2ps_reason *f = po_add(
			        c, P2PS_PF_SHM, P2PS_SEV_BLOCKER, p->sym.first[s],
			        "NCCL could not create its shared-memory segment (%d line%s, "
			        "first: "
			        "%.160s): /dev/shm is too small where it runs",
			        p->sym.count[s], p->sym.count[s] == 1 ? "" : "s", p->sym.text[s]);
			p2ps_an_fix(
			        f,
			        "give the container more shared memory (docker run --shm-size=16g, "
			        "or --ipc=host), or grow /dev/shm");
			continue;
		}
		po_add(c, P2PS_PF_SYMPTOM, P2PS_SEV_WARNING, p->sym.first[s],
		       "%s (%d line%s, first: %.160s): %s", p2ps_paste_symptom_name(s),
		       p->sym.count[s], p->sym.count[s] == 1 ? "" : "s", p->sym.text[s],
		       sym_rows[s].meaning);
	}
}

static bool pt_env_disables(const char *e)
{
	return !strncmp(e, "NCCL_P2P_DISABLE=", 17) && p2ps_an_nccl_disables(e + 17);
}

static void nccl_findings(struct octx *c)
{
	const struct p2ps_paste_nccl *n = &c->p->nccl;
	if (!n->version[0] && !n->via[P2PS_NV_P2P] && !n->via[P2PS_NV_SHM] && n->intra_p2p < 0)
		return;
	po_add(c, P2PS_PF_NCCL, P2PS_SEV_INFO,
	       n->version[0] ? n->version_from : n->via_from[P2PS_NV_P2P],
	       "NCCL%s%s: channel connections via P2P %d%s%s%s, SHM %d, NET %d%s",
	       n->version[0] ? " " : "", n->version, n->via[P2PS_NV_P2P], n->p2p_how[0] ? " (" : "",
	       n->p2p_how, n->p2p_how[0] ? ")" : "", n->via[P2PS_NV_SHM], n->via[P2PS_NV_NET],
	       n->intra_p2p == 0 ? "; it found no intra-node P2P (intraNodeP2pSupport 0)" : "");
	bool off = false;
	for (int i = 0; i < n->n_env; i++)
		off |= pt_env_disables(n->env[i]);
	if (!n->via[P2PS_NV_P2P] && n->via[P2PS_NV_SHM])
		po_add(c, P2PS_PF_NCCL, P2PS_SEV_WARNING, n->via_from[P2PS_NV_SHM],
		       "NCCL moved data between the GPUs through host memory (SHM), not P2P: %s",
		       off ? "NCCL_P2P_DISABLE turned P2P off"
		           : "it found no usable peer path between them");
}

/* ACS values of ports the paste does not name (`lspci -vvv | grep ACSCtl`, setpci). */
static void acs_unplaced(struct octx *c)
{
	const struct p2ps_paste_acs_loose *a = &c->p->acs_loose;
	if (!a->lines)
		return;
	if (!a->redirect) {
		po_add(c, P2PS_PF_ACS_UNPLACED, P2PS_SEV_INFO, a->first,
		       "%d ACS control value%s without a device, none redirecting requests or "
		       "completions",
		       a->lines, a->lines == 1 ? "" : "s");
		return;
	}
	struct p2ps_reason *f =
	        po_add(c, P2PS_PF_ACS_UNPLACED, P2PS_SEV_BLOCKER, a->first,
	               "ACS redirects peer requests at %d of %d port%s whose ACSCtl the paste "
	               "shows without the device (first: %s): peer writes between GPUs below "
	               "such a port go up to the root complex instead of across",
	               a->redirect, a->lines, a->lines == 1 ? "" : "s", a->first_text);
	p2ps_an_fix(f,
	            "clear ReqRedir and CmpltRedir on the switch and root ports between the GPUs "
	            "(setpci -s PORT ECAP_ACS+6.w=0000, or pcie_acs_override / firmware 'ACS "
	            "Enable' off); `sudo lspci -vvv` shows which ports they are");
}

/* GeForce RTX 40 and 50 cards: NVIDIA's stock driver gives them no CUDA peer access over
 * PCIe; the P2P-patched open kernel modules (tinygrad/open-gpu-kernel-modules README,
 * aikitoria/open-gpu-kernel-modules README) do. */
static const struct {
	const char *name;
	const char *family;
} geforce_no_p2p[] = {
        {"GeForce RTX 40", "Ada GeForce (RTX 40)"},
        {"GeForce RTX 50", "Blackwell GeForce (RTX 50)"},
};

static const char *geforce_family(const char *name)
{
	for (size_t i = 0; i < sizeof(geforce_no_p2p) / sizeof(geforce_no_p2p[0]); i++)
		if (strstr(name, geforce_no_p2p[i].name))
			return geforce_no_p2p[i].family;
	return NULL;
}

static void geforce(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	const char *fam = NULL;
	int n = 0, others = 0;
	for (size_t i = 0; i < p->n_gpus; i++) {
		const char *f = p->gpus[i].name[0] ? geforce_family(p->gpus[i].name) : NULL;
		n += f != NULL;
		others += p->gpus[i].name[0] && !f;
		fam = fam ? fam : f;
	}
	bool patched = strstr(p->host.driver_version, "p2p") ||
	               p->event_count[P2PS_PE_STATIC_BAR1] ||
	               p->event_count[P2PS_PE_BAR1_P2P_MAPPING];
	const struct p2ps_paste_matrix *m = &p->m[P2PS_PM_CUDA_ACCESS];
	bool no_peer = p->sym.count[P2PS_PS_PEER_UNSUPPORTED] ||
	               p->sym.count[P2PS_PS_P2P_DISABLED] || p->cuda.waived;
	for (int i = 0; m->present && i < m->n * m->n; i++)
		no_peer |= !strcmp(m->cell[i], "0");
	if (n < 2 || others || patched || !no_peer)
		return;
	/* The patches modify the open modules: a proprietary module is the stock driver. A
	 * patched open build carries the stock version number, so otherwise it is likely,
	 * not certain, and the driver is asked for first. */
	bool stock = p->host.driver_open == 0;
	struct p2ps_reason *f = po_add(
	        c, P2PS_PF_GEFORCE_STOCK, stock ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING,
	        m->present ? m->from : p->cuda.from,
	        "%d %s cards and CUDA refuses peer access: NVIDIA's stock driver gives GeForce "
	        "cards of this family no P2P over PCIe%s",
	        n, fam,
	        stock ? ", and the paste shows the proprietary kernel module (the stock driver)"
	              : "; nothing in the paste shows a P2P-patched driver (which driver runs "
	                "decides it)");
	p2ps_an_fix(f,
	            "install the P2P-patched open kernel modules for the installed driver version "
	            "(tinygrad's or aikitoria's open-gpu-kernel-modules), with Resizable BAR on "
	            "and the IOMMU off or in pass-through");
	if (!stock)
		po_ask(c, fact_asks[F_DRIVER].command, "%s", fact_asks[F_DRIVER].what);
}

static void unread(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	if (!p->unread_blocks)
		return;
	for (size_t i = 0; i < p->n_blocks; i++)
		if (strstr(p->blocks[i].summary, "not understood")) {
			po_add(c, P2PS_PF_UNREAD, P2PS_SEV_INFO,
			       (struct p2ps_paste_where){(int)i, p->blocks[i].first_line},
			       "%d block%s recognised but not understood (first: %s)",
			       p->unread_blocks, p->unread_blocks == 1 ? "" : "s",
			       p->blocks[i].summary);
			return;
		}
}

void po_symptoms(struct octx *c)
{
	symptom_findings(c);
	nccl_findings(c);
	acs_unplaced(c);
	geforce(c);
	unread(c);
}
