/* SPDX-License-Identifier: MIT */
/* p2p-bench check: does P2P work on this host, on every GPU pair and path, right now?
 *
 * One pipeline: the GPU side (check_cuda.c through the library's run, src/host/check) runs
 * beside bar-inspect's (the host model, its analysis and the driver model, on a thread of
 * their own), then the report joins them and one renderer prints it. --replay judges a saved
 * run again without a GPU. The exit status is the verdict's, as bar-inspect --check's: 0
 * works, 1 broken, 3 unknown, 2 error. */
#include "check_main.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "check_cuda.h"
#include "options.h"
#include "p2pscope/driver_model.h"
#include "p2pscope/host_load.h"
#include "p2pscope/parse.h"
#include "p2pscope/timings.h"

extern char **environ;

enum format { FMT_TEXT = 0, FMT_JSON, FMT_PROMETHEUS, FMT_QUIET };

struct check_cli {
	struct p2ps_chk_opts o;
	struct p2ps_chk_policy pol;
	int ndev, dev[P2PS_CHK_MAX_GPUS];
	enum format format;
	bool format_set;
	bool no_ipc, uvm, no_nccl, no_host, help;
	const char *nccl, *replay, *root;
};

static int set_format(struct check_cli *c, enum format f, char *err, size_t n)
{
	if (c->format_set && c->format != f)
		return snprintf(err, n, "--json, --prometheus and --quiet exclude each other"), -1;
	c->format_set = true;
	c->format = f;
	return 0;
}

static int opt_json(void *ctx, const char *arg, char *err, size_t n)
{
	(void)arg;
	return set_format(ctx, FMT_JSON, err, n);
}

static int opt_prometheus(void *ctx, const char *arg, char *err, size_t n)
{
	(void)arg;
	return set_format(ctx, FMT_PROMETHEUS, err, n);
}

static int opt_quiet(void *ctx, const char *arg, char *err, size_t n)
{
	(void)arg;
	return set_format(ctx, FMT_QUIET, err, n);
}

static int opt_devices(void *ctx, const char *arg, char *err, size_t n)
{
	struct check_cli *c = ctx;
	int dev[PB_MAX_DEV], count;
	if (pb_parse_devices(arg, dev, &count, err, n))
		return -1;
	if (count > P2PS_CHK_MAX_GPUS)
		return snprintf(err, n, "--devices: at most %d", P2PS_CHK_MAX_GPUS), -1;
	c->ndev = count;
	memcpy(c->dev, dev, (size_t)count * sizeof(dev[0]));
	return 0;
}

/* Bytes per step: a multiple of 16 from 4 KiB to 256 MiB. */
static int opt_size(void *ctx, const char *arg, char *err, size_t n)
{
	uint64_t v;
	if (p2ps_parse_size(arg, &v) || v < 4096 || v > (256u << 20) || v % 16)
		return snprintf(err, n, "bad --size '%s': a multiple of 16 bytes from 4K to 256M",
		                arg),
		       -1;
	((struct check_cli *)ctx)->o.payload = v;
	return 0;
}

/* Alias probe distances: sizes ("256M,512M"), or "none". */
static int opt_alias(void *ctx, const char *arg, char *err, size_t n)
{
	struct check_cli *c = ctx;
	char buf[128], *save = NULL;
	c->o.n_alias = 0;
	if (!strcmp(arg, "none"))
		return 0;
	if (strlen(arg) >= sizeof(buf))
		return snprintf(err, n, "bad --alias '%.32s...'", arg), -1;
	memcpy(buf, arg, strlen(arg) + 1);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (c->o.n_alias == P2PS_CHK_MAX_ALIAS || p2ps_parse_size(t, &v) || v % 16 ||
		    v < (1u << 20) || v > (64ull << 30))
			return snprintf(err, n,
			                "bad --alias '%s': up to %d sizes from 1M to 64G, or none",
			                arg, P2PS_CHK_MAX_ALIAS),
			       -1;
		c->o.alias[c->o.n_alias++] = v;
	}
	return c->o.n_alias ? 0 : (snprintf(err, n, "bad --alias '%s'", arg), -1);
}

