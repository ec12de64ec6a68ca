/* SPDX-License-Identifier: MIT */
/* p2pscope: page-table walks, VA-map summaries and verification against an
 * intended mapping, on top of libgmmu's formats (gmmu.h) and the dump readers
 * (gmmu_dump.h).
 *
 *   walk     - follows a page directory from its root through every level of
 *              the chip's format (dual PDE big/small halves, PTEs at every level
 *              that may hold them) and reports each PTE with its VA;
 *   summary  - coalesces PTEs that continue one another into ranges in one
 *              pass with constant memory; a tight path for flat PTE arrays
 *              compares each raw entry with the one the run predicts;
 *   verify   - compares those ranges with a SPEC (intended mappings) and
 *              reports missing, extra and wrong ranges by VA.
 *
 * Nothing here prints; every function returns 0 or a negative P2PS_E* and
 * fills struct p2ps_error with one line naming where (table level and index,
 * PA, VA).
 */
#ifndef P2PSCOPE_GMMU_WALK_H
#define P2PSCOPE_GMMU_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One PTE: read from a flat table or found by a walk. A walk also reports a sparse directory
 * entry this way (entry != GMMU_ENTRY_PTE): it covers its whole VA span as one sparse page of
 * 2^page_shift bytes, v says valid false and sparse true, and raw/raw_hi hold the entry. */
struct gmmu_mapping {
	uint64_t va;                    /* first byte the entry maps */
	uint64_t raw;                   /* the 8-byte entry as stored (a dual PDE: bits 63:0) */
	uint8_t page_shift;             /* log2 of the page size */
	const struct gmmu_level *level; /* level holding the entry (NULL: unknown) */
	struct gmmu_pte_view v;
	/* Where the entry lives (walks only): table space/PA and index within it. */
	enum p2ps_mem_space space;
	uint64_t entry_pa;
	uint32_t index;
	enum gmmu_entry_type entry; /* GMMU_ENTRY_PTE, or the sparse directory entry's type */
	uint64_t raw_hi;            /* dual PDE: bits 127:64 */
};

typedef int (*gmmu_mapping_fn)(void *ctx, const struct gmmu_mapping *m, struct p2ps_error *err);

/* ---- walk ---------------------------------------------------------------- */

/* One directory entry (or one half of a dual PDE) that a walk follows. */
struct gmmu_dir_entry {
	const struct gmmu_level *level; /* level holding the entry */
	uint32_t index;                 /* within its table */
	enum p2ps_mem_space space;      /* where the entry lives */
	uint64_t entry_pa;
	uint64_t va;                    /* first VA the entry covers */
	uint64_t w[2];                  /* the entry as stored (w[1] only for dual PDEs) */
	enum gmmu_half half;            /* GMMU_HALF_BIG/SMALL for dual PDEs, else NONE */
	const struct gmmu_level *next;  /* level of the table it points at */
	enum p2ps_mem_space next_space; /* and where that table is */
	uint64_t next_pa;
};

typedef int (*gmmu_dir_fn)(void *ctx, const struct gmmu_dir_entry *e, struct p2ps_error *err);

/* Asked for a table the memory set lacks: may add the bytes [pa, pa + len) of space to the
 * set (through its own handle on it) and return 0; the walk then looks again. */
typedef int (*gmmu_fetch_fn)(void *ctx, enum p2ps_mem_space space, uint64_t pa, uint64_t len,
                             struct p2ps_error *err);

struct gmmu_walk_opts {
	const struct gmmu_format *fmt;
	enum p2ps_mem_space pdb_space; /* where the root page directory lives */
	uint64_t pdb;                  /* its physical address */
	unsigned big_page_shift;       /* 16 (64 KiB, default when 0) or 17 (128 KiB) */
	/* Report PTEs that are not valid but not zero either (sparse, stale
	 * addresses). Zero entries are never reported: they are the holes. */
	bool report_invalid;
	/* Optional: reads tables on demand (fetch_ctx is its context). */
	gmmu_fetch_fn fetch;
	void *fetch_ctx;
	/* Optional: called (with the walk's ctx) for each directory entry followed, before
	 * the table it points at is read. */
	gmmu_dir_fn dir_fn;
};

struct gmmu_walk_stats {
	uint64_t tables;       /* page directories and page tables read */
	uint64_t pdes;         /* valid PDEs followed (a dual PDE counts per half) */
	uint64_t ptes_valid;   /* valid PTEs */
	uint64_t ptes_invalid; /* non-zero invalid PTEs */
	uint64_t pdes_sparse;  /* sparse directory entries (a dual PDE counts once) */
};

