/* SPDX-License-Identifier: MIT */
/* The functional check's run (src/host/check) against stand-in GPUs (standin.c) with a
 * planted failure each: every failure must come out named as itself, on the step it was
 * planted in and no other, and a hang must end the run on time with the steps behind it
 * marked not run. Also the cells, the layout and the verdicts without a host model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "p2pscope/check.h"
#include "standin.h"

#define MIB (1ull << 20)

struct run {
	struct standin s;
	struct p2ps_chk_opts o;
	struct p2ps_chk_result *res;
	struct p2ps_chk_report rep;
};

static void setup(struct run *r, int n)
{
	memset(r, 0, sizeof(*r));
	standin_init(&r->s, n);
	p2ps_chk_opts_default(&r->o);
	/* Small steps keep the tests fast; the alias probes stay at 256 and 512 MiB. */
	r->o.payload = 64 << 10;
	r->o.guard = 4 << 10;
	r->o.alias[0] = 256 * MIB;
	r->o.alias[1] = 512 * MIB;
	r->o.n_alias = 2;
	r->o.step_ms = 300;
	r->o.open_ms = 2000;
	r->o.paths |= P2PS_CHK_PATH_BIT(P2PS_CHK_UVM);
	r->res = calloc(1, sizeof(*r->res));
	assert_non_null(r->res);
}

static void plant(struct run *r, int a, int b, int path, enum fault_kind k, int64_t arg, int gpu)
{
	r->s.faults[r->s.n_faults++] = (struct fault){a, b, path, k, arg, gpu};
}

static void go(struct run *r, const struct p2ps_chk_policy *pol)
{
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_chk_run(&r->o, &standin_ops, &r->s, r->res, &err), 0);
	assert_int_equal(p2ps_chk_report_make(r->res, NULL, NULL, pol, &r->rep, &err), 0);
}

static void done(struct run *r)
{
	standin_release(&r->s);
	assert_int_equal(p2ps_chk_result_free(r->res, 5000), 0);
	p2ps_chk_report_free(&r->rep);
	standin_free(&r->s);
	free(r->res);
}

static const struct p2ps_chk_obs *obs(const struct run *r, int a, int b, int p)
{
	return &r->res->obs[a][b][p];
}

/* Every step but a -> b on path p (p -1: none) must have worked. */
static void others_ok(const struct run *r, int fa, int fb, int fp)
{
	for (int a = 0; a < r->res->n; a++)
		for (int b = 0; b < r->res->n; b++)
			for (int p = 0; p < P2PS_CHK_PATHS && a != b; p++)
				if (!(a == fa && b == fb && p == fp) &&
				    obs(r, a, b, p)->form != P2PS_CF_OK)
					fail_msg("%d -> %d %s: %s (%s)", a, b,
					         p2ps_chk_path_name(p),
					         p2ps_chk_form_name(obs(r, a, b, p)->form),
					         obs(r, a, b, p)->detail);
}

static const struct p2ps_chk_pair *pair(const struct run *r, int a, int b)
{
	for (size_t k = 0; k < r->rep.n_pairs; k++)
		if (r->rep.pairs[k].a == a && r->rep.pairs[k].b == b)
			return &r->rep.pairs[k];
	fail_msg("no pair %d -> %d", a, b);
	return NULL;
}

static void test_all_paths_work(void **state)
{
	struct run r;
	(void)state;
	setup(&r, 3);
	go(&r, NULL);
	assert_int_equal(r.res->n, 3);
	others_ok(&r, -1, -1, -1);
	assert_int_equal(r.rep.n_pairs, 6);
	assert_int_equal(r.rep.verdict, P2PS_CV_WORKS);
	assert_int_equal(r.rep.exit_status, 0);
	assert_non_null(strstr(r.rep.summary, "works: 3 GPUs, 6 ordered pairs x 9 paths"));
	/* NCCL: every op verified, every pair's transport read from its log. */
	assert_int_equal(r.res->nccl.init.form, P2PS_CF_OK);
	assert_string_equal(r.res->nccl.version, "2.28.9");
	for (int op = 0; op < P2PS_CHK_NCCL_OPS; op++)
		assert_int_equal(r.res->nccl.op[op].form, P2PS_CF_OK);
	assert_string_equal(r.res->nccl.transport[2][0], "P2P/direct pointer");
	done(&r);
}

