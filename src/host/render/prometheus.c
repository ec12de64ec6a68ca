/* SPDX-License-Identifier: MIT */
/* bar-inspect --prometheus: the analysis in Prometheus's text exposition format (version
 * 0.0.4), for node_exporter's textfile collector. Every family has HELP and TYPE lines
 * and all its samples together; names carry the p2pscope_ prefix and their unit; labels
 * are the GPU's PCI address and a few small enumerations (mode, verdict, reason, class),
 * never free text. A fact that is unknown has no sample. The names are documented in
 * docs/prometheus.md. */
#include "p2pscope/render.h"
#include "render_internal.h"

#include <string.h>

#include "p2pscope/driver_model.h"
#include "p2pscope/nvidia_chips.h"

/* A label value with the format's escapes (backslash, double quote, newline). */
static void label_value(struct p2ps_strbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			p2ps_strbuf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			p2ps_strbuf_puts(b, "\\n");
		else
			p2ps_strbuf_printf(b, "%c", *s);
	}
}

static void family(struct p2ps_strbuf *b, const char *name, const char *help)
{
	p2ps_strbuf_printf(b, "# HELP p2pscope_%s %s\n# TYPE p2pscope_%s gauge\n", name, help,
	                   name);
}

static const char *bdf_of(const struct p2ps_analysis *a, size_t gi)
{
	return a->host->devs[a->gpus[gi].dev_idx].bdf_str;
}

/* ---- per GPU ---- */

/* One per-GPU number: *v set and true when known. */
typedef bool (*gpu_value_fn)(const struct p2ps_analysis *a, size_t gi, double *v);

static bool v_bar1(const struct p2ps_analysis *a, size_t gi, double *v)
{
	*v = (double)a->gpus[gi].bar1_size;
	return a->gpus[gi].bar1_size_known;
}

static bool v_vram(const struct p2ps_analysis *a, size_t gi, double *v)
{
	const struct p2ps_dev *d = &a->host->devs[a->gpus[gi].dev_idx];
	*v = (double)d->gpu.vram_bytes;
	return d->gpu.vram_known;
}

static bool v_covers(const struct p2ps_analysis *a, size_t gi, double *v)
{
	const struct p2ps_dev *d = &a->host->devs[a->gpus[gi].dev_idx];
	*v = a->gpus[gi].bar1_covers_vram ? 1 : 0;
	return a->gpus[gi].bar1_size_known && d->gpu.vram_known;
}

static const struct p2ps_link *link_cap(const struct p2ps_analysis *a, size_t gi)
{
	const struct p2ps_dev *d = &a->host->devs[a->gpus[gi].dev_idx];
	return d->pcie.cap_source != P2PS_LINK_NONE ? &d->pcie.cap : NULL;
}

static const struct p2ps_link *link_sta(const struct p2ps_analysis *a, size_t gi)
{
	const struct p2ps_dev *d = &a->host->devs[a->gpus[gi].dev_idx];
	return d->pcie.sta_source != P2PS_LINK_NONE ? &d->pcie.sta : NULL;
}

static bool v_cap_speed(const struct p2ps_analysis *a, size_t gi, double *v)
{
	const struct p2ps_link *l = link_cap(a, gi);
	*v = l ? p2ps_link_speed_gts(l->speed) * 1e9 : 0;
	return l && l->speed;
}

static bool v_sta_speed(const struct p2ps_analysis *a, size_t gi, double *v)
{
	const struct p2ps_link *l = link_sta(a, gi);
	*v = l ? p2ps_link_speed_gts(l->speed) * 1e9 : 0;
	return l && l->speed;
}

static bool v_cap_width(const struct p2ps_analysis *a, size_t gi, double *v)
{
	const struct p2ps_link *l = link_cap(a, gi);
	*v = l ? l->width : 0;
	return l && l->width;
}

/* A status width of 0 is a fact (the link is down), so it is reported. */
static bool v_sta_width(const struct p2ps_analysis *a, size_t gi, double *v)
{
	const struct p2ps_link *l = link_sta(a, gi);
	*v = l ? l->width : 0;
	return l != NULL;
}

