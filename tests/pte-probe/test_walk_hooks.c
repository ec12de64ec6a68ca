/* SPDX-License-Identifier: MIT */
/* libgmmu's walker with its two hooks, as pte-probe uses them: tables read on demand
 * (fetch) and every directory entry reported (dir_fn). The tree is the H100's from the
 * pte-probe capture, cut down to one 4 KiB page: PD4 0x0 -> PD3 0x1000 -> PD2 0x2000 ->
 * PD1 0x3000 (entry 9) -> PD0 0x5000 (dual, small half) -> PT_SMALL 0x6000. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu_walk.h"

#define PAGE 4096

struct vidmem {
	uint8_t pages[8][PAGE]; /* FB 0x0 .. 0x7fff */
	struct p2ps_mem_set *set;
	unsigned fetches;
	int fail; /* fetch returns this when non-zero */
	struct gmmu_dir_entry dirs[8];
	unsigned n_dirs, n_ptes;
	uint64_t pte_va, pte_raw;
};

static int fetch(void *ctx, enum p2ps_mem_space space, uint64_t pa, uint64_t len,
                 struct p2ps_error *err)
{
	struct vidmem *v = ctx;
	v->fetches++;
	if (v->fail)
		return p2ps_error_set(err, v->fail, "fetch of 0x%llx failed",
		                      (unsigned long long)pa);
	assert_int_equal(space, P2PS_MEM_VID);
	assert_true(pa + len <= sizeof(v->pages));
	uint64_t first = pa & ~(uint64_t)(PAGE - 1);
	return p2ps_mem_set_add_buffer(v->set, space, first, v->pages[first / PAGE], PAGE, "fb",
	                               err);
}

static int on_dir(void *ctx, const struct gmmu_dir_entry *e, struct p2ps_error *err)
{
	struct vidmem *v = ctx;
	(void)err;
	assert_true(v->n_dirs < 8);
	v->dirs[v->n_dirs++] = *e;
	return 0;
}

static int on_pte(void *ctx, const struct gmmu_mapping *m, struct p2ps_error *err)
{
	struct vidmem *v = ctx;
	(void)err;
	v->n_ptes++;
	v->pte_va = m->va;
	v->pte_raw = m->raw;
	return 0;
}

static void build(struct vidmem *v)
{
	memset(v, 0, sizeof(*v));
	p2ps_put_le64(v->pages[0], 0x1012);             /* PD4[0] -> 0x1000 */
	p2ps_put_le64(v->pages[1], 0x2012);             /* PD3[0] -> 0x2000 */
	p2ps_put_le64(v->pages[2], 0x3012);             /* PD2[0] -> 0x3000 */
	p2ps_put_le64(v->pages[3] + 9 * 8, 0x5012);     /* PD1[9] -> 0x5000 */
	p2ps_put_le64(v->pages[5] + 8, 0x6012);         /* PD0[0] small -> 0x6000 */
	p2ps_put_le64(v->pages[6], 0x0000000000010681); /* PT_SMALL[0]: FB 0x10000 */
}

static void test_fetch_and_dirs(void **state)
{
	(void)state;
	static struct vidmem v;
	build(&v);
	struct p2ps_mem_set set;
	p2ps_mem_set_init(&set);
	v.set = &set;
	struct gmmu_walk_opts o = {.fmt = gmmu_chip_find("GH100")->format,
	                           .pdb_space = P2PS_MEM_VID,
	                           .pdb = 0,
	                           .fetch = fetch,
	                           .fetch_ctx = &v,
	                           .dir_fn = on_dir};
	struct gmmu_walk_stats st;
	struct p2ps_error err = {0};
	assert_int_equal(gmmu_walk(&set, &o, on_pte, &v, &st, &err), 0);
	/* Each of the six tables read once, on demand. */
	assert_int_equal(v.fetches, 6);
	assert_int_equal(st.tables, 6);
	assert_int_equal(v.n_ptes, 1);
	assert_int_equal(v.pte_va, 0x120000000ull);
	assert_int_equal(v.pte_raw, 0x10681);
	/* Five directory entries followed, root first, each with what it points at. */
	static const struct {
		const char *level;
		uint32_t index;
		uint64_t entry_pa, next_pa;
		enum gmmu_half half;
	} want[] = {{"PD4", 0, 0x0, 0x1000, GMMU_HALF_NONE},
	            {"PD3", 0, 0x1000, 0x2000, GMMU_HALF_NONE},
	            {"PD2", 0, 0x2000, 0x3000, GMMU_HALF_NONE},
	            {"PD1", 9, 0x3048, 0x5000, GMMU_HALF_NONE},
	            {"PD0", 0, 0x5000, 0x6000, GMMU_HALF_SMALL}};
	assert_int_equal(v.n_dirs, 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_string_equal(v.dirs[i].level->name, want[i].level);
		assert_int_equal(v.dirs[i].index, want[i].index);
		assert_int_equal(v.dirs[i].entry_pa, want[i].entry_pa);
		assert_int_equal(v.dirs[i].next_pa, want[i].next_pa);
		assert_int_equal(v.dirs[i].half, want[i].half);
		assert_int_equal(v.dirs[i].next_space, P2PS_MEM_VID);
	}
	assert_int_equal(v.dirs[3].va, 0x120000000ull);
	assert_int_equal(v.dirs[4].w[0], 0);
	assert_int_equal(v.dirs[4].w[1], 0x6012);
	p2ps_mem_set_cleanup(&set);
}

static void test_fetch_errors(void **state)
{
	(void)state;
	static struct vidmem v;
	build(&v);
	struct p2ps_mem_set set;
	p2ps_mem_set_init(&set);
	v.set = &set;
	v.fail = P2PS_EACCES;
	struct gmmu_walk_opts o = {
	        .fmt = gmmu_chip_find("GH100")->format, .fetch = fetch, .fetch_ctx = &v};
	struct p2ps_error err = {0};
	assert_int_equal(gmmu_walk(&set, &o, on_pte, &v, NULL, &err), P2PS_EACCES);
	assert_non_null(strstr(err.msg, "fetch of 0x0 failed"));
	/* Without a fetch hook a missing table is the usual error. */
	o.fetch = NULL;
	assert_int_equal(gmmu_walk(&set, &o, on_pte, &v, NULL, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "not inside any memory image"));
	/* A fetch that adds nothing: the walk still says what is missing. */
	p2ps_mem_set_cleanup(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_fetch_and_dirs),
	        cmocka_unit_test(test_fetch_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
