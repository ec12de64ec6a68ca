/* SPDX-License-Identifier: MIT */
/* The driver model's part of the JSON report: the "driver_model" member. */
#include <json-c/json.h>

#include "json_put.h"
#include "p2pscope/driver_model.h"
#include "render_internal.h"

static struct json_object *verdict(const struct p2ps_drv_verdict *v)
{
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "status", json_object_new_string(p2ps_nv_status_code(v->st)));
	p2ps_json_put(o, "gate", json_object_new_string(p2ps_nv_gate_name(v->gate)));
	return o;
}

static struct json_object *status_map(const enum p2ps_nv_status *st, const enum p2ps_nv_gate *g)
{
	struct json_object *o = json_object_new_object();
	for (int k = 0; k < P2PS_NV_CAPS_COUNT; k++) {
		if (!g) {
			p2ps_json_put(o, p2ps_nv_caps_index_name((unsigned)k),
			              json_object_new_string(p2ps_nv_status_code(st[k])));
			continue;
		}
		struct p2ps_drv_verdict v = {st[k], g[k]};
		p2ps_json_put(o, p2ps_nv_caps_index_name((unsigned)k), verdict(&v));
	}
	return o;
}

static struct json_object *pair_json(const struct p2ps_analysis *a, const struct p2ps_drv_pair *p)
{
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "a", json_object_new_string(a->host->devs[a->gpus[p->a].dev_idx].bdf_str));
	p2ps_json_put(o, "b", json_object_new_string(a->host->devs[a->gpus[p->b].dev_idx].bdf_str));
	p2ps_json_put(o, "path", json_object_new_string(p2ps_nv_path_name(p->chosen)));
	p2ps_json_put(o, "status", status_map(p->st, p->gate));
	struct json_object *paths = json_object_new_object();
	for (int k = 0; k < P2PS_NV_PATH_COUNT; k++) {
		const struct p2ps_drv_path_result *r = &p->path[k];
		if (!r->tried)
			continue;
		struct json_object *po = json_object_new_object();
		p2ps_json_put(po, p2ps_nv_caps_index_name(P2PS_NV_CAPS_READ), verdict(&r->read));
		p2ps_json_put(po, p2ps_nv_caps_index_name(P2PS_NV_CAPS_WRITE), verdict(&r->write));
		p2ps_json_put(po, p2ps_nv_caps_index_name(P2PS_NV_CAPS_ATOMICS),
		              verdict(&r->atomics));
		p2ps_json_put(po, "why", p2ps_json_str_or_null(r->why[0] ? r->why : NULL));
		p2ps_json_put(paths, p2ps_nv_path_name((enum p2ps_nv_path)k), po);
	}
	p2ps_json_put(o, "paths", paths);
	if (p->reported.known) {
		struct json_object *ro = json_object_new_object();
		p2ps_json_put(ro, "source", json_object_new_string(p->reported.source));
		p2ps_json_put(ro, "status", status_map(p->reported.st, NULL));
		p2ps_json_put(o, "driver_reported", ro);
	} else {
		p2ps_json_put(o, "driver_reported", NULL);
	}
	p2ps_json_put(o, "agrees", p->agree < 0 ? NULL : json_object_new_boolean(p->agree > 0));
	p2ps_json_put(o, "fix", p2ps_json_str_or_null(p->fix[0] ? p->fix : NULL));
	return o;
}

static struct json_object *bar1_json(const struct p2ps_analysis *a, size_t gi,
                                     const struct p2ps_drv_static_bar1 *sb)
{
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "gpu", json_object_new_string(a->host->devs[a->gpus[gi].dev_idx].bdf_str));
	p2ps_json_put(o, "status", json_object_new_string(p2ps_nv_status_code(sb->st)));
	p2ps_json_put(o, "bar1", json_object_new_int64((int64_t)sb->bar1));
	p2ps_json_put(o, "required", json_object_new_int64((int64_t)sb->required));
	p2ps_json_put(o, "start", json_object_new_int64((int64_t)sb->start));
	p2ps_json_put(o, "partial_window",
	              sb->partial ? json_object_new_int64((int64_t)sb->map_size) : NULL);
	p2ps_json_put(o, "resize_to",
	              sb->resized ? json_object_new_int64((int64_t)sb->rebar_to) : NULL);
	p2ps_json_put(o, "console", json_object_new_boolean(sb->console));
	p2ps_json_put(o, "mailbox", json_object_new_boolean(sb->mailbox));
	p2ps_json_put(o, "estimated", json_object_new_boolean(sb->estimated));
	p2ps_json_put(o, "rule", p2ps_json_str_or_null(sb->rule[0] ? sb->rule : NULL));
	p2ps_json_put(o, "why", p2ps_json_str_or_null(sb->why));
	p2ps_json_put(o, "fix", p2ps_json_str_or_null(sb->fix[0] ? sb->fix : NULL));
	return o;
}

