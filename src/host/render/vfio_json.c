/* SPDX-License-Identifier: MIT */
/* bar-inspect --json: the VFIO facts (host->vfio) — per device under its "devices" entry,
 * and the top-level "vfio" object (session, devices, register reads, peer mapping). The
 * keys are a contract with the guest tests and docs/vfio.md. */
#include "render_internal.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/vfio.h>

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static void add_hex(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, p2ps_json_hex(v));
}

static struct json_object *flag_list(uint32_t flags, const char *const *names, unsigned n)
{
	struct json_object *a = json_object_new_array();
	for (unsigned i = 0; i < n; i++)
		if (names[i] && (flags & (1u << i)))
			json_object_array_add(a, json_object_new_string(names[i]));
	return a;
}

static const char *const region_flag_names[] = {"read", "write", "mmap", "caps"};
static const char *const device_flag_names[] = {"reset", "pci", "platform", "amba",
                                                "ccw",   "ap",  "fsl-mc",   "caps"};
static const char *const irq_flag_names[] = {"eventfd", "maskable", "automasked", "noresize"};

static const char *cap_name(uint16_t id)
{
	switch (id) {
	case VFIO_REGION_INFO_CAP_SPARSE_MMAP: return "sparse_mmap";
	case VFIO_REGION_INFO_CAP_TYPE: return "type";
	case VFIO_REGION_INFO_CAP_MSIX_MAPPABLE: return "msix_mappable";
	case VFIO_REGION_INFO_CAP_NVLINK2_SSATGT: return "nvlink2_ssatgt";
	case VFIO_REGION_INFO_CAP_NVLINK2_LNKSPD: return "nvlink2_lnkspd";
	default: return NULL;
	}
}

static struct json_object *region_json(const struct p2ps_vfio_region *r)
{
	struct json_object *o = json_object_new_object();
	char name[16];
	add_int(o, "index", r->index);
	add_str(o, "name", p2ps_vfio_region_name(r->index, name, sizeof(name)));
	if (r->query_errno) {
		add_str(o, "error", strerror(r->query_errno));
		return o;
	}
	add_u64(o, "size", r->size);
	add_hex(o, "offset", r->offset);
	json_object_object_add(o, "flags", flag_list(r->flags, region_flag_names, 4));
	add_str(o, "caps_chain", p2ps_vfio_chain_end_name(r->chain.end));
	struct json_object *caps = json_object_new_array();
	for (unsigned i = 0; i < r->chain.n; i++) {
		const char *cn = cap_name(r->chain.caps[i].id);
		char unk[32];
		if (!cn) {
			snprintf(unk, sizeof(unk), "unknown (id %u)", r->chain.caps[i].id);
			cn = unk;
		}
		json_object_array_add(caps, json_object_new_string(cn));
	}
	json_object_object_add(o, "caps", caps);
	if (r->has_sparse) {
		struct json_object *areas = json_object_new_array();
		for (unsigned i = 0; i < r->n_areas; i++) {
			struct json_object *a = json_object_new_object();
			add_hex(a, "offset", r->areas[i].offset);
			add_u64(a, "size", r->areas[i].size);
			json_object_array_add(areas, a);
		}
		json_object_object_add(o, "mmap_areas", areas);
		add_int(o, "mmap_areas_reported", r->sparse_nr_areas);
		if (r->sparse_malformed || r->sparse_outside)
			add_bool(o, "mmap_areas_malformed", true);
	}
	if (r->has_type) {
		struct json_object *t = json_object_new_object();
		add_hex(t, "type", r->type);
		add_int(t, "subtype", r->subtype);
		json_object_object_add(o, "type", t);
	}
	add_bool(o, "msix_mappable", r->msix_mappable);
	return o;
}

