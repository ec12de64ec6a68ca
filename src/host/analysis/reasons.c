/* SPDX-License-Identifier: MIT */
/* The analysis's findings: appending reasons (with their fixes), ordering and freeing
 * them. */
#include "analysis_internal.h"

#include <stdint.h>
#include <string.h>

#include "p2pscope/parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct p2ps_reason *p2ps_reasons_addv(struct p2ps_reasons *r, enum p2ps_reason_code code,
                                      enum p2ps_severity sev, int dev_idx, const char *fmt,
                                      va_list ap)
{
	if (!p2ps_grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return NULL;
	struct p2ps_reason *x = &r->v[r->n++];
	memset(x, 0, sizeof(*x));
	x->code = code;
	x->sev = sev;
	x->dev_idx = dev_idx;
	vsnprintf(x->text, sizeof(x->text), fmt, ap);
	return x;
}

struct p2ps_reason *p2ps_an_add(struct p2ps_an_ctx *c, struct p2ps_reasons *r,
                                enum p2ps_reason_code code, enum p2ps_severity sev, int dev_idx,
                                const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct p2ps_reason *x = p2ps_reasons_addv(r, code, sev, dev_idx, fmt, ap);
	va_end(ap);
	if (!x)
		c->oom = true;
	return x;
}

void p2ps_an_fix(struct p2ps_reason *x, const char *fmt, ...)
{
	if (!x)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->fix, sizeof(x->fix), fmt, ap);
	va_end(ap);
}

/* Blockers first, then unknowns, warnings, infos; equal severities keep their order. */
void p2ps_an_reasons_sort(struct p2ps_reasons *r)
{
	for (size_t i = 1; i < r->n; i++) {
		struct p2ps_reason x = r->v[i];
		size_t j = i;
		for (; j > 0 && r->v[j - 1].sev > x.sev; j--)
			r->v[j] = r->v[j - 1];
		r->v[j] = x;
	}
}

void p2ps_an_reasons_free(struct p2ps_reasons *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

int p2ps_an_version(const char *s, int v[3])
{
	int n = 0;
	v[0] = v[1] = v[2] = 0;
	while (n < 3 && s) {
		uint64_t x;
		const char *end = p2ps_scan_uint(s, 10, 1u << 20, &x);
		if (!end)
			break;
		v[n++] = (int)x;
		s = *end == '.' ? end + 1 : NULL;
	}
	return n;
}

bool p2ps_an_version_at_least(const char *s, int major, int minor)
{
	int v[3];
	return p2ps_an_version(s, v) >= 1 && (v[0] > major || (v[0] == major && v[1] >= minor));
}
