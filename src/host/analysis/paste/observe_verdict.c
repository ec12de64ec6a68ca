/* SPDX-License-Identifier: MIT */
/* The paste's verdict: the causes that block BAR1 P2P (the analysis' blockers and the
 * findings' blockers, each once), "unknown" where a needed fact is missing, and what to
 * send next — for each unknown the command whose output settles it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"

static void cause(struct octx *c, const char *code, const char *text, const char *fix)
{
	struct p2ps_paste_report *r = c->r;
	for (size_t i = 0; i < r->n_causes; i++)
		if (!strcmp(r->causes[i].text, text))
			return;
	if (r->n_causes == P2PS_PASTE_MAX_CAUSES)
		return;
	struct p2ps_paste_cause *x = &r->causes[r->n_causes++];
	snprintf(x->code, sizeof(x->code), "%s", code);
	snprintf(x->text, sizeof(x->text), "%s", text);
	snprintf(x->fix, sizeof(x->fix), "%s", fix);
}

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

/* Whether the IOMMU translates the GPUs' DMA. */
static void iommu_asks(struct octx *c)
{
	if (c->h->iommu.known && c->h->iommu.present) {
		po_ask(c, "cat /sys/kernel/iommu_groups/*/type",
		       "whether the IOMMU translates the GPUs' DMA (DMA, DMA-FQ) or passes it "
		       "through "
		       "(identity)");
		return;
	}
	if (!c->p->host.cmdline_known) /* never a fact the paste holds */
		po_ask(c, "cat /proc/cmdline",
		       "the IOMMU flags the kernel booted with (iommu=, intel_iommu=, amd_iommu=)");
	po_ask(c, "sudo dmesg | grep -iE 'iommu|dmar|amd-vi'",
	       "whether an IOMMU is on and in which default domain");
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
	case P2PS_R_IOMMU_UNKNOWN: iommu_asks(c); break;
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

/* The analysis' blockers become causes; its unknowns become asks. */
static void from_analysis(struct octx *c, struct lists *lists, bool *unknown)
{
	const struct p2ps_analysis *a = c->a;
	for (size_t k = 0; k <= a->n_gpus + a->n_pairs; k++) {
		const struct p2ps_reasons *r = k < a->n_gpus ? &a->gpus[k].reasons
		                               : k < a->n_gpus + a->n_pairs
		                                       ? &a->pairs[k - a->n_gpus].reasons
		                                       : &a->host_reasons;
		for (size_t i = 0; i < r->n; i++) {
			const struct p2ps_reason *x = &r->v[i];
			if (x->sev == P2PS_SEV_BLOCKER)
				cause(c, p2ps_reason_code_name(x->code), x->text, x->fix);
			else if (x->sev == P2PS_SEV_UNKNOWN) {
				*unknown = true;
				ask_for(c, x, lists);
			}
		}
	}
}

/* ACS and the IOMMU where the analysis judged no pair (one GPU with an address, or GPUs
 * the paste names only by nvidia-smi index): no pair asked for them, but a verdict will. */
static void no_pairs(struct octx *c, struct lists *lists)
{
	const struct p2ps_analysis *a = c->a;
	if (a->n_pairs || (a->n_gpus + c->p->n_gpus < 1))
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
	if (!domains)
		iommu_asks(c);
	for (size_t gi = 0; gi < a->n_gpus; gi++)
		if (p2ps_dev_unknown(&c->h->devs[a->gpus[gi].dev_idx], P2PS_FACT_PARENT))
			po_ask(c, "lspci -tv",
			       "how the GPUs hang off PCIe switches and root ports");
}

/* Asks only a paste needs: addresses of nvidia-smi's GPUs, the driver's log, CUDA's data. */
static void paste_asks(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	bool anon = false, can = false;
	for (size_t i = 0; i < p->n_gpus; i++)
		anon |= !p->gpus[i].bdf_known;
	if (anon)
		po_ask(c, "nvidia-smi --query-gpu=index,pci.bus_id,name,memory.total --format=csv",
		       "the PCI address, model and VRAM of every GPU nvidia-smi numbers");
	for (int i = 0; i < p->m[P2PS_PM_CUDA_ACCESS].n; i++)
		for (int j = 0; j < p->m[P2PS_PM_CUDA_ACCESS].n; j++) {
			const char *s = p2ps_paste_cell(p, P2PS_PM_CUDA_ACCESS, i, j);
			can |= i != j && s && s[0] == '1';
		}
	bool nvrm = p->event_count[P2PS_PE_DRIVER_LOAD] || p->event_count[P2PS_PE_STATIC_BAR1] ||
	            p->event_count[P2PS_PE_BAR1_P2P_MAPPING];
	if (c->r->verdict != P2PS_VERDICT_NOT_READY && (c->a->n_gpus || p->n_gpus) && !nvrm)
		po_ask(c, "sudo dmesg | grep NVRM",
		       "which driver runs and whether it maps BAR1 statically on every GPU (a GPU "
		       "that "
		       "drives a display loses its static BAR1 mapping)");
	bool measured =
	        p->m[P2PS_PM_BW_UNI_ON].present || p->cuda.verify_errors || p->cuda.result >= 0;
	if (can && !measured) {
		po_ask(c, "./p2pBandwidthLatencyTest",
		       "the whole output: its P2P=Enabled matrices show whether peer copies beat "
		       "host "
		       "copies");
		po_ask(c, "./simpleP2P", "whether peer copies deliver the right data");
		po_ask(c, "nvidia-smi --query-gpu=index,pci.bus_id,display_active --format=csv",
		       "whether a GPU drives a display");
	}
	const struct p2ps_paste_matrix *m = &p->m[P2PS_PM_P2P];
	bool cns = false, gns = false;
	for (int i = 0; m->present && i < m->n * m->n; i++) {
		enum p2ps_nv_status st;
		if (p2ps_nv_status_from_code(m->cell[i], &st))
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

void po_verdict(struct octx *c)
{
	struct p2ps_paste_report *r = c->r;
	struct lists lists = {"", ""};
	bool unknown = false;
	po_symptom_asks(c); /* the symptom's own order comes first */
	from_analysis(c, &lists, &unknown);
	no_pairs(c, &lists);
	for (size_t i = 0; i < r->findings.n; i++) {
		const struct p2ps_reason *f = &r->findings.v[i];
		if (f->sev == P2PS_SEV_BLOCKER)
			cause(c, p2ps_paste_finding_name(f->code), f->text, f->fix);
		unknown |= f->sev == P2PS_SEV_UNKNOWN;
	}
	bool gpus = c->a->n_gpus || c->p->n_gpus;
	const struct p2ps_paste_pair *ok = NULL;
	for (size_t i = 0; i < r->n_pairs && !ok; i++)
		if (r->pairs[i].works)
			ok = &r->pairs[i];
	if (!gpus && !r->n_causes)
		po_add(c, P2PS_PF_NO_GPU, P2PS_SEV_UNKNOWN, (struct p2ps_paste_where){-1, 0},
		       "the paste names no NVIDIA GPU");
	if (!gpus)
		po_ask(c, "lspci -nn | grep -i nvidia", "which NVIDIA GPUs the machine has");
	r->verdict = r->n_causes                          ? P2PS_VERDICT_NOT_READY
	             : ok                                 ? P2PS_VERDICT_READY
	             : unknown || !gpus || !c->a->n_pairs ? P2PS_VERDICT_UNKNOWN
	                                                  : P2PS_VERDICT_READY;
	if (!r->n_causes && ok)
		snprintf(r->verdict_why, sizeof(r->verdict_why),
		         "P2P works on %.40s <-> %.40s (%.150s)", ok->a, ok->b, ok->works_why);
	else if (r->n_causes)
		snprintf(r->verdict_why, sizeof(r->verdict_why), "%zu blocking cause%s",
		         r->n_causes, r->n_causes == 1 ? "" : "s");
	else if (r->verdict == P2PS_VERDICT_UNKNOWN)
		snprintf(r->verdict_why, sizeof(r->verdict_why), "%s",
		         !gpus            ? "no NVIDIA GPU in the paste"
		         : !c->a->n_pairs ? "no GPU pair the analysis can judge from the paste"
		                          : "facts the verdict needs are not in the paste");
	else
		snprintf(r->verdict_why, sizeof(r->verdict_why),
		         "nothing in the paste blocks BAR1 P2P");
	for (size_t i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].code == P2PS_PF_P2P_NO_GAIN &&
		    r->findings.v[i].sev == P2PS_SEV_BLOCKER) {
			iommu_asks(c); /* the detour goes through the root complex: which turn sends
			                  it */
			if (!lists.acs[0])
				snprintf(lists.acs, sizeof(lists.acs),
				         "the switch and root ports between the GPUs");
		}
	lspci_asks(c, &lists);
	paste_asks(c);
	if (r->verdict == P2PS_VERDICT_UNKNOWN)
		po_ask(c, "sudo scripts/capture-host.sh",
		       "everything above at once: p2pscope's capture, which bar-inspect --root "
		       "reads");
}
