/* SPDX-License-Identifier: MIT */
/* The text report's device blocks: one per GPU or peer (BARs, BAR1 against VRAM,
 * Resizable BAR, link, NVLink, the bridge path with ACS, findings) and, with --all, one
 * per other device, in lspci's vocabulary (Region N: Memory at ... [size=...]). */
#include "render_internal.h"

#include <stdio.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"

static void ids_line(struct p2ps_strbuf *b, const struct p2ps_dev *d)
{
	p2ps_strbuf_printf(b, "%s%s%s [%04x:", d->vendor_name, d->vendor_name[0] ? " " : "",
	                   d->device_name[0] ? d->device_name : "Device", d->vendor_id);
	/* Without config bytes (a paste that names the board only) a zero id or revision was
	 * never read: it is unknown, not 0. */
	if (d->config_len || d->device_id)
		p2ps_strbuf_printf(b, "%04x]", d->device_id);
	else
		p2ps_strbuf_puts(b, "????]");
	if (d->config_len || d->revision)
		p2ps_strbuf_printf(b, " (rev %02x)", d->revision);
}

static void bars(struct p2ps_strbuf *b, const struct p2ps_dev *d, int bar1, const char *ind)
{
	char sz[32];
	bool any = false;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *r = &d->bars[i];
		if (!r->present)
			continue;
		any = true;
		p2ps_strbuf_printf(b, "%sRegion %d: %s at ", ind, i,
		                   r->io ? "I/O ports" : "Memory");
		if (r->unassigned)
			p2ps_strbuf_puts(b, "<unassigned>");
		else
			p2ps_strbuf_printf(b, "%llx", (unsigned long long)r->address);
		if (!r->io)
			p2ps_strbuf_printf(b, " (%s, %sprefetchable)",
			                   r->is_64bit ? "64-bit" : "32-bit",
			                   r->prefetchable ? "" : "non-");
		if (r->size_known)
			p2ps_strbuf_printf(b, " [size=%s]",
			                   p2ps_size_short(r->size, sz, sizeof(sz)));
		else
			p2ps_strbuf_puts(b, " [size unknown]");
		if (i == bar1)
			p2ps_strbuf_puts(b, p2ps_dev_is_nvidia_gpu(d)
			                            ? "  <- BAR1 (frame-buffer aperture)"
			                            : "  <- P2P window");
		p2ps_strbuf_puts(b, "\n");
	}
	if (!any)
		p2ps_strbuf_printf(b, "%sRegions: none%s%s\n", ind,
		                   p2ps_dev_unknown(d, P2PS_FACT_CONFIG) ? " known: " : "",
		                   p2ps_dev_unknown(d, P2PS_FACT_CONFIG)
		                           ? p2ps_dev_unknown(d, P2PS_FACT_CONFIG)
		                           : "");
}

static void rebar(struct p2ps_strbuf *b, const struct p2ps_dev *d, const char *ind)
{
	char s1[32], s2[32];
	if (d->rebar.present) {
		for (int k = 0; k < d->rebar.count && k < P2PS_HOST_MAX_REBAR; k++) {
			const struct p2ps_rebar_entry *e = &d->rebar.e[k];
			p2ps_strbuf_printf(
			        b, "%sResizable BAR %u: current size %s, supported:", ind, e->bar,
			        p2ps_size_format(p2ps_rebar_size_bytes(e->current), s1,
			                         sizeof(s1)));
			for (int n = 0; n <= 43; n++)
				if (e->sizes & (1ull << n))
					p2ps_strbuf_printf(
					        b, " %s",
					        p2ps_size_short(p2ps_rebar_size_bytes((uint8_t)n),
					                        s2, sizeof(s2)));
			p2ps_strbuf_puts(b, "\n");
		}
		return;
	}
	bool sysfs = false;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		if (!d->rebar.sysfs_resize_known[i] || !d->rebar.sysfs_resize[i])
			continue;
		sysfs = true;
		p2ps_strbuf_printf(
		        b, "%sResizable BAR %d (sysfs resource%d_resize): supported:", ind, i, i);
		for (int n = 0; n <= 43; n++)
			if (d->rebar.sysfs_resize[i] & (1ull << n))
				p2ps_strbuf_printf(
				        b, " %s",
				        p2ps_size_short(p2ps_rebar_size_bytes((uint8_t)n), s2,
				                        sizeof(s2)));
		p2ps_strbuf_puts(b, "\n");
	}
	if (sysfs)
		return;
	const char *why = p2ps_dev_unknown(d, P2PS_FACT_REBAR);
	p2ps_strbuf_printf(b, "%sResizable BAR: %s%s\n", ind, why ? "unknown: " : "not present",
	                   why ? why : "");
}

