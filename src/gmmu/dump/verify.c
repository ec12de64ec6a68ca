/* SPDX-License-Identifier: MIT */
/* Verification of mapped ranges against a SPEC (see gmmu_walk.h).
 *
 * Works on coalesced ranges, not entries: a 24 GiB mapping of 2 MiB pages that
 * is right end to end is one range and one comparison. Both sides are linear
 * in VA (target = base + (va - start)), so an address that agrees at the start
 * of an overlap agrees throughout it, and each overlap needs one comparison. */
#include "grow.h"
#include "p2pscope/gmmu_walk.h"

#include <stdlib.h>
#include <string.h>

/* Appends the elem_size bytes at item to the growable array *v of *n elements (room for
 * *cap), reallocating it when full. */
static int append(void **v, size_t *n, size_t *cap, const void *item, size_t elem_size,
                  struct p2ps_error *err)
{
	if (!p2ps_grow(v, cap, *n + 1, elem_size))
		return p2ps_error_set(err, P2PS_ENOMEM, "verify: out of memory");
	memcpy((char *)*v + *n * elem_size, item, elem_size);
	(*n)++;
	return 0;
}

int gmmu_verify_collect(void *list, const struct gmmu_range *r, struct p2ps_error *err)
{
	struct gmmu_range_list *l = list;
	/* Only valid entries map anything; sparse ranges count as not mapped. */
	if (!r->v.valid)
		return 0;
	void *v = l->v;
	int rc = append(&v, &l->n, &l->cap, r, sizeof(*r), err);
	l->v = v;
	return rc;
}

