/* SPDX-License-Identifier: MIT */
/* bar-inspect --dot: the PCI tree as a Graphviz digraph. Host bridges are grey boxes,
 * bridges are boxes (red when their ACS control redirects peer traffic), GPUs are
 * filled boxes; dashed undirected edges join GPU pairs, green for ready, red for not
 * ready, grey for unknown, blue when NVLink makes the question moot. Without --all only
 * the GPUs and the bridges above them are drawn. */
#include "p2pscope/render.h"
#include "render_internal.h"

#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"

/* Graphviz IDs are quoted; BDFs and root-bus names need no escaping, but names from
 * pci.ids may hold quotes or backslashes. */
void p2ps_dot_escaped(struct p2ps_strbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			p2ps_strbuf_printf(b, "\\%c", *s);
		else
			p2ps_strbuf_printf(b, "%c", *s);
	}
}

static void bridge_node(struct p2ps_strbuf *b, const struct p2ps_dev *d)
{
	bool red = d->acs.present && p2ps_acs_redirect_bits(d->acs.ctl);
	p2ps_strbuf_printf(b, "  \"%s\" [shape=box%s, label=\"%s\\n", d->bdf_str,
	                   red ? ", color=red, fontcolor=red" : "", d->bdf_str);
	if (d->pcie.present)
		p2ps_strbuf_printf(b, "%s", p2ps_pcie_type_name(d->pcie.port_type));
	else
		p2ps_strbuf_puts(b, "bridge");
	p2ps_strbuf_printf(b, " [%04x:%04x]", d->vendor_id, d->device_id);
	if (d->acs.present) {
		uint16_t r = p2ps_acs_redirect_bits(d->acs.ctl);
		if (r)
			p2ps_strbuf_printf(b, "\\nACS redirect:%s%s%s",
			                   (r & P2PS_ACS_RR) ? " ReqRedir+" : "",
			                   (r & P2PS_ACS_CR) ? " CmpltRedir+" : "",
			                   (r & P2PS_ACS_EC) ? " EgressCtrl+" : "");
		else
			p2ps_strbuf_puts(b, "\\nACS: no redirect");
	} else if (p2ps_dev_unknown(d, P2PS_FACT_ACS)) {
		p2ps_strbuf_puts(b, "\\nACS: unknown");
	}
	p2ps_strbuf_puts(b, "\"];\n");
}

static void gpu_node(struct p2ps_strbuf *b, const struct p2ps_analysis *a, int gi)
{
	const struct p2ps_gpu_report *g = &a->gpus[gi];
	const struct p2ps_dev *d = &a->host->devs[g->dev_idx];
	char s[32];
	p2ps_strbuf_printf(b,
	                   "  \"%s\" [shape=box, style=\"filled,bold\", fillcolor=%s, "
	                   "label=\"%s%d %s\\n",
	                   d->bdf_str, g->is_gpu ? "palegreen" : "lightblue",
	                   p2ps_endpoint_prefix(a, (size_t)gi), gi, d->bdf_str);
	p2ps_dot_escaped(b, d->device_name[0] ? d->device_name
	                    : d->chip         ? p2ps_nvidia_chip_name(d->chip)
	                                      : "PCI device");
	if (g->bar1_size_known)
		p2ps_strbuf_printf(b, "\\n%s %s", g->is_gpu ? "BAR1" : "window",
		                   p2ps_size_format(g->bar1_size, s, sizeof(s)));
	p2ps_strbuf_printf(b, "\\nIOMMU %s\"];\n", p2ps_iommu_mode_name(g->iommu));
}

static void other_node(struct p2ps_strbuf *b, const struct p2ps_dev *d)
{
	p2ps_strbuf_printf(b, "  \"%s\" [shape=ellipse, label=\"%s\\n[%04x:%04x]\"];\n", d->bdf_str,
	                   d->bdf_str, d->vendor_id, d->device_id);
}

/* Host bridges: one node per distinct root bus among the drawn devices. */
static void host_bridge_nodes(struct p2ps_strbuf *b, const struct p2ps_host *h, const bool *want)
{
	for (size_t i = 0; i < h->n_devs; i++) {
		const struct p2ps_dev *d = &h->devs[i];
		if (!want[i] || d->parent_idx >= 0 || !d->root_bus[0])
			continue;
		bool first = true;
		for (size_t j = 0; j < i; j++)
			if (want[j] && h->devs[j].parent_idx < 0 &&
			    !strcmp(h->devs[j].root_bus, d->root_bus))
				first = false;
		if (!first)
			continue;
		p2ps_strbuf_printf(b,
		                   "  \"%s\" [shape=box, style=filled, fillcolor=lightgrey, "
		                   "label=\"host bridge\\n%s",
		                   d->root_bus, d->root_bus);
		if (d->numa_node >= 0)
			p2ps_strbuf_printf(b, "\\nNUMA %d", d->numa_node);
		p2ps_strbuf_puts(b, "\"];\n");
	}
}

