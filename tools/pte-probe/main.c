/* SPDX-License-Identifier: MIT */
/* pte-probe: reads the page-table entries the running NVIDIA driver wrote for the probe's
 * own mappings and checks each one, leaf and directory, against libgmmu's model of the
 * driver. See docs/pte-probe.md.
 *
 * Exit status: 0 every entry agrees; 1 an entry differs (or a page has no entry, an entry
 * nothing explains, or GET_PTE_INFO's decoded fields differ from the model); 2 the probe could not
 * run (one line on stderr); 3 a partial report: nothing differs, but not everything could be
 * checked (not root, a mapping the driver refused, tables that could not be read). */
#include "p2pscope/probe.h"

#include "options.h"
#include "p2pscope/parse.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

struct opts {
	unsigned gpu;
	int peer; /* -1: none */
	unsigned page_mask;
	enum p2ps_nv_flavor flavor;
	unsigned series;
	const char *chip, *record, *replay, *root;
	bool json, help, version, excluded;
};

/* The controls the RM library refuses by name (docs/pte-probe.md prints this list). */
static void print_excluded(void)
{
	for (size_t i = 0; i < p2ps_rm_excluded_count(); i++) {
		const struct p2ps_rm_excluded *x = p2ps_rm_excluded_at(i);
		printf("0x%08x  %-42s %s\n", x->cmd, x->name, x->why);
	}
}

/* A GPU index in the driver's order. */
static int parse_index(const char *s, unsigned *out)
{
	uint64_t v;
	if (p2ps_parse_uint(s, P2PS_RM_MAX_CARDS - 1, &v))
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int opt_gpu(void *ctx, const char *arg, char *err, size_t err_size)
{
	if (parse_index(arg, &((struct opts *)ctx)->gpu))
		return snprintf(err, err_size, "--gpu: '%s' is not a GPU index", arg), -1;
	return 0;
}

static int opt_peer(void *ctx, const char *arg, char *err, size_t err_size)
{
	unsigned v;
	if (parse_index(arg, &v))
		return snprintf(err, err_size, "--peer: '%s' is not a GPU index", arg), -1;
	((struct opts *)ctx)->peer = (int)v;
	return 0;
}

/* --page-sizes 4K,64K,2M: sizes the RM API maps (128K is the big page of a GPU that runs
 * with 128 KiB big pages: the same bit as 64K). */
static int opt_page_sizes(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct opts *o = ctx;
	char buf[128];
	o->page_mask = 0;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t size;
		unsigned shift = 0;
		if (!p2ps_parse_size(t, &size) && size && !(size & (size - 1)))
			shift = (unsigned)__builtin_ctzll(size);
		if (shift == 17)
			shift = 16;
		if (!shift || !probe_plan_has_page(shift)) {
			o->page_mask = 0;
			break;
		}
		o->page_mask |= 1u << shift;
	}
	if (!o->page_mask)
		return snprintf(err, err_size,
		                "--page-sizes: '%s' is not a list of 4K, 64K, 128K, 2M, 512M", arg),
		       -1;
	return 0;
}

static int opt_flavor(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct p2ps_error e = {0};
	if (p2ps_nv_flavor_parse(arg, strlen(arg), &((struct opts *)ctx)->flavor, &e))
		return snprintf(err, err_size, "--flavor: %s", e.msg), -1;
	return 0;
}

static int opt_series(void *ctx, const char *arg, char *err, size_t err_size)
{
	uint64_t v;
	if (p2ps_parse_uint(arg, 9999, &v) || v < 100)
		return snprintf(err, err_size,
		                "--series: '%s' is not a driver series (the first number of a "
		                "driver "
		                "version)",
		                arg),
		       -1;
	((struct opts *)ctx)->series = (unsigned)v;
	return 0;
}

#define CALL(fn)       P2PS_OPT_CALL(fn)
#define FLAG(member)   P2PS_OPT_FLAG(struct opts, member)
#define STRING(member) P2PS_OPT_STRING(struct opts, member)

static const struct p2ps_opt options[] = {
        {"gpu", 0, "N", "GPU index in the driver's order (default 0)", CALL(opt_gpu)},
        {"peer", 0, "N",
         "also map GPU N's memory through a P2P object; this changes the driver's\n"
         "peer state while the run lasts",
         CALL(opt_peer)},
        {"page-sizes", 0, "LIST", "e.g. 4K,64K,2M,512M (default: every size the chip has)",
         CALL(opt_page_sizes)},
        {"chip", 0, "NAME", "libgmmu chip name when the driver's is not known", STRING(chip)},
        {"flavor", 0, "FLAVOR",
         "whose driver wrote the peer entries: stock (default), tinygrad, aikitoria,\n"
         "duanyll (picks libgmmu's BAR1-P2P row and the PEER-field patch)",
         CALL(opt_flavor)},
        {"series", 0, "N",
         "judge the peer entries by driver series N's row (default: the loaded\n"
         "driver's)",
         CALL(opt_series)},
        {"json", 0, NULL, "JSON report instead of text", FLAG(json)},
        {"record", 0, "FILE", "save every request and response to FILE (JSON)", STRING(record)},
        {"replay", 0, "FILE", "answer from a recorded FILE instead of the driver", STRING(replay)},
        {"root", 0, "DIR", "look for /proc and /dev under DIR (tests)", STRING(root)},
        {"excluded", 0, NULL, "list the RM controls pte-probe never issues, and why",
         FLAG(excluded)},
        {"help", 'h', NULL, "this help", FLAG(help)},
        {"version", 'V', NULL, "print the version and the build", FLAG(version)},
};
static const struct p2ps_opts option_table = {P2PS_OPTS_ROWS(options), .help_width = 24,
                                              .no_operands = true};

