/* bar-inspect's two ways out, shared by main.c and vfio_cli.c: one error line with
 * exit status 2, and writing a finished report to stdout. */
#ifndef BAR_INSPECT_OUTPUT_H
#define BAR_INSPECT_OUTPUT_H

#include "p2pscope/render.h"

#define BI_EXIT_USAGE 2 /* bad usage or unreadable input */

/* Prints "bar-inspect: MSG" to stderr and returns BI_EXIT_USAGE. */
int bi_die(const char *msg);

/* Writes out to stdout and flushes it. Returns 0, or bi_die()'s status when the
 * buffer ran out of memory or the write failed. */
int bi_write_report(const struct p2ps_strbuf *out);

#endif
