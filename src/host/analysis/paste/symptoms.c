/* SPDX-License-Identifier: MIT */
/* What went wrong, as the paste shows it: the symptoms of error lines, NCCL's log and the
 * tests (a refused peer mapping, peer access not supported, an illegal access, wrong data,
 * a hang), what NCCL's log says, the ACS values of ports the paste does not name, GeForce
 * cards without the P2P-patched driver, blocks read but not understood. */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"
#include "p2pscope/nvidia_chips.h"

/* Symptoms that are P2P failing, not a question: the driver refused a peer mapping, CUDA
 * refused peer access, peer copies delivered wrong data, a NIC completed a transfer with
 * an error (GPUDirect RDMA or the network path failing, not a slow one), GPU memory that
 * could not be pinned for a device (GPUDirect RDMA's first step), an illegal
 * access where peer access is in use (peer writes that the IOMMU or a port dropped). A
 * hang or another error may have other causes. */
static bool fails_p2p(const struct octx *c, int s)
{
	return s == P2PS_PS_MAP_FAILED || s == P2PS_PS_PEER_UNSUPPORTED ||
	       s == P2PS_PS_WRONG_DATA || s == P2PS_PS_P2P_DISABLED || s == P2PS_PS_NET_ERROR ||
	       s == P2PS_PS_GDR_PIN || s == P2PS_PS_GDR_REG || s == P2PS_PS_TOO_MANY_PEERS ||
	       (s == P2PS_PS_ILLEGAL_ACCESS && po_granted(c));
}

static void symptom_findings(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	for (int s = 0; s < P2PS_PS_COUNT; s++) {
		if (!ev->sym.count[s])
			continue;
		if (s == P2PS_PS_SHM) {
			struct p2ps_reason *f = po_add(
			        c, P2PS_PF_SHM, P2PS_SEV_BLOCKER, ev->sym.first[s],
			        "NCCL could not create its shared-memory segment (%d line%s, "
			        "first: "
			        "%.160s): /dev/shm is too small where it runs",
			        ev->sym.count[s], ev->sym.count[s] == 1 ? "" : "s",
			        ev->sym.text[s]);
			p2ps_an_fix(
			        f,
			        "give the container more shared memory (docker run --shm-size=16g, "
			        "or --ipc=host), or grow /dev/shm");
			continue;
		}
		po_add(c, P2PS_PF_SYMPTOM, fails_p2p(c, s) ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING,
		       ev->sym.first[s], "%s (%d line%s, first: %.160s): %s",
		       p2ps_paste_symptom_name(s), ev->sym.count[s],
		       ev->sym.count[s] == 1 ? "" : "s", ev->sym.text[s], po_symptom_meaning(s));
	}
}

/* Whether the paste shows the GPUs' DMA untranslated (no IOMMU, or pass-through). */
static bool iommu_out_of_the_way(const struct octx *c)
{
	if (c->h->iommu.known && !c->h->iommu.present)
		return true;
	size_t n = 0;
	for (size_t gi = 0; gi < c->a->n_gpus; gi++)
		n += c->a->gpus[gi].iommu == P2PS_IOMMU_IDENTITY ||
		     c->a->gpus[gi].iommu == P2PS_IOMMU_OFF;
	return c->a->n_gpus && n == c->a->n_gpus;
}

/* The first suspect of a symptom that shows P2P failing, where the paste does not hold
 * the fact that would clear it: a BAR1 smaller than VRAM for a refused peer mapping (CUDA
 * error 205), an IOMMU translating peer writes for copies that arrive wrong. */
static void suspects(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	bool wrong = ev->sym.count[P2PS_PS_WRONG_DATA] || ev->cuda.verify_errors ||
	             ev->cuda.result == 0 || ev->cuda.nccl_wrong > 0;
	if (ev->sym.count[P2PS_PS_MAP_FAILED] && !po_held(c, PO_F_BAR1))
		po_add(c, P2PS_PF_BAR1_VS_VRAM, P2PS_SEV_WARNING, ev->sym.first[P2PS_PS_MAP_FAILED],
		       "the driver refused a peer mapping (CUDA error 205) and BAR1 is not in the "
		       "paste: a BAR1 smaller than VRAM (large BAR or Resizable BAR off in the "
		       "firmware) is the first suspect");
	if (wrong && !iommu_out_of_the_way(c) && !po_nvlink_boards_only(c))
		po_add(c, P2PS_R_IOMMU_STATE, P2PS_SEV_WARNING,
		       ev->sym.count[P2PS_PS_WRONG_DATA] ? ev->sym.first[P2PS_PS_WRONG_DATA]
		                                         : ev->cuda.first_error,
		       "peer copies deliver wrong data and nothing in the paste shows the IOMMU "
		       "off "
		       "or in pass-through: an IOMMU translating the peer writes is the first "
		       "suspect (ACS redirecting them the next)");
}

static bool pt_env_disables(const char *e)
{
	return !strncmp(e, "NCCL_P2P_DISABLE=", 17) && p2ps_an_nccl_disables(e + 17);
}

