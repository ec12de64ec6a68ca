/* SPDX-License-Identifier: MIT */
/* bar-inspect --fleet (fleet_opts.h): reads the inputs through libp2psfleet, which turns
 * snapshot folders and tarballs into reports with this tool's own pipeline (load,
 * analyse, render JSON), and writes the summary to stdout as it is rendered. */
#include "fleet_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "p2pscope/fleet.h"
#include "p2pscope/host_load.h"
#include "p2pscope/render.h"
#include "p2pscope/parse.h"

enum { FLEET_TEXT, FLEET_JSON, FLEET_CSV };

int bi_fleet_opt_expect(struct bi_fleet_opts *f, const char *arg, char *err, size_t err_size)
{
	if (!arg[0]) {
		snprintf(err, err_size, "--expect needs a file (one host name a line)");
		return -1;
	}
	f->expect = arg;
	return 0;
}

struct snapshot_ctx {
	unsigned flags;
	const struct p2ps_analysis_opts *ao;
};

/* A snapshot folder into the report `bar-inspect --root DIR --json` prints. */
static int snapshot_report(void *ctx, const char *dir, struct json_object **report,
                           struct p2ps_error *err)
{
	const struct snapshot_ctx *c = ctx;
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_SNAPSHOT, .path = dir, .flags = c->flags | P2PS_HOST_F_NO_NVML};
	struct p2ps_host host;
	if (p2ps_host_load(&host, &src, err) < 0)
		return err->code;
	struct p2ps_analysis an;
	int rc = p2ps_analysis_run_opts(&host, c->ao, &an, err);
	if (rc == 0) {
		struct p2ps_render_opts ro = {.version = P2PS_VERSION};
		rc = p2ps_render_json(&an, &ro, report, err);
		p2ps_analysis_free(&an);
	}
	p2ps_host_free(&host);
	return rc;
}

/* --expect FILE: one host name a line; blank lines and '#' comments are skipped. */
static int read_expect(struct p2ps_fleet *fleet, const char *path, struct p2ps_error *err)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return p2ps_error_set(err, P2PS_ENOENT, "--expect %s: %s", path, strerror(errno));
	char line[1024];
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		char *s = line + strspn(line, " \t");
		s[strcspn(s, "#\r\n")] = '\0';
		for (size_t l = strlen(s); l && (s[l - 1] == ' ' || s[l - 1] == '\t'); l--)
			s[l - 1] = '\0';
		if (*s)
			rc = p2ps_fleet_expect(fleet, s, err);
	}
	fclose(fp);
	return rc;
}

static void to_stdout(void *ctx, const char *s, size_t n)
{
	bool *failed = ctx;
	if (n && fwrite(s, 1, n, stdout) != n)
		*failed = true;
}

/* Renders in the chosen format straight to stdout. */
static int render(const struct p2ps_fleet *fleet, int format, struct p2ps_error *err)
{
	bool failed = false;
	int rc = format == FLEET_JSON  ? p2ps_fleet_render_json(fleet, to_stdout, &failed, err)
	         : format == FLEET_CSV ? p2ps_fleet_render_csv(fleet, to_stdout, &failed, err)
	                               : p2ps_fleet_render_text(fleet, to_stdout, &failed, err);
	if (rc == 0 && (fflush(stdout) != 0 || failed))
		rc = p2ps_error_set(err, P2PS_EIO, "writing the summary: %s", strerror(errno));
	return rc;
}

/* P2PS_FLEET_THREADS: how many threads read report files (0: one per CPU). */
static unsigned threads_from_env(void)
{
	const char *t = getenv("P2PS_FLEET_THREADS");
	uint64_t v = 0;
	if (t)
		p2ps_scan_uint(t, 10, 64, &v);
	return (unsigned)v;
}

/* --check over the fleet: the worst host decides (a blocker on one host: 1); a host whose
 * verdict is unknown, an input that could not be read, an expected host without a report,
 * or inputs that hold no host at all leave the fleet's readiness unknown (3): a check never
 * passes on nothing. */
static int check_status(const struct p2ps_fleet *fleet)
{
	bool unknown = fleet->n_skipped || fleet->n_missing || !fleet->n_hosts;
	for (size_t i = 0; i < fleet->n_hosts; i++) {
		if (fleet->hosts[i].status == P2PS_FLEET_NOT_READY)
			return BI_EXIT_BLOCKED;
		unknown |= fleet->hosts[i].status == P2PS_FLEET_UNKNOWN;
	}
	return unknown ? BI_EXIT_UNKNOWN : BI_EXIT_READY;
}

int bi_fleet_run(const struct bi_fleet_opts *f, char *const *inputs, size_t n_inputs, bool json,
                 unsigned flags, const struct p2ps_analysis_opts *ao)
{
	if (!n_inputs)
		return bi_die("--fleet needs inputs: report files, folders, glob patterns, capture "
		              "tarballs, snapshot folders, or - for standard input");
	if (json && f->csv)
		return bi_die("--json and --csv are mutually exclusive");
	struct snapshot_ctx sc = {flags, ao};
	struct p2ps_fleet_opts o = {.snapshot = snapshot_report,
	                            .snapshot_ctx = &sc,
	                            .threads = threads_from_env(),
	                            .tool_version = P2PS_VERSION,
	                            .reason_title = p2ps_reason_title};
	struct p2ps_fleet *fleet = p2ps_fleet_new(&o);
	if (!fleet)
		return bi_die("out of memory");
	struct p2ps_error err = {0};
	int rc = f->expect ? read_expect(fleet, f->expect, &err) : 0;
	if (rc == 0)
		rc = p2ps_fleet_add_inputs(fleet, (const char *const *)inputs, n_inputs, &err);
	if (rc == 0)
		rc = p2ps_fleet_finish(fleet, &err);
	if (rc == 0)
		rc = render(fleet, f->csv ? FLEET_CSV : json ? FLEET_JSON : FLEET_TEXT, &err);
	int status = rc < 0                                 ? bi_die(err.msg)
	             : f->check                             ? check_status(fleet)
	             : fleet->n_skipped || fleet->n_missing ? 1
	                                                    : 0;
	p2ps_fleet_free(fleet);
	return status;
}