static int opt_deadline(void *ctx, const char *arg, char *err, size_t n)
{
	uint64_t v;
	if (p2ps_parse_uint(arg, 600000, &v) || v < 10)
		return snprintf(err, n, "bad --deadline '%s' (10..600000 ms)", arg), -1;
	struct check_cli *c = ctx;
	c->o.step_ms = (unsigned)v;
	c->o.open_ms = (unsigned)(v * 10);
	return 0;
}

#define CALL(fn)     P2PS_OPT_CALL(fn)
#define FLAG(member) P2PS_OPT_FLAG(struct check_cli, member)

static const struct p2ps_opt rows[] = {
        {"devices", 'd', "LIST", "CUDA device numbers to check, e.g. 0,1 (default: all)",
         CALL(opt_devices)},
        {"size", 's', "BYTES", "bytes each step moves, suffix K/M (default 2M)", CALL(opt_size)},
        {"alias", 0, "SIZES|none",
         "alias probes: where else a step's data may land, at +-each size\n"
         "from its place (default 256M,512M,1G; a region of twice the largest\n"
         "per GPU)",
         CALL(opt_alias)},
        {"deadline", 0, "MS",
         "milliseconds a step may take before it counts as hung (default\n"
         "2000; finding and opening the GPUs and NCCL's start: ten times that)",
         CALL(opt_deadline)},
        {"no-ipc", 0, NULL, "skip the cross-process paths (cudaIpc, cuMem POSIX-FD handles)",
         FLAG(no_ipc)},
        {"uvm", 0, NULL,
         "also check managed memory across GPUs (off by default: it can fault\n"
         "with Xid 31 on some drivers, reported on P2P-patched ones since 590.44.01)",
         FLAG(uvm)},
        {"nccl", 0, "PATH", "the NCCL library (default: libnccl.so.2 where it loads)",
         P2PS_OPT_STRING(struct check_cli, nccl)},
        {"no-nccl", 0, NULL, "skip the NCCL part", FLAG(no_nccl)},
        {"allow-single", 0, NULL, "one GPU (no pair) counts as working, not as unknown",
         FLAG(pol.allow_single)},
        {"allow-no-p2p", 0, NULL,
         "pairs without P2P, as the driver reports, count as working when\n"
         "their copies through host memory verify",
         FLAG(pol.allow_no_p2p)},
        {"no-host", 0, NULL, "no host model: the observations alone, no prediction", FLAG(no_host)},
        {"replay", 0, "FILE", "judge a saved `p2p-bench check --json` again (no GPU needed)",
         P2PS_OPT_STRING(struct check_cli, replay)},
        {"root", 0, "DIR",
         "with --replay: the host facts from a snapshot (p2pscope-capture-host)\n"
         "of the machine the run was made on",
         P2PS_OPT_STRING(struct check_cli, root)},
        {"json", 0, NULL, "JSON output (schemas/p2p-bench-check.schema.json)", CALL(opt_json)},
        {"prometheus", 0, NULL, "Prometheus text for node_exporter's textfile collector",
         CALL(opt_prometheus)},
        {"quiet", 'q', NULL, "one line: the verdict and its main reason", CALL(opt_quiet)},
        {"help", 'h', NULL, "this text", FLAG(help)},
};
static const struct p2ps_opts check_opts = {P2PS_OPTS_ROWS(rows), .help_width = 22,
                                            .no_operands = true};

