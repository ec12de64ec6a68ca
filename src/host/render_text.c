/* bar-inspect's text report: per-GPU blocks in lspci's vocabulary (Region N: Memory at
 * ... [size=...]), the topology matrix with nvidia-smi topo -m's classes and legend, one
 * verdict per GPU pair with every reason and fix, then host-wide findings. */
#include "p2pscope/render.h"
#include "render_internal.h"
#include "paste_render.h"

#include <stdio.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"

/* lspci's compact size spelling: 16M, 256G, 512K, 1.5G is never needed because BAR
 * and window sizes are powers of two, except bridge windows which lspci rounds too. */
char *p2ps_size_short(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = {'\0', 'K', 'M', 'G', 'T', 'P'};
	int u = 0;
	while (bytes >= 1024 && !(bytes % 1024) && u < 5) {
		bytes /= 1024;
		u++;
	}
	if (units[u])
		snprintf(buf, size, "%llu%c", (unsigned long long)bytes, units[u]);
	else
		snprintf(buf, size, "%llu", (unsigned long long)bytes);
	return buf;
}

bool p2ps_dev_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o, int idx)
{
	const struct p2ps_dev *d = &a->host->devs[idx];
	if (o && o->filter && !p2ps_slot_match(o->filter, &d->bdf))
		return false;
	return (o && o->all) || p2ps_analysis_gpu_of_dev(a, idx) >= 0;
}

bool p2ps_pair_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     const struct p2ps_pair *p)
{
	if (!o || !o->filter)
		return true;
	const struct p2ps_host *h = a->host;
	return p2ps_slot_match(o->filter, &h->devs[a->gpus[p->a].dev_idx].bdf) ||
	       p2ps_slot_match(o->filter, &h->devs[a->gpus[p->b].dev_idx].bdf);
}

static void ids_line(struct p2ps_strbuf *b, const struct p2ps_dev *d)
{
	p2ps_strbuf_printf(b, "%s%s%s [%04x:%04x] (rev %02x)", d->vendor_name,
	                   d->vendor_name[0] ? " " : "",
	                   d->device_name[0] ? d->device_name : "Device", d->vendor_id,
	                   d->device_id, d->revision);
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

static void reasons(struct p2ps_strbuf *b, const struct p2ps_reasons *r, const char *ind,
                    bool with_info)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct p2ps_reason *x = &r->v[i];
		if (x->sev == P2PS_SEV_INFO && !with_info)
			continue;
		p2ps_strbuf_printf(b, "%s%-8s %s\n", ind, p2ps_severity_name(x->sev), x->text);
		if (x->fix[0])
			p2ps_strbuf_printf(b, "%s         fix: %s\n", ind, x->fix);
	}
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

