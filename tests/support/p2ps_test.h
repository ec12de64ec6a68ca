/* Helpers shared by the cmocka tests. */
#ifndef P2PS_TEST_H
#define P2PS_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Path of a file in the source tree, from P2PS_SOURCE_DIR set by ctest.
 * Returns a static buffer (overwritten by the next call). */
static inline const char *p2ps_test_src_path(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("P2PS_SOURCE_DIR");
	snprintf(buf, sizeof(buf), "%s/%s", top ? top : ".", rel);
	return buf;
}

/* Path under the shared reference folder beside the checkout (../shared). */
static inline const char *p2ps_test_shared_path(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("P2PS_SOURCE_DIR");
	snprintf(buf, sizeof(buf), "%s/../shared/%s", top ? top : ".", rel);
	return buf;
}

/* ctest's SKIP_RETURN_CODE for test programs that need ../shared (set it on the test). */
#define P2PS_TEST_SKIPPED 77

/* For a test program whose cases all read the shared reference folder: returns 0 when
 * ../shared/REL exists. Otherwise it says so on stdout and returns P2PS_TEST_SKIPPED
 * ("SKIPPED: ...", reported by ctest as skipped), or, under CI=true, where the folder
 * must be present, "FAILED: ..." and 1: never a silent pass. main() returns the value. */
static inline int p2ps_test_need_shared(const char *rel, const char *what)
{
	FILE *f = fopen(p2ps_test_shared_path(rel), "r");
	if (f) {
		fclose(f);
		return 0;
	}
	const char *ci = getenv("CI");
	bool in_ci = ci && !strcmp(ci, "true");
	printf("%s: ../shared/%s is absent: %s %s\n", in_ci ? "FAILED" : "SKIPPED", rel, what,
	       in_ci ? "cannot run (CI=true needs ../shared)" : "not run");
	return in_ci ? 1 : P2PS_TEST_SKIPPED;
}

#endif
