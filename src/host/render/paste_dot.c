/* SPDX-License-Identifier: MIT */
/* The paste's part of bar-inspect --dot: a note with the paste's verdict, its causes and
 * the blocks read and skipped, and for each GPU pair that nvidia-smi or CUDA reported on,
 * a dotted edge saying what they saw (red where CUDA cannot access the peer or
 * nvidia-smi refuses P2P). */
#include <string.h>

#include "p2pscope/host.h"
#include "render_internal.h"

static void note(struct p2ps_strbuf *b, const struct p2ps_evidence *p,
                 const struct p2ps_paste_report *r)
{
	p2ps_strbuf_puts(b, "  \"paste\" [shape=note, fontname=monospace, label=\"paste ");
	p2ps_dot_escaped(b, p->source);
	p2ps_strbuf_printf(b, "\\lverdict: %s (", p2ps_verdict_name(r->verdict));
	p2ps_dot_escaped(b, r->verdict_why);
	p2ps_strbuf_puts(b, ")\\l");
	for (size_t i = 0; i < r->n_causes; i++)
		p2ps_strbuf_printf(b, "cause: %s\\l", r->causes[i].code);
	for (size_t i = 0; i < p->n_blocks; i++)
		p2ps_strbuf_printf(b, "%s lines %d-%d: %s\\l",
		                   p->blocks[i].kind == P2PS_PASTE_TEXT ? "skipped" : "read",
		                   p->blocks[i].first_line, p->blocks[i].last_line,
		                   p2ps_paste_kind_name(p->blocks[i].kind));
	p2ps_strbuf_puts(b, "\"];\n");
}

/* "GPU0 0000:01:00.0" -> "0000:01:00.0"; NULL for a GPU without address. */
static const char *node_of(const char *label)
{
	const char *sp = strchr(label, ' ');
	return sp && sp[1] != '(' ? sp + 1 : NULL;
}

static void edges(struct p2ps_strbuf *b, const struct p2ps_paste_report *r)
{
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct p2ps_paste_pair *x = &r->pairs[i];
		const char *na = node_of(x->a), *nb = node_of(x->b);
		if (!na || !nb)
			continue;
		bool bad = x->cuda_ab == 0 || x->cuda_ba == 0 ||
		           (x->p2p_ab[0] && strcmp(x->p2p_ab, "OK"));
		p2ps_strbuf_printf(b,
		                   "  \"%s\" -> \"%s\" [dir=none, style=dotted, constraint=false, "
		                   "color=%s, label=\"",
		                   na, nb, bad ? "red" : "grey40");
		if (x->cuda_ab >= 0 || x->cuda_ba >= 0)
			p2ps_strbuf_printf(b, "CUDA %s\\n",
			                   x->cuda_ab == 0 || x->cuda_ba == 0 ? "CANNOT" : "CAN");
		if (x->p2p_ab[0])
			p2ps_strbuf_printf(b, "smi %s\\n", x->p2p_ab);
		p2ps_strbuf_puts(b, "\"];\n");
	}
}

static int dot_section(void *ctx, const struct p2ps_evidence *p, const struct p2ps_paste_report *r,
                       struct p2ps_error *err)
{
	(void)err;
	note(ctx, p, r);
	edges(ctx, r);
	return 0;
}

int p2ps_render_paste_section_dot(const struct p2ps_analysis *a, struct p2ps_strbuf *b,
                                  struct p2ps_error *err)
{
	return p2ps_paste_with_report(a, err, dot_section, b);
}
