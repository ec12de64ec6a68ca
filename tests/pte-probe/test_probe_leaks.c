/* SPDX-License-Identifier: MIT */
/* pte-probe's collect phase against the fake RM, with every call in turn made to fail (the
 * ioctl itself, or the RM status): whatever fails, the fake's books must be empty after the
 * run — no object, descriptor, GPU mapping, CPU mapping or mmap left — and no parent freed
 * before its child. The same sweep with --peer on a two-GPU fake covers the peer path, and
 * without root the path that stops before reading tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_rm.h"
#include "p2pscope/probe.h"

struct sweep {
	unsigned gpus;
	bool peer, root;
};

static unsigned run_once(const struct sweep *s, unsigned fail_at, enum fake_fail mode, int *rc,
                         struct fake_rm *f)
{
	struct p2ps_rm_sys sys;
	fake_rm_init(f, &sys);
	f->gpus = s->gpus;
	f->root = s->root;
	f->fail_at = fail_at;
	f->fail_mode = mode;
	struct probe_run *run = calloc(1, sizeof(*run));
	assert_non_null(run);
	run->page_mask = ~0u;
	run->peer.asked = s->peer;
	run->peer.index = 1;
	struct p2ps_error err = {0};
	*rc = probe_collect(run, &sys, &err);
	if (*rc == 0)
		assert_int_equal(probe_compare(run, &err), 0);
	probe_run_cleanup(run);
	free(run);
	return f->calls;
}

/* The books are empty after every run, and the client released everything itself: RM's
 * own cleanup (a freed parent takes its subtree and the mappings of its memory; a closed
 * control descriptor takes the client) may only have been needed where the failed call
 * was itself a release (a free or an unmap). */
static void check_books(const struct fake_rm *f, unsigned k, enum fake_fail mode,
                        bool failed_release)
{
	if (fake_rm_live(f) || f->fds_open || f->dma_maps || f->cpu_maps || f->mmaps ||
	    (f->bad_frees && !failed_release))
		fail_msg("failing call %u (mode %d): %u objects, %d fds, %d GPU maps, %d CPU maps, "
		         "%d mmaps left, %u bad frees",
		         k, (int)mode, fake_rm_live(f), f->fds_open, f->dma_maps, f->cpu_maps,
		         f->mmaps, f->bad_frees);
	if (!failed_release && (f->implicit_frees || f->implicit_unmaps))
		fail_msg("failing call %u (mode %d): %u objects and %u mappings left for RM to "
		         "release",
		         k, (int)mode, f->implicit_frees, f->implicit_unmaps);
}

static void sweep(const struct sweep *s)
{
	struct fake_rm *f = malloc(sizeof(*f));
	assert_non_null(f);
	int rc;
	unsigned total = run_once(s, 0, FAKE_FAIL_NONE, &rc, f);
	assert_int_equal(rc, 0);
	check_books(f, 0, FAKE_FAIL_NONE, false);
	/* A clean run makes objects and mappings and frees each one. */
	assert_true(f->escapes_by_nr[0x2b] >= 8);
	assert_int_equal(f->escapes_by_nr[0x2b], f->escapes_by_nr[0x29]);
	assert_int_equal(f->escapes_by_nr[0x57], f->escapes_by_nr[0x58]);
	assert_true(total > 20);
	for (unsigned k = 1; k <= total; k++) {
		for (int mode = FAKE_FAIL_IOCTL; mode <= FAKE_FAIL_STATUS; mode++) {
			run_once(s, k, (enum fake_fail)mode, &rc, f);
			check_books(f, k, (enum fake_fail)mode, f->failed_release);
		}
	}
	free(f);
}

static void test_sweep_root(void **state)
{
	(void)state;
	struct sweep s = {.gpus = 1, .root = true};
	sweep(&s);
}

static void test_sweep_user(void **state)
{
	(void)state;
	struct sweep s = {.gpus = 1, .root = false};
	sweep(&s);
}

static void test_sweep_peer(void **state)
{
	(void)state;
	struct sweep s = {.gpus = 2, .peer = true, .root = true};
	sweep(&s);
}

