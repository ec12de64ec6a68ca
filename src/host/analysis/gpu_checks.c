/* SPDX-License-Identifier: MIT */
/* Per-GPU checks: which BAR is BAR1 and whether it covers VRAM, whether every BAR fits
 * the bridge window above it, the PCIe link, the chip, driver and boot display, and the
 * IOMMU mode the GPU's DMA goes through. A non-NVIDIA peer gets the BAR, window and link
 * checks on its largest prefetchable BAR. */
#include "analysis_internal.h"
#include "driver_internal.h"

#include <stdio.h>
#include <string.h>

#include "p2pscope/driver_model.h"
#include "p2pscope/nvidia_chips.h"

#define GIB (1024ull * 1024 * 1024)

/* Every NVIDIA GPU of Turing or later (the generations the open kernel modules run
 * on) carries at least 2 GiB of memory, so a smaller BAR1 cannot cover VRAM even when
 * NVML is not there to say how much VRAM there is. */
#define MIN_VRAM_TURING_PLUS (2 * GIB)

const char *p2ps_an_label(const struct p2ps_analysis *a, int gi, char *buf, size_t size)
{
	snprintf(buf, size, "%s%d %s", p2ps_endpoint_prefix(a, (size_t)gi), gi,
	         a->host->devs[a->gpus[gi].dev_idx].bdf_str);
	return buf;
}

int p2ps_gpu_bar1_index(const struct p2ps_dev *dev)
{
	int seen = 0;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &dev->bars[i];
		if (!b->present || b->io)
			continue;
		if (++seen == 2)
			return i;
		if (b->is_64bit)
			i++; /* the upper half is not a BAR of its own */
	}
	return -1;
}

/* Largest size a ReBAR bitmap offers, in bytes (bit n => 2^n MiB). */
static uint64_t rebar_bitmap_max(uint64_t sizes)
{
	for (int n = 43; n >= 0; n--)
		if (sizes & (1ull << n))
			return p2ps_rebar_size_bytes((uint8_t)n);
	return 0;
}

/* Smallest supported ReBAR size index whose size is >= bytes; -1 if none. */
static int rebar_bitmap_fit(uint64_t sizes, uint64_t bytes)
{
	for (int n = 0; n <= 43; n++)
		if ((sizes & (1ull << n)) && p2ps_rebar_size_bytes((uint8_t)n) >= bytes)
			return n;
	return -1;
}

/* A non-NVIDIA peer exposes its largest prefetchable memory BAR (what a P2P user maps:
 * an NVMe CMB/PMR, a NIC's or accelerator's memory window). */
static int peer_bar_index(const struct p2ps_dev *d)
{
	int best = -1;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &d->bars[i];
		if (!b->present || b->io || !b->prefetchable)
			continue;
		if (best < 0 || (b->size_known && b->size > d->bars[best].size))
			best = i;
	}
	return best;
}

/* The firmware switches every BAR1-size fix starts with. */
#define FIRMWARE_REBAR "enable 'Above 4G Decoding' and 'Resizable BAR' in the firmware setup"

/* The fix when the GPU's Resizable BAR does not help: the firmware, and a VBIOS that has it. */
static void fix_firmware_and_vbios(struct p2ps_reason *x)
{
	p2ps_an_fix(x, "%s (and a VBIOS with Resizable BAR support)", FIRMWARE_REBAR);
}

const struct p2ps_nv_driver *p2ps_an_driver_row(const struct p2ps_an_ctx *c, char *as, size_t n)
{
	const struct p2ps_drv_config *cfg = c->drv;
	if (!cfg || (!cfg->known && cfg->flavor_guessed))
		return NULL;
	const struct p2ps_nv_driver *r = p2ps_drv_row(cfg);
	bool own = cfg->known && r->series == (unsigned)cfg->series && r->flavor == cfg->flavor;
	snprintf(as, n, "%u %s%s", r->series, p2ps_nv_flavor_name(r->flavor),
	         own ? "" : ", assumed");
	if (r->assumed && own)
		snprintf(as + strlen(as), n - strlen(as), "; %s", r->assumed);
	return r;
}

/* BAR1 smaller than VRAM under a fork that maps peer BAR1 windows per allocation (Method 3):
 * not a blocker, but every peer mapping costs a BAR1 window and whole-device peer access
 * (cudaDeviceEnablePeerAccess of all of VRAM) ends at BAR1. */
