/* pte-decode: the dump-level commands — `decode` with --raw/--text/--mem
 * inputs, and `verify --expect SPEC.json` (see docs/pte-dumps.md).
 *
 * Exit status: 0 ok (verify: everything matches), 1 verify found differences,
 * 2 bad usage or bad input (one line on stderr naming where). */
#include "cmds.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

#define EXIT_DIFF 1
#define EXIT_BAD  2

/* Text dumps are parsed from memory; beyond this, --raw is the format to use. */
#define TEXT_MAX_BYTES ((size_t)2 << 30)
/* Inputs at least this large show progress when stderr is a terminal. */
#define PROGRESS_MIN_BYTES ((uint64_t)256 << 20)
/* The raw fast path works through the input in slices of this size, so that
 * progress can be shown between them. */
#define RAW_SLICE_BYTES ((size_t)64 << 20)

struct opts {
	const char *cmd;
	const struct gmmu_format *fmt;
	const char *fmt_arg;
	enum gmmu_entry_type entry;
	const char *level_arg;
	const struct gmmu_level *level;
	unsigned page_shift; /* of PTEs read from --raw/--text */
	uint64_t va0;
	const char *raw, *text;
	const char **mems;
	size_t n_mems;
	bool has_pdb;
	uint64_t pdb;
	enum p2ps_mem_space pdb_space;
	unsigned big_page_shift;
	bool summary, json, all;
	const char *expect;
	unsigned long max_diffs;
};

/* A short piece of text padded to a fixed size, so that it is copied with a
 * constant-size memcpy (inlined) and then counted by its length. */
#define WORD_BYTES 64
struct word {
	char s[WORD_BYTES];
	size_t n;
};

/* What the inputs feed into: a per-entry printer, a summary, or a verify
 * collector (a summary whose ranges are kept). */
struct run {
	const struct opts *o;
	struct gmmu_summary sum;
	bool summarize;
	json_object *jranges; /* --summary --json */
	struct gmmu_range_list collected;
	uint64_t next_index; /* text input: index of the next word */
	const char *input_name;
	/* Per-range text output is hot (one line per run of a large dump):
	 * names are looked up once, lines are built by hand.
	 * Pieces of summary lines, formatted once: " kind=NAME" per KIND value,
	 * "  2M x " per page size, "VIDEO      " per aperture, " vol ro" per flag set. */
	struct word kind_w[256];
	struct word page_w[64];
	struct word aper_w[8];
	struct word flags_w[1 << GMMU_FLAG_COUNT];
	char *obuf; /* summary lines, written to stdout in large blocks */
	size_t olen;
	/* progress */
	bool progress, progress_shown;
	uint64_t progress_total, progress_next;
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("pte-decode: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return EXIT_BAD;
}

static int fail_err(const struct p2ps_error *err)
{
	return fail("%s", err->msg[0] ? err->msg : p2ps_status_name(err->code));
}

bool pte_decode_args_name_dump(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--raw") || !strcmp(argv[i], "--text") ||
		    !strcmp(argv[i], "--mem") || !strncmp(argv[i], "--raw=", 6) ||
		    !strncmp(argv[i], "--text=", 7) || !strncmp(argv[i], "--mem=", 6))
			return true;
	return false;
}

/* ---- small formatting helpers ------------------------------------------- */

/* Room for any size_str() result: "0x" and 16 hex digits, or a count and a unit letter.
 * The count is below 2^54, but at -Os GCC cannot see that, so there is room for all 20
 * digits of any 64-bit value, plus the letter and the terminator. */
#define SIZE_STR_LEN 22

/* "4K", "2M", "512M", "256G", or hex bytes when not a whole unit. buf holds at least
 * SIZE_STR_LEN bytes (the compiler checks), so no value is ever cut short. */
static const char *size_str(uint64_t bytes, char buf[static SIZE_STR_LEN])
{
	static const char units[] = "KMGTPE";
	int u = -1;
	uint64_t v = bytes;
	while (v >= 1024 && !(v & 1023) && u < 5) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, SIZE_STR_LEN, "0x%llx", (unsigned long long)bytes);
	else
		snprintf(buf, SIZE_STR_LEN, "%llu%c", (unsigned long long)v, units[u]);
	return buf;
}

static const char *kind_str(const struct gmmu_format *f, unsigned kind, char *buf, size_t len)
{
	const struct gmmu_field *kf = gmmu_field_find(f->entry[GMMU_ENTRY_PTE], "KIND");
	const char *n = kf ? gmmu_field_value_name(kf, kind, true) : NULL;
	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "0x%x", kind);
	return buf;
}

static const char *hex(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "0x%llx", (unsigned long long)v);
	return buf;
}

/* An entry as 0x + 16 digits, as `decode` prints values. */
static const char *hex_entry(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016llx", (unsigned long long)v);
	return buf;
}

static void progress_update(struct run *r, uint64_t done)
{
	if (!r->progress || done < r->progress_next)
		return;
	if (r->progress_total)
		fprintf(stderr, "\rpte-decode: %llu / %llu MiB", (unsigned long long)(done >> 20),
		        (unsigned long long)(r->progress_total >> 20));
	else
		fprintf(stderr, "\rpte-decode: %llu MiB", (unsigned long long)(done >> 20));
	r->progress_next = done + RAW_SLICE_BYTES;
	r->progress_shown = true;
}

static void progress_end(struct run *r)
{
	if (r->progress_shown)
		fputs("\r\033[K", stderr); /* clear the progress line */
}