struct json_object *p2ps_vfio_report_json(const struct p2ps_vfio_dev_report *r)
{
	if (!r)
		return NULL;
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	add_str(o, "flow", p2ps_vfio_flow_name(r->flow));
	add_str(o, "node", r->node);
	add_int(o, "group", r->group);
	add_bool(o, "noiommu", r->noiommu);
	add_str(o, "iommu_type", p2ps_vfio_report_iommu_name(r));
	json_object_object_add(o, "device_flags", flag_list(r->info.flags, device_flag_names, 8));
	add_int(o, "num_regions", r->info.num_regions);
	add_int(o, "num_irqs", r->info.num_irqs);
	add_str(o, "device_caps_chain", p2ps_vfio_chain_end_name(r->info.chain.end));
	struct json_object *regs = json_object_new_array();
	for (unsigned i = 0; i < r->n_regions; i++)
		json_object_array_add(regs, region_json(&r->regions[i]));
	json_object_object_add(o, "regions", regs);
	struct json_object *irqs = json_object_new_array();
	for (unsigned i = 0; i < r->n_irqs; i++) {
		struct json_object *q = json_object_new_object();
		add_int(q, "index", r->irqs[i].index);
		add_str(q, "name", p2ps_vfio_irq_name(r->irqs[i].index));
		add_int(q, "count", r->irqs[i].count);
		json_object_object_add(q, "flags", flag_list(r->irqs[i].flags, irq_flag_names, 4));
		json_object_array_add(irqs, q);
	}
	json_object_object_add(o, "irqs", irqs);
	struct json_object *c = json_object_new_object();
	add_int(c, "vfio_bytes", (int64_t)r->config_len);
	add_bool(c, "checked", r->check.done);
	if (r->check.done) {
		add_int(c, "sysfs_bytes", (int64_t)r->check.sysfs_len);
		add_int(c, "compared_bytes", (int64_t)r->check.compared);
		add_bool(c, "identity_match", r->check.identity_match);
		add_int(c, "differing_bytes", r->check.n_diff);
		if (r->check.first_diff >= 0)
			add_hex(c, "first_diff", (uint64_t)r->check.first_diff);
		else
			json_object_object_add(c, "first_diff", NULL);
	} else {
		add_str(c, "why", r->check.why);
	}
	json_object_object_add(o, "config", c);
	return o;
}

struct json_object *p2ps_vfio_peer_map_json(const struct p2ps_vfio_peer_map *m)
{
	if (!m)
		return NULL;
	struct json_object *o = json_object_new_object();
	add_str(o, "a", m->a);
	add_str(o, "b", m->b);
	add_bool(o, "same_group", m->same_group);
	add_int(o, "bar", m->bar);
	add_u64(o, "bar_size", m->bar_size);
	add_hex(o, "bar_bus_addr", m->bar_bus_addr);
	add_hex(o, "map_offset", m->map_offset);
	add_u64(o, "map_size", m->map_size);
	add_str(o, "method", m->method);
	add_str(o, "iommu_type", p2ps_vfio_peer_iommu_name(m));
	add_str(o, "result", m->mapped ? "mapped" : "refused");
	if (m->mapped || m->iova) {
		add_hex(o, "iova", m->iova);
		add_bool(o, "iova_is_bus_addr", m->iova_is_bus_addr);
	}
	if (!m->mapped) {
		add_int(o, "errno", m->map_errno);
		add_str(o, "error", strerror(m->map_errno));
	}
	add_str(o, "meaning", m->meaning);
	add_bool(o, "unmapped", m->unmapped);
	if (m->unmapped)
		add_u64(o, "unmapped_size", m->unmapped_size);
	return o;
}

struct json_object *p2ps_nv_boot0_json(const struct p2ps_nv_boot0 *b)
{
	if (!b)
		return NULL;
	struct json_object *o = json_object_new_object();
	add_hex(o, "raw", b->raw);
	add_bool(o, "responding", b->responding);
	if (!b->responding)
		return o;
	/* The decoded fields: identifiers in hex, revisions as numbers. */
	const struct {
		const char *key;
		uint64_t v;
		bool hex;
	} fields[] = {
	        {"architecture", b->architecture, true},
	        {"implementation", b->implementation, true},
	        {"chip_id", b->chip_id, true},
	        {"major_revision", b->major_rev, false},
	        {"minor_revision", b->minor_rev, false},
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].hex)
			add_hex(o, fields[i].key, fields[i].v);
		else
			add_int(o, fields[i].key, (int64_t)fields[i].v);
	add_str(o, "arch_name", b->arch_name);
	add_str(o, "chip", b->chip_name);
	add_str(o, "gmmu_format", b->gmmu);
	return o;
}

