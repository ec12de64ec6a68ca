/* SPDX-License-Identifier: MIT */
/* pte-decode: the shared options, option parsing with its errors, and standard output
 * (pte_decode.h). */
#include "pte_decode.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pd_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "pte-decode%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return PD_EXIT_BAD;
}

int pd_fail_in(const struct pd_common *c, const char *fmt, ...)
{
	char msg[P2PS_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return c->dump ? pd_fail(NULL, "%s: %s", c->cmd, msg) : pd_fail(c->cmd, "%s", msg);
}

int pd_lib_err(int rc, const struct p2ps_error *e, char *err, size_t err_size)
{
	if (rc)
		snprintf(err, err_size, "%s", e->msg);
	return rc ? -1 : 0;
}

/* --chip and --format: one of them, looked up with lookup. */
static int set_format(void *ctx, const char *arg,
                      int (*lookup)(const char *, const struct gmmu_format **, struct p2ps_error *),
                      char *err, size_t err_size)
{
	struct pd_common *c = ctx;
	struct p2ps_error e = {0};
	const struct gmmu_format *f;
	if (pd_lib_err(lookup(arg, &f, &e), &e, err, err_size))
		return -1;
	if (c->fmt && c->fmt != f)
		return snprintf(err, err_size, "give --chip or --format, not both"), -1;
	c->fmt = f;
	return 0;
}

int pd_opt_chip(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct pd_common *c = ctx;
	if (set_format(ctx, arg, gmmu_chip_lookup, err, err_size))
		return -1;
	c->chip = gmmu_chip_find(arg);
	return 0;
}

int pd_opt_format(void *ctx, const char *arg, char *err, size_t err_size)
{
	return set_format(ctx, arg, gmmu_format_lookup, err, err_size);
}

int pd_opt_entry(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct pd_common *c = ctx;
	struct p2ps_error e = {0};
	c->entry_set = true;
	return pd_lib_err(gmmu_entry_type_parse(arg, &c->entry, &e), &e, err, err_size);
}

/* The command whose table has the long option named at the start of s ("--mode" or
 * "--mode=x"), or NULL. */
static const char *command_of_option(const char *s)
{
	static const struct {
		const char *cmd;
		const struct p2ps_opts *opts;
	} all[] = {{"encode", &pd_opts_encode},     {"decode", &pd_opts_decode},
	           {"p2p", &pd_opts_p2p},           {"formats", &pd_opts_formats},
	           {"decode --raw", &pd_opts_dump}, {"verify", &pd_opts_verify}};
	if (strncmp(s, "--", 2))
		return NULL;
	size_t n = strcspn(s + 2, "=");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		for (size_t k = 0; k < all[i].opts->n; k++)
			if (strlen(all[i].opts->opt[k].name) == n &&
			    !strncmp(all[i].opts->opt[k].name, s + 2, n))
				return all[i].cmd;
	return NULL;
}

int pd_parse(const struct p2ps_opts *opts, const char *usage, int argc, char **argv,
             struct pd_common *c)
{
	char err[P2PS_ERROR_MSG_MAX];
	int first = p2ps_opt_parse(opts, argc, argv, c, err, sizeof(err));
	if (first == P2PS_OPT_TABLE)
		exit(p2ps_opt_print_table(opts));
	if (first < 0) {
		/* An option of another command: say whose it is. */
		const char *bad = optind > 0 && optind <= argc ? argv[optind - 1] : "";
		const char *owner = first == P2PS_OPT_UNKNOWN ? command_of_option(bad) : NULL;
		if (owner)
			pd_fail_in(c, "option not valid here: %s (an option of pte-decode %s)", bad,
			           owner);
		else
			pd_fail_in(c, "%s", err);
		return -1;
	}
	if (c->help) {
		pd_usage(opts, usage);
		return 0;
	}
	return first;
}

void pd_usage(const struct p2ps_opts *opts, const char *usage)
{
	char help[P2PS_OPTS_HELP_MAX];
	p2ps_opt_help(opts, help, sizeof(help));
	fputs(usage, stdout);
	fputs(help, stdout);
}

int pd_need_format(const struct pd_common *c)
{
	if (c->chip && c->chip->note)
		fprintf(stderr, "pte-decode %s: note: %s: %s\n", c->cmd, c->chip->name,
		        c->chip->note);
	if (c->fmt)
		return 0;
	pd_fail_in(c, "--chip CHIP or --format v2|v3 is required");
	return -1;
}

static int write_stdout(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	return fwrite(s, 1, n, stdout) == n ? 0 : -1;
}

static char out_block[1 << 20];
static struct gmmu_out out;

struct gmmu_out *pd_out_begin(void)
{
	gmmu_out_init(&out, out_block, sizeof(out_block), write_stdout, NULL);
	return &out;
}

int pd_out_end(const char *cmd)
{
	if (gmmu_out_flush(&out) < 0 || fflush(stdout) || ferror(stdout))
		return pd_fail(cmd, "writing standard output: %s", strerror(errno));
	return 0;
}
