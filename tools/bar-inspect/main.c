/* SPDX-License-Identifier: MIT */
/* bar-inspect: every NVIDIA GPU's BARs, link, bridge path with ACS, IOMMU state, the
 * topology matrix and a BAR1-P2P readiness verdict per GPU pair — from this host, a
 * captured snapshot (--root), an lspci dump (--lspci-dump), a bug report's paste
 * (--paste) or through VFIO (--vfio).
 * Read-only: it never writes config space; the fixes it prints are for the user to apply.
 *
 * One pipeline: load the host model (p2ps_host_load, which also carries out the VFIO
 * options), analyse it, render it as text, JSON or dot. --fleet (fleet_opts.c) runs that
 * pipeline on each snapshot among its inputs and summarises many reports. Options live in
 * one table (options[] below, the shared mechanism of src/common/options.h): adding one is
 * a row there plus, unless it only sets a flag or keeps its argument, a handler; the help
 * text and the getopt_long table are generated from it. */
#include <stddef.h>
#include <pci/pci.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fleet_opts.h"
#include "options.h"
#include "p2pscope/analysis.h"
#include "p2pscope/driver_model.h"
#include "p2pscope/host_load.h"
#include "p2pscope/sha256.h"
#include "p2pscope/parse.h"
#include "p2pscope/render.h"
#include "rm_opts.h"
#include "version.h"
#include "vfio_opts.h"

/* From CMake's project(VERSION). */
#ifndef P2PS_VERSION
#error "P2PS_VERSION is set by tools/bar-inspect/CMakeLists.txt"
#endif

enum output_format { OUT_TEXT = 0, OUT_JSON, OUT_DOT, OUT_PROMETHEUS, OUT_NCCL_TOPO, OUT_NFD };

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
	bool check;    /* --check: the exit status says whether the host is ready for P2P */
	struct bi_vfio_opts vfio;   /* --vfio, --vfio-flow, --read-reg, --map-peer (vfio_opts.c) */
	struct bi_fleet_opts fleet; /* --fleet, --csv, --expect (fleet_opts.c) */
	struct bi_rm_opts rm;       /* --nvidia-facts, --record, --replay (rm_opts.c) */
	char note[512];             /* the command line, for --record's capture */
	char **inputs;              /* the non-option arguments (--fleet only) */
	size_t n_inputs;
	const char *driver;        /* --driver SERIES[-FLAVOR]|auto */
	const char *driver_flavor; /* --driver-flavor stock|tinygrad|aikitoria|duanyll */
	const char *libcuda;       /* --libcuda FILE: hashed to tell a patched one */
	char nfd_expiry[32];       /* --nfd-expiry: when the labels expire (RFC 3339, UTC) */
	char err[256];             /* what went wrong with the command line */
};

