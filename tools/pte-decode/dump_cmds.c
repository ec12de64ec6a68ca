/* SPDX-License-Identifier: MIT */
/* pte-decode: the dump-level commands — `decode` with --raw/--text/--mem inputs, and
 * `verify --expect SPEC.json` (docs/pte-dumps.md). The options become one request to
 * libgmmu-dump's pipeline (gmmu_dump_run), which reads, walks, summarizes, verifies and
 * renders; this file only checks the options and shows progress. */
#include "pte_decode.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "p2pscope/parse.h"

/* Inputs at least this large show progress when stderr is a terminal. */
#define PROGRESS_MIN_BYTES ((uint64_t)256 << 20)
#define PROGRESS_STEP      ((uint64_t)64 << 20)

struct dump_opts {
	struct pd_common c; /* first: the shared handlers take it */
	struct gmmu_dump_request rq;
	const char *level_arg;
	const char *mems[P2PS_OPTS_MAX]; /* --mem, in order */
	size_t n_mems;
	unsigned n_files; /* --raw and --text given */
	bool has_pdb, summary;
	/* progress on stderr */
	bool progress_on, progress_shown;
	uint64_t progress_next;
};

/* --raw and --text: the file and its kind (one of them, counted by check_opts). */
static int file_input(void *ctx, enum gmmu_dump_input input, const char *path)
{
	struct dump_opts *o = ctx;
	o->rq.input = input;
	o->rq.path = path;
	o->n_files++;
	return 0;
}

static int opt_raw(void *ctx, const char *arg, char *err, size_t err_size)
{
	(void)err, (void)err_size;
	return file_input(ctx, GMMU_DUMP_RAW, arg);
}

static int opt_text(void *ctx, const char *arg, char *err, size_t err_size)
{
	(void)err, (void)err_size;
	return file_input(ctx, GMMU_DUMP_TEXT, arg);
}

static int opt_mem(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct dump_opts *o = ctx;
	if (o->n_mems == P2PS_OPTS_MAX) {
		snprintf(err, err_size, "more than %d --mem images", P2PS_OPTS_MAX);
		return -1;
	}
	o->mems[o->n_mems++] = arg;
	return 0;
}

static int opt_pdb(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct dump_opts *o = ctx;
	char buf[64];
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	uint64_t pa[2];
	if (n >= sizeof(buf))
		return snprintf(err, err_size, "--pdb %s: address too long", arg), -1;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	if (p2ps_parse_hex(buf, 64, pa))
		return snprintf(err, err_size, "--pdb %s: '%s' is not a hex physical address", arg,
		                buf),
		       -1;
	o->rq.pdb = pa[0];
	o->rq.pdb_space = P2PS_MEM_VID;
	const char *a = colon ? colon + 1 : "vid";
	if (!strcasecmp(a, "vid") || !strcasecmp(a, "video") || !strcasecmp(a, "VIDEO_MEMORY"))
		o->rq.pdb_space = P2PS_MEM_VID;
	else if (!strcasecmp(a, "sys") || !strcasecmp(a, "sys_coh") ||
	         !strcasecmp(a, "sys_noncoh") || !strcasecmp(a, "SYSTEM_COHERENT_MEMORY") ||
	         !strcasecmp(a, "SYSTEM_NON_COHERENT_MEMORY"))
		o->rq.pdb_space = P2PS_MEM_SYS;
	else
		return snprintf(err, err_size, "--pdb %s: aperture '%s' is not vid or sys", arg, a),
		       -1;
	o->has_pdb = true;
	return 0;
}

static int opt_va(void *ctx, const char *arg, char *err, size_t err_size)
{
	uint64_t va[2];
	if (p2ps_parse_hex(arg, 64, va))
		return snprintf(err, err_size, "--va %s: not a hex address", arg), -1;
	((struct dump_opts *)ctx)->rq.va0 = va[0];
	return 0;
}

static int opt_big_page(void *ctx, const char *arg, char *err, size_t err_size)
{
	uint64_t size;
	if (p2ps_parse_size(arg, &size) || (size != 64u << 10 && size != 128u << 10))
		return snprintf(err, err_size, "--big-page %s: expected 64K or 128K", arg), -1;
	((struct dump_opts *)ctx)->rq.big_page_shift = size == 64u << 10 ? 16 : 17;
	return 0;
}

static int opt_max_diffs(void *ctx, const char *arg, char *err, size_t err_size)
{
	uint64_t v;
	if (p2ps_parse_uint(arg, ULONG_MAX, &v))
		return snprintf(err, err_size, "--max-diffs %s: expected a count", arg), -1;
	((struct dump_opts *)ctx)->rq.max_diffs = (unsigned long)v;
	return 0;
}

