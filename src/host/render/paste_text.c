/* SPDX-License-Identifier: MIT */
/* The paste's part of bar-inspect's text report: which blocks were read and which were
 * skipped, the findings, the pair table with every source side by side, the verdict with
 * its causes, and what to send next. */
#include <stdio.h>
#include <string.h>

#include "render_internal.h"

static void blocks(struct p2ps_strbuf *b, const struct p2ps_evidence *p)
{
	p2ps_strbuf_printf(b, "Paste %s: %d line%s, %zu block%s\n", p->source, p->lines,
	                   p->lines == 1 ? "" : "s", p->n_blocks, p->n_blocks == 1 ? "" : "s");
	size_t shown = p->n_blocks > 60 ? 50 : p->n_blocks; /* a paste of noise has thousands */
	for (size_t i = 0; i < shown; i++) {
		const struct p2ps_paste_block *k = &p->blocks[i];
		bool skipped = k->kind == P2PS_PASTE_TEXT;
		p2ps_strbuf_printf(b, "\t%-7s %zu, lines %d-%d: %s%s%s%s%s: %s%s\n",
		                   skipped ? "skipped" : "read", i + 1, k->first_line, k->last_line,
		                   p2ps_paste_kind_name(k->kind), k->command[0] ? " (`" : "",
		                   k->command, k->command[0] ? "`)" : "", "", k->summary,
		                   k->cut ? "; cut off" : "");
	}
	if (p->gpus_dropped)
		p2ps_strbuf_printf(b, "\tmore than %d NVIDIA GPUs: %zu more not used\n",
		                   P2PS_PASTE_MAX_GPUS, p->gpus_dropped);
	if (shown < p->n_blocks || p->blocks_dropped)
		p2ps_strbuf_printf(b, "\t... and %zu more blocks (--json lists %zu of them)\n",
		                   p->n_blocks - shown + p->blocks_dropped, p->n_blocks - shown);
}

static void finding(struct p2ps_strbuf *b, const struct p2ps_evidence *p,
                    const struct p2ps_reason *f)
{
	char w[96];
	p2ps_strbuf_printf(b, "\t%-8s %s\n", p2ps_severity_name(f->sev), f->text);
	if (f->fix[0])
		p2ps_strbuf_printf(b, "\t         fix: %s\n", f->fix);
	if (f->from.line)
		p2ps_strbuf_printf(b, "\t         seen: %s\n",
		                   p2ps_evidence_where_format(p, f->from, w, sizeof(w)));
}

static const char *access_str(int v)
{
	return v < 0 ? "-" : v ? "CAN" : "CANNOT";
}

static void gate_list(struct p2ps_strbuf *b, unsigned gates)
{
	const char *sep = "";
	for (unsigned g = 0; g < P2PS_NV_GATE_COUNT; g++)
		if (gates & P2PS_NV_GATE_BIT(g)) {
			p2ps_strbuf_printf(b, "%s%s", sep, p2ps_nv_gate_name(g));
			sep = ", ";
		}
	if (!sep[0])
		p2ps_strbuf_puts(b, "none of the driver's gates");
}

/* "topo -p2p r: CNS = CHIPSET_NOT_SUPPORTED (gates: gsp, host_read)" per path not OK. */
static void p2p_codes(struct p2ps_strbuf *b, const struct p2ps_paste_pair *x)
{
	for (size_t k = 0; k < x->n_p2p_codes; k++) {
		const struct p2ps_paste_p2p_code *p = &x->p2p_codes[k];
		if (p->status < 0)
			continue;
		p2ps_strbuf_printf(
		        b, "\t\ttopo -p2p %c: %s%s%s = %s (gates: ", p->path ? p->path : '?',
		        p->ab[0] ? p->ab : "-", strcmp(p->ab, p->ba) ? "/" : "",
		        strcmp(p->ab, p->ba) ? (p->ba[0] ? p->ba : "-") : "",
		        p2ps_nv_status_name((unsigned)p->status));
		gate_list(b, p->gates);
		p2ps_strbuf_printf(b, ")%s\n",
		                   !p->path ? "; path not shown"
		                   : p->why && p->why->expected
		                           ? "; normal for a pair without this path"
		                           : "");
	}
}

