/* SPDX-License-Identifier: MIT */
/* The driver model over every GPU pair of an analysis, and the seam where the driver's
 * own per-pair caps come in (p2ps_drv_reported_pair). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"
#include "p2pscope/analysis.h"
#include "p2pscope/evidence.h"

/* Position of analysis GPU gi among the NVIDIA GPUs (nvidia-smi's GPU index: PCI order). */
static int smi_index(const struct p2ps_analysis *a, size_t gi)
{
	int n = 0;
	for (size_t i = 0; i < gi; i++)
		n += a->gpus[i].is_gpu;
	return a->gpus[gi].is_gpu ? n : -1;
}

/* Index of GPU gi in the driver caps: by address when the source named them. */
static int caps_index(const struct p2ps_host_driver_caps *dc, const struct p2ps_analysis *a,
                      size_t gi)
{
	const struct p2ps_bdf *b = &a->host->devs[a->gpus[gi].dev_idx].bdf;
	for (int i = 0; i < dc->n_gpus; i++)
		if (dc->gpu_known[i] && p2ps_bdf_equal(&dc->gpu[i], b))
			return i;
	int k = smi_index(a, gi);
	return k >= 0 && k < dc->n_gpus && !dc->gpu_known[k] ? k : -1;
}

/* A paste's topo -p2p codes for the pair, one per path the command printed ("r", "rw",
 * "rwna", ...). GPUn of the matrix is the n-th NVIDIA GPU in bus order. */
static void from_paste(const struct p2ps_analysis *a, size_t gi, size_t gj,
                       struct p2ps_drv_reported *out)
{
	const struct p2ps_evidence *ev = a->host->evidence;
	const struct p2ps_paste_matrix_info *m = ev ? &ev->matrix[P2PS_PM_P2P] : NULL;
	int i = smi_index(a, gi), j = smi_index(a, gj);
	if (!m || !m->present || i < 0 || j < 0 || i >= m->n || j >= m->n || !m->mode[0])
		return;
	int ei = p2ps_evidence_gpu_smi(ev, i), ej = p2ps_evidence_gpu_smi(ev, j);
	for (const char *c = m->mode; *c; c++) {
		int k = p2ps_nv_caps_index_from_mode(*c);
		const struct p2ps_pair_obs *o = p2ps_evidence_obs_path(ev, ei, ej, *c);
		enum p2ps_nv_status st;
		if (k >= 0 && o && p2ps_nv_status_parse(o->text, &st) >= 0) {
			out->st[k] = st;
			out->known = true;
		}
	}
	if (out->known)
		snprintf(out->source, sizeof(out->source), "nvidia-smi topo -p2p %s (paste)",
		         m->mode);
}

void p2ps_drv_reported_pair(const struct p2ps_analysis *a, size_t gi, size_t gj,
                            struct p2ps_drv_reported *out)
{
	memset(out, 0, sizeof(*out));
	for (int k = 0; k < P2PS_NV_CAPS_COUNT; k++)
		out->st[k] = P2PS_NV_ST_UNKNOWN;
	const struct p2ps_host_driver_caps *dc = &a->host->driver_caps;
	int i = dc->known ? caps_index(dc, a, gi) : -1, j = dc->known ? caps_index(dc, a, gj) : -1;
	if (i >= 0 && j >= 0) {
		for (int k = 0; k < P2PS_NV_CAPS_COUNT && k < P2PS_HOST_DRVCAPS_INDEX; k++)
			if (p2ps_nv_status_is_driver(dc->st[i][j][k])) {
				out->st[k] = (enum p2ps_nv_status)dc->st[i][j][k];
				out->known = true;
			}
		snprintf(out->source, sizeof(out->source), "%s", dc->source);
		return;
	}
	from_paste(a, gi, gj, out);
}

int p2ps_drv_model_run(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                       struct p2ps_drv_report *out)
{
	memset(out, 0, sizeof(*out));
	out->cfg = *cfg;
	bool reads;
	const struct p2ps_nv_driver *s = p2ps_drv_row(cfg);
	const struct p2ps_host_cpu *cpu = &a->host->cpu;
	snprintf(out->cpu_type, sizeof(out->cpu_type), "%s",
	         p2ps_drv_cpu_known(cpu)
	                 ? p2ps_drv_cpu_type(s, cpu->vendor, cpu->family, cpu->model, &reads)
	                 : "UNKNOWN");
	out->n_gpus = a->n_gpus;
	out->bar1 = a->n_gpus ? calloc(a->n_gpus, sizeof(*out->bar1)) : NULL;
	if (a->n_gpus && !out->bar1)
		return -1;
	for (size_t gi = 0; gi < a->n_gpus; gi++)
		p2ps_drv_static_bar1(a, gi, cfg, &out->bar1[gi]);
	if (!cfg->known)
		return 0;
	out->pairs = a->n_pairs ? calloc(a->n_pairs, sizeof(*out->pairs)) : NULL;
	if (a->n_pairs && !out->pairs) {
		p2ps_drv_report_free(out);
		return -1;
	}
	for (size_t k = 0; k < a->n_pairs; k++) {
		const struct p2ps_pair *ap = &a->pairs[k];
		if (!a->gpus[ap->a].is_gpu || !a->gpus[ap->b].is_gpu)
			continue;
		p2ps_drv_pair_model(a, cfg, out, ap, &out->pairs[out->n_pairs]);
		p2ps_drv_pair_fixes(a, cfg, out, &out->pairs[out->n_pairs]);
		out->n_pairs++;
	}
	return 0;
}

void p2ps_drv_report_free(struct p2ps_drv_report *r)
{
	if (!r)
		return;
	free(r->bar1);
	free(r->pairs);
	memset(r, 0, sizeof(*r));
}