#define FLAG(member) P2PS_OPT_FLAG(struct dump_opts, member)
/* The rows decode and verify share; verify adds --expect and --max-diffs. */
#define DUMP_ROWS                                                                                  \
	PD_OPT_CHIP, PD_OPT_FORMAT,                                                                \
	        {"raw", 0, "FILE|-", "little-endian entries (8 bytes; 16 for dual-pde)",           \
	         P2PS_OPT_CALL(opt_raw)},                                                          \
	        {"text", 0, "FILE|-",                                                              \
	         "hex words: '0x7f97_94000001 ...', 'OFFSET: w w', # comments",                    \
	         P2PS_OPT_CALL(opt_text)},                                                         \
	        {"mem", 0, "[vid:|sys:]PA=FILE",                                                   \
	         "physical memory image (repeatable); walked from --pdb", P2PS_OPT_CALL(opt_mem)}, \
	        {"pdb", 0, "PA[:vid|:sys]", "root page directory: walk the whole hierarchy",       \
	         P2PS_OPT_CALL(opt_pdb)},                                                          \
	        PD_OPT_ENTRY("what --raw/--text entries are (default pte)"),                       \
	        {"level", 0, "NAME",                                                               \
	         "table level of --raw/--text entries (PT_SMALL, PT_BIG, PD0, PD1 ...):\n"         \
	         "sets the page size (default PT_SMALL)",                                          \
	         P2PS_OPT_STRING(struct dump_opts, level_arg)},                                    \
	        {"va", 0, "ADDR", "VA mapped by entry 0 of --raw/--text (default 0)",              \
	         P2PS_OPT_CALL(opt_va)},                                                           \
	        {"big-page", 0, "64K|128K", "big page size for PT_BIG (default 64K)",              \
	         P2PS_OPT_CALL(opt_big_page)},                                                     \
	        {"summary", 0, NULL, "coalesce runs of entries into ranges", FLAG(summary)},       \
	        {"all", 0, NULL, "walk: also list invalid non-zero PTEs", FLAG(rq.all)},           \
	        PD_OPT_JSON("JSON output"), PD_OPT_HELP

static const struct p2ps_opt dump_rows[] = {DUMP_ROWS};
static const struct p2ps_opt verify_rows[] = {
        DUMP_ROWS,
        {"expect", 0, "SPEC.json", "intended mappings (docs/pte-dumps.md)",
         P2PS_OPT_STRING(struct dump_opts, rq.expect)},
        {"max-diffs", 0, "N", "differences to list (default 50, 0 = all)",
         P2PS_OPT_CALL(opt_max_diffs)},
};
const struct p2ps_opts pd_opts_dump = {P2PS_OPTS_ROWS(dump_rows), .help_width = 26,
                                       .stop_at_operand = true};
const struct p2ps_opts pd_opts_verify = {P2PS_OPTS_ROWS(verify_rows), .help_width = 26,
                                         .stop_at_operand = true};

bool pd_args_name_dump(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--raw") || !strcmp(argv[i], "--text") ||
		    !strcmp(argv[i], "--mem") || !strncmp(argv[i], "--raw=", 6) ||
		    !strncmp(argv[i], "--text=", 7) || !strncmp(argv[i], "--mem=", 6))
			return true;
	return false;
}

/* The level and page size of --raw/--text entries. */
static int resolve_level(struct dump_opts *o)
{
	const struct gmmu_format *f = o->c.fmt;
	if (o->level_arg && !(o->rq.level = gmmu_level_find(f, o->level_arg))) {
		char names[128];
		return pd_fail(NULL, "--level %s: not a level of %s (%s)", o->level_arg, f->name,
		               gmmu_level_names(f, names, sizeof(names)));
	}
	if (!o->has_pdb && o->c.entry == GMMU_ENTRY_PTE &&
	    gmmu_dump_pte_level(f, o->rq.level, o->rq.big_page_shift, &o->rq.level,
	                        &o->rq.page_shift))
		return pd_fail(NULL, "--level %s: that level holds no PTEs",
		               o->level_arg ? o->level_arg : "?");
	if (o->rq.level && o->c.entry == GMMU_ENTRY_DUAL_PDE && !o->rq.level->dual)
		return pd_fail(NULL, "--level %s: dual PDEs live in the dual level only",
		               o->rq.level->name);
	return 0;
}