static void gpu_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a, size_t gi)
{
	const struct p2ps_host *h = a->host;
	const struct p2ps_gpu_report *g = &a->gpus[gi];
	const struct p2ps_dev *d = &h->devs[g->dev_idx];
	char s1[32], s2[32];
	const char *ind = "\t";

	p2ps_strbuf_printf(b, "%s%zu %s ", p2ps_endpoint_prefix(a, gi), gi, d->bdf_str);
	ids_line(b, d);
	p2ps_strbuf_puts(b, "\n");
	if (!g->is_gpu)
		p2ps_strbuf_printf(b,
		                   "%sPeer (not an NVIDIA GPU), class %06x: its P2P window is its "
		                   "largest prefetchable BAR\n",
		                   ind, d->class_code);
	else if (d->chip && p2ps_nvidia_chip_gmmu(d->chip->chip))
		p2ps_strbuf_printf(b, "%sChip: %s (%s, GMMU %s)\n", ind, d->chip->chip,
		                   d->chip->generation, p2ps_nvidia_chip_gmmu(d->chip->chip)->name);
	else if (d->chip)
		p2ps_strbuf_printf(b, "%sChip: %s (%s, GMMU unknown: libgmmu has no chip %s)\n",
		                   ind, d->chip->chip, d->chip->generation, d->chip->chip);
	else
		p2ps_strbuf_printf(b, "%sChip: unknown (device id %04x not in the table)\n", ind,
		                   d->device_id);
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
	} else {
		p2ps_strbuf_printf(b, "%sBAR1: ", ind);
		if (g->bar1_size_known)
			p2ps_strbuf_printf(b, "%s (%s)",
			                   p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
			                   g->bar1_size_source);
		else
			p2ps_strbuf_puts(b, "size unknown");
		if (d->gpu.bar1_known)
			p2ps_strbuf_printf(
			        b, ", driver reports %s",
			        p2ps_size_format(d->gpu.bar1_total_bytes, s2, sizeof(s2)));
		p2ps_strbuf_puts(b, "; VRAM ");
		if (d->gpu.vram_known) {
			p2ps_strbuf_printf(
			        b, "%s (%s)", p2ps_size_format(d->gpu.vram_bytes, s2, sizeof(s2)),
			        d->gpu.source == P2PS_GPU_SRC_NVML ? "NVML" : "nvidia-smi");
			if (g->bar1_size_known)
				p2ps_strbuf_puts(b, g->bar1_covers_vram
				                            ? ": BAR1 covers VRAM"
				                            : ": BAR1 is SMALLER than VRAM");
		} else {
			const char *why = p2ps_dev_unknown(d, P2PS_FACT_VRAM);
			p2ps_strbuf_printf(b, "unknown%s%s%s", why ? " (" : "", why ? why : "",
			                   why ? ")" : "");
		}
		p2ps_strbuf_puts(b, "\n");
	}
	rebar(b, d, ind);
	link(b, d, ind);
	if (g->port_cap_gbps > 0 && d->parent)
		p2ps_strbuf_printf(b, "%sUpstream port %s capability: %g GT/s x%u (%.1f GB/s)\n",
		                   ind, d->parent->bdf_str,
		                   p2ps_link_speed_gts(d->parent->pcie.cap.speed),
		                   d->parent->pcie.cap.width, g->port_cap_gbps);
	if (d->gpu.nvlink_known) {
		p2ps_strbuf_printf(b, "%sNVLink:", ind);
		if (!d->gpu.n_nvlink_peers)
			p2ps_strbuf_puts(b, " no active links");
		for (int i = 0; i < d->gpu.n_nvlink_peers && i < P2PS_HOST_MAX_NVLINK; i++) {
			char bdf[20];
			p2ps_strbuf_printf(
			        b, " %s x%d",
			        p2ps_bdf_format(&d->gpu.nvlink_peers[i].bdf, bdf, sizeof(bdf)),
			        d->gpu.nvlink_peers[i].links);
		}
		p2ps_strbuf_puts(b, "\n");
	}

	/* The path, GPU first, then each bridge up to the host bridge. */
	p2ps_strbuf_printf(b, "%sPath to host bridge:", ind);
	if (!g->path_len)
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
	if (g->reasons.n) {
		p2ps_strbuf_printf(b, "%sFindings:\n", ind);
		reasons(b, &g->reasons, "\t  ", true);
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

static void other_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a, int idx)
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