static const char check_usage[] =
        "usage: p2p-bench check [options]\n"
        "       p2p-bench check --replay FILE [--root DIR] [options]\n"
        "\n"
        "Checks that P2P works on every ordered GPU pair and path: CUDA peer access, the copy\n"
        "engine, SM stores and loads, another process through cudaIpc and cuMem POSIX-FD\n"
        "handles (and with --uvm managed memory), each with self-naming data and canaries\n"
        "around it, so that zeros, a write that never lands, a shifted copy, an alias a power\n"
        "of two away or a write to the wrong GPU show as themselves; then NCCL (all-reduce,\n"
        "all-gather, send/receive between every pair) where its library loads. Every step has\n"
        "a deadline: a hang is a verdict. Each pair is set beside bar-inspect's prediction and\n"
        "the driver's reported caps, and a mismatch comes with its likely causes and fixes.\n"
        "\n";

static const char check_exit[] =
        "\nExit status: 0 works, 1 broken (or P2P unavailable, unless --allow-no-p2p),\n"
        "3 unknown (no GPU, one GPU, a step not run), 2 error.\n";

/* ---- the host model, beside the GPU work ---- */

struct host_side {
	const char *root;        /* snapshot, or NULL: this host */
	const char *const *envp; /* NCCL variables as the user set them */
	struct p2ps_host host;
	struct p2ps_analysis an;
	struct p2ps_drv_config cfg;
	struct p2ps_drv_report drv;
	bool loaded, analysed, model;
	char error[200];
	double ms;
};

static void *host_main(void *arg)
{
	struct host_side *h = arg;
	uint64_t t0 = p2ps_clock_ns();
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = h->root ? P2PS_HOST_SNAPSHOT : P2PS_HOST_LIVE,
	                               .path = h->root,
	                               .envp = h->envp,
	                               .flags = h->root ? 0 : P2PS_HOST_F_NVML_CACHE};
	if (p2ps_host_load(&h->host, &src, &err) < 0) {
		snprintf(h->error, sizeof(h->error), "%.199s", err.msg);
		return NULL;
	}
	h->loaded = true;
	if (p2ps_drv_config_make(&h->host, NULL, NULL, &h->cfg, h->error, sizeof(h->error)) < 0)
		return NULL;
	struct p2ps_analysis_opts ao = {.driver = &h->cfg};
	if (p2ps_analysis_run_opts(&h->host, &ao, &h->an, &err) < 0) {
		snprintf(h->error, sizeof(h->error), "%.199s", err.msg);
		return NULL;
	}
	h->analysed = true;
	h->model = h->cfg.known && p2ps_drv_model_run(&h->an, &h->cfg, &h->drv) == 0;
	h->ms = (double)(p2ps_clock_ns() - t0) / 1e6;
	return NULL;
}

static void host_free(struct host_side *h)
{
	if (h->model)
		p2ps_drv_report_free(&h->drv);
	p2ps_analysis_free(&h->an);
	if (h->loaded)
		p2ps_host_free(&h->host);
}

/* The user's NCCL_* variables, before the check sets its own. */
static const char **nccl_env(void)
{
	size_t n = 0, k = 0;
	for (char **e = environ; *e; e++)
		n += !strncmp(*e, "NCCL_", 5);
	const char **v = calloc(n + 1, sizeof(*v));
	for (char **e = environ; v && *e; e++)
		if (!strncmp(*e, "NCCL_", 5))
			v[k++] = strdup(*e);
	return v;
}

/* NCCL's log goes to a file of the check's own; NVLink SHARP (multicast) stays off: it is not
 * a P2P path, and some virtual machines must not create multicast objects. */
static void nccl_env_set(char *log, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(log, n, "%s/p2pscope-check-nccl.%d.log", tmp && tmp[0] ? tmp : "/tmp",
	         (int)getpid());
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("NCCL_DEBUG_SUBSYS", "INIT,ENV", 1);
	setenv("NCCL_DEBUG_FILE", log, 1);
	setenv("NCCL_NVLS_ENABLE", "0", 1);
}

/* ---- output ---- */

