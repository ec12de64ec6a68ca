/* SPDX-License-Identifier: MIT */
/* What the paste fuzz targets check on what they read: the evidence the reader handed
 * over (every item's line in the input, blocks within it, observations of GPUs that
 * exist, sorted as the lookups need, counts that agree), the paste findings (single
 * lines, codes of the paste or the analysis codes a paste shows, "P2P works" only with
 * its evidence, a verdict that agrees with its causes) and the three renderers (the JSON
 * parses back with its "paste" member, the DOT graph is closed). */
#ifndef P2PS_FUZZ_PASTE_CHECKS_H
#define P2PS_FUZZ_PASTE_CHECKS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/analysis.h"
#include "p2pscope/evidence.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/paste_report.h"
#include "p2pscope/render.h"

static inline void check_where(const struct p2ps_evidence *p, struct p2ps_paste_where w)
{
	if (w.line < 0 || w.line > p->lines || w.block < -1 ||
	    (w.block >= 0 && (size_t)w.block >= p->n_blocks))
		abort();
}

/* The evidence the reader handed over: blocks within the text, every item's line in it,
 * observations of GPUs that exist, sorted as the lookups need, counts that agree. */
static inline void check_evidence(const struct p2ps_evidence *p)
{
	for (size_t i = 0; i < p->n_blocks; i++)
		if (p->blocks[i].first_line < 1 ||
		    p->blocks[i].last_line < p->blocks[i].first_line ||
		    p->blocks[i].last_line > p->lines || strchr(p->blocks[i].summary, '\n'))
			abort();
	for (size_t i = 0; i < p->n_devs; i++)
		for (int f = 0; f < P2PS_PD_COUNT; f++)
			check_where(p, p->devs[i].from[f]);
	for (size_t i = 0; i < p->n_obs; i++) {
		const struct p2ps_pair_obs *o = &p->obs[i];
		check_where(p, o->from);
		if (o->a < 0 || o->b < 0 || (size_t)o->a >= p->n_gpus ||
		    (size_t)o->b >= p->n_gpus || o->a == o->b || !o->text[0] ||
		    (unsigned)o->kind >= P2PS_PM_COUNT ||
		    p2ps_evidence_obs(p, o->kind, o->a, o->b) == NULL)
			abort();
		if (i && (p->obs[i - 1].kind > o->kind ||
		          (p->obs[i - 1].kind == o->kind && p->obs[i - 1].a > o->a)))
			abort();
	}
	for (int k = 0; k < P2PS_PM_COUNT; k++)
		if (p->matrix[k].present &&
		    (p->matrix[k].n < 1 || p->matrix[k].n > P2PS_PASTE_MAX_GPUS))
			abort();
	if (p->n_events > P2PS_PASTE_MAX_EVENTS || p->n_releases > P2PS_PASTE_MAX_RELEASES)
		abort();
	for (size_t i = 0; i < p->n_gpus; i++)
		check_where(p, p->gpus[i].named_from);
	for (int s = 0; s < P2PS_PS_COUNT; s++) {
		check_where(p, p->sym.first[s]);
		if ((p->sym.count[s] > 0) != (p->sym.first[s].line > 0) ||
		    strchr(p->sym.text[s], '\n'))
			abort();
	}
	for (int k = 0; k < P2PS_NV_COUNT; k++)
		check_where(p, p->nccl.via_from[k]);
	check_where(p, p->nccl.version_from);
	check_where(p, p->acs_loose.first);
	for (size_t i = 0; i < p->n_releases; i++)
		check_where(p, p->releases[i].from);
	if (p->acs_loose.redirect > p->acs_loose.lines || p->nccl.n_env > 8 ||
	    p->unread_blocks > (int)(p->n_blocks + p->blocks_dropped))
		abort();
}

static inline void check_report(const struct p2ps_paste_report *r)
{
	for (size_t i = 0; i < r->findings.n; i++) {
		enum p2ps_reason_code k = r->findings.v[i].code;
		/* A paste code, or an analysis code the paste shows for GPUs the analysis
		 * cannot pair (models, chips, generations known only by name; the IOMMU). */
		bool analysis = k == P2PS_R_MIXED_GENERATIONS || k == P2PS_R_MIXED_CHIPS ||
		                k == P2PS_R_MIXED_MODELS || k == P2PS_R_IOMMU_STATE;
		if (strchr(r->findings.v[i].text, '\n') || (k < P2PS_PF_DRIVER && !analysis) ||
		    k >= P2PS_PF_CODE_END)
			abort();
	}
	for (size_t i = 0; i < r->n_notes; i++)
		if (strchr(r->notes[i].text, '\n') || !r->notes[i].code[0])
			abort();
	for (size_t i = 0; i < r->n_asks; i++)
		if (!r->asks[i].command[0] || strchr(r->asks[i].what, '\n'))
			abort();
	/* "P2P works" only with its evidence; with it and no blocking cause the verdict is
	 * ready, except on a paste about GPUDirect RDMA, which P2P between the GPUs does not
	 * answer. */
	bool works = false;
	for (size_t i = 0; i < r->n_pairs; i++) {
		if (r->pairs[i].works && !r->pairs[i].works_why[0])
			abort();
		works |= r->pairs[i].works == 1;
	}
	if (works && r->n_causes == 0 && r->verdict != P2PS_VERDICT_READY &&
	    !strstr(r->verdict_why, "GPUDirect RDMA"))
		abort();
	if (r->verdict > P2PS_VERDICT_UNKNOWN ||
	    (r->verdict == P2PS_VERDICT_NOT_READY) != (r->n_causes > 0))
		abort();
}

static inline void render(const struct p2ps_analysis *a)
{
	struct p2ps_render_opts ro = {.all = true};
	struct p2ps_strbuf sb = {0};
	struct p2ps_error err = {0};
	if (p2ps_render_text(a, &ro, &sb, &err) == 0 && !strstr(sb.s, "Verdict from the paste: "))
		abort();
	p2ps_strbuf_free(&sb);
	if (p2ps_render_json_text(a, &ro, &sb, &err) == 0) {
		struct json_object *doc = json_tokener_parse(sb.s), *paste = NULL;
		if (!doc || !json_object_object_get_ex(doc, "paste", &paste))
			abort();
		json_object_put(doc);
	}
	p2ps_strbuf_free(&sb);
	if (p2ps_render_dot(a, &ro, &sb, &err) == 0 && !strstr(sb.s, "\n}\n"))
		abort();
	p2ps_strbuf_free(&sb);
}

/* The whole pipeline on a text: load, check, analyse, observe, render. */
static inline void fuzz_paste_pipeline(const char *text, size_t size)
{
	struct p2ps_host h;
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_PASTE, .path = "fuzz", .text = text, .text_len = size};
	if (p2ps_host_load(&h, &src, &err) < 0) {
		if ((err.code != P2PS_EINVAL && err.code != P2PS_ENOMEM) || strchr(err.msg, '\n'))
			abort();
		return;
	}
	check_evidence(h.evidence);
	struct p2ps_analysis a;
	if (p2ps_analysis_run(&h, &a, &err) == 0) {
		struct p2ps_paste_report r;
		if (p2ps_paste_observe(&a, &r, &err) == 0) {
			check_report(&r);
			p2ps_paste_report_free(&r);
		}
		render(&a);
		p2ps_analysis_free(&a);
	}
	p2ps_host_free(&h);
}

#endif