static void check_one(enum fault_kind k, int path, int64_t arg, int gpu, enum p2ps_chk_form want,
                      int64_t disp, int other)
{
	struct run r;
	setup(&r, 3);
	plant(&r, 1, 2, path, k, arg, gpu);
	go(&r, NULL);
	const struct p2ps_chk_obs *o = obs(&r, 1, 2, path);
	if (o->form != want)
		fail_msg("%s planted: %s (%s)", p2ps_chk_path_name(path),
		         p2ps_chk_form_name(o->form), o->detail);
	assert_int_equal(o->displacement, disp);
	assert_int_equal(o->other_gpu, other);
	others_ok(&r, 1, 2, path);
	assert_int_equal(pair(&r, 1, 2)->verdict, P2PS_CV_BROKEN);
	assert_int_equal(pair(&r, 2, 1)->verdict, P2PS_CV_WORKS);
	assert_int_equal(r.rep.exit_status, 1);
	assert_non_null(strstr(r.rep.summary, "broken: GPU 1 -> GPU 2"));
	done(&r);
}

static void test_zeros(void **state)
{
	(void)state;
	check_one(F_ZEROS, P2PS_CHK_SM_STORE, 0, 0, P2PS_CF_ZEROS, 0, -1);
	check_one(F_ZEROS, P2PS_CHK_IPC_CE, 0, 0, P2PS_CF_ZEROS, 0, -1);
	check_one(F_ZEROS, P2PS_CHK_SM_LOAD, 0, 0, P2PS_CF_ZEROS, 0, -1);
}

static void test_ones_and_lost(void **state)
{
	(void)state;
	check_one(F_ONES, P2PS_CHK_SM_LOAD, 0, 0, P2PS_CF_ONES, 0, -1);
	check_one(F_DROP, P2PS_CHK_CE, 0, 0, P2PS_CF_LOST, 0, -1);
	check_one(F_DROP, P2PS_CHK_FD_SM, 0, 0, P2PS_CF_LOST, 0, -1);
	check_one(F_DROP, P2PS_CHK_UVM, 0, 0, P2PS_CF_LOST, 0, -1);
}

static void test_shifted(void **state)
{
	(void)state;
	/* Within the slot, into its guard, and a load from 48 bytes too far. */
	check_one(F_SHIFT, P2PS_CHK_CE, 4096, 0, P2PS_CF_SHIFTED, 4096, -1);
	check_one(F_SHIFT, P2PS_CHK_SM_STORE, -2048, 0, P2PS_CF_SHIFTED, -2048, -1);
	check_one(F_SHIFT, P2PS_CHK_SM_LOAD, 48, 0, P2PS_CF_SHIFTED, 48, -1);
}

static void test_aliased_at_512_mib(void **state)
{
	(void)state;
	check_one(F_SHIFT, P2PS_CHK_CE, -(int64_t)(512 * MIB), 0, P2PS_CF_ALIASED,
	          -(int64_t)(512 * MIB), -1);
	check_one(F_SHIFT, P2PS_CHK_IPC_SM, 256 * MIB, 0, P2PS_CF_ALIASED, 256 * MIB, -1);
	/* A load that reads 512 MiB above its place finds the owner's canaries there. */
	check_one(F_SHIFT, P2PS_CHK_SM_LOAD, 512 * MIB, 0, P2PS_CF_ALIASED, 512 * MIB, -1);
}