static bool v_sta_bw(const struct p2ps_analysis *a, size_t gi, double *v)
{
	*v = a->gpus[gi].link_sta_gbps * 1e9;
	return a->gpus[gi].link_sta_gbps > 0;
}

/* The analysis's per-GPU findings decide "down-trained": the link, or one on the GPU's
 * path, runs below its capability or is down. */
static bool v_downtrained(const struct p2ps_analysis *a, size_t gi, double *v)
{
	const struct p2ps_reasons *r = &a->gpus[gi].reasons;
	bool unknown = false;
	*v = 0;
	for (size_t k = 0; k < r->n; k++) {
		enum p2ps_reason_code c = r->v[k].code;
		if (c == P2PS_R_LINK_WIDTH_DOWN || c == P2PS_R_LINK_SPEED_DOWN ||
		    c == P2PS_R_LINK_DOWN)
			*v = 1;
		if (c == P2PS_R_LINK_UNKNOWN)
			unknown = true;
	}
	return *v > 0 || !unknown;
}

static const struct {
	const char *name;
	const char *help;
	gpu_value_fn value;
} gpu_gauges[] = {
        {"gpu_bar1_bytes", "Size of the GPU's BAR1 (frame-buffer aperture) in bytes.", v_bar1},
        {"gpu_vram_bytes", "GPU memory (VRAM) in bytes.", v_vram},
        {"gpu_bar1_covers_vram", "1 when BAR1 is at least as large as VRAM.", v_covers},
        {"gpu_pcie_max_link_transfers_per_second",
         "PCIe link capability (LnkCap) speed in transfers per second.", v_cap_speed},
        {"gpu_pcie_current_link_transfers_per_second",
         "PCIe link status (LnkSta) speed in transfers per second.", v_sta_speed},
        {"gpu_pcie_max_link_width", "PCIe link capability (LnkCap) width in lanes.", v_cap_width},
        {"gpu_pcie_current_link_width", "PCIe link status (LnkSta) width in lanes; 0 is down.",
         v_sta_width},
        {"gpu_pcie_current_link_bytes_per_second",
         "Payload bandwidth of the trained link per direction in bytes per second.", v_sta_bw},
        {"gpu_pcie_link_downtrained",
         "1 when the GPU's link, or one on its path, trained below its capability or is down.",
         v_downtrained},
};

static void gpu_families(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                         const struct p2ps_render_opts *o)
{
	family(b, "gpu_info", "NVIDIA GPU (or extra peer) seen; the value is always 1.");
	for (size_t gi = 0; gi < a->n_gpus; gi++) {
		if (!p2ps_endpoint_shown(a, o, gi))
			continue;
		const struct p2ps_dev *d = &a->host->devs[a->gpus[gi].dev_idx];
		p2ps_strbuf_printf(b, "p2pscope_gpu_info{gpu=\"%s\",index=\"%zu\",chip=\"",
		                   d->bdf_str, gi);
		label_value(b, d->chip ? p2ps_nvidia_chip_name(d->chip) : "");
		p2ps_strbuf_printf(b, "\",device_id=\"0x%04x\",endpoint=\"%s\"} 1\n", d->device_id,
		                   a->gpus[gi].is_gpu ? "gpu" : "peer");
	}
	for (size_t f = 0; f < sizeof(gpu_gauges) / sizeof(gpu_gauges[0]); f++) {
		family(b, gpu_gauges[f].name, gpu_gauges[f].help);
		for (size_t gi = 0; gi < a->n_gpus; gi++) {
			double v;
			if (p2ps_endpoint_shown(a, o, gi) && gpu_gauges[f].value(a, gi, &v))
				p2ps_strbuf_printf(b, "p2pscope_%s{gpu=\"%s\"} %.17g\n",
				                   gpu_gauges[f].name, bdf_of(a, gi), v);
		}
	}
	family(b, "gpu_iommu_mode",
	       "IOMMU mode of the GPU's DMA: 1 for the current mode, 0 for the others.");
	for (size_t gi = 0; gi < a->n_gpus; gi++)
		for (int m = P2PS_IOMMU_UNKNOWN;
		     m <= P2PS_IOMMU_UNMANAGED && p2ps_endpoint_shown(a, o, gi); m++)
			p2ps_strbuf_printf(
			        b, "p2pscope_gpu_iommu_mode{gpu=\"%s\",mode=\"%s\"} %d\n",
			        bdf_of(a, gi), p2ps_iommu_mode_name((enum p2ps_iommu_mode)m),
			        a->gpus[gi].iommu == (enum p2ps_iommu_mode)m);
}

