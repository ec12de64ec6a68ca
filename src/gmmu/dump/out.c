/* SPDX-License-Identifier: MIT */
/* The output block of the renderers (gmmu_render.h) and the line builder they share
 * (render_internal.h). */
#include "render_internal.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gmmu_out_init(struct gmmu_out *o, char *buf, size_t cap, gmmu_out_write_fn write, void *ctx)
{
	*o = (struct gmmu_out){.buf = buf, .cap = cap, .write = write, .ctx = ctx};
}

void gmmu_out_drain(struct gmmu_out *o)
{
	if (o->len && !o->failed && o->write(o->ctx, o->buf, o->len) < 0)
		o->failed = true;
	o->len = 0;
}

void gmmu_out_put(struct gmmu_out *o, const char *s, size_t n)
{
	while (n) {
		if (o->len == o->cap)
			gmmu_out_drain(o);
		size_t k = o->cap - o->len < n ? o->cap - o->len : n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void gmmu_out_puts(struct gmmu_out *o, const char *s)
{
	gmmu_out_put(o, s, strlen(s));
}

void gmmu_out_printf(struct gmmu_out *o, const char *fmt, ...)
{
	/* Formatted in place at the end of the block; when it does not fit, the block is
	 * handed on and the text formatted again at its start. */
	for (int pass = 0; pass < 2; pass++) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		gmmu_out_drain(o);
	}
	o->failed = true; /* a text longer than the whole block */
}

int gmmu_out_flush(struct gmmu_out *o)
{
	gmmu_out_drain(o);
	return o->failed ? -1 : 0;
}

void gmmu_word_set(struct gmmu_word *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->s, sizeof(w->s), fmt, ap);
	va_end(ap);
	w->n = n < 0 ? 0 : (size_t)n < sizeof(w->s) ? (size_t)n : sizeof(w->s) - 1;
}

int gmmu_put_json(struct gmmu_out *o, void *j, int flags, struct p2ps_error *err)
{
	const char *s = j ? json_object_to_json_string_ext(j, flags) : NULL;
	if (!s) {
		json_object_put(j);
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	}
	gmmu_out_puts(o, s);
	gmmu_out_put(o, "\n", 1);
	json_object_put(j);
	return 0;
}