static void test_wrong_gpu(void **state)
{
	(void)state;
	/* GPU 1's write for GPU 2 lands on GPU 0 (256 MiB into an alias probe of it, where no
	 * step of the round writes), or on GPU 1 right after its slot (the POSIX-FD region has
	 * no alias probes: its guard catches the first cells); a load of GPU 2's memory reads
	 * GPU 0's. */
	check_one(F_WRONG_GPU, P2PS_CHK_SM_STORE, 256 * MIB, 0, P2PS_CF_WRONG_GPU, 0, 0);
	check_one(F_WRONG_GPU, P2PS_CHK_FD_CE, 64 << 10, 1, P2PS_CF_WRONG_GPU, 0, 1);
	check_one(F_WRONG_GPU, P2PS_CHK_SM_LOAD, 0, 0, P2PS_CF_WRONG_GPU, 0, 0);
}

static void test_corrupt_overrun_error(void **state)
{
	(void)state;
	check_one(F_CORRUPT, P2PS_CHK_CE, 0, 0, P2PS_CF_CORRUPT, 0, -1);
	check_one(F_OVERRUN, P2PS_CHK_SM_STORE, 0, 0, P2PS_CF_CANARY, 0, -1);
	check_one(F_ERROR, P2PS_CHK_IPC_SM, 0, 0, P2PS_CF_ERROR, 0, -1);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A store that never returns: the step is hung at its deadline, the run goes on without
 * GPU 1's thread (its later steps are not run), and ends. */
static void test_hang_is_a_verdict(void **state)
{
	struct run r;
	(void)state;
	setup(&r, 3);
	plant(&r, 1, 2, P2PS_CHK_SM_STORE, F_HANG, 0, 0);
	double t0 = now_s();
	go(&r, NULL);
	double took = now_s() - t0;
	const struct p2ps_chk_obs *o = obs(&r, 1, 2, P2PS_CHK_SM_STORE);
	assert_int_equal(o->form, P2PS_CF_HUNG);
	assert_non_null(strstr(o->detail, "sm_store 1 -> 2 did not return within 300 ms"));
	assert_int_equal(r.res->stuck_lanes, 1);
	/* GPU 1 takes part in every later step as a or b. */
	assert_int_equal(obs(&r, 1, 2, P2PS_CHK_SM_LOAD)->form, P2PS_CF_NOT_RUN);
	assert_non_null(strstr(obs(&r, 0, 1, P2PS_CHK_UVM)->detail, "GPU 1 (0000:00:07.0)'s thread "
	                                                            "is stuck in sm_store 1 -> 2"));
	assert_int_equal(obs(&r, 0, 2, P2PS_CHK_SM_LOAD)->form, P2PS_CF_OK);
	/* NCCL needs every GPU: it started before the hang and finished. */
	assert_int_equal(r.rep.verdict, P2PS_CV_BROKEN);
	if (!strstr(r.rep.summary, "broken: GPU 1 -> GPU 2: sm_store: hung"))
		fail_msg("summary: %s", r.rep.summary);
	/* Only the deadline passed, not the whole run's worth of them. */
	assert_true(took < 5.0);
	assert_int_equal(r.s.hung, 1);
	done(&r);
}

static void test_hang_finding_gpus(void **state)
{
	struct run r;
	(void)state;
	setup(&r, 2);
	r.s.hang_devices = true;
	go(&r, NULL);
	assert_int_equal(r.res->find.form, P2PS_CF_HUNG);
	assert_int_equal(r.res->n, 0);
	/* Without a host model nothing says GPUs should be there: unknown. */
	assert_int_equal(r.rep.verdict, P2PS_CV_UNKNOWN);
	assert_int_equal(r.rep.exit_status, 3);
	done(&r);
}

static void test_denied_is_unavailable(void **state)
{
	struct run r;
	(void)state;
	setup(&r, 2);
	plant(&r, 0, 1, P2PS_CHK_PEER, F_DENY, 0, 0);
	go(&r, NULL);
	assert_int_equal(obs(&r, 0, 1, P2PS_CHK_PEER)->form, P2PS_CF_DENIED);
	/* The paths that need peer access are not run; copies through host memory are. */
	assert_int_equal(obs(&r, 0, 1, P2PS_CHK_SM_STORE)->form, P2PS_CF_NOT_RUN);
	assert_int_equal(obs(&r, 0, 1, P2PS_CHK_FD_SM)->form, P2PS_CF_NOT_RUN);
	assert_int_equal(obs(&r, 0, 1, P2PS_CHK_CE)->form, P2PS_CF_OK);
	assert_int_equal(obs(&r, 0, 1, P2PS_CHK_UVM)->form, P2PS_CF_OK);
	assert_int_equal(pair(&r, 0, 1)->verdict, P2PS_CV_UNAVAILABLE);
	assert_int_equal(pair(&r, 1, 0)->verdict, P2PS_CV_WORKS);
	assert_int_equal(r.rep.exit_status, 1);
	assert_non_null(strstr(r.rep.summary,
	                       "unavailable: GPU 0 -> GPU 1: CUDA denies peer access; "
	                       "copies through host memory verified"));
	p2ps_chk_report_free(&r.rep);
	/* Allowed: P2P where it exists, copies everywhere. */
	struct p2ps_chk_policy pol = {.allow_no_p2p = true};
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_chk_report_make(r.res, NULL, NULL, &pol, &r.rep, &err), 0);
	assert_int_equal(r.rep.exit_status, 0);
	assert_non_null(strstr(r.rep.summary, "(1 without P2P, as the driver says: allowed)"));
	done(&r);
}