static bool bar1_on_demand(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, const char *lbl)
{
	char as[224], s1[32], s2[32];
	const struct p2ps_nv_driver *r = p2ps_an_driver_row(c, as, sizeof(as));
	if (!r || !(r->props & P2PS_NV_FP_BAR1_ON_DEMAND))
		return false;
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	p2ps_an_add(c, &g->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, P2PS_SEV_INFO, g->dev_idx,
	            "%s: BAR1 is %s, smaller than its %s of VRAM; %s (%s) maps a BAR1 window "
	            "per peer allocation instead of all of VRAM: each mapping costs a window "
	            "map and BAR1 space, and whole-device peer access reaches only the first %s",
	            lbl, p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
	            p2ps_size_format(d->gpu.vram_bytes, s2, sizeof(s2)),
	            p2ps_nv_flavor_name(r->flavor), as,
	            p2ps_size_format(g->bar1_size, s1, sizeof(s1)));
	return true;
}

/* BAR1 smaller than the known VRAM: a blocker, with the Resizable BAR size that would
 * fit. resize_sizes is the BAR's ReBAR bitmap (bit n => 2^n MiB), 0 when it has none. */
static void bar1_below_vram(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, const char *lbl,
                            uint64_t resize_sizes)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	char s1[32], s2[32];
	if (bar1_on_demand(c, g, lbl))
		return;
	struct p2ps_reason *x =
	        p2ps_an_add(c, &g->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, P2PS_SEV_BLOCKER,
	                    g->dev_idx, "%s: BAR1 is %s, smaller than its %s of VRAM", lbl,
	                    p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
	                    p2ps_size_format(d->gpu.vram_bytes, s2, sizeof(s2)));
	int fit = rebar_bitmap_fit(resize_sizes, d->gpu.vram_bytes);
	if (fit >= 0)
		p2ps_an_fix(x,
		            FIRMWARE_REBAR
		            "; the GPU offers %s (with no driver bound, Linux >= 6.1: "
		            "echo %d > "
		            "/sys/bus/pci/devices/%s/resource%d_resize)",
		            p2ps_size_format(p2ps_rebar_size_bytes((uint8_t)fit), s1, sizeof(s1)),
		            fit, d->bdf_str, g->bar1_index);
	else if (resize_sizes)
		p2ps_an_fix(x,
		            "the GPU's Resizable BAR offers at most %s: BAR1 cannot cover VRAM "
		            "without a VBIOS that advertises larger sizes",
		            p2ps_size_format(g->rebar_max, s1, sizeof(s1)));
	else
		fix_firmware_and_vbios(x);
}

/* VRAM unknown: what the generation's minimum VRAM and the largest ReBAR size still
 * tell about BAR1. */
static void bar1_vram_unknown(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, const char *lbl)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	char s1[32], s2[32];
	enum p2ps_nv_generation gen = d->chip ? d->chip->generation : P2PS_NV_GEN_UNKNOWN;
	const char *why = p2ps_dev_unknown(d, P2PS_FACT_VRAM);
	if (!why)
		why = "no NVML or nvidia-smi report";
	if (gen >= P2PS_NV_GEN_TURING && g->bar1_size < MIN_VRAM_TURING_PLUS) {
		struct p2ps_reason *x = p2ps_an_add(
		        c, &g->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, P2PS_SEV_BLOCKER, g->dev_idx,
		        "%s: BAR1 is %s; every %s-or-later GPU has at least 2 GiB of VRAM "
		        "(exact VRAM unknown: %s)",
		        lbl, p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
		        p2ps_nv_generation_name(P2PS_NV_GEN_TURING), why);
		if (g->rebar_max > g->bar1_size)
			p2ps_an_fix(x, FIRMWARE_REBAR "; the GPU offers up to %s",
			            p2ps_size_format(g->rebar_max, s2, sizeof(s2)));
		else
			fix_firmware_and_vbios(x);
	} else if (g->rebar_max > g->bar1_size) {
		struct p2ps_reason *x = p2ps_an_add(
		        c, &g->reasons, P2PS_R_BAR1_NOT_MAXIMAL, P2PS_SEV_UNKNOWN, g->dev_idx,
		        "%s: VRAM unknown (%s); BAR1 is %s while the GPU offers up to %s: "
		        "Resizable BAR is probably not in effect",
		        lbl, why, p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
		        p2ps_size_format(g->rebar_max, s2, sizeof(s2)));
		p2ps_an_fix(x, "%s", FIRMWARE_REBAR);
	} else {
		p2ps_an_add(c, &g->reasons, P2PS_R_VRAM_UNKNOWN, P2PS_SEV_UNKNOWN, g->dev_idx,
		            "%s: VRAM unknown, so BAR1 (%s) cannot be compared with it: %s", lbl,
		            p2ps_size_format(g->bar1_size, s1, sizeof(s1)), why);
	}
}

