/* bar-inspect: every NVIDIA GPU's BARs, link, bridge path with ACS, IOMMU state, the
 * topology matrix and a BAR1-P2P readiness verdict per GPU pair — from this host, a
 * captured snapshot (--root), an lspci dump (--lspci-dump), a bug report's paste
 * (--paste) or through VFIO (--vfio).
 * Read-only: it never writes config space; the fixes it prints are for the user to apply.
 *
 * One pipeline: load the host model (p2ps_host_load, which also carries out the VFIO
 * options), analyse it, render it as text, JSON or dot. --fleet (fleet_opts.c) runs that
 * pipeline on each snapshot among its inputs and summarises many reports. Options live in one table
 * (options[] below): adding one is a row there plus a handler, and the help text and
 * getopt_long table are generated from it. */
#include <getopt.h>
#include <stddef.h>
#include <pci/pci.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleet_opts.h"
#include "p2pscope/analysis.h"
#include "p2pscope/host_load.h"
#include "p2pscope/render.h"
#include "vfio_opts.h"

/* From CMake's project(VERSION). */
#ifndef P2PS_VERSION
#error "P2PS_VERSION is set by tools/bar-inspect/CMakeLists.txt"
#endif

enum output_format { OUT_TEXT = 0, OUT_JSON, OUT_DOT };

/* Everything the command line decides. */
struct cli {
	struct p2ps_host_source src;
	bool have_source; /* --root, --lspci-dump or --paste given */
	enum output_format format;
	bool format_set;
	bool all;
	bool have_filter;
	struct p2ps_slot_filter filter;
	struct p2ps_bdf peers[64]; /* --peers: extra P2P endpoints */
	size_t n_peers;
	bool help;
	bool version;
	bool timings;  /* --timings: phases to stderr */
	bool no_cache; /* --no-cache: ask NVML, do not read or write the per-boot cache */
	struct bi_vfio_opts vfio;   /* --vfio, --vfio-flow, --read-reg, --map-peer (vfio_opts.c) */
	struct bi_fleet_opts fleet; /* --fleet, --csv, --expect (fleet_opts.c) */
	char **inputs;              /* the non-option arguments (--fleet only) */
	size_t n_inputs;
	char err[256]; /* set by a handler that rejects its argument */
};

typedef int (*opt_handler)(struct cli *c, const char *arg);

struct cli_option {
	const char *name; /* long name */
	int short_name;   /* 0 if none */
	const char *arg;  /* argument name for the help text, NULL if none */
	const char *help;
	opt_handler handle; /* NULL for a plain flag: */
	size_t set;         /*   offsetof(struct cli, a bool to set), or */
	unsigned src_flag;  /*   P2PS_HOST_F_* bits to set in the source */
};

static int set_source(struct cli *c, enum p2ps_host_backend_kind kind, const char *arg)
{
	if (c->have_source) {
		snprintf(c->err, sizeof(c->err),
		         "--root, --lspci-dump and --paste are mutually exclusive");
		return -1;
	}
	if (!arg[0]) {
		snprintf(c->err, sizeof(c->err), "%s needs a non-empty path",
		         kind == P2PS_HOST_SNAPSHOT ? "--root"
		         : kind == P2PS_HOST_PASTE  ? "--paste"
		                                    : "--lspci-dump");
		return -1;
	}
	c->have_source = true;
	c->src.kind = kind;
	c->src.path = arg;
	return 0;
}

static int opt_root(struct cli *c, const char *arg)
{
	return set_source(c, P2PS_HOST_SNAPSHOT, arg);
}

static int opt_lspci_dump(struct cli *c, const char *arg)
{
	return set_source(c, P2PS_HOST_LSPCI_DUMP, arg);
}

static int opt_paste(struct cli *c, const char *arg)
{
	return set_source(c, P2PS_HOST_PASTE, arg);
}

/* -s uses libpci's own slot syntax, [[[[<domain>]:]<bus>]:][<slot>][.[<func>]], as lspci. */
static int opt_slot(struct cli *c, const char *arg)
{
	struct pci_filter f;
	char buf[64];
	if (strlen(arg) >= sizeof(buf)) {
		snprintf(c->err, sizeof(c->err), "-s %.32s...: too long", arg);
		return -1;
	}
	strcpy(buf, arg);
	pci_filter_init(NULL, &f);
	const char *msg = pci_filter_parse_slot(&f, buf);
	if (msg) {
		snprintf(c->err, sizeof(c->err), "-s %s: %s", arg, msg);
		return -1;
	}
	c->have_filter = true;
	c->filter = (struct p2ps_slot_filter){f.domain, f.bus, f.slot, f.func};
	return 0;
}