static void link_text(struct p2ps_strbuf *b, const struct p2ps_link *l, const char *src)
{
	if (!l->speed || !l->width) {
		p2ps_strbuf_puts(b, "unknown");
		return;
	}
	p2ps_strbuf_printf(b, "%g GT/s x%u (%.1f GB/s per direction%s%s)",
	                   p2ps_link_speed_gts(l->speed), l->width, p2ps_link_gbps(l),
	                   src[0] ? ", " : "", src);
}

static const char *link_src(enum p2ps_link_source s)
{
	return s == P2PS_LINK_SYSFS ? "from sysfs" : "";
}

static void link(struct p2ps_strbuf *b, const struct p2ps_dev *d, const char *ind)
{
	const struct p2ps_pcie *e = &d->pcie;
	if (e->present)
		p2ps_strbuf_printf(b, "%sPCIe: %s (v%u)\n", ind, p2ps_pcie_type_name(e->port_type),
		                   e->version);
	p2ps_strbuf_printf(b, "%sLink capability: ", ind);
	link_text(b, &e->cap, link_src(e->cap_source));
	if (!e->cap.speed && p2ps_dev_unknown(d, P2PS_FACT_LINK_CAP))
		p2ps_strbuf_printf(b, " (%s)", p2ps_dev_unknown(d, P2PS_FACT_LINK_CAP));
	p2ps_strbuf_printf(b, "\n%sLink status:     ", ind);
	if (p2ps_link_is_down(e))
		p2ps_strbuf_puts(b, "down (Width x0: an empty slot or a dead port)");
	else
		link_text(b, &e->sta, link_src(e->sta_source));
	if (!e->sta.speed && p2ps_dev_unknown(d, P2PS_FACT_LINK_STATUS))
		p2ps_strbuf_printf(b, " (%s)", p2ps_dev_unknown(d, P2PS_FACT_LINK_STATUS));
	/* As lspci: only where the device's own capability bounds the link (endpoints and
	 * upstream ports); a root or downstream port trains to whatever sits below it. */
	bool own = !e->present || e->port_type == P2PS_PCIE_ENDPOINT ||
	           e->port_type == P2PS_PCIE_LEGACY_ENDPOINT ||
	           e->port_type == P2PS_PCIE_SWITCH_UPSTREAM;
	if (own && e->cap.speed && e->sta.speed &&
	    (e->sta.speed < e->cap.speed || e->sta.width < e->cap.width))
		p2ps_strbuf_puts(b, " (downgraded)");
	p2ps_strbuf_puts(b, "\n");
}

static void acs(struct p2ps_strbuf *b, const struct p2ps_dev *d, const char *ind)
{
	char s[128];
	if (!d->acs.present) {
		const char *why = p2ps_dev_unknown(d, P2PS_FACT_ACS);
		if (why)
			p2ps_strbuf_printf(b, "%sACS: unknown (%s)\n", ind, why);
		else if (d->bridge.is_bridge)
			p2ps_strbuf_printf(b, "%sACS: no capability (cannot redirect)\n", ind);
		return;
	}
	p2ps_strbuf_printf(b, "%sACSCap: %s\n", ind, p2ps_acs_format(d->acs.cap, s, sizeof(s)));
	p2ps_strbuf_printf(b, "%sACSCtl: %s%s\n", ind, p2ps_acs_format(d->acs.ctl, s, sizeof(s)),
	                   p2ps_acs_redirect_bits(d->acs.ctl)
	                           ? "  <- redirects peer traffic to the root complex"
	                           : "");
}

