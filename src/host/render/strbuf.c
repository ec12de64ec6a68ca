/* SPDX-License-Identifier: MIT */
/* Growable string buffer and the -s device filter shared by bar-inspect's renderers. */
#include "p2pscope/render.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(struct p2ps_strbuf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t ncap = b->cap ? b->cap : 4096;
	while (ncap < b->len + extra + 1)
		ncap *= 2;
	char *n = realloc(b->s, ncap);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = ncap;
	return true;
}

void p2ps_strbuf_printf(struct p2ps_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void p2ps_strbuf_puts(struct p2ps_strbuf *b, const char *s)
{
	size_t n = strlen(s);
	if (!reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void p2ps_strbuf_free(struct p2ps_strbuf *b)
{
	if (!b)
		return;
	free(b->s);
	memset(b, 0, sizeof(*b));
}