static void matrix(struct p2ps_strbuf *b, const struct p2ps_analysis *a)
{
	const struct p2ps_host *h = a->host;
	size_t n = a->n_gpus;
	p2ps_strbuf_puts(b, "Topology (nvidia-smi topo -m classes, computed from the PCI tree and "
	                    "NUMA nodes):\n\t");
	for (size_t j = 0; j < n; j++)
		p2ps_strbuf_printf(b, "%s%zu\t", p2ps_endpoint_prefix(a, j), j);
	p2ps_strbuf_puts(b, "NUMA Affinity\tBDF\n");
	for (size_t i = 0; i < n; i++) {
		p2ps_strbuf_printf(b, "%s%zu\t", p2ps_endpoint_prefix(a, i), i);
		for (size_t j = 0; j < n; j++) {
			enum p2ps_topo t = a->matrix[i * n + j];
			if (t == P2PS_TOPO_NV)
				p2ps_strbuf_printf(b, "NV%d\t", a->nvlink_matrix[i * n + j]);
			else if (t == P2PS_TOPO_X)
				p2ps_strbuf_puts(b, " X \t");
			else
				p2ps_strbuf_printf(b, "%s\t", p2ps_topo_name(t));
		}
		const struct p2ps_dev *d = &h->devs[a->gpus[i].dev_idx];
		if (d->numa_node >= 0)
			p2ps_strbuf_printf(b, "%d\t\t%s\n", d->numa_node, d->bdf_str);
		else
			p2ps_strbuf_printf(b, "N/A\t\t%s\n", d->bdf_str);
	}
	p2ps_strbuf_puts(b, "\nLegend:\n\n");
	static const enum p2ps_topo order[] = {P2PS_TOPO_X,   P2PS_TOPO_SYS, P2PS_TOPO_NODE,
	                                       P2PS_TOPO_PHB, P2PS_TOPO_PXB, P2PS_TOPO_PIX,
	                                       P2PS_TOPO_NV};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		p2ps_strbuf_printf(b, "  %-4s = %s\n",
		                   order[i] == P2PS_TOPO_NV ? "NV#" : p2ps_topo_name(order[i]),
		                   p2ps_topo_legend(order[i]));
	p2ps_strbuf_puts(b,
	                 "  ?    = Unknown (a fact the class needs is missing; see the pair)\n\n");
}

static void pair_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a,
                       const struct p2ps_pair *p)
{
	const struct p2ps_host *h = a->host;
	char topo[16];
	if (p->topo == P2PS_TOPO_NV)
		snprintf(topo, sizeof(topo), "NV%d", p->nvlinks);
	else
		snprintf(topo, sizeof(topo), "%s", p2ps_topo_name(p->topo));
	p2ps_strbuf_printf(
	        b, "%s%d <-> %s%d (%s <-> %s)  %s", p2ps_endpoint_prefix(a, (size_t)p->a), p->a,
	        p2ps_endpoint_prefix(a, (size_t)p->b), p->b, h->devs[a->gpus[p->a].dev_idx].bdf_str,
	        h->devs[a->gpus[p->b].dev_idx].bdf_str, topo);
	if (p->topo == P2PS_TOPO_NV)
		p2ps_strbuf_printf(b, " (PCIe path %s)", p2ps_topo_name(p->pcie_topo));
	size_t nsev[4] = {0};
	for (size_t i = 0; i < p->reasons.n; i++)
		if (p->reasons.v[i].sev <= P2PS_SEV_INFO)
			nsev[p->reasons.v[i].sev]++;
	p2ps_strbuf_printf(b, "  BAR1 P2P: %s", p2ps_verdict_name(p->verdict));
	if (p->verdict == P2PS_VERDICT_NOT_READY)
		p2ps_strbuf_printf(b, " (%zu blocker%s)", nsev[P2PS_SEV_BLOCKER],
		                   nsev[P2PS_SEV_BLOCKER] == 1 ? "" : "s");
	else if (p->verdict == P2PS_VERDICT_READY && nsev[P2PS_SEV_WARNING])
		p2ps_strbuf_printf(b, " (%zu warning%s)", nsev[P2PS_SEV_WARNING],
		                   nsev[P2PS_SEV_WARNING] == 1 ? "" : "s");
	if (p->moot)
		p2ps_strbuf_puts(b, " (moot: NVLink)");
	if (p->pcie_gbps > 0)
		p2ps_strbuf_printf(b, "  PCIe %.1f GB/s per direction", p->pcie_gbps);
	p2ps_strbuf_puts(b, "\n");
	if (!p->reasons.n)
		p2ps_strbuf_puts(b, "\tno obstacles found\n");
	reasons(b, &p->reasons, "\t", true);
}

