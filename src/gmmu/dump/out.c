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

/* Hands the block on; a failed write drops this and every later block. */
static void out_drain(struct gmmu_out *o)
{
	if (o->len && !o->failed && o->write(o->ctx, o->buf, o->len) < 0)
		o->failed = true;
	o->len = 0;
}

void gmmu_out_put(struct gmmu_out *o, const char *s, size_t n)
{
	while (n) {
		if (o->len == o->cap)
			out_drain(o);
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
		out_drain(o);
	}
	o->failed = true; /* a text longer than the whole block */
}

int gmmu_out_flush(struct gmmu_out *o)
{
	out_drain(o);
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

void gmmu_line_begin(struct gmmu_out *o, struct gmmu_line *l)
{
	if (o->cap < GMMU_LINE_MAX) {
		l->b = l->tmp;
	} else {
		if (o->cap - o->len < GMMU_LINE_MAX)
			out_drain(o);
		l->b = o->buf + o->len;
	}
	l->n = 0;
	l->cap = GMMU_LINE_MAX;
}

void gmmu_line_end(struct gmmu_out *o, struct gmmu_line *l)
{
	if (l->b == l->tmp)
		gmmu_out_put(o, l->tmp, l->n);
	else
		o->len += l->n;
}

void gmmu_line_str(struct gmmu_line *l, const char *s, size_t len)
{
	if (l->n + len >= l->cap)
		return;
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

void gmmu_line_word(struct gmmu_line *l, const struct gmmu_word *w)
{
	if (l->n + GMMU_WORD_BYTES >= l->cap)
		return;
	memcpy(l->b + l->n, w->s, GMMU_WORD_BYTES);
	l->n += w->n;
}

/* Two hex digits per byte value. */
static const char hex_pairs[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                                "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                                "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                                "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                                "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                                "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                                "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                                "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void gmmu_line_hex(struct gmmu_line *l, uint64_t v, int min_digits)
{
	int k = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	if (k < min_digits)
		k = min_digits;
	if (l->n + (size_t)k + 2 >= l->cap)
		return;
	char *p = l->b + l->n;
	p[0] = '0';
	p[1] = 'x';
	int i = k + 1;
	for (; i >= 3; i -= 2, v >>= 8)
		memcpy(p + i - 1, hex_pairs + 2 * (v & 0xff), 2);
	if (i == 2)
		p[2] = hex_pairs[2 * (v & 15) + 1];
	l->n += (size_t)k + 2;
}

void gmmu_line_dec(struct gmmu_line *l, uint64_t v)
{
	char t[24];
	int k = 0;
	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k && l->n < l->cap - 1)
		l->b[l->n++] = t[--k];
}

void gmmu_line_pad(struct gmmu_line *l, size_t col)
{
	if (col >= l->cap)
		col = l->cap - 1;
	if (l->n < col) {
		memset(l->b + l->n, ' ', col - l->n);
		l->n = col;
	}
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
