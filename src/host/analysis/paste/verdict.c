/* SPDX-License-Identifier: MIT */
/* The paste's verdict: the causes that block BAR1 P2P (the analysis' blockers and the
 * findings' blockers, each once), "unknown" where a needed fact is missing, and what to
 * send next — for each unknown the command whose output settles it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"
#include "p2pscope/nvidia_drivers.h"

/* Devices whose ACS or BAR1 the next lspci should show, as "BDF, BDF". */
struct lists {
	char acs[200];
	char bar1[200];
};

static void add_bdf(char *list, size_t size, const char *bdf)
{
	size_t n = strlen(list);
	if (!strstr(list, bdf) && n + strlen(bdf) + 3 < size)
		snprintf(list + n, size - n, "%s%s", n ? ", " : "", bdf);
}

/* The command that settles an unknown analysis reason, if there is one. */
static void ask_for(struct octx *c, const struct p2ps_reason *x, struct lists *lists)
{
	const struct p2ps_dev *d = x->dev_idx >= 0 ? &c->h->devs[x->dev_idx] : NULL;
	switch (x->code) {
	case P2PS_R_BAR1_UNKNOWN:
		if (d)
			add_bdf(lists->bar1, sizeof(lists->bar1), d->bdf_str);
		break;
	case P2PS_R_VRAM_UNKNOWN:
	case P2PS_R_BAR1_NOT_MAXIMAL:
		po_ask(c, "nvidia-smi -q -d MEMORY",
		       "VRAM (FB Memory Usage) and BAR1 of every GPU");
		break;
	case P2PS_R_IOMMU_UNKNOWN: po_iommu_asks(c); break;
	case P2PS_R_ACS_UNKNOWN:
		if (d)
			add_bdf(lists->acs, sizeof(lists->acs), d->bdf_str);
		break;
	case P2PS_R_TOPOLOGY_UNKNOWN:
		/* Without the tree no pair knows the ports its traffic turns at, or their ACS. */
		po_ask(c, "lspci -tv", "how the GPUs hang off PCIe switches and root ports");
		add_bdf(lists->acs, sizeof(lists->acs), "the bridges between the GPUs");
		break;
	default: break;
	}
}

/* What the paste shows about one of its pairs: 2 copies work, 1 the driver grants peer
 * access, 0 nothing, -1 refused or failing. */
static int shown(const struct p2ps_paste_pair *x)
{
	if (x->cuda_ab == 0 || x->cuda_ba == 0 || x->connect_ab == 0 ||
	    (x->p2p_ab[0] && strcmp(x->p2p_ab, "OK")))
		return -1;
	if (x->works && !x->works_weak)
		return 2;
	bool granted = x->works || (x->cuda_ab == 1 && x->cuda_ba == 1) ||
	               (x->connect_ab == 1 && x->connect_ba != 0) || x->nvlinks ||
	               !strcmp(x->p2p_ab, "OK") || !strcmp(x->nccl, "P2P");
	return granted ? 1 : 0;
}

/* Whether the paste's own evidence contradicts blocker x of analysis pair `pair` (or of
 * GPU `gpu`, or of the host when both are -1): every paste pair it concerns that the
 * paste says anything about works (or is granted peer access, for the driver's
 * decisions), and at least one does. */
static bool contradicted(const struct octx *c, const struct p2ps_reason *x, int pair, int gpu)
{
	int need = po_driver_decision(x->code) ? 1 : 2, seen = 0;
	if (c->platform_cleared)
		return true;
	if (pair < 0 && gpu < 0 && po_failure_seen(c))
		return false;
	/* A GPU's own reason (its chip): any pair of that GPU the driver grants peer access
	 * shows the driver does not refuse the GPU. (A generation older than Turing is a note
	 * before it gets here.) */
	if (x->code == P2PS_R_CHIP_UNKNOWN) {
		int gi = x->dev_idx >= 0 ? p2ps_analysis_gpu_of_dev(c->a, x->dev_idx) : gpu;
		for (size_t i = 0; gi >= 0 && i < c->r->n_pairs; i++) {
			const struct p2ps_pair *o = c->r->pairs[i].ours;
			if (o && ((int)o->a == gi || (int)o->b == gi) &&
			    shown(&c->r->pairs[i]) >= 1)
				return true;
		}
		return false;
	}
	for (size_t i = 0; i < c->r->n_pairs; i++) {
		const struct p2ps_paste_pair *p = &c->r->pairs[i];
		const struct p2ps_pair *o = p->ours;
		bool concerns = pair >= 0  ? o == &c->a->pairs[pair]
		                : gpu >= 0 ? o && ((int)o->a == gpu || (int)o->b == gpu)
		                           : true;
		int s = concerns ? shown(p) : 0;
		if (s < 0 || (s > 0 && s < need))
			return false;
		seen += s >= need;
	}
	return seen > 0;
}

