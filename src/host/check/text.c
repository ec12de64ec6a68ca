/* SPDX-License-Identifier: MIT */
/* The check's text report and its one-line summary: renderers only format what the report
 * holds. */
#include "check_internal.h"

#include <stdio.h>
#include <string.h>

static const char *st(enum p2ps_nv_status s)
{
	return p2ps_nv_status_code(s);
}

static void topo(const struct p2ps_chk_prediction *p, char *buf, size_t size)
{
	if (p->topo == P2PS_TOPO_NV)
		snprintf(buf, size, "NV%d", p->nvlinks);
	else
		snprintf(buf, size, "%s", p2ps_topo_name(p->topo));
}

static void prediction(struct p2ps_strbuf *b, const struct p2ps_chk_prediction *p)
{
	if (!p->host_known) {
		p2ps_strbuf_puts(b,
		                 "    predicted: nothing (the GPUs are not in the host model)\n");
		return;
	}
	p2ps_strbuf_printf(b, "    predicted: %s (%s)",
	                   p->p2p == 1   ? "P2P"
	                   : p->p2p == 0 ? "no P2P"
	                                 : "unknown",
	                   p->p2p_from);
	if (p->reported)
		p2ps_strbuf_printf(b, "; driver reports read %s write %s (%s)",
		                   st(p->reported_read), st(p->reported_write), p->reported_source);
	if (p->model)
		p2ps_strbuf_printf(
		        b, "; driver model: %s, read %s write %s%s%s",
		        p2ps_nv_path_name(p->model_path), st(p->model_read), st(p->model_write),
		        p->model_gate != P2PS_NV_GATE_NONE ? ", gate " : "",
		        p->model_gate != P2PS_NV_GATE_NONE ? p2ps_nv_gate_name(p->model_gate) : "");
	p2ps_strbuf_printf(b, "; static BAR1 %s", p2ps_verdict_name(p->bar1));
	p2ps_strbuf_printf(b, "; NCCL %s (%s)\n",
	                   p->nccl_p2p == 1   ? "P2P"
	                   : p->nccl_p2p == 0 ? "SHM"
	                                      : "unknown",
	                   p->nccl_why);
}

static void paths(struct p2ps_strbuf *b, const struct p2ps_chk_result *res, int a, int c)
{
	const struct p2ps_chk_obs *o = res->obs[a][c];
	bool first = true;
	for (int p = 0; p < P2PS_CHK_PATHS; p++)
		if (o[p].form == P2PS_CF_OK) {
			p2ps_strbuf_printf(b, "%s%s", first ? "    ok: " : " ",
			                   p2ps_chk_path_name(p));
			first = false;
		}
	if (!first)
		p2ps_strbuf_puts(b, "\n");
	for (int p = 0; p < P2PS_CHK_PATHS; p++) {
		if (o[p].form == P2PS_CF_OK || o[p].form == P2PS_CF_SKIPPED)
			continue;
		p2ps_strbuf_printf(b, "    %-12s %-11s %s\n", p2ps_chk_path_name(p),
		                   p2ps_chk_form_name(o[p].form),
		                   o[p].detail[0] ? o[p].detail : p2ps_chk_form_title(o[p].form));
	}
}

static void pair(struct p2ps_strbuf *b, const struct p2ps_chk_report *r,
                 const struct p2ps_chk_pair *pp)
{
	const struct p2ps_chk_result *res = r->res;
	char t[16];
	topo(&pp->pred, t, sizeof(t));
	p2ps_strbuf_printf(b, "GPU %d -> GPU %d  %s -> %s  %s  %s", pp->a, pp->b,
	                   res->gpu[pp->a].info.bdf, res->gpu[pp->b].info.bdf, t,
	                   p2ps_chk_verdict_name(pp->verdict));
	if (pp->verdict != P2PS_CV_WORKS)
		p2ps_strbuf_printf(b, ": %s", pp->verdict_why);
	p2ps_strbuf_puts(b, "\n");
	prediction(b, &pp->pred);
	paths(b, res, pp->a, pp->b);
	const char *seen = res->nccl.transport[pp->a][pp->b];
	if (seen[0])
		p2ps_strbuf_printf(b, "    NCCL: via %s\n", seen);
	for (size_t k = 0; k < pp->n_causes; k++) {
		p2ps_strbuf_printf(b, "    cause: %s\n", pp->cause[k].text);
		if (pp->cause[k].fix[0])
			p2ps_strbuf_printf(b, "      fix: %s\n", pp->cause[k].fix);
	}
}

static void obs_line(struct p2ps_strbuf *b, const char *sep, const char *what,
                     const struct p2ps_chk_obs *o)
{
	p2ps_strbuf_printf(b, "%s%s %s", sep, what, p2ps_chk_form_name(o->form));
	if (o->form == P2PS_CF_OK && o->ms > 0)
		p2ps_strbuf_printf(b, " (%.0f ms)", o->ms);
	else if (o->form != P2PS_CF_OK && o->detail[0])
		p2ps_strbuf_printf(b, " (%s)", o->detail);
}

