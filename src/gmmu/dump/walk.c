/* SPDX-License-Identifier: MIT */
/* Page-directory walk over --mem chunks (see gmmu_walk.h).
 *
 * The level topology (VA bits, entry size, which levels hold PTEs of which
 * page size, which are dual) comes from the format's level table; the entry
 * bits come from its fast views. The walk recurses once per level, so its
 * depth is the format's level count; every table it reads is recorded, and a
 * table reached a second time ends the walk with an error — this is what turns
 * a directory pointing back at itself into a message instead of a loop, and
 * what bounds the work by the bytes of the dump. */
#include "p2pscope/gmmu_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"

/* A table already read: where, at which level, for which VA. */
struct seen {
	uint64_t pa;
	uint64_t va;
	uint8_t space;
	uint8_t level;
	bool used;
};

#define WALK_MAX_LEVELS 8

struct walk {
	const struct p2ps_mem_set *mem;
	const struct gmmu_walk_opts *o;
	const struct gmmu_format *fmt;
	gmmu_mapping_fn fn;
	void *ctx;
	struct gmmu_walk_stats st;
	struct seen *seen; /* open-addressing set, power-of-two size */
	size_t seen_cap, seen_n;
	/* Tables on the current path, root first, for telling a cycle from a
	 * table merely shared by two directories. */
	struct {
		enum p2ps_mem_space space;
		uint64_t pa;
	} path[WALK_MAX_LEVELS];
	unsigned depth;
	const struct gmmu_level *big, *small;
	unsigned big_va_lo, big_shift;
};

static size_t seen_hash(uint64_t pa, unsigned space)
{
	/* Fibonacci hashing of (pa, space); tables are page-aligned, so the low bits
	 * carry little and the product's high bits are taken. */
	uint64_t h = (pa + space) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17);
}

static struct seen *seen_find(struct walk *w, uint64_t pa, unsigned space)
{
	size_t mask = w->seen_cap - 1;
	for (size_t i = seen_hash(pa, space) & mask;; i = (i + 1) & mask) {
		struct seen *s = &w->seen[i];
		if (!s->used || (s->pa == pa && s->space == space))
			return s;
	}
}

static int seen_grow(struct walk *w, struct p2ps_error *err)
{
	size_t cap = w->seen_cap ? w->seen_cap * 2 : 256;
	struct seen *old = w->seen;
	size_t old_cap = w->seen_cap;
	w->seen = calloc(cap, sizeof(*w->seen));
	if (!w->seen) {
		w->seen = old;
		return p2ps_error_set(err, P2PS_ENOMEM, "page-table walk: out of memory");
	}
	w->seen_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*seen_find(w, old[i].pa, old[i].space) = old[i];
	free(old);
	return 0;
}

const struct gmmu_level *gmmu_walk_sub_level(const struct gmmu_format *fmt, int sub,
                                             unsigned big_page_shift, unsigned *va_lo)
{
	const struct gmmu_level *big = NULL, *small = NULL;
	for (size_t i = 0; i < fmt->n_levels; i++) {
		const struct gmmu_level *l = &fmt->levels[i];
		if (l->pde || !l->page_shift)
			continue;
		if (!big || l->page_shift > big->page_shift)
			big = l;
		if (!small || l->page_shift < small->page_shift)
			small = l;
	}
	const struct gmmu_level *l = sub ? big : small;
	if (l && va_lo) {
		*va_lo = l->va_lo;
		/* 128 KiB big pages: the big table indexes fewer VA bits. */
		if (sub && big_page_shift == 17 && l->alt_va_lo)
			*va_lo = l->alt_va_lo;
	}
	return l;
}

static const char *level_name(const struct gmmu_level *l)
{
	return l && l->name ? l->name : "?";
}

static int walk_table(struct walk *w, const struct gmmu_level *lv, enum p2ps_mem_space space,
                      uint64_t pa, uint64_t va_base, const char *from, struct p2ps_error *err);

static int emit_pte(struct walk *w, const struct gmmu_level *lv, unsigned page_shift,
                    enum p2ps_mem_space space, uint64_t entry_pa, uint32_t index, uint64_t va,
                    uint64_t raw, struct p2ps_error *err)
{
	if (!raw)
		return 0;
	struct gmmu_mapping m = {
	        .va = va,
	        .raw = raw,
	        .page_shift = (uint8_t)page_shift,
	        .level = lv,
	        .space = space,
	        .entry_pa = entry_pa,
	        .index = index,
	};
	gmmu_pte_view(w->fmt, raw, &m.v);
	if (m.v.valid)
		w->st.ptes_valid++;
	else
		w->st.ptes_invalid++;
	if (!m.v.valid && !w->o->report_invalid)
		return 0;
	return w->fn(w->ctx, &m, err);
}

