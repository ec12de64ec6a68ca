/* SPDX-License-Identifier: MIT */
/* bar-inspect's text report: per-GPU blocks in lspci's vocabulary (Region N: Memory at
 * ... [size=...]), the topology matrix with nvidia-smi topo -m's classes and legend, one
 * verdict per GPU pair with every reason and fix, then host-wide findings. */
#include "p2pscope/render.h"
#include "render_internal.h"

#include <stdio.h>
#include <string.h>

void p2ps_text_reasons(struct p2ps_strbuf *b, const struct p2ps_reasons *r, const char *ind,
                       bool with_info)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct p2ps_reason *x = &r->v[i];
		if (x->sev == P2PS_SEV_INFO && !with_info)
			continue;
		p2ps_strbuf_printf(b, "%s%-8s %s\n", ind, p2ps_severity_name(x->sev), x->text);
		if (x->fix[0])
			p2ps_strbuf_printf(b, "%s         fix: %s\n", ind, x->fix);
	}
}

static void matrix(struct p2ps_strbuf *b, const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	size_t n = a->n_gpus;
	p2ps_strbuf_puts(b, "Topology (nvidia-smi topo -m classes, computed from the PCI tree and "
	                    "NUMA nodes):\n\t");
	for (size_t j = 0; j < n; j++)
		p2ps_strbuf_printf(b, "%s%zu\t", p2ps_endpoint_prefix(a, j), j);
	p2ps_strbuf_puts(b, "NUMA Affinity\tBDF\n");
	for (size_t i = 0; i < n; i++) {
		p2ps_strbuf_printf(b, "%s%zu\t", p2ps_endpoint_prefix(a, i), i);
		for (size_t j = 0; j < n; j++) {
			enum p2ps_topo t = a->matrix[i * n + j];
			if (t == P2PS_TOPO_NV)
				p2ps_strbuf_printf(b, "NV%d\t", a->nvlink_matrix[i * n + j]);
			else if (t == P2PS_TOPO_X)
				p2ps_strbuf_puts(b, " X \t");
			else
				p2ps_strbuf_printf(b, "%s\t", p2ps_topo_name(t));
		}
		const struct p2ps_dev *d = &h->devs[a->gpus[i].dev_idx];
		if (d->numa_node >= 0)
			p2ps_strbuf_printf(b, "%d\t\t%s\n", d->numa_node, d->bdf_str);
		else
			p2ps_strbuf_printf(b, "N/A\t\t%s\n", d->bdf_str);
	}
	p2ps_strbuf_puts(b, "\nLegend:\n\n");
	static const enum p2ps_topo order[] = {P2PS_TOPO_X,   P2PS_TOPO_SYS, P2PS_TOPO_NODE,
	                                       P2PS_TOPO_PHB, P2PS_TOPO_PXB, P2PS_TOPO_PIX,
	                                       P2PS_TOPO_NV};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		p2ps_strbuf_printf(b, "  %-4s = %s\n",
		                   order[i] == P2PS_TOPO_NV ? "NV#" : p2ps_topo_name(order[i]),
		                   p2ps_topo_legend(order[i]));
	p2ps_strbuf_puts(b,
	                 "  ?    = Unknown (a fact the class needs is missing; see the pair)\n\n");
}

static void pair_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                       const struct p2ps_pair *p)
{
	const struct p2ps_host *h = a->host;
	char topo[16];
	if (p->topo == P2PS_TOPO_NV)
		snprintf(topo, sizeof(topo), "NV%d", p->nvlinks);
	else
		snprintf(topo, sizeof(topo), "%s", p2ps_topo_name(p->topo));
	p2ps_strbuf_printf(
	        b, "%s%d <-> %s%d (%s <-> %s)  %s", p2ps_endpoint_prefix(a, (size_t)p->a), p->a,
	        p2ps_endpoint_prefix(a, (size_t)p->b), p->b, h->devs[a->gpus[p->a].dev_idx].bdf_str,
	        h->devs[a->gpus[p->b].dev_idx].bdf_str, topo);
	if (p->topo == P2PS_TOPO_NV)
		p2ps_strbuf_printf(b, " (PCIe path %s)", p2ps_topo_name(p->pcie_topo));
	size_t nsev[4] = {0};
	for (size_t i = 0; i < p->reasons.n; i++)
		if (p->reasons.v[i].sev <= P2PS_SEV_INFO)
			nsev[p->reasons.v[i].sev]++;
	p2ps_strbuf_printf(b, "  BAR1 P2P: %s", p2ps_verdict_name(p->verdict));
	if (p->verdict == P2PS_VERDICT_NOT_READY)
		p2ps_strbuf_printf(b, " (%zu blocker%s)", nsev[P2PS_SEV_BLOCKER],
		                   nsev[P2PS_SEV_BLOCKER] == 1 ? "" : "s");
	else if (p->verdict == P2PS_VERDICT_READY && nsev[P2PS_SEV_WARNING])
		p2ps_strbuf_printf(b, " (%zu warning%s)", nsev[P2PS_SEV_WARNING],
		                   nsev[P2PS_SEV_WARNING] == 1 ? "" : "s");
	if (p->moot)
		p2ps_strbuf_puts(b, " (moot: NVLink)");
	if (p->pcie_gbps > 0)
		p2ps_strbuf_printf(b, "  PCIe %.1f GB/s per direction", p->pcie_gbps);
	p2ps_strbuf_puts(b, "\n");
	p2ps_text_rm_pair(b, h, &h->devs[a->gpus[p->a].dev_idx], &h->devs[a->gpus[p->b].dev_idx]);
	if (!p->reasons.n)
		p2ps_strbuf_puts(b, "\tno obstacles found\n");
	p2ps_text_reasons(b, &p->reasons, "\t", true);
}

