/* SPDX-License-Identifier: MIT */
/* bar-inspect --json: one "devices" entry — ids, chip, BARs, link, ACS, Resizable BAR,
 * bridge window, what is unknown and why, and for an endpoint its path and GPU report. */
#include "render_internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"
#include "p2pscope/parse.h"

static struct json_object *int_or_null(bool known, int64_t v)
{
	return known ? json_object_new_int64(v) : NULL;
}

static struct json_object *gts_or_null(uint8_t speed)
{
	return speed ? json_object_new_double(p2ps_link_speed_gts(speed)) : NULL;
}

/* GB/s rounded to two decimals, so the document reads "63.02" rather than 17 digits. */
struct json_object *p2ps_json_gbps(double v)
{
	char s[32];
	if (v <= 0)
		return NULL;
	snprintf(s, sizeof(s), "%.2f", v);
	double x = v;
	p2ps_scan_double(s, &x);
	return json_object_new_double_s(x, s);
}

static struct json_object *bars_json(const struct p2ps_dev *d)
{
	struct json_object *arr = json_object_new_array();
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &d->bars[i];
		if (!b->present)
			continue;
		struct json_object *o = json_object_new_object();
		p2ps_json_put(o, "index", json_object_new_int(i));
		p2ps_json_put(o, "address",
		              b->unassigned ? NULL : json_object_new_uint64(b->address));
		p2ps_json_put(o, "size", b->size_known ? json_object_new_uint64(b->size) : NULL);
		const struct p2ps_json_bool_row flags[] = {{"is_64bit", b->is_64bit},
		                                           {"prefetchable", b->prefetchable},
		                                           {"io", b->io},
		                                           {"unassigned", b->unassigned}};
		p2ps_json_put_bools(o, P2PS_JSON_ROWS(flags));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *link_json(const struct p2ps_dev *d)
{
	const struct p2ps_pcie *e = &d->pcie;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "cap_speed_gts", gts_or_null(e->cap.speed));
	/* A link status of width 0 is a fact, a link that is down (lspci's "Width x0"); a
	 * capability of width 0 says nothing (emulated ports): unknown. */
	p2ps_json_put(o, "cap_width", int_or_null(e->cap.width != 0, e->cap.width));
	p2ps_json_put(o, "speed_gts", gts_or_null(e->sta.speed));
	p2ps_json_put(o, "width", int_or_null(e->sta_source != P2PS_LINK_NONE, e->sta.width));
	double cg = p2ps_link_gbps(&e->cap), sg = p2ps_link_gbps(&e->sta);
	p2ps_json_put(o, "cap_gbps", p2ps_json_gbps(cg));
	p2ps_json_put(o, "gbps", p2ps_json_gbps(sg));
	static const char *const src[] = {"none", "config", "sysfs"};
	p2ps_json_put(o, "cap_source",
	              json_object_new_string(src[e->cap_source <= 2 ? e->cap_source : 0]));
	p2ps_json_put(o, "source",
	              json_object_new_string(src[e->sta_source <= 2 ? e->sta_source : 0]));
	return o;
}

static struct json_object *acs_json(const struct p2ps_dev *d)
{
	if (!d->acs.present)
		return NULL;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "cap", json_object_new_int(d->acs.cap));
	p2ps_json_put(o, "ctl", json_object_new_int(d->acs.ctl));
	p2ps_json_put(o, "offset", json_object_new_int(d->acs.offset));
	p2ps_json_put(o, "redirects",
	              json_object_new_boolean(p2ps_acs_redirect_bits(d->acs.ctl) != 0));
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
		p2ps_json_put(x, "bar", json_object_new_int(e->bar));
		p2ps_json_put(x, "current_size",
		              json_object_new_uint64(p2ps_rebar_size_bytes(e->current)));
		p2ps_json_put(x, "supported_sizes", sizes_json(e->sizes));
		json_object_array_add(arr, x);
	}
	p2ps_json_put(o, "present", json_object_new_boolean(d->rebar.present));
	p2ps_json_put(o, "entries", arr);
	struct json_object *sy = json_object_new_object();
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		if (!d->rebar.sysfs_resize_known[i])
			continue;
		char k[40];
		snprintf(k, sizeof(k), "resource%d_resize", i);
		p2ps_json_put(sy, k, sizes_json(d->rebar.sysfs_resize[i]));
	}
	p2ps_json_put(o, "sysfs", sy);
	return o;
}

static struct json_object *unknown_json(const struct p2ps_dev *d)
{
	struct json_object *o = json_object_new_object();
	for (int f = 0; f < P2PS_FACT_COUNT; f++) {
		const char *why = p2ps_dev_unknown(d, (enum p2ps_fact)f);
		if (why)
			p2ps_json_put(o, p2ps_fact_name((enum p2ps_fact)f),
			              json_object_new_string(why));
	}
	return o;
}