static void test_one_gpu_and_none(void **state)
{
	struct run r;
	(void)state;
	setup(&r, 1);
	go(&r, NULL);
	assert_int_equal(r.rep.n_pairs, 0);
	assert_int_equal(r.rep.exit_status, 3);
	assert_non_null(strstr(r.rep.summary, "unknown: one GPU (0000:00:06.0), no pair to check"));
	assert_int_equal(r.res->nccl.init.form, P2PS_CF_NOT_RUN);
	p2ps_chk_report_free(&r.rep);
	struct p2ps_chk_policy pol = {.allow_single = true};
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_chk_report_make(r.res, NULL, NULL, &pol, &r.rep, &err), 0);
	assert_int_equal(r.rep.exit_status, 0);
	done(&r);

	setup(&r, 2);
	r.s.no_devices = true;
	go(&r, NULL);
	assert_int_equal(r.res->find.form, P2PS_CF_ERROR);
	assert_int_equal(r.rep.exit_status, 3);
	assert_non_null(strstr(r.rep.summary, "no NVIDIA driver loaded"));
	done(&r);
}

static void test_nccl_failures(void **state)
{
	struct run r;
	(void)state;
	setup(&r, 2);
	r.s.nccl = N_NO_LIBRARY;
	go(&r, NULL);
	/* No library is not a failure of the host: the P2P paths decide. */
	assert_int_equal(r.res->nccl.init.form, P2PS_CF_UNSUPPORTED);
	assert_int_equal(r.rep.exit_status, 0);
	assert_non_null(strstr(r.rep.summary, "; NCCL unsupported"));
	done(&r);

	setup(&r, 2);
	r.s.nccl = N_CORRUPT;
	go(&r, NULL);
	assert_int_equal(r.res->nccl.op[P2PS_CHK_NCCL_ALL_GATHER].form, P2PS_CF_CORRUPT);
	assert_int_equal(r.rep.exit_status, 1);
	assert_non_null(strstr(r.rep.summary, "broken: NCCL all_gather: corrupt: 5 of 1024"));
	done(&r);

	setup(&r, 2);
	r.s.nccl = N_HANG;
	r.o.open_ms = 600;
	go(&r, NULL);
	assert_int_equal(r.res->nccl.op[P2PS_CHK_NCCL_ALL_REDUCE].form, P2PS_CF_HUNG);
	assert_int_equal(r.res->nccl.op[P2PS_CHK_NCCL_SEND_RECV].form, P2PS_CF_NOT_RUN);
	assert_int_equal(r.rep.exit_status, 1);
	assert_non_null(strstr(r.rep.summary, "broken: NCCL all_reduce: hung"));
	done(&r);
}