static void usage(FILE *f)
{
	fputs("usage: pte-probe [--gpu N] [--peer N] [--page-sizes LIST] [--chip NAME]\n"
	      "                 [--json] [--record FILE | --replay FILE]\n"
	      "Maps video and system memory into a VA space of its own, reads the entries the\n"
	      "NVIDIA driver wrote (as root) and compares each with libgmmu's model.\n"
	      "options:\n",
	      f);
	char help[P2PS_OPTS_HELP_MAX];
	p2ps_opt_help(&option_table, help, sizeof(help));
	fputs(help, f);
	fputs("Exit: 0 agrees, 1 differs, 2 error, 3 partial (e.g. not root).\n", f);
}

/* Returns -1 to go on and probe, or the exit status (--help, --version, --excluded, or 2
 * after one line on stderr). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	char err[256];
	*o = (struct opts){.peer = -1, .page_mask = ~0u};
	int first = p2ps_opt_parse(&option_table, argc, argv, o, err, sizeof(err));
	if (first == P2PS_OPT_TABLE)
		return p2ps_opt_print_table(&option_table);
	if (first < 0)
		return fprintf(stderr, "pte-probe: %s\n", err), 2;
	if (o->help)
		return usage(stdout), 0;
	if (o->version) {
		char version[256];
		fputs(p2ps_version_text(version, sizeof(version), "pte-probe"), stdout);
		return 0;
	}
	if (o->excluded)
		return print_excluded(), 0;
	if (o->record && o->replay)
		return fprintf(stderr, "pte-probe: --record and --replay exclude each other\n"), 2;
	if (o->peer >= 0 && (unsigned)o->peer == o->gpu)
		return fprintf(stderr, "pte-probe: --peer %d is the GPU probed (--gpu %u)\n",
		               o->peer, o->gpu),
		       2;
	return -1;
}

static int exit_status(const struct probe_run *run)
{
	if (run->differ || run->missing || run->extra || run->pte_info_differ)
		return 1;
	bool partial = !run->walked || run->unmodelled;
	for (unsigned i = 0; i < run->n_maps; i++)
		partial |= run->maps[i].state == PROBE_FAILED;
	return partial ? 3 : 0;
}

static void note_cmdline(int argc, char **argv, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < argc && o < len; i++) {
		int n = snprintf(buf + o, len - o, "%s%s", i ? " " : "", i ? argv[i] : "pte-probe");
		if (n < 0)
			break;
		o += (size_t)n;
	}
}

/* Runs the probe on sys and writes the report; returns the exit status. */
static int run_probe(const struct opts *o, const struct p2ps_rm_sys *sys, struct probe_run *run,
                     struct p2ps_error *err)
{
	run->gpu_index = o->gpu;
	run->page_mask = o->page_mask;
	run->chip_override = o->chip;
	run->flavor = o->flavor;
	run->series = o->series;
	run->peer.asked = o->peer >= 0;
	run->peer.index = o->peer >= 0 ? (unsigned)o->peer : 0;
	if (probe_collect(run, sys, err))
		return 2;
	if (probe_compare(run, err))
		return 2;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	struct p2ps_error err = {0};
	struct p2ps_rm_linux lx;
	struct p2ps_rm_sys sys;
	p2ps_rm_sys_linux(&sys, &lx, o.root, -1);
	struct p2ps_rm_capture cap = {0};
	struct p2ps_rm_replay *replay = NULL;
	struct p2ps_rm_recorder *rec = NULL;
	char note[512];
	note_cmdline(argc, argv, note, sizeof(note));
	if (o.replay && (p2ps_rm_capture_load(o.replay, &cap, &err) ||
	                 p2ps_rm_replay_start(&replay, &cap, &sys, &err))) {
		fprintf(stderr, "pte-probe: %s\n", err.msg);
		p2ps_rm_capture_cleanup(&cap);
		return 2;
	}
	struct p2ps_rm_sys inner = sys;
	if (o.record && p2ps_rm_record_start(&rec, &inner, o.record, note, &sys, &err)) {
		fprintf(stderr, "pte-probe: %s\n", err.msg);
		return 2;
	}
	struct probe_run *run = calloc(1, sizeof(*run));
	int status = run ? run_probe(&o, &sys, run, &err) : 2;
	struct p2ps_error e2 = {0};
	if (rec && p2ps_rm_record_finish(rec, &e2) && status != 2) {
		err = e2;
		status = 2;
	}
	if (replay && p2ps_rm_replay_finish(replay, status == 2 ? &e2 : &err) && status != 2)
		status = 2;
	if (status == 2) {
		fprintf(stderr, "pte-probe: %s\n", run ? err.msg : "out of memory");
	} else if (o.json) {
		status = exit_status(run);
		if (probe_print_json(run, stdout, &err)) {
			fprintf(stderr, "pte-probe: %s\n", err.msg);
			status = 2;
		}
	} else {
		status = exit_status(run);
		probe_print_text(run, stdout);
	}
	if (run)
		probe_run_cleanup(run);
	free(run);
	p2ps_rm_capture_cleanup(&cap);
	return status;
}