/* BAR1 covers VRAM: the driver's static BAR1 rule (p2ps_drv_static_bar1) asks for more
 * (2 MiB alignment, doorbell and MMIO, from 580 console + mailbox padded to 512 MiB).
 * The host's driver is judged by its own rule; where that rule enables no static BAR1 at
 * all (stock before 580 without registry keys), by the P2P-patched modules' rule of the
 * same series, which is what "ready" means here. Unknown driver: the driver table's
 * reference row (p2ps_nv_driver_reference(): tinygrad's 565 rule). */
static void static_bar1_rule(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, const char *lbl)
{
	struct p2ps_drv_config cfg = *c->drv;
	struct p2ps_drv_static_bar1 sb;
	size_t gi = (size_t)(g - c->a->gpus);
	if (!cfg.known) {
		cfg.row = p2ps_nv_driver_reference();
		cfg.row_exact = cfg.known = true;
		cfg.series = cfg.model_series = (int)cfg.row->series;
		cfg.flavor = cfg.row->flavor;
	}
	cfg.row = p2ps_drv_row(&cfg);
	p2ps_drv_static_bar1(c->a, gi, &cfg, &sb);
	if (sb.st == P2PS_NV_ST_NOT_SUPPORTED && !sb.required &&
	    cfg.flavor == P2PS_NV_FLAVOR_STOCK) {
		bool own_series = cfg.row_exact;
		cfg.flavor = p2ps_nv_patch_flavor(cfg.row->series);
		cfg.row = p2ps_nv_driver_find(cfg.row->series, cfg.flavor, &cfg.row_exact);
		cfg.row_exact = cfg.row_exact && own_series;
		p2ps_drv_static_bar1(c->a, gi, &cfg, &sb);
	}
	if (sb.st == P2PS_NV_ST_OK && sb.partial) {
		char s1[32], s2[32], s3[32];
		struct p2ps_reason *x = p2ps_an_add(
		        c, &g->reasons, P2PS_R_STATIC_BAR1, P2PS_SEV_WARNING, g->dev_idx,
		        "%s: under %s %u%s static BAR1 is a partial window: FB offsets 0..%s of %s "
		        "(mapped from BAR1 offset %s, after the console and mailbox); CUDA refuses "
		        "peer memory that lies beyond or across its end",
		        lbl, p2ps_nv_flavor_name(cfg.row->flavor), cfg.row->series,
		        cfg.row_exact ? "" : " (assumed)",
		        p2ps_size_format(sb.map_size, s1, sizeof(s1)),
		        p2ps_size_format(c->host->devs[g->dev_idx].gpu.vram_bytes, s2, sizeof(s2)),
		        p2ps_size_format(sb.start, s3, sizeof(s3)));
		p2ps_an_fix(x, "drive the display from another GPU or the iGPU for a window over "
		               "all of VRAM");
		return;
	}
	if (sb.st != P2PS_NV_ST_NOT_SUPPORTED || !sb.required || sb.bar1 >= sb.required)
		return;
	char s1[32], as[48] = "";
	if (!cfg.row_exact)
		snprintf(as, sizeof(as), " (as %u %s, assumed)", cfg.row->series,
		         p2ps_nv_flavor_name(cfg.row->flavor));
	struct p2ps_reason *x =
	        p2ps_an_add(c, &g->reasons, P2PS_R_STATIC_BAR1, P2PS_SEV_BLOCKER, g->dev_idx,
	                    "%s: BAR1 covers VRAM but not static BAR1 under %s %d%s: %s", lbl,
	                    p2ps_nv_flavor_name(cfg.flavor), cfg.series, as, sb.why);
	if (sb.fix[0])
		p2ps_an_fix(x, "%s", sb.fix);
	else
		p2ps_an_fix(x, "a BAR1 of at least %s",
		            p2ps_size_format(sb.required, s1, sizeof(s1)));
}

