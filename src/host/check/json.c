/* SPDX-License-Identifier: MIT */
/* The check's JSON (schemas/p2p-bench-check.schema.json): the report, and what the run saw
 * in a form p2ps_chk_result_read() reads back, so that a saved run is judged again (against
 * a host model of the same machine) without a GPU. */
#include "check_internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "json_put.h"
#include "p2pscope/parse.h"
#include "p2pscope/pci_addr.h"

#define SCHEMA_VERSION 1

static const char *const region_names[P2PS_CHK_REGIONS] = {"main", "fd", "uvm"};

static json_object *obs_json(const struct p2ps_chk_obs *o)
{
	json_object *j = json_object_new_object();
	p2ps_json_put(j, "form", json_object_new_string(p2ps_chk_form_name(o->form)));
	p2ps_json_put(j, "ms", json_object_new_double(o->ms));
	p2ps_json_put(j, "detail", p2ps_json_str_or_null(o->detail));
	p2ps_json_put(j, "cells", json_object_new_int64((int64_t)o->cells));
	p2ps_json_put(j, "bad_cells", json_object_new_int64((int64_t)o->bad_cells));
	bool moved = o->form == P2PS_CF_SHIFTED || o->form == P2PS_CF_ALIASED;
	p2ps_json_put(j, "displacement_bytes",
	              moved ? json_object_new_int64(o->displacement) : NULL);
	p2ps_json_put(j, "other_gpu", o->other_gpu >= 0 ? json_object_new_int(o->other_gpu) : NULL);
	return j;
}

static json_object *status_or_null(bool known, enum p2ps_nv_status s)
{
	return known && s != P2PS_NV_ST_UNKNOWN ? json_object_new_string(p2ps_nv_status_code(s))
	                                        : NULL;
}

static json_object *tri_p2p(int v, const char *yes, const char *no)
{
	return v < 0 ? NULL : json_object_new_string(v ? yes : no);
}

static json_object *prediction_json(const struct p2ps_chk_prediction *p)
{
	json_object *j = json_object_new_object();
	char topo[16];
	if (p->topo == P2PS_TOPO_NV)
		p2ps_chk_setf(topo, sizeof(topo), "NV%d", p->nvlinks);
	else
		p2ps_chk_setf(topo, sizeof(topo), "%s", p2ps_topo_name(p->topo));
	p2ps_json_put(j, "host_known", json_object_new_boolean(p->host_known));
	p2ps_json_put(j, "p2p", p2ps_json_tri(p->p2p));
	p2ps_json_put(j, "p2p_from", json_object_new_string(p->p2p_from ? p->p2p_from : ""));
	p2ps_json_put(j, "topology", p->host_known ? json_object_new_string(topo) : NULL);
	p2ps_json_put(j, "static_bar1",
	              p->host_known ? json_object_new_string(p2ps_verdict_name(p->bar1)) : NULL);
	json_object *rep = NULL;
	if (p->reported) {
		rep = json_object_new_object();
		p2ps_json_put(rep, "read", status_or_null(true, p->reported_read));
		p2ps_json_put(rep, "write", status_or_null(true, p->reported_write));
		p2ps_json_put(rep, "source", p2ps_json_str_or_null(p->reported_source));
	}
	p2ps_json_put(j, "driver_reported", rep);
	json_object *model = NULL;
	if (p->model) {
		model = json_object_new_object();
		p2ps_json_put(model, "path",
		              json_object_new_string(p2ps_nv_path_name(p->model_path)));
		p2ps_json_put(model, "read", status_or_null(true, p->model_read));
		p2ps_json_put(model, "write", status_or_null(true, p->model_write));
		p2ps_json_put(model, "gate",
		              p->model_gate == P2PS_NV_GATE_NONE
		                      ? NULL
		                      : json_object_new_string(p2ps_nv_gate_name(p->model_gate)));
		p2ps_json_put(model, "why", p2ps_json_str_or_null(p->model_why));
	}
	p2ps_json_put(j, "driver_model", model);
	p2ps_json_put(j, "nccl", tri_p2p(p->nccl_p2p, "P2P", "SHM"));
	p2ps_json_put(j, "nccl_why", p2ps_json_str_or_null(p->nccl_why));
	json_object *io = json_object_new_array();
	for (int k = 0; k < 2; k++)
		json_object_array_add(io,
		                      json_object_new_string(p2ps_iommu_mode_name(p->iommu[k])));
	p2ps_json_put(j, "iommu", io);
	return j;
}

