/* p2p-bench: GPU peer-to-peer bandwidth and latency, measured with CUDA and set
 * beside bar-inspect's view of the links.
 *
 *   p2p-bench [options]                         measure (needs a CUDA GPU)
 *   p2p-bench report --bench B.json --host H.json   join saved results (no GPU)
 *
 * Exit status: 0 success; 1 a measurement failed or data did not verify;
 * 2 bad usage or input, or no CUDA GPU. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "output.h"
#include "report.h"

static const char usage_text[] =
        "usage: p2p-bench [options]\n"
        "       p2p-bench report --bench FILE --host FILE [--json]\n"
        "\n"
        "Measures GPU peer-to-peer transfers: device list with PCI addresses, peer access\n"
        "and P2P attributes per pair, unidirectional and bidirectional bandwidth matrices\n"
        "with peer access disabled and enabled, by copy engine (cudaMemcpyPeerAsync) and\n"
        "by an SM copy kernel, and latency matrices. Every copy is verified.\n"
        "\n"
        "  -d, --devices LIST   CUDA device numbers to use, e.g. 0,1 (default: all)\n"
        "  -s, --size BYTES     bytes per copy, suffix K/M/G (binary); multiple of 16 (default "
        "256M)\n"
        "  -r, --reps N         copies per timed run (default 5)\n"
        "  -t, --trials N       timed runs per cell, median reported (default 3)\n"
        "      --lat-reps N     small copies per latency run (default 100)\n"
        "      --pp-iters N     round trips per ping-pong run (default 10000)\n"
        "      --sm-blocks N    SM copy kernel grid (default: one full wave)\n"
        "      --sm-kernel K    SM copy kernel: grid, warp or bulk (default grid)\n"
        "      --warmup N       untimed rounds before each cell's timed runs (default 1)\n"
        "      --grouped        bidirectional runs queue each direction's copies as one\n"
        "                       block (p2pBandwidthLatencyTest's order) instead of alternating\n"
        "      --no-sm-read     skip the SM copy that reads from the peer\n"
        "      --no-bandwidth   skip the bandwidth matrices\n"
        "      --no-latency     skip the latency matrices\n"
        "      --host FILE      bar-inspect --json output: add the combined report\n"
        "      --json           print JSON instead of text\n"
        "  -h, --help           this text\n"
        "\n"
        "report: joins a saved `p2p-bench --json` (--bench) with `bar-inspect --json`\n"
        "(--host) by PCI address; needs no GPU.\n";

static int fail_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "p2p-bench: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	return 2;
}

/* Positive integer within [lo, hi]; 0 on success. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	if (*s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 0: break;
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default: return -1;
	}
	if (*end || v == 0 || v > (16ull << 30) >> shift)
		return -1;
	v <<= shift;
	if (v % 16)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int parse_devices(const char *s, struct pb_options *o)
{
	char buf[256];
	char *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	o->ndev = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;
		if (o->ndev == PB_MAX_DEV || parse_int(tok, 0, 1023, &v))
			return -1;
		for (int k = 0; k < o->ndev; k++)
			if (o->dev[k] == v)
				return -1;
		o->dev[o->ndev++] = (int)v;
	}
	return o->ndev ? 0 : -1;
}

static json_object *load_json(const char *path, const char *what)
{
	json_object *o = json_object_from_file(path);
	if (!o) {
		/* json-c's message ends in a newline of its own. */
		const char *why = json_util_get_last_err();
		int len = why ? (int)strcspn(why, "\n") : 0;
		fprintf(stderr, "p2p-bench: cannot read %s report %s: %.*s\n", what, path, len,
		        why ? why : "");
	}
	return o;
}

