/* SPDX-License-Identifier: MIT */
/* bar-inspect's analysis: GPU reports, topology matrix, per-pair BAR1-P2P verdicts and
 * host-wide findings, computed from the host model alone (no I/O, no printing).
 *
 * The verdict is about static-BAR1 P2P as the patched open kernel modules do it: a
 * peer's PTE holds the peer's BAR1 *bus address*, so (1) BAR1 must map all of the
 * peer's VRAM, (2) the address must reach the peer untranslated (IOMMU off or
 * identity), (3) no bridge may bounce the request up to the root complex (ACS
 * redirect), and the path must be one the chipset forwards peer traffic on.
 *
 * This file runs the steps in order; each concern has its file: gpu_checks.c (per GPU),
 * topology.c (classes), pair_verdicts.c (per pair), host_findings.c (host-wide). */
#include "analysis_internal.h"
#include "p2pscope/paste_report.h"
#include "p2pscope/driver_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int p2ps_analysis_gpu_of_dev(const struct p2ps_analysis *a, int dev_idx)
{
	for (size_t i = 0; a && i < a->n_gpus; i++)
		if (a->gpus[i].dev_idx == dev_idx)
			return (int)i;
	return -1;
}

const struct p2ps_pair *p2ps_analysis_pair(const struct p2ps_analysis *a, size_t i, size_t j)
{
	if (!a || i == j)
		return NULL;
	if (i > j) {
		size_t t = i;
		i = j;
		j = t;
	}
	for (size_t k = 0; k < a->n_pairs; k++)
		if ((size_t)a->pairs[k].a == i && (size_t)a->pairs[k].b == j)
			return &a->pairs[k];
	return NULL;
}

static bool is_peer(const struct p2ps_analysis_opts *o, const struct p2ps_dev *d)
{
	for (size_t k = 0; o && k < o->n_peers; k++)
		if (p2ps_bdf_equal(&o->peers[k], &d->bdf))
			return true;
	return false;
}

int p2ps_analysis_run(const struct p2ps_host *host, struct p2ps_analysis *out,
                      struct p2ps_error *err)
{
	return p2ps_analysis_run_opts(host, NULL, out, err);
}

/* The endpoints: every NVIDIA GPU and every requested peer, in model order. */
static int endpoints(struct p2ps_an_ctx *c, const struct p2ps_analysis_opts *opts)
{
	const struct p2ps_host *host = c->host;
	struct p2ps_analysis *out = c->a;
	size_t n = 0;
	for (size_t i = 0; i < host->n_devs; i++)
		n += p2ps_dev_is_nvidia_gpu(&host->devs[i]) || is_peer(opts, &host->devs[i]);
	if (n) {
		out->gpus = calloc(n, sizeof(*out->gpus));
		out->matrix = calloc(n * n, sizeof(*out->matrix));
		out->nvlink_matrix = calloc(n * n, sizeof(*out->nvlink_matrix));
		out->pairs = n > 1 ? calloc(n * (n - 1) / 2, sizeof(*out->pairs)) : NULL;
		if (!out->gpus || !out->matrix || !out->nvlink_matrix || (n > 1 && !out->pairs))
			return P2PS_ENOMEM;
	}
	for (size_t i = 0; i < host->n_devs; i++) {
		bool gpu = p2ps_dev_is_nvidia_gpu(&host->devs[i]);
		if (!gpu && !is_peer(opts, &host->devs[i]))
			continue;
		out->gpus[out->n_gpus].is_gpu = gpu;
		out->gpus[out->n_gpus++].dev_idx = (int)i;
	}
	return 0;
}

/* Whether note n of the paste report is about blocker x of pair p (its text, of that pair,
 * of one of its GPUs or of the host). */
static bool note_of(const struct p2ps_paste_cause *n, const struct p2ps_pair *p, size_t k,
                    const struct p2ps_reason *x)
{
	bool subject =
	        (n->pair < 0 && n->gpu < 0) || n->pair == (int)k ||
	        (n->gpu >= 0 && ((size_t)n->gpu == (size_t)p->a || (size_t)n->gpu == (size_t)p->b));
	return subject && !strcmp(n->text, x->text);
}