/* "  NUMA node: N  IOMMU group: G (type)", with "none" where the kernel reports none. */
static void numa_and_group(struct p2ps_strbuf *b, const struct p2ps_dev *d)
{
	if (d->numa_node >= 0)
		p2ps_strbuf_printf(b, "  NUMA node: %d", d->numa_node);
	else
		p2ps_strbuf_puts(b, "  NUMA node: none");
	if (d->iommu_group >= 0)
		p2ps_strbuf_printf(b, "  IOMMU group: %d (%s)", d->iommu_group,
		                   d->iommu_domain_type[0] ? d->iommu_domain_type : "type unknown");
	else
		p2ps_strbuf_puts(b, "  IOMMU group: none");
}

static void gpu_chip_line(struct p2ps_strbuf *b, const struct p2ps_gpu_report *g,
                          const struct p2ps_dev *d, const char *ind)
{
	const struct p2ps_nvidia_chip *c = d->chip;
	if (!g->is_gpu)
		p2ps_strbuf_printf(b,
		                   "%sPeer (not an NVIDIA GPU), class %06x: its P2P window is its "
		                   "largest prefetchable BAR\n",
		                   ind, d->class_code);
	else if (c && c->gmmu.format)
		p2ps_strbuf_printf(b, "%sChip: %s (%s, GMMU %s)\n", ind, p2ps_nvidia_chip_name(c),
		                   p2ps_nv_generation_name(c->generation), c->gmmu.format->name);
	else if (c)
		p2ps_strbuf_printf(b, "%sChip: %s (%s, GMMU unknown: libgmmu has no chip %s)\n",
		                   ind, p2ps_nvidia_chip_name(c),
		                   p2ps_nv_generation_name(c->generation),
		                   p2ps_nvidia_chip_name(c));
	else
		p2ps_strbuf_printf(b, "%sChip: unknown (device id %04x not in the table)\n", ind,
		                   d->device_id);
}

/* BAR1 against VRAM for a GPU; the P2P window for another peer. */
static void gpu_memory_line(struct p2ps_strbuf *b, const struct p2ps_gpu_report *g,
                            const struct p2ps_dev *d, const char *ind)
{
	char s1[32], s2[32];
	if (!g->is_gpu) {
		p2ps_strbuf_printf(b, "%sP2P window: ", ind);
		if (g->bar1_size_known)
			p2ps_strbuf_printf(b, "%s (register %d)\n",
			                   p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
			                   g->bar1_index);
		else
			p2ps_strbuf_puts(b, g->bar1_index >= 0
			                            ? "size unknown\n"
			                            : "none (no prefetchable memory BAR)\n");
		return;
	}
	p2ps_strbuf_printf(b, "%sBAR1: ", ind);
	if (g->bar1_size_known)
		p2ps_strbuf_printf(b, "%s (%s)", p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
		                   g->bar1_size_source);
	else
		p2ps_strbuf_puts(b, "size unknown");
	if (d->gpu.bar1_known)
		p2ps_strbuf_printf(b, ", driver reports %s",
		                   p2ps_size_format(d->gpu.bar1_total_bytes, s2, sizeof(s2)));
	p2ps_strbuf_puts(b, "; VRAM ");
	if (d->gpu.vram_known) {
		p2ps_strbuf_printf(b, "%s (%s)",
		                   p2ps_size_format(d->gpu.vram_bytes, s2, sizeof(s2)),
		                   d->gpu.source == P2PS_GPU_SRC_NVML ? "NVML"
		                   : d->gpu.source == P2PS_GPU_SRC_RM ? "RM API"
		                                                      : "nvidia-smi");
		if (g->bar1_size_known)
			p2ps_strbuf_puts(b, g->bar1_covers_vram ? ": BAR1 covers VRAM"
			                                        : ": BAR1 is SMALLER than VRAM");
	} else {
		const char *why = p2ps_dev_unknown(d, P2PS_FACT_VRAM);
		p2ps_strbuf_printf(b, "unknown%s%s%s", why ? " (" : "", why ? why : "",
		                   why ? ")" : "");
	}
	p2ps_strbuf_puts(b, "\n");
}

