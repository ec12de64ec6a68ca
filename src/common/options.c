/* SPDX-License-Identifier: MIT */
/* The command-line option table (options.h): getopt_long's tables and the --help lines
 * from one set of rows. */
#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value for row i: above every character, so rows never clash with the
 * characters getopt returns itself ('?', ':'). */
#define ROW_VALUE(i) (0x100 + (int)(i))

/* Builds getopt_long's tables from the rows. Returns 0, or -1 when the table is too big. */
static int build_tables(const struct p2ps_opts *o, struct option *longopts, char *shortopts)
{
	size_t ns = 0;
	if (o->n > P2PS_OPTS_MAX)
		return -1;
	if (o->stop_at_operand)
		shortopts[ns++] = '+';
	shortopts[ns++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < o->n; i++) {
		const struct p2ps_opt *r = &o->opt[i];
		longopts[i] = (struct option){r->name, r->arg ? required_argument : no_argument,
		                              NULL, ROW_VALUE(i)};
		if (r->short_name) {
			shortopts[ns++] = (char)r->short_name;
			if (r->arg)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
	longopts[o->n] = (struct option){0};
	return 0;
}

/* The row getopt_long's return value ch stands for, or NULL. */
static const struct p2ps_opt *row_of(const struct p2ps_opts *o, int ch)
{
	if (ch >= ROW_VALUE(0) && (size_t)(ch - ROW_VALUE(0)) < o->n)
		return &o->opt[ch - ROW_VALUE(0)];
	for (size_t i = 0; i < o->n; i++)
		if (o->opt[i].short_name && o->opt[i].short_name == ch)
			return &o->opt[i];
	return NULL;
}

/* Carries out one row: its handler, or the flag it sets. */
static int apply(const struct p2ps_opt *r, void *ctx, const char *arg, char *err, size_t err_size)
{
	if (r->handle)
		return r->handle(ctx, arg, err, err_size);
	if (r->arg)
		*(const char **)((char *)ctx + r->offset) = arg;
	else if (r->bits)
		*(unsigned *)((char *)ctx + r->offset) |= r->bits;
	else
		*(bool *)((char *)ctx + r->offset) = true;
	return 0;
}

/* True when P2PS_OPT_TABLE_ARG is among the options of argv (before any "--"). */
static bool wants_table(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], P2PS_OPT_TABLE_ARG))
			return true;
	}
	return false;
}

int p2ps_opt_table(const struct p2ps_opts *o, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < o->n; i++) {
		const struct p2ps_opt *r = &o->opt[i];
		int k = (int)strcspn(r->help, "\n");
		int n = snprintf(buf + used, len - used, "%s\t%c\t%s\t%.*s\n", r->name,
		                 r->short_name ? r->short_name : '-', r->arg ? r->arg : "", k,
		                 r->help);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	return 0;
}

int p2ps_opt_parse(const struct p2ps_opts *o, int argc, char **argv, void *ctx, char *err,
                   size_t err_size)
{
	if (wants_table(argc, argv))
		return P2PS_OPT_TABLE;
	struct option longopts[P2PS_OPTS_MAX + 1];
	char shortopts[2 * P2PS_OPTS_MAX + 3];
	if (build_tables(o, longopts, shortopts) < 0) {
		snprintf(err, err_size, "too many options (at most %d)", P2PS_OPTS_MAX);
		return -1;
	}
	optind = 0; /* 0, not 1: glibc then also forgets a previous parse's state */
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (ch == ':') {
			snprintf(err, err_size, "option %s needs an argument", argv[optind - 1]);
			return -1;
		}
		const struct p2ps_opt *r = row_of(o, ch);
		if (!r) {
			snprintf(err, err_size, "unknown option %s (try --help)", argv[optind - 1]);
			return P2PS_OPT_UNKNOWN;
		}
		if (apply(r, ctx, optarg, err, err_size) < 0)
			return -1;
	}
	if (o->no_operands && optind < argc) {
		snprintf(err, err_size, "unexpected argument '%s' (try --help)", argv[optind]);
		return -1;
	}
	return optind;
}

/* Appends to buf (len bytes, *n used); false once it no longer fits. */
static bool add(char *buf, size_t len, size_t *n, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static bool add(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = *n < len ? vsnprintf(buf + *n, len - *n, fmt, ap) : -1;
	va_end(ap);
	if (k < 0 || (size_t)k >= len - *n)
		return false;
	*n += (size_t)k;
	return true;
}

int p2ps_opt_help(const struct p2ps_opts *o, char *buf, size_t len)
{
	size_t n = 0;
	bool ok = len > 0;
	if (ok)
		buf[0] = '\0';
	for (size_t i = 0; ok && i < o->n; i++) {
		const struct p2ps_opt *r = &o->opt[i];
		char lhs[96];
		const char *sp = r->arg ? " " : "", *arg = r->arg ? r->arg : "";
		if (r->short_name)
			snprintf(lhs, sizeof(lhs), "-%c, --%s%s%s", r->short_name, r->name, sp,
			         arg);
		else
			snprintf(lhs, sizeof(lhs), "    --%s%s%s", r->name, sp, arg);
		ok = add(buf, len, &n, "  %-*s ", o->help_width, lhs);
		const char *h = r->help;
		do {
			size_t k = strcspn(h, "\n");
			ok = ok && add(buf, len, &n, "%.*s\n", (int)k, h);
			h += k + (h[k] == '\n');
			if (*h)
				ok = ok && add(buf, len, &n, "  %-*s ", o->help_width, "");
		} while (*h && ok);
	}
	return ok ? 0 : -1;
}