static void print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int cmd_report(int argc, char **argv)
{
	static const struct option lo[] = {
	        {"bench", required_argument, NULL, 'b'},
	        {"host", required_argument, NULL, 'H'},
	        {"json", no_argument, NULL, 'j'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	const char *bench_path = NULL, *host_path = NULL;
	bool json = false;
	json_object *bench, *host, *combined = NULL;
	struct p2ps_error err;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'b': bench_path = optarg; break;
		case 'H': host_path = optarg; break;
		case 'j': json = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc)
		return fail_usage("report: unexpected argument '%s'", argv[optind]);
	if (!bench_path || !host_path)
		return fail_usage("report needs --bench FILE and --host FILE%s", "");
	bench = load_json(bench_path, "bench");
	if (!bench)
		return 2;
	host = load_json(host_path, "host");
	if (!host) {
		json_object_put(bench);
		return 2;
	}
	p2ps_error_clear(&err);
	rc = pr_combine(bench, host, &combined, &err);
	if (rc) {
		fprintf(stderr, "p2p-bench: %s\n", err.msg);
	} else if (json) {
		print_json(combined);
	} else {
		pb_print_combined(stdout, combined);
	}
	json_object_put(combined);
	json_object_put(bench);
	json_object_put(host);
	return rc ? 2 : 0;
}

int main(int argc, char **argv)
{
	enum {
		O_LAT_REPS = 256,
		O_PP,
		O_SMB,
		O_NO_READ,
		O_NO_BW,
		O_NO_LAT,
		O_HOST,
		O_JSON,
		O_SMK,
		O_WARM,
		O_GROUPED
	};
	static const struct option lo[] = {
	        {"devices", required_argument, NULL, 'd'},
	        {"size", required_argument, NULL, 's'},
	        {"reps", required_argument, NULL, 'r'},
	        {"trials", required_argument, NULL, 't'},
	        {"lat-reps", required_argument, NULL, O_LAT_REPS},
	        {"pp-iters", required_argument, NULL, O_PP},
	        {"sm-blocks", required_argument, NULL, O_SMB},
	        {"sm-kernel", required_argument, NULL, O_SMK},
	        {"warmup", required_argument, NULL, O_WARM},
	        {"grouped", no_argument, NULL, O_GROUPED},
	        {"no-sm-read", no_argument, NULL, O_NO_READ},
	        {"no-bandwidth", no_argument, NULL, O_NO_BW},
	        {"no-latency", no_argument, NULL, O_NO_LAT},
	        {"host", required_argument, NULL, O_HOST},
	        {"json", no_argument, NULL, O_JSON},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	struct pb_options o = {
	        .size = 256u << 20,
	        .reps = 5,
	        .trials = 3,
	        .lat_reps = 100,
	        .pp_iters = 10000,
	        .bandwidth = true,
	        .latency = true,
	        .sm_read = true,
	        .warmup = 1,
	};
	const char *host_path = NULL;
	bool json = false;
	struct pb_result *r;
	struct p2ps_error err;
	json_object *host = NULL, *doc = NULL;
	int c, rc;
	long v;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "d:s:r:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_devices(optarg, &o))
				return fail_usage("bad device list '%s'", optarg);
			break;
		case 's':
			if (parse_size(optarg, &o.size))
				return fail_usage("bad size '%s': a multiple of 16 bytes up to 16G",
				                  optarg);
			break;
		case 'r':
			if (parse_int(optarg, 1, 1000, &v))
				return fail_usage("bad --reps '%s' (1..1000)", optarg);
			o.reps = (int)v;
			break;
		case 't':
			if (parse_int(optarg, 1, 64, &v))
				return fail_usage("bad --trials '%s' (1..64)", optarg);
			o.trials = (int)v;
			break;
		case O_LAT_REPS:
			if (parse_int(optarg, 1, 10000, &v))
				return fail_usage("bad --lat-reps '%s' (1..10000)", optarg);
			o.lat_reps = (int)v;
			break;
		case O_PP:
			if (parse_int(optarg, 1, 1000000, &v))
				return fail_usage("bad --pp-iters '%s' (1..1000000)", optarg);
			o.pp_iters = (unsigned)v;
			break;
		case O_SMB:
			if (parse_int(optarg, 1, 1 << 20, &v))
				return fail_usage("bad --sm-blocks '%s'", optarg);
			o.sm_blocks = (int)v;
			break;
		case O_SMK:
			if (pb_sm_variant_parse(optarg, &o.sm_variant))
				return fail_usage("bad --sm-kernel '%s' (grid, warp or bulk)",
				                  optarg);
			break;
		case O_WARM:
			if (parse_int(optarg, 0, 100, &v))
				return fail_usage("bad --warmup '%s' (0..100)", optarg);
			o.warmup = (int)v;
			break;
		case O_GROUPED: o.grouped = true; break;
		case O_NO_READ: o.sm_read = false; break;
		case O_NO_BW: o.bandwidth = false; break;
		case O_NO_LAT: o.latency = false; break;
		case O_HOST: host_path = optarg; break;
		case O_JSON: json = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc)
		return fail_usage("unexpected argument '%s'", argv[optind]);
	/* Read the host report before minutes of measuring, so a bad path fails fast. */
	if (host_path && !(host = load_json(host_path, "host")))
		return 2;

	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "p2p-bench: out of memory\n");
		json_object_put(host);
		return 1;
	}
	p2ps_error_clear(&err);
	rc = pb_measure(&o, r, &err);
	if (rc) {
		fprintf(stderr, "p2p-bench: %s\n", err.msg);
		pb_result_cleanup(r);
		free(r);
		json_object_put(host);
		return rc == P2PS_ENOENT || rc == P2PS_EINVAL ? 2 : 1;
	}
	doc = pb_to_json(r, &o);
	if (host) {
		json_object *combined = NULL;
		p2ps_error_clear(&err);
		if (pr_combine(doc, host, &combined, &err) == 0)
			json_object_object_add(doc, "combined", combined);
		else
			fprintf(stderr, "p2p-bench: combined report skipped: %s\n", err.msg);
	}
	if (json) {
		print_json(doc);
	} else {
		json_object *combined = NULL;
		pb_print_text(stdout, r, &o);
		if (json_object_object_get_ex(doc, "combined", &combined)) {
			fputc('\n', stdout);
			pb_print_combined(stdout, combined);
		}
	}
	rc = r->words_bad ? 1 : 0;
	if (rc)
		fprintf(stderr, "p2p-bench: %llu words did not verify\n", r->words_bad);
	json_object_put(doc);
	json_object_put(host);
	pb_result_cleanup(r);
	free(r);
	return rc;
}
