/* SPDX-License-Identifier: MIT */
/* The dump pipeline (gmmu_render.h): read raw, text or a walk of memory images; list the
 * entries, or coalesce them into a summary, or verify the summary against a SPEC; render
 * the result. pte-decode's `decode --raw/--text/--mem` and `verify` are this function. */
#include "render_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"

/* Text dumps are parsed from memory; beyond this, raw is the format to use. */
#define TEXT_MAX_BYTES ((size_t)2 << 30)
/* SPEC files are small; this bounds what a wrong path can make us read. */
#define SPEC_MAX_BYTES ((size_t)64 << 20)
/* The raw fast path works through the input in slices of this size, so that progress can
 * be shown between them. */
#define RAW_SLICE_BYTES ((size_t)64 << 20)

struct run {
	const struct gmmu_dump_request *rq;
	struct gmmu_out *out;
	bool summarize;
	struct gmmu_summary sum;
	struct gmmu_range_printer printer; /* SUMMARY */
	struct gmmu_range_list collected;  /* VERIFY */
	uint64_t next_index;               /* text input: index of the next word */
	const char *input_name;
};

int gmmu_dump_pte_level(const struct gmmu_format *f, const struct gmmu_level *level,
                        unsigned big_page_shift, const struct gmmu_level **out,
                        unsigned *page_shift)
{
	unsigned bps = big_page_shift ? big_page_shift : 16;
	if (!level)
		level = gmmu_walk_sub_level(f, 0, bps, NULL);
	if (!level || !level->page_shift)
		return P2PS_EINVAL;
	*out = level;
	*page_shift = level == gmmu_walk_sub_level(f, 1, bps, NULL) ? bps : level->page_shift;
	return 0;
}

/* VA of entry `index` of a flat table whose entries each cover 2^shift bytes from va0. */
static int entry_va(const struct run *r, uint64_t index, unsigned shift, uint64_t *va,
                    struct p2ps_error *err)
{
	uint64_t va0 = r->rq->va0, off = index << shift;
	*va = 0;
	if ((shift && index >> (64 - shift)) || va0 + off < va0)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "%s: entry %llu: VA 0x%llx + %llu entries of 2^%u bytes "
		                      "passes 2^64",
		                      r->input_name, (unsigned long long)index,
		                      (unsigned long long)va0, (unsigned long long)index, shift);
	*va = va0 + off;
	return 0;
}

/* One entry of a flat table (text input, or raw input entry by entry). */
static int take_entry(struct run *r, uint64_t index, const uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_dump_request *rq = r->rq;
	struct gmmu_dump_entry e = {
	        .index = index, .level = rq->level, .type = rq->entry, .w = {w[0], w[1]}};
	int rc;
	if (rq->entry != GMMU_ENTRY_PTE) {
		/* Directory entries have a VA only when the level says which bits they index. */
		e.has_va = rq->level != NULL;
		if (rq->level && (rc = entry_va(r, index, rq->level->va_lo, &e.va, err)))
			return rc;
		return gmmu_render_dump_entry(r->out, rq->fmt, rq->json, &e, err);
	}
	if ((rc = entry_va(r, index, rq->page_shift, &e.va, err)))
		return rc;
	if (!r->summarize) {
		e.has_va = true;
		e.page_shift = rq->page_shift;
		return gmmu_render_dump_entry(r->out, rq->fmt, rq->json, &e, err);
	}
	struct gmmu_mapping m = {
	        .va = e.va, .raw = w[0], .page_shift = (uint8_t)rq->page_shift, .level = rq->level};
	return gmmu_summary_add(&r->sum, &m, err);
}

static int text_word(void *ctx, const struct p2ps_text_word *tw, struct p2ps_error *err)
{
	struct run *r = ctx;
	const struct gmmu_dump_request *rq = r->rq;
	unsigned bytes = gmmu_format_entry(rq->fmt, rq->entry)->size;
	if (tw->has_offset && tw->index == 0) {
		if (tw->line_offset % bytes)
			return p2ps_error_set(
			        err, P2PS_EINVAL,
			        "%s:%zu: offset 0x%llx is not a multiple of the %u-byte "
			        "%s entry",
			        r->input_name, tw->line, (unsigned long long)tw->line_offset, bytes,
			        gmmu_entry_type_name(rq->entry));
		r->next_index = tw->line_offset / bytes;
	}
	if (bytes == 8 && tw->hi)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "%s:%zu:%zu: value has %u hex digits; a %s is 64 bits",
		                      r->input_name, tw->line, tw->column, tw->digits,
		                      gmmu_entry_type_name(rq->entry));
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
	int rc = p2ps_text_slurp(r->rq->path, TEXT_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	r->input_name = strcmp(r->rq->path, "-") ? r->rq->path : "<stdin>";
	rc = p2ps_text_parse(text, len, r->input_name, text_word, r, err);
	free(text);
	return rc;
}

/* n entries of one raw slice at file offset off: the summary's tight path for PTEs, else
 * entry by entry. */
static int raw_slice(struct run *r, const uint8_t *data, size_t n, uint64_t off, unsigned bytes,
                     struct p2ps_error *err)
{
	const struct gmmu_dump_request *rq = r->rq;
	uint64_t index0 = off / bytes;
	if (r->summarize && rq->entry == GMMU_ENTRY_PTE) {
		uint64_t va;
		int rc = entry_va(r, index0, rq->page_shift, &va, err);
		return rc ? rc
		          : gmmu_summary_add_ptes(&r->sum, data, n, va, rq->page_shift, rq->level,
		                                  err);
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const uint8_t *e = data + i * bytes;
		uint64_t w[2] = {p2ps_le64(e), bytes == 16 ? p2ps_le64(e + 8) : 0};
		rc = take_entry(r, index0 + i, w, err);
	}
	return rc;
}