/* ---- per pair ---- */

static void pair_labels(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                        const struct p2ps_pair *p)
{
	p2ps_strbuf_printf(b, "gpu_a=\"%s\",gpu_b=\"%s\"", bdf_of(a, (size_t)p->a),
	                   bdf_of(a, (size_t)p->b));
}

/* The verdict's name as a label value: "not ready" becomes "not_ready". */
static const char *verdict_label(enum p2ps_verdict v)
{
	switch (v) {
	case P2PS_VERDICT_READY: return "ready";
	case P2PS_VERDICT_NOT_READY: return "not_ready";
	case P2PS_VERDICT_UNKNOWN: break;
	}
	return "unknown";
}

static size_t blockers(const struct p2ps_pair *p, int code)
{
	size_t n = 0;
	for (size_t k = 0; k < p->reasons.n; k++)
		if (p->reasons.v[k].sev == P2PS_SEV_BLOCKER &&
		    (code < 0 || p->reasons.v[k].code == (enum p2ps_reason_code)code))
			n++;
	return n;
}

static void pair_verdicts(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                          const struct p2ps_render_opts *o)
{
	family(b, "pair_ready", "1 when static BAR1 P2P can work for the GPU pair.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		if (!p2ps_pair_shown(a, o, &a->pairs[k]))
			continue;
		p2ps_strbuf_puts(b, "p2pscope_pair_ready{");
		pair_labels(b, a, &a->pairs[k]);
		p2ps_strbuf_printf(b, "} %d\n", a->pairs[k].verdict == P2PS_VERDICT_READY);
	}
	family(b, "pair_verdict", "The pair's verdict: 1 for the current one, 0 for the others.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		if (!p2ps_pair_shown(a, o, &a->pairs[k]))
			continue;
		for (int v = P2PS_VERDICT_READY; v <= P2PS_VERDICT_UNKNOWN; v++) {
			p2ps_strbuf_puts(b, "p2pscope_pair_verdict{");
			pair_labels(b, a, &a->pairs[k]);
			p2ps_strbuf_printf(b, ",verdict=\"%s\"} %d\n",
			                   verdict_label((enum p2ps_verdict)v),
			                   a->pairs[k].verdict == (enum p2ps_verdict)v);
		}
	}
	family(b, "pair_blockers", "Blocking findings of the pair, by reason code.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		const struct p2ps_pair *p = &a->pairs[k];
		if (!p2ps_pair_shown(a, o, p))
			continue;
		for (int c = 0; c < P2PS_R_CODE_COUNT; c++) {
			size_t n = blockers(p, c);
			if (!n)
				continue;
			p2ps_strbuf_puts(b, "p2pscope_pair_blockers{");
			pair_labels(b, a, p);
			p2ps_strbuf_printf(b, ",reason=\"%s\"} %zu\n",
			                   p2ps_reason_code_name((enum p2ps_reason_code)c), n);
		}
	}
	family(b, "pair_blocking_findings", "Blocking findings of the pair, all reasons.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		if (!p2ps_pair_shown(a, o, &a->pairs[k]))
			continue;
		p2ps_strbuf_puts(b, "p2pscope_pair_blocking_findings{");
		pair_labels(b, a, &a->pairs[k]);
		p2ps_strbuf_printf(b, "} %zu\n", blockers(&a->pairs[k], -1));
	}
}

/* The driver's own P2P status per pair and path (NV0000_P2P_CAPS_STATUS_*, 0 is OK), where
 * the driver said it (p2ps_drv_reported_pair: the RM API, NVML or a snapshot's nvidia-smi
 * topo -p2p); the path label has the nine values of NV0000_CTRL_P2P_CAPS_INDEX_*. */
