/* Helpers shared by the cmocka tests. */
#ifndef P2PS_TEST_H
#define P2PS_TEST_H

#include <stdio.h>
#include <stdlib.h>

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

#endif