/* Walks the hierarchy rooted at o->pdb and calls fn for each valid PTE (and
 * each non-zero invalid one, and each sparse directory entry, with
 * report_invalid) in table order: ascending VA, except that within a dual PDE
 * the big-page table's PTEs come before the small-page table's. A sparse
 * directory entry (aperture INVALID, marked sparse: the driver's sparsePde)
 * ends the walk of its range as sparse, as an INVALID one ends it as a hole;
 * a dual PDE is sparse when neither half is valid and one is marked sparse.
 * Errors (P2PS_EINVAL unless said): a table not inside
 * one --mem chunk, a PDE whose aperture names no memory (PEER), a PTE bit set
 * where the level holds no pages, a table reached twice (P2PS_ELOOP when it is
 * its own ancestor: a cycle). Each table is read once, so the work is bounded
 * by the bytes in mem whatever the entries say. */
int gmmu_walk(const struct p2ps_mem_set *mem, const struct gmmu_walk_opts *o, gmmu_mapping_fn fn,
              void *ctx, struct gmmu_walk_stats *stats, struct p2ps_error *err);

/* Level of o->fmt that PTEs of the small (sub = 0) or big (sub = 1) page table
 * of a dual PDE live in, with big_page_shift applied through *va_lo. */
const struct gmmu_level *gmmu_walk_sub_level(const struct gmmu_format *fmt, int sub,
                                             unsigned big_page_shift, unsigned *va_lo);

/* ---- summary ------------------------------------------------------------- */

/* A run of PTEs that continue one another: same page size, same bits apart
 * from the address (and from COMPTAGLINE, where the aperture has one: comptag
 * lines are compression bookkeeping and advance along a compressible
 * allocation), VAs and target addresses both advancing by one page. */
struct gmmu_range {
	uint64_t va;    /* first VA */
	uint64_t count; /* pages */
	uint8_t page_shift;
	uint64_t raw;           /* first entry */
	struct gmmu_pte_view v; /* decode of the first entry; v.addr = first target */
	const struct gmmu_level *level;
};

static inline uint64_t gmmu_range_bytes(const struct gmmu_range *r)
{
	return r->count << r->page_shift;
}

typedef int (*gmmu_range_fn)(void *ctx, const struct gmmu_range *r, struct p2ps_error *err);

struct gmmu_summary_stats {
	uint64_t entries; /* PTEs seen */
	uint64_t valid;
	uint64_t sparse; /* invalid with the sparse marking */
	uint64_t zero;   /* holes */
	uint64_t other;  /* invalid, not sparse, not zero */
	uint64_t ranges; /* ranges emitted */
};

/* The coalescer's state; fill with gmmu_summary_init, do not touch the rest. */
struct gmmu_summary {
	const struct gmmu_format *fmt;
	const struct gmmu_fast *pte;
	const struct gmmu_field *ctl; /* the PTE's COMPTAGLINE, or NULL */
	gmmu_range_fn fn;
	void *ctx;
	struct gmmu_summary_stats st;
	bool open; /* cur holds a run */
	bool emit; /* cur is a run that will be emitted (valid or sparse) */
	struct gmmu_range cur;
	uint64_t expect_raw; /* raw value the next entry has if it continues the run */
	uint64_t cmp_mask;   /* bits of that value that must match */
	uint64_t step;       /* added to the raw value per page */
	uint64_t left;       /* pages the address field can still advance */
	uint64_t next_va;
	/* Per hardware aperture: the address field's bits, when no field but the peer index
	 * and the comptag line shares them (else 0). An entry that differs from the last
	 * valid one opened only there (the next scattered system page, the next 64 KiB
	 * chunk of an allocation) opens a run without being decoded again: memo holds that
	 * decode. */
	uint64_t addr_bits[4];
	struct {
		bool ok;
		uint8_t page_shift;
		uint64_t raw;
		struct gmmu_pte_view v;
		uint64_t cmp_mask, step;
	} memo;
};

void gmmu_summary_init(struct gmmu_summary *s, const struct gmmu_format *fmt, gmmu_range_fn fn,
                       void *ctx);
/* Adds one PTE (any order; a PTE that does not continue the open run closes it). */
int gmmu_summary_add(struct gmmu_summary *s, const struct gmmu_mapping *m, struct p2ps_error *err);
/* Adds n little-endian 8-byte PTEs of one table level, entry i mapping
 * va0 + (i << page_shift). This is the tight path for large raw dumps: an entry
 * that continues the open run costs one load and one compare. Returns
 * P2PS_ERANGE when the VAs would pass 2^64. */
int gmmu_summary_add_ptes(struct gmmu_summary *s, const uint8_t *data, size_t n, uint64_t va0,
                          unsigned page_shift, const struct gmmu_level *level,
                          struct p2ps_error *err);
/* Emits the open run, if any. Call once at the end. */
int gmmu_summary_finish(struct gmmu_summary *s, struct p2ps_error *err);

/* ---- verify -------------------------------------------------------------- */