/* One dashed edge per shown pair, coloured by verdict. */
const char *p2ps_dot_verdict_color(enum p2ps_verdict v)
{
	return v == P2PS_VERDICT_READY       ? "darkgreen"
	       : v == P2PS_VERDICT_NOT_READY ? "red"
	                                     : "grey50";
}

static void pair_edges(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                       const struct p2ps_render_opts *o)
{
	const struct p2ps_host *h = a->host;
	for (size_t k = 0; k < a->n_pairs; k++) {
		const struct p2ps_pair *p = &a->pairs[k];
		if (!p2ps_pair_shown(a, o, p))
			continue;
		const char *color = p->moot ? "blue" : p2ps_dot_verdict_color(p->verdict);
		p2ps_strbuf_printf(b,
		                   "  \"%s\" -> \"%s\" [dir=none, style=dashed, constraint=false, "
		                   "color=%s, fontcolor=%s, label=\"",
		                   h->devs[a->gpus[p->a].dev_idx].bdf_str,
		                   h->devs[a->gpus[p->b].dev_idx].bdf_str, color, color);
		if (p->topo == P2PS_TOPO_NV)
			p2ps_strbuf_printf(b, "NV%d", p->nvlinks);
		else
			p2ps_strbuf_puts(b, p2ps_topo_name(p->topo));
		p2ps_strbuf_printf(b, "\\n%s",
		                   p->moot ? "moot (NVLink)" : p2ps_verdict_name(p->verdict));
		p2ps_dot_rm_pair(b, h, &h->devs[a->gpus[p->a].dev_idx],
		                 &h->devs[a->gpus[p->b].dev_idx]);
		p2ps_strbuf_puts(b, "\"];\n");
	}
}

int p2ps_render_dot(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                    struct p2ps_strbuf *b, struct p2ps_error *err)
{
	const struct p2ps_host *h = a->host;
	bool *want = calloc(h->n_devs ? h->n_devs : 1, sizeof(*want));
	if (!want)
		return p2ps_error_set(err, P2PS_ENOMEM, "dot: out of memory");
	/* The shown devices and every bridge above them (bounded like the analysis). */
	for (size_t i = 0; i < h->n_devs; i++) {
		if (!p2ps_dev_shown(a, o, (int)i))
			continue;
		want[i] = true;
		int p = h->devs[i].parent_idx, depth = 0;
		while (p >= 0 && (size_t)p < h->n_devs && depth++ < P2PS_PATH_MAX) {
			want[p] = true;
			p = h->devs[p].parent_idx;
		}
	}
	p2ps_dot_gdr_want(a, want);

	p2ps_strbuf_puts(b, "digraph p2pscope {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", "
	                    "fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n");
	host_bridge_nodes(b, h, want);
	for (size_t i = 0; i < h->n_devs; i++) {
		if (!want[i])
			continue;
		const struct p2ps_dev *d = &h->devs[i];
		int gi = p2ps_analysis_gpu_of_dev(a, (int)i);
		if (gi >= 0)
			gpu_node(b, a, gi);
		else if (d->bridge.is_bridge)
			bridge_node(b, d);
		else
			other_node(b, d);
		if (d->parent_idx >= 0)
			p2ps_strbuf_printf(b, "  \"%s\" -> \"%s\";\n", d->parent->bdf_str,
			                   d->bdf_str);
		else if (d->root_bus[0])
			p2ps_strbuf_printf(b, "  \"%s\" -> \"%s\";\n", d->root_bus, d->bdf_str);
	}
	pair_edges(b, a, o);
	p2ps_dot_gdr_edges(b, a);
	p2ps_render_driver_dot(a, b);
	int rc = p2ps_render_paste_section_dot(a, b, err);
	p2ps_strbuf_puts(b, "}\n");
	free(want);
	if (rc < 0)
		return rc;
	if (b->oom)
		return p2ps_error_set(err, P2PS_ENOMEM, "dot: out of memory");
	return 0;
}
