/* SPDX-License-Identifier: MIT */
/* The fleet summary as CSV (RFC 4180): one row per host, then one per skipped input and
 * per expected host without a report (status "skipped" / "missing"), so a spreadsheet
 * holds every input the text names. Columns are listed in docs/fleet.md. */
#include "fleet_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const header[] = {"host",
                                     "status",
                                     "moot",
                                     "gpus",
                                     "models",
                                     "bar1",
                                     "vram",
                                     "bar1_covers_vram",
                                     "iommu",
                                     "pairs",
                                     "pairs_not_ready",
                                     "pairs_unknown",
                                     "blockers",
                                     "unknowns",
                                     "warnings",
                                     "gdr_pairs",
                                     "gdr_not_ready",
                                     "gdr_blockers",
                                     "drift",
                                     "driver",
                                     "kernel",
                                     "boot_id",
                                     "time",
                                     "tool_version",
                                     "source",
                                     "note"};
#define N_FIELDS (sizeof(header) / sizeof(header[0]))

/* A field, quoted when it holds a comma, quote or line break. */
static void field(struct fl_out *o, const char *s, bool last)
{
	s = s ? s : "";
	if (strpbrk(s, ",\"\r\n")) {
		fl_emit_str(o, "\"");
		for (const char *p = s; *p; p++)
			o->sink(o->ctx, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
		fl_emit_str(o, "\"");
	} else {
		fl_emit_str(o, s);
	}
	fl_emit_str(o, last ? "\r\n" : ",");
}

static void row(struct fl_out *o, const char *const *v)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		field(o, v[i], i + 1 == N_FIELDS);
}

/* Codes of one severity, ';'-separated ("code" or "code:subject"). */
static void codes(const struct p2ps_fleet_host *h, enum p2ps_fleet_severity sev, char *buf,
                  size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < h->n_causes && len < n; i++) {
		const struct p2ps_fleet_cause *c = &h->causes[i];
		if (c->severity != sev)
			continue;
		int w = snprintf(buf + len, n - len, "%s%s%s%s", len ? ";" : "", c->code,
		                 c->subject ? ":" : "", c->subject ? c->subject : "");
		len = w < 0 ? n : len + (size_t)w;
	}
}

/* The host's GPUDirect RDMA blockers, "code:pairs", ';'-separated. */
static void gdr_blockers(const struct p2ps_fleet_host *h, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < h->n_gdr_reasons && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s:%u", len ? ";" : "",
		                 h->gdr_reasons[i].code, h->gdr_reasons[i].pairs);
		len = w < 0 ? n : len + (size_t)w;
	}
}

/* The host's drift entries, ';'-separated; next[] links each host's entries (drift is
 * sorted by model, not by host). */
static void drift_of(const struct p2ps_fleet *f, const size_t *head, const size_t *next,
                     size_t host, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = head[host]; i != SIZE_MAX && len < n; i = next[i]) {
		const struct p2ps_fleet_drift *d = &f->drift[i];
		int w = snprintf(buf + len, n - len, "%s%s%s%s=%s (majority %s)", len ? ";" : "",
		                 d->bdf ? d->bdf : "", d->bdf ? " " : "", d->fact, d->value,
		                 d->majority);
		len = w < 0 ? n : len + (size_t)w;
	}
}