/* The cells: each kind of content is told apart. */
static void test_cells(void **state)
{
	(void)state;
	struct p2ps_cell_key pay = {P2PS_CELL_PAYLOAD, 1, 2, P2PS_CHK_CE, 77};
	struct p2ps_cell_key can = {P2PS_CELL_CANARY, 2, 2, 0, 77};
	struct p2ps_cell_win win = {pay, 100, 100, 2};
	uint32_t cells[8 * 4];
	p2ps_cell_make(&pay, 100, cells);      /* ok */
	memset(cells + 4, 0, 16);              /* zero */
	memset(cells + 8, 0xff, 16);           /* ones */
	p2ps_cell_make(&can, 103, cells + 12); /* stale: own canary, own place */
	p2ps_cell_make(&pay, 105, cells + 16); /* displaced by +1 cell */
	struct p2ps_cell_key other = pay;
	other.nonce = 78;
	p2ps_cell_make(&other, 105, cells + 20); /* another run */
	p2ps_cell_make(&pay, 106, cells + 24);
	cells[24 + 1] ^= 1; /* corrupt */
	struct p2ps_cell_key third = {P2PS_CELL_PAYLOAD, 3, 0, P2PS_CHK_CE, 77};
	p2ps_cell_make(&third, 107, cells + 28); /* another step's payload */
	struct p2ps_cell_tally t;
	p2ps_cell_scan(cells, 8, &win, &t);
	assert_int_equal(t.cells, 8);
	assert_int_equal(t.n[P2PS_CP_IS_OK], 1);
	assert_int_equal(t.n[P2PS_CP_IS_ZERO], 1);
	assert_int_equal(t.n[P2PS_CP_IS_ONES], 1);
	assert_int_equal(t.n[P2PS_CP_IS_STALE], 1);
	assert_int_equal(t.n[P2PS_CP_IS_DISPLACED], 1);
	assert_int_equal(t.n[P2PS_CP_IS_OTHER_RUN], 1);
	assert_int_equal(t.n[P2PS_CP_IS_CORRUPT], 1);
	assert_int_equal(t.n[P2PS_CP_IS_PAYLOAD], 1);
	assert_int_equal(t.payload_of[1], 1);
	assert_int_equal(t.payload_of[3], 1);
	assert_int_equal(t.disp_min, 0);
	assert_int_equal(t.disp_max, 1);
	assert_int_equal(t.first_bad, 1);
}

