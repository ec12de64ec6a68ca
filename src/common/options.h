/* SPDX-License-Identifier: MIT */
/* p2pscope: the command-line option table every tool uses (bar-inspect, pte-decode,
 * pte-probe, p2p-bench).
 *
 * A tool describes each option once, as a row of struct p2ps_opt: its names, the name of
 * its argument, its help text and what it does. p2ps_opt_parse() builds getopt_long's
 * tables from the rows and calls the handlers; p2ps_opt_help() prints the options block of
 * --help from the same rows, so the help cannot miss an option or describe one that is not
 * there. Adding an option is adding a row (and, unless it only sets a flag, a handler).
 *
 * Not part of the installed libraries: tools link it as p2ps_options.
 */
#ifndef P2PS_OPTIONS_H
#define P2PS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* An option's handler: ctx is the tool's own state (p2ps_opt_parse's ctx), arg the
 * option's argument (NULL when it takes none). Returns 0, or -1 with one line (no
 * newline, no program name) in err. */
typedef int (*p2ps_opt_fn)(void *ctx, const char *arg, char *err, size_t err_size);

struct p2ps_opt {
	const char *name; /* long name, without "--" */
	int short_name;   /* -x, or 0 for none */
	const char *arg;  /* the argument's name in the help ("FILE"); NULL: takes none */
	const char *help; /* '\n' starts a continuation line, indented under the first */
	/* What the option does: the handler, or (handle NULL) a member of ctx at offset: */
	p2ps_opt_fn handle;
	size_t offset; /*   an option with an argument stores it there (a const char *); */
	unsigned bits; /*   a flag sets a bool there, or ORs bits (!= 0) into an unsigned */
};

/* The last three members of a row, for what the option does. */
#define P2PS_OPT_CALL(fn)              (fn), 0, 0
#define P2PS_OPT_FLAG(type, member)    NULL, offsetof(type, member), 0
#define P2PS_OPT_BITS(type, member, b) NULL, offsetof(type, member), (b)
#define P2PS_OPT_STRING(type, member)  NULL, offsetof(type, member), 0

/* A tool's (or a subcommand's) options. */
struct p2ps_opts {
	const struct p2ps_opt *opt;
	size_t n;
	int help_width;       /* column width of the "-x, --name ARG" part of the help */
	bool stop_at_operand; /* options end at the first operand (else GNU permutation) */
	bool no_operands;     /* an operand is an error ("unexpected argument") */
};

#define P2PS_OPTS_MAX 64 /* rows in one table */

/* The first two members of a table from an array of rows:
 * static const struct p2ps_opts t = {P2PS_OPTS_ROWS(rows), .help_width = 24}; */
#define P2PS_OPTS_ROWS(rows) .opt = (rows), .n = sizeof(rows) / sizeof((rows)[0])

/* Parses argv[1..argc-1] (argv[0] names the program or the subcommand) with the table,
 * calling the handlers with ctx. Returns the index in argv of the first operand (argc when
 * there is none), or a negative value with one line in err: P2PS_OPT_UNKNOWN for an option
 * the table does not have (argv[optind - 1]), -1 for a missing argument, an operand where
 * the table takes none, or what a handler said. Options may be given with "--name=value" or
 * "--name value"; "--" ends them. Resets getopt's state first, so a tool may parse several
 * times. */
#define P2PS_OPT_UNKNOWN (-2)

/* A hidden option every table has: given anywhere among the options, p2ps_opt_parse()
 * returns P2PS_OPT_TABLE and the tool prints p2ps_opt_table()'s text and exits 0
 * (p2ps_opt_print_table). The bash completion (completion/gen-completion.sh) and the
 * man-page test (tests/release/man_options_test.sh) are made from it. */
#define P2PS_OPT_TABLE_ARG "--p2ps-option-table"
#define P2PS_OPT_TABLE     (-3)
#define P2PS_OPTS_HELP_MAX 8192 /* enough for any of the tools' help blocks and tables */
int p2ps_opt_parse(const struct p2ps_opts *o, int argc, char **argv, void *ctx, char *err,
                   size_t err_size);

/* The table's rows into buf, one a line as NAME<TAB>SHORT (or -)<TAB>ARG (or
 * empty)<TAB>the first line of the help. Returns 0, or -1 when len was too small. */
int p2ps_opt_table(const struct p2ps_opts *o, char *buf, size_t len);

/* What a tool's main does with P2PS_OPT_TABLE: prints the rows; returns the exit status (0,
 * or 2 when they did not fit or stdout could not be written). The library only formats. */
static inline int p2ps_opt_print_table(const struct p2ps_opts *o)
{
	char buf[P2PS_OPTS_HELP_MAX];
	if (p2ps_opt_table(o, buf, sizeof(buf)) < 0)
		return 2;
	return fputs(buf, stdout) >= 0 && fflush(stdout) == 0 ? 0 : 2;
}

/* The options block of --help into buf: one line per option, "  -x, --name ARG" (or
 * "      --name ARG") padded to help_width, then the help text; continuation lines are
 * indented to the help column. Returns 0, or -1 when len was too small (buf then holds
 * what fitted). P2PS_OPTS_HELP_MAX is enough for any of the tools' tables. */
int p2ps_opt_help(const struct p2ps_opts *o, char *buf, size_t len);

#endif