/* A sparse directory entry: its whole VA span reads as sparse (no table below). */
static int emit_sparse_pde(struct walk *w, const struct gmmu_level *lv, enum gmmu_entry_type t,
                           enum p2ps_mem_space space, uint64_t entry_pa, uint32_t index,
                           uint64_t va, const uint64_t raw[2], struct p2ps_error *err)
{
	w->st.pdes_sparse++;
	if (!w->o->report_invalid)
		return 0;
	struct gmmu_mapping m = {
	        .va = va,
	        .raw = raw[0],
	        .raw_hi = raw[1],
	        .page_shift = lv->va_lo,
	        .level = lv,
	        .space = space,
	        .entry_pa = entry_pa,
	        .index = index,
	        .entry = t,
	        .v = {.sparse = true, .aperture = GMMU_APERTURE_INVALID},
	};
	return w->fn(w->ctx, &m, err);
}

/* Maps a PDE's aperture to the space of --mem chunks the next table lives in. */
static int pde_space(const struct gmmu_pde_view *v, enum p2ps_mem_space *out)
{
	switch (v->aperture) {
	case GMMU_APERTURE_VIDEO: *out = P2PS_MEM_VID; return 0;
	case GMMU_APERTURE_SYS_COH:
	case GMMU_APERTURE_SYS_NONCOH: *out = P2PS_MEM_SYS; return 0;
	default: return P2PS_EINVAL;
	}
}

/* The optional hooks (gmmu_walk_opts): a followed directory entry, with its stored bytes;
 * a table's bytes, read through fetch when the set lacks them. */
static int report_dir(struct walk *w, struct gmmu_dir_entry *d, struct p2ps_error *err)
{
	const uint8_t *e = p2ps_mem_set_at(w->mem, d->space, d->entry_pa, d->level->entry_size);
	d->w[0] = e ? p2ps_le64(e) : 0;
	d->w[1] = e && d->level->entry_size > 8 ? p2ps_le64(e + 8) : 0;
	return w->o->dir_fn(w->ctx, d, err);
}

static int table_bytes(struct walk *w, enum p2ps_mem_space space, uint64_t pa, uint64_t bytes,
                       const uint8_t **t, struct p2ps_error *err)
{
	*t = p2ps_mem_set_at(w->mem, space, pa, bytes);
	if (*t || !w->o->fetch)
		return 0;
	int rc = w->o->fetch(w->o->fetch_ctx, space, pa, bytes, err);
	if (rc == 0)
		*t = p2ps_mem_set_at(w->mem, space, pa, bytes);
	return rc;
}

static int follow(struct walk *w, const struct gmmu_level *parent, uint32_t index,
                  enum p2ps_mem_space space, uint64_t entry_pa, const struct gmmu_pde_view *v,
                  const struct gmmu_level *next, uint64_t va, const char *half,
                  struct p2ps_error *err)
{
	enum p2ps_mem_space ns;
	if (pde_space(v, &ns))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s[%u]%s at %s PA 0x%llx (VA 0x%llx): PDE aperture %u (%s) "
		                      "names no memory a table can live in",
		                      level_name(parent), index, half, p2ps_mem_space_name(space),
		                      (unsigned long long)entry_pa, (unsigned long long)va,
		                      v->aperture_hw, gmmu_aperture_name(v->aperture));
	w->st.pdes++;
	if (w->o->dir_fn) {
		struct gmmu_dir_entry d = {
		        .level = parent,
		        .index = index,
		        .space = space,
		        .entry_pa = entry_pa,
		        .va = va,
		        .half = !*half           ? GMMU_HALF_NONE
		                : half[1] == 'b' ? GMMU_HALF_BIG
		                                 : GMMU_HALF_SMALL,
		        .next = next,
		        .next_space = ns,
		        .next_pa = v->addr,
		};
		int rc = report_dir(w, &d, err);
		if (rc)
			return rc;
	}
	char from[96];
	snprintf(from, sizeof(from), "%s[%u]%s at %s PA 0x%llx", level_name(parent), index, half,
	         p2ps_mem_space_name(space), (unsigned long long)entry_pa);
	return walk_table(w, next, ns, v->addr, va, from, err);
}