/* ---- per-entry output ---------------------------------------------------- */

/* One line (or one JSON object) per entry: where, raw value, decoded fields. */
static void print_entry(const struct run *r, uint64_t index, bool has_va, uint64_t va,
                        unsigned page_shift, const struct gmmu_level *lv, enum gmmu_entry_type t,
                        const uint64_t w[2], const char *where)
{
	const struct opts *o = r->o;
	const struct gmmu_entry_format *ef = gmmu_format_entry(o->fmt, t);
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, w, &d);
	char buf[96], raw[48];
	gmmu_entry_hex_str(ef, w, raw, sizeof(raw));
	if (o->json) {
		json_object *obj = json_object_new_object();
		json_object_object_add(obj, "index", json_object_new_uint64(index));
		if (has_va) {
			json_object_object_add(obj, "va", json_object_new_string(hex(va, buf, 96)));
			if (page_shift)
				json_object_object_add(obj, "page_size",
				                       json_object_new_uint64(1ull << page_shift));
		}
		if (lv)
			json_object_object_add(obj, "level", json_object_new_string(lv->name));
		if (where)
			json_object_object_add(obj, "entry_at", json_object_new_string(where));
		json_object_object_add(obj, "entry",
		                       json_object_new_string(gmmu_entry_type_name(t)));
		json_object_object_add(obj, "raw", json_object_new_string(raw));
		json_object_object_add(obj, "valid", json_object_new_boolean(d.valid));
		json_object *fields = json_object_new_object();
		for (size_t i = 0; i < ef->n_fields && i < GMMU_MAX_FIELDS; i++)
			if (d.shown[i])
				json_object_object_add(
				        fields, ef->fields[i].name,
				        json_object_new_string(
				                gmmu_decoded_value_str(&d, i, buf, sizeof(buf))));
		json_object_object_add(obj, "fields", fields);
		puts(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN));
		json_object_put(obj);
		return;
	}
	if (has_va)
		printf("VA 0x%012llx %-4s ", (unsigned long long)va,
		       page_shift ? size_str(1ull << page_shift, buf) : "");
	if (where)
		printf("%s ", where);
	else
		printf("[%llu] ", (unsigned long long)index);
	fputs(raw, stdout);
	for (size_t i = 0; i < ef->n_fields && i < GMMU_MAX_FIELDS; i++)
		if (d.shown[i])
			printf(" %s=%s", ef->fields[i].name,
			       gmmu_decoded_value_str(&d, i, buf, sizeof(buf)));
	putchar('\n');
}

/* ---- summary output ------------------------------------------------------ */

static const char *const flag_short[GMMU_FLAG_COUNT] = {"vol",      "ro",  "priv",
                                                        "noatomic", "enc", "acd"};

static json_object *range_json(const struct opts *o, const struct gmmu_range *g)
{
	char buf[64];
	uint64_t bytes = gmmu_range_bytes(g);
	json_object *j = json_object_new_object();
	json_object_object_add(j, "va", json_object_new_string(hex(g->va, buf, sizeof(buf))));
	json_object_object_add(j, "va_last",
	                       json_object_new_string(hex(g->va + bytes - 1, buf, sizeof(buf))));
	json_object_object_add(j, "page_size", json_object_new_uint64(1ull << g->page_shift));
	json_object_object_add(j, "count", json_object_new_uint64(g->count));
	if (g->level)
		json_object_object_add(j, "level", json_object_new_string(g->level->name));
	if (!g->v.valid) {
		json_object_object_add(j, "sparse", json_object_new_boolean(true));
		json_object_object_add(j, "raw",
		                       json_object_new_string(hex_entry(g->raw, buf, 64)));
		return j;
	}
	json_object_object_add(j, "aperture",
	                       json_object_new_string(gmmu_aperture_name(g->v.aperture)));
	json_object_object_add(j, "target", json_object_new_string(hex(g->v.addr, buf, 64)));
	json_object_object_add(j, "target_last",
	                       json_object_new_string(hex(g->v.addr + bytes - 1, buf, 64)));
	json_object_object_add(
	        j, "peer",
	        g->v.aperture == GMMU_APERTURE_PEER ? json_object_new_int(g->v.peer_index) : NULL);
	json_object_object_add(j, "kind", json_object_new_int(g->v.kind));
	json_object_object_add(j, "kind_name",
	                       json_object_new_string(kind_str(o->fmt, g->v.kind, buf, 64)));
	json_object *fl = json_object_new_object();
	unsigned f = gmmu_pte_view_flags(&g->v);
	for (int i = 0; i < GMMU_FLAG_COUNT; i++)
		json_object_object_add(fl, gmmu_flag_name((enum gmmu_flag)i),
		                       json_object_new_boolean(f >> i & 1));
	json_object_object_add(j, "flags", fl);
	json_object_object_add(j, "raw", json_object_new_string(hex_entry(g->raw, buf, 64)));
	return j;
}

/* A line being built in place, in the output block or in a local buffer. */
struct line {
	char *b;
	size_t n, cap;
};

