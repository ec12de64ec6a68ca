/* SPDX-License-Identifier: MIT */
/* The fleet summary as text: one table row per host (worst first), the causes grouped
 * with their fix, drift within each GPU model, and every input that is not a host. */
#include "fleet_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTS_LISTED_MAX 8 /* names under a cause group; JSON and CSV list them all */

enum { COL_HOST, COL_GPUS, COL_BAR1, COL_IOMMU, COL_P2P, COL_CAUSES, COL_DRIFT, N_COLS };
static const char *const col_names[N_COLS] = {"HOST", "GPUS",   "BAR1/VRAM", "IOMMU",
                                              "P2P",  "CAUSES", "DRIFT"};

struct row {
	char cell[N_COLS][160];
};

/* "256G >= 140.4G" for the GPU whose BAR1 covers its VRAM least. */
static void bar1_cell(const struct p2ps_fleet_host *h, char *buf, size_t n)
{
	const struct p2ps_fleet_gpu *g = fl_worst_bar1(h);
	char bar1[16], vram[16];
	if (!g) {
		snprintf(buf, n, "-");
		return;
	}
	fl_size_str(bar1, sizeof(bar1), g->bar1_size);
	fl_size_str(vram, sizeof(vram), g->vram);
	const char *rel = g->bar1_covers_vram == 1 ? ">=" : g->bar1_covers_vram == 0 ? "<" : "vs";
	snprintf(buf, n, "%s %s %s", bar1, rel, vram);
}

static void p2p_cell(const struct p2ps_fleet_host *h, char *buf, size_t n)
{
	size_t bad = h->status == P2PS_FLEET_NOT_READY ? h->pairs_not_ready
	             : h->status == P2PS_FLEET_UNKNOWN ? h->pairs_unknown
	                                               : 0;
	int w = snprintf(buf, n, "%s", p2ps_fleet_status_name(h->status));
	if (bad && w > 0 && (size_t)w < n)
		w += snprintf(buf + w, n - (size_t)w, " %zu/%zu", bad, h->n_pairs);
	if (h->moot && w > 0 && (size_t)w < n)
		snprintf(buf + w, n - (size_t)w, " (NVLink)");
}

/* Appends item to a comma-separated cell unless it is there already. */
static void list_add(char *buf, size_t n, const char *item)
{
	size_t len = strlen(buf), m = strlen(item);
	for (const char *p = buf; (p = strstr(p, item)); p += m)
		if ((p == buf || p[-1] == ' ') && (p[m] == ',' || p[m] == '\0'))
			return;
	if (len + m + 3 < n)
		snprintf(buf + len, n - len, "%s%s", len ? ", " : "", item);
	else if (len + 4 < n && strcmp(buf + len - 3, "..."))
		snprintf(buf + len, n - len, "...");
}

/* The causes that decide the verdict: blockers, or for an unknown host its unknowns. */
static void causes_cell(const struct p2ps_fleet_host *h, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < h->n_causes; i++)
		if (h->causes[i].severity == P2PS_FLEET_SEV_BLOCKER ||
		    (h->causes[i].severity == P2PS_FLEET_SEV_UNKNOWN &&
		     h->status != P2PS_FLEET_NOT_READY))
			list_add(buf, n, h->causes[i].code);
	if (!buf[0])
		snprintf(buf, n, "-");
}

static void make_row(const struct p2ps_fleet *f, size_t i, const char *drift, struct row *r)
{
	const struct p2ps_fleet_host *h = &f->hosts[i];
	snprintf(r->cell[COL_HOST], sizeof(r->cell[0]), "%s", h->name);
	fl_models_str(h, r->cell[COL_GPUS], sizeof(r->cell[0]));
	bar1_cell(h, r->cell[COL_BAR1], sizeof(r->cell[0]));
	snprintf(r->cell[COL_IOMMU], sizeof(r->cell[0]), "%s", h->iommu ? h->iommu : "unknown");
	p2p_cell(h, r->cell[COL_P2P], sizeof(r->cell[0]));
	causes_cell(h, r->cell[COL_CAUSES], sizeof(r->cell[0]));
	snprintf(r->cell[COL_DRIFT], sizeof(r->cell[0]), "%s", drift[0] ? drift : "-");
}

static void emit_row(struct fl_out *o, char cells[N_COLS][160], const size_t *width)
{
	for (int c = 0; c < N_COLS - 1; c++)
		fl_emit(o, "%-*s  ", (int)width[c], cells[c]);
	fl_emit(o, "%s\n", cells[N_COLS - 1]);
}

/* Two passes over the hosts: the column widths, then the rows. */
static void table(struct fl_out *o, const struct p2ps_fleet *f, char (*drift)[64])
{
	size_t width[N_COLS];
	struct row r;
	for (int c = 0; c < N_COLS; c++)
		width[c] = strlen(col_names[c]);
	for (size_t i = 0; i < f->n_hosts; i++) {
		make_row(f, i, drift[i], &r);
		for (int c = 0; c < N_COLS; c++)
			if (strlen(r.cell[c]) > width[c])
				width[c] = strlen(r.cell[c]);
	}
	for (int c = 0; c < N_COLS; c++)
		snprintf(r.cell[c], sizeof(r.cell[c]), "%s", col_names[c]);
	emit_row(o, r.cell, width);
	for (size_t i = 0; i < f->n_hosts; i++) {
		make_row(f, i, drift[i], &r);
		emit_row(o, r.cell, width);
	}
}

static void host_list(struct fl_out *o, const struct p2ps_fleet *f, const size_t *hosts, size_t n)
{
	fl_emit_str(o, "           ");
	for (size_t i = 0; i < n && i < HOSTS_LISTED_MAX; i++)
		fl_emit(o, "%s%s", i ? ", " : "", f->hosts[hosts[i]].name);
	if (n > HOSTS_LISTED_MAX)
		fl_emit(o, " and %zu more", n - HOSTS_LISTED_MAX);
	fl_emit_str(o, "\n");
}

