/* pte-probe: reads the page-table entries the running NVIDIA driver wrote for the probe's
 * own mappings and checks each one, leaf and directory, against libgmmu's model of the
 * driver. See docs/pte-probe.md.
 *
 * Exit status: 0 every entry agrees; 1 an entry differs (or a page has no entry, an entry
 * nothing explains, or GET_PTE_INFO's decoded fields differ from the model); 2 the probe could not
 * run (one line on stderr); 3 a partial report: nothing differs, but not everything could be
 * checked (not root, a mapping the driver refused, tables that could not be read). */
#include "probe.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE_MAX (64u << 20)

struct opts {
	unsigned gpu;
	int peer; /* -1: none */
	unsigned page_mask;
	const char *chip, *record, *replay, *root;
	bool json;
};

/* The controls the RM library refuses by name (docs/pte-probe.md prints this list). */
static void print_excluded(void)
{
	for (size_t i = 0; i < p2ps_rm_excluded_count(); i++) {
		const struct p2ps_rm_excluded *x = p2ps_rm_excluded_at(i);
		printf("0x%08x  %-42s %s\n", x->cmd, x->name, x->why);
	}
}

static void usage(FILE *f)
{
	fputs("usage: pte-probe [--gpu N] [--peer N] [--page-sizes LIST] [--chip NAME]\n"
	      "                 [--json] [--record FILE | --replay FILE]\n"
	      "Maps video and system memory into a VA space of its own, reads the entries the\n"
	      "NVIDIA driver wrote (as root) and compares each with libgmmu's model.\n"
	      "  --gpu N            GPU index in the driver's order (default 0)\n"
	      "  --peer N           also map GPU N's memory through a P2P object; this changes\n"
	      "                     the driver's peer state while the run lasts\n"
	      "  --page-sizes LIST  e.g. 4K,64K,2M,512M (default: every size the chip has)\n"
	      "  --chip NAME        libgmmu chip name when the driver's is not known\n"
	      "  --json             JSON report instead of text\n"
	      "  --record FILE      save every request and response to FILE (JSON)\n"
	      "  --replay FILE      answer from a recorded FILE instead of the driver\n"
	      "  --root DIR         look for /proc and /dev under DIR (tests)\n"
	      "  --excluded         list the RM controls pte-probe never issues, and why\n"
	      "Exit: 0 agrees, 1 differs, 2 error, 3 partial (e.g. not root).\n",
	      f);
}

static int parse_sizes(const char *s, unsigned *mask)
{
	*mask = 0;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned shift = !strcasecmp(t, "4K")     ? 12
		                 : !strcasecmp(t, "64K")  ? 16
		                 : !strcasecmp(t, "128K") ? 17
		                 : !strcasecmp(t, "2M")   ? 21
		                 : !strcasecmp(t, "512M") ? 29
		                                          : 0;
		if (!shift)
			return -1;
		*mask |= 1u << (shift == 17 ? 16 : shift);
	}
	return *mask ? 0 : -1;
}

static int parse_index(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v >= P2PS_RM_MAX_CARDS)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	        {"gpu", required_argument, NULL, 'g'},
	        {"peer", required_argument, NULL, 'p'},
	        {"page-sizes", required_argument, NULL, 's'},
	        {"chip", required_argument, NULL, 'c'},
	        {"json", no_argument, NULL, 'j'},
	        {"record", required_argument, NULL, 'r'},
	        {"replay", required_argument, NULL, 'R'},
	        {"root", required_argument, NULL, 'o'},
	        {"help", no_argument, NULL, 'h'},
	        {"excluded", no_argument, NULL, 'x'},
	        {NULL, 0, NULL, 0},
	};
	*o = (struct opts){.peer = -1, .page_mask = ~0u};
	int c;
	unsigned v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (parse_index(optarg, &o->gpu))
				return fprintf(stderr,
				               "pte-probe: --gpu: '%s' is not a GPU index\n",
				               optarg),
				       2;
			break;
		case 'p':
			if (parse_index(optarg, &v))
				return fprintf(stderr,
				               "pte-probe: --peer: '%s' is not a GPU index\n",
				               optarg),
				       2;
			o->peer = (int)v;
			break;
		case 's':
			if (parse_sizes(optarg, &o->page_mask))
				return fprintf(stderr,
				               "pte-probe: --page-sizes: '%s' is not a list of "
				               "4K, 64K, 2M, 512M\n",
				               optarg),
				       2;
			break;
		case 'c': o->chip = optarg; break;
		case 'j': o->json = true; break;
		case 'r': o->record = optarg; break;
		case 'R': o->replay = optarg; break;
		case 'o': o->root = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'x': print_excluded(); return 0;
		default:
			return fprintf(stderr,
			               "pte-probe: unknown option '%s' (--help lists them)\n",
			               argv[optind - 1]),
			       2;
		}
	}
	if (optind < argc)
		return fprintf(stderr, "pte-probe: unexpected argument '%s'\n", argv[optind]), 2;
	if (o->record && o->replay)
		return fprintf(stderr, "pte-probe: --record and --replay exclude each other\n"), 2;
	if (o->peer >= 0 && (unsigned)o->peer == o->gpu)
		return fprintf(stderr, "pte-probe: --peer %d is the GPU probed (--gpu %u)\n",
		               o->peer, o->gpu),
		       2;
	return -1;
}

static int load_capture(const char *path, struct p2ps_rm_capture *cap, struct p2ps_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = p2ps_text_slurp(path, CAPTURE_MAX, &text, &len, err);
	if (rc == 0)
		rc = p2ps_rm_capture_parse(text, len, path, cap, err);
	free(text);
	return rc;
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
	if (o.replay && ((rc = load_capture(o.replay, &cap, &err)) ||
	                 (rc = p2ps_rm_replay_start(&replay, &cap, &sys, &err)))) {
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
