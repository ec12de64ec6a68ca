/* SPDX-License-Identifier: MIT */
/* bar-inspect's text report: the VFIO sections after the host findings (devices opened
 * through VFIO, register reads, the peer mapping), and the line-by-line forms the
 * library offers to other callers. */
#include "render_internal.h"

#include <inttypes.h>
#include <linux/vfio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
	     p2ps_vfio_flow_name(r->flow), r->node, r->group, p2ps_vfio_report_iommu_name(r),
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
			     p2ps_vfio_irq_name(r->irqs[i].index), r->irqs[i].count,
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
	     m->method ? m->method : "-", p2ps_vfio_peer_iommu_name(m), m->map_size, m->map_offset);
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

/* ---- the sections after the report ---- */

static void line_to_buf(void *ctx, const char *line)
{
	struct p2ps_strbuf *b = ctx;
	p2ps_strbuf_puts(b, line);
	p2ps_strbuf_puts(b, "\n");
}

static void session_text(struct p2ps_strbuf *out, const struct p2ps_vfio_facts *f)
{
	p2ps_strbuf_puts(out, "\nVFIO\n");
	if (f->container)
		p2ps_strbuf_printf(out, "  container: API %d, extensions%s%s%s, IOMMU model %s\n",
		                   f->api_version, f->ext_type1 ? " Type1" : "",
		                   f->ext_type1v2 ? " Type1v2" : "",
		                   f->ext_noiommu ? " no-IOMMU" : "",
		                   p2ps_vfio_iommu_type_name(f->iommu_type));
	if (f->iommu_known) {
		p2ps_strbuf_printf(out, "  IOMMU page sizes 0x%" PRIx64 ", %u IOVA range%s:",
		                   f->iommu.iova_pgsizes, f->iommu.n_ranges,
		                   f->iommu.n_ranges == 1 ? "" : "s");
		for (unsigned i = 0; i < f->iommu.n_ranges; i++)
			p2ps_strbuf_printf(out, " 0x%" PRIx64 "-0x%" PRIx64,
			                   f->iommu.ranges[i].start, f->iommu.ranges[i].end);
		p2ps_strbuf_puts(out, "\n");
	} else if (f->iommu_why[0]) {
		p2ps_strbuf_printf(out, "  IOMMU info: %s\n", f->iommu_why);
	}
	for (unsigned i = 0; i < f->n_devs; i++) {
		p2ps_strbuf_printf(out, "%s\n", f->devs[i].bdf);
		p2ps_vfio_report_text(&f->devs[i], "  ", line_to_buf, out);
	}
}

void p2ps_text_vfio(struct p2ps_strbuf *out, const struct p2ps_vfio_facts *f)
{
	if (f->opened && f->n_devs)
		session_text(out, f);
	for (size_t i = 0; f->asked.read_reg && i < f->n_regs; i++) {
		const struct p2ps_vfio_reg_read *r = &f->regs[i];
		if (!r->ok) {
			p2ps_strbuf_printf(out, "\nread-reg: %s\n", r->error);
			continue;
		}
		p2ps_strbuf_printf(out, "\n%s BAR%u+0x%" PRIx64 " = 0x%08x (%s, read-only)\n",
		                   r->bdf, f->asked.reg_bar, f->asked.reg_off, r->value, r->how);
		if (r->nvidia_boot0)
			p2ps_nv_boot0_text(&r->boot0, "  ", line_to_buf, out);
	}
	if (!f->asked.map_peer)
		return;
	p2ps_strbuf_puts(out, "\n");
	if (f->peer_error[0]) {
		char a[P2PS_BDF_STR_MAX], b[P2PS_BDF_STR_MAX];
		p2ps_strbuf_printf(out, "map-peer %s -> %s: %s\n",
		                   p2ps_bdf_format(&f->asked.peer_b, b, sizeof(b)),
		                   p2ps_bdf_format(&f->asked.peer_a, a, sizeof(a)), f->peer_error);
	} else {
		p2ps_vfio_peer_map_text(&f->peer, "", line_to_buf, out);
	}
}
