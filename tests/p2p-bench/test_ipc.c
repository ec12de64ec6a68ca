/* SPDX-License-Identifier: MIT */
/* p2p-bench --ipc's parent side (tools/p2p-bench/ipc.c) against fake_ipc_worker: worker
 * processes started and fed each other's buffers, descriptors passed over the socket,
 * cells timed and verified, failures named. The fake's rate for src -> dst is
 * 100 + 10 * src + dst GB/s (fake_ipc_worker.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench.h"
#include "ipc.h"

#ifndef FAKE_WORKER
#error "FAKE_WORKER must name the path of the fake worker"
#endif

static struct pb_options opts(void)
{
	return (struct pb_options){.size = 1u << 20,
	                           .reps = 4,
	                           .trials = 3,
	                           .lat_reps = 10,
	                           .warmup = 1,
	                           .bandwidth = true,
	                           .latency = true};
}

static void three_gpus(struct pb_result *r)
{
	memset(r, 0, sizeof(*r));
	r->n = 3;
	for (int i = 0; i < 3; i++)
		r->dev[i].ordinal = 4 + i; /* ordinals differ from indices on purpose */
}

static const struct pb_matrix *find(const struct pb_result *r, const char *key)
{
	for (int k = 0; k < r->nmat; k++)
		if (!strcmp(r->mat[k].key, key))
			return &r->mat[k];
	return NULL;
}

static double rate(int s, int d)
{
	return 100.0 + 10.0 * s + d;
}

static void check_values(const struct pb_result *r, const char *uni, const char *bi,
                         const char *lat, const char *sharing)
{
	const struct pb_matrix *u = find(r, uni), *b = find(r, bi), *l = find(r, lat);
	assert_non_null(u);
	assert_non_null(b);
	assert_non_null(l);
	assert_string_equal(u->sharing, sharing);
	assert_string_equal(u->base, "ce_uni_p2p_on");
	assert_string_equal(b->base, "ce_bi_p2p_on");
	assert_string_equal(l->base, "ce_lat_p2p_on");
	assert_true(b->bidirectional);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			if (i == j) {
				assert_true(isnan(*pb_cell(r, u, i, j)));
				assert_true(isnan(*pb_cell(r, l, i, j)));
				continue;
			}
			assert_float_equal(*pb_cell(r, u, i, j), rate(i, j), 1e-6);
			/* Both directions at once: the rates add. */
			assert_float_equal(*pb_cell(r, b, i, j), rate(i, j) + rate(j, i), 1e-6);
			/* 16 bytes at rate GB/s, in microseconds. */
			assert_float_equal(*pb_cell(r, l, i, j), 16.0 / (rate(i, j) * 1e9) * 1e6,
			                   1e-9);
		}
}

static void test_cuda_ipc_cells(void **state)
{
	struct pb_options o = opts();
	struct pb_result r;
	struct p2ps_error err;
	(void)state;
	three_gpus(&r);
	p2ps_error_clear(&err);
	assert_int_equal(pb_ipc_measure(&o, &r, PB_IPC_RUNTIME, FAKE_WORKER, &err), 0);
	assert_int_equal(r.nmat, 3);
	check_values(&r, "ipc_ce_uni", "ipc_ce_bi", "ipc_ce_lat", "cuda_ipc");
	/* 6 ordered pairs x 3 trials: one verification per direction. */
	assert_int_equal(r.copies_verified, 6 * 3 + 6 * 3 * 2 + 6 * 3);
	assert_int_equal(r.words_bad, 0);
	pb_result_cleanup(&r);
}

static void test_posix_fd_cells(void **state)
{
	struct pb_options o = opts();
	struct pb_result r;
	struct p2ps_error err;
	(void)state;
	three_gpus(&r);
	p2ps_error_clear(&err);
	/* The fake refuses an OPEN without a descriptor: passing fails the run. */
	assert_int_equal(pb_ipc_measure(&o, &r, PB_IPC_POSIX_FD, FAKE_WORKER, &err), 0);
	check_values(&r, "ipc_fd_ce_uni", "ipc_fd_ce_bi", "ipc_fd_ce_lat", "posix_fd");
	pb_result_cleanup(&r);
}

static void test_bad_words_counted(void **state)
{
	struct pb_options o = opts();
	struct pb_result r;
	struct p2ps_error err;
	(void)state;
	o.latency = false;
	three_gpus(&r);
	p2ps_error_clear(&err);
	setenv("P2PS_FAKE_IPC_BAD", "1", 1);
	assert_int_equal(pb_ipc_measure(&o, &r, PB_IPC_RUNTIME, FAKE_WORKER, &err), 0);
	unsetenv("P2PS_FAKE_IPC_BAD");
	/* Worker 1 receives in uni cells 0->1, 2->1 and both ways in bi cells with 1. */
	assert_int_equal(r.words_bad, 2 * 3 + 4 * 3);
	assert_int_equal(r.nmat, 2);
	pb_result_cleanup(&r);
}

static void test_failures_named(void **state)
{
	struct pb_options o = opts();
	struct pb_result r;
	struct p2ps_error err;
	(void)state;
	three_gpus(&r);
	p2ps_error_clear(&err);
	setenv("P2PS_FAKE_IPC_FAIL", "2", 1);
	assert_int_not_equal(pb_ipc_measure(&o, &r, PB_IPC_RUNTIME, FAKE_WORKER, &err), 0);
	unsetenv("P2PS_FAKE_IPC_FAIL");
	assert_non_null(strstr(err.msg, "device 6"));
	assert_non_null(strstr(err.msg, "planted failure"));
	pb_result_cleanup(&r);

	three_gpus(&r);
	p2ps_error_clear(&err);
	setenv("P2PS_FAKE_IPC_EXIT", "0", 1);
	assert_int_not_equal(pb_ipc_measure(&o, &r, PB_IPC_RUNTIME, FAKE_WORKER, &err), 0);
	unsetenv("P2PS_FAKE_IPC_EXIT");
	assert_non_null(strstr(err.msg, "device 4"));
	assert_non_null(strstr(err.msg, "the worker ended"));
	pb_result_cleanup(&r);

	three_gpus(&r);
	p2ps_error_clear(&err);
	assert_int_not_equal(pb_ipc_measure(&o, &r, PB_IPC_RUNTIME, "/nonexistent/p2p-bench", &err),
	                     0);
	assert_non_null(strstr(err.msg, "the worker ended"));
	pb_result_cleanup(&r);
}

static void test_single_gpu_nothing(void **state)
{
	struct pb_options o = opts();
	struct pb_result r;
	struct p2ps_error err;
	(void)state;
	three_gpus(&r);
	r.n = 1;
	p2ps_error_clear(&err);
	assert_int_equal(pb_ipc_measure(&o, &r, PB_IPC_RUNTIME, FAKE_WORKER, &err), 0);
	assert_int_equal(r.nmat, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_cuda_ipc_cells),     cmocka_unit_test(test_posix_fd_cells),
	        cmocka_unit_test(test_bad_words_counted),  cmocka_unit_test(test_failures_named),
	        cmocka_unit_test(test_single_gpu_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