/* A blocker the paste's own evidence contradicts (a pair it shows copying peer to peer)
 * is the model's doubt: a warning with that said, and the pair's verdict follows. */
static void paste_doubts(struct p2ps_analysis *a)
{
	for (size_t k = 0; k < a->n_pairs; k++) {
		struct p2ps_pair *p = &a->pairs[k];
		bool changed = false;
		for (size_t i = 0; i < p->reasons.n; i++) {
			struct p2ps_reason *x = &p->reasons.v[i];
			for (size_t n = 0; x->sev == P2PS_SEV_BLOCKER && n < a->paste->n_notes; n++)
				if (note_of(&a->paste->notes[n], p, k, x)) {
					x->sev = P2PS_SEV_WARNING;
					size_t len = strlen(x->text);
					snprintf(x->text + len, sizeof(x->text) - len, "%s",
					         " (the paste shows P2P working here: a doubt, not "
					         "a "
					         "blocker)");
					changed = true;
				}
		}
		if (changed)
			p->verdict = p2ps_an_verdict(&p->reasons);
	}
}

/* A paste's own findings, its verdict and asks, once for every renderer. */
static int paste_observations(struct p2ps_analysis *out, struct p2ps_error *err)
{
	out->paste = calloc(1, sizeof(*out->paste));
	int rc = out->paste ? p2ps_paste_observe(out, out->paste, err)
	                    : p2ps_error_set(err, P2PS_ENOMEM, "analysis: out of memory");
	if (rc < 0)
		p2ps_analysis_free(out);
	else
		paste_doubts(out);
	return rc;
}

int p2ps_analysis_run_opts(const struct p2ps_host *host, const struct p2ps_analysis_opts *opts,
                           struct p2ps_analysis *out, struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!host)
		return p2ps_error_set(err, P2PS_EINVAL, "analysis: no host model");
	for (size_t k = 0; opts && k < opts->n_peers; k++)
		if (!p2ps_host_find(host, &opts->peers[k])) {
			char b[20];
			return p2ps_error_set(err, P2PS_ENOENT, "peer %s: no such device",
			                      p2ps_bdf_format(&opts->peers[k], b, sizeof(b)));
		}
	out->host = host;
	struct p2ps_drv_config own;
	if (!opts || !opts->driver)
		p2ps_drv_config_make(host, NULL, NULL, &own, NULL, 0);
	struct p2ps_an_ctx c = {
	        .host = host, .a = out, .drv = opts && opts->driver ? opts->driver : &own};
	if (endpoints(&c, opts) < 0)
		c.oom = true;
	for (size_t gi = 0; !c.oom && gi < out->n_gpus; gi++)
		p2ps_an_gpu(&c, gi);
	if (!c.oom)
		p2ps_an_pairs(&c);
	if (!c.oom)
		p2ps_an_host_findings(&c);
	if (!c.oom)
		p2ps_an_gdr(&c, opts);
	if (!c.oom && host->evidence)
		return paste_observations(out, err);
	if (!c.oom)
		return 0;
	p2ps_analysis_free(out);
	return p2ps_error_set(err, P2PS_ENOMEM, "analysis: out of memory");
}

void p2ps_analysis_free(struct p2ps_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->gpus && i < a->n_gpus; i++)
		p2ps_an_reasons_free(&a->gpus[i].reasons);
	for (size_t i = 0; a->pairs && i < a->n_pairs; i++)
		p2ps_an_reasons_free(&a->pairs[i].reasons);
	p2ps_an_reasons_free(&a->host_reasons);
	p2ps_paste_report_free(a->paste);
	free(a->paste);
	p2ps_an_gdr_free(a);
	free(a->gpus);
	free(a->pairs);
	free(a->matrix);
	free(a->nvlink_matrix);
	memset(a, 0, sizeof(*a));
}
