/* SPDX-License-Identifier: MIT */
/* GPUDirect RDMA in each rendering: the GPU x device pairs the analysis judged
 * (analysis.h, struct p2ps_gdr_pair), their verdicts, reasons and NCCL's decision. */
#include "p2pscope/render.h"
#include "render_internal.h"

#include <json-c/json.h>

#include "json_put.h"

static const char *nccl_word(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

static void pair_label(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                       const struct p2ps_gdr_pair *p)
{
	const struct p2ps_host *h = a->host;
	p2ps_strbuf_printf(b, "GPU%d %s <-> ", p->gpu, h->devs[a->gpus[p->gpu].dev_idx].bdf_str);
	if (p->rdma_name)
		p2ps_strbuf_printf(b, "%s ", p->rdma_name);
	p2ps_strbuf_puts(b, h->devs[p->dev_idx].bdf_str);
}

void p2ps_text_gdr(struct p2ps_strbuf *b, const struct p2ps_analysis *a)
{
	size_t n_nv = 0;
	for (size_t i = 0; i < a->n_gpus; i++)
		n_nv += a->gpus[i].is_gpu;
	if (!n_nv)
		return;
	if (!a->n_gdr) {
		p2ps_strbuf_puts(b, "GPUDirect RDMA: no RDMA NIC found (name other devices with "
		                    "--peers).\n\n");
		return;
	}
	p2ps_strbuf_printf(b,
	                   "GPUDirect RDMA (a device reading and writing GPU memory; %zu RDMA "
	                   "device%s found):\n",
	                   a->n_rdma_devs, a->n_rdma_devs == 1 ? "" : "s");
	for (size_t k = 0; k < a->n_gdr; k++) {
		const struct p2ps_gdr_pair *p = &a->gdr[k];
		pair_label(b, a, p);
		p2ps_strbuf_printf(b, "  %s  GPUDirect RDMA: %s", p2ps_topo_name(p->topo),
		                   p2ps_verdict_name(p->verdict));
		if (p->nccl_gdr >= 0)
			p2ps_strbuf_printf(b, "  NCCL GDR: %s", nccl_word(p->nccl_gdr));
		p2ps_strbuf_puts(b, "\n");
		p2ps_text_reasons(b, &p->reasons, "\t", true);
	}
	p2ps_strbuf_puts(b, "\n");
}

struct json_object *p2ps_json_gdr(const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	struct json_object *o = json_object_new_object(), *pairs = json_object_new_array();
	struct json_object *devs = json_object_new_array();
	p2ps_json_put(o, "known", json_object_new_boolean(h->rdma.known));
	p2ps_json_put(o, "nvidia_peermem",
	              h->rdma.known ? json_object_new_boolean(h->rdma.nvidia_peermem) : NULL);
	p2ps_json_put(o, "nv_peer_mem",
	              h->rdma.known ? json_object_new_boolean(h->rdma.nv_peer_mem) : NULL);
	for (int i = 0; i < h->rdma.n_devs; i++) {
		struct json_object *d = json_object_new_object();
		char bdf[20];
		p2ps_json_put(d, "name", json_object_new_string(h->rdma.devs[i].name));
		p2ps_json_put(d, "bdf",
		              json_object_new_string(
		                      p2ps_bdf_format(&h->rdma.devs[i].bdf, bdf, sizeof(bdf))));
		json_object_array_add(devs, d);
	}
	p2ps_json_put(o, "rdma_devices", devs);
	p2ps_json_put(o, "rdma_nics_found", json_object_new_int((int)a->n_rdma_devs));
	for (size_t k = 0; k < a->n_gdr; k++) {
		const struct p2ps_gdr_pair *p = &a->gdr[k];
		struct json_object *e = json_object_new_object();
		p2ps_json_put(e, "gpu", json_object_new_int(p->gpu));
		p2ps_json_put(e, "gpu_bdf",
		              json_object_new_string(h->devs[a->gpus[p->gpu].dev_idx].bdf_str));
		p2ps_json_put(e, "device", json_object_new_string(h->devs[p->dev_idx].bdf_str));
		p2ps_json_put(e, "rdma_name",
		              p2ps_json_str_or_null(p->rdma_name ? p->rdma_name : ""));
		p2ps_json_put(e, "topology", json_object_new_string(p2ps_topo_name(p->topo)));
		p2ps_json_put(e, "common_bridge",
		              p->lca_idx >= 0 ? json_object_new_string(h->devs[p->lca_idx].bdf_str)
		                              : NULL);
		p2ps_json_put(e, "verdict", json_object_new_string(p2ps_verdict_name(p->verdict)));
		p2ps_json_put(e, "nccl_gdr",
		              p->nccl_gdr < 0 ? NULL : json_object_new_boolean(p->nccl_gdr));
		p2ps_json_put(e, "reasons", p2ps_json_reasons(a, &p->reasons));
		json_object_array_add(pairs, e);
	}
	p2ps_json_put(o, "pairs", pairs);
	return o;
}

void p2ps_dot_gdr_want(const struct p2ps_analysis *a, bool *want)
{
	const struct p2ps_host *h = a->host;
	for (size_t k = 0; k < a->n_gdr; k++) {
		int p = a->gdr[k].dev_idx, depth = 0;
		while (p >= 0 && (size_t)p < h->n_devs && depth++ <= P2PS_PATH_MAX) {
			want[p] = true;
			p = h->devs[p].parent_idx;
		}
	}
}

void p2ps_dot_gdr_edges(struct p2ps_strbuf *b, const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	for (size_t k = 0; k < a->n_gdr; k++) {
		const struct p2ps_gdr_pair *p = &a->gdr[k];
		const char *color = p2ps_dot_verdict_color(p->verdict);
		p2ps_strbuf_printf(b,
		                   "  \"%s\" -> \"%s\" [dir=none, style=dotted, constraint=false, "
		                   "color=%s, fontcolor=%s, label=\"%s\\nGDR %s\"];\n",
		                   h->devs[a->gpus[p->gpu].dev_idx].bdf_str,
		                   h->devs[p->dev_idx].bdf_str, color, color,
		                   p2ps_topo_name(p->topo), p2ps_verdict_name(p->verdict));
	}
}
