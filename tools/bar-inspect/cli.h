/* SPDX-License-Identifier: MIT */
/* bar-inspect's ways out and its list syntax, shared by main.c and vfio_opts.c: one
 * error line with exit status 2, writing a finished report to stdout, and splitting a
 * comma-separated option argument. */
#ifndef BAR_INSPECT_CLI_H
#define BAR_INSPECT_CLI_H

#include <stddef.h>

#include "p2pscope/analysis.h"
#include "p2pscope/render.h"
#include "p2pscope/timings.h"

#define BI_EXIT_USAGE 2 /* bad usage or unreadable input */

/* --check: the exit status answers "is this host ready for P2P?" (pte-probe's scheme). */
#define BI_EXIT_READY   0 /* every pair judged is ready, or there is no pair */
#define BI_EXIT_BLOCKED 1 /* a pair has a blocker */
#define BI_EXIT_UNKNOWN 3 /* no blocker, but a verdict is unknown */

/* Prints "bar-inspect: MSG" to stderr and returns BI_EXIT_USAGE. */
int bi_die(const char *msg);

/* --check's exit status for one host's pairs: BI_EXIT_BLOCKED when one is not ready, else
 * BI_EXIT_UNKNOWN when one is unknown, else BI_EXIT_READY. */
int bi_check_status(const struct p2ps_analysis *an);

/* Writes out to stdout and flushes it. Returns 0, or bi_die()'s status when the
 * buffer ran out of memory or the write failed. */
int bi_write_report(const struct p2ps_strbuf *out);

/* --timings: one line per phase to stderr (milliseconds, runs) and their sum. */
void bi_print_timings(const struct p2ps_timings *t);

/* Calls each(ctx, token) for every comma-separated token of arg (empty tokens are
 * skipped) until one returns non-zero, and returns that. opt names the option in the
 * message when arg is too long. */
int bi_each_token(const char *opt, const char *arg, int (*each)(void *ctx, const char *token),
                  void *ctx, char *err, size_t err_size);

#endif