/* A GPU's BAR1 (size known) against its VRAM. */
static void bar1_vs_vram(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, const char *lbl,
                         uint64_t resize_sizes)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	if (!d->gpu.vram_known) {
		bar1_vram_unknown(c, g, lbl);
		return;
	}
	g->bar1_covers_vram = g->bar1_size >= d->gpu.vram_bytes;
	if (!g->bar1_covers_vram)
		bar1_below_vram(c, g, lbl, resize_sizes);
	else
		static_bar1_rule(c, g, lbl);
}

/* A source without BAR registers (a paste of the Resizable BAR lines, or of nvidia-smi
 * alone): the Resizable BAR capability still lists the GPU's BARs in register order (its
 * second entry is BAR1), and the driver may have said how large BAR1 is. Returns true
 * when that settled BAR1 against VRAM. */
static bool bar1_without_registers(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g,
                                   const char *lbl)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	if (!g->is_gpu)
		return false;
	if (d->rebar.present && d->rebar.count >= 2) {
		g->bar1_index = d->rebar.e[1].bar;
		return false;
	}
	if (!d->gpu.bar1_known)
		return false;
	g->bar1_size_known = true;
	g->bar1_size = d->gpu.bar1_total_bytes;
	g->bar1_size_source = "driver";
	bar1_vs_vram(c, g, lbl, 0);
	return true;
}

static void gpu_bar1(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	char lbl[48];
	p2ps_an_label(c->a, gi, lbl, sizeof(lbl));
	g->bar1_index = g->is_gpu ? p2ps_gpu_bar1_index(d) : peer_bar_index(d);
	g->rebar_entry = -1;
	g->bar1_size_source = "";
	if (g->bar1_index < 0 && bar1_without_registers(c, g, lbl))
		return;
	if (g->bar1_index < 0) {
		p2ps_an_add(c, &g->reasons, P2PS_R_BAR1_UNKNOWN, P2PS_SEV_UNKNOWN, g->dev_idx,
		            "%s: no %s found%s%s", lbl,
		            g->is_gpu ? "second memory BAR (BAR1)" : "prefetchable memory BAR",
		            p2ps_dev_unknown(d, P2PS_FACT_CONFIG) ? ": " : "",
		            p2ps_dev_unknown(d, P2PS_FACT_CONFIG)
		                    ? p2ps_dev_unknown(d, P2PS_FACT_CONFIG)
		                    : "");
		return;
	}
	const struct p2ps_bar *bar = &d->bars[g->bar1_index];
	uint64_t resize_sizes = 0;
	for (int k = 0; k < d->rebar.count && k < P2PS_HOST_MAX_REBAR; k++)
		if (d->rebar.present && d->rebar.e[k].bar == g->bar1_index) {
			g->rebar_entry = k;
			resize_sizes = d->rebar.e[k].sizes;
		}
	if (!resize_sizes && d->rebar.sysfs_resize_known[g->bar1_index])
		resize_sizes = d->rebar.sysfs_resize[g->bar1_index];
	g->rebar_max = rebar_bitmap_max(resize_sizes);

	if (bar->size_known) {
		g->bar1_size_known = true;
		g->bar1_size = bar->size;
		g->bar1_size_source = c->host->kind == P2PS_HOST_LSPCI_DUMP ? "ReBAR control"
		                      : c->host->kind == P2PS_HOST_PASTE    ? "lspci"
		                                                            : "resource";
	} else if (g->rebar_entry >= 0) {
		g->bar1_size_known = true;
		g->bar1_size = p2ps_rebar_size_bytes(d->rebar.e[g->rebar_entry].current);
		g->bar1_size_source = "ReBAR control";
	} else if (d->gpu.bar1_known) {
		g->bar1_size_known = true;
		g->bar1_size = d->gpu.bar1_total_bytes;
		g->bar1_size_source = "driver";
	}

	if (bar->unassigned) {
		struct p2ps_reason *x = p2ps_an_add(
		        c, &g->reasons, P2PS_R_BAR_UNASSIGNED, P2PS_SEV_BLOCKER, g->dev_idx,
		        "%s: BAR1 (register %d) is unassigned: firmware or kernel found no "
		        "address space for it",
		        lbl, g->bar1_index);
		p2ps_an_fix(x, "enable 'Above 4G Decoding' in the firmware setup; if it is on, the "
		               "bridge window above the GPU is too small (try pci=realloc)");
	}

	if (!g->bar1_size_known) {
		const char *why = p2ps_dev_unknown(d, P2PS_FACT_BAR_SIZES);
		if (!g->is_gpu)
			return; /* a peer's window size does not decide anything */
		p2ps_an_add(c, &g->reasons, P2PS_R_BAR1_UNKNOWN, P2PS_SEV_UNKNOWN, g->dev_idx,
		            "%s: BAR1 size unknown: %s", lbl,
		            why ? why
		                : "no sysfs resource file, ReBAR capability or driver report");
		return;
	}

	if (g->is_gpu) /* the VRAM question is the GPU's */
		bar1_vs_vram(c, g, lbl, resize_sizes);
}