/* The analysis' blockers become causes (or notes, where the paste contradicts them); its
 * unknowns become asks. */
static void from_analysis(struct octx *c, struct lists *lists, bool *unknown)
{
	const struct p2ps_analysis *a = c->a;
	for (size_t k = 0; k <= a->n_gpus + a->n_pairs; k++) {
		int gpu = k < a->n_gpus ? (int)k : -1;
		int pair = k >= a->n_gpus && k < a->n_gpus + a->n_pairs ? (int)(k - a->n_gpus) : -1;
		const struct p2ps_reasons *r = gpu >= 0    ? &a->gpus[gpu].reasons
		                               : pair >= 0 ? &a->pairs[pair].reasons
		                                           : &a->host_reasons;
		for (size_t i = 0; i < r->n; i++) {
			const struct p2ps_reason *x = &r->v[i];
			/* A GPU older than Turing cannot run the open kernel modules that BAR1 P2P
			 * patches, but P2P on it is the stock driver's own (NVLink, or PCIe where
			 * the driver allows it): a note on the BAR1 path, never a cause of P2P
			 * failing. */
			if (x->sev == P2PS_SEV_BLOCKER &&
			    (x->code == P2PS_R_GENERATION_UNSUPPORTED ||
			     contradicted(c, x, pair, gpu)))
				po_note(c, p2ps_reason_code_name(x->code), x->text, pair, gpu);
			else if (x->sev == P2PS_SEV_BLOCKER)
				po_cause(c, p2ps_reason_code_name(x->code), x->text, x->fix);
			else if (x->sev == P2PS_SEV_UNKNOWN) {
				*unknown = true;
				ask_for(c, x, lists);
			}
		}
	}
}

/* One lspci run for the BAR1 sizes and ACS registers the verdict needs. */
static void lspci_asks(struct octx *c, const struct lists *l)
{
	const char *root = ": run lspci as root (without root, lspci prints its capabilities as "
	                   "denied)";
	char cmd[256];
	if (l->bar1[0] && l->acs[0]) {
		po_ask(c, "sudo lspci -vvv",
		       "BAR1 sizes (the Region lines) of %s and ACS (the ACSCtl line) of %s%s",
		       l->bar1, l->acs, root);
	} else if (l->acs[0]) {
		po_ask(c, "sudo lspci -vvv", "ACS (the ACSCtl line) of %s%s", l->acs, root);
	} else if (l->bar1[0]) {
		if (strchr(l->bar1, ','))
			snprintf(cmd, sizeof(cmd), "sudo lspci -vvv -d 10de:");
		else
			snprintf(cmd, sizeof(cmd), "sudo lspci -vvv -s %s", l->bar1);
		po_ask(c, cmd, "BAR1 size (the Region lines) of %s", l->bar1);
	}
}

/* ACS and the IOMMU where the analysis judged no pair (one GPU with an address, or GPUs
 * the paste names only by nvidia-smi index): no pair asked for them, but a verdict will. */
static void no_pairs(struct octx *c, struct lists *lists)
{
	const struct p2ps_analysis *a = c->a;
	if (a->n_pairs || (a->n_gpus + c->ev->n_gpus < 1))
		return;
	for (size_t i = 0; i < c->h->n_devs; i++) {
		const struct p2ps_dev *br = &c->h->devs[i];
		if (p2ps_dev_is_bridge(br) && !br->acs.present &&
		    p2ps_dev_unknown(br, P2PS_FACT_ACS))
			add_bdf(lists->acs, sizeof(lists->acs), br->bdf_str);
	}
	if (!lists->acs[0] && a->n_gpus == 1)
		snprintf(lists->acs, sizeof(lists->acs), "the bridges above %s",
		         c->h->devs[a->gpus[0].dev_idx].bdf_str);
	else if (!lists->acs[0])
		snprintf(lists->acs, sizeof(lists->acs), "the bridges between the GPUs");
	bool domains = false;
	for (size_t gi = 0; gi < a->n_gpus; gi++)
		domains |= a->gpus[gi].iommu != P2PS_IOMMU_UNKNOWN;
	/* GPUs behind a switch: its ports' ACS turns their requests before the IOMMU sees
	 * them, so it comes first. */
	if (po_switch_pairs(c) && !po_nvlink_boards_only(c))
		lspci_asks(c, lists);
	if (!domains)
		po_iommu_asks(c);
	for (size_t gi = 0; gi < a->n_gpus; gi++)
		if (p2ps_dev_unknown(&c->h->devs[a->gpus[gi].dev_idx], P2PS_FACT_PARENT))
			po_ask(c, "lspci -tv",
			       "how the GPUs hang off PCIe switches and root ports");
}