static struct json_object *gpu_json(const struct p2ps_analysis *a, size_t gi)
{
	const struct p2ps_gpu_report *g = &a->gpus[gi];
	const struct p2ps_dev *d = &a->host->devs[g->dev_idx];
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "index", json_object_new_int((int)gi));
	p2ps_json_put(o, "is_gpu", json_object_new_boolean(g->is_gpu));
	p2ps_json_put(o, "bar1_index", int_or_null(g->bar1_index >= 0, g->bar1_index));
	p2ps_json_put(o, "bar1_size",
	              g->bar1_size_known ? json_object_new_uint64(g->bar1_size) : NULL);
	p2ps_json_put(o, "bar1_size_source", p2ps_json_str_or_null(g->bar1_size_source));
	p2ps_json_put(o, "bar1_driver_total",
	              d->gpu.bar1_known ? json_object_new_uint64(d->gpu.bar1_total_bytes) : NULL);
	p2ps_json_put(o, "vram",
	              d->gpu.vram_known ? json_object_new_uint64(d->gpu.vram_bytes) : NULL);
	p2ps_json_put(o, "bar1_covers_vram",
	              g->bar1_size_known && d->gpu.vram_known
	                      ? json_object_new_boolean(g->bar1_covers_vram)
	                      : NULL);
	p2ps_json_put(o, "rebar_max", g->rebar_max ? json_object_new_uint64(g->rebar_max) : NULL);
	p2ps_json_put(o, "iommu_mode", json_object_new_string(p2ps_iommu_mode_name(g->iommu)));
	static const char *const src[] = {"none", "nvml", "nvidia-smi", "rm"};
	p2ps_json_put(o, "facts_source",
	              json_object_new_string(src[d->gpu.source <= 3 ? d->gpu.source : 0]));
	if (d->gpu.rm.known)
		p2ps_json_put(o, "rm", p2ps_json_rm_gpu(d));
	if (d->gpu.nvlink_known) {
		struct json_object *arr = json_object_new_array();
		for (int i = 0; i < d->gpu.n_nvlink_peers && i < P2PS_HOST_MAX_NVLINK; i++) {
			char bdf[20];
			struct json_object *p = json_object_new_object();
			p2ps_json_put(p, "bdf",
			              json_object_new_string(p2ps_bdf_format(
			                      &d->gpu.nvlink_peers[i].bdf, bdf, sizeof(bdf))));
			p2ps_json_put(p, "links",
			              json_object_new_int(d->gpu.nvlink_peers[i].links));
			json_object_array_add(arr, p);
		}
		p2ps_json_put(o, "nvlink_peers", arr);
	} else {
		p2ps_json_put(o, "nvlink_peers", NULL);
	}
	p2ps_json_put(o, "link_cap_gbps", p2ps_json_gbps(g->link_cap_gbps));
	p2ps_json_put(o, "link_gbps", p2ps_json_gbps(g->link_sta_gbps));
	p2ps_json_put(o, "reasons", p2ps_json_reasons(a, &g->reasons));
	return o;
}

static struct json_object *chip_json(const struct p2ps_nvidia_chip *c)
{
	if (!c)
		return NULL;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "name", json_object_new_string(p2ps_nvidia_chip_name(c)));
	p2ps_json_put(o, "generation",
	              json_object_new_string(p2ps_nv_generation_name(c->generation)));
	/* libgmmu's layout name ("v3-gh"); null with the reason when it has no such chip. */
	const struct gmmu_format *f = c->gmmu.format;
	p2ps_json_put(o, "gmmu_format", f ? json_object_new_string(f->name) : NULL);
	p2ps_json_put(o, "gmmu_version", f ? json_object_new_int((int)f->version) : NULL);
	if (f) {
		p2ps_json_put(o, "gmmu_unknown", NULL);
	} else {
		char why[64];
		snprintf(why, sizeof(why), "libgmmu has no chip %s", p2ps_nvidia_chip_name(c));
		p2ps_json_put(o, "gmmu_unknown", json_object_new_string(why));
	}
	return o;
}

static struct json_object *bridge_json(const struct p2ps_dev *d)
{
	struct json_object *br = json_object_new_object();
	p2ps_json_put(br, "secondary", json_object_new_int(d->bridge.secondary));
	p2ps_json_put(br, "subordinate", json_object_new_int(d->bridge.subordinate));
	const struct p2ps_window *w = &d->bridge.pref;
	if (w->present) {
		struct json_object *pw = json_object_new_object();
		p2ps_json_put(pw, "base", json_object_new_uint64(w->base));
		p2ps_json_put(pw, "limit", json_object_new_uint64(w->limit));
		p2ps_json_put(pw, "is_64bit", json_object_new_boolean(w->is_64bit));
		p2ps_json_put(br, "prefetchable_window", pw);
	} else {
		p2ps_json_put(br, "prefetchable_window", NULL);
	}
	return br;
}