static bool window_holds(const struct p2ps_window *w, const struct p2ps_bar *b)
{
	return w->present && b->address >= w->base && b->size &&
	       b->address + (b->size - 1) <= w->limit && b->address + (b->size - 1) >= b->address;
}

/* Every assigned memory BAR of the GPU must lie inside a window of the bridge above
 * it, or the bridge does not forward the BAR's addresses. A bridge whose windows were not
 * read (a paste's tree) says nothing either way. */
static void gpu_windows(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	const struct p2ps_dev *p = d->parent;
	char s1[32], s2[32], lbl[48];
	p2ps_an_label(c->a, gi, lbl, sizeof(lbl));
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &d->bars[i];
		if (!b->present || b->io)
			continue;
		if (b->unassigned && i != g->bar1_index)
			p2ps_an_add(c, &g->reasons, P2PS_R_BAR_UNASSIGNED, P2PS_SEV_WARNING,
			            g->dev_idx, "%s: BAR register %d is unassigned", lbl, i);
		if (!p || !p->bridge.is_bridge || p->bridge.windows_unknown || !b->size_known ||
		    b->unassigned)
			continue;
		/* A prefetchable BAR may also sit in the non-prefetchable window (Linux puts
		 * 32-bit prefetchable BARs there); it only has to fit one of the two. */
		const struct p2ps_window *pw = &p->bridge.pref, *mw = &p->bridge.mem;
		if (window_holds(mw, b) || (b->prefetchable && window_holds(pw, b)))
			continue;
		const struct p2ps_window *w = b->prefetchable && pw->present ? pw : mw;
		uint64_t wsize = w->present ? w->limit - w->base + 1 : 0;
		struct p2ps_reason *x = p2ps_an_add(
		        c, &g->reasons, P2PS_R_BAR_EXCEEDS_WINDOW,
		        i == g->bar1_index ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING, g->dev_idx,
		        "%s: BAR register %d (%s at %llx) does not fit the %s window of bridge "
		        "%s (%s)",
		        lbl, i, p2ps_size_format(b->size, s1, sizeof(s1)),
		        (unsigned long long)b->address, w == pw ? "prefetchable" : "memory",
		        p->bdf_str,
		        w->present ? p2ps_size_format(wsize, s2, sizeof(s2)) : "closed");
		p2ps_an_fix(x, "enable 'Above 4G Decoding' in the firmware setup, or boot with "
		               "pci=realloc so the kernel can grow the bridge windows");
	}
}

/* A link that is down (LnkSta Width x0) on the GPU or on a bridge of its path: peer
 * traffic cannot cross it. Returns true when the GPU's own link is down. */
static bool links_down(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, const char *lbl)
{
	const struct p2ps_host *h = c->host;
	const struct p2ps_dev *d = &h->devs[g->dev_idx];
	for (int k = -1; k < g->path_len; k++) {
		const struct p2ps_dev *x = k < 0 ? d : &h->devs[g->path[k]];
		if (!p2ps_link_is_down(&x->pcie))
			continue;
		struct p2ps_reason *r =
		        p2ps_an_add(c, &g->reasons, P2PS_R_LINK_DOWN, P2PS_SEV_BLOCKER, g->dev_idx,
		                    k < 0 ? "%s: its PCIe link is down (LnkSta Width x0)%s"
		                          : "%s: the link of bridge %s on its path is down (LnkSta "
		                            "Width x0)",
		                    lbl, k < 0 ? "" : x->bdf_str);
		p2ps_an_fix(r,
		            "reseat the card or the riser and check the slot (lspci reads Width x0 "
		            "on an empty slot or a dead port)");
	}
	return p2ps_link_is_down(&d->pcie);
}

