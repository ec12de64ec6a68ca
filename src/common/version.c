/* SPDX-License-Identifier: MIT */
/* The tools' --version text (version.h). */
#include "version.h"

#include "p2ps_build_config.h"
#include "p2ps_git_commit.h"

#include <stdio.h>

#if !defined(P2PS_VERSION) || !defined(P2PS_BUILD_TYPE) || !defined(P2PS_LINKAGE)
#error "P2PS_VERSION, P2PS_BUILD_TYPE and P2PS_LINKAGE come from src/common/CMakeLists.txt"
#endif

/* The architecture the compiler built for (uname -m spelling). */
#if defined(__x86_64__)
#define P2PS_ARCH "x86_64"
#elif defined(__aarch64__)
#define P2PS_ARCH "aarch64"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define P2PS_ARCH "ppc64le"
#elif defined(__i386__)
#define P2PS_ARCH "i686"
#else
#define P2PS_ARCH "unknown architecture"
#endif

const char *p2ps_build_description(void)
{
	return "commit " P2PS_GIT_COMMIT ", " P2PS_ARCH ", " P2PS_BUILD_TYPE ", " P2PS_LINKAGE;
}

const char *p2ps_version_text(char *buf, size_t n, const char *tool)
{
	snprintf(buf, n, "%s %s\nbuild: %s\n", tool, P2PS_VERSION, p2ps_build_description());
	return buf;
}
