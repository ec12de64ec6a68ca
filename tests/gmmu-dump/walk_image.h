/* SPDX-License-Identifier: MIT */
/* The page-table image the walk tests build by hand (mem_img at MEM_BASE, video memory)
 * and what they collect from walking, summarizing and verifying it. */
#ifndef P2PS_TEST_WALK_IMAGE_H
#define P2PS_TEST_WALK_IMAGE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

#define MEM_BASE 0x100000ull
#define MEM_SIZE 0x10000ull

static uint8_t mem_img[MEM_SIZE];

static inline void put64(uint64_t pa, uint64_t v)
{
	assert_true(pa >= MEM_BASE && pa + 8 <= MEM_BASE + MEM_SIZE);
	p2ps_put_le64(mem_img + (pa - MEM_BASE), v);
}

/* ---- collecting results --------------------------------------------------- */

#define MAX_ITEMS 64

struct got {
	struct gmmu_mapping m[MAX_ITEMS];
	size_t nm;
	struct gmmu_range r[MAX_ITEMS];
	size_t nr;
	struct gmmu_diff d[MAX_ITEMS];
	/* copies: d[i].act and d[i].exp point into lists freed after gmmu_verify */
	struct gmmu_range dact[MAX_ITEMS];
	struct gmmu_expect dexp[MAX_ITEMS];
	size_t nd;
};

static inline int on_mapping(void *ctx, const struct gmmu_mapping *m, struct p2ps_error *err)
{
	(void)err;
	struct got *g = ctx;
	assert_true(g->nm < MAX_ITEMS);
	g->m[g->nm++] = *m;
	return 0;
}

static inline int on_range(void *ctx, const struct gmmu_range *r, struct p2ps_error *err)
{
	(void)err;
	struct got *g = ctx;
	assert_true(g->nr < MAX_ITEMS);
	g->r[g->nr++] = *r;
	return 0;
}

static inline int on_diff(void *ctx, const struct gmmu_diff *d, struct p2ps_error *err)
{
	(void)err;
	struct got *g = ctx;
	assert_true(g->nd < MAX_ITEMS);
	g->d[g->nd] = *d;
	if (d->act)
		g->dact[g->nd] = *d->act;
	if (d->exp)
		g->dexp[g->nd] = *d->exp;
	g->nd++;
	return 0;
}

static inline const struct gmmu_format *fmt_of(const char *chip)
{
	const struct gmmu_format *f = NULL;
	struct p2ps_error err = {0};
	assert_int_equal(gmmu_chip_lookup(chip, &f, &err), 0);
	assert_non_null(f);
	return f;
}

/* Walks mem_img as o says, collecting the mappings into g. */
static inline int walk_image_opts(const struct gmmu_walk_opts *o, struct got *g,
                                  struct gmmu_walk_stats *st, struct p2ps_error *err)
{
	struct p2ps_mem_set mem;
	p2ps_mem_set_init(&mem);
	assert_int_equal(p2ps_mem_set_add_buffer(&mem, P2PS_MEM_VID, MEM_BASE, mem_img, MEM_SIZE,
	                                         "img", err),
	                 0);
	int rc = gmmu_walk(&mem, o, on_mapping, g, st, err);
	p2ps_mem_set_cleanup(&mem);
	return rc;
}

/* Walks mem_img in format f from the directory at pdb. */
static inline int walk_image(const struct gmmu_format *f, uint64_t pdb, struct got *g,
                             struct gmmu_walk_stats *st, struct p2ps_error *err)
{
	struct gmmu_walk_opts o = {.fmt = f, .pdb_space = P2PS_MEM_VID, .pdb = pdb};
	return walk_image_opts(&o, g, st, err);
}

/* Summarizes the mappings in g into ranges (g->r); returns the summary's counts. */
static inline struct gmmu_summary_stats summarize(const struct gmmu_format *f, struct got *g)
{
	struct gmmu_summary s;
	struct p2ps_error err = {0};
	gmmu_summary_init(&s, f, on_range, g);
	for (size_t i = 0; i < g->nm; i++)
		assert_int_equal(gmmu_summary_add(&s, &g->m[i], &err), 0);
	assert_int_equal(gmmu_summary_finish(&s, &err), 0);
	return s.st;
}

static inline void assert_range(const struct gmmu_range *r, uint64_t va, unsigned shift,
                                uint64_t count, enum gmmu_aperture ap, uint64_t target)
{
	assert_true(r->v.valid);
	assert_int_equal(r->va, va);
	assert_int_equal(r->page_shift, shift);
	assert_int_equal(r->count, count);
	assert_int_equal(r->v.aperture, ap);
	assert_int_equal(r->v.addr, target);
}

static inline int verify_walk(const struct gmmu_format *f, const char *spec_text, struct got *g,
                              struct gmmu_verify_stats *vst)
{
	struct p2ps_error err = {0};
	struct got w = {0};
	assert_int_equal(walk_image(f, 0x100000, &w, NULL, &err), 0);
	struct gmmu_range_list list = {0};
	struct gmmu_summary s;
	gmmu_summary_init(&s, f, gmmu_verify_collect, &list);
	for (size_t i = 0; i < w.nm; i++)
		assert_int_equal(gmmu_summary_add(&s, &w.m[i], &err), 0);
	assert_int_equal(gmmu_summary_finish(&s, &err), 0);
	struct gmmu_spec spec;
	int rc = gmmu_spec_parse(spec_text, strlen(spec_text), "spec.json", f, &spec, &err);
	if (rc) {
		print_error("%s\n", err.msg);
		gmmu_range_list_cleanup(&list);
		return rc;
	}
	rc = gmmu_verify(&spec, &list, on_diff, g, vst, &err);
	gmmu_spec_cleanup(&spec);
	gmmu_range_list_cleanup(&list);
	return rc;
}

#endif