static int set_source(struct cli *c, enum p2ps_host_backend_kind kind, const char *arg, char *err,
                      size_t err_size)
{
	if (c->have_source) {
		snprintf(err, err_size, "--root, --lspci-dump and --paste are mutually exclusive");
		return -1;
	}
	if (!arg[0]) {
		snprintf(err, err_size, "%s needs a non-empty path",
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

static int opt_root(void *c, const char *arg, char *err, size_t err_size)
{
	return set_source(c, P2PS_HOST_SNAPSHOT, arg, err, err_size);
}

static int opt_lspci_dump(void *c, const char *arg, char *err, size_t err_size)
{
	return set_source(c, P2PS_HOST_LSPCI_DUMP, arg, err, err_size);
}

static int opt_paste(void *c, const char *arg, char *err, size_t err_size)
{
	return set_source(c, P2PS_HOST_PASTE, arg, err, err_size);
}

/* -s uses libpci's own slot syntax, [[[[<domain>]:]<bus>]:][<slot>][.[<func>]], as lspci. */
static int opt_slot(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct cli *c = ctx;
	struct pci_filter f;
	char buf[64];
	size_t len = strlen(arg);
	if (len >= sizeof(buf)) {
		snprintf(err, err_size, "-s %.32s...: too long", arg);
		return -1;
	}
	memcpy(buf, arg, len + 1);
	pci_filter_init(NULL, &f);
	const char *msg = pci_filter_parse_slot(&f, buf);
	if (msg) {
		snprintf(err, err_size, "-s %s: %s", arg, msg);
		return -1;
	}
	c->have_filter = true;
	c->filter = (struct p2ps_slot_filter){f.domain, f.bus, f.slot, f.func};
	return 0;
}

/* One --peers token into the list; a rejected one is explained in err. */
struct peer_list {
	struct cli *c;
	char *err;
	size_t err_size;
};

static int peer_token(void *ctx, const char *t)
{
	struct peer_list *pl = ctx;
	struct cli *c = pl->c;
	if (c->n_peers == sizeof(c->peers) / sizeof(c->peers[0])) {
		snprintf(pl->err, pl->err_size, "--peers: more than %zu devices",
		         sizeof(c->peers) / sizeof(c->peers[0]));
		return -1;
	}
	if (p2ps_bdf_parse(t, &c->peers[c->n_peers]) < 0) {
		snprintf(pl->err, pl->err_size, "--peers: '%.64s' is not a BDF ([DDDD:]BB:DD.F)",
		         t);
		return -1;
	}
	c->n_peers++;
	return 0;
}

/* --peers BDF[,BDF...]: devices that get the matrix and pair verdicts besides the
 * NVIDIA GPUs (GPUDirect peers such as NICs and NVMe, or stand-ins in test VMs). */
static int opt_peers(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct cli *c = ctx;
	struct peer_list pl = {c, err, err_size};
	if (bi_each_token("--peers", arg, peer_token, &pl, err, err_size))
		return -1;
	if (!c->n_peers) {
		snprintf(err, err_size, "--peers needs at least one BDF");
		return -1;
	}
	return 0;
}

static int set_format(struct cli *c, enum output_format fmt, char *err, size_t err_size)
{
	if (c->format_set && c->format != fmt) {
		snprintf(err, err_size,
		         "--json, --dot, --prometheus, --nccl-topo and --nfd are mutually "
		         "exclusive");
		return -1;
	}
	c->format_set = true;
	c->format = fmt;
	return 0;
}

static int opt_json(void *c, const char *arg, char *err, size_t err_size)
{
	(void)arg;
	return set_format(c, OUT_JSON, err, err_size);
}

static int opt_dot(void *c, const char *arg, char *err, size_t err_size)
{
	(void)arg;
	return set_format(c, OUT_DOT, err, err_size);
}

static int opt_prometheus(void *c, const char *arg, char *err, size_t err_size)
{
	(void)arg;
	return set_format(c, OUT_PROMETHEUS, err, err_size);
}

static int opt_nccl_topo(void *c, const char *arg, char *err, size_t err_size)
{
	(void)arg;
	return set_format(c, OUT_NCCL_TOPO, err, err_size);
}

static int opt_nfd(void *c, const char *arg, char *err, size_t err_size)
{
	(void)arg;
	return set_format(c, OUT_NFD, err, err_size);
}

/* --nfd-expiry SECONDS: the time the labels expire, from now (at most ten years). */
static int opt_nfd_expiry(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct cli *c = ctx;
	uint64_t secs;
	struct tm tm;
	if (p2ps_parse_uint(arg, 10ull * 366 * 24 * 3600, &secs) < 0 || !secs) {
		snprintf(err, err_size, "--nfd-expiry '%.32s': a number of seconds, 1 to ten years",
		         arg);
		return -1;
	}
	time_t at = time(NULL) + (time_t)secs;
	if (!gmtime_r(&at, &tm) ||
	    !strftime(c->nfd_expiry, sizeof(c->nfd_expiry), "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		snprintf(err, err_size, "--nfd-expiry: the time cannot be written");
		return -1;
	}
	return 0;
}

/* VFIO options: vfio_opts.c. */
static int opt_vfio(void *c, const char *arg, char *err, size_t err_size)
{
	return bi_vfio_opt_vfio(&((struct cli *)c)->vfio, arg, err, err_size);
}

static int opt_vfio_flow(void *c, const char *arg, char *err, size_t err_size)
{
	return bi_vfio_opt_flow(&((struct cli *)c)->vfio, arg, err, err_size);
}

static int opt_read_reg(void *c, const char *arg, char *err, size_t err_size)
{
	return bi_vfio_opt_read_reg(&((struct cli *)c)->vfio, arg, err, err_size);
}

static int opt_map_peer(void *c, const char *arg, char *err, size_t err_size)
{
	return bi_vfio_opt_map_peer(&((struct cli *)c)->vfio, arg, err, err_size);
}

static int opt_nvidia_facts(void *c, const char *arg, char *err, size_t err_size)
{
	return bi_rm_opt_facts(&((struct cli *)c)->rm, arg, err, err_size);
}

static int opt_expect(void *c, const char *arg, char *err, size_t err_size)
{
	return bi_fleet_opt_expect(&((struct cli *)c)->fleet, arg, err, err_size);
}

/* What a row does: a handler, a bool to set, or P2PS_HOST_F_* bits of the source. */
#define CALL(fn)          P2PS_OPT_CALL(fn)
#define FLAG(member)      P2PS_OPT_FLAG(struct cli, member)
#define SOURCE_FLAG(bits) P2PS_OPT_BITS(struct cli, src.flags, bits)

static const struct p2ps_opt options[] = {
        {"root", 0, "DIR",
         "read a snapshot captured by p2pscope-capture-host (unpacked) "
         "instead of this host",
         CALL(opt_root)},
        {"lspci-dump", 'F', "FILE", "read `lspci -x`/`-xxx`/`-xxxx` output (no sysfs facts)",
         CALL(opt_lspci_dump)},
        {"paste", 0, "FILE|-",
         "read what a bug report pasted (lspci, nvidia-smi, dmesg, CUDA samples, nccl-tests, "
         "NCCL logs and topology XML, error lines, setpci; - for stdin)",
         CALL(opt_paste)},
        {"slot", 's', "[[[[DOMAIN]:]BUS]:][DEV][.[FN]]", "show only matching devices (as lspci -s)",
         CALL(opt_slot)},
        {"all", 'a', NULL, "show every PCI device, not only the NVIDIA GPUs", FLAG(all)},
        {"peers", 0, "BDF[,BDF...]",
         "also treat these devices as P2P endpoints (NICs, NVMe, test-VM stand-ins)",
         CALL(opt_peers)},
        {"driver", 0, "SERIES[-FLAVOR]|auto",
         "model what this NVIDIA driver decides per GPU pair and why (SERIES: the first\n"
         "number of its version, FLAVOR: stock, tinygrad, aikitoria, duanyll, or a fork's\n"
         "branch suffix such as p2p, p2p-48g; auto: the installed one), beside what the\n"
         "driver reports",
         P2PS_OPT_STRING(struct cli, driver)},
        {"driver-flavor", 0, "stock|tinygrad|aikitoria|duanyll",
         "the driver's flavor for --driver (default: recognised, else stock)",
         P2PS_OPT_STRING(struct cli, driver_flavor)},
        {"libcuda", 0, "FILE",
         "hash this libcuda (SHA-256) to tell a known release from one patched for peers of\n"
         "two generations; without it the patch state is unknown",
         P2PS_OPT_STRING(struct cli, libcuda)},
        {"json", 'j', NULL, "JSON output (schema in docs/bar-inspect.md)", CALL(opt_json)},
        {"dot", 0, NULL, "Graphviz output: PCI tree, ACS marks, verdict edges", CALL(opt_dot)},
        {"prometheus", 0, NULL,
         "Prometheus text format for node_exporter's textfile collector (docs/prometheus.md)",
         CALL(opt_prometheus)},
        {"nccl-topo", 0, NULL, "the topology as NCCL's XML (for NCCL_TOPO_FILE; docs/nccl-topo.md)",
         CALL(opt_nccl_topo)},
        {"nfd", 0, NULL,
         "node-feature-discovery labels (p2pscope.io/...) for its features.d folder "
         "(docs/kubernetes.md)",
         CALL(opt_nfd)},
        {"nfd-expiry", 0, "SECONDS",
         "with --nfd: the labels expire SECONDS from now (# +expiry-time)", CALL(opt_nfd_expiry)},
        {"nvidia-facts", 0, "rm|nvml|none",
         "where the NVIDIA facts come from: the driver's RM API (default, NVML where it "
         "cannot be used), NVML, or nowhere",
         CALL(opt_nvidia_facts)},
        {"no-nvml", 0, NULL, "no NVIDIA facts from the driver (as --nvidia-facts none)",
         SOURCE_FLAG(P2PS_HOST_F_NO_NVML)},
        {"record", 0, "FILE", "save the RM API session to FILE (JSON capture, docs/bar-inspect.md)",
         P2PS_OPT_STRING(struct cli, rm.record)},
        {"replay", 0, "FILE",
         "answer the RM API from a capture FILE (with --root, the snapshot of its host)",
         P2PS_OPT_STRING(struct cli, rm.replay)},
        {"numeric", 'n', NULL, "numeric ids only (skip pci.ids names)",
         SOURCE_FLAG(P2PS_HOST_F_NO_NAMES)},
        {"ids-file", 'i', "FILE", "device names from this pci.ids (as lspci -i)",
         P2PS_OPT_STRING(struct cli, src.ids_file)},
        {"no-cache", 0, NULL,
         "ask NVML even where its facts are cached for this boot (one-GPU hosts; "
         "~/.cache/p2pscope)",
         FLAG(no_cache)},
        {"vfio", 0, "BDF[,BDF]|all",
         "also read these vfio-pci devices through VFIO (regions, "
         "full config); OPENING A VFIO DEVICE CAN RESET IT",
         CALL(opt_vfio)},
        {"vfio-flow", 0, "auto|legacy|cdev", "VFIO interface: group/container or cdev+iommufd",
         CALL(opt_vfio_flow)},
        {"read-reg", 0, "BAR:OFFSET",
         "map one page of BAR read-only and read one 32-bit register "
         "(devices of --vfio, or -s SLOT via sysfs, root); 0:0x0 "
         "decodes NVIDIA's PMC_BOOT_0",
         CALL(opt_read_reg)},
        {"map-peer", 0, "A,B[,BAR]",
         "VFIO_IOMMU_MAP_DMA B's BAR into A's container and report "
         "the IOVA or refusal; opens A and B via VFIO (CAN RESET THEM)",
         CALL(opt_map_peer)},
        {"fleet", 0, NULL,
         "summarise many hosts: the arguments are reports (--json output), folders, "
         "globs, capture tarballs, snapshot folders or - (docs/fleet.md)",
         FLAG(fleet.fleet)},
        {"csv", 0, NULL, "with --fleet: CSV, one row per host", FLAG(fleet.csv)},
        {"expect", 0, "FILE", "with --fleet: the hosts that should have reported, one a line",
         CALL(opt_expect)},
        {"check", 0, NULL,
         "exit 0 when every GPU pair is ready (or there is none), 1 when one has a\n"
         "blocker, 3 when a verdict is unknown (with --paste: the paste's verdict, and a\n"
         "paste that shows no GPU pair is unknown; with --fleet: the worst host)",
         FLAG(check)},
        {"timings", 0, NULL, "print where the time went, phase by phase, to stderr", FLAG(timings)},
        {"help", 'h', NULL, "this help", FLAG(help)},
        {"version", 'V', NULL, "print the version and the build", FLAG(version)},
};
static const struct p2ps_opts option_table = {P2PS_OPTS_ROWS(options), .help_width = 36};

static void usage(FILE *f)
{
	fprintf(f, "Usage: bar-inspect [--root DIR | --lspci-dump FILE | --paste FILE] [-s SLOT] "
	           "[--all]\n"
	           "       [--json | --dot | --prometheus | --nccl-topo | --nfd [--nfd-expiry S]]\n"
	           "       bar-inspect --fleet [--json | --csv] [--expect FILE] INPUT...\n\n"
	           "Reports each NVIDIA GPU's BARs, BAR1 against VRAM, Resizable BAR, PCIe link, "
	           "bridge path\nwith ACS, IOMMU mode, the nvidia-smi-style topology matrix and, "
	           "per GPU pair, whether\nstatic BAR1 P2P can work, with every reason and fix. "
	           "Read-only: fixes are printed, never\napplied. Without root, facts past the "
	           "first 64 bytes of config space are marked unknown.\n\nOptions:\n");
	char help[P2PS_OPTS_HELP_MAX];
	p2ps_opt_help(&option_table, help, sizeof(help));
	fputs(help, f);
	fprintf(f,
	        "\nExit status: 0 report printed, 2 bad usage or unreadable input; with --fleet,\n"
	        "1 when the summary lists skipped inputs or expected hosts without a report.\n"
	        "With --check: 0 every pair ready or no pair, 1 a blocker, 3 a verdict unknown\n"
	        "(with --paste: a paste showing no GPU pair is unknown; with --fleet: the worst\n"
	        "host, and a skipped input, a missing host or no host at all is unknown),\n"
	        "2 error.\n");
}

/* Parses argv into c. Returns 0, or -1 with c->err set. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	int first = p2ps_opt_parse(&option_table, argc, argv, c, c->err, sizeof(c->err));
	if (first == P2PS_OPT_TABLE)
		exit(p2ps_opt_print_table(&option_table));
	if (first < 0)
		return -1;
	if (first < argc && !c->fleet.fleet) {
		snprintf(c->err, sizeof(c->err), "unexpected argument '%s' (try --help)",
		         argv[first]);
		return -1;
	}
	c->inputs = argv + first;
	c->n_inputs = (size_t)(argc - first);
	return 0;
}

/* Options that need another: --fleet reads reports, not one host, so the options that pick
 * or shape one host's report do not apply to it, and its own options need it; --nfd-expiry
 * needs --nfd. Returns 0, or -1 with c->err set. */
static int check_combinations(struct cli *c)
{
	const struct bi_vfio_opts *v = &c->vfio;
	bool vfio = v->vfio || v->n_targets || v->asked.read_reg || v->asked.map_peer;
	if (!c->fleet.fleet && (c->fleet.csv || c->fleet.expect))
		snprintf(c->err, sizeof(c->err), "--csv and --expect need --fleet");
	else if (c->nfd_expiry[0] && c->format != OUT_NFD)
		snprintf(c->err, sizeof(c->err), "--nfd-expiry needs --nfd");
	else if (c->fleet.fleet &&
	         (c->have_source || (c->format != OUT_TEXT && c->format != OUT_JSON) || c->all ||
	          c->have_filter || vfio))
		snprintf(c->err, sizeof(c->err),
		         "--fleet takes reports as arguments: --root, --lspci-dump, --dot, "
		         "--prometheus, --nccl-topo, --nfd, --all, -s and the VFIO options do not "
		         "apply");
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
	                              .version = P2PS_VERSION,
	                              .nfd_expiry = c->nfd_expiry[0] ? c->nfd_expiry : NULL};
	switch (c->format) {
	case OUT_JSON: return p2ps_render_json_text(an, &ro, out, err);
	case OUT_DOT: return p2ps_render_dot(an, &ro, out, err);
	case OUT_PROMETHEUS: return p2ps_render_prometheus(an, &ro, out, err);
	case OUT_NCCL_TOPO: return p2ps_render_nccl_topo(an, &ro, out, err);
	case OUT_NFD: return p2ps_render_nfd(an, &ro, out, err);
	case OUT_TEXT: break;
	}
	return p2ps_render_text(an, &ro, out, err);
}

/* Load, analyse, render, write; then the exit status the VFIO facts call for. */
/* --libcuda FILE: its SHA-256 into the host model (the driver table knows releases and
 * patched builds by digest: the patch leaves no other mark). */
static int hash_libcuda(const char *path, struct p2ps_host_nvidia *nv, char *err, size_t es)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, es, "--libcuda %s: %s", path, strerror(errno));
		return -1;
	}
	struct p2ps_sha256 h;
	p2ps_sha256_init(&h);
	static unsigned char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		p2ps_sha256_update(&h, buf, n);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, es, "--libcuda %s: read error", path);
		return -1;
	}
	p2ps_sha256_hex(&h, nv->libcuda_sha256);
	snprintf(nv->libcuda_path, sizeof(nv->libcuda_path), "%s", path);
	return 0;
}