static void groups(struct fl_out *o, const struct p2ps_fleet *f)
{
	static const char *const heads[] = {"Blocking causes", "Unknown facts", "Warnings"};
	int last = -1;
	for (size_t i = 0; i < f->n_groups; i++) {
		const struct p2ps_fleet_group *g = &f->groups[i];
		if ((int)g->severity != last) {
			last = (int)g->severity;
			fl_emit(o, "\n%s, by cause:\n", heads[last]);
		}
		fl_emit(o, "  %zu host%s%*s%s [%s%s%s]\n", g->n_hosts, g->n_hosts == 1 ? " " : "s",
		        g->n_hosts < 10 ? 2 : 1, "", g->title ? g->title : g->code, g->code,
		        g->subject ? ": " : "", g->subject ? g->subject : "");
		host_list(o, f, g->hosts, g->n_hosts);
		if (g->fix && g->fix_host)
			fl_emit(o, "           fix (as on %s; it differs per host or device): %s\n",
			        g->fix_host, g->fix);
		else if (g->fix)
			fl_emit(o, "           fix: %s\n", g->fix);
	}
}

static void drift_section(struct fl_out *o, const struct p2ps_fleet *f)
{
	const char *model = NULL;
	if (f->n_drift)
		fl_emit_str(o, "\nDrift within a GPU model (against the value most of its GPUs or "
		               "hosts have):\n");
	for (size_t i = 0; i < f->n_drift; i++) {
		const struct p2ps_fleet_drift *d = &f->drift[i];
		if (!model || strcmp(model, d->model))
			fl_emit(o, "  %s\n", model = d->model);
		fl_emit(o, "    %s%s%s: %s %s (%s on %zu of %zu %s)\n", f->hosts[d->host].name,
		        d->bdf ? " " : "", d->bdf ? d->bdf : "", d->fact, d->value, d->majority,
		        d->n_majority, d->n_total, d->bdf ? "GPUs" : "hosts");
	}
}

/* Hosts with GPUDirect RDMA pairs (GPU x NIC) that are not ready, and why; a host whose
 * pairs are all ready does not appear. */
static void gdr_section(struct fl_out *o, const struct p2ps_fleet *f)
{
	bool head = false;
	for (size_t i = 0; i < f->n_hosts; i++) {
		const struct p2ps_fleet_host *h = &f->hosts[i];
		if (!h->gdr_not_ready)
			continue;
		if (!head)
			fl_emit_str(o, "\nGPUDirect RDMA pairs not ready (GPU x RDMA device), by "
			               "blocker:\n");
		head = true;
		fl_emit(o, "  %s: %zu of %zu not ready", h->name, h->gdr_not_ready, h->gdr_pairs);
		for (size_t k = 0; k < h->n_gdr_reasons; k++)
			fl_emit(o, "%s%s %u", k ? ", " : ": ", h->gdr_reasons[k].code,
			        h->gdr_reasons[k].pairs);
		fl_emit_str(o, "\n");
	}
}

static void skipped_section(struct fl_out *o, const struct p2ps_fleet *f)
{
	if (f->n_skipped)
		fl_emit_str(o, "\nSkipped inputs (not counted as hosts):\n");
	for (size_t i = 0; i < f->n_skipped; i++)
		fl_emit(o, "  %s: %s: %s\n", f->skipped[i].source,
		        p2ps_fleet_skip_name(f->skipped[i].kind), f->skipped[i].reason);
	if (f->n_missing)
		fl_emit(o, "\nExpected hosts without a report (%zu):\n", f->n_missing);
	for (size_t i = 0; i < f->n_missing; i++)
		fl_emit(o, "  %s\n", f->missing[i]);
}

static void totals(struct fl_out *o, const struct p2ps_fleet *f)
{
	fl_emit(o, "\n%zu host%s: %zu not ready, %zu unknown, %zu ready, %zu without a GPU pair",
	        f->n_hosts, f->n_hosts == 1 ? "" : "s", f->by_status[P2PS_FLEET_NOT_READY],
	        f->by_status[P2PS_FLEET_UNKNOWN], f->by_status[P2PS_FLEET_READY],
	        f->by_status[P2PS_FLEET_NO_PAIR]);
	if (f->n_moot)
		fl_emit(o, " (on %zu, NVLink joins every pair with the worst verdict)", f->n_moot);
	fl_emit(o, "; %zu input%s skipped, %zu expected host%s missing.\n", f->n_skipped,
	        f->n_skipped == 1 ? "" : "s", f->n_missing, f->n_missing == 1 ? "" : "s");
}

int p2ps_fleet_render_text(const struct p2ps_fleet *f, p2ps_fleet_sink_fn sink, void *ctx,
                           struct p2ps_error *err)
{
	struct fl_out o = {sink, ctx};
	char(*drift)[64] = calloc(f->n_hosts ? f->n_hosts : 1, sizeof(*drift));
	if (!drift)
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory rendering the fleet");
	for (size_t i = 0; i < f->n_drift; i++)
		list_add(drift[f->drift[i].host], sizeof(drift[0]), f->drift[i].fact);
	const char *v = f->priv->opts.tool_version;
	fl_emit(&o, "bar-inspect%s%s fleet summary: %zu hosts from %zu documents and inputs\n\n",
	        v ? " " : "", v ? v : "", f->n_hosts, f->n_documents);
	table(&o, f, drift);
	groups(&o, f);
	drift_section(&o, f);
	gdr_section(&o, f);
	skipped_section(&o, f);
	totals(&o, f);
	free(drift);
	return 0;
}