/* Records that the table at pa is read as level lv; a second visit is a cycle (when it is
 * on the walk's own path) or a table two directories share. */
static int mark_seen(struct walk *w, const struct gmmu_level *lv, enum p2ps_mem_space space,
                     uint64_t pa, uint64_t va_base, const char *from, struct p2ps_error *err)
{
	if (2 * (w->seen_n + 1) > w->seen_cap) {
		int rc = seen_grow(w, err);
		if (rc)
			return rc;
	}
	struct seen *s = seen_find(w, pa, space);
	if (s->used) {
		bool cycle = false;
		for (unsigned d = 0; d < w->depth; d++)
			if (w->path[d].pa == pa && w->path[d].space == space)
				cycle = true;
		return p2ps_error_set(
		        err, cycle ? P2PS_ELOOP : P2PS_EINVAL,
		        "%s (VA 0x%llx): points to %s PA 0x%llx as %s, which was already read as "
		        "%s for VA 0x%llx%s",
		        from, (unsigned long long)va_base, p2ps_mem_space_name(space),
		        (unsigned long long)pa, level_name(lv),
		        level_name(&w->fmt->levels[s->level]), (unsigned long long)s->va,
		        cycle ? ": the directory points back into its own path (cycle)"
		              : ": two directories share one table");
	}
	*s = (struct seen){.pa = pa,
	                   .va = va_base,
	                   .space = (uint8_t)space,
	                   .level = (uint8_t)(lv - w->fmt->levels),
	                   .used = true};
	w->seen_n++;
	return 0;
}

/* The bytes of a table of `bytes` at pa, wholly inside one memory image, into *t. */
static int read_table(struct walk *w, const struct gmmu_level *lv, enum p2ps_mem_space space,
                      uint64_t pa, uint64_t bytes, uint64_t va_base, const char *from,
                      const uint8_t **t, struct p2ps_error *err)
{
	if (pa + (bytes - 1) < pa)
		return p2ps_error_set(
		        err, P2PS_ERANGE,
		        "%s (VA 0x%llx): %s table at %s PA 0x%llx runs past the end of "
		        "the address space",
		        from, (unsigned long long)va_base, level_name(lv),
		        p2ps_mem_space_name(space), (unsigned long long)pa);
	*t = NULL;
	int rc = table_bytes(w, space, pa, bytes, t, err);
	if (rc)
		return rc;
	if (!*t)
		return p2ps_error_set(
		        err, P2PS_EINVAL,
		        "%s (VA 0x%llx): %s table at %s PA 0x%llx-0x%llx is not inside "
		        "any memory image",
		        from, (unsigned long long)va_base, level_name(lv),
		        p2ps_mem_space_name(space), (unsigned long long)pa,
		        (unsigned long long)(pa + bytes - 1));
	if (w->depth >= WALK_MAX_LEVELS)
		return p2ps_error_set(err, P2PS_ELOOP, "%s: walk deeper than %d levels", from,
		                      WALK_MAX_LEVELS);
	return 0;
}

/* One entry of a table: where it is and what the table is. */
struct table_entry {
	const struct gmmu_level *lv, *next;
	unsigned page_shift;
	enum p2ps_mem_space space;
	uint64_t epa, va;
	uint32_t index;
	const uint8_t *e;
};

/* A dual PDE: sparse when no half is valid and one is marked sparse; each valid half is
 * followed, big first. */
static int walk_dual(struct walk *w, const struct table_entry *x, uint64_t w0,
                     struct p2ps_error *err)
{
	uint64_t ww[2] = {w0, p2ps_le64(x->e + 8)};
	struct gmmu_pde_view big, small;
	int rc = 0;
	gmmu_dual_pde_view(w->fmt, ww, &big, &small);
	if (!big.valid && !small.valid && (big.sparse || small.sparse))
		rc = emit_sparse_pde(w, x->lv, GMMU_ENTRY_DUAL_PDE, x->space, x->epa, x->index,
		                     x->va, ww, err);
	if (big.valid && w->big)
		rc = follow(w, x->lv, x->index, x->space, x->epa, &big, w->big, x->va, ".big", err);
	if (!rc && small.valid && w->small)
		rc = follow(w, x->lv, x->index, x->space, x->epa, &small, w->small, x->va, ".small",
		            err);
	return rc;
}