/* ---- the top-level "vfio" object ---- */

static struct json_object *iommu_json(const struct p2ps_vfio_facts *f)
{
	struct json_object *o = json_object_new_object();
	add_str(o, "container_iommu_type", p2ps_vfio_iommu_type_name(f->iommu_type));
	add_int(o, "api_version", f->api_version);
	struct json_object *ext = json_object_new_array();
	if (f->ext_type1)
		json_object_array_add(ext, json_object_new_string("Type1"));
	if (f->ext_type1v2)
		json_object_array_add(ext, json_object_new_string("Type1v2"));
	if (f->ext_noiommu)
		json_object_array_add(ext, json_object_new_string("no-IOMMU"));
	json_object_object_add(o, "extensions", ext);
	add_bool(o, "known", f->iommu_known);
	if (!f->iommu_known) {
		add_str(o, "why", f->iommu_why);
		return o;
	}
	add_hex(o, "iova_pgsizes", f->iommu.iova_pgsizes);
	struct json_object *ranges = json_object_new_array();
	for (unsigned i = 0; i < f->iommu.n_ranges; i++) {
		struct json_object *r = json_object_new_object();
		add_hex(r, "start", f->iommu.ranges[i].start);
		add_hex(r, "end", f->iommu.ranges[i].end);
		json_object_array_add(ranges, r);
	}
	json_object_object_add(o, "iova_ranges", ranges);
	if (f->iommu.has_dma_avail)
		add_int(o, "dma_avail", f->iommu.dma_avail);
	return o;
}

static struct json_object *reg_json(const struct p2ps_vfio_facts *f,
                                    const struct p2ps_vfio_reg_read *r)
{
	struct json_object *o = json_object_new_object();
	char hex[24];
	add_str(o, "bdf", r->bdf);
	add_int(o, "bar", (int)f->asked.reg_bar);
	add_hex(o, "offset", f->asked.reg_off);
	if (!r->ok) {
		add_str(o, "error", r->error);
		return o;
	}
	snprintf(hex, sizeof(hex), "0x%08x", r->value);
	add_str(o, "value", hex);
	add_str(o, "access", r->how);
	if (r->nvidia_boot0)
		json_object_object_add(o, "nv_pmc_boot_0", p2ps_nv_boot0_json(&r->boot0));
	return o;
}

static struct json_object *peer_error_json(const struct p2ps_vfio_facts *f)
{
	struct json_object *o = json_object_new_object();
	char a[P2PS_BDF_STR_MAX], b[P2PS_BDF_STR_MAX];
	add_str(o, "a", p2ps_bdf_format(&f->asked.peer_a, a, sizeof(a)));
	add_str(o, "b", p2ps_bdf_format(&f->asked.peer_b, b, sizeof(b)));
	add_str(o, "result", "error");
	add_str(o, "error", f->peer_error);
	return o;
}

struct json_object *p2ps_json_vfio(const struct p2ps_vfio_facts *f)
{
	struct json_object *top = json_object_new_object();
	if (f->opened) {
		json_object_object_add(top, "iommu", iommu_json(f));
		struct json_object *arr = json_object_new_array();
		for (unsigned i = 0; i < f->n_devs; i++) {
			struct json_object *o = p2ps_vfio_report_json(&f->devs[i]);
			add_str(o, "bdf", f->devs[i].bdf);
			json_object_array_add(arr, o);
		}
		json_object_object_add(top, "devices", arr);
	}
	if (f->asked.read_reg) {
		struct json_object *arr = json_object_new_array();
		for (size_t i = 0; i < f->n_regs; i++)
			json_object_array_add(arr, reg_json(f, &f->regs[i]));
		json_object_object_add(top, "read_reg", arr);
	}
	if (f->asked.map_peer)
		json_object_object_add(top, "map_peer",
		                       f->peer_error[0] ? peer_error_json(f)
		                                        : p2ps_vfio_peer_map_json(&f->peer));
	return top;
}