static void host_row(struct fl_out *o, const struct p2ps_fleet *f, size_t i, const char *drift)
{
	const struct p2ps_fleet_host *h = &f->hosts[i];
	const struct p2ps_fleet_gpu *g = fl_worst_bar1(h);
	char n_gpus[24], models[512], bar1[24], vram[24], pairs[24], bad[24], unk[24];
	char blockers[1024], unknowns[1024], warnings[1024];
	char gdr_pairs[24], gdr_bad[24], gdr_codes[512];
	snprintf(gdr_pairs, sizeof(gdr_pairs), "%zu", h->gdr_pairs);
	snprintf(gdr_bad, sizeof(gdr_bad), "%zu", h->gdr_not_ready);
	gdr_blockers(h, gdr_codes, sizeof(gdr_codes));
	snprintf(n_gpus, sizeof(n_gpus), "%zu", h->n_gpus);
	fl_models_str(h, models, sizeof(models));
	snprintf(bar1, sizeof(bar1), "%lld", g ? (long long)g->bar1_size : -1LL);
	snprintf(vram, sizeof(vram), "%lld", g ? (long long)g->vram : -1LL);
	snprintf(pairs, sizeof(pairs), "%zu", h->n_pairs);
	snprintf(bad, sizeof(bad), "%zu", h->pairs_not_ready);
	snprintf(unk, sizeof(unk), "%zu", h->pairs_unknown);
	codes(h, P2PS_FLEET_SEV_BLOCKER, blockers, sizeof(blockers));
	codes(h, P2PS_FLEET_SEV_UNKNOWN, unknowns, sizeof(unknowns));
	codes(h, P2PS_FLEET_SEV_WARNING, warnings, sizeof(warnings));
	int covers = g ? g->bar1_covers_vram : -1;
	const char *v[N_FIELDS] = {
	        h->name,
	        p2ps_fleet_status_name(h->status),
	        h->moot ? "yes" : "no",
	        n_gpus,
	        models,
	        g && g->bar1_size >= 0 ? bar1 : "",
	        g && g->vram >= 0 ? vram : "",
	        covers < 0 ? ""
	        : covers   ? "yes"
	                   : "no",
	        h->iommu,
	        pairs,
	        bad,
	        unk,
	        blockers,
	        unknowns,
	        warnings,
	        gdr_pairs,
	        gdr_bad,
	        gdr_codes,
	        drift,
	        h->driver,
	        h->kernel,
	        h->boot_id,
	        h->time,
	        h->tool_version,
	        h->source,
	        h->name_from_source ? "no hostname in the report: named after its file" : ""};
	row(o, v);
}

static void other_rows(struct fl_out *o, const struct p2ps_fleet *f)
{
	char note[1200];
	for (size_t i = 0; i < f->n_skipped; i++) {
		const char *v[N_FIELDS] = {"", "skipped"};
		snprintf(note, sizeof(note), "%s: %s", p2ps_fleet_skip_name(f->skipped[i].kind),
		         f->skipped[i].reason);
		v[N_FIELDS - 2] = f->skipped[i].source;
		v[N_FIELDS - 1] = note;
		row(o, v);
	}
	for (size_t i = 0; i < f->n_missing; i++) {
		const char *v[N_FIELDS] = {f->missing[i], "missing"};
		v[N_FIELDS - 1] = "expected, but no report";
		row(o, v);
	}
}

int p2ps_fleet_render_csv(const struct p2ps_fleet *f, p2ps_fleet_sink_fn sink, void *ctx,
                          struct p2ps_error *err)
{
	struct fl_out o = {sink, ctx};
	size_t *head = malloc((f->n_hosts + 1) * sizeof(size_t));
	size_t *next = malloc((f->n_drift + 1) * sizeof(size_t));
	char *drift = malloc(2048);
	if (!head || !next || !drift) {
		free(head);
		free(next);
		free(drift);
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory rendering the fleet as CSV");
	}
	/* One count for both loops: the sink could, as far as the analyzer knows, change
	 * f->n_hosts between them and leave head[] short. */
	size_t n_hosts = f->n_hosts;
	for (size_t i = 0; i < n_hosts; i++)
		head[i] = SIZE_MAX;
	for (size_t i = f->n_drift; i-- > 0;) {
		next[i] = head[f->drift[i].host];
		head[f->drift[i].host] = i;
	}
	row(&o, header);
	for (size_t i = 0; i < n_hosts; i++) {
		drift_of(f, head, next, i, drift, 2048);
		host_row(&o, f, i, drift);
	}
	other_rows(&o, f);
	free(head);
	free(next);
	free(drift);
	return 0;
}