/* The row's fork facts, null for stock. */
static struct json_object *fork_json(const struct p2ps_drv_config *c, const struct p2ps_host *h)
{
	const struct p2ps_nv_driver *r = c->row;
	if (!r || r->flavor == P2PS_NV_FLAVOR_STOCK)
		return NULL;
	struct json_object *o = json_object_new_object(), *props = json_object_new_array();
	p2ps_json_put(o, "ref", json_object_new_string(r->ref));
	p2ps_json_put(
	        o, "repo",
	        json_object_new_string(r->repo ? r->repo : p2ps_nv_flavor_row(r->flavor)->repo));
	for (unsigned k = 0; k < P2PS_NV_FP_COUNT; k++)
		if (r->props & (1u << k))
			json_object_array_add(props,
			                      json_object_new_string(p2ps_nv_flavor_prop_name(k)));
	p2ps_json_put(o, "props", props);
	p2ps_json_put(o, "assumed", p2ps_json_str_or_null(r->assumed));
	p2ps_json_put(o, "dmabuf_key", p2ps_json_str_or_null(r->dmabuf_key));
	p2ps_json_put(o, "dmabuf_p2p",
	              c->dmabuf_p2p >= 0 ? json_object_new_int64(c->dmabuf_p2p) : NULL);
	p2ps_json_put(o, "uvm_managed_param", p2ps_json_str_or_null(r->uvm_managed_param));
	p2ps_json_put(o, "libcuda", json_object_new_string(p2ps_nv_libcuda_state_name(c->libcuda)));
	p2ps_json_put(o, "libcuda_sha256",
	              p2ps_json_str_or_null(h->nvidia.libcuda_sha256[0] ? h->nvidia.libcuda_sha256
	                                                                : NULL));
	return o;
}

void p2ps_render_driver_json(const struct p2ps_analysis *a, struct json_object *root)
{
	const struct p2ps_drv_report *r = a->driver;
	if (!r)
		return;
	const struct p2ps_drv_config *c = &r->cfg;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "known", json_object_new_boolean(c->known));
	p2ps_json_put(o, "series", c->known ? json_object_new_int(c->series) : NULL);
	p2ps_json_put(o, "model_series", c->known ? json_object_new_int(c->model_series) : NULL);
	p2ps_json_put(o, "version", p2ps_json_str_or_null(c->version[0] ? c->version : NULL));
	p2ps_json_put(o, "flavor", json_object_new_string(p2ps_nv_flavor_name(c->flavor)));
	p2ps_json_put(o, "flavor_assumed", json_object_new_boolean(c->flavor_guessed));
	p2ps_json_put(o, "source", p2ps_json_str_or_null(c->source[0] ? c->source : NULL));
	p2ps_json_put(o, "note", p2ps_json_str_or_null(c->note[0] ? c->note : NULL));
	p2ps_json_put(o, "cpu_type", json_object_new_string(r->cpu_type));
	p2ps_json_put(o, "fork", fork_json(c, a->host));
	struct json_object *bars = json_object_new_array();
	for (size_t gi = 0; c->known && gi < r->n_gpus; gi++)
		if (a->gpus[gi].is_gpu)
			json_object_array_add(bars, bar1_json(a, gi, &r->bar1[gi]));
	p2ps_json_put(o, "static_bar1", bars);
	struct json_object *pairs = json_object_new_array();
	for (size_t k = 0; k < r->n_pairs; k++)
		json_object_array_add(pairs, pair_json(a, &r->pairs[k]));
	p2ps_json_put(o, "pairs", pairs);
	p2ps_json_put(root, "driver_model", o);
}