/* Whether a code of an earlier pair or path has the same status and path. */
static bool shown_before(const struct p2ps_paste_report *r, size_t i, size_t k)
{
	const struct p2ps_paste_p2p_code *p = &r->pairs[i].p2p_codes[k];
	for (size_t j = 0; j <= i; j++)
		for (size_t m = 0; m < (j == i ? k : r->pairs[j].n_p2p_codes); m++) {
			const struct p2ps_paste_p2p_code *q = &r->pairs[j].p2p_codes[m];
			if (q->status == p->status && q->path == p->path)
				return true;
		}
	return false;
}

/* Each status and path the pairs show, once: where the index takes it from, its gates'
 * sources, and the fix. */
static void p2p_legend(struct p2ps_strbuf *b, const struct p2ps_paste_report *r)
{
	bool head = false;
	for (size_t i = 0; i < r->n_pairs; i++)
		for (size_t k = 0; k < r->pairs[i].n_p2p_codes; k++) {
			const struct p2ps_paste_p2p_code *p = &r->pairs[i].p2p_codes[k];
			bool seen = p->status < 0 || shown_before(r, i, k);
			if (seen)
				continue;
			if (!head)
				p2ps_strbuf_puts(
				        b, "\nnvidia-smi topo -p2p codes in the driver's terms:\n");
			head = true;
			p2ps_strbuf_printf(
			        b, "\t%s on %s: %s\n", p2ps_nv_status_name((unsigned)p->status),
			        p->path ? p2ps_nv_caps_index_name(
			                          (unsigned)p2ps_nv_caps_index_from_mode(p->path))
			                : "a path the paste does not name",
			        p->why    ? p->why->source
			        : p->path ? "no gate of the driver gives it here"
			                  : "send the command with its path letter");
			for (unsigned g = 0; g < P2PS_NV_GATE_COUNT; g++)
				if (p->gates & P2PS_NV_GATE_BIT(g))
					p2ps_strbuf_printf(b, "\t\tgate %s: %s\n",
					                   p2ps_nv_gate_name(g),
					                   p2ps_nv_gate_source(g));
			if (p->why)
				p2ps_strbuf_printf(b, "\t\tfix: %s\n", p->why->fix);
		}
}

static void pair(struct p2ps_strbuf *b, const struct p2ps_paste_pair *x)
{
	p2ps_strbuf_printf(b, "\t%s <-> %s\n\t\tours: %s", x->a, x->b,
	                   x->ours ? p2ps_verdict_name(x->ours->verdict) : "- (no address)");
	if (x->ours && x->ours->topo == P2PS_TOPO_NV)
		p2ps_strbuf_printf(b, " (NV%d)", x->ours->nvlinks);
	else if (x->ours)
		p2ps_strbuf_printf(b, " (%s)", p2ps_topo_name(x->ours->topo));
	if (x->topo[0] || x->p2p_ab[0])
		p2ps_strbuf_printf(b, "; nvidia-smi: %s%s%s%s%s", x->topo[0] ? x->topo : "",
		                   x->topo[0] && x->p2p_ab[0] ? ", " : "",
		                   x->p2p_ab[0] ? "P2P " : "", x->p2p_ab,
		                   x->p2p_ba[0] && strcmp(x->p2p_ab, x->p2p_ba) ? "/" : "");
	if (x->p2p_ba[0] && strcmp(x->p2p_ab, x->p2p_ba))
		p2ps_strbuf_puts(b, x->p2p_ba);
	if (x->cuda_ab >= 0 || x->cuda_ba >= 0)
		p2ps_strbuf_printf(b, "; CUDA peer access: %s/%s", access_str(x->cuda_ab),
		                   access_str(x->cuda_ba));
	if (x->bw_off > 0 || x->bw_on > 0) {
		char off[16] = "-", on[16] = "-";
		if (x->bw_off > 0)
			snprintf(off, sizeof(off), "%.2f", x->bw_off);
		if (x->bw_on > 0)
			snprintf(on, sizeof(on), "%.2f", x->bw_on);
		p2ps_strbuf_printf(b, "; P2P off/on: %s/%s GB/s%s", off, on,
		                   x->bw_bidirectional ? " (bidirectional)" : "");
	}
	if (x->lat_off > 0 || x->lat_on > 0)
		p2ps_strbuf_printf(b, "; latency off/on: %.2f/%.2f us", x->lat_off, x->lat_on);
	if (x->nccl[0])
		p2ps_strbuf_printf(b, "; NCCL: %s", x->nccl);
	p2ps_strbuf_puts(b, "\n");
	p2p_codes(b, x);
	if (x->works)
		p2ps_strbuf_printf(b, "\t\tworks: %s\n", x->works_why);
	if (x->note[0])
		p2ps_strbuf_printf(b, "\t\tdisagree: %s\n", x->note);
}

