/* SPDX-License-Identifier: MIT */
/* p2p-bench: GPU peer-to-peer bandwidth and latency, measured with CUDA and set
 * beside bar-inspect's view of the links.
 *
 *   p2p-bench [options]                         measure (needs a CUDA GPU)
 *   p2p-bench report --bench B.json --host H.json   join saved results (no GPU)
 *   p2p-bench check [options]                   the functional P2P check (check_main.c)
 *
 * Exit status: 0 success; 1 a measurement failed or data did not verify;
 * 2 bad usage or input, or no CUDA GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check_cuda.h"
#include "check_main.h"
#include "ipc.h"
#include "json_read.h"
#include "options.h"
#include "p2pscope/parse.h"
#include "output.h"
#include "report.h"
#include "version.h"

/* A saved report read back (--bench, --host): a few MiB on a large host. */
#define REPORT_MAX_BYTES ((size_t)64 << 20)

static const char usage_text[] =
        "usage: p2p-bench [options]\n"
        "       p2p-bench report --bench FILE --host FILE [--json]\n"
        "       p2p-bench check [options]\n"
        "\n"
        "Measures GPU peer-to-peer transfers: device list with PCI addresses, peer access\n"
        "and P2P attributes per pair, unidirectional and bidirectional bandwidth matrices\n"
        "with peer access disabled and enabled, by copy engine (cudaMemcpyPeerAsync) and\n"
        "by an SM copy kernel, and latency matrices. Every copy is verified.\n"
        "\n";
static const char report_text[] =
        "\n"
        "report: joins a saved `p2p-bench --json` (--bench) with `bar-inspect --json`\n"
        "(--host) by PCI address; needs no GPU.\n"
        "check: does P2P work on every pair and path, set beside the prediction\n"
        "(p2p-bench check --help).\n";

/* What the command line decides besides the measurement's own options. */
struct cli {
	struct pb_options o;
	const char *host_path, *bench_path;
	bool json, help, version;
	bool sm_read_off, bandwidth_off, latency_off, ipc;
	unsigned ipc_kinds; /* --ipc-handle: PB_IPC_* bits, 0 = both */
};