/* Asks only a paste needs: addresses of nvidia-smi's GPUs, the driver's log, CUDA's data. */
static void paste_asks(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	bool anon = false, can = false;
	for (size_t i = 0; i < ev->n_gpus; i++)
		anon |= !ev->gpus[i].bdf_known;
	if (anon)
		po_ask(c, "nvidia-smi --query-gpu=index,pci.bus_id,name,memory.total --format=csv",
		       "the PCI address, model and VRAM of every GPU nvidia-smi numbers");
	for (int i = 0; i < ev->matrix[P2PS_PM_CUDA_ACCESS].n; i++)
		for (int j = 0; j < ev->matrix[P2PS_PM_CUDA_ACCESS].n; j++) {
			const char *s = po_cell(c, P2PS_PM_CUDA_ACCESS, i, j);
			can |= i != j && s && s[0] == '1';
		}
	bool nvrm = ev->event_count[P2PS_PE_DRIVER_LOAD] || ev->event_count[P2PS_PE_STATIC_BAR1] ||
	            ev->event_count[P2PS_PE_BAR1_P2P_MAPPING];
	if (c->r->verdict != P2PS_VERDICT_NOT_READY && (c->a->n_gpus || ev->n_gpus) && !nvrm)
		po_ask(c, "sudo dmesg | grep NVRM",
		       "which driver runs and whether it maps BAR1 statically on every GPU (a GPU "
		       "that "
		       "drives a display loses its static BAR1 mapping)");
	bool measured = ev->matrix[P2PS_PM_BW_UNI_ON].present || ev->cuda.verify_errors ||
	                ev->cuda.result >= 0;
	if (can && !measured) {
		po_ask(c, "./p2pBandwidthLatencyTest",
		       "the whole output: its P2P=Enabled matrices show whether peer copies beat "
		       "host "
		       "copies");
		po_ask(c, "./simpleP2P", "whether peer copies deliver the right data");
		po_ask(c, "nvidia-smi --query-gpu=index,pci.bus_id,display_active --format=csv",
		       "whether a GPU drives a display");
	}
	bool cns = false, gns = false;
	for (size_t i = 0; i < ev->n_obs; i++) {
		const struct p2ps_pair_obs *o = &ev->obs[i];
		enum p2ps_nv_status st;
		if (o->kind != P2PS_PM_P2P || p2ps_nv_status_from_code(o->text, &st))
			continue;
		cns |= st == P2PS_NV_ST_CHIPSET_NOT_SUPPORTED;
		gns |= st == P2PS_NV_ST_GPU_NOT_SUPPORTED;
	}
	if (gns)
		po_ask(c, "cat /proc/driver/nvidia/version",
		       "which driver is loaded (the P2P-patched builds are open kernel modules of "
		       "a "
		       "named release)");
	if (cns) {
		po_ask(c, "lspci -tv", "how the GPUs hang off PCIe switches and root ports");
		po_ask(c, "lspci -nn | grep -i 'host bridge'",
		       "the root complex the driver checked");
		po_ask(c, "systemd-detect-virt", "whether this is a virtual machine");
	}
}

/* Whether the paste settles the question itself: copies shown completing (a checked test,
 * a measured gain; not the driver's word or NCCL's choice of transport) on pairs that
 * cover every GPU it names, and nothing in it that a working
 * host does not print (an error, a kernel fault or assertion, a warning of the findings).
 * The facts the analysis lacks (IOMMU, ACS, BAR1) would not change that verdict. */
static bool settled(const struct octx *c)
{
	const struct p2ps_paste_report *r = c->r;
	const struct p2ps_evidence *ev = c->ev;
	if (r->verdict != P2PS_VERDICT_READY || !r->n_pairs || po_failure_seen(c) ||
	    ev->sym.count[P2PS_PS_CUDA_ERROR] || ev->sym.count[P2PS_PS_NET_ERROR] ||
	    ev->sym.count[P2PS_PS_SHM] || ev->event_count[P2PS_PE_ASSERT] ||
	    ev->event_count[P2PS_PE_XID] || ev->event_count[P2PS_PE_IOMMU_FAULT] ||
	    ev->event_count[P2PS_PE_IOMMU_MAP_FAILED] ||
	    ev->event_count[P2PS_PE_PEER_DMA_UNALIGNED])
		return false;
	for (size_t i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].sev == P2PS_SEV_WARNING ||
		    r->findings.v[i].sev == P2PS_SEV_BLOCKER)
			return false;
	bool covered[P2PS_PASTE_MAX_GPUS] = {false};
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct p2ps_paste_pair *x = &r->pairs[i];
		if (!x->works || !x->works_copied)
			return false;
		if (x->ga >= 0 && x->ga < P2PS_PASTE_MAX_GPUS)
			covered[x->ga] = true;
		if (x->gb >= 0 && x->gb < P2PS_PASTE_MAX_GPUS)
			covered[x->gb] = true;
	}
	for (size_t i = 0; i < ev->n_gpus && i < P2PS_PASTE_MAX_GPUS; i++)
		if (!covered[i])
			return false;
	return true;
}

