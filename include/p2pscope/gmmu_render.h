/* SPDX-License-Identifier: MIT */
/* p2pscope: pte-decode's output, as a library — the text and JSON renderings of decoded
 * entries, P2P models, dump entries, VA-map summaries and verify reports, and the one
 * pipeline that reads a dump (raw, text or a walk of memory images) and renders it.
 *
 * Part of libgmmu-dump (gmmu-dump.pc), beside the dump readers (gmmu_dump.h) and the walk,
 * summary and verify (gmmu_walk.h) it renders; the core libgmmu (gmmu.h) neither allocates
 * nor links json-c, this library does both. Nothing here prints: text goes into a struct
 * gmmu_out, whose blocks the caller writes where it likes (pte-decode: standard output).
 */
#ifndef P2PSCOPE_GMMU_RENDER_H
#define P2PSCOPE_GMMU_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- output ------------------------------------------------------------------------ */

/* Hands a block of text on (pte-decode: fwrite to standard output). 0, or -1 on failure. */
typedef int (*gmmu_out_write_fn)(void *ctx, const char *s, size_t n);

/* Where the renderers write: a block the caller provides, handed to write() when it is
 * full and at gmmu_out_flush(). Give it at least GMMU_OUT_MIN_BLOCK bytes: lines are built
 * in place, and a formatted text longer than the block marks the output failed. */
struct gmmu_out {
	char *buf;
	size_t len, cap;
	gmmu_out_write_fn write;
	void *ctx;
	bool failed; /* a write failed; later text is dropped and gmmu_out_flush() says so */
};
#define GMMU_OUT_MIN_BLOCK 4096

