/* SPDX-License-Identifier: MIT */
/* p2pscope: what every tool's --version prints — the release and how this binary was
 * built, so that a binary copied to a host names its origin:
 *
 *   bar-inspect 0.2.0
 *   build: commit 0123456789ab, x86_64, Release, dynamic
 *
 * The commit comes from the checkout at build time ("unknown" outside git, "-dirty" with
 * uncommitted changes; cmake/P2psGitCommit.cmake), the architecture from the compiler,
 * the build type and the linkage (dynamic, or static with the libraries linked in:
 * P2PS_STATIC) from CMake. Not part of the installed libraries: tools link it as
 * p2ps_version.
 */
#ifndef P2PS_VERSION_H
#define P2PS_VERSION_H

#include <stddef.h>

/* The build line's text after "build: ". */
const char *p2ps_build_description(void);

/* "TOOL VERSION\nbuild: ...\n" in buf (n bytes, truncated to fit); returns buf. The
 * tool prints it: library code never prints. */
const char *p2ps_version_text(char *buf, size_t n, const char *tool);

#endif
