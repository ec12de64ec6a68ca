/* SPDX-License-Identifier: MIT */
/* Helpers shared by the cmocka tests. Include after <cmocka.h>.
 *
 * Files outside the repository (the shared reference folder, ../shared beside the
 * checkout, and system files such as pci.ids) may be absent on a developer's machine. A
 * test case that needs one asks for it through p2ps_test_shared_path() or
 * p2ps_test_need_file(); when it is missing the case is skipped with a line naming the
 * path, and main's `return p2ps_test_exit(cmocka_run_group_tests(...))` turns the whole
 * run into exit status 77, which ctest reports as skipped (cmake/P2psTesting.cmake sets
 * SKIP_RETURN_CODE). Under CI=true a missing file fails the case instead: CI always has
 * the folder, so a skip there would hide a test that never ran. */
#ifndef P2PS_TEST_H
#define P2PS_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The exit status ctest counts as "skipped" (the Automake convention). */
#define P2PS_TEST_SKIP_STATUS 77

/* Cases skipped because a file outside the repository is missing (one test per
 * executable, so one counter per run). */
static int p2ps_test_skipped;

/* Path of a file in the source tree, from P2PS_SOURCE_DIR set by ctest.
 * Returns a static buffer (overwritten by the next call). */
static inline const char *p2ps_test_src_path(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("P2PS_SOURCE_DIR");
	snprintf(buf, sizeof(buf), "%s/%s", top ? top : ".", rel);
	return buf;
}

/* True when the environment says this is a CI run (CI=true, as CI services set it). */
static inline bool p2ps_test_in_ci(void)
{
	const char *ci = getenv("CI");
	return ci && (!strcasecmp(ci, "true") || !strcmp(ci, "1") || !strcasecmp(ci, "yes"));
}

/* Returns when `path` exists. Otherwise skips the current case (or fails it under CI),
 * printing the path and `why`; never returns then. */
static inline void p2ps_test_need(const char *path, const char *why)
{
	struct stat st;
	if (stat(path, &st) == 0)
		return;
	if (p2ps_test_in_ci())
		fail_msg("%s missing (%s; CI=true: it must be present)", path, why);
	printf("SKIPPED: %s missing (%s)\n", path, why);
	p2ps_test_skipped++;
	skip();
}

/* A system file a Debian package provides (scripts/deps.d lists the package). */
static inline void p2ps_test_need_file(const char *path)
{
	p2ps_test_need(path, "install scripts/deps.txt and scripts/deps.d/*.txt");
}

/* Path under the shared reference folder (P2PS_SHARED_DIR, set by ctest; by default
 * ../shared beside the checkout). Skips the case when the file is absent (fails under
 * CI), so the path returned always exists. Static buffer, as above. */
static inline const char *p2ps_test_shared_path(const char *rel)
{
	static char buf[4096];
	const char *dir = getenv("P2PS_SHARED_DIR");
	const char *top = getenv("P2PS_SOURCE_DIR");
	if (dir)
		snprintf(buf, sizeof(buf), "%s/%s", dir, rel);
	else
		snprintf(buf, sizeof(buf), "%s/../shared/%s", top ? top : ".", rel);
	p2ps_test_need(buf, "shared test data, see CONTRIBUTING.md");
	return buf;
}

/* main's exit status: failed cases fail the run; otherwise a run in which a case was
 * skipped for a missing file is reported as skipped, never as passed. */
static inline int p2ps_test_exit(int failed)
{
	if (failed)
		return 1;
	if (p2ps_test_skipped) {
		printf("SKIPPED: %d case(s) could not run, see the SKIPPED lines above\n",
		       p2ps_test_skipped);
		return P2PS_TEST_SKIP_STATUS;
	}
	return 0;
}

#endif