static void p2ps_render_paste_text(const struct p2ps_evidence *p, const struct p2ps_paste_report *r,
                                   struct p2ps_strbuf *b)
{
	p2ps_strbuf_puts(b, "\n");
	blocks(b, p);
	if (r->findings.n) {
		p2ps_strbuf_puts(b, "\nWhat the paste shows beyond the host facts:\n");
		for (int sev = P2PS_SEV_BLOCKER; sev <= P2PS_SEV_INFO; sev++)
			for (size_t i = 0; i < r->findings.n; i++)
				if ((int)r->findings.v[i].sev == sev)
					finding(b, p, &r->findings.v[i]);
	}
	if (r->n_pairs) {
		p2ps_strbuf_puts(b, "\nGPU pairs as each source sees them:\n");
		for (size_t i = 0; i < r->n_pairs; i++)
			pair(b, &r->pairs[i]);
	}
	p2p_legend(b, r);
	p2ps_strbuf_printf(b, "\nVerdict from the paste: %s (%s)\n", p2ps_verdict_name(r->verdict),
	                   r->verdict_why);
	for (size_t i = 0; i < r->n_causes; i++) {
		p2ps_strbuf_printf(b, "\tcause    %s: %s\n", r->causes[i].code, r->causes[i].text);
		if (r->causes[i].fix[0])
			p2ps_strbuf_printf(b, "\t         fix: %s\n", r->causes[i].fix);
	}
	for (size_t i = 0; i < r->n_notes; i++)
		p2ps_strbuf_printf(b,
		                   "\tnote     %s: %s (the paste shows P2P working: a doubt, "
		                   "not a cause)\n",
		                   r->notes[i].code, r->notes[i].text);
	if (r->n_asks) {
		p2ps_strbuf_puts(b, "\nWhat to send next (paste the output into the thread):\n");
		for (size_t i = 0; i < r->n_asks; i++)
			p2ps_strbuf_printf(b, "\t%s\n\t\t# %s\n", r->asks[i].command,
			                   r->asks[i].what);
	}
}

int p2ps_paste_with_report(const struct p2ps_analysis *a, struct p2ps_error *err,
                           p2ps_paste_report_fn fn, void *ctx)
{
	if (!a->host->evidence || !a->paste)
		return 0;
	return fn(ctx, a->host->evidence, a->paste, err);
}

static int text_section(void *ctx, const struct p2ps_evidence *p, const struct p2ps_paste_report *r,
                        struct p2ps_error *err)
{
	(void)err;
	p2ps_render_paste_text(p, r, ctx);
	return 0;
}

int p2ps_render_paste_section_text(const struct p2ps_analysis *a, struct p2ps_strbuf *b,
                                   struct p2ps_error *err)
{
	return p2ps_paste_with_report(a, err, text_section, b);
}
