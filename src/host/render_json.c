/* bar-inspect --json: the analysis as one JSON document built with json-c. The schema
 * (schema_version 1) is documented in docs/bar-inspect.md; fields are only added. */
#include "p2pscope/render.h"
#include "render_internal.h"
#include "paste_render.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"

#define SCHEMA_VERSION 1

static void put(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

static struct json_object *int_or_null(bool known, int64_t v)
{
	return known ? json_object_new_int64(v) : NULL;
}

static struct json_object *gts_or_null(uint8_t speed)
{
	return speed ? json_object_new_double(p2ps_link_speed_gts(speed)) : NULL;
}

/* GB/s rounded to two decimals, so the document reads "63.02" rather than 17 digits. */
static struct json_object *gbps_or_null(double v)
{
	char s[32];
	if (v <= 0)
		return NULL;
	snprintf(s, sizeof(s), "%.2f", v);
	return json_object_new_double_s(strtod(s, NULL), s);
}

static struct json_object *reasons_json(const struct p2ps_analysis *a, const struct p2ps_reasons *r)
{
	struct json_object *arr = json_object_new_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct p2ps_reason *x = &r->v[i];
		struct json_object *o = json_object_new_object();
		put(o, "code", json_object_new_string(p2ps_reason_code_name(x->code)));
		put(o, "severity", json_object_new_string(p2ps_severity_name(x->sev)));
		put(o, "device",
		    x->dev_idx >= 0 && (size_t)x->dev_idx < a->host->n_devs
		            ? json_object_new_string(a->host->devs[x->dev_idx].bdf_str)
		            : NULL);
		put(o, "text", json_object_new_string(x->text));
		put(o, "fix", str_or_null(x->fix));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *bars_json(const struct p2ps_dev *d)
{
	struct json_object *arr = json_object_new_array();
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &d->bars[i];
		if (!b->present)
			continue;
		struct json_object *o = json_object_new_object();
		put(o, "index", json_object_new_int(i));
		put(o, "address", b->unassigned ? NULL : json_object_new_uint64(b->address));
		put(o, "size", b->size_known ? json_object_new_uint64(b->size) : NULL);
		put(o, "is_64bit", json_object_new_boolean(b->is_64bit));
		put(o, "prefetchable", json_object_new_boolean(b->prefetchable));
		put(o, "io", json_object_new_boolean(b->io));
		put(o, "unassigned", json_object_new_boolean(b->unassigned));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *link_json(const struct p2ps_dev *d)
{
	const struct p2ps_pcie *e = &d->pcie;
	struct json_object *o = json_object_new_object();
	put(o, "cap_speed_gts", gts_or_null(e->cap.speed));
	put(o, "cap_width", int_or_null(e->cap.width != 0, e->cap.width));
	put(o, "speed_gts", gts_or_null(e->sta.speed));
	put(o, "width", int_or_null(e->sta.width != 0, e->sta.width));
	double cg = p2ps_link_gbps(&e->cap), sg = p2ps_link_gbps(&e->sta);
	put(o, "cap_gbps", gbps_or_null(cg));
	put(o, "gbps", gbps_or_null(sg));
	static const char *const src[] = {"none", "config", "sysfs"};
	put(o, "cap_source", json_object_new_string(src[e->cap_source <= 2 ? e->cap_source : 0]));
	put(o, "source", json_object_new_string(src[e->sta_source <= 2 ? e->sta_source : 0]));
	return o;
}

static struct json_object *acs_json(const struct p2ps_dev *d)
{
	if (!d->acs.present)
		return NULL;
	struct json_object *o = json_object_new_object();
	put(o, "cap", json_object_new_int(d->acs.cap));
	put(o, "ctl", json_object_new_int(d->acs.ctl));
	put(o, "offset", json_object_new_int(d->acs.offset));
	put(o, "redirects", json_object_new_boolean(p2ps_acs_redirect_bits(d->acs.ctl) != 0));
	return o;
}

static struct json_object *sizes_json(uint64_t bitmap)
{
	struct json_object *arr = json_object_new_array();
	for (int n = 0; n <= 43; n++)
		if (bitmap & (1ull << n))
			json_object_array_add(
			        arr, json_object_new_uint64(p2ps_rebar_size_bytes((uint8_t)n)));
	return arr;
}

static struct json_object *rebar_json(const struct p2ps_dev *d)
{
	bool sysfs = false;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		sysfs |= d->rebar.sysfs_resize_known[i];
	if (!d->rebar.present && !sysfs)
		return NULL;
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	for (int k = 0; d->rebar.present && k < d->rebar.count && k < P2PS_HOST_MAX_REBAR; k++) {
		const struct p2ps_rebar_entry *e = &d->rebar.e[k];
		struct json_object *x = json_object_new_object();
		put(x, "bar", json_object_new_int(e->bar));
		put(x, "current_size", json_object_new_uint64(p2ps_rebar_size_bytes(e->current)));
		put(x, "supported_sizes", sizes_json(e->sizes));
		json_object_array_add(arr, x);
	}
	put(o, "present", json_object_new_boolean(d->rebar.present));
	put(o, "entries", arr);
	struct json_object *sy = json_object_new_object();
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		if (!d->rebar.sysfs_resize_known[i])
			continue;
		char k[40];
		snprintf(k, sizeof(k), "resource%d_resize", i);
		put(sy, k, sizes_json(d->rebar.sysfs_resize[i]));
	}
	put(o, "sysfs", sy);
	return o;
}

static struct json_object *unknown_json(const struct p2ps_dev *d)
{
	struct json_object *o = json_object_new_object();
	for (int f = 0; f < P2PS_FACT_COUNT; f++) {
		const char *why = p2ps_dev_unknown(d, (enum p2ps_fact)f);
		if (why)
			put(o, p2ps_fact_name((enum p2ps_fact)f), json_object_new_string(why));
	}
	return o;
}

static struct json_object *gpu_json(const struct p2ps_analysis *a, size_t gi)
{
	const struct p2ps_gpu_report *g = &a->gpus[gi];
	const struct p2ps_dev *d = &a->host->devs[g->dev_idx];
	struct json_object *o = json_object_new_object();
	put(o, "index", json_object_new_int((int)gi));
	put(o, "is_gpu", json_object_new_boolean(g->is_gpu));
	put(o, "bar1_index", int_or_null(g->bar1_index >= 0, g->bar1_index));
	put(o, "bar1_size", g->bar1_size_known ? json_object_new_uint64(g->bar1_size) : NULL);
	put(o, "bar1_size_source", str_or_null(g->bar1_size_source));
	put(o, "bar1_driver_total",
	    d->gpu.bar1_known ? json_object_new_uint64(d->gpu.bar1_total_bytes) : NULL);
	put(o, "vram", d->gpu.vram_known ? json_object_new_uint64(d->gpu.vram_bytes) : NULL);
	put(o, "bar1_covers_vram",
	    g->bar1_size_known && d->gpu.vram_known ? json_object_new_boolean(g->bar1_covers_vram)
	                                            : NULL);
	put(o, "rebar_max", g->rebar_max ? json_object_new_uint64(g->rebar_max) : NULL);
	put(o, "iommu_mode", json_object_new_string(p2ps_iommu_mode_name(g->iommu)));
	static const char *const src[] = {"none", "nvml", "nvidia-smi"};
	put(o, "facts_source", json_object_new_string(src[d->gpu.source <= 2 ? d->gpu.source : 0]));
	if (d->gpu.nvlink_known) {
		struct json_object *arr = json_object_new_array();
		for (int i = 0; i < d->gpu.n_nvlink_peers && i < P2PS_HOST_MAX_NVLINK; i++) {
			char bdf[20];
			struct json_object *p = json_object_new_object();
			put(p, "bdf",
			    json_object_new_string(p2ps_bdf_format(&d->gpu.nvlink_peers[i].bdf, bdf,
			                                           sizeof(bdf))));
			put(p, "links", json_object_new_int(d->gpu.nvlink_peers[i].links));
			json_object_array_add(arr, p);
		}
		put(o, "nvlink_peers", arr);
	} else {
		put(o, "nvlink_peers", NULL);
	}
	put(o, "link_cap_gbps", gbps_or_null(g->link_cap_gbps));
	put(o, "link_gbps", gbps_or_null(g->link_sta_gbps));
	put(o, "reasons", reasons_json(a, &g->reasons));
	return o;
}

static struct json_object *device_json(const struct p2ps_analysis *a, int idx)
{
	const struct p2ps_host *h = a->host;
	const struct p2ps_dev *d = &h->devs[idx];
	struct json_object *o = json_object_new_object();
	put(o, "bdf", json_object_new_string(d->bdf_str));
	put(o, "vendor_id", json_object_new_int(d->vendor_id));
	put(o, "device_id", json_object_new_int(d->device_id));
	put(o, "subsystem_vendor_id", json_object_new_int(d->subsys_vendor_id));
	put(o, "subsystem_id", json_object_new_int(d->subsys_id));
	put(o, "class", json_object_new_int((int32_t)d->class_code));
	put(o, "revision", json_object_new_int(d->revision));
	put(o, "vendor_name", str_or_null(d->vendor_name));
	put(o, "device_name", str_or_null(d->device_name));
	if (d->chip) {
		struct json_object *c = json_object_new_object();
		put(c, "name", json_object_new_string(d->chip->chip));
		put(c, "generation", json_object_new_string(d->chip->generation));
		/* libgmmu's layout name ("v3-gh"); null with the reason when it has no such chip.
		 */
		const struct gmmu_format *f = p2ps_nvidia_chip_gmmu(d->chip->chip);
		put(c, "gmmu_format", f ? json_object_new_string(f->name) : NULL);
		put(c, "gmmu_version", f ? json_object_new_int((int)f->version) : NULL);
		if (f) {
			put(c, "gmmu_unknown", NULL);
		} else {
			char why[64];
			snprintf(why, sizeof(why), "libgmmu has no chip %s", d->chip->chip);
			put(c, "gmmu_unknown", json_object_new_string(why));
		}
		put(o, "chip", c);
	} else {
		put(o, "chip", NULL);
	}
	put(o, "bars", bars_json(d));
	put(o, "pcie_type",
	    d->pcie.present ? json_object_new_string(p2ps_pcie_type_name(d->pcie.port_type))
	                    : NULL);
	put(o, "link", link_json(d));
	put(o, "acs", acs_json(d));
	put(o, "rebar", rebar_json(d));
	put(o, "driver", str_or_null(d->driver));
	put(o, "numa_node", int_or_null(d->numa_node >= 0, d->numa_node));
	put(o, "iommu_group", int_or_null(d->iommu_group >= 0, d->iommu_group));
	put(o, "iommu_domain_type", str_or_null(d->iommu_domain_type));
	put(o, "boot_vga", d->boot_vga >= 0 ? json_object_new_boolean(d->boot_vga == 1) : NULL);
	put(o, "parent", d->parent ? json_object_new_string(d->parent->bdf_str) : NULL);
	put(o, "root_bus", str_or_null(d->root_bus));
	if (d->bridge.is_bridge) {
		struct json_object *br = json_object_new_object();
		put(br, "secondary", json_object_new_int(d->bridge.secondary));
		put(br, "subordinate", json_object_new_int(d->bridge.subordinate));
		const struct p2ps_window *w = &d->bridge.pref;
		if (w->present) {
			struct json_object *pw = json_object_new_object();
			put(pw, "base", json_object_new_uint64(w->base));
			put(pw, "limit", json_object_new_uint64(w->limit));
			put(pw, "is_64bit", json_object_new_boolean(w->is_64bit));
			put(br, "prefetchable_window", pw);
		} else {
			put(br, "prefetchable_window", NULL);
		}
		put(o, "bridge", br);
	}
	put(o, "config_bytes", json_object_new_int64((int64_t)d->config_len));
	put(o, "unknown", unknown_json(d));
	int gi = p2ps_analysis_gpu_of_dev(a, idx);
	if (gi >= 0) {
		const struct p2ps_gpu_report *g = &a->gpus[gi];
		struct json_object *path = json_object_new_array();
		for (int i = 0; i < g->path_len; i++)
			json_object_array_add(path,
			                      json_object_new_string(h->devs[g->path[i]].bdf_str));
		put(o, "path", path);
		put(o, "gpu", gpu_json(a, (size_t)gi));
	}
	return o;
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
	put(o, "gpus", gpus);
	put(o, "matrix", m);
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
	put(o, "a", json_object_new_string(h->devs[a->gpus[p->a].dev_idx].bdf_str));
	put(o, "b", json_object_new_string(h->devs[a->gpus[p->b].dev_idx].bdf_str));
	put(o, "gpu_a", json_object_new_int(p->a));
	put(o, "gpu_b", json_object_new_int(p->b));
	put(o, "topology", json_object_new_string(topo));
	put(o, "pcie_topology", json_object_new_string(p2ps_topo_name(p->pcie_topo)));
	put(o, "nvlinks", json_object_new_int(p->nvlinks));
	put(o, "common_bridge",
	    p->lca_idx >= 0 ? json_object_new_string(h->devs[p->lca_idx].bdf_str) : NULL);
	put(o, "pcie_gbps", gbps_or_null(p->pcie_gbps));
	put(o, "p2p_ready",
	    p->verdict == P2PS_VERDICT_UNKNOWN
	            ? NULL
	            : json_object_new_boolean(p->verdict == P2PS_VERDICT_READY));
	put(o, "verdict", json_object_new_string(p2ps_verdict_name(p->verdict)));
	put(o, "moot", json_object_new_boolean(p->moot));
	put(o, "reasons", reasons_json(a, &p->reasons));
	return o;
}

static struct json_object *host_json(const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	struct json_object *o = json_object_new_object();
	put(o, "backend", str_or_null(h->backend_name));
	put(o, "source", str_or_null(h->source_path));
	put(o, "hostname", str_or_null(h->hostname));
	put(o, "is_root", json_object_new_boolean(h->is_root));
	put(o, "config_limited", json_object_new_boolean(h->config_limited_any));

	struct json_object *io = json_object_new_object();
	put(io, "known", json_object_new_boolean(h->iommu.known));
	put(io, "present", h->iommu.known ? json_object_new_boolean(h->iommu.present) : NULL);
	put(io, "kind", str_or_null(h->iommu.kind));
	put(io, "units", str_or_null(h->iommu.units));
	put(io, "groups", json_object_new_int(h->iommu.n_groups));
	put(io, "summary", json_object_new_string(a->iommu_summary));
	put(io, "cmdline_flags", str_or_null(a->iommu_flags));
	put(o, "iommu", io);
	put(o, "cmdline", h->cmdline.known ? str_or_null(h->cmdline.raw) : NULL);

	struct json_object *nv = json_object_new_object();
	put(nv, "module_version", str_or_null(h->nvidia.module_version));
	put(nv, "proc_version", str_or_null(h->nvidia.proc_version));
	put(nv, "proc_driver_version", str_or_null(h->nvidia.proc_driver_version));
	put(nv, "nvml_loaded", json_object_new_boolean(h->nvidia.nvml_loaded));
	put(nv, "nvml_status", str_or_null(h->nvidia.nvml_status));
	put(o, "nvidia", nv);

	struct json_object *vm = json_object_new_object();
	put(vm, "known", json_object_new_boolean(h->vm.known));
	put(vm, "in_vm", h->vm.known ? json_object_new_boolean(h->vm.in_vm) : NULL);
	put(vm, "hypervisor", str_or_null(h->vm.hypervisor));
	put(vm, "evidence", str_or_null(h->vm.evidence));
	put(o, "vm", vm);

	struct json_object *env = json_object_new_array();
	for (int i = 0; i < h->n_nccl_env && i < P2PS_HOST_MAX_NCCL_ENV; i++)
		json_object_array_add(env, json_object_new_string(h->nccl_env[i]));
	put(o, "nccl_env", env);
	put(o, "reasons", reasons_json(a, &a->host_reasons));
	return o;
}

int p2ps_render_json(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     struct json_object **out, struct p2ps_error *err)
{
	struct json_object *root = json_object_new_object();
	if (!root)
		return p2ps_error_set(err, P2PS_ENOMEM, "json: out of memory");
	put(root, "schema_version", json_object_new_int(SCHEMA_VERSION));
	put(root, "tool", json_object_new_string("bar-inspect"));
	put(root, "version", str_or_null(o ? o->version : NULL));
	put(root, "host", host_json(a));
	struct json_object *devs = json_object_new_array();
	for (size_t i = 0; i < a->host->n_devs; i++)
		if (p2ps_dev_shown(a, o, (int)i))
			json_object_array_add(devs, device_json(a, (int)i));
	put(root, "devices", devs);
	put(root, "topology", topo_json(a));
	struct json_object *pairs = json_object_new_array();
	for (size_t k = 0; k < a->n_pairs; k++)
		if (p2ps_pair_shown(a, o, &a->pairs[k]))
			json_object_array_add(pairs, pair_json(a, &a->pairs[k]));
	put(root, "pairs", pairs);
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