/* Flags a SPEC entry may pin down; unspecified flags are not compared. */
enum gmmu_flag {
	GMMU_FLAG_VOL = 0,
	GMMU_FLAG_READ_ONLY,
	GMMU_FLAG_PRIVILEGE,
	GMMU_FLAG_ATOMIC_DISABLE,
	GMMU_FLAG_ENCRYPTED,
	GMMU_FLAG_ACD,
	GMMU_FLAG_COUNT,
};
const char *gmmu_flag_name(enum gmmu_flag f); /* "vol", "read_only", ... */

/* The flags of a decoded PTE as a set: bit per enum gmmu_flag. */
static inline unsigned gmmu_pte_view_flags(const struct gmmu_pte_view *v)
{
	return (v->vol ? 1u << GMMU_FLAG_VOL : 0) | (v->read_only ? 1u << GMMU_FLAG_READ_ONLY : 0) |
	       (v->privilege ? 1u << GMMU_FLAG_PRIVILEGE : 0) |
	       (v->atomic_disable ? 1u << GMMU_FLAG_ATOMIC_DISABLE : 0) |
	       (v->encrypted ? 1u << GMMU_FLAG_ENCRYPTED : 0) | (v->acd ? 1u << GMMU_FLAG_ACD : 0);
}

/* One intended mapping: [va, va + size) mapped with pages of page_shift to
 * target .. target + size in aperture (peer index for PEER). */
struct gmmu_expect {
	uint64_t va, size;
	uint8_t page_shift; /* 0: any page size */
	enum gmmu_aperture aperture;
	uint64_t target;
	bool has_peer;
	uint8_t peer_index; /* compared for PEER apertures */
	bool has_kind;
	uint8_t kind;
	uint8_t flags_set; /* bit per enum gmmu_flag: compared */
	uint8_t flags_val; /* bit per enum gmmu_flag: expected value */
	char name[64];     /* the SPEC's "name", or "mapping[N]" */
};

struct gmmu_spec {
	const struct gmmu_format *fmt; /* from the SPEC's "chip"/"format", may be NULL */
	char chip[32];
	struct gmmu_expect *maps; /* sorted by va, non-overlapping */
	size_t n;
};

/* Parses a SPEC (JSON text, see docs/pte-dumps.md). fmt, when not NULL, is
 * the format given on the command line: it must agree with the SPEC's own,
 * and it resolves value names (KIND names, aperture names). Errors name the
 * entry and key ("SPEC mapping[2] (peer1-vram): \"va\": not a hex address"). */
int gmmu_spec_parse(const char *json, size_t len, const char *name, const struct gmmu_format *fmt,
                    struct gmmu_spec *spec, struct p2ps_error *err);
void gmmu_spec_cleanup(struct gmmu_spec *spec);

enum gmmu_diff_what {
	GMMU_DIFF_MISSING = 1u << 0, /* intended, not mapped */
	GMMU_DIFF_EXTRA = 1u << 1,   /* mapped, not intended */
	GMMU_DIFF_APERTURE = 1u << 2,
	GMMU_DIFF_ADDRESS = 1u << 3,
	GMMU_DIFF_PAGE_SIZE = 1u << 4,
	GMMU_DIFF_PEER = 1u << 5,
	GMMU_DIFF_KIND = 1u << 6,
	GMMU_DIFF_FLAGS = 1u << 7,
};

struct gmmu_diff {
	unsigned what;                   /* GMMU_DIFF_* bits */
	uint64_t va, size;               /* the VA range the difference covers */
	const struct gmmu_expect *exp;   /* NULL for EXTRA */
	const struct gmmu_range *act;    /* NULL for MISSING */
	uint64_t exp_target, act_target; /* at va */
	uint8_t flags_wrong;             /* bit per enum gmmu_flag */
};

typedef int (*gmmu_diff_fn)(void *ctx, const struct gmmu_diff *d, struct p2ps_error *err);

/* Collects the ranges of a summary for gmmu_verify (use gmmu_verify_collect as
 * the summary's gmmu_range_fn with the collector as ctx). */
struct gmmu_range_list {
	struct gmmu_range *v;
	size_t n, cap;
};
int gmmu_verify_collect(void *list, const struct gmmu_range *r, struct p2ps_error *err);
void gmmu_range_list_cleanup(struct gmmu_range_list *l);

struct gmmu_verify_stats {
	uint64_t diffs;
	uint64_t matched_bytes; /* intended bytes found mapped as intended */
	uint64_t intended_bytes;
};

/* Compares the mapped ranges (sorted here in place) with the SPEC, calling fn
 * once per difference, ordered by VA. Returns 0 when the comparison ran (look
 * at stats->diffs), negative on error. */
int gmmu_verify(const struct gmmu_spec *spec, struct gmmu_range_list *actual, gmmu_diff_fn fn,
                void *ctx, struct gmmu_verify_stats *stats, struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