static void pair_driver_caps(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                             const struct p2ps_render_opts *o)
{
	const struct p2ps_host_driver_caps *dc = &a->host->driver_caps;
	if (!dc->known)
		return;
	family(b, "pair_driver_p2p_ok",
	       "1 when the NVIDIA driver reports the path OK for the pair, 0 when it refuses it.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		const struct p2ps_pair *p = &a->pairs[k];
		struct p2ps_drv_reported rep;
		if (!p2ps_pair_shown(a, o, p))
			continue;
		p2ps_drv_reported_pair(a, (size_t)p->a, (size_t)p->b, &rep);
		for (int i = 0; rep.known && i < P2PS_NV_CAPS_COUNT; i++) {
			enum p2ps_nv_status st = rep.st[i];
			if (st == P2PS_NV_ST_UNKNOWN)
				continue;
			p2ps_strbuf_puts(b, "p2pscope_pair_driver_p2p_ok{");
			pair_labels(b, a, p);
			p2ps_strbuf_printf(b, ",path=\"%s\"} %d\n", p2ps_nv_caps_index_name(i),
			                   st == P2PS_NV_ST_OK);
		}
	}
}

static void pair_topology(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                          const struct p2ps_render_opts *o)
{
	family(b, "pair_topology_info",
	       "Topology class of the pair (nvidia-smi topo -m) and of its PCIe path; always 1.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		const struct p2ps_pair *p = &a->pairs[k];
		if (!p2ps_pair_shown(a, o, p))
			continue;
		p2ps_strbuf_puts(b, "p2pscope_pair_topology_info{");
		pair_labels(b, a, p);
		p2ps_strbuf_printf(b, ",class=\"%s\",pcie_class=\"%s\"} 1\n",
		                   p2ps_topo_name(p->topo), p2ps_topo_name(p->pcie_topo));
	}
	family(b, "pair_nvlinks", "NVLinks joining the pair (the # of NV#); 0 for none.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		if (!p2ps_pair_shown(a, o, &a->pairs[k]))
			continue;
		p2ps_strbuf_puts(b, "p2pscope_pair_nvlinks{");
		pair_labels(b, a, &a->pairs[k]);
		p2ps_strbuf_printf(b, "} %d\n", a->pairs[k].nvlinks);
	}
	family(b, "pair_pcie_bytes_per_second",
	       "Narrowest trained PCIe link of the pair per direction in bytes per second.");
	for (size_t k = 0; k < a->n_pairs; k++) {
		const struct p2ps_pair *p = &a->pairs[k];
		if (!p2ps_pair_shown(a, o, p) || p->pcie_gbps <= 0)
			continue;
		p2ps_strbuf_puts(b, "p2pscope_pair_pcie_bytes_per_second{");
		pair_labels(b, a, p);
		p2ps_strbuf_printf(b, "} %.17g\n", p->pcie_gbps * 1e9);
	}
	pair_driver_caps(b, a, o);
}

/* ---- host ---- */

static void host_families(struct p2ps_strbuf *b, const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	family(b, "host_info", "Where the facts came from; always 1.");
	p2ps_strbuf_printf(b, "p2pscope_host_info{backend=\"");
	label_value(b, h->backend_name ? h->backend_name : "");
	p2ps_strbuf_puts(b, "\",kernel=\"");
	label_value(b, h->kernel);
	p2ps_strbuf_puts(b, "\",driver=\"");
	label_value(b, h->nvidia.module_version);
	p2ps_strbuf_printf(b, "\",vm=\"%s\"} 1\n", h->vm.in_vm ? "yes" : h->vm.known ? "no" : "");
	family(b, "gpus", "NVIDIA GPUs and extra peers the report covers.");
	p2ps_strbuf_printf(b, "p2pscope_gpus %zu\n", a->n_gpus);
}

int p2ps_render_prometheus(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                           struct p2ps_strbuf *b, struct p2ps_error *err)
{
	host_families(b, a);
	gpu_families(b, a, o);
	pair_verdicts(b, a, o);
	pair_topology(b, a, o);
	if (b->oom)
		return p2ps_error_set(err, P2PS_ENOMEM, "prometheus: out of memory");
	return 0;
}
