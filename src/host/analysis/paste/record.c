/* SPDX-License-Identifier: MIT */
/* What the paste report collects: findings, asks, causes and notes, each once. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"

struct p2ps_reason *po_add(struct octx *c, enum p2ps_reason_code code, enum p2ps_severity sev,
                           struct p2ps_paste_where from, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct p2ps_reason *f = p2ps_reasons_addv(&c->r->findings, code, sev, -1, fmt, ap);
	va_end(ap);
	if (!f) {
		c->oom = true;
		return NULL;
	}
	f->from = from;
	return f;
}

void po_ask(struct octx *c, const char *command, const char *fmt, ...)
{
	struct p2ps_paste_report *r = c->r;
	for (size_t i = 0; i < r->n_asks; i++)
		if (!strcmp(r->asks[i].command, command))
			return;
	if (r->n_asks == P2PS_PASTE_MAX_ASKS)
		return;
	struct p2ps_paste_ask *a = &r->asks[r->n_asks++];
	snprintf(a->command, sizeof(a->command), "%s", command);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->what, sizeof(a->what), fmt, ap);
	va_end(ap);
}

/* Appends code, text and fix to a list of n entries (max) unless the text is there. */
static struct p2ps_paste_cause *add_unique(struct p2ps_paste_cause *list, size_t *n, size_t max,
                                           const char *code, const char *text, const char *fix)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(list[i].text, text))
			return &list[i];
	if (*n == max)
		return NULL;
	struct p2ps_paste_cause *x = &list[(*n)++];
	snprintf(x->code, sizeof(x->code), "%s", code);
	snprintf(x->text, sizeof(x->text), "%s", text);
	snprintf(x->fix, sizeof(x->fix), "%s", fix ? fix : "");
	x->pair = x->gpu = -1;
	return x;
}

void po_cause(struct octx *c, const char *code, const char *text, const char *fix)
{
	add_unique(c->r->causes, &c->r->n_causes, P2PS_PASTE_MAX_CAUSES, code, text, fix);
}

void po_note(struct octx *c, const char *code, const char *text, int pair, int gpu)
{
	struct p2ps_paste_cause *x =
	        add_unique(c->r->notes, &c->r->n_notes, P2PS_PASTE_MAX_CAUSES, code, text, "");
	if (x && x->pair < 0 && x->gpu < 0) {
		x->pair = pair;
		x->gpu = gpu;
	}
}

const char *po_gpu_label(const struct octx *c, const struct p2ps_bdf *b, char *buf, size_t size)
{
	const struct p2ps_dev *d = p2ps_host_find(c->h, b);
	int gi = d ? p2ps_analysis_gpu_of_dev(c->a, (int)(d - c->h->devs)) : -1;
	char addr[20];
	p2ps_bdf_format(b, addr, sizeof(addr));
	if (gi >= 0)
		snprintf(buf, size, "GPU%d %s", gi, addr);
	else
		snprintf(buf, size, "%s", addr);
	return buf;
}
