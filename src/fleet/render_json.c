/* SPDX-License-Identifier: MIT */
/* The fleet summary as one JSON document (schema in docs/fleet.md) and as CSV, one row
 * per host, then one per skipped input and per missing host, so that a spreadsheet has
 * every input the text shows. */
#include "fleet_internal.h"

#include "json_put.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLEET_SCHEMA_VERSION 1

/* Unlike p2ps_json_str_or_null, a report's "" stays "": the fleet repeats what it read. */
static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *size_or_null(int64_t v)
{
	return v >= 0 ? json_object_new_int64(v) : NULL;
}

static struct json_object *gpu_json(const struct p2ps_fleet_gpu *g)
{
	struct json_object *o = json_object_new_object(), *l = json_object_new_object();
	p2ps_json_put(o, "bdf", str_or_null(g->bdf));
	p2ps_json_put(o, "model", str_or_null(g->model));
	p2ps_json_put(o, "is_gpu", json_object_new_boolean(g->is_gpu));
	p2ps_json_put(o, "bar1_size", size_or_null(g->bar1_size));
	p2ps_json_put(o, "vram", size_or_null(g->vram));
	p2ps_json_put(o, "bar1_covers_vram", p2ps_json_tri(g->bar1_covers_vram));
	p2ps_json_put(l, "width", g->width ? json_object_new_int(g->width) : NULL);
	p2ps_json_put(l, "cap_width", g->cap_width ? json_object_new_int(g->cap_width) : NULL);
	p2ps_json_put(l, "speed_gts",
	              g->speed_gts > 0 ? json_object_new_double(g->speed_gts) : NULL);
	p2ps_json_put(l, "cap_speed_gts",
	              g->cap_speed_gts > 0 ? json_object_new_double(g->cap_speed_gts) : NULL);
	p2ps_json_put(o, "link", l);
	p2ps_json_put(o, "iommu_mode", str_or_null(g->iommu_mode));
	return o;
}

static struct json_object *cause_json(const struct p2ps_fleet_cause *c)
{
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "code", json_object_new_string(c->code));
	p2ps_json_put(o, "subject", str_or_null(c->subject));
	p2ps_json_put(o, "severity", json_object_new_string(fl_severity_name(c->severity)));
	p2ps_json_put(o, "count", json_object_new_int64(c->count));
	p2ps_json_put(o, "text", str_or_null(c->text));
	p2ps_json_put(o, "fix", str_or_null(c->fix));
	p2ps_json_put(o, "fix_varies", json_object_new_boolean(c->fix_varies));
	return o;
}

static struct json_object *host_json(const struct p2ps_fleet_host *h)
{
	struct json_object *o = json_object_new_object(), *p = json_object_new_object();
	struct json_object *gpus = json_object_new_array(), *causes = json_object_new_array();
	const char *strs[][2] = {{"name", h->name},
	                         {"source", h->source},
	                         {"boot_id", h->boot_id},
	                         {"time", h->time},
	                         {"tool_version", h->tool_version},
	                         {"kernel", h->kernel},
	                         {"driver", h->driver},
	                         {"backend", h->backend},
	                         {"iommu", h->iommu}};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		p2ps_json_put(o, strs[i][0], str_or_null(strs[i][1]));
	p2ps_json_put(o, "name_from_source", json_object_new_boolean(h->name_from_source));
	p2ps_json_put(o, "schema_version", json_object_new_int(h->schema_version));
	p2ps_json_put(o, "config_limited", json_object_new_boolean(h->config_limited));
	p2ps_json_put(o, "status", json_object_new_string(p2ps_fleet_status_name(h->status)));
	p2ps_json_put(o, "moot", json_object_new_boolean(h->moot));
	const struct p2ps_json_int_row pairs[] = {{"total", (int64_t)h->n_pairs},
	                                          {"ready", (int64_t)h->pairs_ready},
	                                          {"not_ready", (int64_t)h->pairs_not_ready},
	                                          {"unknown", (int64_t)h->pairs_unknown},
	                                          {"moot", (int64_t)h->pairs_moot}};
	p2ps_json_put_ints(p, P2PS_JSON_ROWS(pairs));
	p2ps_json_put(o, "pairs", p);
	for (size_t i = 0; i < h->n_gpus; i++)
		json_object_array_add(gpus, gpu_json(&h->gpus[i]));
	for (size_t i = 0; i < h->n_causes; i++)
		json_object_array_add(causes, cause_json(&h->causes[i]));
	p2ps_json_put(o, "gpus", gpus);
	p2ps_json_put(o, "causes", causes);
	if (h->gdr_not_ready) { /* a host whose GPUDirect RDMA pairs are all ready: nothing */
		struct json_object *g = json_object_new_object(), *by = json_object_new_object();
		p2ps_json_put(g, "pairs", json_object_new_int64((int64_t)h->gdr_pairs));
		p2ps_json_put(g, "not_ready", json_object_new_int64((int64_t)h->gdr_not_ready));
		for (size_t i = 0; i < h->n_gdr_reasons; i++)
			p2ps_json_put(by, h->gdr_reasons[i].code,
			              json_object_new_int64(h->gdr_reasons[i].pairs));
		p2ps_json_put(g, "not_ready_by_blocker", by);
		p2ps_json_put(o, "gpudirect_rdma", g);
	}
	return o;
}