static int peer_token(void *ctx, const char *t)
{
	struct cli *c = ctx;
	if (c->n_peers == sizeof(c->peers) / sizeof(c->peers[0])) {
		snprintf(c->err, sizeof(c->err), "--peers: more than %zu devices",
		         sizeof(c->peers) / sizeof(c->peers[0]));
		return -1;
	}
	if (p2ps_bdf_parse(t, &c->peers[c->n_peers]) < 0) {
		snprintf(c->err, sizeof(c->err), "--peers: '%.64s' is not a BDF ([DDDD:]BB:DD.F)",
		         t);
		return -1;
	}
	c->n_peers++;
	return 0;
}

/* --peers BDF[,BDF...]: devices that get the matrix and pair verdicts besides the
 * NVIDIA GPUs (GPUDirect peers such as NICs and NVMe, or stand-ins in test VMs). */
static int opt_peers(struct cli *c, const char *arg)
{
	if (bi_each_token("--peers", arg, peer_token, c, c->err, sizeof(c->err)))
		return -1;
	if (!c->n_peers) {
		snprintf(c->err, sizeof(c->err), "--peers needs at least one BDF");
		return -1;
	}
	return 0;
}

static int set_format(struct cli *c, enum output_format fmt)
{
	if (c->format_set && c->format != fmt) {
		snprintf(c->err, sizeof(c->err), "--json and --dot are mutually exclusive");
		return -1;
	}
	c->format_set = true;
	c->format = fmt;
	return 0;
}

static int opt_json(struct cli *c, const char *arg)
{
	(void)arg;
	return set_format(c, OUT_JSON);
}

static int opt_dot(struct cli *c, const char *arg)
{
	(void)arg;
	return set_format(c, OUT_DOT);
}

/* -i FILE: names from this pci.ids, as lspci -i. */
static int opt_ids_file(struct cli *c, const char *arg)
{
	c->src.ids_file = arg;
	return 0;
}

/* VFIO options: vfio_opts.c. */
static int opt_vfio(struct cli *c, const char *arg)
{
	return bi_vfio_opt_vfio(&c->vfio, arg, c->err, sizeof(c->err));
}

static int opt_vfio_flow(struct cli *c, const char *arg)
{
	return bi_vfio_opt_flow(&c->vfio, arg, c->err, sizeof(c->err));
}

static int opt_read_reg(struct cli *c, const char *arg)
{
	return bi_vfio_opt_read_reg(&c->vfio, arg, c->err, sizeof(c->err));
}

static int opt_map_peer(struct cli *c, const char *arg)
{
	return bi_vfio_opt_map_peer(&c->vfio, arg, c->err, sizeof(c->err));
}

static int opt_expect(struct cli *c, const char *arg)
{
	return bi_fleet_opt_expect(&c->fleet, arg, c->err, sizeof(c->err));
}