static void nccl(struct p2ps_strbuf *b, const struct p2ps_chk_nccl *nc)
{
	if (!nc->asked)
		return;
	p2ps_strbuf_printf(b, "\nNCCL %s%s%s%s:", nc->version[0] ? nc->version : "",
	                   nc->library[0] ? " (" : "", nc->library, nc->library[0] ? ")" : "");
	obs_line(b, " ", "init", &nc->init);
	for (int op = 0; op < P2PS_CHK_NCCL_OPS; op++)
		obs_line(b, "; ", p2ps_chk_nccl_op_name(op), &nc->op[op]);
	p2ps_strbuf_puts(b, "\n");
	for (int k = 0; k < nc->n_warnings; k++)
		p2ps_strbuf_printf(b, "  NCCL WARN %s\n", nc->warnings[k]);
}

static void layout(struct p2ps_strbuf *b, const struct p2ps_chk_result *res)
{
	char x[32], y[32];
	p2ps_strbuf_printf(b, "\nEach step: %s of cells, %s of canaries before and after",
	                   p2ps_chk_bytes((int64_t)res->opts.payload, x, sizeof(x)),
	                   p2ps_chk_bytes((int64_t)res->opts.guard, y, sizeof(y)));
	for (size_t k = 0; k < res->opts.n_alias; k++)
		p2ps_strbuf_printf(b, "%s+-%s", k ? ", " : "; alias probes at ",
		                   p2ps_chk_bytes((int64_t)res->opts.alias[k], x, sizeof(x)));
	p2ps_strbuf_puts(b, "\n");
}

int p2ps_chk_render_text(const struct p2ps_chk_report *r, const struct p2ps_chk_render_opts *o,
                         struct p2ps_strbuf *out)
{
	const struct p2ps_chk_result *res = r->res;
	p2ps_strbuf_printf(out, "p2p-bench check: %s\n", r->summary);
	if (o && o->wall_s > 0)
		p2ps_strbuf_printf(out, "  %.2f s in all; ", o->wall_s);
	else
		p2ps_strbuf_puts(out, "  ");
	p2ps_strbuf_printf(out, "GPU steps %.0f ms", res->wall_ms);
	for (int k = 0, first = 1; k < P2PS_CHK_PHASES; k++)
		if (res->phase_ms[k] >= 0.5) {
			p2ps_strbuf_printf(out, "%s%s %.0f", first ? " (" : ", ",
			                   p2ps_chk_phase_name(k), res->phase_ms[k]);
			first = 0;
		}
	p2ps_strbuf_printf(out, "%s; host model %.0f ms\n", res->phase_ms[0] >= 0.5 ? ")" : "",
	                   r->host_ms);
	if (r->host_note[0])
		p2ps_strbuf_printf(out, "  %s\n", r->host_note);
	if (res->find.form != P2PS_CF_OK)
		p2ps_strbuf_printf(out, "  finding the GPUs: %s (%s)\n",
		                   p2ps_chk_form_name(res->find.form), res->find.detail);
	if (res->n)
		p2ps_strbuf_puts(out, "\nGPUs\n");
	for (int g = 0; g < res->n; g++) {
		const struct p2ps_chk_gpu *G = &res->gpu[g];
		p2ps_strbuf_printf(out, "  %d  %s  %s  cc %d.%d  CUDA device %d  open: %s", g,
		                   G->info.bdf, G->info.name, G->info.cc_major, G->info.cc_minor,
		                   G->info.ordinal, p2ps_chk_form_name(G->open.form));
		if (G->open.form == P2PS_CF_OK)
			p2ps_strbuf_printf(out, " (%.0f ms)\n", G->open.ms);
		else
			p2ps_strbuf_printf(out, " (%s)\n", G->open.detail);
	}
	if (r->n_pairs)
		p2ps_strbuf_puts(out, "\nPairs (GPU a -> GPU b: a accesses b's memory)\n");
	for (size_t k = 0; k < r->n_pairs; k++)
		pair(out, r, &r->pairs[k]);
	nccl(out, &res->nccl);
	if (res->n > 1)
		layout(out, res);
	p2ps_strbuf_printf(out, "\nExit status %d (%s)\n", r->exit_status,
	                   p2ps_chk_verdict_name(r->verdict));
	return out->oom ? P2PS_ENOMEM : 0;
}

int p2ps_chk_render_line(const struct p2ps_chk_report *r, const struct p2ps_chk_render_opts *o,
                         struct p2ps_strbuf *out)
{
	p2ps_strbuf_printf(out, "p2p-bench check: %s", r->summary);
	if (o && o->wall_s > 0)
		p2ps_strbuf_printf(out, " (%.2f s)", o->wall_s);
	p2ps_strbuf_puts(out, "\n");
	return out->oom ? P2PS_ENOMEM : 0;
}
