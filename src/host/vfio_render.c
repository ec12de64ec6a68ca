/* p2pscope: the VFIO section of bar-inspect's output, as json-c objects and as
 * text lines handed to a caller's callback (library code never prints).
 * The JSON keys are a contract with the guest tests and docs/vfio.md. */
#include "p2pscope/vfio.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vfio_uapi.h"

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
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	add_str(o, k, buf);
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
static const char *const irq_index_names[] = {"intx", "msi", "msix", "err", "req"};

static const char *irq_name(uint32_t index)
{
	return index < sizeof(irq_index_names) / sizeof(irq_index_names[0]) ? irq_index_names[index]
	                                                                    : "other";
}

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

/* The IOMMU context a device was opened into: the container's model, or the
 * iommufd IOAS of the cdev flow. */
static const char *dev_iommu_name(const struct p2ps_vfio_dev_report *r)
{
	return r->flow == P2PS_VFIO_FLOW_CDEV ? "iommufd"
	                                      : p2ps_vfio_iommu_type_name(r->iommu_type);
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
	add_str(o, "iommu_type", dev_iommu_name(r));
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
		add_str(q, "name", irq_name(r->irqs[i].index));
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

static const char *peer_iommu_name(const struct p2ps_vfio_peer_map *m)
{
	if (m->method && !strcmp(m->method, "IOMMU_IOAS_MAP"))
		return "iommufd";
	return p2ps_vfio_iommu_type_name(m->iommu_type);
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
	add_str(o, "iommu_type", peer_iommu_name(m));
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
	add_hex(o, "architecture", b->architecture);
	add_hex(o, "implementation", b->implementation);
	add_hex(o, "chip_id", b->chip_id);
	add_int(o, "major_revision", b->major_rev);
	add_int(o, "minor_revision", b->minor_rev);
	add_str(o, "arch_name", b->arch_name);
	add_str(o, "chip", b->chip_name);
	add_str(o, "gmmu_format", b->gmmu);
	return o;
}

/* ---- text ---------------------------------------------------------------------------- */

__attribute__((format(printf, 4, 5))) static void emit(p2ps_vfio_line_fn line, void *ctx,
                                                       const char *indent, const char *fmt, ...)
{
	char buf[512];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s", indent ? indent : "");
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	line(ctx, buf);
}

/* Sizes as lspci prints them: the largest binary unit that divides evenly. */
static const char *size_str(uint64_t v, char *buf, size_t size)
{
	static const char *const units[] = {"", "K", "M", "G", "T", "P"};
	unsigned u = 0;
	while (v && (v % 1024) == 0 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%" PRIu64 "%s", v, units[u]);
	return buf;
}

void p2ps_vfio_report_text(const struct p2ps_vfio_dev_report *r, const char *indent,
                           p2ps_vfio_line_fn line, void *ctx)
{
	if (!r || !line)
		return;
	char fl[64], nm[16], sz[32];
	emit(line, ctx, indent, "VFIO: %s flow via %s (group %d, IOMMU %s%s)",
	     p2ps_vfio_flow_name(r->flow), r->node, r->group, dev_iommu_name(r),
	     r->noiommu ? ", no-IOMMU group" : "");
	emit(line, ctx, indent, "  device: %u regions, %u IRQ indexes%s%s", r->info.num_regions,
	     r->info.num_irqs, (r->info.flags & VFIO_DEVICE_FLAGS_RESET) ? ", reset" : "",
	     (r->info.flags & VFIO_DEVICE_FLAGS_PCI) ? ", pci" : "");
	for (unsigned i = 0; i < r->n_regions; i++) {
		const struct p2ps_vfio_region *g = &r->regions[i];
		p2ps_vfio_region_name(g->index, nm, sizeof(nm));
		if (g->query_errno) {
			emit(line, ctx, indent, "  region %u %-6s: not available (%s)", g->index,
			     nm, strerror(g->query_errno));
			continue;
		}
		if (g->size == 0) {
			emit(line, ctx, indent, "  region %u %-6s: size 0 (not implemented)",
			     g->index, nm);
			continue;
		}
		emit(line, ctx, indent, "  region %u %-6s: size %s offset 0x%" PRIx64 " [%s]%s",
		     g->index, nm, size_str(g->size, sz, sizeof(sz)), g->offset,
		     p2ps_vfio_region_flags_str(g->flags, fl, sizeof(fl)),
		     g->msix_mappable ? " msix-mappable" : "");
		for (unsigned k = 0; g->has_sparse && k < g->n_areas; k++)
			emit(line, ctx, indent, "      mmap area 0x%" PRIx64 "+0x%" PRIx64,
			     g->areas[k].offset, g->areas[k].size);
		if (g->has_sparse && g->n_areas == 0)
			emit(line, ctx, indent, "      mmap areas: none (no part may be mapped)");
		if (g->sparse_malformed || g->sparse_outside)
			emit(line, ctx, indent, "      mmap areas malformed (%u reported)",
			     g->sparse_nr_areas);
		if (g->has_type)
			emit(line, ctx, indent, "      type 0x%x subtype %u", g->type, g->subtype);
		if (g->chain.end != P2PS_VFIO_CHAIN_OK && g->chain.end != P2PS_VFIO_CHAIN_NONE)
			emit(line, ctx, indent, "      capability chain %s at 0x%x",
			     p2ps_vfio_chain_end_name(g->chain.end), g->chain.bad_offset);
	}
	for (unsigned i = 0; i < r->n_irqs; i++)
		if (r->irqs[i].count)
			emit(line, ctx, indent, "  irq %-4s: %u vector%s",
			     irq_name(r->irqs[i].index), r->irqs[i].count,
			     r->irqs[i].count == 1 ? "" : "s");
	if (r->check.done)
		emit(line, ctx, indent,
		     "  config: %zu bytes via VFIO, %zu via sysfs; identity registers %s, %u of "
		     "%zu "
		     "bytes differ (vfio-pci virtualises BARs and some capabilities)",
		     r->config_len, r->check.sysfs_len,
		     r->check.identity_match ? "match" : "DIFFER", r->check.n_diff,
		     r->check.compared);
	else
		emit(line, ctx, indent, "  config: %zu bytes via VFIO; not cross-checked: %s",
		     r->config_len, r->check.why);
}

void p2ps_vfio_peer_map_text(const struct p2ps_vfio_peer_map *m, const char *indent,
                             p2ps_vfio_line_fn line, void *ctx)
{
	if (!m || !line)
		return;
	char sz[32];
	emit(line, ctx, indent, "map-peer: %s BAR%u (%s at bus 0x%" PRIx64 ") into the IOMMU of %s",
	     m->b, m->bar, size_str(m->bar_size, sz, sizeof(sz)), m->bar_bus_addr, m->a);
	emit(line, ctx, indent, "  %s, %s, 0x%" PRIx64 " bytes at BAR offset 0x%" PRIx64,
	     m->method ? m->method : "-", peer_iommu_name(m), m->map_size, m->map_offset);
	if (m->mapped)
		emit(line, ctx, indent, "  result: mapped at IOVA 0x%" PRIx64 "%s", m->iova,
		     m->iova_is_bus_addr ? " (= the peer's bus address)" : "");
	else
		emit(line, ctx, indent, "  result: refused, %s (errno %d)", strerror(m->map_errno),
		     m->map_errno);
	emit(line, ctx, indent, "  meaning: %s", m->meaning ? m->meaning : "-");
	if (m->mapped)
		emit(line, ctx, indent, "  unmapped: %s (0x%" PRIx64 " bytes)",
		     m->unmapped ? "yes" : "NO", m->unmapped_size);
}

void p2ps_nv_boot0_text(const struct p2ps_nv_boot0 *b, const char *indent, p2ps_vfio_line_fn line,
                        void *ctx)
{
	if (!b || !line)
		return;
	if (!b->responding) {
		emit(line, ctx, indent,
		     "NV_PMC_BOOT_0 = 0xffffffff: the device does not answer (in reset, removed, "
		     "or "
		     "memory decoding off)");
		return;
	}
	char chip[32];
	if (b->chip_name)
		snprintf(chip, sizeof(chip), "%s", b->chip_name);
	else
		snprintf(chip, sizeof(chip), "unknown (chip id 0x%03x)", b->chip_id);
	emit(line, ctx, indent,
	     "NV_PMC_BOOT_0 = 0x%08x: %s, architecture 0x%02x (%s), "
	     "implementation 0x%x, revision %c%u",
	     b->raw, chip, b->architecture, b->arch_name ? b->arch_name : "unknown",
	     b->implementation, 'A' + b->major_rev, b->minor_rev);
	if (b->gmmu)
		emit(line, ctx, indent, "GMMU format: %s", b->gmmu);
	else if (b->chip_name)
		emit(line, ctx, indent, "GMMU format: unknown (libgmmu has no chip %s)",
		     b->chip_name);
	else
		emit(line, ctx, indent, "GMMU format: unknown (chip id 0x%03x is not in the table)",
		     b->chip_id);
}