/* The combinations the handlers accepted one by one, checked together. */
static int check_opts(struct dump_opts *o)
{
	const char *cmd = o->c.cmd;
	bool verify = o->rq.output == GMMU_DUMP_VERIFY;
	if (pd_need_format(&o->c))
		return PD_EXIT_BAD;
	if (o->n_files + (o->n_mems || o->has_pdb) != 1)
		return pd_fail(NULL,
		               "%s: give exactly one input: --raw, --text, or --mem with --pdb",
		               cmd);
	if ((o->n_mems != 0) != o->has_pdb)
		return pd_fail(NULL,
		               "%s: --mem and --pdb go together (chunks of memory and the root "
		               "directory in them)",
		               cmd);
	if (verify && !o->rq.expect)
		return pd_fail(NULL, "verify: --expect SPEC.json is required");
	if (o->has_pdb && (o->c.entry_set || o->level_arg || o->rq.va0))
		return pd_fail(NULL,
		               "%s: --entry, --level and --va describe --raw/--text tables; a walk "
		               "finds them itself",
		               cmd);
	if (resolve_level(o))
		return PD_EXIT_BAD;
	if ((o->summary || verify) && !o->has_pdb && o->c.entry != GMMU_ENTRY_PTE)
		return pd_fail(NULL, "%s: %s needs PTEs (--entry pte) or a walk (--mem with --pdb)",
		               cmd, verify ? "verify" : "--summary");
	if (o->rq.all && !o->has_pdb)
		return pd_fail(NULL, "--all applies to walks (--mem with --pdb)");
	return 0;
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	struct dump_opts *o = ctx;
	if (!o->progress_on || done < o->progress_next || (total && total < PROGRESS_MIN_BYTES))
		return;
	if (total)
		fprintf(stderr, "\rpte-decode: %llu / %llu MiB", (unsigned long long)(done >> 20),
		        (unsigned long long)(total >> 20));
	else
		fprintf(stderr, "\rpte-decode: %llu MiB", (unsigned long long)(done >> 20));
	o->progress_next = done + PROGRESS_STEP;
	o->progress_shown = true;
}

static const char dump_usage[] =
        "usage: pte-decode decode (--chip CHIP | --format FMT) INPUT [options]\n"
        "inputs: --raw, --text, or --mem (repeatable) with --pdb\n"
        "options:\n";
static const char verify_usage[] =
        "usage: pte-decode verify (--chip CHIP | --format FMT) INPUT --expect SPEC.json "
        "[options]\n"
        "inputs: --raw, --text, or --mem (repeatable) with --pdb\n"
        "options:\n";

int pd_cmd_dump(int argc, char **argv)
{
	bool verify = !strcmp(argv[0], "verify");
	struct dump_opts o = {.c = {.cmd = argv[0], .dump = true, .entry = GMMU_ENTRY_PTE},
	                      .rq = {.max_diffs = 50},
	                      .progress_next = PROGRESS_MIN_BYTES};
	const struct p2ps_opts *opts = verify ? &pd_opts_verify : &pd_opts_dump;
	const char *usage = verify ? verify_usage : dump_usage;
	/* "--raw --help" must show help, not read a file named --help. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return pd_usage(opts, usage), 0;
	int first = pd_parse(opts, usage, argc, argv, &o.c);
	if (first < 0)
		return PD_EXIT_BAD;
	if (first < argc)
		return pd_fail(NULL,
		               "%s: unexpected argument '%s': values and file inputs do not mix",
		               o.c.cmd, argv[first]);
	o.rq.output = verify ? GMMU_DUMP_VERIFY : o.summary ? GMMU_DUMP_SUMMARY : GMMU_DUMP_ENTRIES;
	if (check_opts(&o))
		return PD_EXIT_BAD;
	o.rq.fmt = o.c.fmt;
	o.rq.entry = o.c.entry;
	o.rq.json = o.c.json;
	if (o.has_pdb) {
		o.rq.input = GMMU_DUMP_WALK;
		o.rq.mems = o.mems;
		o.rq.n_mems = o.n_mems;
	}
	o.progress_on = isatty(STDERR_FILENO);
	o.rq.progress = progress;
	o.rq.progress_ctx = &o;
	struct gmmu_dump_result res;
	struct p2ps_error err = {0};
	int rc = gmmu_dump_run(&o.rq, pd_out_begin(), &res, &err);
	if (o.progress_shown)
		fputs("\r\033[K", stderr); /* clear the progress line */
	int status = pd_out_end(NULL);
	if (rc)
		return pd_fail(NULL, "%s", err.msg[0] ? err.msg : p2ps_status_name(err.code));
	return status ? status : res.diffs ? PD_EXIT_DIFF : 0;
}
