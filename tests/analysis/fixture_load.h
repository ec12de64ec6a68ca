/* SPDX-License-Identifier: MIT */
/* Loading and analysing the real captures of the fixture tests: a committed fixture
 * that is missing fails (a skip would pass); files read whole; devices found by address. */
#ifndef P2PS_TEST_FIXTURE_LOAD_H
#define P2PS_TEST_FIXTURE_LOAD_H

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/render.h"
#include "p2ps_test.h"

#define MIB (1024ull * 1024)

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			char *nb = realloc(buf, cap);
			assert_non_null(nb);
			buf = nb;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static inline bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The absolute path of a fixture committed under tests/: it is part of the checkout,
 * so a missing one fails the test instead of skipping it (a skip would pass). */
static inline const char *repo_fixture(const char *rel)
{
	const char *root = p2ps_test_src_path(rel);
	if (!exists(root))
		fail_msg("%s: committed fixture missing", root);
	return root;
}

struct load {
	struct p2ps_host h;
	struct p2ps_analysis a;
};

static inline void load_peers(struct load *l, enum p2ps_host_backend_kind kind, const char *path,
                              const char *const *peers, size_t n_peers)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = kind, .path = path, .flags = P2PS_HOST_F_NO_NVML};
	struct p2ps_bdf bdfs[8];
	memset(l, 0, sizeof(*l));
	int rc = p2ps_host_load(&l->h, &src, &err);
	if (rc)
		fail_msg("load %s: %s", path, err.msg);
	assert_true(n_peers <= 8);
	for (size_t i = 0; i < n_peers; i++)
		assert_int_equal(p2ps_bdf_parse(peers[i], &bdfs[i]), 0);
	struct p2ps_analysis_opts o = {.peers = bdfs, .n_peers = n_peers};
	assert_int_equal(p2ps_analysis_run_opts(&l->h, &o, &l->a, &err), 0);
}

static inline void load(struct load *l, enum p2ps_host_backend_kind kind, const char *path)
{
	load_peers(l, kind, path, NULL, 0);
}

static inline void unload(struct load *l)
{
	p2ps_analysis_free(&l->a);
	p2ps_host_free(&l->h);
}

static inline int dev_index(const struct p2ps_host *h, const char *bdf)
{
	struct p2ps_bdf b;
	assert_int_equal(p2ps_bdf_parse(bdf, &b), 0);
	const struct p2ps_dev *d = p2ps_host_find(h, &b);
	assert_non_null(d);
	return (int)(d - h->devs);
}

#endif