static int run(struct cli *c, struct p2ps_timings *tm, uint64_t lap)
{
	struct p2ps_vfio_request req;
	if (bi_vfio_request(&c->vfio, &c->src, c->format == OUT_DOT,
	                    c->have_filter ? &c->filter : NULL, &req, c->err, sizeof(c->err)) < 0)
		return bi_die(c->err);
	struct p2ps_error err = {0};
	struct p2ps_host host;
	c->src.timings = tm;
	if (bi_rm_begin(&c->rm, &c->src, c->note, c->err, sizeof(c->err)) < 0)
		return bi_die(c->err);
	p2ps_timings_lap(tm, "options", &lap);
	int lrc = p2ps_host_load(&host, &c->src, &err);
	if (bi_rm_end(&c->rm, lrc == 0 ? &host : NULL, c->err, sizeof(c->err)) < 0) {
		if (lrc == 0)
			p2ps_host_free(&host);
		return bi_die(c->err);
	}
	if (lrc < 0)
		return bi_die(err.msg);
	lap = p2ps_clock_ns();
	if (c->libcuda && hash_libcuda(c->libcuda, &host.nvidia, c->err, sizeof(c->err)) < 0) {
		p2ps_host_free(&host);
		return bi_die(c->err);
	}
	struct p2ps_drv_config dcfg;
	bool model = c->driver || c->driver_flavor;
	const char *spec = c->driver && strcmp(c->driver, "auto") ? c->driver : NULL;
	if (p2ps_drv_config_make(&host, spec, c->driver_flavor, &dcfg, c->err, sizeof(c->err)) <
	    0) {
		p2ps_host_free(&host);
		return bi_die(c->err);
	}
	struct p2ps_analysis_opts ao = {.peers = c->peers, .n_peers = c->n_peers, .driver = &dcfg};
	struct p2ps_analysis an;
	struct p2ps_drv_report drep = {0};
	struct p2ps_strbuf out = {0};
	int status;
	if (p2ps_analysis_run_opts(&host, &ao, &an, &err) < 0) {
		status = bi_die(err.msg);
	} else if (model && p2ps_drv_model_run(&an, &dcfg, &drep) < 0) {
		status = bi_die("driver model: out of memory");
	} else {
		an.driver = model ? &drep : NULL;
		p2ps_timings_lap(tm, "analysis", &lap);
		if (render(c, &an, &out, &err) < 0) {
			status = bi_die(err.msg);
		} else {
			p2ps_timings_lap(tm, "rendering", &lap);
			status = bi_write_report(&out);
			p2ps_timings_lap(tm, "writing the report", &lap);
			if (status == 0 && c->check)
				status = bi_check_status(&an);
		}
	}
	if (status != BI_EXIT_USAGE) {
		int vfio = bi_vfio_status(&host); /* a failed register read is an error */
		status = vfio ? vfio : status;
	}
	p2ps_strbuf_free(&out);
	p2ps_drv_report_free(&drep);
	p2ps_analysis_free(&an);
	p2ps_host_free(&host);
	return status;
}