static void nccl_findings(struct octx *c)
{
	const struct p2ps_paste_nccl *n = &c->ev->nccl;
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
	const struct p2ps_paste_acs_loose *a = &c->ev->acs_loose;
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

/* GeForce cards whose stock driver gives no P2P over PCIe, where the paste shows P2P
 * refused or failing and no P2P-patched driver: which driver runs decides it. A refusal
 * with the proprietary module (the stock driver) is the cause; otherwise the question. */
static void geforce(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	const char *fam = NULL;
	int n = 0, others = 0;
	for (size_t i = 0; i < ev->n_gpus; i++) {
		const char *f = ev->gpus[i].name[0] ? po_geforce_family(ev->gpus[i].name) : NULL;
		n += f != NULL;
		others += ev->gpus[i].name[0] && !f;
		fam = fam ? fam : f;
	}
	bool refused = po_refused(c), failing = po_failure_seen(c);
	if (!n || others || po_patched_driver(c) || (!refused && !failing) ||
	    (refused && n < 2 && !failing))
		return;
	/* The patches modify the open modules: a proprietary module is the stock driver. A
	 * patched open build carries the stock version number, so otherwise it is likely,
	 * not certain, and the driver is asked for first. */
	bool stock = ev->host.driver_open == 0 && refused;
	const struct p2ps_paste_matrix_info *m = &ev->matrix[P2PS_PM_CUDA_ACCESS];
	struct p2ps_reason *f = po_add(
	        c, P2PS_PF_GEFORCE_STOCK, stock ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING,
	        m->present ? m->from : ev->cuda.from,
	        "%d %s card%s and %s: NVIDIA's stock driver gives GeForce cards of this family no "
	        "P2P over PCIe%s",
	        n, fam, n == 1 ? "" : "s",
	        refused ? "CUDA refuses peer access" : "peer copies fail",
	        stock ? ", and the paste shows the proprietary kernel module (the stock driver)"
	              : "; nothing in the paste shows a P2P-patched driver (which driver runs "
	                "decides it)");
	p2ps_an_fix(f,
	            "install the P2P-patched open kernel modules for the installed driver version "
	            "(tinygrad's or aikitoria's open-gpu-kernel-modules), with Resizable BAR on "
	            "and the IOMMU off or in pass-through");
}

/* CUDA refuses peer access exactly between GPUs of different models: the pairs a
 * P2P-capable driver does not map (one generation, one chip: the analysis' own rule for
 * GPUs it can pair, here for GPUs the paste names by CUDA ordinal only). */
static void mixed(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	const struct p2ps_paste_matrix_info *m = &ev->matrix[P2PS_PM_CUDA_ACCESS];
	int gen = 0, chips = 0, models = 0, same_refused = 0;
	const struct p2ps_paste_gpu *ga = NULL, *gb = NULL;
	for (int i = 0; m->present && i < m->n; i++)
		for (int j = i + 1; j < m->n; j++) {
			const char *ab = po_cell(c, P2PS_PM_CUDA_ACCESS, i, j),
			           *ba = po_cell(c, P2PS_PM_CUDA_ACCESS, j, i);
			int ei = po_gpu_of(c, P2PS_PM_CUDA_ACCESS, i),
			    ej = po_gpu_of(c, P2PS_PM_CUDA_ACCESS, j);
			if (ei < 0 || ej < 0 ||
			    !((ab && !strcmp(ab, "0")) || (ba && !strcmp(ba, "0"))))
				continue;
			const struct p2ps_paste_gpu *a = &ev->gpus[ei], *b = &ev->gpus[ej];
			if (!a->name[0] || !b->name[0] || !strcmp(a->name, b->name)) {
				same_refused++;
				continue;
			}
			if (a->chip && b->chip && a->chip->generation != b->chip->generation)
				gen++, ga = ga ? ga : a, gb = gb ? gb : b;
			else if (a->chip && b->chip && a->chip != b->chip)
				chips++;
			else
				models++;
		}
	if (same_refused || !(gen || chips || models))
		return;
	if (gen)
		po_add(c, P2PS_R_MIXED_GENERATIONS, P2PS_SEV_BLOCKER, m->from,
		       "CUDA refuses peer access exactly between GPUs of different generations (%d "
		       "pair%s, first: %s (%s) and %s (%s)): a driver maps peers of one generation "
		       "only",
		       gen, gen == 1 ? "" : "s", ga->name,
		       p2ps_nv_generation_name(ga->chip->generation), gb->name,
		       p2ps_nv_generation_name(gb->chip->generation));
	if (chips)
		po_add(c, P2PS_R_MIXED_CHIPS, P2PS_SEV_BLOCKER, m->from,
		       "CUDA refuses peer access between GPUs of different chips (%d pair%s): "
		       "users report that mixed-chip pairs never peer with the patched driver",
		       chips, chips == 1 ? "" : "s");
	if (models)
		po_add(c, P2PS_R_MIXED_MODELS, P2PS_SEV_WARNING, m->from,
		       "CUDA refuses peer access between GPUs of different models (%d pair%s)",
		       models, models == 1 ? "" : "s");
}

/* GPUDirect RDMA as NCCL's log shows it, and the peer-memory module that lets a NIC map
 * GPU memory. NCCL before 2.23.4 looks only for the older nv_peer_mem
 * (src/transport/net_ib.cc ncclIbGdrSupport, v2.22.3 against v2.23.4; NVIDIA/nccl#1676):
 * with nvidia-peermem loaded it still turns GPUDirect RDMA off. */
static void gdr(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	const struct p2ps_paste_nccl *n = &ev->nccl;
	int pm = ev->host.nvidia_peermem, old = ev->host.nv_peer_mem;
	if (ev->host.modules_listed == 1 && (n->gdr_disabled || n->via[P2PS_NV_NET]))
		po_add(c, P2PS_PF_PEER_MEMORY, pm || old ? P2PS_SEV_INFO : P2PS_SEV_WARNING,
		       ev->host.modules_from, "%s",
		       pm    ? "nvidia_peermem is loaded (the module list shows it)"
		       : old ? "the out-of-tree nv_peer_mem is loaded (deprecated since R470)"
		             : "no peer-memory module is loaded (neither nvidia_peermem nor "
		               "nv_peer_mem in the module list): a NIC cannot map GPU memory "
		               "unless the application uses dma-buf");
	/* GPUDirect RDMA off on every NIC the log names is the path the paste asks about
	 * refused: a blocker of GPUDirect RDMA, whatever P2P between the GPUs does. */
	if (n->gdr_disabled && !n->gdr_enabled) {
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_GDR, P2PS_SEV_BLOCKER, n->gdr_disabled_from,
		        "NCCL turned GPUDirect RDMA off (%d line%s, first: %.100s): data between "
		        "the "
		        "GPUs and the network goes through host memory%s",
		        n->gdr_disabled, n->gdr_disabled == 1 ? "" : "s", n->gdr_disabled_text,
		        pm == 1   ? "; nvidia_peermem is loaded, and NCCL before 2.23.4 does not "
		                    "recognise it (it looks for nv_peer_mem only)"
		        : pm == 0 ? "; no peer-memory module is loaded"
		                  : "; whether a peer-memory module is loaded is not in the paste");
		/* "(distance 3 >= 2)": NCCL's path rule, not the module, turned it off. */
		if (strstr(n->gdr_disabled_text, "(distance "))
			p2ps_an_fix(f, "the GPU reaches the NIC through more of the PCIe tree than "
			               "NCCL's GPUDirect RDMA level allows: put GPU and NIC under "
			               "one switch, or raise NCCL_NET_GDR_LEVEL (e.g. PHB or SYS) "
			               "where the root complex forwards peer traffic");
		else
			p2ps_an_fix(f,
			            pm == 1 ? "NCCL 2.23.4 or later, which recognises "
			                      "nvidia-peermem"
			                    : "modprobe nvidia-peermem as root (or a dma-buf "
			                      "capable stack: open kernel modules, kernel 5.12+)");
	} else if (n->via_gdr && n->recv_no_gdr) {
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_GDR, P2PS_SEV_WARNING, n->recv_no_gdr_from,
		        "NCCL receives over the network without GPUDirect RDMA on %d connection%s "
		        "while %d use%s it: the host those connections end on has no GPUDirect "
		        "RDMA (no peer-memory module loaded, or NCCL turned it off there)",
		        n->recv_no_gdr, n->recv_no_gdr == 1 ? "" : "s", n->via_gdr,
		        n->via_gdr == 1 ? "s" : "");
		p2ps_an_fix(f, "modprobe nvidia-peermem as root on every node (or a dma-buf "
		               "capable stack: open kernel modules, kernel 5.12+)");
	} else if (n->gdr_enabled || n->via_gdr) {
		po_add(c, P2PS_PF_GDR, P2PS_SEV_INFO, n->gdr_disabled_from,
		       "NCCL uses GPUDirect RDMA%s (%d NIC%s on, %d network channel%s via GDRDMA)",
		       n->gdr_dmabuf ? " through dma-buf" : "", n->gdr_enabled,
		       n->gdr_enabled == 1 ? "" : "s", n->via_gdr, n->via_gdr == 1 ? "" : "s");
	}
}

static void unread(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	if (!ev->unread_blocks)
		return;
	for (size_t i = 0; i < ev->n_blocks; i++)
		if (strstr(ev->blocks[i].summary, "not understood")) {
			po_add(c, P2PS_PF_UNREAD, P2PS_SEV_INFO,
			       (struct p2ps_paste_where){(int)i, ev->blocks[i].first_line},
			       "%d block%s recognised but not understood (first: %s)",
			       ev->unread_blocks, ev->unread_blocks == 1 ? "" : "s",
			       ev->blocks[i].summary);
			return;
		}
}

void po_symptoms(struct octx *c)
{
	symptom_findings(c);
	nccl_findings(c);
	suspects(c);
	acs_unplaced(c);
	geforce(c);
	mixed(c);
	gdr(c);
	unread(c);
}