static const struct cli_option options[] = {
        {"root", 0, "DIR",
         "read a snapshot captured by scripts/capture-host.sh (unpacked) "
         "instead of this host",
         opt_root, 0, 0},
        {"lspci-dump", 'F', "FILE", "read `lspci -x`/`-xxx`/`-xxxx` output (no sysfs facts)",
         opt_lspci_dump, 0, 0},
        {"paste", 0, "FILE|-",
         "read what a bug report pasted (lspci, nvidia-smi, dmesg, CUDA samples; - for stdin)",
         opt_paste, 0, 0},
        {"slot", 's', "[[[[DOMAIN]:]BUS]:][DEV][.[FN]]", "show only matching devices (as lspci -s)",
         opt_slot, 0, 0},
        {"all", 'a', NULL, "show every PCI device, not only the NVIDIA GPUs", NULL,
         offsetof(struct cli, all), 0},
        {"peers", 0, "BDF[,BDF...]",
         "also treat these devices as P2P endpoints (NICs, NVMe, test-VM stand-ins)", opt_peers, 0,
         0},
        {"json", 'j', NULL, "JSON output (schema in docs/bar-inspect.md)", opt_json, 0, 0},
        {"dot", 0, NULL, "Graphviz output: PCI tree, ACS marks, verdict edges", opt_dot, 0, 0},
        {"no-nvml", 0, NULL, "do not load libnvidia-ml (VRAM and NVLink then come from nowhere)",
         NULL, 0, P2PS_HOST_F_NO_NVML},
        {"numeric", 'n', NULL, "numeric ids only (skip pci.ids names)", NULL, 0,
         P2PS_HOST_F_NO_NAMES},
        {"ids-file", 'i', "FILE", "device names from this pci.ids (as lspci -i)", opt_ids_file, 0,
         0},
        {"no-cache", 0, NULL,
         "ask NVML even where its facts are cached for this boot (one-GPU hosts; "
         "~/.cache/p2pscope)",
         NULL, offsetof(struct cli, no_cache), 0},
        {"vfio", 0, "BDF[,BDF]|all",
         "also read these vfio-pci devices through VFIO (regions, "
         "full config); OPENING A VFIO DEVICE CAN RESET IT",
         opt_vfio, 0, 0},
        {"vfio-flow", 0, "auto|legacy|cdev", "VFIO interface: group/container or cdev+iommufd",
         opt_vfio_flow, 0, 0},
        {"read-reg", 0, "BAR:OFFSET",
         "map one page of BAR read-only and read one 32-bit register "
         "(devices of --vfio, or -s SLOT via sysfs, root); 0:0x0 "
         "decodes NVIDIA's PMC_BOOT_0",
         opt_read_reg, 0, 0},
        {"map-peer", 0, "A,B[,BAR]",
         "VFIO_IOMMU_MAP_DMA B's BAR into A's container and report "
         "the IOVA or refusal; opens A and B via VFIO (CAN RESET THEM)",
         opt_map_peer, 0, 0},
        {"fleet", 0, NULL,
         "summarise many hosts: the arguments are reports (--json output), folders, "
         "globs, capture tarballs, snapshot folders or - (docs/fleet.md)",
         NULL, offsetof(struct cli, fleet.fleet), 0},
        {"csv", 0, NULL, "with --fleet: CSV, one row per host", NULL,
         offsetof(struct cli, fleet.csv), 0},
        {"expect", 0, "FILE", "with --fleet: the hosts that should have reported, one a line",
         opt_expect, 0, 0},
        {"timings", 0, NULL, "print where the time went, phase by phase, to stderr", NULL,
         offsetof(struct cli, timings), 0},
        {"help", 'h', NULL, "this help", NULL, offsetof(struct cli, help), 0},
        {"version", 'V', NULL, "print the version", NULL, offsetof(struct cli, version), 0},
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: bar-inspect [--root DIR | --lspci-dump FILE | --paste FILE] [-s SLOT] "
	           "[--all] [--json | --dot]\n"
	           "       bar-inspect --fleet [--json | --csv] [--expect FILE] INPUT...\n\n"
	           "Reports each NVIDIA GPU's BARs, BAR1 against VRAM, Resizable BAR, PCIe link, "
	           "bridge path\nwith ACS, IOMMU mode, the nvidia-smi-style topology matrix and, "
	           "per GPU pair, whether\nstatic BAR1 P2P can work, with every reason and fix. "
	           "Read-only: fixes are printed, never\napplied. Without root, facts past the "
	           "first 64 bytes of config space are marked unknown.\n\nOptions:\n");
	for (size_t i = 0; i < N_OPTIONS; i++) {
		char lhs[64];
		const struct cli_option *o = &options[i];
		if (o->short_name)
			snprintf(lhs, sizeof(lhs), "-%c, --%s%s%s", o->short_name, o->name,
			         o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(lhs, sizeof(lhs), "    --%s%s%s", o->name, o->arg ? " " : "",
			         o->arg ? o->arg : "");
		fprintf(f, "  %-36s %s\n", lhs, o->help);
	}
	fprintf(f,
	        "\nExit status: 0 report printed, 2 bad usage or unreadable input; with --fleet,\n"
	        "1 when the summary lists skipped inputs or expected hosts without a report.\n");
}

/* Parses argv into c. Returns 0, or -1 with c->err set. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	struct option longopts[N_OPTIONS + 1];
	char shortopts[2 * N_OPTIONS + 2];
	size_t ns = 0;
	shortopts[ns++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < N_OPTIONS; i++) {
		longopts[i] = (struct option){options[i].name,
		                              options[i].arg ? required_argument : no_argument,
		                              NULL, (int)(0x100 + i)};
		if (options[i].short_name) {
			shortopts[ns++] = (char)options[i].short_name;
			if (options[i].arg)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
	longopts[N_OPTIONS] = (struct option){0};

	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct cli_option *o = NULL;
		if (ch >= 0x100 && (size_t)(ch - 0x100) < N_OPTIONS)
			o = &options[ch - 0x100];
		for (size_t i = 0; !o && i < N_OPTIONS; i++)
			if (options[i].short_name && options[i].short_name == ch)
				o = &options[i];
		if (ch == ':') {
			snprintf(c->err, sizeof(c->err), "option %s needs an argument",
			         argv[optind - 1]);
			return -1;
		}
		if (!o) {
			snprintf(c->err, sizeof(c->err), "unknown option %s (try --help)",
			         argv[optind - 1]);
			return -1;
		}
		if (o->handle && o->handle(c, optarg) < 0)
			return -1;
		if (!o->handle && o->src_flag)
			c->src.flags |= o->src_flag;
		else if (!o->handle)
			*(bool *)((char *)c + o->set) = true;
	}
	if (optind < argc && !c->fleet.fleet) {
		snprintf(c->err, sizeof(c->err), "unexpected argument '%s' (try --help)",
		         argv[optind]);
		return -1;
	}
	c->inputs = argv + optind;
	c->n_inputs = (size_t)(argc - optind);
	return 0;
}

/* --fleet reads reports, not one host: the options that pick or shape one host's report
 * do not apply to it, and its own options need it. Returns 0, or -1 with c->err set. */