int main(int argc, char **argv)
{
	uint64_t start = p2ps_clock_ns();
	struct cli c = {.src.kind = P2PS_HOST_LIVE};
	if (parse_args(argc, argv, &c) < 0 || check_combinations(&c) < 0)
		return bi_die(c.err);
	if (c.help) {
		usage(stdout);
		return 0;
	}
	if (c.version) {
		char version[256];
		fputs(p2ps_version_text(version, sizeof(version), "bar-inspect"), stdout);
		return 0;
	}
	if (c.fleet.fleet) {
		c.fleet.check = c.check;
		struct p2ps_analysis_opts ao = {.peers = c.peers, .n_peers = c.n_peers};
		return bi_fleet_run(&c.fleet, c.inputs, c.n_inputs, c.format == OUT_JSON,
		                    c.src.flags, &ao);
	}
	if (!c.no_cache)
		c.src.flags |= P2PS_HOST_F_NVML_CACHE;
	for (int i = 0, o = 0; i < argc && o < (int)sizeof(c.note) - 1; i++) {
		int k = snprintf(c.note + o, sizeof(c.note) - (size_t)o, "%s%s", i ? " " : "",
		                 argv[i]);
		o += k > 0 ? k : 0;
	}
	struct p2ps_timings tm = {0};
	int status = run(&c, c.timings ? &tm : NULL, start);
	if (c.timings)
		bi_print_timings(&tm);
	return status;
}