void gmmu_out_init(struct gmmu_out *o, char *buf, size_t cap, gmmu_out_write_fn write, void *ctx);
void gmmu_out_put(struct gmmu_out *o, const char *s, size_t n);
void gmmu_out_puts(struct gmmu_out *o, const char *s); /* s, without adding a newline */
void gmmu_out_printf(struct gmmu_out *o, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Writes what the block holds. 0, or -1 when this or an earlier write failed. */
int gmmu_out_flush(struct gmmu_out *o);

/* ---- single entries ------------------------------------------------------------------ */

/* The entry as pte-decode prints it: "0x" and 16 (a dual PDE: 32) hex digits, a newline. */
void gmmu_render_entry_hex(struct gmmu_out *o, const struct gmmu_entry_format *ef,
                           const uint64_t w[2]);
/* FIELD=VALUE, one line per field the entry's aperture shows, then UNEXPLAINED_BITS=0x...
 * when bits no shown field covers are set (`pte-decode decode VALUE`). */
void gmmu_render_decoded(struct gmmu_out *o, const struct gmmu_decoded *d);
/* The same as one JSON object on one line: format, entry, raw, valid, fields [{name, hi,
 * lo, raw, value, value_name}], unexplained_bits (`pte-decode decode --json`). */
int gmmu_render_decoded_json(struct gmmu_out *o, const struct gmmu_format *f,
                             const struct gmmu_decoded *d, struct p2ps_error *err);

/* A modelled P2P entry (`pte-decode p2p`): the entry, unless quiet its fields and two
 * comment lines (the level and page size it is a PTE for; that its bits do not depend on
 * the page size); as JSON the decoded object with mode, bar1_form, level, page_size,
 * same_for_every_page_size, address_field and address. */
void gmmu_render_p2p(struct gmmu_out *o, const struct gmmu_format *f,
                     const struct gmmu_p2p_result *res, bool quiet);
int gmmu_render_p2p_json(struct gmmu_out *o, const struct gmmu_format *f,
                         const struct gmmu_p2p_request *rq, const struct gmmu_p2p_result *res,
                         struct p2ps_error *err);

/* "4K, 64K, 128K, 2M": the page sizes format f has PTEs for, smallest first, into buf. */
const char *gmmu_page_sizes_str(const struct gmmu_format *f, char *buf, size_t len);
/* "4K", "2M", "256G": a size in the largest binary unit that divides it; bytes otherwise. */
const char *gmmu_size_str(uint64_t bytes, char *buf, size_t len);

/* ---- the tables ------------------------------------------------------------------------ */

enum gmmu_formats_style {
	GMMU_FORMATS_TEXT = 0, /* formats and their chips, one paragraph each */
	GMMU_FORMATS_MARKDOWN, /* docs/gmmu-formats.md: chips, levels, every field of every entry */
	GMMU_FORMATS_JSON,     /* the same facts for scripts/gmmu-golden.py */
};

/* Every format and chip libgmmu knows (`pte-decode formats`). */
int gmmu_render_formats(struct gmmu_out *o, enum gmmu_formats_style style, struct p2ps_error *err);

/* ---- dumps: the pipeline of `pte-decode decode --raw/--text/--mem` and `verify` ---- */

enum gmmu_dump_input {
	GMMU_DUMP_RAW = 0, /* little-endian entries back to back (gmmu_dump.h) */
	GMMU_DUMP_TEXT,    /* hex words */
	GMMU_DUMP_WALK,    /* memory images and a root directory */
};

enum gmmu_dump_output {
	GMMU_DUMP_ENTRIES = 0, /* one line (JSON: object) per entry */
	GMMU_DUMP_SUMMARY,     /* ranges of entries that continue one another, and totals */
	GMMU_DUMP_VERIFY,      /* the ranges against a SPEC (gmmu_spec_parse) */
};

/* Shown between slices of a large raw input: done bytes of total (0: a stream). */
typedef void (*gmmu_progress_fn)(void *ctx, uint64_t done, uint64_t total);

struct gmmu_dump_request {
	const struct gmmu_format *fmt;
	enum gmmu_dump_input input;
	const char *path; /* RAW, TEXT: the file; "-" is standard input */
	/* WALK: the images ("[vid:|sys:]PA=FILE", p2ps_mem_set_add_arg) and the root. */
	const char *const *mems;
	size_t n_mems;
	enum p2ps_mem_space pdb_space;
	uint64_t pdb;
	unsigned big_page_shift; /* 16 or 17 (0: 16) */
	bool all;                /* WALK: also report invalid non-zero PTEs and sparse PDEs */
	/* RAW, TEXT: what the entries are, the level they sit in (NULL: not said; PTEs need
	 * one, gmmu_dump_pte_level() picks it) and the VA entry 0 maps. */
	enum gmmu_entry_type entry;
	const struct gmmu_level *level;
	unsigned page_shift; /* PTEs: log2 of their page size (gmmu_dump_pte_level()) */
	uint64_t va0;
	enum gmmu_dump_output output;
	bool json;
	const char *expect;      /* VERIFY: the SPEC file */
	unsigned long max_diffs; /* VERIFY: lines of differences shown; 0 = all */
	gmmu_progress_fn progress;
	void *progress_ctx;
};

/* The level and page shift of a flat table of PTEs: level (NULL: the small page table),
 * with the big page size (0: 64K) applied to the big page table. P2PS_EINVAL when the
 * level holds no PTEs. */
int gmmu_dump_pte_level(const struct gmmu_format *f, const struct gmmu_level *level,
                        unsigned big_page_shift, const struct gmmu_level **out,
                        unsigned *page_shift);

struct gmmu_dump_result {
	uint64_t diffs; /* VERIFY: differences found (the exit status is 1 when non-zero) */
};

/* Reads the input, renders what the request asks for into o, and fills res. Returns 0, or
 * a negative P2PS_E* with one line in err naming where the input went wrong; what was
 * rendered before the error stays in o (pte-decode writes it, then the error). */
int gmmu_dump_run(const struct gmmu_dump_request *rq, struct gmmu_out *o,
                  struct gmmu_dump_result *res, struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