static int walk_entry(struct walk *w, const struct table_entry *x, struct p2ps_error *err)
{
	uint64_t w0 = p2ps_le64(x->e);
	const struct gmmu_level *lv = x->lv;
	if (!lv->pde)
		return emit_pte(w, lv, x->page_shift, x->space, x->epa, x->index, x->va, w0, err);
	if (gmmu_entry_is_pte(w->fmt, w0)) {
		if (!x->page_shift)
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "%s[%llu] at %s PA 0x%llx (VA 0x%llx): PTE bit set "
			                      "(0x%016llx) but %s holds no pages",
			                      level_name(lv), (unsigned long long)x->index,
			                      p2ps_mem_space_name(x->space),
			                      (unsigned long long)x->epa, (unsigned long long)x->va,
			                      (unsigned long long)w0, level_name(lv));
		return emit_pte(w, lv, x->page_shift, x->space, x->epa, x->index, x->va, w0, err);
	}
	if (lv->dual)
		return walk_dual(w, x, w0, err);
	struct gmmu_pde_view v;
	gmmu_pde_view(w->fmt, w0, &v);
	if (!v.valid) {
		const uint64_t ww[2] = {w0, 0};
		return v.sparse ? emit_sparse_pde(w, lv, GMMU_ENTRY_PDE, x->space, x->epa, x->index,
		                                  x->va, ww, err)
		                : 0;
	}
	if (!x->next)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: last level holds PDEs",
		                      level_name(lv));
	return follow(w, lv, x->index, x->space, x->epa, &v, x->next, x->va, "", err);
}

static int walk_table(struct walk *w, const struct gmmu_level *lv, enum p2ps_mem_space space,
                      uint64_t pa, uint64_t va_base, const char *from, struct p2ps_error *err)
{
	unsigned va_lo = lv->va_lo;
	struct table_entry x = {.lv = lv, .page_shift = lv->page_shift, .space = space};
	if (lv == w->big) {
		va_lo = w->big_va_lo;
		x.page_shift = w->big_shift;
	}
	uint64_t n = 1ull << ((unsigned)lv->va_hi + 1u - va_lo);
	uint64_t bytes = n * lv->entry_size;
	const uint8_t *t = NULL;
	int rc = mark_seen(w, lv, space, pa, va_base, from, err);
	if (!rc)
		rc = read_table(w, lv, space, pa, bytes, va_base, from, &t, err);
	if (rc)
		return rc;
	w->path[w->depth].pa = pa;
	w->path[w->depth].space = space;
	w->depth++;
	w->st.tables++;
	x.next = (size_t)(lv - w->fmt->levels) + 1 < w->fmt->n_levels ? lv + 1 : NULL;
	for (uint64_t i = 0; i < n && !rc; i++) {
		x.e = t + i * lv->entry_size;
		x.va = va_base + (i << va_lo);
		x.epa = pa + i * lv->entry_size;
		x.index = (uint32_t)i;
		rc = walk_entry(w, &x, err);
	}
	w->depth--;
	return rc;
}

int gmmu_walk(const struct p2ps_mem_set *mem, const struct gmmu_walk_opts *o, gmmu_mapping_fn fn,
              void *ctx, struct gmmu_walk_stats *stats, struct p2ps_error *err)
{
	const struct gmmu_format *f = o->fmt;
	if (!f || !f->n_levels || f->n_levels > WALK_MAX_LEVELS)
		return p2ps_error_set(err, P2PS_EINVAL, "page-table walk: no usable format");
	struct walk w = {.mem = mem, .o = o, .fmt = f, .fn = fn, .ctx = ctx};
	unsigned bps = o->big_page_shift ? o->big_page_shift : 16;
	if (bps != 16 && bps != 17)
		return p2ps_error_set(err, P2PS_EINVAL, "big page size must be 64K or 128K");
	w.big = gmmu_walk_sub_level(f, 1, bps, &w.big_va_lo);
	w.small = gmmu_walk_sub_level(f, 0, bps, NULL);
	w.big_shift = w.big ? (w.big_va_lo == w.big->va_lo ? w.big->page_shift : bps) : 0;
	char from[64];
	snprintf(from, sizeof(from), "PDB %s:0x%llx", p2ps_mem_space_name(o->pdb_space),
	         (unsigned long long)o->pdb);
	int rc = walk_table(&w, &f->levels[0], o->pdb_space, o->pdb, 0, from, err);
	free(w.seen);
	if (stats)
		*stats = w.st;
	return rc;
}