static int check_fleet(struct cli *c)
{
	const struct bi_vfio_opts *v = &c->vfio;
	bool vfio = v->vfio || v->n_targets || v->asked.read_reg || v->asked.map_peer;
	if (!c->fleet.fleet && (c->fleet.csv || c->fleet.expect))
		snprintf(c->err, sizeof(c->err), "--csv and --expect need --fleet");
	else if (c->fleet.fleet &&
	         (c->have_source || c->format == OUT_DOT || c->all || c->have_filter || vfio))
		snprintf(c->err, sizeof(c->err),
		         "--fleet takes reports as arguments: --root, --lspci-dump, --dot, --all, "
		         "-s "
		         "and the VFIO options do not apply");
	else
		return 0;
	return -1;
}

/* Renders the analysis in the chosen format into out. */
static int render(const struct cli *c, const struct p2ps_analysis *an, struct p2ps_strbuf *out,
                  struct p2ps_error *err)
{
	struct p2ps_render_opts ro = {.all = c->all,
	                              .filter = c->have_filter ? &c->filter : NULL,
	                              .version = P2PS_VERSION};
	switch (c->format) {
	case OUT_JSON: return p2ps_render_json_text(an, &ro, out, err);
	case OUT_DOT: return p2ps_render_dot(an, &ro, out, err);
	case OUT_TEXT: break;
	}
	return p2ps_render_text(an, &ro, out, err);
}

/* Load, analyse, render, write; then the exit status the VFIO facts call for. */
static int run(struct cli *c, struct p2ps_timings *tm, uint64_t lap)
{
	struct p2ps_vfio_request req;
	if (bi_vfio_request(&c->vfio, &c->src, c->format == OUT_DOT,
	                    c->have_filter ? &c->filter : NULL, &req, c->err, sizeof(c->err)) < 0)
		return bi_die(c->err);
	struct p2ps_error err = {0};
	struct p2ps_host host;
	c->src.timings = tm;
	p2ps_timings_lap(tm, "options", &lap);
	if (p2ps_host_load(&host, &c->src, &err) < 0)
		return bi_die(err.msg);
	lap = p2ps_clock_ns();
	struct p2ps_analysis_opts ao = {.peers = c->peers, .n_peers = c->n_peers};
	struct p2ps_analysis an;
	struct p2ps_strbuf out = {0};
	int status;
	if (p2ps_analysis_run_opts(&host, &ao, &an, &err) < 0) {
		status = bi_die(err.msg);
	} else {
		p2ps_timings_lap(tm, "analysis", &lap);
		if (render(c, &an, &out, &err) < 0) {
			status = bi_die(err.msg);
		} else {
			p2ps_timings_lap(tm, "rendering", &lap);
			status = bi_write_report(&out);
			p2ps_timings_lap(tm, "writing the report", &lap);
		}
	}
	if (status == 0)
		status = bi_vfio_status(&host);
	p2ps_strbuf_free(&out);
	p2ps_analysis_free(&an);
	p2ps_host_free(&host);
	return status;
}

int main(int argc, char **argv)
{
	uint64_t start = p2ps_clock_ns();
	struct cli c = {.src.kind = P2PS_HOST_LIVE};
	if (parse_args(argc, argv, &c) < 0 || check_fleet(&c) < 0)
		return bi_die(c.err);
	if (c.help) {
		usage(stdout);
		return 0;
	}
	if (c.version) {
		printf("bar-inspect %s\n", P2PS_VERSION);
		return 0;
	}
	if (c.fleet.fleet) {
		struct p2ps_analysis_opts ao = {.peers = c.peers, .n_peers = c.n_peers};
		return bi_fleet_run(&c.fleet, c.inputs, c.n_inputs, c.format == OUT_JSON,
		                    c.src.flags, &ao);
	}
	if (!c.no_cache)
		c.src.flags |= P2PS_HOST_F_NVML_CACHE;
	struct p2ps_timings tm = {0};
	int status = run(&c, c.timings ? &tm : NULL, start);
	if (c.timings)
		bi_print_timings(&tm);
	return status;
}