static json_object *pair_json(const struct p2ps_chk_report *r, const struct p2ps_chk_pair *pp)
{
	const struct p2ps_chk_result *res = r->res;
	json_object *j = json_object_new_object();
	p2ps_json_put(j, "a", json_object_new_int(pp->a));
	p2ps_json_put(j, "b", json_object_new_int(pp->b));
	p2ps_json_put(j, "bdf_a", json_object_new_string(res->gpu[pp->a].info.bdf));
	p2ps_json_put(j, "bdf_b", json_object_new_string(res->gpu[pp->b].info.bdf));
	p2ps_json_put(j, "verdict", json_object_new_string(p2ps_chk_verdict_name(pp->verdict)));
	p2ps_json_put(j, "verdict_why", json_object_new_string(pp->verdict_why));
	p2ps_json_put(j, "prediction", prediction_json(&pp->pred));
	json_object *paths = json_object_new_object();
	for (int p = 0; p < P2PS_CHK_PATHS; p++)
		p2ps_json_put(paths, p2ps_chk_path_name(p), obs_json(&res->obs[pp->a][pp->b][p]));
	p2ps_json_put(j, "paths", paths);
	p2ps_json_put(j, "nccl_transport",
	              p2ps_json_str_or_null(res->nccl.transport[pp->a][pp->b]));
	json_object *cs = json_object_new_array();
	for (size_t k = 0; k < pp->n_causes; k++) {
		json_object *c = json_object_new_object();
		p2ps_json_put(c, "text", json_object_new_string(pp->cause[k].text));
		p2ps_json_put(c, "fix", p2ps_json_str_or_null(pp->cause[k].fix));
		json_object_array_add(cs, c);
	}
	p2ps_json_put(j, "causes", cs);
	return j;
}

static json_object *gpu_json(int g, const struct p2ps_chk_gpu *G)
{
	json_object *j = json_object_new_object();
	char cc[16];
	p2ps_chk_setf(cc, sizeof(cc), "%d.%d", G->info.cc_major, G->info.cc_minor);
	p2ps_json_put(j, "index", json_object_new_int(g));
	p2ps_json_put(j, "cuda_ordinal", json_object_new_int(G->info.ordinal));
	p2ps_json_put(j, "bdf", json_object_new_string(G->info.bdf));
	p2ps_json_put(j, "name", json_object_new_string(G->info.name));
	p2ps_json_put(j, "compute_capability", json_object_new_string(cc));
	p2ps_json_put(j, "memory_bytes", json_object_new_int64((int64_t)G->info.mem_bytes));
	p2ps_json_put(j, "fd_handles", json_object_new_boolean(G->info.fd_handles));
	p2ps_json_put(j, "managed", json_object_new_boolean(G->info.managed));
	p2ps_json_put(j, "open", obs_json(&G->open));
	return j;
}

static json_object *options_json(const struct p2ps_chk_result *res)
{
	const struct p2ps_chk_opts *o = &res->opts;
	json_object *j = json_object_new_object(), *alias = json_object_new_array(),
	            *paths = json_object_new_array(), *regions = json_object_new_object();
	p2ps_json_put(j, "payload_bytes", json_object_new_int64((int64_t)o->payload));
	p2ps_json_put(j, "guard_bytes", json_object_new_int64((int64_t)o->guard));
	for (size_t k = 0; k < o->n_alias; k++)
		json_object_array_add(alias, json_object_new_int64((int64_t)o->alias[k]));
	p2ps_json_put(j, "alias_bytes", alias);
	for (int p = 0; p < P2PS_CHK_PATHS; p++)
		if (p == P2PS_CHK_PEER || (o->paths & P2PS_CHK_PATH_BIT(p)))
			json_object_array_add(paths, json_object_new_string(p2ps_chk_path_name(p)));
	p2ps_json_put(j, "paths", paths);
	p2ps_json_put(j, "nccl", json_object_new_boolean(o->nccl));
	p2ps_json_put(j, "step_timeout_ms", json_object_new_int64(o->step_ms));
	p2ps_json_put(j, "open_timeout_ms", json_object_new_int64(o->open_ms));
	p2ps_json_put(j, "nonce", json_object_new_int64(o->nonce));
	for (int r = 0; r < P2PS_CHK_REGIONS; r++)
		p2ps_json_put(regions, region_names[r],
		              json_object_new_int64((int64_t)res->region_bytes[r]));
	p2ps_json_put(j, "region_bytes", regions);
	return j;
}