/* Whether the pairs the paste measured copy at clearly different rates (the fastest 15%
 * above the slowest): pairs behind one switch against pairs across the root complex or
 * the CPUs look like this. */
static bool uneven(const struct octx *c)
{
	double lo = 0, hi = 0;
	for (size_t i = 0; i < c->r->n_pairs; i++) {
		const struct p2ps_paste_pair *x = &c->r->pairs[i];
		double v = x->d2d > x->bw_on ? x->d2d : x->bw_on;
		if (v <= 0)
			continue;
		lo = lo > 0 && lo < v ? lo : v;
		hi = hi > v ? hi : v;
	}
	return lo > 0 && hi > 1.15 * lo;
}

void po_verdict(struct octx *c)
{
	struct p2ps_paste_report *r = c->r;
	struct lists lists = {"", ""};
	bool unknown = false;
	/* The symptom's own order comes first, before what the checks asked on their way. */
	struct p2ps_paste_ask early[P2PS_PASTE_MAX_ASKS];
	size_t n_early = r->n_asks;
	memcpy(early, r->asks, n_early * sizeof(early[0]));
	r->n_asks = 0;
	po_symptom_asks(c);
	/* A check's own words for an ask the symptom also made say more (which devices, why). */
	for (size_t i = 0; i < n_early; i++) {
		size_t k = 0;
		while (k < r->n_asks && strcmp(r->asks[k].command, early[i].command))
			k++;
		if (k < r->n_asks)
			memcpy(r->asks[k].what, early[i].what, sizeof(early[i].what));
		else
			po_ask(c, early[i].command, "%s", early[i].what);
	}
	from_analysis(c, &lists, &unknown);
	no_pairs(c, &lists);
	for (size_t i = 0; i < r->findings.n; i++) {
		const struct p2ps_reason *f = &r->findings.v[i];
		if (f->sev == P2PS_SEV_BLOCKER)
			po_cause(c, p2ps_paste_finding_name(f->code), f->text, f->fix);
		unknown |= f->sev == P2PS_SEV_UNKNOWN;
	}
	bool gpus = c->a->n_gpus || c->ev->n_gpus;
	const struct p2ps_paste_pair *ok = NULL;
	for (size_t i = 0; i < r->n_pairs && !ok; i++)
		if (r->pairs[i].works)
			ok = &r->pairs[i];
	/* A paste about GPUDirect RDMA asks about the GPUs' path to the NICs: P2P between
	 * the GPUs does not answer it unless the paste shows GPUDirect RDMA at work. */
	bool gdr_open = po_gdr_paste(c) && !c->ev->nccl.via_gdr && !c->ev->nccl.gdr_enabled;
	if (gdr_open)
		ok = NULL;
	/* NCCL's P2P transport in a log of several hosts: no pair to name, P2P all the same. */
	const struct p2ps_paste_nccl *nc = &c->ev->nccl;
	bool nccl_p2p = !ok && !gdr_open && nc->via[P2PS_NV_P2P] && !nc->via[P2PS_NV_SHM] &&
	                !po_failure_seen(c) && !po_nccl_tuned(c);
	/* nccl-tests' rows checked with no wrong value where no pair is named (rows cut from
	 * their device list): the collective's data arrived, whatever path it took. */
	const struct p2ps_paste_cuda *cu = &c->ev->cuda;
	bool verified = !ok && !nccl_p2p && !gdr_open && !r->n_pairs && cu->nccl_rows > 0 &&
	                cu->nccl_wrong == 0 && !po_failure_seen(c) && !po_nccl_tuned(c);
	if (!gpus && !r->n_causes)
		po_add(c, P2PS_PF_NO_GPU, P2PS_SEV_UNKNOWN, (struct p2ps_paste_where){-1, 0},
		       "the paste names no NVIDIA GPU");
	/* No GPU named: where CUDA or NCCL ran, the driver is there to name them; else lspci
	 * says whether there is an NVIDIA GPU at all. */
	const struct p2ps_evidence *ev = c->ev;
	bool cuda_ran = ev->nccl.version[0] || ev->nccl.via[P2PS_NV_P2P] ||
	                ev->nccl.via[P2PS_NV_SHM] || ev->cuda.from.line || ev->nccl.intra_p2p >= 0;
	for (int s = 0; s < P2PS_PS_COUNT; s++)
		cuda_ran |= ev->sym.count[s] > 0;
	if (!gpus && cuda_ran)
		po_ask_fact(c, PO_F_MODELS);
	else if (!gpus && po_block_read(c, P2PS_PASTE_LSPCI))
		/* An lspci excerpt that left the GPUs out (a grep for the switches): the whole
		 * listing has them, their ports and the ports' ACS. */
		po_ask(c, "sudo lspci -vvv",
		       "every device with its capabilities: the GPUs, the switch and root ports "
		       "above them and the ports' ACS: run lspci as root");
	else if (!gpus)
		po_ask(c, "lspci -nn | grep -i nvidia", "which NVIDIA GPUs the machine has");
	r->verdict = r->n_causes                                      ? P2PS_VERDICT_NOT_READY
	             : ok || nccl_p2p || verified                     ? P2PS_VERDICT_READY
	             : unknown || !gpus || !c->a->n_pairs || gdr_open ? P2PS_VERDICT_UNKNOWN
	                                                              : P2PS_VERDICT_READY;
	if (!r->n_causes && ok)
		snprintf(r->verdict_why, sizeof(r->verdict_why),
		         "P2P works on %.40s <-> %.40s (%.150s)", ok->a, ok->b, ok->works_why);
	else if (!r->n_causes && nccl_p2p)
		snprintf(r->verdict_why, sizeof(r->verdict_why),
		         "NCCL connects the GPUs of each host via %s",
		         nc->p2p_how[0] ? nc->p2p_how : "P2P");
	else if (!r->n_causes && verified)
		snprintf(r->verdict_why, sizeof(r->verdict_why),
		         "nccl-tests checked %d result row%s with no wrong value", cu->nccl_rows,
		         cu->nccl_rows == 1 ? "" : "s");
	else if (r->n_causes)
		snprintf(r->verdict_why, sizeof(r->verdict_why), "%zu blocking cause%s",
		         r->n_causes, r->n_causes == 1 ? "" : "s");
	else if (r->verdict == P2PS_VERDICT_UNKNOWN)
		snprintf(r->verdict_why, sizeof(r->verdict_why), "%s",
		         !gpus      ? "no NVIDIA GPU in the paste"
		         : gdr_open ? "the paste is about GPUDirect RDMA, which it does not show "
		                      "working"
		         : !c->a->n_pairs ? "no GPU pair the analysis can judge from the paste"
		                          : "facts the verdict needs are not in the paste");
	else
		snprintf(r->verdict_why, sizeof(r->verdict_why),
		         "nothing in the paste blocks BAR1 P2P");
	for (size_t i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].code == P2PS_PF_P2P_NO_GAIN &&
		    r->findings.v[i].sev == P2PS_SEV_BLOCKER) {
			po_iommu_asks(c); /* the detour goes through the root complex: which turn
			                  sends it */
			if (!lists.acs[0])
				snprintf(lists.acs, sizeof(lists.acs),
				         "the switch and root ports between the GPUs");
		}
	lspci_asks(c, &lists);
	paste_asks(c);
	/* A host the paste shows working is not asked what a broken one would be. */
	if (settled(c)) {
		r->n_asks = 0;
		/* Working: what is left is speed, which the path sets (NVLink, one switch, the
		 * root complex, the CPUs' link); at uneven rates, the path of the slower pairs. */
		if (!c->ev->matrix[P2PS_PM_TOPO].present &&
		    !po_block_read(c, P2PS_PASTE_LSPCI_TREE))
			po_ask(c, "nvidia-smi topo -m", "%s",
			       uneven(c) ? "which GPUs share a PCIe switch and which pairs cross "
			                   "the root complex or the CPUs: the path of the slower "
			                   "pairs"
			                 : "the path of each pair's copies (NVLink, one PCIe "
			                   "switch, the root complex, the CPUs' link): the "
			                   "bandwidth to expect");
	}
	if (r->verdict == P2PS_VERDICT_UNKNOWN)
		po_ask(c, "sudo p2pscope-capture-host",
		       "everything above at once: p2pscope's capture, which bar-inspect --root "
		       "reads");
}