static void now_utc(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int render(const struct check_cli *c, const struct p2ps_chk_report *rep, double wall_s)
{
	char date[32], host[64] = "";
	struct p2ps_strbuf out = {0};
	struct p2ps_error err = {0};
	now_utc(date, sizeof(date));
	gethostname(host, sizeof(host) - 1);
	struct p2ps_chk_render_opts ro = {P2PS_VERSION, date, host, wall_s};
	int rc = c->format == FMT_JSON         ? p2ps_chk_render_json(rep, &ro, &out, &err)
	         : c->format == FMT_PROMETHEUS ? p2ps_chk_render_prometheus(rep, &ro, &out)
	         : c->format == FMT_QUIET      ? p2ps_chk_render_line(rep, &ro, &out)
	                                       : p2ps_chk_render_text(rep, &ro, &out);
	if (rc || out.oom) {
		fprintf(stderr, "p2p-bench: out of memory\n");
		p2ps_strbuf_free(&out);
		return 2;
	}
	bool ok = fwrite(out.s, 1, out.len, stdout) == out.len && fflush(stdout) == 0;
	p2ps_strbuf_free(&out);
	if (!ok) {
		fprintf(stderr, "p2p-bench: cannot write the report\n");
		return 2;
	}
	return rep->exit_status;
}

static int report(const struct check_cli *c, const struct p2ps_chk_result *res, struct host_side *h,
                  double wall_s)
{
	struct p2ps_chk_report rep = {0};
	struct p2ps_error err = {0};
	snprintf(rep.host_error, sizeof(rep.host_error), "%s", c->no_host ? "--no-host" : h->error);
	rep.host_ms = c->replay ? res->host_ms : h->ms;
	if (p2ps_chk_report_make(res, h->analysed ? &h->an : NULL, h->model ? &h->drv : NULL,
	                         &c->pol, &rep, &err)) {
		fprintf(stderr, "p2p-bench: %s\n", err.msg);
		return 2;
	}
	int rc = render(c, &rep, wall_s);
	p2ps_chk_report_free(&rep);
	return rc;
}

/* ---- the two ways in ---- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16;
	char *buf = malloc(cap + 1);
	*len = 0;
	while (buf) {
		*len += fread(buf + *len, 1, cap - *len, f);
		if (*len < cap || cap >= (64u << 20))
			break;
		char *more = realloc(buf, 2 * cap + 1);
		if (!more) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = more;
		cap *= 2;
	}
	bool bad = ferror(f) != 0;
	fclose(f);
	if (buf && bad) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[*len] = 0;
	return buf;
}

static int replay(const struct check_cli *c)
{
	size_t len = 0;
	char *text = read_file(c->replay, &len);
	if (!text) {
		fprintf(stderr, "p2p-bench: cannot read %s\n", c->replay);
		return 2;
	}
	struct p2ps_chk_result *res = calloc(1, sizeof(*res));
	struct host_side *h = calloc(1, sizeof(*h));
	struct p2ps_error err = {0};
	int rc = 2;
	if (!res || !h) {
		fprintf(stderr, "p2p-bench: out of memory\n");
	} else if (p2ps_chk_result_read(text, len, res, &err)) {
		fprintf(stderr, "p2p-bench: %s: %s\n", c->replay, err.msg);
	} else {
		const char *envp[9] = {0};
		for (int k = 0; k < res->n_nccl_env && k < 8; k++)
			envp[k] = res->nccl_env[k];
		h->root = c->root;
		h->envp = res->nccl_env_known ? envp : NULL;
		if (c->root)
			host_main(h);
		else
			snprintf(h->error, sizeof(h->error), "replayed without --root");
		if (c->root && !h->analysed)
			fprintf(stderr, "p2p-bench: --root %s: %s\n", c->root, h->error);
		else
			rc = report(c, res, h, res->process_s);
	}
	if (h)
		host_free(h);
	free(h);
	free(res);
	free(text);
	return rc;
}

/* The live check. It ends the process itself: a thread stuck inside a CUDA call cannot be
 * joined, and the driver frees the GPUs' memory faster than the runtime would. */
static int live(struct check_cli *c, uint64_t t0)
{
	static struct pb_chk_cuda cuda;
	static struct host_side h;
	static char log[512];
	struct p2ps_error err = {0};
	const char **envp = nccl_env();
	if (!c->o.nccl)
		log[0] = 0;
	else
		nccl_env_set(log, sizeof(log));
	cuda.ndev_asked = c->ndev;
	memcpy(cuda.dev_asked, c->dev, sizeof(cuda.dev_asked));
	cuda.other_process = !c->no_ipc;
	cuda.self = "/proc/self/exe";
	cuda.nccl_path = c->nccl;
	cuda.nccl_logfile = log[0] ? log : NULL;
	h.envp = envp;
	pthread_t th;
	bool threaded = !c->no_host && pthread_create(&th, NULL, host_main, &h) == 0;
	if (!c->no_host && !threaded)
		host_main(&h);
	struct p2ps_chk_result *res = calloc(1, sizeof(*res));
	int rc = res ? p2ps_chk_run(&c->o, &pb_chk_cuda_ops, &cuda, res, &err) : P2PS_ENOMEM;
	if (threaded)
		pthread_join(th, NULL);
	if (rc) {
		fprintf(stderr, "p2p-bench: %s\n", res ? err.msg : "out of memory");
		rc = 2;
	} else {
		if (res->n)
			snprintf(res->nccl.library, sizeof(res->nccl.library), "%s",
			         c->nccl ? c->nccl : "libnccl.so.2");
		res->policy = c->pol;
		res->nccl_env_known = true;
		for (int k = 0; envp && envp[k] && res->n_nccl_env < 8; k++)
			snprintf(res->nccl_env[res->n_nccl_env++], sizeof(res->nccl_env[0]),
			         "%.127s", envp[k]);
		res->process_s = (double)(p2ps_clock_ns() - t0) / 1e9;
		rc = report(c, res, &h, res->process_s);
	}
	if (log[0])
		unlink(log);
	pb_chk_other_stop(&cuda, res && res->stuck_lanes > 0);
	fflush(NULL);
	_exit(rc);
}

int pb_check_main(int argc, char **argv)
{
	uint64_t t0 = p2ps_clock_ns();
	struct check_cli c = {0};
	char err[256];
	p2ps_chk_opts_default(&c.o);
	int first = p2ps_opt_parse(&check_opts, argc, argv, &c, err, sizeof(err));
	if (first == P2PS_OPT_TABLE)
		return p2ps_opt_print_table(&check_opts);
	if (first < 0) {
		fprintf(stderr, "p2p-bench: check: %s\n", err);
		return 2;
	}
	if (c.help) {
		char help[P2PS_OPTS_HELP_MAX];
		p2ps_opt_help(&check_opts, help, sizeof(help));
		printf("%s%s%s", check_usage, help, check_exit);
		return 0;
	}
	if (c.root && !c.replay) {
		fprintf(stderr, "p2p-bench: check: --root needs --replay (a live check reads this "
		                "host)\n");
		return 2;
	}
	if (c.nccl && access(c.nccl, R_OK)) {
		fprintf(stderr, "p2p-bench: check: cannot read the NCCL library %s\n", c.nccl);
		return 2;
	}
	if (c.no_ipc)
		c.o.paths &=
		        ~(P2PS_CHK_PATH_BIT(P2PS_CHK_IPC_CE) | P2PS_CHK_PATH_BIT(P2PS_CHK_IPC_SM) |
		          P2PS_CHK_PATH_BIT(P2PS_CHK_FD_CE) | P2PS_CHK_PATH_BIT(P2PS_CHK_FD_SM));
	if (c.uvm)
		c.o.paths |= P2PS_CHK_PATH_BIT(P2PS_CHK_UVM);
	c.o.nccl = !c.no_nccl;
	return c.replay ? replay(&c) : live(&c, t0);
}