static json_object *nccl_json(const struct p2ps_chk_nccl *nc)
{
	json_object *j = json_object_new_object(), *w = json_object_new_array();
	p2ps_json_put(j, "asked", json_object_new_boolean(nc->asked));
	p2ps_json_put(j, "library", p2ps_json_str_or_null(nc->library));
	p2ps_json_put(j, "version", p2ps_json_str_or_null(nc->version));
	p2ps_json_put(j, "init", obs_json(&nc->init));
	for (int op = 0; op < P2PS_CHK_NCCL_OPS; op++)
		p2ps_json_put(j, p2ps_chk_nccl_op_name(op), obs_json(&nc->op[op]));
	for (int k = 0; k < nc->n_warnings; k++)
		json_object_array_add(w, json_object_new_string(nc->warnings[k]));
	p2ps_json_put(j, "warnings", w);
	return j;
}

int p2ps_chk_render_json(const struct p2ps_chk_report *r, const struct p2ps_chk_render_opts *o,
                         struct p2ps_strbuf *out, struct p2ps_error *err)
{
	const struct p2ps_chk_result *res = r->res;
	json_object *j = json_object_new_object(), *gpus = json_object_new_array(),
	            *pairs = json_object_new_array();
	if (!j || !gpus || !pairs) {
		json_object_put(j);
		json_object_put(gpus);
		json_object_put(pairs);
		return p2ps_error_set(err, P2PS_ENOMEM, "check JSON: out of memory");
	}
	p2ps_json_put(j, "tool", json_object_new_string("p2p-bench check"));
	p2ps_json_put(j, "schema_version", json_object_new_int(SCHEMA_VERSION));
	p2ps_json_put(j, "version", p2ps_json_str_or_null(o ? o->version : NULL));
	p2ps_json_put(j, "date", p2ps_json_str_or_null(o ? o->date : NULL));
	p2ps_json_put(j, "hostname", p2ps_json_str_or_null(o ? o->hostname : NULL));
	p2ps_json_put(j, "verdict", json_object_new_string(p2ps_chk_verdict_name(r->verdict)));
	p2ps_json_put(j, "exit_status", json_object_new_int(r->exit_status));
	p2ps_json_put(j, "summary", json_object_new_string(r->summary));
	p2ps_json_put(j, "host_note", p2ps_json_str_or_null(r->host_note));
	p2ps_json_put(j, "wall_s", o && o->wall_s > 0 ? json_object_new_double(o->wall_s) : NULL);
	p2ps_json_put(j, "gpu_steps_ms", json_object_new_double(res->wall_ms));
	p2ps_json_put(j, "host_ms", json_object_new_double(r->host_ms));
	json_object *ph = json_object_new_object(), *pol = json_object_new_object(),
	            *env = json_object_new_array();
	for (int k = 0; k < P2PS_CHK_PHASES; k++)
		if (res->phase_ms[k] > 0)
			p2ps_json_put(ph, p2ps_chk_phase_name(k),
			              json_object_new_double(res->phase_ms[k]));
	p2ps_json_put(j, "phases_ms", ph);
	p2ps_json_put(pol, "allow_single", json_object_new_boolean(r->policy.allow_single));
	p2ps_json_put(pol, "allow_no_p2p", json_object_new_boolean(r->policy.allow_no_p2p));
	p2ps_json_put(j, "policy", pol);
	for (int k = 0; k < res->n_nccl_env; k++)
		json_object_array_add(env, json_object_new_string(res->nccl_env[k]));
	p2ps_json_put(j, "nccl_env", env);
	p2ps_json_put(j, "options", options_json(res));
	p2ps_json_put(j, "find", obs_json(&res->find));
	for (int g = 0; g < res->n; g++)
		json_object_array_add(gpus, gpu_json(g, &res->gpu[g]));
	p2ps_json_put(j, "gpus", gpus);
	for (size_t k = 0; k < r->n_pairs; k++)
		json_object_array_add(pairs, pair_json(r, &r->pairs[k]));
	p2ps_json_put(j, "pairs", pairs);
	p2ps_json_put(j, "nccl", nccl_json(&res->nccl));
	p2ps_strbuf_puts(out, json_object_to_json_string_ext(
	                              j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	p2ps_strbuf_puts(out, "\n");
	json_object_put(j);
	return out->oom ? p2ps_error_set(err, P2PS_ENOMEM, "check JSON: out of memory") : 0;
}

/* ---- reading a saved run back ---- */

static json_object *member(json_object *o, const char *k, json_type t)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

static const char *str_of(json_object *o, const char *k)
{
	json_object *v = member(o, k, json_type_string);
	return v ? json_object_get_string(v) : NULL;
}

static bool int_of(json_object *o, const char *k, int64_t *out)
{
	json_object *v = member(o, k, json_type_int);
	if (!v)
		return false;
	*out = json_object_get_int64(v);
	return true;
}

static int bad(struct p2ps_error *err, const char *what)
{
	return p2ps_error_set(err, P2PS_EINVAL, "not a p2p-bench check report: %s", what);
}

static int read_obs(json_object *j, struct p2ps_chk_obs *o, struct p2ps_error *err,
                    const char *what)
{
	const char *form = str_of(j, "form");
	int f = form ? p2ps_chk_form_parse(form) : -1;
	if (f < 0) {
		char m[160];
		p2ps_chk_setf(m, sizeof(m), "%s has no valid \"form\"", what);
		return bad(err, m);
	}
	int64_t v;
	json_object *ms = NULL;
	*o = (struct p2ps_chk_obs){.form = (enum p2ps_chk_form)f, .other_gpu = -1};
	if (json_object_object_get_ex(j, "ms", &ms) &&
	    (json_object_is_type(ms, json_type_double) || json_object_is_type(ms, json_type_int)))
		o->ms = json_object_get_double(ms);
	p2ps_chk_setf(o->detail, sizeof(o->detail), "%s",
	              str_of(j, "detail") ? str_of(j, "detail") : "");
	if (int_of(j, "cells", &v) && v >= 0)
		o->cells = (uint64_t)v;
	if (int_of(j, "bad_cells", &v) && v >= 0)
		o->bad_cells = (uint64_t)v;
	if (int_of(j, "displacement_bytes", &v))
		o->displacement = v;
	if (int_of(j, "other_gpu", &v) && v >= 0 && v < P2PS_CHK_MAX_GPUS)
		o->other_gpu = (int)v;
	return 0;
}

static int read_options(json_object *root, struct p2ps_chk_result *res, struct p2ps_error *err)
{
	json_object *o = member(root, "options", json_type_object);
	int64_t v;
	p2ps_chk_opts_default(&res->opts);
	if (!o)
		return bad(err, "no \"options\" object");
	if (int_of(o, "payload_bytes", &v) && v > 0)
		res->opts.payload = (uint64_t)v;
	if (int_of(o, "guard_bytes", &v) && v >= 0)
		res->opts.guard = (uint64_t)v;
	if (int_of(o, "nonce", &v))
		res->opts.nonce = (uint32_t)v;
	json_object *a = member(o, "alias_bytes", json_type_array);
	res->opts.n_alias = 0;
	for (size_t k = 0; a && k < json_object_array_length(a) && k < P2PS_CHK_MAX_ALIAS; k++)
		res->opts.alias[res->opts.n_alias++] =
		        (uint64_t)json_object_get_int64(json_object_array_get_idx(a, k));
	json_object *p = member(o, "paths", json_type_array);
	if (!p)
		return bad(err, "no \"options\".\"paths\" list");
	res->opts.paths = 0;
	for (size_t k = 0; k < json_object_array_length(p); k++) {
		int path = p2ps_chk_path_parse(
		        json_object_get_string(json_object_array_get_idx(p, k)));
		if (path < 0)
			return bad(err, "an unknown path in \"options\".\"paths\"");
		res->opts.paths |= P2PS_CHK_PATH_BIT(path);
	}
	json_object *nccl = member(o, "nccl", json_type_boolean);
	res->opts.nccl = nccl && json_object_get_boolean(nccl);
	json_object *reg = member(o, "region_bytes", json_type_object);
	for (int r = 0; reg && r < P2PS_CHK_REGIONS; r++)
		if (int_of(reg, region_names[r], &v) && v >= 0)
			res->region_bytes[r] = (uint64_t)v;
	return 0;
}

static int read_gpus(json_object *root, struct p2ps_chk_result *res, struct p2ps_error *err)
{
	json_object *gpus = member(root, "gpus", json_type_array);
	if (!gpus)
		return bad(err, "no \"gpus\" list");
	size_t n = json_object_array_length(gpus);
	if (n > P2PS_CHK_MAX_GPUS)
		return bad(err, "more GPUs than a check covers");
	res->n = (int)n;
	for (size_t g = 0; g < n; g++) {
		json_object *j = json_object_array_get_idx(gpus, g);
		struct p2ps_chk_gpu_info *i = &res->gpu[g].info;
		const char *bdf = str_of(j, "bdf"), *name = str_of(j, "name"),
		           *cc = str_of(j, "compute_capability");
		int64_t ord = -1, mem = 0;
		struct p2ps_bdf parsed;
		if (!bdf || p2ps_bdf_parse(bdf, &parsed) < 0)
			return bad(err, "a GPU without a valid \"bdf\"");
		p2ps_bdf_format(&parsed, i->bdf, sizeof(i->bdf));
		p2ps_chk_setf(i->name, sizeof(i->name), "%s", name ? name : "");
		int_of(j, "cuda_ordinal", &ord);
		int_of(j, "memory_bytes", &mem);
		i->ordinal = (int)ord;
		i->mem_bytes = mem > 0 ? (uint64_t)mem : 0;
		if (cc) {
			uint64_t ma = 0, mi = 0;
			const char *dot = p2ps_scan_uint(cc, 10, 99, &ma);
			if (dot && *dot == '.' && p2ps_scan_uint(dot + 1, 10, 99, &mi)) {
				i->cc_major = (int)ma;
				i->cc_minor = (int)mi;
			}
		}
		json_object *fd = member(j, "fd_handles", json_type_boolean);
		i->fd_handles = fd && json_object_get_boolean(fd);
		json_object *open = member(j, "open", json_type_object);
		if (!open || read_obs(open, &res->gpu[g].open, err, "a GPU's \"open\""))
			return open ? err->code : bad(err, "a GPU without \"open\"");
	}
	return 0;
}

static int read_pairs(json_object *root, struct p2ps_chk_result *res, struct p2ps_error *err)
{
	json_object *pairs = member(root, "pairs", json_type_array);
	if (!pairs)
		return bad(err, "no \"pairs\" list");
	for (size_t k = 0; k < json_object_array_length(pairs); k++) {
		json_object *j = json_object_array_get_idx(pairs, k);
		int64_t a, b;
		if (!int_of(j, "a", &a) || !int_of(j, "b", &b) || a < 0 || b < 0 || a >= res->n ||
		    b >= res->n || a == b)
			return bad(err, "a pair whose \"a\" and \"b\" are not two of its GPUs");
		json_object *paths = member(j, "paths", json_type_object);
		if (!paths)
			return bad(err, "a pair without \"paths\"");
		for (int p = 0; p < P2PS_CHK_PATHS; p++) {
			json_object *o = member(paths, p2ps_chk_path_name(p), json_type_object);
			if (!o)
				continue;
			if (read_obs(o, &res->obs[a][b][p], err, p2ps_chk_path_name(p)))
				return err->code;
		}
		const char *t = str_of(j, "nccl_transport");
		p2ps_chk_setf(res->nccl.transport[a][b], sizeof(res->nccl.transport[a][b]), "%s",
		              t ? t : "");
	}
	return 0;
}

static int read_nccl(json_object *root, struct p2ps_chk_result *res, struct p2ps_error *err)
{
	json_object *nc = member(root, "nccl", json_type_object);
	if (!nc)
		return bad(err, "no \"nccl\" object");
	json_object *asked = member(nc, "asked", json_type_boolean);
	res->nccl.asked = asked && json_object_get_boolean(asked);
	p2ps_chk_setf(res->nccl.version, sizeof(res->nccl.version), "%s",
	              str_of(nc, "version") ? str_of(nc, "version") : "");
	p2ps_chk_setf(res->nccl.library, sizeof(res->nccl.library), "%s",
	              str_of(nc, "library") ? str_of(nc, "library") : "");
	json_object *o = member(nc, "init", json_type_object);
	if (!o || read_obs(o, &res->nccl.init, err, "NCCL's \"init\""))
		return o ? err->code : bad(err, "no NCCL \"init\"");
	for (int op = 0; op < P2PS_CHK_NCCL_OPS; op++) {
		o = member(nc, p2ps_chk_nccl_op_name(op), json_type_object);
		if (!o || read_obs(o, &res->nccl.op[op], err, p2ps_chk_nccl_op_name(op)))
			return o ? err->code : bad(err, "an NCCL operation missing");
	}
	json_object *w = member(nc, "warnings", json_type_array);
	for (size_t k = 0; w && k < json_object_array_length(w) && k < 4; k++) {
		const char *s = json_object_get_string(json_object_array_get_idx(w, k));
		snprintf(res->nccl.warnings[res->nccl.n_warnings++], sizeof(res->nccl.warnings[0]),
		         "%s", s ? s : "");
	}
	return 0;
}

static double num_of(json_object *o, const char *k)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, k, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return 0;
	return json_object_get_double(v);
}

/* What the report shows besides the observations: times, the policy, NCCL's variables. */
static void read_extras(json_object *root, struct p2ps_chk_result *res)
{
	res->wall_ms = num_of(root, "gpu_steps_ms");
	res->process_s = num_of(root, "wall_s");
	res->host_ms = num_of(root, "host_ms");
	json_object *ph = member(root, "phases_ms", json_type_object);
	for (int k = 0; ph && k < P2PS_CHK_PHASES; k++)
		res->phase_ms[k] = num_of(ph, p2ps_chk_phase_name(k));
	json_object *pol = member(root, "policy", json_type_object), *v;
	if ((v = member(pol, "allow_single", json_type_boolean)))
		res->policy.allow_single = json_object_get_boolean(v);
	if ((v = member(pol, "allow_no_p2p", json_type_boolean)))
		res->policy.allow_no_p2p = json_object_get_boolean(v);
	json_object *env = member(root, "nccl_env", json_type_array);
	res->nccl_env_known = env != NULL;
	for (size_t k = 0; env && k < json_object_array_length(env) && k < 8; k++) {
		const char *e = json_object_get_string(json_object_array_get_idx(env, k));
		if (e && !strncmp(e, "NCCL_", 5))
			p2ps_chk_setf(res->nccl_env[res->n_nccl_env++], sizeof(res->nccl_env[0]),
			              "%s", e);
	}
}

int p2ps_chk_result_read(const char *text, size_t len, struct p2ps_chk_result *res,
                         struct p2ps_error *err)
{
	memset(res, 0, sizeof(*res));
	struct json_tokener *tok = json_tokener_new();
	if (!tok)
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	json_object *root = len <= INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	enum json_tokener_error je = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!root || je != json_tokener_success) {
		json_object_put(root);
		return p2ps_error_set(err, P2PS_EINVAL, "not JSON: %s",
		                      json_tokener_error_desc(je));
	}
	const char *tool = str_of(root, "tool");
	int64_t v = 0;
	int rc = 0;
	if (!tool || strcmp(tool, "p2p-bench check"))
		rc = bad(err, "\"tool\" is not \"p2p-bench check\"");
	else if (!int_of(root, "schema_version", &v) || v != SCHEMA_VERSION)
		rc = bad(err, "a \"schema_version\" this version does not read");
	for (int a = 0; a < P2PS_CHK_MAX_GPUS; a++)
		for (int b = 0; b < P2PS_CHK_MAX_GPUS; b++)
			for (int p = 0; p < P2PS_CHK_PATHS; p++)
				res->obs[a][b][p] = (struct p2ps_chk_obs){.form = P2PS_CF_SKIPPED,
				                                          .other_gpu = -1};
	json_object *find = member(root, "find", json_type_object);
	if (!rc)
		rc = read_options(root, res, err);
	if (!rc)
		rc = find ? read_obs(find, &res->find, err, "\"find\"") : bad(err, "no \"find\"");
	if (!rc)
		rc = read_gpus(root, res, err);
	if (!rc)
		rc = read_pairs(root, res, err);
	if (!rc)
		rc = read_nccl(root, res, err);
	if (!rc)
		read_extras(root, res);
	json_object_put(root);
	return rc;
}