/* An integer in [lo, hi] into *dst, or the option's message in err. */
static int int_arg(const char *arg, uint64_t lo, uint64_t hi, int *dst, const char *what, char *err,
                   size_t err_size)
{
	uint64_t v;
	if (p2ps_parse_uint(arg, hi, &v) || v < lo) {
		snprintf(err, err_size, "bad %s '%s' (%llu..%llu)", what, arg,
		         (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*dst = (int)v;
	return 0;
}

static int opt_reps(void *ctx, const char *arg, char *err, size_t err_size)
{
	return int_arg(arg, 1, 1000, &((struct cli *)ctx)->o.reps, "--reps", err, err_size);
}

static int opt_trials(void *ctx, const char *arg, char *err, size_t err_size)
{
	return int_arg(arg, 1, 64, &((struct cli *)ctx)->o.trials, "--trials", err, err_size);
}

static int opt_lat_reps(void *ctx, const char *arg, char *err, size_t err_size)
{
	return int_arg(arg, 1, 10000, &((struct cli *)ctx)->o.lat_reps, "--lat-reps", err,
	               err_size);
}

static int opt_pp_iters(void *ctx, const char *arg, char *err, size_t err_size)
{
	int v;
	if (int_arg(arg, 1, 1000000, &v, "--pp-iters", err, err_size))
		return -1;
	((struct cli *)ctx)->o.pp_iters = (unsigned)v;
	return 0;
}

static int opt_sm_blocks(void *ctx, const char *arg, char *err, size_t err_size)
{
	return int_arg(arg, 1, 1 << 20, &((struct cli *)ctx)->o.sm_blocks, "--sm-blocks", err,
	               err_size);
}

static int opt_warmup(void *ctx, const char *arg, char *err, size_t err_size)
{
	return int_arg(arg, 0, 100, &((struct cli *)ctx)->o.warmup, "--warmup", err, err_size);
}

static int opt_sm_kernel(void *ctx, const char *arg, char *err, size_t err_size)
{
	if (pb_sm_variant_parse(arg, &((struct cli *)ctx)->o.sm_variant))
		return snprintf(err, err_size, "bad --sm-kernel '%s' (grid, warp or bulk)", arg),
		       -1;
	return 0;
}

/* Bytes per copy: a size (K/M/G binary), a multiple of 16, at most 16 GiB. */
static int opt_size(void *ctx, const char *arg, char *err, size_t err_size)
{
	uint64_t v;
	if (p2ps_parse_size(arg, &v) || v == 0 || v > (16ull << 30) || v % 16)
		return snprintf(err, err_size, "bad size '%s': a multiple of 16 bytes up to 16G",
		                arg),
		       -1;
	((struct cli *)ctx)->o.size = (size_t)v;
	return 0;
}

int pb_parse_devices(const char *arg, int *dev, int *count, char *err, size_t err_size)
{
	char buf[256];
	char *save = NULL;
	*count = 0;
	size_t len = strlen(arg);
	if (len >= sizeof(buf))
		return snprintf(err, err_size, "bad device list '%s'", arg), -1;
	memcpy(buf, arg, len + 1);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		bool ok = *count < PB_MAX_DEV && !p2ps_parse_uint(tok, 1023, &v);
		for (int k = 0; ok && k < *count; k++)
			ok = (uint64_t)dev[k] != v;
		if (!ok)
			return snprintf(err, err_size, "bad device list '%s'", arg), -1;
		dev[(*count)++] = (int)v;
	}
	if (!*count)
		return snprintf(err, err_size, "bad device list '%s'", arg), -1;
	return 0;
}

/* CUDA device numbers, each once: "0,1". */
static int opt_devices(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct pb_options *o = &((struct cli *)ctx)->o;
	return pb_parse_devices(arg, o->dev, &o->ndev, err, err_size);
}

/* Which ways of sharing memory --ipc measures. */
static int opt_ipc_handle(void *ctx, const char *arg, char *err, size_t err_size)
{
	static const struct {
		const char *name;
		unsigned bits;
	} kinds[] = {{"cuda-ipc", PB_IPC_CUDA_IPC},
	             {"posix-fd", PB_IPC_FD},
	             {"both", PB_IPC_CUDA_IPC | PB_IPC_FD}};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(arg, kinds[k].name)) {
			((struct cli *)ctx)->ipc_kinds = kinds[k].bits;
			return 0;
		}
	return snprintf(err, err_size, "bad --ipc-handle '%s' (cuda-ipc, posix-fd or both)", arg),
	       -1;
}

#define CALL(fn)       P2PS_OPT_CALL(fn)
#define FLAG(member)   P2PS_OPT_FLAG(struct cli, member)
#define STRING(member) P2PS_OPT_STRING(struct cli, member)

static const struct p2ps_opt measure_rows[] = {
        {"devices", 'd', "LIST", "CUDA device numbers to use, e.g. 0,1 (default: all)",
         CALL(opt_devices)},
        {"size", 's', "BYTES",
         "bytes per copy, suffix K/M/G (binary); multiple of 16 (default 256M)", CALL(opt_size)},
        {"reps", 'r', "N", "copies per timed run (default 5)", CALL(opt_reps)},
        {"trials", 't', "N", "timed runs per cell, median reported (default 3)", CALL(opt_trials)},
        {"lat-reps", 0, "N", "small copies per latency run (default 100)", CALL(opt_lat_reps)},
        {"pp-iters", 0, "N", "round trips per ping-pong run (default 10000)", CALL(opt_pp_iters)},
        {"sm-blocks", 0, "N", "SM copy kernel grid (default: one full wave)", CALL(opt_sm_blocks)},
        {"sm-kernel", 0, "K", "SM copy kernel: grid, warp or bulk (default grid)",
         CALL(opt_sm_kernel)},
        {"warmup", 0, "N", "untimed rounds before each cell's timed runs (default 1)",
         CALL(opt_warmup)},
        {"grouped", 0, NULL,
         "bidirectional runs queue each direction's copies as one block\n"
         "(p2pBandwidthLatencyTest's order) instead of alternating",
         P2PS_OPT_FLAG(struct cli, o.grouped)},
        {"no-sm-read", 0, NULL, "skip the SM copy that reads from the peer", FLAG(sm_read_off)},
        {"no-bandwidth", 0, NULL, "skip the bandwidth matrices", FLAG(bandwidth_off)},
        {"no-latency", 0, NULL, "skip the latency matrices", FLAG(latency_off)},
        {"ipc", 0, NULL,
         "also measure with one process per GPU sharing buffers (cudaIpc and cuMem\n"
         "POSIX-FD handles), set beside the one-process matrices",
         FLAG(ipc)},
        {"ipc-handle", 0, "KIND", "with --ipc: cuda-ipc, posix-fd or both (default both)",
         CALL(opt_ipc_handle)},
        {"host", 0, "FILE", "bar-inspect --json output: add the combined report",
         STRING(host_path)},
        {"json", 0, NULL, "print JSON instead of text", FLAG(json)},
        {"help", 'h', NULL, "this text", FLAG(help)},
        {"version", 'V', NULL, "print the version and the build", FLAG(version)},
};
static const struct p2ps_opts measure_opts = {P2PS_OPTS_ROWS(measure_rows), .help_width = 20,
                                              .no_operands = true};

static const struct p2ps_opt report_rows[] = {
        {"bench", 0, "FILE", "a saved `p2p-bench --json`", STRING(bench_path)},
        {"host", 0, "FILE", "a saved `bar-inspect --json`", STRING(host_path)},
        {"json", 0, NULL, "print JSON instead of text", FLAG(json)},
        {"help", 'h', NULL, "this text", FLAG(help)},
};
static const struct p2ps_opts report_opts = {P2PS_OPTS_ROWS(report_rows), .help_width = 20,
                                             .no_operands = true};

static void usage(void)
{
	fputs(usage_text, stdout);
	char help[P2PS_OPTS_HELP_MAX];
	p2ps_opt_help(&measure_opts, help, sizeof(help));
	fputs(help, stdout);
	fputs(report_text, stdout);
}

/* Parses argv with opts into c; returns 0 to go on, or the exit status (--help, --version,
 * or 2 after one line on stderr). */
static int parse_args(const struct p2ps_opts *opts, int argc, char **argv, struct cli *c)
{
	char err[256];
	int first = p2ps_opt_parse(opts, argc, argv, c, err, sizeof(err));
	if (first == P2PS_OPT_TABLE) {
		int rc = p2ps_opt_print_table(opts);
		return rc ? rc : -1;
	}
	if (first < 0) {
		fprintf(stderr, "p2p-bench: %s\n", err);
		return 2;
	}
	if (c->help)
		return usage(), -1;
	if (c->version) {
		char version[256];
		fputs(p2ps_version_text(version, sizeof(version), "p2p-bench"), stdout);
		return -1;
	}
	return 0;
}

/* A saved report: what (--bench, --host) and the command that writes it name the file's
 * expected content in the error. */
static json_object *load_json(const char *path, const char *what, const char *writer)
{
	json_object *o;
	struct p2ps_error err;
	int rc = p2ps_json_read_file(path, REPORT_MAX_BYTES, &o, &err);
	if (rc == P2PS_EINVAL || rc == P2PS_ERANGE)
		fprintf(stderr, "p2p-bench: %s %s; the output of %s was expected\n", what, err.msg,
		        writer);
	else if (rc)
		fprintf(stderr, "p2p-bench: %s %s\n", what, err.msg);
	return rc ? NULL : o;
	return o;
}

static void print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int cmd_report(int argc, char **argv)
{
	struct cli c = {0};
	json_object *bench, *host, *combined = NULL;
	struct p2ps_error err;
	int rc = parse_args(&report_opts, argc, argv, &c);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!c.bench_path || !c.host_path) {
		fprintf(stderr,
		        "p2p-bench: report needs --bench FILE and --host FILE (see --help)\n");
		return 2;
	}
	bench = load_json(c.bench_path, "--bench", "p2p-bench --json");
	if (!bench)
		return 2;
	host = load_json(c.host_path, "--host", "bar-inspect --json");
	if (!host) {
		json_object_put(bench);
		return 2;
	}
	p2ps_error_clear(&err);
	rc = pr_combine(bench, host, &combined, &err);
	if (rc)
		fprintf(stderr, "p2p-bench: report --bench %s --host %s: %s\n", c.bench_path,
		        c.host_path, err.msg);
	else if (c.json)
		print_json(combined);
	else
		pb_print_combined(stdout, combined);
	json_object_put(combined);
	json_object_put(bench);
	json_object_put(host);
	return rc ? 2 : 0;
}