static void l_str(struct line *l, const char *s, size_t len)
{
	if (l->n + len >= l->cap)
		return;
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static void l_word(struct line *l, const struct word *w)
{
	if (l->n + WORD_BYTES >= l->cap)
		return;
	memcpy(l->b + l->n, w->s, WORD_BYTES);
	l->n += w->n;
}

static void word_set(struct word *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void word_set(struct word *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->s, sizeof(w->s), fmt, ap);
	va_end(ap);
	w->n = n < 0 ? 0 : (size_t)n < sizeof(w->s) ? (size_t)n : sizeof(w->s) - 1;
}

/* "0x" and at least min_digits hex digits (zero-padded). The digits are written 16 at a
 * time, the wanted ones first (v shifted up); those past them are overwritten later. */
static inline __attribute__((always_inline)) void l_hex(struct line *l, uint64_t v, int min_digits)
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

static void l_dec(struct line *l, uint64_t v)
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

static void l_pad(struct line *l, size_t col)
{
	if (col >= l->cap)
		col = l->cap - 1;
	if (l->n < col) {
		memset(l->b + l->n, ' ', col - l->n);
		l->n = col;
	}
}

#define OBUF_BYTES     ((size_t)1 << 20)
#define LINE_MAX_BYTES 320

static void out_flush(struct run *r)
{
	if (r->olen)
		fwrite(r->obuf, 1, r->olen, stdout);
	r->olen = 0;
}

/* Starts a line: in the output block when there is one (flushed first if the
 * line might not fit), else in tmp. */
static struct line line_begin(struct run *r, char *tmp)
{
	if (!r->obuf)
		return (struct line){.b = tmp, .cap = LINE_MAX_BYTES};
	if (r->olen + LINE_MAX_BYTES > OBUF_BYTES)
		out_flush(r);
	return (struct line){.b = r->obuf + r->olen, .cap = LINE_MAX_BYTES};
}

static void line_end(struct run *r, const struct line *l)
{
	if (r->obuf)
		r->olen += l->n;
	else
		fwrite(l->b, 1, l->n, stdout);
}

static void run_names_init(struct run *r)
{
	char name[64];
	for (unsigned k = 0; k < 256; k++)
		word_set(&r->kind_w[k], " kind=%s", kind_str(r->o->fmt, k, name, sizeof(name)));
	for (unsigned sh = 0; sh < 64; sh++)
		word_set(&r->page_w[sh], " %4s x ", size_str(1ull << sh, name));
	for (unsigned a = 0; a < 8; a++)
		word_set(&r->aper_w[a], "%-10s ", gmmu_aperture_name((enum gmmu_aperture)a));
	for (unsigned f = 0; f < (1u << GMMU_FLAG_COUNT); f++) {
		size_t n = 0;
		r->flags_w[f].s[0] = '\0';
		for (int i = 0; i < GMMU_FLAG_COUNT; i++)
			if (f >> i & 1)
				n += (size_t)snprintf(r->flags_w[f].s + n, WORD_BYTES - n, " %s",
				                      flag_short[i]);
		r->flags_w[f].n = n;
	}
}

static int range_print(void *ctx, const struct gmmu_range *g, struct p2ps_error *err)
{
	struct run *r = ctx;
	const struct opts *o = r->o;
	if (o->json) {
		if (json_object_array_add(r->jranges, range_json(o, g)))
			return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
		return 0;
	}
	/* VA range, page size x count, aperture, target range, peer, kind, flags */
	char tmp[LINE_MAX_BYTES];
	struct line l = line_begin(r, tmp);
	uint64_t bytes = gmmu_range_bytes(g);
	l_hex(&l, g->va, 12);
	l_str(&l, "-", 1);
	l_hex(&l, g->va + bytes - 1, 12);
	l_word(&l, &r->page_w[g->page_shift & 63]);
	size_t col = l.n + 10;
	l_dec(&l, g->count);
	l_pad(&l, col);
	if (!g->v.valid) {
		l_str(&l, "SPARSE\n", 7);
		line_end(r, &l);
		return 0;
	}
	l_word(&l, &r->aper_w[g->v.aperture & 7]);
	l_hex(&l, g->v.addr, 12);
	l_str(&l, "-", 1);
	l_hex(&l, g->v.addr + bytes - 1, 12);
	if (g->v.aperture == GMMU_APERTURE_PEER) {
		l_str(&l, " peer=", 6);
		l_dec(&l, g->v.peer_index);
	}
	l_word(&l, &r->kind_w[g->v.kind]);
	l_word(&l, &r->flags_w[gmmu_pte_view_flags(&g->v) & ((1u << GMMU_FLAG_COUNT) - 1)]);
	l_str(&l, "\n", 1);
	line_end(r, &l);
	return 0;
}

static void summary_totals(const struct run *r, json_object *top)
{
	const struct gmmu_summary_stats *st = &r->sum.st;
	if (top) {
		json_object *t = json_object_new_object();
		json_object_object_add(t, "entries", json_object_new_uint64(st->entries));
		json_object_object_add(t, "valid", json_object_new_uint64(st->valid));
		json_object_object_add(t, "sparse", json_object_new_uint64(st->sparse));
		json_object_object_add(t, "zero", json_object_new_uint64(st->zero));
		json_object_object_add(t, "other_invalid", json_object_new_uint64(st->other));
		json_object_object_add(t, "ranges", json_object_new_uint64(st->ranges));
		json_object_object_add(top, "totals", t);
		return;
	}
	printf("# %llu entries: %llu valid in %llu ranges, %llu sparse, %llu zero, %llu other "
	       "invalid\n",
	       (unsigned long long)st->entries, (unsigned long long)st->valid,
	       (unsigned long long)st->ranges, (unsigned long long)st->sparse,
	       (unsigned long long)st->zero, (unsigned long long)st->other);
}

/* ---- inputs -------------------------------------------------------------- */

/* VA of entry `index` of a flat table whose entries each cover 2^shift bytes from --va. */
static int entry_va(const struct run *r, uint64_t index, unsigned shift, uint64_t *va,
                    struct p2ps_error *err)
{
	uint64_t off = index << shift;
	*va = 0; /* defined on the error path too */
	if ((shift && index >> (64 - shift)) || r->o->va0 + off < r->o->va0)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "%s: entry %llu: VA 0x%llx + %llu entries of 2^%u bytes "
		                      "passes 2^64",
		                      r->input_name, (unsigned long long)index,
		                      (unsigned long long)r->o->va0, (unsigned long long)index,
		                      shift);
	*va = r->o->va0 + off;
	return 0;
}