static struct json_object *group_json(const struct p2ps_fleet *f, const struct p2ps_fleet_group *g)
{
	struct json_object *o = json_object_new_object(), *hosts = json_object_new_array();
	p2ps_json_put(o, "code", json_object_new_string(g->code));
	p2ps_json_put(o, "subject", str_or_null(g->subject));
	p2ps_json_put(o, "severity", json_object_new_string(fl_severity_name(g->severity)));
	p2ps_json_put(o, "title", str_or_null(g->title));
	p2ps_json_put(o, "fix", str_or_null(g->fix));
	p2ps_json_put(o, "fix_host", str_or_null(g->fix_host));
	for (size_t i = 0; i < g->n_hosts; i++)
		json_object_array_add(hosts, json_object_new_string(f->hosts[g->hosts[i]].name));
	p2ps_json_put(o, "hosts", hosts);
	return o;
}

static struct json_object *drift_json(const struct p2ps_fleet *f, const struct p2ps_fleet_drift *d)
{
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "model", json_object_new_string(d->model));
	p2ps_json_put(o, "host", json_object_new_string(f->hosts[d->host].name));
	p2ps_json_put(o, "bdf", str_or_null(d->bdf));
	p2ps_json_put(o, "fact", json_object_new_string(d->fact));
	p2ps_json_put(o, "value", str_or_null(d->value));
	p2ps_json_put(o, "majority", str_or_null(d->majority));
	p2ps_json_put(o, "n_majority", json_object_new_int64((int64_t)d->n_majority));
	p2ps_json_put(o, "n_total", json_object_new_int64((int64_t)d->n_total));
	return o;
}

static struct json_object *counts_json(const struct p2ps_fleet *f)
{
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "documents", json_object_new_int64((int64_t)f->n_documents));
	p2ps_json_put(o, "hosts", json_object_new_int64((int64_t)f->n_hosts));
	p2ps_json_put(o, "skipped", json_object_new_int64((int64_t)f->n_skipped));
	p2ps_json_put(o, "missing", json_object_new_int64((int64_t)f->n_missing));
	p2ps_json_put(o, "not_ready",
	              json_object_new_int64((int64_t)f->by_status[P2PS_FLEET_NOT_READY]));
	p2ps_json_put(o, "unknown",
	              json_object_new_int64((int64_t)f->by_status[P2PS_FLEET_UNKNOWN]));
	p2ps_json_put(o, "ready", json_object_new_int64((int64_t)f->by_status[P2PS_FLEET_READY]));
	p2ps_json_put(o, "no_pair",
	              json_object_new_int64((int64_t)f->by_status[P2PS_FLEET_NO_PAIR]));
	p2ps_json_put(o, "moot", json_object_new_int64((int64_t)f->n_moot));
	return o;
}

static struct json_object *fleet_json(const struct p2ps_fleet *f)
{
	struct json_object *root = json_object_new_object();
	struct json_object *arrs[5];
	for (int i = 0; i < 5; i++)
		arrs[i] = json_object_new_array();
	for (size_t i = 0; i < f->n_hosts; i++)
		json_object_array_add(arrs[0], host_json(&f->hosts[i]));
	for (size_t i = 0; i < f->n_groups; i++)
		json_object_array_add(arrs[1], group_json(f, &f->groups[i]));
	for (size_t i = 0; i < f->n_drift; i++)
		json_object_array_add(arrs[2], drift_json(f, &f->drift[i]));
	for (size_t i = 0; i < f->n_skipped; i++) {
		struct json_object *s = json_object_new_object();
		p2ps_json_put(s, "source", json_object_new_string(f->skipped[i].source));
		p2ps_json_put(s, "kind",
		              json_object_new_string(p2ps_fleet_skip_name(f->skipped[i].kind)));
		p2ps_json_put(s, "reason", json_object_new_string(f->skipped[i].reason));
		json_object_array_add(arrs[3], s);
	}
	for (size_t i = 0; i < f->n_missing; i++)
		json_object_array_add(arrs[4], json_object_new_string(f->missing[i]));
	p2ps_json_put(root, "schema_version", json_object_new_int(FLEET_SCHEMA_VERSION));
	p2ps_json_put(root, "tool", json_object_new_string("bar-inspect"));
	p2ps_json_put(root, "kind", json_object_new_string("fleet"));
	p2ps_json_put(root, "version", str_or_null(f->priv->opts.tool_version));
	p2ps_json_put(root, "counts", counts_json(f));
	static const char *const names[5] = {"hosts", "groups", "drift", "skipped", "missing"};
	for (int i = 0; i < 5; i++)
		p2ps_json_put(root, names[i], arrs[i]);
	return root;
}

int p2ps_fleet_render_json(const struct p2ps_fleet *f, p2ps_fleet_sink_fn sink, void *ctx,
                           struct p2ps_error *err)
{
	struct json_object *root = fleet_json(f);
	const char *s = json_object_to_json_string_ext(
	        root,
	        JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s) {
		json_object_put(root);
		return p2ps_error_set(err, P2PS_ENOMEM,
		                      "out of memory rendering the fleet as JSON");
	}
	sink(ctx, s, strlen(s));
	sink(ctx, "\n", 1);
	json_object_put(root);
	return 0;
}