/* "bar-inspect VERSION: SOURCE [host]" and the counts line. */
static void report_header(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                          const struct p2ps_render_opts *o)
{
	const struct p2ps_host *h = a->host;
	p2ps_strbuf_printf(b, "bar-inspect%s%s: ", o && o->version ? " " : "",
	                   o && o->version ? o->version : "");
	switch (h->kind) {
	case P2PS_HOST_LIVE: p2ps_strbuf_puts(b, "this host (live sysfs)"); break;
	case P2PS_HOST_SNAPSHOT: p2ps_strbuf_printf(b, "snapshot %s", h->source_path); break;
	case P2PS_HOST_LSPCI_DUMP:
		p2ps_strbuf_printf(b,
		                   "lspci dump %s (no sysfs facts: sizes, driver, NUMA, IOMMU "
		                   "unknown)",
		                   h->source_path);
		break;
	case P2PS_HOST_VFIO: p2ps_strbuf_puts(b, "VFIO devices"); break;
	case P2PS_HOST_PASTE:
		p2ps_strbuf_printf(b, "paste %s (facts as pasted; the rest unknown)",
		                   h->source_path);
		break;
	}
	if (h->hostname[0])
		p2ps_strbuf_printf(b, " [%s]", h->hostname);
	size_t n_nv = 0;
	for (size_t i = 0; i < a->n_gpus; i++)
		n_nv += a->gpus[i].is_gpu;
	p2ps_strbuf_printf(b, "\n%zu PCI devices, %zu NVIDIA GPU%s", h->n_devs, n_nv,
	                   n_nv == 1 ? "" : "s");
	if (a->n_gpus > n_nv)
		p2ps_strbuf_printf(b, " + %zu other peer%s", a->n_gpus - n_nv,
		                   a->n_gpus - n_nv == 1 ? "" : "s");
	p2ps_strbuf_printf(b, "; IOMMU %s\n\n", a->iommu_summary);
}

static void host_section(struct p2ps_strbuf *b, const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	p2ps_strbuf_puts(b, "Host:\n");
	/* A paste gives the driver's version number alone (NVRM's load line, nvidia-smi). */
	if (!h->nvidia.module_known && h->nvidia.proc_known && !h->nvidia.proc_version[0] &&
	    h->nvidia.proc_driver_version[0])
		p2ps_strbuf_printf(b, "\tNVIDIA driver %s\n", h->nvidia.proc_driver_version);
	else if (h->nvidia.module_known || h->nvidia.proc_known)
		p2ps_strbuf_printf(b, "\tnvidia module %s; /proc/driver/nvidia/version: %s\n",
		                   h->nvidia.module_version[0] ? h->nvidia.module_version
		                                               : "not loaded",
		                   h->nvidia.proc_version[0] ? h->nvidia.proc_version : "absent");
	if (h->nvidia.nvml_loaded)
		p2ps_strbuf_printf(b, "\tNVML: loaded, driver %s\n", h->nvidia.nvml_driver_version);
	else if (h->nvidia.nvml_status[0])
		p2ps_strbuf_printf(b, "\tNVML: %s\n", h->nvidia.nvml_status);
	p2ps_text_rm_host(b, h);
	p2ps_text_reasons(b, &a->host_reasons, "\t", true);
}

int p2ps_render_text(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     struct p2ps_strbuf *b, struct p2ps_error *err)
{
	const struct p2ps_host *h = a->host;
	report_header(b, a, o);
	size_t shown = 0;
	for (size_t i = 0; i < h->n_devs; i++) {
		if (!p2ps_dev_shown(a, o, (int)i))
			continue;
		shown++;
		int gi = p2ps_analysis_gpu_of_dev(a, (int)i);
		if (gi >= 0)
			p2ps_text_gpu_block(b, a, (size_t)gi);
		else
			p2ps_text_other_block(b, a, (int)i);
	}
	if (!shown)
		p2ps_strbuf_printf(b, "No %s%s.\n\n", o && o->all ? "PCI devices" : "NVIDIA GPUs",
		                   o && o->filter ? " match the -s filter" : " found");

	if (a->n_gpus > 1) {
		matrix(b, a);
		p2ps_strbuf_puts(
		        b, "P2P readiness (static BAR1 P2P as the patched open kernel modules "
		           "do it; fixes are printed, never applied):\n");
		for (size_t k = 0; k < a->n_pairs; k++)
			if (p2ps_pair_shown(a, o, &a->pairs[k]))
				pair_block(b, a, &a->pairs[k]);
		p2ps_strbuf_puts(b, "\n");
	} else if (a->n_gpus == 1) {
		p2ps_strbuf_puts(b, "One endpoint: no pair to judge.\n\n");
	}
	p2ps_text_gdr(b, a);
	host_section(b, a);
	p2ps_render_driver_text(a, b);
	if (h->vfio)
		p2ps_text_vfio(b, h->vfio);
	int rc = p2ps_render_paste_section_text(a, b, err);
	if (rc < 0)
		return rc;
	if (b->oom)
		return p2ps_error_set(err, P2PS_ENOMEM, "text report: out of memory");
	return 0;
}