static void gpu_nvlink_line(struct p2ps_strbuf *b, const struct p2ps_dev *d, const char *ind)
{
	if (!d->gpu.nvlink_known)
		return;
	p2ps_strbuf_printf(b, "%sNVLink:", ind);
	if (!d->gpu.n_nvlink_peers)
		p2ps_strbuf_puts(b, " no active links");
	for (int i = 0; i < d->gpu.n_nvlink_peers && i < P2PS_HOST_MAX_NVLINK; i++) {
		char bdf[20];
		p2ps_strbuf_printf(b, " %s x%d",
		                   p2ps_bdf_format(&d->gpu.nvlink_peers[i].bdf, bdf, sizeof(bdf)),
		                   d->gpu.nvlink_peers[i].links);
	}
	p2ps_strbuf_puts(b, "\n");
}

/* The path, GPU first, then each bridge up to the host bridge. */
static void gpu_path(struct p2ps_strbuf *b, const struct p2ps_host *h,
                     const struct p2ps_gpu_report *g, const struct p2ps_dev *d, const char *ind)
{
	p2ps_strbuf_printf(b, "%sPath to host bridge:", ind);
	/* No bridge found is not "no bridge" when the source could not show one (a paste
	 * without lspci -t, an unresolved sysfs link): the backend then leaves root_bus empty. */
	const char *why = p2ps_dev_unknown(d, P2PS_FACT_PARENT);
	if (!g->path_len && why)
		p2ps_strbuf_printf(b, " unknown: %s\n", why);
	else if (!g->path_len)
		p2ps_strbuf_printf(b, " directly on root bus %s (no bridge)\n",
		                   d->root_bus[0] ? d->root_bus : "?");
	else
		p2ps_strbuf_puts(b, "\n");
	for (int i = 0; i < g->path_len; i++) {
		const struct p2ps_dev *br = &h->devs[g->path[i]];
		p2ps_strbuf_printf(b, "%s  %s %s ", ind, br->bdf_str,
		                   br->pcie.present ? p2ps_pcie_type_name(br->pcie.port_type)
		                                    : "bridge");
		ids_line(b, br);
		p2ps_strbuf_puts(b, "\n");
		if (br->pcie.cap.speed) {
			p2ps_strbuf_printf(b, "%s      Link: ", ind);
			link_text(b, br->pcie.sta.speed ? &br->pcie.sta : &br->pcie.cap, "");
			p2ps_strbuf_printf(b, "%s\n", br->pcie.sta.speed ? "" : " (capability)");
		}
		acs(b, br, "\t      ");
		if (br->bridge.pref.present) {
			char w[32];
			p2ps_strbuf_printf(
			        b, "%s      Prefetchable window: %llx-%llx [size=%s]\n", ind,
			        (unsigned long long)br->bridge.pref.base,
			        (unsigned long long)br->bridge.pref.limit,
			        p2ps_size_short(br->bridge.pref.limit - br->bridge.pref.base + 1, w,
			                        sizeof(w)));
		}
	}
	if (g->path_len)
		p2ps_strbuf_printf(b, "%s  %s (host bridge)\n", ind,
		                   h->devs[g->path[g->path_len - 1]].root_bus);
	if (g->path_looped)
		p2ps_strbuf_printf(b, "%s  ... parent chain longer than %d levels: stopped\n", ind,
		                   P2PS_PATH_MAX);
}

