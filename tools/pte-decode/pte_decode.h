/* SPDX-License-Identifier: MIT */
/* pte-decode: what the subcommands share — the options every command has (--chip,
 * --format, --entry, --json, --help), their handlers, the output block on standard output
 * and the error lines. The commands themselves: value_cmds.c (encode, decode of values,
 * p2p, formats) and dump_cmds.c (decode of --raw/--text/--mem inputs, verify); everything
 * they print is rendered by libgmmu-dump (p2pscope/gmmu_render.h).
 *
 * Exit status of every command: 0 ok, 1 differences (verify), 2 bad usage or input. */
#ifndef PTE_DECODE_H
#define PTE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "options.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_render.h"

#define PD_EXIT_DIFF 1
#define PD_EXIT_BAD  2

/* The options every command has; the first member of each command's own state, so that
 * the shared handlers can take any command's state as a struct pd_common. */
struct pd_common {
	const char *cmd; /* "encode", "decode", ... */
	bool dump;       /* errors say "pte-decode: CMD: ..." (the dump commands' style) */
	const struct gmmu_format *fmt;
	const struct gmmu_chip *chip; /* --chip's row (NULL with --format) */
	enum gmmu_entry_type entry;
	bool entry_set;
	bool json;
	bool help;
};

int pd_opt_chip(void *ctx, const char *arg, char *err, size_t err_size);
int pd_opt_format(void *ctx, const char *arg, char *err, size_t err_size);
int pd_opt_entry(void *ctx, const char *arg, char *err, size_t err_size);

/* Rows of the shared options, for the commands' tables. */
#define PD_OPT_CHIP                                                                                \
	{                                                                                          \
		"chip", 0, "CHIP",                                                                 \
		        "a chip libgmmu knows (AD102, GB202, ...: 'pte-decode formats')",          \
		        P2PS_OPT_CALL(pd_opt_chip)                                                 \
	}
#define PD_OPT_FORMAT                                                                              \
	{                                                                                          \
		"format", 0, "FMT",                                                                \
		        "a format instead of a chip: v2, v3 or a name 'pte-decode formats' lists", \
		        P2PS_OPT_CALL(pd_opt_format)                                               \
	}
#define PD_OPT_ENTRY(what)                                                                         \
	{                                                                                          \
		"entry", 0, "pte|pde|dual-pde", what, P2PS_OPT_CALL(pd_opt_entry)                  \
	}
#define PD_OPT_JSON(what)                                                                          \
	{                                                                                          \
		"json", 0, NULL, what, P2PS_OPT_FLAG(struct pd_common, json)                       \
	}
#define PD_OPT_HELP                                                                                \
	{                                                                                          \
		"help", 'h', NULL, "this help", P2PS_OPT_FLAG(struct pd_common, help)              \
	}

/* The commands' tables (value_cmds.c, dump_cmds.c). */
extern const struct p2ps_opts pd_opts_encode, pd_opts_decode, pd_opts_p2p, pd_opts_formats,
        pd_opts_dump, pd_opts_verify;

/* Parses a command's options into ctx (whose first member is its struct pd_common).
 * Returns the index of the first operand, or -1 after printing the error line (an option
 * that belongs to another command is named as such). With --help, prints usage and the
 * options and returns 0 with c->help set. */
int pd_parse(const struct p2ps_opts *opts, const char *usage, int argc, char **argv,
             struct pd_common *c);

/* A handler's end: when rc says a library call failed, its message into err and -1. */
int pd_lib_err(int rc, const struct p2ps_error *e, char *err, size_t err_size);

/* A command's --help: its usage text, then its options. */
void pd_usage(const struct p2ps_opts *opts, const char *usage);

/* The format from --chip or --format, or -1 after printing that one is needed. A chip
 * whose row carries a note (its formats are the driver's assignment, its own header not
 * public) has it printed on standard error, so that outputs stay as they are. */
int pd_need_format(const struct pd_common *c);

/* "pte-decode CMD: MSG" (cmd NULL: "pte-decode: MSG") on stderr; returns PD_EXIT_BAD. */
int pd_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same in the command's style (struct pd_common.dump). */
int pd_fail_in(const struct pd_common *c, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* The output block on standard output: pd_out_begin() sets it up (block-buffered), and
 * pd_out_end() writes what is left and returns 0, or PD_EXIT_BAD after an error line when
 * standard output could not be written. */
struct gmmu_out *pd_out_begin(void);
int pd_out_end(const char *cmd);

/* The commands; argv[0] is the command's name. */
int pd_cmd_encode(int argc, char **argv);
int pd_cmd_decode_values(int argc, char **argv);
int pd_cmd_p2p(int argc, char **argv);
int pd_cmd_formats(int argc, char **argv);
int pd_cmd_dump(int argc, char **argv); /* decode with --raw/--text/--mem, and verify */

/* True when argv (the arguments after "decode") names a file input (--raw, --text,
 * --mem). */
bool pd_args_name_dump(int argc, char **argv);

#endif