/* One entry of a flat table (text input, or raw input entry by entry). */
static int take_entry(struct run *r, uint64_t index, const uint64_t w[2], struct p2ps_error *err)
{
	const struct opts *o = r->o;
	uint64_t va = 0;
	int rc;
	if (o->entry != GMMU_ENTRY_PTE) {
		/* Directory entries have a VA only when --level says which bits they index. */
		if (o->level && (rc = entry_va(r, index, o->level->va_lo, &va, err)))
			return rc;
		print_entry(r, index, o->level != NULL, va, 0, o->level, o->entry, w, NULL);
		return 0;
	}
	rc = entry_va(r, index, o->page_shift, &va, err);
	if (rc)
		return rc;
	if (!r->summarize) {
		print_entry(r, index, true, va, o->page_shift, o->level, o->entry, w, NULL);
		return 0;
	}
	struct gmmu_mapping m = {
	        .va = va, .raw = w[0], .page_shift = (uint8_t)o->page_shift, .level = o->level};
	return gmmu_summary_add(&r->sum, &m, err);
}

static int text_word(void *ctx, const struct p2ps_text_word *tw, struct p2ps_error *err)
{
	struct run *r = ctx;
	const struct opts *o = r->o;
	unsigned bytes = gmmu_format_entry(o->fmt, o->entry)->size;
	if (tw->has_offset && tw->index == 0) {
		if (tw->line_offset % bytes)
			return p2ps_error_set(
			        err, P2PS_EINVAL,
			        "%s:%zu: offset 0x%llx is not a multiple of the %u-byte "
			        "%s entry",
			        r->input_name, tw->line, (unsigned long long)tw->line_offset, bytes,
			        gmmu_entry_type_name(o->entry));
		r->next_index = tw->line_offset / bytes;
	}
	if (bytes == 8 && tw->hi)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "%s:%zu:%zu: value has %u hex digits; a %s is 64 bits",
		                      r->input_name, tw->line, tw->column, tw->digits,
		                      gmmu_entry_type_name(o->entry));
	uint64_t w[2] = {tw->lo, tw->hi};
	int rc = take_entry(r, r->next_index, w, err);
	if (rc)
		return rc;
	r->next_index++;
	return 0;
}