static int feed_raw(struct run *r, struct p2ps_error *err)
{
	const struct gmmu_dump_request *rq = r->rq;
	unsigned bytes = gmmu_format_entry(rq->fmt, rq->entry)->size;
	struct p2ps_dump_file f;
	int rc = p2ps_dump_file_open(&f, rq->path, bytes, err);
	if (rc)
		return rc;
	r->input_name = rq->path;
	const uint8_t *data;
	size_t len;
	uint64_t off;
	while (!rc && (rc = p2ps_dump_file_next(&f, &data, &len, &off, err)) > 0) {
		rc = 0;
		for (size_t pos = 0; pos < len && !rc; pos += RAW_SLICE_BYTES) {
			size_t n =
			        (len - pos < RAW_SLICE_BYTES ? len - pos : RAW_SLICE_BYTES) / bytes;
			rc = raw_slice(r, data + pos, n, off + pos, bytes, err);
			if (rq->progress)
				rq->progress(rq->progress_ctx, off + pos + (uint64_t)n * bytes,
				             f.mapped ? f.total : 0);
		}
	}
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
	struct gmmu_dump_entry e = {.index = m->index,
	                            .has_va = true,
	                            .va = m->va,
	                            .page_shift = m->page_shift,
	                            .level = m->level,
	                            .type = m->entry,
	                            .w = {m->raw, m->raw_hi},
	                            .where = where};
	return gmmu_render_dump_entry(r->out, r->rq->fmt, r->rq->json, &e, err);
}

static int feed_walk(struct run *r, struct p2ps_mem_set *mem, struct gmmu_walk_stats *st,
                     struct p2ps_error *err)
{
	const struct gmmu_dump_request *rq = r->rq;
	for (size_t i = 0; i < rq->n_mems; i++) {
		int rc = p2ps_mem_set_add_arg(mem, rq->mems[i], err);
		if (rc)
			return rc;
	}
	struct gmmu_walk_opts wo = {.fmt = rq->fmt,
	                            .pdb_space = rq->pdb_space,
	                            .pdb = rq->pdb,
	                            .big_page_shift = rq->big_page_shift,
	                            .report_invalid = rq->all};
	return gmmu_walk(mem, &wo, walk_pte, r, st, err);
}

/* Reads the SPEC and compares the collected ranges with it. */
static int verify(struct run *r, struct gmmu_dump_result *res, struct p2ps_error *err)
{
	const struct gmmu_dump_request *rq = r->rq;
	char *text;
	size_t len;
	struct gmmu_spec spec;
	int rc = p2ps_text_slurp(rq->expect, SPEC_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	rc = gmmu_spec_parse(text, len, rq->expect, rq->fmt, &spec, err);
	free(text);
	if (rc)
		return rc;
	struct gmmu_verify_stats st;
	rc = gmmu_render_verify(r->out, rq->fmt, rq->json, rq->max_diffs, &spec, &r->collected, &st,
	                        err);
	if (!rc)
		res->diffs = st.diffs;
	gmmu_spec_cleanup(&spec);
	return rc;
}

/* The input into the listing, the summary or the collector. */
static int feed(struct run *r, struct p2ps_mem_set *mem, struct gmmu_walk_stats *wst,
                struct p2ps_error *err)
{
	switch (r->rq->input) {
	case GMMU_DUMP_RAW: return feed_raw(r, err);
	case GMMU_DUMP_TEXT: return feed_text(r, err);
	case GMMU_DUMP_WALK: return feed_walk(r, mem, wst, err);
	}
	return p2ps_error_set(err, P2PS_EINVAL, "dump: unknown input kind %d", (int)r->rq->input);
}

int gmmu_dump_run(const struct gmmu_dump_request *rq, struct gmmu_out *o,
                  struct gmmu_dump_result *res, struct p2ps_error *err)
{
	struct run r = {.rq = rq, .out = o, .input_name = "input"};
	*res = (struct gmmu_dump_result){0};
	if (!rq->fmt || (rq->input != GMMU_DUMP_WALK && !rq->path) ||
	    (rq->output == GMMU_DUMP_VERIFY && !rq->expect))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "dump: the request lacks a format, an input or a SPEC");
	r.summarize = rq->output != GMMU_DUMP_ENTRIES;
	int rc = 0;
	if (rq->output == GMMU_DUMP_SUMMARY)
		rc = gmmu_range_printer_init(&r.printer, rq->fmt, o, rq->json, err);
	if (rc)
		return rc;
	if (rq->output == GMMU_DUMP_SUMMARY)
		gmmu_summary_init(&r.sum, rq->fmt, gmmu_range_print, &r.printer);
	else if (rq->output == GMMU_DUMP_VERIFY)
		gmmu_summary_init(&r.sum, rq->fmt, gmmu_verify_collect, &r.collected);
	struct p2ps_mem_set mem;
	p2ps_mem_set_init(&mem);
	struct gmmu_walk_stats wst = {0};
	rc = feed(&r, &mem, &wst, err);
	if (!rc && r.summarize)
		rc = gmmu_summary_finish(&r.sum, err);
	if (!rc && rq->output == GMMU_DUMP_VERIFY)
		rc = verify(&r, res, err);
	else if (!rc && rq->output == GMMU_DUMP_SUMMARY)
		rc = gmmu_range_printer_finish(&r.printer, &r.sum.st,
		                               rq->input == GMMU_DUMP_WALK ? &wst : NULL, err);
	if (rq->output == GMMU_DUMP_SUMMARY)
		gmmu_range_printer_cleanup(&r.printer);
	gmmu_range_list_cleanup(&r.collected);
	p2ps_mem_set_cleanup(&mem);
	return rc;
}