/* The --ipc matrices, after the one-process ones, in fresh worker processes; the POSIX-FD
 * kind only where every GPU can export such handles. */
static int measure_ipc(const struct pb_options *o, struct pb_result *r, struct p2ps_error *err)
{
	if (o->ipc & PB_IPC_CUDA_IPC) {
		int rc = pb_ipc_measure(o, r, PB_IPC_RUNTIME, "/proc/self/exe", err);
		if (rc)
			return rc;
	}
	if (!(o->ipc & PB_IPC_FD))
		return 0;
	for (int i = 0; i < r->n; i++)
		if (r->dev[i].gdr.posix_fd_handles != 1) {
			fprintf(stderr,
			        "p2p-bench: device %d cannot export POSIX-FD handles: no "
			        "posix_fd matrices\n",
			        r->dev[i].ordinal);
			return 0;
		}
	return pb_ipc_measure(o, r, PB_IPC_POSIX_FD, "/proc/self/exe", err);
}

/* Measures, then prints the result (and the combined report with --host). */
static int measure(struct cli *c, json_object *host)
{
	struct p2ps_error err;
	struct pb_result *r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "p2p-bench: out of memory\n");
		return 1;
	}
	p2ps_error_clear(&err);
	int rc = pb_measure(&c->o, r, &err);
	if (rc == 0)
		rc = measure_ipc(&c->o, r, &err);
	if (rc) {
		fprintf(stderr, "p2p-bench: %s\n", err.msg);
		pb_result_cleanup(r);
		free(r);
		return rc == P2PS_ENOENT || rc == P2PS_EINVAL ? 2 : 1;
	}
	json_object *doc = pb_to_json(r, &c->o);
	json_object *combined = NULL;
	if (host) {
		p2ps_error_clear(&err);
		if (pr_combine(doc, host, &combined, &err) == 0)
			json_object_object_add(doc, "combined", combined);
		else
			fprintf(stderr, "p2p-bench: combined report skipped: %s\n", err.msg);
	}
	if (c->json) {
		print_json(doc);
	} else {
		pb_print_text(stdout, r, &c->o);
		if (json_object_object_get_ex(doc, "combined", &combined)) {
			fputc('\n', stdout);
			pb_print_combined(stdout, combined);
		}
	}
	rc = r->words_bad ? 1 : 0;
	if (rc)
		fprintf(stderr, "p2p-bench: %llu words did not verify\n", r->words_bad);
	json_object_put(doc);
	pb_result_cleanup(r);
	free(r);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c = {.o = {
	                        .size = 256u << 20,
	                        .reps = 5,
	                        .trials = 3,
	                        .lat_reps = 100,
	                        .pp_iters = 10000,
	                        .warmup = 1,
	                }};
	if (argc > 1 && !strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "check"))
		return pb_check_main(argc - 1, argv + 1);
	/* A process of check's cross-process paths, started by check itself (not a user
	 * option). */
	if (argc > 1 && !strcmp(argv[1], "--check-peer"))
		return pb_chk_other_main(argc, argv);
	/* A worker of --ipc, started by this program itself (not a user option). */
	if (argc > 1 && !strcmp(argv[1], "--ipc-worker"))
		return pb_ipc_worker_main(argc, argv);
	int rc = parse_args(&measure_opts, argc, argv, &c);
	if (rc)
		return rc < 0 ? 0 : rc;
	c.o.sm_read = !c.sm_read_off;
	c.o.bandwidth = !c.bandwidth_off;
	c.o.latency = !c.latency_off;
	if (c.ipc)
		c.o.ipc = c.ipc_kinds ? c.ipc_kinds : PB_IPC_CUDA_IPC | PB_IPC_FD;
	/* Read the host report before minutes of measuring, so a bad path fails fast. */
	json_object *host = NULL;
	if (c.host_path && !(host = load_json(c.host_path, "--host", "bar-inspect --json")))
		return 2;
	rc = measure(&c, host);
	json_object_put(host);
	return rc;
}