static int feed_text(struct run *r, struct p2ps_error *err)
{
	char *text;
	size_t len;
	int rc = p2ps_text_slurp(r->o->text, TEXT_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	r->input_name = strcmp(r->o->text, "-") ? r->o->text : "<stdin>";
	rc = p2ps_text_parse(text, len, r->input_name, text_word, r, err);
	free(text);
	return rc;
}

static int feed_raw(struct run *r, struct p2ps_error *err)
{
	const struct opts *o = r->o;
	unsigned bytes = gmmu_format_entry(o->fmt, o->entry)->size;
	struct p2ps_dump_file f;
	int rc = p2ps_dump_file_open(&f, o->raw, bytes, err);
	if (rc)
		return rc;
	r->input_name = o->raw;
	r->progress = isatty(STDERR_FILENO) && (!f.mapped || f.total >= PROGRESS_MIN_BYTES);
	r->progress_total = f.mapped ? f.total : 0;
	r->progress_next = PROGRESS_MIN_BYTES;
	const uint8_t *data;
	size_t len;
	uint64_t off;
	while (!rc && (rc = p2ps_dump_file_next(&f, &data, &len, &off, err)) > 0) {
		rc = 0;
		for (size_t pos = 0; pos < len && !rc; pos += RAW_SLICE_BYTES) {
			size_t n =
			        (len - pos < RAW_SLICE_BYTES ? len - pos : RAW_SLICE_BYTES) / bytes;
			uint64_t index0 = (off + pos) / bytes;
			if (r->summarize && o->entry == GMMU_ENTRY_PTE) {
				uint64_t va;
				rc = entry_va(r, index0, o->page_shift, &va, err);
				if (!rc)
					rc = gmmu_summary_add_ptes(&r->sum, data + pos, n, va,
					                           o->page_shift, o->level, err);
			} else {
				for (size_t i = 0; i < n && !rc; i++) {
					const uint8_t *e = data + pos + (size_t)i * bytes;
					uint64_t w[2] = {p2ps_le64(e),
					                 bytes == 16 ? p2ps_le64(e + 8) : 0};
					rc = take_entry(r, index0 + i, w, err);
				}
			}
			progress_update(r, off + pos + (uint64_t)n * bytes);
		}
	}
	progress_end(r);
	p2ps_dump_file_close(&f);
	return rc < 0 ? rc : 0;
}

static int walk_pte(void *ctx, const struct gmmu_mapping *m, struct p2ps_error *err)
{
	struct run *r = ctx;
	if (r->summarize)
		return gmmu_summary_add(&r->sum, m, err);
	char where[80];
	snprintf(where, sizeof(where), "%s[%u]@%s:0x%llx", m->level ? m->level->name : "?",
	         m->index, p2ps_mem_space_name(m->space), (unsigned long long)m->entry_pa);
	uint64_t w[2] = {m->raw, m->raw_hi};
	print_entry(r, m->index, true, m->va, m->page_shift, m->level, m->entry, w, where);
	return 0;
}

static int feed_walk(struct run *r, struct p2ps_mem_set *mem, struct gmmu_walk_stats *st,
                     struct p2ps_error *err)
{
	const struct opts *o = r->o;
	for (size_t i = 0; i < o->n_mems; i++) {
		int rc = p2ps_mem_set_add_arg(mem, o->mems[i], err);
		if (rc)
			return rc;
	}
	struct gmmu_walk_opts wo = {.fmt = o->fmt,
	                            .pdb_space = o->pdb_space,
	                            .pdb = o->pdb,
	                            .big_page_shift = o->big_page_shift,
	                            .report_invalid = o->all};
	return gmmu_walk(mem, &wo, walk_pte, r, st, err);
}

/* ---- option parsing ------------------------------------------------------ */

static void usage(const char *cmd)
{
	fprintf(stdout,
	        "usage: pte-decode %s (--chip CHIP | --format FMT) INPUT [options]%s\n"
	        "inputs:\n"
	        "  --raw FILE|-           little-endian entries (8 bytes; 16 for dual-pde)\n"
	        "  --text FILE|-          hex words: '0x7f97_94000001 ...', 'OFFSET: w w', # "
	        "comments\n"
	        "  --mem [vid:|sys:]PA=FILE  physical memory image (repeatable), with\n"
	        "  --pdb PA[:vid|:sys]    root page directory: walk the whole hierarchy\n"
	        "options:\n"
	        "  --entry pte|pde|dual-pde  what --raw/--text entries are (default pte)\n"
	        "  --level NAME           table level of --raw/--text entries (PT_SMALL, PT_BIG, "
	        "PD0,\n"
	        "                         PD1 ...): sets the page size (default PT_SMALL)\n"
	        "  --va ADDR              VA mapped by entry 0 of --raw/--text (default 0)\n"
	        "  --big-page 64K|128K    big page size for PT_BIG (default 64K)\n"
	        "  --summary              coalesce runs of entries into ranges\n"
	        "  --all                  walk: also list invalid non-zero PTEs\n"
	        "  --json                 JSON output\n"
	        "%s",
	        cmd, strcmp(cmd, "verify") ? "" : " --expect SPEC.json",
	        strcmp(cmd, "verify") ? ""
	                              : "  --expect SPEC.json     intended mappings "
	                                "(docs/pte-dumps.md)\n"
	                                "  --max-diffs N          differences to list (default 50, "
	                                "0 = all)\n");
}

static int parse_pdb(const char *arg, struct opts *o)
{
	char buf[64];
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	if (n >= sizeof(buf))
		return fail("--pdb %s: address too long", arg);
	memcpy(buf, arg, n);
	buf[n] = '\0';
	if (p2ps_parse_hex_u64(buf, &o->pdb))
		return fail("--pdb %s: '%s' is not a hex physical address", arg, buf);
	o->pdb_space = P2PS_MEM_VID;
	if (colon) {
		const char *a = colon + 1;
		if (!strcasecmp(a, "vid") || !strcasecmp(a, "video") ||
		    !strcasecmp(a, "VIDEO_MEMORY"))
			o->pdb_space = P2PS_MEM_VID;
		else if (!strcasecmp(a, "sys") || !strcasecmp(a, "sys_coh") ||
		         !strcasecmp(a, "sys_noncoh") || !strcasecmp(a, "SYSTEM_COHERENT_MEMORY") ||
		         !strcasecmp(a, "SYSTEM_NON_COHERENT_MEMORY"))
			o->pdb_space = P2PS_MEM_SYS;
		else
			return fail("--pdb %s: aperture '%s' is not vid or sys", arg, a);
	}
	o->has_pdb = true;
	return 0;
}

static const struct gmmu_level *find_level(const struct gmmu_format *f, const char *name)
{
	for (size_t i = 0; i < f->n_levels; i++) {
		const char *a = f->levels[i].name, *b = name;
		while (*a && *b &&
		       (tolower((unsigned char)*a) == tolower((unsigned char)*b) ||
		        (*a == '_' && *b == '-')))
			a++, b++;
		if (!*a && !*b)
			return &f->levels[i];
	}
	return NULL;
}

/* The combinations parse_opts() accepted one by one, checked together; fills in the
 * level and page size of --raw/--text PTEs. */
static int check_opts(struct opts *o, bool has_entry_arg)
{
	bool verify = !strcmp(o->cmd, "verify");
	if (!o->fmt)
		return fail("%s: --chip CHIP or --format v2|v3 is required", o->cmd);
	int inputs = (o->raw != NULL) + (o->text != NULL) + (o->n_mems || o->has_pdb);
	if (inputs != 1)
		return fail("%s: give exactly one input: --raw, --text, or --mem with --pdb",
		            o->cmd);
	if ((o->n_mems != 0) != o->has_pdb)
		return fail("%s: --mem and --pdb go together (chunks of memory and the root "
		            "directory in them)",
		            o->cmd);
	if (verify && !o->expect)
		return fail("verify: --expect SPEC.json is required");
	if (o->has_pdb && (has_entry_arg || o->level_arg || o->va0))
		return fail("%s: --entry, --level and --va describe --raw/--text tables; a walk "
		            "finds them itself",
		            o->cmd);
	unsigned bps = o->big_page_shift ? o->big_page_shift : 16;
	if (o->level_arg) {
		o->level = find_level(o->fmt, o->level_arg);
		if (!o->level) {
			char names[128] = "";
			for (size_t i = 0; i < o->fmt->n_levels; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
				         "%s%s", i ? ", " : "", o->fmt->levels[i].name);
			return fail("--level %s: not a level of %s (%s)", o->level_arg,
			            o->fmt->name, names);
		}
	}
	if (!o->has_pdb && o->entry == GMMU_ENTRY_PTE) {
		if (!o->level)
			o->level = gmmu_walk_sub_level(o->fmt, 0, bps, NULL);
		if (!o->level || !o->level->page_shift)
			return fail("--level %s: that level holds no PTEs",
			            o->level_arg ? o->level_arg : "?");
		o->page_shift = o->level->page_shift;
		const struct gmmu_level *big = gmmu_walk_sub_level(o->fmt, 1, bps, NULL);
		if (o->level == big)
			o->page_shift = bps;
	}
	if (o->level && o->entry == GMMU_ENTRY_DUAL_PDE && !o->level->dual)
		return fail("--level %s: dual PDEs live in the dual level only", o->level->name);
	if ((o->summary || verify) && !o->has_pdb && o->entry != GMMU_ENTRY_PTE)
		return fail("%s: %s needs PTEs (--entry pte) or a walk (--mem with --pdb)", o->cmd,
		            verify ? "verify" : "--summary");
	if (o->all && !o->has_pdb)
		return fail("--all applies to walks (--mem with --pdb)");
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum {
		O_CHIP = 256,
		O_FORMAT,
		O_ENTRY,
		O_LEVEL,
		O_VA,
		O_RAW,
		O_TEXT,
		O_MEM,
		O_PDB,
		O_BIG,
		O_SUMMARY,
		O_JSON,
		O_ALL,
		O_EXPECT,
		O_MAXD,
		O_HELP,
	};
	static const struct option lo[] = {
	        {"chip", required_argument, NULL, O_CHIP},
	        {"format", required_argument, NULL, O_FORMAT},
	        {"entry", required_argument, NULL, O_ENTRY},
	        {"level", required_argument, NULL, O_LEVEL},
	        {"va", required_argument, NULL, O_VA},
	        {"raw", required_argument, NULL, O_RAW},
	        {"text", required_argument, NULL, O_TEXT},
	        {"mem", required_argument, NULL, O_MEM},
	        {"pdb", required_argument, NULL, O_PDB},
	        {"big-page", required_argument, NULL, O_BIG},
	        {"summary", no_argument, NULL, O_SUMMARY},
	        {"json", no_argument, NULL, O_JSON},
	        {"all", no_argument, NULL, O_ALL},
	        {"expect", required_argument, NULL, O_EXPECT},
	        {"max-diffs", required_argument, NULL, O_MAXD},
	        {"help", no_argument, NULL, O_HELP},
	        {0},
	};
	bool verify = !strcmp(o->cmd, "verify");
	const char *entry_arg = NULL;
	/* "--raw --help" must show help, not read a file named --help. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(o->cmd);
			return -1;
		}
	struct p2ps_error err = {0};
	o->mems = calloc((size_t)argc, sizeof(*o->mems));
	if (!o->mems)
		return fail("out of memory");
	o->max_diffs = 50;
	optind = 0; /* full re-initialisation (glibc) for the subcommand's argv */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
		switch (c) {
		case O_CHIP:
			if (gmmu_chip_lookup(optarg, &o->fmt, &err))
				return fail_err(&err);
			o->fmt_arg = optarg;
			break;
		case O_FORMAT:
			if (gmmu_format_lookup(optarg, &o->fmt, &err))
				return fail_err(&err);
			o->fmt_arg = optarg;
			break;
		case O_ENTRY:
			if (gmmu_entry_type_parse(optarg, &o->entry, &err))
				return fail_err(&err);
			entry_arg = optarg;
			break;
		case O_LEVEL: o->level_arg = optarg; break;
		case O_VA:
			if (p2ps_parse_hex_u64(optarg, &o->va0))
				return fail("--va %s: not a hex address", optarg);
			break;
		case O_RAW: o->raw = optarg; break;
		case O_TEXT: o->text = optarg; break;
		case O_MEM: o->mems[o->n_mems++] = optarg; break;
		case O_PDB:
			if (parse_pdb(optarg, o))
				return EXIT_BAD;
			break;
		case O_BIG:
			if (!strcasecmp(optarg, "64K") || !strcasecmp(optarg, "64KiB"))
				o->big_page_shift = 16;
			else if (!strcasecmp(optarg, "128K") || !strcasecmp(optarg, "128KiB"))
				o->big_page_shift = 17;
			else
				return fail("--big-page %s: expected 64K or 128K", optarg);
			break;
		case O_SUMMARY: o->summary = true; break;
		case O_JSON: o->json = true; break;
		case O_ALL: o->all = true; break;
		case O_EXPECT:
			if (!verify)
				return fail("--expect belongs to 'pte-decode verify'");
			o->expect = optarg;
			break;
		case O_MAXD: {
			char *end;
			errno = 0;
			o->max_diffs = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-')
				return fail("--max-diffs %s: expected a count", optarg);
			break;
		}
		case O_HELP: usage(o->cmd); return -1;
		default:
			if (optopt >= O_CHIP)
				return fail("%s: option '%s' needs a value", o->cmd,
				            argv[optind - 1]);
			if (optopt)
				return fail("%s: option -%c unknown", o->cmd, optopt);
			return fail("%s: unknown or incomplete option '%s' (see --help)", o->cmd,
			            argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail("%s: unexpected argument '%s': values and file inputs do not mix",
		            o->cmd, argv[optind]);
	return check_opts(o, entry_arg != NULL);
}

/* ---- verify output ------------------------------------------------------- */

struct verify_out {
	const struct opts *o;
	unsigned long shown;
	json_object *jdiffs;
};

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	if (*n >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

static void describe_diff(const struct opts *o, const struct gmmu_diff *d, char *buf, size_t len)
{
	size_t n = 0;
	char a[32], b[32];
	buf[0] = '\0';
	if (d->what & GMMU_DIFF_MISSING)
		append(buf, len, &n, "missing: intended %s 0x%llx not mapped",
		       gmmu_aperture_name(d->exp->aperture), (unsigned long long)d->exp_target);
	if (d->what & GMMU_DIFF_EXTRA)
		append(buf, len, &n, "extra: mapped %s 0x%llx, not in the SPEC",
		       gmmu_aperture_name(d->act->v.aperture), (unsigned long long)d->act_target);
	if (d->what & GMMU_DIFF_PAGE_SIZE)
		append(buf, len, &n, "%swrong page size: expected %s, found %s", n ? "; " : "",
		       size_str(1ull << d->exp->page_shift, a),
		       size_str(1ull << d->act->page_shift, b));
	if (d->what & GMMU_DIFF_APERTURE)
		append(buf, len, &n, "%swrong aperture: expected %s, found %s", n ? "; " : "",
		       gmmu_aperture_name(d->exp->aperture),
		       gmmu_aperture_name(d->act->v.aperture));
	if (d->what & GMMU_DIFF_ADDRESS)
		append(buf, len, &n, "%swrong address: expected 0x%llx, found 0x%llx",
		       n ? "; " : "", (unsigned long long)d->exp_target,
		       (unsigned long long)d->act_target);
	if (d->what & GMMU_DIFF_PEER)
		append(buf, len, &n, "%swrong peer: expected %u, found %u", n ? "; " : "",
		       d->exp->peer_index, d->act->v.peer_index);
	if (d->what & GMMU_DIFF_KIND)
		append(buf, len, &n, "%swrong kind: expected %s, found %s", n ? "; " : "",
		       kind_str(o->fmt, d->exp->kind, a, sizeof(a)),
		       kind_str(o->fmt, d->act->v.kind, b, sizeof(b)));
	if (d->what & GMMU_DIFF_FLAGS) {
		append(buf, len, &n, "%swrong flags:", n ? "; " : "");
		for (int i = 0; i < GMMU_FLAG_COUNT; i++)
			if (d->flags_wrong >> i & 1)
				append(buf, len, &n, " %s expected %d found %d",
				       gmmu_flag_name((enum gmmu_flag)i),
				       d->exp->flags_val >> i & 1, !(d->exp->flags_val >> i & 1));
	}
}

static int diff_print(void *ctx, const struct gmmu_diff *d, struct p2ps_error *err)
{
	(void)err;
	struct verify_out *v = ctx;
	const struct opts *o = v->o;
	if (o->max_diffs && v->shown >= o->max_diffs)
		return 0;
	v->shown++;
	char what[512], ps[SIZE_STR_LEN], buf[32];
	describe_diff(o, d, what, sizeof(what));
	const char *name = d->exp ? d->exp->name : "-";
	unsigned shift = d->act ? d->act->page_shift : d->exp->page_shift;
	if (o->json) {
		json_object *j = json_object_new_object();
		json_object_object_add(j, "va", json_object_new_string(hex(d->va, buf, 32)));
		json_object_object_add(j, "size", json_object_new_uint64(d->size));
		json_object_object_add(j, "mapping", json_object_new_string(name));
		json_object *kinds = json_object_new_array();
		static const char *const names[] = {"missing",   "extra", "aperture", "address",
		                                    "page_size", "peer",  "kind",     "flags"};
		for (unsigned i = 0; i < 8; i++)
			if (d->what >> i & 1)
				json_object_array_add(kinds, json_object_new_string(names[i]));
		json_object_object_add(j, "what", kinds);
		if (d->exp) {
			json_object_object_add(
			        j, "expected_aperture",
			        json_object_new_string(gmmu_aperture_name(d->exp->aperture)));
			json_object_object_add(j, "expected_target",
			                       json_object_new_string(hex(d->exp_target, buf, 32)));
		}
		if (d->act) {
			json_object_object_add(
			        j, "found_aperture",
			        json_object_new_string(gmmu_aperture_name(d->act->v.aperture)));
			json_object_object_add(j, "found_target",
			                       json_object_new_string(hex(d->act_target, buf, 32)));
			json_object_object_add(j, "found_page_size",
			                       json_object_new_uint64(1ull << d->act->page_shift));
		}
		json_object_object_add(j, "message", json_object_new_string(what));
		json_object_array_add(v->jdiffs, j);
		return 0;
	}
	printf("VA 0x%llx-0x%llx", (unsigned long long)d->va,
	       (unsigned long long)(d->va + d->size - 1));
	if (shift)
		printf(" (%llu x %s)", (unsigned long long)(d->size >> shift),
		       size_str(1ull << shift, ps));
	printf(" [%s]: %s\n", name, what);
	return 0;
}

static int run_verify(struct run *r, struct p2ps_error *err)
{
	const struct opts *o = r->o;
	char *text;
	size_t len;
	struct gmmu_spec spec;
	int rc = p2ps_text_slurp(o->expect, (size_t)64 << 20, &text, &len, err);
	if (rc)
		return rc;
	rc = gmmu_spec_parse(text, len, o->expect, o->fmt, &spec, err);
	free(text);
	if (rc)
		return rc;
	struct verify_out vo = {.o = o};
	struct gmmu_verify_stats st;
	if (o->json)
		vo.jdiffs = json_object_new_array();
	rc = gmmu_verify(&spec, &r->collected, diff_print, &vo, &st, err);
	if (!rc) {
		if (o->json) {
			json_object *top = json_object_new_object();
			json_object_object_add(top, "match", json_object_new_boolean(!st.diffs));
			json_object_object_add(top, "differences",
			                       json_object_new_uint64(st.diffs));
			json_object_object_add(top, "intended_bytes",
			                       json_object_new_uint64(st.intended_bytes));
			json_object_object_add(top, "matched_bytes",
			                       json_object_new_uint64(st.matched_bytes));
			json_object_object_add(top, "diffs", vo.jdiffs);
			vo.jdiffs = NULL;
			puts(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
			                                                 JSON_C_TO_STRING_SPACED));
			json_object_put(top);
		} else {
			if (st.diffs > vo.shown)
				printf("... %llu more differences (--max-diffs 0 lists all)\n",
				       (unsigned long long)(st.diffs - vo.shown));
			printf("verify: %s: %llu difference%s; %.3f of %.3f GiB intended mapped as "
			       "intended (%zu mapping%s)\n",
			       st.diffs ? "DIFFERENT" : "OK", (unsigned long long)st.diffs,
			       st.diffs == 1 ? "" : "s", (double)st.matched_bytes / (1 << 30),
			       (double)st.intended_bytes / (1 << 30), spec.n,
			       spec.n == 1 ? "" : "s");
		}
	}
	json_object_put(vo.jdiffs);
	gmmu_spec_cleanup(&spec);
	if (rc)
		return rc;
	return st.diffs ? 1 : 0;
}

/* ---- commands ------------------------------------------------------------ */

static int run_cmd(int argc, char **argv)
{
	struct opts o = {.cmd = argv[0]};
	int rc = parse_opts(argc, argv, &o);
	if (rc) {
		free(o.mems);
		return rc < 0 ? 0 : rc;
	}
	bool verify = !strcmp(o.cmd, "verify");
	struct run r = {.o = &o, .input_name = "input"};
	run_names_init(&r);
	r.obuf = malloc(OBUF_BYTES); /* without it, lines go through stdio one by one */
	r.summarize = o.summary || verify;
	if (r.summarize)
		gmmu_summary_init(&r.sum, o.fmt, verify ? gmmu_verify_collect : range_print,
		                  verify ? (void *)&r.collected : (void *)&r);
	if (o.summary && o.json && !verify)
		r.jranges = json_object_new_array();
	/* Large per-entry outputs: block-buffered stdout. */
	static char outbuf[1 << 18];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));

	struct p2ps_error err = {0};
	struct p2ps_mem_set mem;
	p2ps_mem_set_init(&mem);
	struct gmmu_walk_stats wst = {0};
	if (o.raw)
		rc = feed_raw(&r, &err);
	else if (o.text)
		rc = feed_text(&r, &err);
	else
		rc = feed_walk(&r, &mem, &wst, &err);
	if (!rc && r.summarize)
		rc = gmmu_summary_finish(&r.sum, &err);
	out_flush(&r);
	free(r.obuf);
	int status = 0;
	if (rc) {
		fflush(stdout);
		status = fail_err(&err);
	} else if (verify) {
		int v = run_verify(&r, &err);
		status = v < 0 ? fail_err(&err) : v;
	} else if (o.summary) {
		if (o.json) {
			json_object *top = json_object_new_object();
			json_object_object_add(top, "format", json_object_new_string(o.fmt->name));
			json_object_object_add(top, "ranges", r.jranges);
			r.jranges = NULL;
			summary_totals(&r, top);
			if (o.has_pdb) {
				json_object_object_add(top, "tables",
				                       json_object_new_uint64(wst.tables));
				json_object_object_add(top, "pdes",
				                       json_object_new_uint64(wst.pdes));
				json_object_object_add(top, "sparse_pdes",
				                       json_object_new_uint64(wst.pdes_sparse));
			}
			puts(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
			                                                 JSON_C_TO_STRING_SPACED));
			json_object_put(top);
		} else {
			summary_totals(&r, NULL);
			if (o.has_pdb) {
				printf("# walk: %llu tables, %llu PDEs followed",
				       (unsigned long long)wst.tables,
				       (unsigned long long)wst.pdes);
				if (wst.pdes_sparse)
					printf(", %llu sparse",
					       (unsigned long long)wst.pdes_sparse);
				putchar('\n');
			}
		}
	}
	json_object_put(r.jranges);
	gmmu_range_list_cleanup(&r.collected);
	p2ps_mem_set_cleanup(&mem);
	free(o.mems);
	if (fflush(stdout) || ferror(stdout))
		return status ? status : fail("writing standard output: %s", strerror(errno));
	return status;
}

int pte_decode_cmd_decode_dump(int argc, char **argv)
{
	return run_cmd(argc, argv);
}

int pte_decode_cmd_verify(int argc, char **argv)
{
	return run_cmd(argc, argv);
}