static void test_layout(void **state)
{
	(void)state;
	struct p2ps_chk_layout l;
	struct p2ps_error err = {0};
	uint64_t alias[] = {256 * MIB, 512 * MIB, 1024 * MIB};
	assert_int_equal(p2ps_chk_layout_make(2 * MIB, 64 << 10, alias, 3, &l, &err), 0);
	/* The slot 1 GiB + 64 KiB in, so that the -1 GiB probe starts at 0. */
	assert_int_equal(l.w[l.slot].offset, 1024 * MIB + (64 << 10));
	assert_int_equal(l.n, 1 + 2 + 6 + 1);
	bool low = false, high = false;
	for (size_t k = 0; k < l.n; k++) {
		if (l.w[k].role != P2PS_CHK_W_ALIAS)
			continue;
		/* Each probe holds the slot's place moved by its distance, guards included. */
		assert_int_equal(l.w[k].offset,
		                 l.w[l.slot].offset - (64 << 10) + (uint64_t)l.w[k].alias);
		assert_int_equal(l.w[k].bytes, 2 * MIB + 2 * (64 << 10));
		low |= l.w[k].offset == 0;
		high |= l.w[k].alias == (int64_t)(1024 * MIB);
	}
	assert_true(low && high);
	assert_true(l.w[l.scratch].offset + l.w[l.scratch].bytes <= l.bytes);
	assert_int_equal(l.bytes % (2 * MIB), 0);
	/* A probe closer than the slot and its guards would overlap them. */
	uint64_t close[] = {1 * MIB};
	assert_int_equal(p2ps_chk_layout_make(2 * MIB, 64 << 10, close, 1, &l, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_chk_layout_make(17, 0, NULL, 0, &l, &err), P2PS_EINVAL);
}

/* The saved form reads back into the same observations, and the report made again agrees. */
static void test_json_round_trip(void **state)
{
	struct run r;
	(void)state;
	setup(&r, 3);
	plant(&r, 2, 0, P2PS_CHK_CE, F_SHIFT, -(int64_t)(512 * MIB), 0);
	plant(&r, 0, 1, P2PS_CHK_PEER, F_DENY, 0, 0);
	go(&r, NULL);
	struct p2ps_strbuf out = {0};
	struct p2ps_error err = {0};
	struct p2ps_chk_render_opts ro = {.version = "test", .date = "2026-11-28T00:00:00Z"};
	assert_int_equal(p2ps_chk_render_json(&r.rep, &ro, &out, &err), 0);
	struct p2ps_chk_result *back = calloc(1, sizeof(*back));
	assert_non_null(back);
	if (p2ps_chk_result_read(out.s, out.len, back, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(back->n, 3);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			for (int p = 0; p < P2PS_CHK_PATHS && a != b; p++) {
				assert_int_equal(back->obs[a][b][p].form, r.res->obs[a][b][p].form);
				assert_int_equal(back->obs[a][b][p].displacement,
				                 r.res->obs[a][b][p].displacement);
			}
	assert_string_equal(back->nccl.transport[1][2], "P2P/direct pointer");
	struct p2ps_chk_report again;
	assert_int_equal(p2ps_chk_report_make(back, NULL, NULL, NULL, &again, &err), 0);
	assert_int_equal(again.exit_status, r.rep.exit_status);
	assert_string_equal(again.summary, r.rep.summary);
	p2ps_chk_report_free(&again);
	/* Not a report of this tool, or a broken one. */
	static const char unknown_path[] = "{\"tool\": \"p2p-bench check\", \"schema_version\": 1, "
	                                   "\"options\": {\"paths\": [\"teleport\"]}}";
	static const char *const bad[] = {
	        "{", "[]", "{\"tool\": \"p2p-bench\", \"schema_version\": 1}",
	        "{\"tool\": \"p2p-bench check\", \"schema_version\": 9}", unknown_path};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_int_equal(p2ps_chk_result_read(bad[k], strlen(bad[k]), back, &err),
		                 P2PS_EINVAL);
	free(back);
	p2ps_strbuf_free(&out);
	done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_cells),
	        cmocka_unit_test(test_layout),
	        cmocka_unit_test(test_all_paths_work),
	        cmocka_unit_test(test_zeros),
	        cmocka_unit_test(test_ones_and_lost),
	        cmocka_unit_test(test_shifted),
	        cmocka_unit_test(test_aliased_at_512_mib),
	        cmocka_unit_test(test_wrong_gpu),
	        cmocka_unit_test(test_corrupt_overrun_error),
	        cmocka_unit_test(test_hang_is_a_verdict),
	        cmocka_unit_test(test_hang_finding_gpus),
	        cmocka_unit_test(test_denied_is_unavailable),
	        cmocka_unit_test(test_one_gpu_and_none),
	        cmocka_unit_test(test_nccl_failures),
	        cmocka_unit_test(test_json_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