/* A new object with what names a device: address, ids, names. */
static struct json_object *ident_json(const struct p2ps_dev *d)
{
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "bdf", json_object_new_string(d->bdf_str));
	const struct {
		const char *key;
		int32_t v;
	} ids[] = {
	        {"vendor_id", d->vendor_id},
	        {"device_id", d->device_id},
	        {"subsystem_vendor_id", d->subsys_vendor_id},
	        {"subsystem_id", d->subsys_id},
	        {"class", (int32_t)d->class_code},
	        {"revision", d->revision},
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		p2ps_json_put(o, ids[i].key, json_object_new_int(ids[i].v));
	p2ps_json_put(o, "vendor_name", p2ps_json_str_or_null(d->vendor_name));
	p2ps_json_put(o, "device_name", p2ps_json_str_or_null(d->device_name));
	return o;
}

static struct json_object *pcie_type_json(const struct p2ps_dev *d)
{
	return d->pcie.present ? json_object_new_string(p2ps_pcie_type_name(d->pcie.port_type))
	                       : NULL;
}

struct json_object *p2ps_json_path_bridges(const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	struct json_object *arr = json_object_new_array();
	for (size_t i = 0; i < h->n_devs; i++) {
		bool on_path = false;
		for (size_t g = 0; g < a->n_gpus && !on_path; g++)
			for (int k = 0; k < a->gpus[g].path_len && !on_path; k++)
				on_path = a->gpus[g].path[k] == (int)i;
		if (!on_path)
			continue;
		struct json_object *o = ident_json(&h->devs[i]);
		p2ps_json_put(o, "pcie_type", pcie_type_json(&h->devs[i]));
		p2ps_json_put(o, "acs", acs_json(&h->devs[i]));
		json_object_array_add(arr, o);
	}
	return arr;
}

struct json_object *p2ps_json_device(const struct p2ps_analysis *a, int idx)
{
	const struct p2ps_host *h = a->host;
	const struct p2ps_dev *d = &h->devs[idx];
	struct json_object *o = ident_json(d);
	p2ps_json_put(o, "chip", chip_json(d->chip));
	p2ps_json_put(o, "bars", bars_json(d));
	p2ps_json_put(o, "pcie_type", pcie_type_json(d));
	p2ps_json_put(o, "link", link_json(d));
	p2ps_json_put(o, "acs", acs_json(d));
	p2ps_json_put(o, "rebar", rebar_json(d));
	p2ps_json_put(o, "driver", p2ps_json_str_or_null(d->driver));
	p2ps_json_put(o, "numa_node", int_or_null(d->numa_node >= 0, d->numa_node));
	p2ps_json_put(o, "iommu_group", int_or_null(d->iommu_group >= 0, d->iommu_group));
	p2ps_json_put(o, "iommu_domain_type", p2ps_json_str_or_null(d->iommu_domain_type));
	p2ps_json_put(o, "boot_vga",
	              d->boot_vga >= 0 ? json_object_new_boolean(d->boot_vga == 1) : NULL);
	p2ps_json_put(o, "parent", d->parent ? json_object_new_string(d->parent->bdf_str) : NULL);
	p2ps_json_put(o, "root_bus", p2ps_json_str_or_null(d->root_bus));
	if (d->bridge.is_bridge)
		p2ps_json_put(o, "bridge", bridge_json(d));
	p2ps_json_put(o, "config_bytes", json_object_new_int64((int64_t)d->config_len));
	p2ps_json_put(o, "unknown", unknown_json(d));
	int gi = p2ps_analysis_gpu_of_dev(a, idx);
	if (gi >= 0) {
		const struct p2ps_gpu_report *g = &a->gpus[gi];
		struct json_object *path = json_object_new_array();
		for (int i = 0; i < g->path_len; i++)
			json_object_array_add(path,
			                      json_object_new_string(h->devs[g->path[i]].bdf_str));
		p2ps_json_put(o, "path", path);
		p2ps_json_put(o, "gpu", gpu_json(a, (size_t)gi));
	}
	/* What VFIO reports about the device, when it was opened through VFIO. */
	const struct p2ps_vfio_dev_report *r = p2ps_vfio_facts_report(h->vfio, &d->bdf);
	if (r)
		p2ps_json_put(o, "vfio", p2ps_vfio_report_json(r));
	return o;
}
