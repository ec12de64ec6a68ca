/* SPDX-License-Identifier: MIT */
/* bar-inspect --json: the analysis as one JSON document built with json-c. The schema
 * (schema_version 1) is documented in docs/bar-inspect.md; fields are only added. */
#include "p2pscope/render.h"
#include "render_internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"

#define SCHEMA_VERSION 1

struct json_object *p2ps_json_reasons(const struct p2ps_analysis *a, const struct p2ps_reasons *r)
{
	struct json_object *arr = json_object_new_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct p2ps_reason *x = &r->v[i];
		struct json_object *o = json_object_new_object();
		p2ps_json_put(o, "code", json_object_new_string(p2ps_reason_code_name(x->code)));
		p2ps_json_put(o, "severity", json_object_new_string(p2ps_severity_name(x->sev)));
		p2ps_json_put(o, "device",
		              x->dev_idx >= 0 && (size_t)x->dev_idx < a->host->n_devs
		                      ? json_object_new_string(a->host->devs[x->dev_idx].bdf_str)
		                      : NULL);
		p2ps_json_put(o, "text", json_object_new_string(x->text));
		p2ps_json_put(o, "fix", p2ps_json_str_or_null(x->fix));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *topo_json(const struct p2ps_analysis *a)
{
	struct json_object *o = json_object_new_object();
	struct json_object *gpus = json_object_new_array();
	struct json_object *m = json_object_new_array();
	size_t n = a->n_gpus;
	for (size_t i = 0; i < n; i++) {
		json_object_array_add(
		        gpus, json_object_new_string(a->host->devs[a->gpus[i].dev_idx].bdf_str));
		struct json_object *row = json_object_new_array();
		for (size_t j = 0; j < n; j++) {
			char s[16];
			enum p2ps_topo t = a->matrix[i * n + j];
			if (t == P2PS_TOPO_NV)
				snprintf(s, sizeof(s), "NV%d", a->nvlink_matrix[i * n + j]);
			else
				snprintf(s, sizeof(s), "%s", p2ps_topo_name(t));
			json_object_array_add(row, json_object_new_string(s));
		}
		json_object_array_add(m, row);
	}
	p2ps_json_put(o, "gpus", gpus);
	p2ps_json_put(o, "matrix", m);
	return o;
}

static struct json_object *pair_json(const struct p2ps_analysis *a, const struct p2ps_pair *p)
{
	const struct p2ps_host *h = a->host;
	struct json_object *o = json_object_new_object();
	char topo[16];
	if (p->topo == P2PS_TOPO_NV)
		snprintf(topo, sizeof(topo), "NV%d", p->nvlinks);
	else
		snprintf(topo, sizeof(topo), "%s", p2ps_topo_name(p->topo));
	p2ps_json_put(o, "a", json_object_new_string(h->devs[a->gpus[p->a].dev_idx].bdf_str));
	p2ps_json_put(o, "b", json_object_new_string(h->devs[a->gpus[p->b].dev_idx].bdf_str));
	p2ps_json_put(o, "gpu_a", json_object_new_int(p->a));
	p2ps_json_put(o, "gpu_b", json_object_new_int(p->b));
	p2ps_json_put(o, "topology", json_object_new_string(topo));
	p2ps_json_put(o, "pcie_topology", json_object_new_string(p2ps_topo_name(p->pcie_topo)));
	p2ps_json_put(o, "nvlinks", json_object_new_int(p->nvlinks));
	p2ps_json_put(o, "common_bridge",
	              p->lca_idx >= 0 ? json_object_new_string(h->devs[p->lca_idx].bdf_str) : NULL);
	p2ps_json_put(o, "pcie_gbps", p2ps_json_gbps(p->pcie_gbps));
	p2ps_json_put(o, "p2p_ready",
	              p->verdict == P2PS_VERDICT_UNKNOWN
	                      ? NULL
	                      : json_object_new_boolean(p->verdict == P2PS_VERDICT_READY));
	p2ps_json_put(o, "verdict", json_object_new_string(p2ps_verdict_name(p->verdict)));
	p2ps_json_put(o, "moot", json_object_new_boolean(p->moot));
	struct json_object *nccl = json_object_new_object();
	p2ps_json_put(nccl, "p2p", p2ps_json_tri(p->nccl_p2p));
	p2ps_json_put(nccl, "level",
	              p->nccl_level < 0
	                      ? NULL
	                      : json_object_new_string(p2ps_nccl_path_name(p->nccl_level)));
	p2ps_json_put(nccl, "level_from", p2ps_json_str_or_null(p->nccl_level_from));
	p2ps_json_put(o, "nccl", nccl);
	const struct p2ps_dev *x = &h->devs[a->gpus[p->a].dev_idx],
	                      *y = &h->devs[a->gpus[p->b].dev_idx];
	if (p2ps_host_driver_p2p(h, &x->bdf, &y->bdf))
		p2ps_json_put(o, "driver_p2p", p2ps_json_rm_pair(h, x, y));
	p2ps_json_put(o, "reasons", p2ps_json_reasons(a, &p->reasons));
	return o;
}

static struct json_object *host_json(const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	struct json_object *o = json_object_new_object();
	const struct p2ps_json_str_row ident[] = {
	        {"backend", h->backend_name}, {"source", h->source_path}, {"hostname", h->hostname},
	        {"boot_id", h->boot_id},      {"time", h->time},          {"kernel", h->kernel}};
	p2ps_json_put_strs(o, P2PS_JSON_ROWS(ident));
	p2ps_json_put(o, "is_root", json_object_new_boolean(h->is_root));
	p2ps_json_put(o, "config_limited", json_object_new_boolean(h->config_limited_any));

	struct json_object *io = json_object_new_object();
	p2ps_json_put(io, "known", json_object_new_boolean(h->iommu.known));
	p2ps_json_put(io, "present",
	              h->iommu.known ? json_object_new_boolean(h->iommu.present) : NULL);
	p2ps_json_put(io, "kind", p2ps_json_str_or_null(h->iommu.kind));
	p2ps_json_put(io, "units", p2ps_json_str_or_null(h->iommu.units));
	p2ps_json_put(io, "groups", json_object_new_int(h->iommu.n_groups));
	p2ps_json_put(io, "summary", json_object_new_string(a->iommu_summary));
	p2ps_json_put(io, "cmdline_flags", p2ps_json_str_or_null(a->iommu_flags));
	p2ps_json_put(o, "iommu", io);
	p2ps_json_put(o, "cmdline",
	              h->cmdline.known ? p2ps_json_str_or_null(h->cmdline.raw) : NULL);

	struct json_object *nv = json_object_new_object();
	const struct p2ps_json_str_row versions[] = {
	        {"module_version", h->nvidia.module_version},
	        {"proc_version", h->nvidia.proc_version},
	        {"proc_driver_version", h->nvidia.proc_driver_version}};
	p2ps_json_put_strs(nv, P2PS_JSON_ROWS(versions));
	p2ps_json_put(nv, "nvml_loaded", json_object_new_boolean(h->nvidia.nvml_loaded));
	p2ps_json_put(nv, "nvml_status", p2ps_json_str_or_null(h->nvidia.nvml_status));
	if (h->nvidia.facts_source[0]) {
		p2ps_json_put(nv, "facts_source", json_object_new_string(h->nvidia.facts_source));
		p2ps_json_put(nv, "facts_note", p2ps_json_str_or_null(h->nvidia.facts_note));
		p2ps_json_put(nv, "rm", p2ps_json_rm_host(h));
	}
	p2ps_json_put(o, "nvidia", nv);

	struct json_object *vm = json_object_new_object();
	p2ps_json_put(vm, "known", json_object_new_boolean(h->vm.known));
	p2ps_json_put(vm, "in_vm", h->vm.known ? json_object_new_boolean(h->vm.in_vm) : NULL);
	p2ps_json_put(vm, "hypervisor", p2ps_json_str_or_null(h->vm.hypervisor));
	p2ps_json_put(vm, "evidence", p2ps_json_str_or_null(h->vm.evidence));
	p2ps_json_put(o, "vm", vm);

	struct json_object *env = json_object_new_array();
	for (int i = 0; i < h->n_nccl_env && i < P2PS_HOST_MAX_NCCL_ENV; i++)
		json_object_array_add(env, json_object_new_string(h->nccl_env[i]));
	p2ps_json_put(o, "nccl_env", env);
	p2ps_json_put(o, "reasons", p2ps_json_reasons(a, &a->host_reasons));
	return o;
}

int p2ps_render_json(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     struct json_object **out, struct p2ps_error *err)
{
	struct json_object *root = json_object_new_object();
	if (!root)
		return p2ps_error_set(err, P2PS_ENOMEM, "json: out of memory");
	p2ps_json_put(root, "schema_version", json_object_new_int(SCHEMA_VERSION));
	p2ps_json_put(root, "tool", json_object_new_string("bar-inspect"));
	p2ps_json_put(root, "version", p2ps_json_str_or_null(o ? o->version : NULL));
	p2ps_json_put(root, "host", host_json(a));
	struct json_object *devs = json_object_new_array();
	for (size_t i = 0; i < a->host->n_devs; i++)
		if (p2ps_dev_shown(a, o, (int)i))
			json_object_array_add(devs, p2ps_json_device(a, (int)i));
	p2ps_json_put(root, "devices", devs);
	p2ps_json_put(root, "bridges", p2ps_json_path_bridges(a));
	p2ps_json_put(root, "topology", topo_json(a));
	struct json_object *pairs = json_object_new_array();
	for (size_t k = 0; k < a->n_pairs; k++)
		if (p2ps_pair_shown(a, o, &a->pairs[k]))
			json_object_array_add(pairs, pair_json(a, &a->pairs[k]));
	p2ps_json_put(root, "pairs", pairs);
	p2ps_json_put(root, "gpudirect_rdma", p2ps_json_gdr(a));
	if (a->host->vfio)
		p2ps_json_put(root, "vfio", p2ps_json_vfio(a->host->vfio));
	p2ps_render_driver_json(a, root);
	int rc = p2ps_render_paste_section_json(a, root, err);
	if (rc < 0) {
		json_object_put(root);
		return rc;
	}
	*out = root;
	return 0;
}

int p2ps_render_json_append(struct json_object *root, struct p2ps_strbuf *out,
                            struct p2ps_error *err)
{
	const char *s = json_object_to_json_string_ext(
	        root,
	        JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		return p2ps_error_set(err, P2PS_ENOMEM, "json: out of memory");
	p2ps_strbuf_puts(out, s);
	p2ps_strbuf_puts(out, "\n");
	if (out->oom)
		return p2ps_error_set(err, P2PS_ENOMEM, "json: out of memory");
	return 0;
}

int p2ps_render_json_text(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                          struct p2ps_strbuf *out, struct p2ps_error *err)
{
	struct json_object *root = NULL;
	int rc = p2ps_render_json(a, o, &root, err);
	if (rc)
		return rc;
	rc = p2ps_render_json_append(root, out, err);
	json_object_put(root);
	return rc;
}