void gmmu_range_list_cleanup(struct gmmu_range_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int range_cmp(const void *a, const void *b)
{
	const struct gmmu_range *x = a, *y = b;
	if (x->va != y->va)
		return x->va < y->va ? -1 : 1;
	return (x->page_shift > y->page_shift) - (x->page_shift < y->page_shift);
}

struct diffs {
	struct gmmu_diff *v;
	size_t n, cap;
};

static int diff_add(struct diffs *d, const struct gmmu_diff *x, struct p2ps_error *err)
{
	void *v = d->v;
	int rc = append(&v, &d->n, &d->cap, x, sizeof(*x), err);
	d->v = v;
	return rc;
}

static int diff_cmp(const void *a, const void *b)
{
	const struct gmmu_diff *x = a, *y = b;
	if (x->va != y->va)
		return x->va < y->va ? -1 : 1;
	return (x->what > y->what) - (x->what < y->what);
}

/* Compares the overlap [lo, last] of actual range a and intended mapping e. */
static struct gmmu_diff compare(const struct gmmu_expect *e, const struct gmmu_range *a,
                                uint64_t lo, uint64_t last)
{
	struct gmmu_diff d = {.va = lo, .size = last - lo + 1, .exp = e, .act = a};
	d.exp_target = e->target + (lo - e->va);
	d.act_target = a->v.addr + (lo - a->va);
	if (e->page_shift && e->page_shift != a->page_shift)
		d.what |= GMMU_DIFF_PAGE_SIZE;
	if (e->aperture != a->v.aperture)
		d.what |= GMMU_DIFF_APERTURE;
	if (d.exp_target != d.act_target)
		d.what |= GMMU_DIFF_ADDRESS;
	if (e->aperture == GMMU_APERTURE_PEER && e->has_peer && a->v.peer_index != e->peer_index)
		d.what |= GMMU_DIFF_PEER;
	if (e->has_kind && a->v.kind != e->kind)
		d.what |= GMMU_DIFF_KIND;
	d.flags_wrong = (uint8_t)((gmmu_pte_view_flags(&a->v) ^ e->flags_val) & e->flags_set);
	if (d.flags_wrong)
		d.what |= GMMU_DIFF_FLAGS;
	return d;
}

/* First intended mapping whose last byte is at or after va. */
static size_t spec_first_ending_after(const struct gmmu_spec *s, uint64_t va)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->maps[mid].va + (s->maps[mid].size - 1) < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int check_actual(const struct gmmu_spec *spec, const struct gmmu_range *a, struct diffs *out,
                        struct gmmu_verify_stats *st, struct p2ps_error *err)
{
	uint64_t cur = a->va, last = a->va + (gmmu_range_bytes(a) - 1);
	size_t k = spec_first_ending_after(spec, cur);
	for (;;) {
		if (k >= spec->n || spec->maps[k].va > last) {
			struct gmmu_diff d = {.what = GMMU_DIFF_EXTRA,
			                      .va = cur,
			                      .size = last - cur + 1,
			                      .act = a,
			                      .act_target = a->v.addr + (cur - a->va)};
			return diff_add(out, &d, err);
		}
		const struct gmmu_expect *e = &spec->maps[k];
		if (e->va > cur) {
			struct gmmu_diff d = {.what = GMMU_DIFF_EXTRA,
			                      .va = cur,
			                      .size = e->va - cur,
			                      .act = a,
			                      .act_target = a->v.addr + (cur - a->va)};
			int rc = diff_add(out, &d, err);
			if (rc)
				return rc;
			cur = e->va;
		}
		uint64_t e_last = e->va + (e->size - 1);
		uint64_t hi = e_last < last ? e_last : last;
		struct gmmu_diff d = compare(e, a, cur, hi);
		if (d.what) {
			int rc = diff_add(out, &d, err);
			if (rc)
				return rc;
		} else {
			st->matched_bytes += hi - cur + 1;
		}
		if (hi == last)
			return 0;
		cur = hi + 1;
		k++;
	}
}

int gmmu_verify(const struct gmmu_spec *spec, struct gmmu_range_list *actual, gmmu_diff_fn fn,
                void *ctx, struct gmmu_verify_stats *stats, struct p2ps_error *err)
{
	struct gmmu_verify_stats st = {0};
	struct diffs d = {0};
	int rc = 0;
	if (actual->n)
		qsort(actual->v, actual->n, sizeof(*actual->v), range_cmp);
	for (size_t i = 0; i < spec->n; i++)
		st.intended_bytes += spec->maps[i].size;
	for (size_t i = 0; i < actual->n && !rc; i++)
		rc = check_actual(spec, &actual->v[i], &d, &st, err);

	/* Missing: intended bytes no actual range covers. The actual ranges are
	 * sorted by start; a running maximum of their ends gives their union. */
	size_t j = 0;
	uint64_t covered_last = 0;
	bool any_covered = false;
	for (size_t i = 0; i < spec->n && !rc; i++) {
		const struct gmmu_expect *e = &spec->maps[i];
		uint64_t cur = e->va, e_last = e->va + (e->size - 1);
		bool done = false;
		while (!done && !rc) {
			/* Pull in ranges starting at or before cur. */
			while (j < actual->n && actual->v[j].va <= cur) {
				uint64_t l =
				        actual->v[j].va + (gmmu_range_bytes(&actual->v[j]) - 1);
				if (!any_covered || l > covered_last)
					covered_last = l;
				any_covered = true;
				j++;
			}
			if (any_covered && covered_last >= cur) {
				if (covered_last >= e_last)
					done = true;
				else
					cur = covered_last + 1;
				continue;
			}
			/* cur is not covered: the gap runs to the next range start. */
			uint64_t gap_last = e_last;
			if (j < actual->n && actual->v[j].va <= e_last)
				gap_last = actual->v[j].va - 1;
			struct gmmu_diff m = {.what = GMMU_DIFF_MISSING,
			                      .va = cur,
			                      .size = gap_last - cur + 1,
			                      .exp = e,
			                      .exp_target = e->target + (cur - e->va)};
			rc = diff_add(&d, &m, err);
			if (gap_last == e_last)
				done = true;
			else
				cur = gap_last + 1;
		}
	}
	if (!rc) {
		if (d.n)
			qsort(d.v, d.n, sizeof(*d.v), diff_cmp);
		st.diffs = d.n;
		for (size_t i = 0; i < d.n && !rc; i++)
			rc = fn ? fn(ctx, &d.v[i], err) : 0;
	}
	free(d.v);
	if (stats)
		*stats = st;
	return rc;
}
