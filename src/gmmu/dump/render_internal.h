/* SPDX-License-Identifier: MIT */
/* libgmmu-dump internals: the line builder the renderers share.
 *
 * Summary lines are the hot output of a large dump (one line per run of entries), so they
 * are built in place in the output block from pieces formatted once ("words": " kind=NAME",
 * "  2M x ", "SYS_NONCOH ", " vol ro") and hex digits from a table, not with printf. */
#ifndef GMMU_RENDER_INTERNAL_H
#define GMMU_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu_render.h"

/* The longest line a renderer builds in place. */
/* schema_version of every JSON document pte-decode prints (schemas/pte-decode.schema.json);
 * raised only when a key changes meaning or goes away, not when one is added. */
#define GMMU_JSON_SCHEMA_VERSION 1

#define GMMU_LINE_MAX 320

/* A short piece of text padded to a fixed size, so that it is copied with a constant-size
 * memcpy (inlined) and then counted by its length. */
#define GMMU_WORD_BYTES 64
struct gmmu_word {
	char s[GMMU_WORD_BYTES];
	size_t n;
};

void gmmu_word_set(struct gmmu_word *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hands the block on; a failed write drops this and every later block. */
void gmmu_out_drain(struct gmmu_out *o);

/* A line being built: in the output block when it has room, else in tmp (line_begin). The
 * builders are inline: the summary calls them for every line of a large dump. */
struct gmmu_line {
	char *b;
	size_t n, cap;
	char tmp[GMMU_LINE_MAX];
};

/* Starts a line (handing the block on first when the line might not fit). */
static inline void gmmu_line_begin(struct gmmu_out *o, struct gmmu_line *l)
{
	if (o->cap < GMMU_LINE_MAX) {
		l->b = l->tmp;
	} else {
		if (o->cap - o->len < GMMU_LINE_MAX)
			gmmu_out_drain(o);
		l->b = o->buf + o->len;
	}
	l->n = 0;
	l->cap = GMMU_LINE_MAX;
}

/* Ends it: counts it into the block, or copies it there from tmp. */
static inline void gmmu_line_end(struct gmmu_out *o, struct gmmu_line *l)
{
	if (l->b == l->tmp)
		gmmu_out_put(o, l->tmp, l->n);
	else
		o->len += l->n;
}

static inline void gmmu_line_str(struct gmmu_line *l, const char *s, size_t len)
{
	if (l->n + len >= l->cap)
		return;
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static inline void gmmu_line_word(struct gmmu_line *l, const struct gmmu_word *w)
{
	if (l->n + GMMU_WORD_BYTES >= l->cap)
		return;
	memcpy(l->b + l->n, w->s, GMMU_WORD_BYTES);
	l->n += w->n;
}

/* "0x" and at least min_digits hex digits (zero-padded). The digits are written 16 at a
 * time, the wanted ones first (v shifted up); those past them are overwritten later. */
static inline __attribute__((always_inline)) void gmmu_line_hex(struct gmmu_line *l, uint64_t v,
                                                                int min_digits)
{
	int k = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	if (k < min_digits)
		k = min_digits;
	if (k > 16 || l->n + (size_t)k + 2 >= l->cap)
		return;
	char *p = l->b + l->n;
	p[0] = '0';
	p[1] = 'x';
	uint64_t top = k == 16 ? v : v << (4 * (16 - k));
	if (l->n + 18 < l->cap) {
		p2ps_hex16(p + 2, top);
	} else {
		char d[16];
		p2ps_hex16(d, top);
		memcpy(p + 2, d, (size_t)k);
	}
	l->n += (size_t)k + 2;
}

static inline void gmmu_line_dec(struct gmmu_line *l, uint64_t v)
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

/* Spaces up to column col. */
static inline void gmmu_line_pad(struct gmmu_line *l, size_t col)
{
	if (col >= l->cap)
		col = l->cap - 1;
	if (l->n < col) {
		memset(l->b + l->n, ' ', col - l->n);
		l->n = col;
	}
}

/* Writes the JSON object j (a json_object *; pretty when flags say so, else on one line)
 * and a newline, then releases j. P2PS_ENOMEM when json-c could not build it. */
int gmmu_put_json(struct gmmu_out *o, void *j, int flags, struct p2ps_error *err);

/* KIND's name in format f, or 0x.. when it has none. */
const char *gmmu_kind_str(const struct gmmu_format *f, unsigned kind, char *buf, size_t len);

/* ---- dump output (render_dump.c, render_verify.c) ------------------------------------ */

/* One entry of a dump as pte-decode lists it: where it is, its value, its fields. */
struct gmmu_dump_entry {
	uint64_t index;
	bool has_va;
	uint64_t va;
	unsigned page_shift; /* 0: not a page (directory entries) */
	const struct gmmu_level *level;
	enum gmmu_entry_type type;
	uint64_t w[2];
	const char *where; /* a walk's "LEVEL[i]@space:PA", or NULL: "[index]" */
};

/* One line "VA ... FIELD=VALUE ...", or one JSON object on one line. */
int gmmu_render_dump_entry(struct gmmu_out *o, const struct gmmu_format *f, bool json,
                           const struct gmmu_dump_entry *e, struct p2ps_error *err);

/* The summary's ranges as lines (from pieces formatted once) or as a JSON document. */
struct gmmu_range_printer {
	const struct gmmu_format *fmt;
	struct gmmu_out *out;
	bool json;
	void *jranges; /* JSON: the array of ranges (json_object) */
	struct gmmu_word kind_w[256];
	struct gmmu_word page_w[64];
	struct gmmu_word aper_w[8];
	struct gmmu_word flags_w[1 << GMMU_FLAG_COUNT];
};

int gmmu_range_printer_init(struct gmmu_range_printer *p, const struct gmmu_format *f,
                            struct gmmu_out *out, bool json, struct p2ps_error *err);
/* A gmmu_range_fn: ctx is the printer. */
int gmmu_range_print(void *ctx, const struct gmmu_range *g, struct p2ps_error *err);
/* The totals line and, after a walk (walk != NULL), the walk line; as JSON the whole
 * document with the ranges. */
int gmmu_range_printer_finish(struct gmmu_range_printer *p, const struct gmmu_summary_stats *st,
                              const struct gmmu_walk_stats *walk, struct p2ps_error *err);
void gmmu_range_printer_cleanup(struct gmmu_range_printer *p);

/* Compares the collected ranges with the SPEC and renders the differences (at most
 * max_diffs lines, 0 = all) and the verdict, as text or one JSON document. */
int gmmu_render_verify(struct gmmu_out *o, const struct gmmu_format *f, bool json,
                       unsigned long max_diffs, const struct gmmu_spec *spec,
                       struct gmmu_range_list *actual, struct gmmu_verify_stats *st,
                       struct p2ps_error *err);

#endif