void p2ps_text_gpu_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a, size_t gi)
{
	const struct p2ps_host *h = a->host;
	const struct p2ps_gpu_report *g = &a->gpus[gi];
	const struct p2ps_dev *d = &h->devs[g->dev_idx];
	const char *ind = "\t";

	p2ps_strbuf_printf(b, "%s%zu %s ", p2ps_endpoint_prefix(a, gi), gi, d->bdf_str);
	ids_line(b, d);
	p2ps_strbuf_puts(b, "\n");
	gpu_chip_line(b, g, d, ind);
	p2ps_strbuf_printf(b, "%sDriver: %s", ind,
	                   d->driver[0]
	                           ? d->driver
	                           : (p2ps_dev_unknown(d, P2PS_FACT_DRIVER) ? "unknown" : "none"));
	numa_and_group(b, d);
	p2ps_strbuf_printf(b, "  IOMMU mode: %s", p2ps_iommu_mode_name(g->iommu));
	if (d->boot_vga >= 0)
		p2ps_strbuf_printf(b, "  boot_vga: %d", d->boot_vga);
	p2ps_strbuf_puts(b, "\n");
	bars(b, d, g->bar1_index, ind);
	gpu_memory_line(b, g, d, ind);
	rebar(b, d, ind);
	link(b, d, ind);
	if (g->port_cap_gbps > 0 && d->parent)
		p2ps_strbuf_printf(b, "%sUpstream port %s capability: %g GT/s x%u (%.1f GB/s)\n",
		                   ind, d->parent->bdf_str,
		                   p2ps_link_speed_gts(d->parent->pcie.cap.speed),
		                   d->parent->pcie.cap.width, g->port_cap_gbps);
	gpu_nvlink_line(b, d, ind);
	p2ps_text_rm_gpu(b, d, ind);
	gpu_path(b, h, g, d, ind);
	if (g->reasons.n) {
		p2ps_strbuf_printf(b, "%sFindings:\n", ind);
		p2ps_text_reasons(b, &g->reasons, "\t  ", true);
	}
	p2ps_strbuf_puts(b, "\n");
}

/* One forwarding window in lspci's words ("Memory behind bridge: base-limit [size=..]"). */
static void window_line(struct p2ps_strbuf *b, const char *what, const struct p2ps_window *w)
{
	char sz[32];
	if (!w->present)
		return;
	p2ps_strbuf_printf(b, "\t%s behind bridge: %llx-%llx [size=%s]\n", what,
	                   (unsigned long long)w->base, (unsigned long long)w->limit,
	                   p2ps_size_short(w->limit - w->base + 1, sz, sizeof(sz)));
}

void p2ps_text_other_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a, int idx)
{
	const struct p2ps_dev *d = &a->host->devs[idx];
	p2ps_strbuf_printf(b, "%s ", d->bdf_str);
	ids_line(b, d);
	p2ps_strbuf_printf(b, " class %06x\n", d->class_code);
	p2ps_strbuf_printf(b, "\tParent: %s  Driver: %s",
	                   d->parent ? d->parent->bdf_str : d->root_bus,
	                   d->driver[0] ? d->driver : "none");
	numa_and_group(b, d);
	p2ps_strbuf_puts(b, "\n");
	bars(b, d, -1, "\t");
	if (d->bridge.is_bridge) {
		p2ps_strbuf_printf(b, "\tBus: primary=%02x, secondary=%02x, subordinate=%02x\n",
		                   d->bridge.primary, d->bridge.secondary, d->bridge.subordinate);
		window_line(b, "Memory", &d->bridge.mem);
		window_line(b, "Prefetchable memory", &d->bridge.pref);
	}
	if (d->pcie.present || d->pcie.cap.speed)
		link(b, d, "\t");
	acs(b, d, "\t");
	if (d->rebar.present)
		rebar(b, d, "\t");
	p2ps_strbuf_puts(b, "\n");
}