/* The controls a run issues are all on the allow-list, and the peer ones only with --peer. */
static void test_controls_issued(void **state)
{
	(void)state;
	struct fake_rm *f = malloc(sizeof(*f));
	assert_non_null(f);
	int rc;
	struct sweep s = {.gpus = 2, .root = true};
	run_once(&s, 0, FAKE_FAIL_NONE, &rc, f);
	assert_int_equal(rc, 0);
	assert_int_equal(f->escapes_by_nr[0x503b & 0xff], 0);
	for (unsigned i = 0; i < f->n_controls; i++) {
		assert_non_null(p2ps_rm_ctrl_name(f->controls[i]));
		assert_int_not_equal(f->controls[i], P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_V2);
	}
	s.peer = true;
	run_once(&s, 0, FAKE_FAIL_NONE, &rc, f);
	bool caps = false;
	for (unsigned i = 0; i < f->n_controls; i++)
		caps |= f->controls[i] == P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_V2;
	assert_true(caps);
	free(f);
}

/* The NVLink fabric base: from NV50_P2P where the driver reports it (590+: the peer's,
 * p2lFabricP2PInfo; NVLINK_INVALID_FABRIC_ADDR means none), else to be taken from the
 * entries, and with no peer entry read (the fake's tables are empty) unknown. */
static void test_peer_fabric_source(void **state)
{
	(void)state;
	static const struct {
		const char *version;
		uint64_t gpa;
		enum probe_fabric_src src;
		uint64_t base;
	} cases[] = {
	        {"595.45.04", 0x8230000000000ull, PROBE_FABRIC_NV503B, 0x8230000000000ull},
	        {"590.48.01", UINT64_MAX, PROBE_FABRIC_NV503B, 0},
	        {"580.159.04", 0x8230000000000ull, PROBE_FABRIC_UNKNOWN, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_rm *f = calloc(1, sizeof(*f));
		struct probe_run *run = calloc(1, sizeof(*run));
		assert_non_null(f);
		assert_non_null(run);
		struct p2ps_rm_sys sys;
		fake_rm_init(f, &sys);
		char version[160];
		snprintf(version, sizeof(version),
		         "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release "
		         "Build\n",
		         cases[i].version);
		f->version = version;
		f->gpus = 2;
		f->root = true;
		f->fabric_gpa[0] = 0x8210000000000ull; /* this GPU's: never the one used */
		f->fabric_gpa[1] = cases[i].gpa;
		run->page_mask = ~0u;
		run->peer.asked = true;
		run->peer.index = 1;
		struct p2ps_error err = {0};
		assert_int_equal(probe_collect(run, &sys, &err), 0);
		assert_int_equal(probe_compare(run, &err), 0);
		assert_int_equal(run->peer.mode, GMMU_P2P_NVLINK);
		assert_int_equal(run->peer.fabric_src, cases[i].src);
		assert_int_equal(run->peer.fabric_base, cases[i].base);
		probe_run_cleanup(run);
		free(run);
		free(f);
	}
}

/* --peer on a one-GPU host: refused before anything is allocated under a device. */
static void test_peer_one_gpu(void **state)
{
	(void)state;
	struct fake_rm *f = malloc(sizeof(*f));
	assert_non_null(f);
	struct p2ps_rm_sys sys;
	fake_rm_init(f, &sys);
	struct probe_run *run = calloc(1, sizeof(*run));
	assert_non_null(run);
	run->page_mask = ~0u;
	run->peer.asked = true;
	run->peer.index = 1;
	struct p2ps_error err = {0};
	assert_int_equal(probe_collect(run, &sys, &err), P2PS_ENOENT);
	assert_non_null(strstr(err.msg, "--peer 1: needs a second GPU"));
	assert_int_equal(f->escapes_by_nr[0x2b], 1); /* the root client only */
	check_books(f, 0, FAKE_FAIL_NONE, false);
	probe_run_cleanup(run);
	free(run);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_sweep_root),   cmocka_unit_test(test_sweep_user),
	        cmocka_unit_test(test_sweep_peer),   cmocka_unit_test(test_controls_issued),
	        cmocka_unit_test(test_peer_one_gpu), cmocka_unit_test(test_peer_fabric_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