int p2ps_render_text(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     struct p2ps_strbuf *b, struct p2ps_error *err)
{
	const struct p2ps_host *h = a->host;
	p2ps_strbuf_printf(b, "bar-inspect%s%s: ", o && o->version ? " " : "",
	                   o && o->version ? o->version : "");
	switch (h->kind) {
	case P2PS_HOST_LIVE: p2ps_strbuf_puts(b, "this host (live sysfs)"); break;
	case P2PS_HOST_SNAPSHOT: p2ps_strbuf_printf(b, "snapshot %s", h->source_path); break;
	case P2PS_HOST_LSPCI_DUMP:
		p2ps_strbuf_printf(b,
		                   "lspci dump %s (no sysfs facts: sizes, driver, NUMA, IOMMU "
		                   "unknown)",
		                   h->source_path);
		break;
	case P2PS_HOST_VFIO: p2ps_strbuf_puts(b, "VFIO devices"); break;
	case P2PS_HOST_PASTE:
		p2ps_strbuf_printf(b, "paste %s (facts as pasted; the rest unknown)",
		                   h->source_path);
		break;
	}
	if (h->hostname[0])
		p2ps_strbuf_printf(b, " [%s]", h->hostname);
	size_t n_nv = 0;
	for (size_t i = 0; i < a->n_gpus; i++)
		n_nv += a->gpus[i].is_gpu;
	p2ps_strbuf_printf(b, "\n%zu PCI devices, %zu NVIDIA GPU%s", h->n_devs, n_nv,
	                   n_nv == 1 ? "" : "s");
	if (a->n_gpus > n_nv)
		p2ps_strbuf_printf(b, " + %zu other peer%s", a->n_gpus - n_nv,
		                   a->n_gpus - n_nv == 1 ? "" : "s");
	p2ps_strbuf_printf(b, "; IOMMU %s\n\n", a->iommu_summary);

	size_t shown = 0;
	for (size_t i = 0; i < h->n_devs; i++) {
		if (!p2ps_dev_shown(a, o, (int)i))
			continue;
		shown++;
		int gi = p2ps_analysis_gpu_of_dev(a, (int)i);
		if (gi >= 0)
			gpu_block(b, a, (size_t)gi);
		else
			other_block(b, a, (int)i);
	}
	if (!shown)
		p2ps_strbuf_printf(b, "No %s%s.\n\n", o && o->all ? "PCI devices" : "NVIDIA GPUs",
		                   o && o->filter ? " match the -s filter" : " found");

	if (a->n_gpus > 1) {
		matrix(b, a);
		p2ps_strbuf_puts(
		        b, "P2P readiness (static BAR1 P2P as the patched open kernel modules "
		           "do it; fixes are printed, never applied):\n");
		for (size_t k = 0; k < a->n_pairs; k++)
			if (p2ps_pair_shown(a, o, &a->pairs[k]))
				pair_block(b, a, &a->pairs[k]);
		p2ps_strbuf_puts(b, "\n");
	} else if (a->n_gpus == 1) {
		p2ps_strbuf_puts(b, "One endpoint: no pair to judge.\n\n");
	}

	p2ps_strbuf_puts(b, "Host:\n");
	if (h->nvidia.module_known || h->nvidia.proc_known)
		p2ps_strbuf_printf(b, "\tnvidia module %s; /proc/driver/nvidia/version: %s\n",
		                   h->nvidia.module_version[0] ? h->nvidia.module_version
		                                               : "not loaded",
		                   h->nvidia.proc_version[0] ? h->nvidia.proc_version : "absent");
	if (h->nvidia.nvml_loaded)
		p2ps_strbuf_printf(b, "\tNVML: loaded, driver %s\n", h->nvidia.nvml_driver_version);
	else if (h->nvidia.nvml_status[0])
		p2ps_strbuf_printf(b, "\tNVML: %s\n", h->nvidia.nvml_status);
	reasons(b, &a->host_reasons, "\t", true);
	int rc = p2ps_render_paste_section_text(a, b, err);
	if (rc < 0)
		return rc;
	if (b->oom)
		return p2ps_error_set(err, P2PS_ENOMEM, "text report: out of memory");
	return 0;
}