static void gpu_link(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	const struct p2ps_pcie *e = &d->pcie;
	char lbl[48];
	p2ps_an_label(c->a, gi, lbl, sizeof(lbl));
	g->link_cap_gbps = p2ps_link_gbps(&e->cap);
	g->link_sta_gbps = p2ps_link_gbps(&e->sta);
	if (d->parent && d->parent->pcie.cap.speed && d->parent->pcie.cap.width)
		g->port_cap_gbps = p2ps_link_gbps(&d->parent->pcie.cap);
	if (links_down(c, g, lbl))
		return;
	if (!e->cap.speed || !e->cap.width || !e->sta.speed || !e->sta.width) {
		const char *why = p2ps_dev_unknown(d, P2PS_FACT_LINK_STATUS);
		if (!why)
			why = p2ps_dev_unknown(d, P2PS_FACT_LINK_CAP);
		p2ps_an_add(c, &g->reasons, P2PS_R_LINK_UNKNOWN, P2PS_SEV_INFO, g->dev_idx,
		            "%s: PCIe link %s unknown: %s", lbl,
		            (!e->cap.speed || !e->cap.width) ? "capability" : "status",
		            why ? why : "no PCIe capability or sysfs link attributes");
		return;
	}
	if (e->sta.width < e->cap.width) {
		struct p2ps_reason *x = p2ps_an_add(
		        c, &g->reasons, P2PS_R_LINK_WIDTH_DOWN, P2PS_SEV_WARNING, g->dev_idx,
		        "%s: link trained to x%u of x%u lanes (%.1f of %.1f GB/s "
		        "per direction)",
		        lbl, e->sta.width, e->cap.width, g->link_sta_gbps, g->link_cap_gbps);
		p2ps_an_fix(x,
		            "reseat the card or move it to a slot wired x%u (risers and bifurcated "
		            "slots often cut lanes)",
		            e->cap.width);
	}
	if (e->sta.speed < e->cap.speed)
		p2ps_an_add(c, &g->reasons, P2PS_R_LINK_SPEED_DOWN, P2PS_SEV_WARNING, g->dev_idx,
		            "%s: link runs at %.1f GT/s of %.1f GT/s%s", lbl,
		            p2ps_link_speed_gts(e->sta.speed), p2ps_link_speed_gts(e->cap.speed),
		            g->is_gpu ? "; NVIDIA GPUs drop the link speed when idle, so check "
		                        "again under "
		                        "load"
		                      : "");
	const struct p2ps_dev *p = d->parent;
	if (p && p->pcie.cap.speed && p->pcie.cap.width &&
	    (p->pcie.cap.speed < e->cap.speed || p->pcie.cap.width < e->cap.width))
		p2ps_an_add(c, &g->reasons, P2PS_R_LINK_SLOT_LIMIT, P2PS_SEV_INFO, g->dev_idx,
		            "%s: upstream port %s supports %.1f GT/s x%u, less than the GPU's %.1f "
		            "GT/s "
		            "x%u",
		            lbl, p->bdf_str, p2ps_link_speed_gts(p->pcie.cap.speed),
		            p->pcie.cap.width, p2ps_link_speed_gts(e->cap.speed), e->cap.width);
}

static void gpu_misc(struct p2ps_an_ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	char lbl[48];
	p2ps_an_label(c->a, gi, lbl, sizeof(lbl));
	if (!g->is_gpu)
		return; /* chip, driver and display checks are about NVIDIA GPUs */
	if (!d->chip) {
		p2ps_an_add(c, &g->reasons, P2PS_R_CHIP_UNKNOWN, P2PS_SEV_INFO, g->dev_idx,
		            "%s: unknown device id 10de:%04x (no chip-table block holds it; chips "
		            "without public device ids are known by name only); generation unknown",
		            lbl, d->device_id);
	} else {
		if (d->chip->generation != P2PS_NV_GEN_UNKNOWN &&
		    d->chip->generation < P2PS_NV_GEN_TURING)
			p2ps_an_add(c, &g->reasons, P2PS_R_GENERATION_UNSUPPORTED, P2PS_SEV_BLOCKER,
			            g->dev_idx,
			            "%s: %s (%s) predates Turing; NVIDIA's open kernel modules, "
			            "which the "
			            "BAR1 P2P patch modifies, do not support it",
			            lbl, p2ps_nvidia_chip_name(d->chip),
			            p2ps_nv_generation_name(d->chip->generation));
	}

	const char *why = p2ps_dev_unknown(d, P2PS_FACT_DRIVER);
	if (!d->driver[0] && why) {
		p2ps_an_add(c, &g->reasons, P2PS_R_DRIVER_UNKNOWN, P2PS_SEV_INFO, g->dev_idx,
		            "%s: bound driver unknown: %s", lbl, why);
	} else if (!d->driver[0]) {
		struct p2ps_reason *x = p2ps_an_add(c, &g->reasons, P2PS_R_DRIVER, P2PS_SEV_WARNING,
		                                    g->dev_idx, "%s: no driver is bound", lbl);
		p2ps_an_fix(x, "load the (patched) nvidia module: modprobe nvidia");
	} else if (!strcmp(d->driver, "vfio-pci")) {
		p2ps_an_add(c, &g->reasons, P2PS_R_DRIVER, P2PS_SEV_INFO, g->dev_idx,
		            "%s: bound to vfio-pci (passed through to a VM or user-space driver)",
		            lbl);
	} else if (strcmp(d->driver, "nvidia")) {
		struct p2ps_reason *x =
		        p2ps_an_add(c, &g->reasons, P2PS_R_DRIVER, P2PS_SEV_WARNING, g->dev_idx,
		                    "%s: bound to %s, not nvidia: the P2P patch lives in "
		                    "NVIDIA's open kernel module",
		                    lbl, d->driver);
		p2ps_an_fix(x, "unbind %s (blacklist it) and load the patched nvidia module",
		            d->driver);
	}
	if (d->boot_vga == 1)
		p2ps_an_add(c, &g->reasons, P2PS_R_BOOT_VGA, P2PS_SEV_WARNING, g->dev_idx,
		            "%s: drives the boot display (boot_vga=1); firmware may size its BAR1 "
		            "for the "
		            "console, and resizing needs the display released",
		            lbl);
}

enum p2ps_iommu_mode p2ps_an_iommu_mode(const struct p2ps_host *h, const struct p2ps_dev *d)
{
	if (!h->iommu.known)
		return P2PS_IOMMU_UNKNOWN;
	if (!h->iommu.present)
		return P2PS_IOMMU_OFF;
	const char *t = d->iommu_domain_type;
	if (!strcmp(t, "identity"))
		return P2PS_IOMMU_IDENTITY;
	if (!strcmp(t, "DMA") || !strcmp(t, "DMA-FQ"))
		return P2PS_IOMMU_TRANSLATING;
	if (!strcmp(t, "blocked"))
		return P2PS_IOMMU_BLOCKED;
	if (!strcmp(t, "unmanaged"))
		return P2PS_IOMMU_UNMANAGED;
	/* An IOMMU is registered but this device belongs to no group: it is not behind it. */
	if (d->iommu_group < 0 && !p2ps_dev_unknown(d, P2PS_FACT_IOMMU_GROUP))
		return P2PS_IOMMU_OFF;
	return P2PS_IOMMU_UNKNOWN;
}

void p2ps_an_gpu(struct p2ps_an_ctx *c, size_t gi)
{
	struct p2ps_gpu_report *g = &c->a->gpus[gi];
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	g->path_len =
	        p2ps_an_ancestors(c->host, g->dev_idx, g->path, P2PS_PATH_MAX, &g->path_looped);
	g->iommu = p2ps_an_iommu_mode(c->host, d);
	gpu_misc(c, g, (int)gi);
	gpu_bar1(c, g, (int)gi);
	gpu_windows(c, g, (int)gi);
	gpu_link(c, g, (int)gi);
	p2ps_an_reasons_sort(&g->reasons);
}
