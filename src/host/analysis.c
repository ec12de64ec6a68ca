/* bar-inspect's analysis: GPU reports, topology matrix, per-pair BAR1-P2P verdicts and
 * host-wide findings, computed from the host model alone (no I/O, no printing).
 *
 * The verdict is about static-BAR1 P2P as the patched open kernel modules do it: a
 * peer's PTE holds the peer's BAR1 *bus address*, so (1) BAR1 must map all of the
 * peer's VRAM, (2) the address must reach the peer untranslated (IOMMU off or
 * identity), (3) no bridge may bounce the request up to the root complex (ACS
 * redirect), and the path must be one the chipset forwards peer traffic on. */
#include "p2pscope/analysis.h"
#include "analysis_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"

#define GIB (1024ull * 1024 * 1024)

/* Every NVIDIA GPU of Turing or later (the generations the open kernel modules run
 * on) carries at least 2 GiB of memory, so a smaller BAR1 cannot cover VRAM even when
 * NVML is not there to say how much VRAM there is. */
#define MIN_VRAM_TURING_PLUS (2 * GIB)

/* Generations in release order; the chip table names them (a generation is data). */
static const char *const generation_order[] = {
        "Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell",
};
#define FIRST_OPEN_MODULES_GENERATION 4 /* Turing */

int p2ps_generation_rank(const char *generation)
{
	if (!generation)
		return -1;
	for (size_t i = 0; i < sizeof(generation_order) / sizeof(generation_order[0]); i++)
		if (!strcmp(generation, generation_order[i]))
			return (int)i;
	return -1;
}

/* ---- reasons ------------------------------------------------------------------- */

struct ctx {
	const struct p2ps_host *host;
	struct p2ps_analysis *a;
	bool oom;
};

struct p2ps_reason *p2ps_reasons_addv(struct p2ps_reasons *r, enum p2ps_reason_code code,
                                      enum p2ps_severity sev, int dev_idx, const char *fmt,
                                      va_list ap)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 8;
		struct p2ps_reason *nv = realloc(r->v, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		r->v = nv;
		r->cap = ncap;
	}
	struct p2ps_reason *x = &r->v[r->n++];
	memset(x, 0, sizeof(*x));
	x->code = code;
	x->sev = sev;
	x->dev_idx = dev_idx;
	vsnprintf(x->text, sizeof(x->text), fmt, ap);
	return x;
}

static struct p2ps_reason *add(struct ctx *c, struct p2ps_reasons *r, enum p2ps_reason_code code,
                               enum p2ps_severity sev, int dev_idx, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));

static struct p2ps_reason *add(struct ctx *c, struct p2ps_reasons *r, enum p2ps_reason_code code,
                               enum p2ps_severity sev, int dev_idx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct p2ps_reason *x = p2ps_reasons_addv(r, code, sev, dev_idx, fmt, ap);
	va_end(ap);
	if (!x)
		c->oom = true;
	return x;
}

static void set_fix(struct p2ps_reason *x, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static void set_fix(struct p2ps_reason *x, const char *fmt, ...)
{
	if (!x)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->fix, sizeof(x->fix), fmt, ap);
	va_end(ap);
}

/* Blockers first, then unknowns, warnings, infos; equal severities keep their order. */
static void reasons_sort(struct p2ps_reasons *r)
{
	for (size_t i = 1; i < r->n; i++) {
		struct p2ps_reason x = r->v[i];
		size_t j = i;
		for (; j > 0 && r->v[j - 1].sev > x.sev; j--)
			r->v[j] = r->v[j - 1];
		r->v[j] = x;
	}
}

static void reasons_free(struct p2ps_reasons *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* ---- names --------------------------------------------------------------------- */

const char *p2ps_topo_name(enum p2ps_topo t)
{
	switch (t) {
	case P2PS_TOPO_X: return "X";
	case P2PS_TOPO_NV: return "NV";
	case P2PS_TOPO_PIX: return "PIX";
	case P2PS_TOPO_PXB: return "PXB";
	case P2PS_TOPO_PHB: return "PHB";
	case P2PS_TOPO_NODE: return "NODE";
	case P2PS_TOPO_SYS: return "SYS";
	case P2PS_TOPO_UNKNOWN: break;
	}
	return "?";
}

const char *p2ps_topo_legend(enum p2ps_topo t)
{
	switch (t) {
	case P2PS_TOPO_X: return "Self";
	case P2PS_TOPO_SYS:
		return "Connection traversing PCIe as well as the SMP interconnect between NUMA "
		       "nodes (e.g., QPI/UPI)";
	case P2PS_TOPO_NODE:
		return "Connection traversing PCIe as well as the interconnect between PCIe Host "
		       "Bridges within a NUMA node";
	case P2PS_TOPO_PHB:
		return "Connection traversing PCIe as well as a PCIe Host Bridge (typically the "
		       "CPU)";
	case P2PS_TOPO_PXB:
		return "Connection traversing multiple PCIe bridges (without traversing the PCIe "
		       "Host Bridge)";
	case P2PS_TOPO_PIX: return "Connection traversing at most a single PCIe bridge";
	case P2PS_TOPO_NV: return "Connection traversing a bonded set of # NVLinks";
	case P2PS_TOPO_UNKNOWN: break;
	}
	return "Unknown: the PCI tree or NUMA facts needed are missing";
}

const char *p2ps_severity_name(enum p2ps_severity s)
{
	switch (s) {
	case P2PS_SEV_BLOCKER: return "blocker";
	case P2PS_SEV_UNKNOWN: return "unknown";
	case P2PS_SEV_WARNING: return "warning";
	case P2PS_SEV_INFO: return "info";
	}
	return "?";
}

const char *p2ps_reason_code_name(enum p2ps_reason_code code)
{
	static const char *const names[P2PS_R_CODE_COUNT] = {
	        [P2PS_R_BAR1_SMALLER_THAN_VRAM] = "bar1_smaller_than_vram",
	        [P2PS_R_BAR1_NOT_MAXIMAL] = "bar1_not_maximal",
	        [P2PS_R_BAR1_UNKNOWN] = "bar1_unknown",
	        [P2PS_R_VRAM_UNKNOWN] = "vram_unknown",
	        [P2PS_R_BAR_UNASSIGNED] = "bar_unassigned",
	        [P2PS_R_BAR_EXCEEDS_WINDOW] = "bar_exceeds_bridge_window",
	        [P2PS_R_IOMMU_TRANSLATING] = "iommu_translating",
	        [P2PS_R_IOMMU_BLOCKED] = "iommu_blocked",
	        [P2PS_R_IOMMU_UNMANAGED] = "iommu_unmanaged",
	        [P2PS_R_IOMMU_UNKNOWN] = "iommu_unknown",
	        [P2PS_R_ACS_REDIRECT] = "acs_redirect",
	        [P2PS_R_ACS_REDIRECT_ROOT] = "acs_redirect_root_port",
	        [P2PS_R_ACS_UNKNOWN] = "acs_unknown",
	        [P2PS_R_PATH_HOST_BRIDGE] = "path_host_bridge",
	        [P2PS_R_PATH_CPU_INTERCONNECT] = "path_cpu_interconnect",
	        [P2PS_R_TOPOLOGY_UNKNOWN] = "topology_unknown",
	        [P2PS_R_LINK_WIDTH_DOWN] = "link_width_below_capability",
	        [P2PS_R_LINK_SPEED_DOWN] = "link_speed_below_capability",
	        [P2PS_R_LINK_SLOT_LIMIT] = "link_slot_limit",
	        [P2PS_R_LINK_UNKNOWN] = "link_unknown",
	        [P2PS_R_MIXED_GENERATIONS] = "mixed_generations",
	        [P2PS_R_MIXED_CHIPS] = "mixed_chips",
	        [P2PS_R_MIXED_MODELS] = "mixed_models",
	        [P2PS_R_GENERATION_UNSUPPORTED] = "generation_unsupported",
	        [P2PS_R_CHIP_UNKNOWN] = "chip_unknown",
	        [P2PS_R_NVLINK] = "nvlink",
	        [P2PS_R_DRIVER] = "driver",
	        [P2PS_R_DRIVER_UNKNOWN] = "driver_unknown",
	        [P2PS_R_BOOT_VGA] = "boot_vga",
	        [P2PS_R_DRIVER_VERSION_MISMATCH] = "driver_version_mismatch",
	        [P2PS_R_VM] = "virtual_machine",
	        [P2PS_R_NCCL_ENV] = "nccl_env",
	        [P2PS_R_NEEDS_ROOT] = "needs_root",
	        [P2PS_R_IOMMU_STATE] = "iommu_state",
	        [P2PS_R_NCCL_LEVEL] = "nccl_p2p_level",
	};
	if ((int)code < 0 || code >= P2PS_R_CODE_COUNT || !names[code])
		return "?";
	return names[code];
}

const char *p2ps_iommu_mode_name(enum p2ps_iommu_mode m)
{
	switch (m) {
	case P2PS_IOMMU_OFF: return "off";
	case P2PS_IOMMU_IDENTITY: return "identity";
	case P2PS_IOMMU_TRANSLATING: return "translating";
	case P2PS_IOMMU_BLOCKED: return "blocked";
	case P2PS_IOMMU_UNMANAGED: return "unmanaged";
	case P2PS_IOMMU_UNKNOWN: break;
	}
	return "unknown";
}

const char *p2ps_verdict_name(enum p2ps_verdict v)
{
	switch (v) {
	case P2PS_VERDICT_READY: return "ready";
	case P2PS_VERDICT_NOT_READY: return "not ready";
	case P2PS_VERDICT_UNKNOWN: return "unknown";
	}
	return "?";
}

/* ---- small pure helpers -------------------------------------------------------- */

uint16_t p2ps_acs_redirect_bits(uint16_t ctl)
{
	return ctl & (P2PS_ACS_RR | P2PS_ACS_CR | P2PS_ACS_EC);
}

uint16_t p2ps_acs_ctl_without_redirect(uint16_t ctl)
{
	return ctl & (uint16_t) ~(P2PS_ACS_RR | P2PS_ACS_CR | P2PS_ACS_EC);
}

char *p2ps_acs_format(uint16_t reg, char *buf, size_t size)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} bits[] = {
	        {P2PS_ACS_SV, "SrcValid"},    {P2PS_ACS_TB, "TransBlk"},
	        {P2PS_ACS_RR, "ReqRedir"},    {P2PS_ACS_CR, "CmpltRedir"},
	        {P2PS_ACS_UF, "UpstreamFwd"}, {P2PS_ACS_EC, "EgressCtrl"},
	        {P2PS_ACS_DT, "DirectTrans"},
	};
	size_t off = 0;
	if (!size)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		int n = snprintf(buf + off, size - off, "%s%s%c", i ? " " : "", bits[i].name,
		                 (reg & bits[i].bit) ? '+' : '-');
		if (n < 0 || (size_t)n >= size - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

char *p2ps_size_format(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;
	uint64_t v = bytes;
	while (v >= 1024 && !(v % 1024) && u < 5) {
		v /= 1024;
		u++;
	}
	if (v < 1024 || u == 5) {
		snprintf(buf, size, "%llu %s", (unsigned long long)v, units[u]);
		return buf;
	}
	/* Not a whole number of the next unit: one decimal in the largest fitting unit. */
	double d = (double)bytes;
	u = 0;
	while (d >= 1024.0 && u < 5) {
		d /= 1024.0;
		u++;
	}
	snprintf(buf, size, "%.1f %s", d, units[u]);
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

/* ---- tree ---------------------------------------------------------------------- */

/* Ancestors of dev idx, nearest first. Returns the count; *looped when the chain is
 * longer than max (a parent cycle in a malformed dump). */
static int ancestors(const struct p2ps_host *h, int idx, int *out, int max, bool *looped)
{
	int n = 0;
	*looped = false;
	const struct p2ps_dev *d = &h->devs[idx];
	while (d->parent_idx >= 0 && (size_t)d->parent_idx < h->n_devs) {
		if (n == max) {
			*looped = true;
			break;
		}
		out[n++] = d->parent_idx;
		d = &h->devs[d->parent_idx];
	}
	return n;
}

/* Whether the chain above a device is complete: a topmost device must really sit on a
 * root bus, not below a bridge the model lacks (has_parent without a parent) or in a
 * place the backend could not determine (a reason in unknown[PARENT]). */
static bool top_known(const struct p2ps_dev *d)
{
	return !(d->parent_idx < 0 && (d->has_parent || p2ps_dev_unknown(d, P2PS_FACT_PARENT)));
}

enum p2ps_topo p2ps_topo_classify(const struct p2ps_host *h, int a, int b, int *lca, int turn[2])
{
	int pa[P2PS_PATH_MAX], pb[P2PS_PATH_MAX];
	bool la, lb;
	*lca = -1;
	turn[0] = turn[1] = -1;
	if (a == b)
		return P2PS_TOPO_X;
	const struct p2ps_dev *da = &h->devs[a], *db = &h->devs[b];
	int na = ancestors(h, a, pa, P2PS_PATH_MAX, &la);
	int nb = ancestors(h, b, pb, P2PS_PATH_MAX, &lb);
	if (la || lb || !top_known(na ? &h->devs[pa[na - 1]] : da) ||
	    !top_known(nb ? &h->devs[pb[nb - 1]] : db))
		return P2PS_TOPO_UNKNOWN;

	/* One device above the other (a peer that is a bridge, e.g. a switch port's own
	 * BAR): they meet at the upper one. */
	for (int k = 0; k < 2; k++) {
		const int *up = k ? pb : pa;
		int nu = k ? nb : na, other = k ? a : b;
		for (int i = 0; i < nu; i++)
			if (up[i] == other) {
				*lca = other;
				turn[k] = i > 0 ? up[i - 1] : -1;
				return i + 1 <= 3 ? P2PS_TOPO_PIX : P2PS_TOPO_PXB;
			}
	}

	/* Lowest common ancestor: the first of a's ancestors that is also b's. */
	int ia = -1, ib = -1;
	for (int i = 0; i < na && ia < 0; i++)
		for (int j = 0; j < nb; j++)
			if (pa[i] == pb[j]) {
				ia = i;
				ib = j;
				break;
			}
	if (ia >= 0) {
		*lca = pa[ia];
		turn[0] = ia > 0 ? pa[ia - 1] : -1;
		turn[1] = ib > 0 ? pb[ib - 1] : -1;
		/* Bridges the traffic passes: the ones below the LCA on both sides, plus the LCA.
		 * One switch (downstream port, upstream port, downstream port) is 3 and counts as
		 * a single bridge in nvidia-smi's and NCCL's sense; a lone root port is 1. */
		int bridges = ia + ib + 1;
		return bridges <= 3 ? P2PS_TOPO_PIX : P2PS_TOPO_PXB;
	}
	turn[0] = na > 0 ? pa[na - 1] : -1;
	turn[1] = nb > 0 ? pb[nb - 1] : -1;
	const struct p2ps_dev *ta = na > 0 ? &h->devs[pa[na - 1]] : da;
	const struct p2ps_dev *tb = nb > 0 ? &h->devs[pb[nb - 1]] : db;
	if (!strcmp(ta->root_bus, tb->root_bus) && ta->root_bus[0])
		return P2PS_TOPO_PHB;
	if (!ta->root_bus[0] || !tb->root_bus[0])
		return P2PS_TOPO_UNKNOWN;
	/* Different host bridges: NUMA nodes tell NODE from SYS. A kernel without NUMA
	 * reports -1 for every device; then everything is one node. */
	if (da->numa_node >= 0 && db->numa_node >= 0)
		return da->numa_node == db->numa_node ? P2PS_TOPO_NODE : P2PS_TOPO_SYS;
	if (da->numa_node < 0 && db->numa_node < 0)
		return P2PS_TOPO_NODE;
	return P2PS_TOPO_UNKNOWN;
}

/* NVLink count between two GPUs: direct links, or (NVSwitch systems, where every
 * link ends at a switch) the links both GPUs have into the switch fabric. */
static int nvlinks_between(const struct p2ps_host *h, const struct p2ps_dev *x,
                           const struct p2ps_dev *y)
{
	int direct = 0, xs = 0, ys = 0;
	const struct p2ps_dev *pair[2] = {x, y};
	int *sw[2] = {&xs, &ys};
	for (int k = 0; k < 2; k++) {
		const struct p2ps_gpu_facts *g = &pair[k]->gpu;
		if (!g->nvlink_known)
			continue;
		for (int i = 0; i < g->n_nvlink_peers && i < P2PS_HOST_MAX_NVLINK; i++) {
			const struct p2ps_nvlink_peer *p = &g->nvlink_peers[i];
			const struct p2ps_dev *other = pair[1 - k];
			if (p2ps_bdf_equal(&p->bdf, &other->bdf)) {
				if (p->links > direct)
					direct = p->links;
				continue;
			}
			const struct p2ps_dev *rem = p2ps_host_find(h, &p->bdf);
			if (!rem || !p2ps_dev_is_nvidia_gpu(rem))
				*sw[k] += p->links;
		}
	}
	if (direct)
		return direct;
	return xs && ys ? (xs < ys ? xs : ys) : 0;
}

/* ---- per GPU ------------------------------------------------------------------- */

const char *p2ps_endpoint_prefix(const struct p2ps_analysis *a, size_t gi)
{
	return a && gi < a->n_gpus && !a->gpus[gi].is_gpu ? "DEV" : "GPU";
}

static const char *gpu_label(const struct p2ps_analysis *a, int gi, char *buf, size_t size)
{
	snprintf(buf, size, "%s%d %s", p2ps_endpoint_prefix(a, (size_t)gi), gi,
	         a->host->devs[a->gpus[gi].dev_idx].bdf_str);
	return buf;
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

/* A GPU's BAR1 (size known) against its VRAM: a blocker when smaller, with the
 * Resizable BAR size that would fit; where VRAM is unknown, what the generation's
 * minimum VRAM and the largest ReBAR size still tell. resize_sizes is the BAR's ReBAR
 * bitmap (bit n => 2^n MiB), 0 when it has none. */
static void bar1_vs_vram(struct ctx *c, struct p2ps_gpu_report *g, const char *lbl,
                         uint64_t resize_sizes)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	char s1[32], s2[32];
	int rank = p2ps_generation_rank(d->chip ? d->chip->generation : NULL);
	if (d->gpu.vram_known) {
		g->bar1_covers_vram = g->bar1_size >= d->gpu.vram_bytes;
		if (!g->bar1_covers_vram) {
			struct p2ps_reason *x =
			        add(c, &g->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, P2PS_SEV_BLOCKER,
			            g->dev_idx, "%s: BAR1 is %s, smaller than its %s of VRAM", lbl,
			            p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
			            p2ps_size_format(d->gpu.vram_bytes, s2, sizeof(s2)));
			int fit = rebar_bitmap_fit(resize_sizes, d->gpu.vram_bytes);
			if (fit >= 0)
				set_fix(x,
				        "enable 'Above 4G Decoding' and 'Resizable BAR' in the "
				        "firmware "
				        "setup; the GPU offers %s (with no driver bound, Linux >= "
				        "6.1: "
				        "echo %d > /sys/bus/pci/devices/%s/resource%d_resize)",
				        p2ps_size_format(p2ps_rebar_size_bytes((uint8_t)fit), s1,
				                         sizeof(s1)),
				        fit, d->bdf_str, g->bar1_index);
			else if (resize_sizes)
				set_fix(x,
				        "the GPU's Resizable BAR offers at most %s: BAR1 cannot "
				        "cover VRAM "
				        "without a VBIOS that advertises larger sizes",
				        p2ps_size_format(g->rebar_max, s1, sizeof(s1)));
			else
				set_fix(x,
				        "enable 'Above 4G Decoding' and 'Resizable BAR' in the "
				        "firmware setup (and a VBIOS with Resizable BAR support)");
		}
		return;
	}

	const char *why = p2ps_dev_unknown(d, P2PS_FACT_VRAM);
	if (rank >= FIRST_OPEN_MODULES_GENERATION && g->bar1_size < MIN_VRAM_TURING_PLUS) {
		struct p2ps_reason *x = add(
		        c, &g->reasons, P2PS_R_BAR1_SMALLER_THAN_VRAM, P2PS_SEV_BLOCKER, g->dev_idx,
		        "%s: BAR1 is %s; every %s-or-later GPU has at least 2 GiB of VRAM "
		        "(exact VRAM unknown: %s)",
		        lbl, p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
		        generation_order[FIRST_OPEN_MODULES_GENERATION],
		        why ? why : "no NVML or nvidia-smi report");
		if (g->rebar_max > g->bar1_size)
			set_fix(x,
			        "enable 'Above 4G Decoding' and 'Resizable BAR' in the firmware "
			        "setup; "
			        "the GPU offers up to %s",
			        p2ps_size_format(g->rebar_max, s2, sizeof(s2)));
		else
			set_fix(x, "enable 'Above 4G Decoding' and 'Resizable BAR' in the firmware "
			           "setup (and a VBIOS with Resizable BAR support)");
		return;
	}
	if (g->rebar_max > g->bar1_size) {
		struct p2ps_reason *x =
		        add(c, &g->reasons, P2PS_R_BAR1_NOT_MAXIMAL, P2PS_SEV_UNKNOWN, g->dev_idx,
		            "%s: VRAM unknown (%s); BAR1 is %s while the GPU offers up to %s: "
		            "Resizable BAR is probably not in effect",
		            lbl, why ? why : "no NVML or nvidia-smi report",
		            p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
		            p2ps_size_format(g->rebar_max, s2, sizeof(s2)));
		set_fix(x, "enable 'Above 4G Decoding' and 'Resizable BAR' in the firmware setup");
		return;
	}
	add(c, &g->reasons, P2PS_R_VRAM_UNKNOWN, P2PS_SEV_UNKNOWN, g->dev_idx,
	    "%s: VRAM unknown, so BAR1 (%s) cannot be compared with it: %s", lbl,
	    p2ps_size_format(g->bar1_size, s1, sizeof(s1)),
	    why ? why : "no NVML or nvidia-smi report");
}

static void gpu_bar1(struct ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	char lbl[48];
	gpu_label(c->a, gi, lbl, sizeof(lbl));
	g->bar1_index = g->is_gpu ? p2ps_gpu_bar1_index(d) : peer_bar_index(d);
	/* Without the BAR registers (a paste of the Resizable BAR lines alone), the capability
	 * still lists the GPU's BARs in register order: its second entry is BAR1. */
	if (g->bar1_index < 0 && g->is_gpu && d->rebar.present && d->rebar.count >= 2)
		g->bar1_index = d->rebar.e[1].bar;
	g->rebar_entry = -1;
	g->bar1_size_source = "";
	if (g->bar1_index < 0 && g->is_gpu && d->gpu.bar1_known) {
		/* No BAR registers in the source, but the driver said how large BAR1 is. */
		g->bar1_size_known = true;
		g->bar1_size = d->gpu.bar1_total_bytes;
		g->bar1_size_source = "driver";
		bar1_vs_vram(c, g, lbl, 0);
		return;
	}
	if (g->bar1_index < 0) {
		add(c, &g->reasons, P2PS_R_BAR1_UNKNOWN, P2PS_SEV_UNKNOWN, g->dev_idx,
		    "%s: no %s found%s%s", lbl,
		    g->is_gpu ? "second memory BAR (BAR1)" : "prefetchable memory BAR",
		    p2ps_dev_unknown(d, P2PS_FACT_CONFIG) ? ": " : "",
		    p2ps_dev_unknown(d, P2PS_FACT_CONFIG) ? p2ps_dev_unknown(d, P2PS_FACT_CONFIG)
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
		struct p2ps_reason *x =
		        add(c, &g->reasons, P2PS_R_BAR_UNASSIGNED, P2PS_SEV_BLOCKER, g->dev_idx,
		            "%s: BAR1 (register %d) is unassigned: firmware or kernel found no "
		            "address space for it",
		            lbl, g->bar1_index);
		set_fix(x, "enable 'Above 4G Decoding' in the firmware setup; if it is on, the "
		           "bridge window above the GPU is too small (try pci=realloc)");
	}

	if (!g->bar1_size_known) {
		const char *why = p2ps_dev_unknown(d, P2PS_FACT_BAR_SIZES);
		if (!g->is_gpu)
			return; /* a peer's window size does not decide anything */
		add(c, &g->reasons, P2PS_R_BAR1_UNKNOWN, P2PS_SEV_UNKNOWN, g->dev_idx,
		    "%s: BAR1 size unknown: %s", lbl,
		    why ? why : "no sysfs resource file, ReBAR capability or driver report");
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
 * it, or the bridge does not forward the BAR's addresses. */
static void gpu_windows(struct ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	const struct p2ps_dev *p = d->parent;
	char s1[32], s2[32], lbl[48];
	gpu_label(c->a, gi, lbl, sizeof(lbl));
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &d->bars[i];
		if (!b->present || b->io)
			continue;
		if (b->unassigned && i != g->bar1_index)
			add(c, &g->reasons, P2PS_R_BAR_UNASSIGNED, P2PS_SEV_WARNING, g->dev_idx,
			    "%s: BAR register %d is unassigned", lbl, i);
		if (!p || !p->bridge.is_bridge || !b->size_known || b->unassigned)
			continue;
		/* A prefetchable BAR may also sit in the non-prefetchable window (Linux puts
		 * 32-bit prefetchable BARs there); it only has to fit one of the two. */
		const struct p2ps_window *pw = &p->bridge.pref, *mw = &p->bridge.mem;
		if (window_holds(mw, b) || (b->prefetchable && window_holds(pw, b)))
			continue;
		const struct p2ps_window *w = b->prefetchable && pw->present ? pw : mw;
		uint64_t wsize = w->present ? w->limit - w->base + 1 : 0;
		struct p2ps_reason *x =
		        add(c, &g->reasons, P2PS_R_BAR_EXCEEDS_WINDOW,
		            i == g->bar1_index ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING, g->dev_idx,
		            "%s: BAR register %d (%s at %llx) does not fit the %s window of bridge "
		            "%s (%s)",
		            lbl, i, p2ps_size_format(b->size, s1, sizeof(s1)),
		            (unsigned long long)b->address, w == pw ? "prefetchable" : "memory",
		            p->bdf_str,
		            w->present ? p2ps_size_format(wsize, s2, sizeof(s2)) : "closed");
		set_fix(x, "enable 'Above 4G Decoding' in the firmware setup, or boot with "
		           "pci=realloc so the kernel can grow the bridge windows");
	}
}

static void gpu_link(struct ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	const struct p2ps_pcie *e = &d->pcie;
	char lbl[48];
	gpu_label(c->a, gi, lbl, sizeof(lbl));
	g->link_cap_gbps = p2ps_link_gbps(&e->cap);
	g->link_sta_gbps = p2ps_link_gbps(&e->sta);
	if (d->parent && d->parent->pcie.cap.speed && d->parent->pcie.cap.width)
		g->port_cap_gbps = p2ps_link_gbps(&d->parent->pcie.cap);
	if (!e->cap.speed || !e->cap.width || !e->sta.speed || !e->sta.width) {
		const char *why = p2ps_dev_unknown(d, P2PS_FACT_LINK_STATUS);
		if (!why)
			why = p2ps_dev_unknown(d, P2PS_FACT_LINK_CAP);
		add(c, &g->reasons, P2PS_R_LINK_UNKNOWN, P2PS_SEV_INFO, g->dev_idx,
		    "%s: PCIe link %s unknown: %s", lbl,
		    (!e->cap.speed || !e->cap.width) ? "capability" : "status",
		    why ? why : "no PCIe capability or sysfs link attributes");
		return;
	}
	if (e->sta.width < e->cap.width) {
		struct p2ps_reason *x =
		        add(c, &g->reasons, P2PS_R_LINK_WIDTH_DOWN, P2PS_SEV_WARNING, g->dev_idx,
		            "%s: link trained to x%u of x%u lanes (%.1f of %.1f GB/s "
		            "per direction)",
		            lbl, e->sta.width, e->cap.width, g->link_sta_gbps, g->link_cap_gbps);
		set_fix(x,
		        "reseat the card or move it to a slot wired x%u (risers and bifurcated "
		        "slots often cut lanes)",
		        e->cap.width);
	}
	if (e->sta.speed < e->cap.speed)
		add(c, &g->reasons, P2PS_R_LINK_SPEED_DOWN, P2PS_SEV_WARNING, g->dev_idx,
		    "%s: link runs at %.1f GT/s of %.1f GT/s%s", lbl,
		    p2ps_link_speed_gts(e->sta.speed), p2ps_link_speed_gts(e->cap.speed),
		    g->is_gpu ? "; NVIDIA GPUs drop the link speed when idle, so check again under "
		                "load"
		              : "");
	const struct p2ps_dev *p = d->parent;
	if (p && p->pcie.cap.speed && p->pcie.cap.width &&
	    (p->pcie.cap.speed < e->cap.speed || p->pcie.cap.width < e->cap.width))
		add(c, &g->reasons, P2PS_R_LINK_SLOT_LIMIT, P2PS_SEV_INFO, g->dev_idx,
		    "%s: upstream port %s supports %.1f GT/s x%u, less than the GPU's %.1f GT/s "
		    "x%u",
		    lbl, p->bdf_str, p2ps_link_speed_gts(p->pcie.cap.speed), p->pcie.cap.width,
		    p2ps_link_speed_gts(e->cap.speed), e->cap.width);
}

static void gpu_misc(struct ctx *c, struct p2ps_gpu_report *g, int gi)
{
	const struct p2ps_dev *d = &c->host->devs[g->dev_idx];
	char lbl[48];
	gpu_label(c->a, gi, lbl, sizeof(lbl));
	if (!g->is_gpu)
		return; /* chip, driver and display checks are about NVIDIA GPUs */
	if (!d->chip) {
		add(c, &g->reasons, P2PS_R_CHIP_UNKNOWN, P2PS_SEV_INFO, g->dev_idx,
		    "%s: device id %04x is not in the chip table; generation unknown", lbl,
		    d->device_id);
	} else {
		int rank = p2ps_generation_rank(d->chip->generation);
		if (rank >= 0 && rank < FIRST_OPEN_MODULES_GENERATION)
			add(c, &g->reasons, P2PS_R_GENERATION_UNSUPPORTED, P2PS_SEV_BLOCKER,
			    g->dev_idx,
			    "%s: %s (%s) predates Turing; NVIDIA's open kernel modules, which the "
			    "BAR1 P2P patch modifies, do not support it",
			    lbl, d->chip->chip, d->chip->generation);
	}

	const char *why = p2ps_dev_unknown(d, P2PS_FACT_DRIVER);
	if (!d->driver[0] && why) {
		add(c, &g->reasons, P2PS_R_DRIVER_UNKNOWN, P2PS_SEV_INFO, g->dev_idx,
		    "%s: bound driver unknown: %s", lbl, why);
	} else if (!d->driver[0]) {
		struct p2ps_reason *x = add(c, &g->reasons, P2PS_R_DRIVER, P2PS_SEV_WARNING,
		                            g->dev_idx, "%s: no driver is bound", lbl);
		set_fix(x, "load the (patched) nvidia module: modprobe nvidia");
	} else if (!strcmp(d->driver, "vfio-pci")) {
		add(c, &g->reasons, P2PS_R_DRIVER, P2PS_SEV_INFO, g->dev_idx,
		    "%s: bound to vfio-pci (passed through to a VM or user-space driver)", lbl);
	} else if (strcmp(d->driver, "nvidia")) {
		struct p2ps_reason *x =
		        add(c, &g->reasons, P2PS_R_DRIVER, P2PS_SEV_WARNING, g->dev_idx,
		            "%s: bound to %s, not nvidia: the P2P patch lives in "
		            "NVIDIA's open kernel module",
		            lbl, d->driver);
		set_fix(x, "unbind %s (blacklist it) and load the patched nvidia module",
		        d->driver);
	}
	if (d->boot_vga == 1)
		add(c, &g->reasons, P2PS_R_BOOT_VGA, P2PS_SEV_WARNING, g->dev_idx,
		    "%s: drives the boot display (boot_vga=1); firmware may size its BAR1 for the "
		    "console, and resizing needs the display released",
		    lbl);
}

static enum p2ps_iommu_mode gpu_iommu(const struct p2ps_host *h, const struct p2ps_dev *d)
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

/* ---- per pair ------------------------------------------------------------------ */

static void copy_gpu_reasons(struct ctx *c, struct p2ps_pair *p, const struct p2ps_gpu_report *g)
{
	for (size_t i = 0; i < g->reasons.n; i++) {
		const struct p2ps_reason *r = &g->reasons.v[i];
		if (r->sev == P2PS_SEV_INFO)
			continue;
		struct p2ps_reason *x =
		        add(c, &p->reasons, r->code, r->sev, r->dev_idx, "%s", r->text);
		if (x)
			memcpy(x->fix, r->fix, sizeof(x->fix));
	}
}

static const char *iommu_fix(const struct p2ps_host *h)
{
	if (!strcmp(h->iommu.kind, "intel"))
		return "boot with intel_iommu=on iommu=pt (pass-through) or intel_iommu=off, or "
		       "disable VT-d in the firmware setup";
	if (!strcmp(h->iommu.kind, "amd"))
		return "boot with iommu=pt (pass-through) or amd_iommu=off, or disable AMD-Vi/"
		       "IOMMU in the firmware setup";
	return "boot with iommu=pt (or iommu.passthrough=1), or turn the IOMMU off";
}

/* Whether the pair's peer requests turn below a common bridge without any port
 * sending them up: then they never reach the root complex, and the IOMMU (which sits
 * there) neither translates nor blocks them. Unknown ACS at a turning port counts as
 * "may go up". */
static bool stays_below_lca(const struct p2ps_host *h, const struct p2ps_pair *p)
{
	if (p->lca_idx < 0)
		return false;
	for (int k = 0; k < 2; k++) {
		int t = p->turn[k];
		if (t < 0)
			continue;
		const struct p2ps_dev *br = &h->devs[t];
		if (br->acs.present ? p2ps_acs_redirect_bits(br->acs.ctl) != 0
		                    : p2ps_dev_unknown(br, P2PS_FACT_ACS) != NULL)
			return false;
	}
	return true;
}

static void pair_iommu(struct ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	bool below = stays_below_lca(h, p);
	for (int k = 0; k < 2; k++) {
		const struct p2ps_gpu_report *g = &c->a->gpus[k ? p->b : p->a];
		const struct p2ps_dev *d = &h->devs[g->dev_idx];
		char lbl[48];
		gpu_label(c->a, k ? p->b : p->a, lbl, sizeof(lbl));
		struct p2ps_reason *x = NULL;
		switch (g->iommu) {
		case P2PS_IOMMU_TRANSLATING:
			if (below) {
				add(c, &p->reasons, P2PS_R_IOMMU_TRANSLATING, P2PS_SEV_WARNING,
				    g->dev_idx,
				    "%s: the IOMMU translates its DMA (group %d, default domain "
				    "%s), but "
				    "this pair's peer requests turn at %s without an ACS redirect, "
				    "so "
				    "they never reach it (and the pair is not isolated from each "
				    "other)",
				    lbl, d->iommu_group, d->iommu_domain_type,
				    h->devs[p->lca_idx].bdf_str);
				break;
			}
			x = add(c, &p->reasons, P2PS_R_IOMMU_TRANSLATING, P2PS_SEV_BLOCKER,
			        g->dev_idx,
			        "%s: the IOMMU translates its DMA (group %d, default domain %s), "
			        "so a "
			        "peer BAR1 bus address reaching the root complex faults or lands "
			        "elsewhere",
			        lbl, d->iommu_group, d->iommu_domain_type);
			set_fix(x, "%s", iommu_fix(h));
			break;
		case P2PS_IOMMU_BLOCKED:
			x = add(c, &p->reasons, P2PS_R_IOMMU_BLOCKED, P2PS_SEV_BLOCKER, g->dev_idx,
			        "%s: its IOMMU group %d has a blocked domain: no DMA at all", lbl,
			        d->iommu_group);
			set_fix(x, "%s", iommu_fix(h));
			break;
		case P2PS_IOMMU_UNMANAGED:
			add(c, &p->reasons, P2PS_R_IOMMU_UNMANAGED, P2PS_SEV_WARNING, g->dev_idx,
			    "%s: IOMMU group %d is owned by a VFIO user; peer DMA works only where "
			    "that "
			    "user maps the peer's BARs (QEMU does)",
			    lbl, d->iommu_group);
			break;
		case P2PS_IOMMU_UNKNOWN: {
			const char *why = !h->iommu.known
			                          ? "the source carries no IOMMU state"
			                          : p2ps_dev_unknown(d, P2PS_FACT_IOMMU_GROUP);
			/* Requests that turn inside a switch never meet the IOMMU anyway. */
			add(c, &p->reasons, P2PS_R_IOMMU_UNKNOWN,
			    below ? P2PS_SEV_INFO : P2PS_SEV_UNKNOWN, g->dev_idx,
			    "%s: IOMMU mode unknown%s: %s", lbl,
			    below ? " (irrelevant: this pair's requests stay in the switch)" : "",
			    why ? why : "IOMMU present but the group's domain type is not known");
			break;
		}
		case P2PS_IOMMU_OFF:
		case P2PS_IOMMU_IDENTITY: break;
		}
	}
}

static void pair_acs(struct ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	for (int k = 0; k < 2; k++) {
		int t = p->turn[k];
		if (t < 0 || (k == 1 && t == p->turn[0]))
			continue;
		const struct p2ps_dev *br = &h->devs[t];
		bool root = br->pcie.present && br->pcie.port_type == P2PS_PCIE_ROOT_PORT;
		if (br->acs.present) {
			uint16_t red = p2ps_acs_redirect_bits(br->acs.ctl);
			if (!red)
				continue;
			/* Through a host bridge the traffic reaches the root complex anyway; a
			 * redirecting switch port bounces traffic that would stay in the switch. */
			bool blocker = !root && p->lca_idx >= 0;
			struct p2ps_reason *x =
			        add(c, &p->reasons,
			            blocker ? P2PS_R_ACS_REDIRECT : P2PS_R_ACS_REDIRECT_ROOT,
			            blocker ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING, t,
			            "bridge %s (%s) redirects peer traffic to the root complex: "
			            "ACSCtl%s%s%s",
			            br->bdf_str,
			            br->pcie.present ? p2ps_pcie_type_name(br->pcie.port_type)
			                             : "bridge",
			            (red & P2PS_ACS_RR) ? " ReqRedir+" : "",
			            (red & P2PS_ACS_CR) ? " CmpltRedir+" : "",
			            (red & P2PS_ACS_EC) ? " EgressCtrl+" : "");
			set_fix(x,
			        "setpci -s %s ECAP_ACS+0x6.w=%04x (as root; until reboot, and it "
			        "weakens "
			        "IOMMU isolation) or boot with pci=disable_acs_redir=%s",
			        br->bdf_str, p2ps_acs_ctl_without_redirect(br->acs.ctl),
			        br->bdf_str);
			continue;
		}
		const char *why = p2ps_dev_unknown(br, P2PS_FACT_ACS);
		if (why) {
			struct p2ps_reason *x =
			        add(c, &p->reasons, P2PS_R_ACS_UNKNOWN,
			            (root || p->lca_idx < 0) ? P2PS_SEV_INFO : P2PS_SEV_UNKNOWN, t,
			            "ACS state of bridge %s unknown: %s", br->bdf_str, why);
			set_fix(x, "run bar-inspect as root (sudo) to read extended config space");
		}
	}
}

/* Vendor of the first host bridge (class 0600) in the model, 0 if none is listed. */
static uint16_t host_bridge_vendor(const struct p2ps_host *h)
{
	for (size_t i = 0; i < h->n_devs; i++)
		if (h->devs[i].class_code >> 8 == 0x0600)
			return h->devs[i].vendor_id;
	return 0;
}

static bool is_intel_host(const struct p2ps_host *h)
{
	return !strcmp(h->iommu.kind, "intel") || host_bridge_vendor(h) == 0x8086;
}

static void pair_topology(struct ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	const struct p2ps_dev *da = &h->devs[c->a->gpus[p->a].dev_idx];
	const struct p2ps_dev *db = &h->devs[c->a->gpus[p->b].dev_idx];
	if (!p->nvlinks && c->a->gpus[p->a].is_gpu && c->a->gpus[p->b].is_gpu &&
	    (!da->gpu.nvlink_known || !db->gpu.nvlink_known)) {
		const struct p2ps_dev *u = da->gpu.nvlink_known ? db : da;
		const char *why = p2ps_dev_unknown(u, P2PS_FACT_NVLINK);
		add(c, &p->reasons, P2PS_R_NVLINK, P2PS_SEV_INFO, -1,
		    "NVLink between the pair unknown (%s): without NVLink the BAR1 path is what "
		    "CUDA peer access would use",
		    why ? why : "no NVML and no captured nvidia-smi");
	}
	if (p->nvlinks > 0)
		add(c, &p->reasons, P2PS_R_NVLINK, P2PS_SEV_INFO, -1,
		    "NVLink connects the pair (NV%d): CUDA peer access uses NVLink, so the BAR1 "
		    "path is moot",
		    p->nvlinks);
	switch (p->pcie_topo) {
	case P2PS_TOPO_PHB:
		if (!p->moot)
			add(c, &p->reasons, P2PS_R_PATH_HOST_BRIDGE, P2PS_SEV_INFO, -1,
			    "peer traffic crosses the host bridge (PHB): it relies on the root "
			    "complex forwarding peer writes, which AMD and recent Intel CPUs do");
		break;
	case P2PS_TOPO_NODE:
		if (!p->moot)
			add(c, &p->reasons, P2PS_R_PATH_HOST_BRIDGE, P2PS_SEV_WARNING, -1,
			    "peer traffic crosses two host bridges inside one NUMA node (NODE): "
			    "bandwidth depends on the CPU's internal fabric");
		break;
	case P2PS_TOPO_SYS: {
		if (p->moot)
			break;
		bool intel = is_intel_host(h);
		struct p2ps_reason *x =
		        add(c, &p->reasons, P2PS_R_PATH_CPU_INTERCONNECT,
		            intel ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING, -1,
		            "peer traffic crosses the CPU interconnect between NUMA nodes %d and "
		            "%d (SYS)%s",
		            da->numa_node, db->numa_node,
		            intel ? ": Intel's UPI/QPI does not forward PCIe peer traffic"
		                  : ": expect a fraction of the PCIe bandwidth");
		set_fix(x, "put both GPUs under one CPU socket (same NUMA node), ideally one PCIe "
		           "switch");
		break;
	}
	case P2PS_TOPO_UNKNOWN: {
		const char *why = p2ps_dev_unknown(da, P2PS_FACT_PARENT);
		if (!why)
			why = p2ps_dev_unknown(db, P2PS_FACT_PARENT);
		char missing[96];
		for (int k = 0; k < 2 && !why; k++) {
			/* The topmost known device hangs below a bridge the source lacks. */
			const struct p2ps_dev *t = k ? db : da;
			for (int n = 0; t->parent && n < P2PS_PATH_MAX; n++)
				t = t->parent;
			if (t->parent_idx < 0 && t->has_parent) {
				char pb[20];
				snprintf(missing, sizeof(missing),
				         "bridge %s above %s is not in the source",
				         p2ps_bdf_format(&t->parent_bdf, pb, sizeof(pb)),
				         t->bdf_str);
				why = missing;
			}
		}
		if (!why && (da->numa_node < 0 || db->numa_node < 0))
			why = p2ps_dev_unknown(da->numa_node < 0 ? da : db, P2PS_FACT_NUMA);
		add(c, &p->reasons, P2PS_R_TOPOLOGY_UNKNOWN,
		    p->moot ? P2PS_SEV_INFO : P2PS_SEV_UNKNOWN, -1,
		    "PCIe path between the GPUs unknown: %s",
		    why ? why : "the PCI tree or NUMA nodes are incomplete");
		break;
	}
	case P2PS_TOPO_PIX:
	case P2PS_TOPO_PXB:
	case P2PS_TOPO_X:
	case P2PS_TOPO_NV: break;
	}
}

/* The value of NAME= among the captured NCCL variables, or NULL. */
static const char *nccl_var(const struct p2ps_host *h, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < h->n_nccl_env && i < P2PS_HOST_MAX_NCCL_ENV; i++)
		if (!strncmp(h->nccl_env[i], name, n) && h->nccl_env[i][n] == '=')
			return h->nccl_env[i] + n + 1;
	return NULL;
}

/* Whether a NCCL_P2P_DISABLE value turns P2P off (any non-empty value but "0"); the
 * pair verdicts and the host findings share this one rule. */
static bool nccl_disables(const char *value)
{
	return value && value[0] && strcmp(value, "0");
}

/* NCCL's P2P levels in its path order (NCCL has no NODE: a NUMA node's host bridges
 * hang off one CPU node, so nvidia-smi's NODE is NCCL's PHB). */
static int nccl_rank(enum p2ps_topo t)
{
	switch (t) {
	case P2PS_TOPO_X: return 0;
	case P2PS_TOPO_NV: return 1;
	case P2PS_TOPO_PIX: return 2;
	case P2PS_TOPO_PXB: return 3;
	case P2PS_TOPO_PHB:
	case P2PS_TOPO_NODE: return 4;
	case P2PS_TOPO_SYS: return 5;
	case P2PS_TOPO_UNKNOWN: break;
	}
	return -1;
}

/* What NCCL would do with this pair: it uses P2P only up to its P2P level (default PXB,
 * raised to SYS on AMD hosts with at most two GPUs), unless NCCL_P2P_DISABLE is set.
 * NCCL never looks at ACS or the IOMMU itself, which is why a pair it admits can hang. */
static void pair_nccl(struct ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	if (!c->a->gpus[p->a].is_gpu || !c->a->gpus[p->b].is_gpu || p->topo == P2PS_TOPO_UNKNOWN)
		return;
	const char *dis = nccl_var(h, "NCCL_P2P_DISABLE");
	if (nccl_disables(dis)) {
		add(c, &p->reasons, P2PS_R_NCCL_LEVEL, P2PS_SEV_INFO, -1,
		    "NCCL will not use P2P for this pair: NCCL_P2P_DISABLE=%s", dis);
		return;
	}
	static const char *const names[] = {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS"};
	const char *lv = nccl_var(h, "NCCL_P2P_LEVEL");
	int level = -1;
	const char *why = "set";
	if (lv) {
		for (int i = 0; i < 6; i++)
			if (!strcmp(lv, names[i]))
				level = i;
		/* Old numeric levels 0..5 meant LOC, PIX, PXB, PHB, SYS, SYS. */
		static const int numeric[] = {0, 2, 3, 4, 5, 5};
		if (level < 0 && lv[0] >= '0' && lv[0] <= '5' && !lv[1])
			level = numeric[lv[0] - '0'];
	}
	if (level < 0) {
		bool amd = !is_intel_host(h) &&
		           (!strcmp(h->iommu.kind, "amd") || host_bridge_vendor(h) == 0x1022);
		size_t gpus = 0;
		for (size_t i = 0; i < c->a->n_gpus; i++)
			gpus += c->a->gpus[i].is_gpu;
		level = amd && gpus <= 2 ? 5 : 3;
		why = amd && gpus <= 2 ? "NCCL's default on AMD hosts with two GPUs"
		                       : "NCCL's default";
	}
	int r = nccl_rank(p->topo);
	add(c, &p->reasons, P2PS_R_NCCL_LEVEL, P2PS_SEV_INFO, -1,
	    "NCCL (P2P level %s, %s) would %s P2P for this pair (%s path)%s", names[level], why,
	    r <= level ? "use" : "not use",
	    p->topo == P2PS_TOPO_NV ? "NVLink" : p2ps_topo_name(p->topo),
	    r <= level ? "" : "; it copies through host memory instead");
}

static void pair_models(struct ctx *c, struct p2ps_pair *p)
{
	const struct p2ps_host *h = c->host;
	const struct p2ps_dev *da = &h->devs[c->a->gpus[p->a].dev_idx];
	const struct p2ps_dev *db = &h->devs[c->a->gpus[p->b].dev_idx];
	/* Device id 0: not known (a paste may name only the board); the chips still compare. */
	bool ids = da->device_id && db->device_id;
	if (!c->a->gpus[p->a].is_gpu || !c->a->gpus[p->b].is_gpu ||
	    (ids && da->device_id == db->device_id))
		return;
	if (da->chip && db->chip && strcmp(da->chip->generation, db->chip->generation)) {
		add(c, &p->reasons, P2PS_R_MIXED_GENERATIONS, P2PS_SEV_BLOCKER, -1,
		    "different generations: %s (%s) and %s (%s); the patched driver maps peers of "
		    "one generation only",
		    da->chip->chip, da->chip->generation, db->chip->chip, db->chip->generation);
	} else if (da->chip && db->chip && strcmp(da->chip->chip, db->chip->chip)) {
		add(c, &p->reasons, P2PS_R_MIXED_CHIPS, P2PS_SEV_BLOCKER, -1,
		    "different chips: %s and %s; users report that mixed-model pairs never peer "
		    "with the patched driver",
		    da->chip->chip, db->chip->chip);
	} else if (ids) {
		add(c, &p->reasons, P2PS_R_MIXED_MODELS, P2PS_SEV_WARNING, -1,
		    "different models: device ids %04x and %04x%s%s", da->device_id, db->device_id,
		    da->chip ? " of chip " : "", da->chip ? da->chip->chip : "");
	}
}

static void pair_verdict(struct p2ps_pair *p)
{
	bool blocker = false, unknown = false;
	for (size_t i = 0; i < p->reasons.n; i++) {
		blocker |= p->reasons.v[i].sev == P2PS_SEV_BLOCKER;
		unknown |= p->reasons.v[i].sev == P2PS_SEV_UNKNOWN;
	}
	p->verdict = blocker   ? P2PS_VERDICT_NOT_READY
	             : unknown ? P2PS_VERDICT_UNKNOWN
	                       : P2PS_VERDICT_READY;
}

/* ---- host ---------------------------------------------------------------------- */

static void cat(char *dst, size_t size, const char *name, const char *val)
{
	if (!val[0])
		return;
	size_t n = strlen(dst);
	snprintf(dst + n, size - n, "%s%s=%s", n ? " " : "", name, val);
}

static void host_findings(struct ctx *c)
{
	const struct p2ps_host *h = c->host;
	struct p2ps_analysis *a = c->a;
	struct p2ps_reasons *r = &a->host_reasons;

	if (h->cmdline.known) {
		cat(a->iommu_flags, sizeof(a->iommu_flags), "iommu", h->cmdline.iommu);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "intel_iommu", h->cmdline.intel_iommu);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "amd_iommu", h->cmdline.amd_iommu);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "iommu.passthrough",
		    h->cmdline.iommu_passthrough);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "pcie_acs_override",
		    h->cmdline.pcie_acs_override);
		/* pci= matters here only for its ACS options (config_acs, disable_acs_redir). */
		if (strstr(h->cmdline.pci, "acs"))
			cat(a->iommu_flags, sizeof(a->iommu_flags), "pci", h->cmdline.pci);
	}
	if (!h->iommu.known) {
		snprintf(a->iommu_summary, sizeof(a->iommu_summary), "unknown (%s)",
		         h->kind == P2PS_HOST_LSPCI_DUMP ? "an lspci dump carries no IOMMU state"
		         : h->kind == P2PS_HOST_PASTE    ? "not in the paste"
		                                         : "not captured");
	} else if (!h->iommu.present) {
		snprintf(a->iommu_summary, sizeof(a->iommu_summary),
		         "off (no IOMMU registered in /sys/class/iommu)");
	} else {
		/* Name the default domain types the GPUs' groups use. */
		char types[64] = "";
		for (size_t i = 0; i < a->n_gpus; i++) {
			const char *t = h->devs[a->gpus[i].dev_idx].iommu_domain_type;
			size_t len = strlen(types);
			if (t[0] && !strstr(types, t))
				snprintf(types + len, sizeof(types) - len, "%s%s", len ? "/" : "",
				         t);
		}
		snprintf(a->iommu_summary, sizeof(a->iommu_summary),
		         "on (%s%s%.160s, %d groups)%s%s",
		         h->iommu.kind[0] ? h->iommu.kind : "unknown kind",
		         h->iommu.units[0] ? ": " : "", h->iommu.units, h->iommu.n_groups,
		         types[0] ? ", default domain " : "", types);
	}
	add(c, r, P2PS_R_IOMMU_STATE, P2PS_SEV_INFO, -1, "IOMMU: %s%s%s", a->iommu_summary,
	    a->iommu_flags[0] ? "; kernel command line: " : "", a->iommu_flags);

	if (h->config_limited_any) {
		struct p2ps_reason *x = add(
		        c, r, P2PS_R_NEEDS_ROOT, P2PS_SEV_INFO, -1,
		        "config space past 64 bytes is readable only by root: ACS, Resizable BAR "
		        "and PCIe link registers come from sysfs or stay unknown");
		set_fix(x, "run as root (sudo bar-inspect) for the full report");
	}
	if (h->nvidia.module_known && h->nvidia.proc_known && h->nvidia.module_version[0] &&
	    h->nvidia.proc_driver_version[0] &&
	    strcmp(h->nvidia.module_version, h->nvidia.proc_driver_version)) {
		struct p2ps_reason *x =
		        add(c, r, P2PS_R_DRIVER_VERSION_MISMATCH, P2PS_SEV_WARNING, -1,
		            "loaded nvidia module is %s but /proc/driver/nvidia/version says %s",
		            h->nvidia.module_version, h->nvidia.proc_driver_version);
		set_fix(x, "build the patched modules from the same release as the installed user "
		           "space (.run --no-kernel-modules) and reload them");
	}
	if (h->vm.known && h->vm.in_vm)
		add(c, r, P2PS_R_VM, P2PS_SEV_WARNING, -1,
		    "running in a virtual machine (%s%s%s): the PCI tree is the guest's, so "
		    "classes "
		    "and ACS describe the virtual topology, not the host's",
		    h->vm.hypervisor[0] ? h->vm.hypervisor : "hypervisor",
		    h->vm.evidence[0] ? ", " : "", h->vm.evidence);
	for (int i = 0; i < h->n_nccl_env && i < P2PS_HOST_MAX_NCCL_ENV; i++) {
		const char *e = h->nccl_env[i];
		bool disables = !strncmp(e, "NCCL_P2P_DISABLE=", 17) && nccl_disables(e + 17);
		struct p2ps_reason *x =
		        add(c, r, P2PS_R_NCCL_ENV, disables ? P2PS_SEV_WARNING : P2PS_SEV_INFO, -1,
		            "%s is set%s", e, disables ? ": NCCL will not use P2P at all" : "");
		if (disables)
			set_fix(x, "unset NCCL_P2P_DISABLE once the pair is ready");
	}
}

/* ---- driver -------------------------------------------------------------------- */

int p2ps_analysis_gpu_of_dev(const struct p2ps_analysis *a, int dev_idx)
{
	for (size_t i = 0; a && i < a->n_gpus; i++)
		if (a->gpus[i].dev_idx == dev_idx)
			return (int)i;
	return -1;
}

const struct p2ps_pair *p2ps_analysis_pair(const struct p2ps_analysis *a, size_t i, size_t j)
{
	if (!a || i == j)
		return NULL;
	if (i > j) {
		size_t t = i;
		i = j;
		j = t;
	}
	for (size_t k = 0; k < a->n_pairs; k++)
		if ((size_t)a->pairs[k].a == i && (size_t)a->pairs[k].b == j)
			return &a->pairs[k];
	return NULL;
}

static bool is_peer(const struct p2ps_analysis_opts *o, const struct p2ps_dev *d)
{
	for (size_t k = 0; o && k < o->n_peers; k++)
		if (p2ps_bdf_equal(&o->peers[k], &d->bdf))
			return true;
	return false;
}

int p2ps_analysis_run(const struct p2ps_host *host, struct p2ps_analysis *out,
                      struct p2ps_error *err)
{
	return p2ps_analysis_run_opts(host, NULL, out, err);
}

int p2ps_analysis_run_opts(const struct p2ps_host *host, const struct p2ps_analysis_opts *opts,
                           struct p2ps_analysis *out, struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!host)
		return p2ps_error_set(err, P2PS_EINVAL, "analysis: no host model");
	for (size_t k = 0; opts && k < opts->n_peers; k++)
		if (!p2ps_host_find(host, &opts->peers[k])) {
			char b[20];
			return p2ps_error_set(err, P2PS_ENOENT, "peer %s: no such device",
			                      p2ps_bdf_format(&opts->peers[k], b, sizeof(b)));
		}
	out->host = host;
	struct ctx c = {.host = host, .a = out};

	size_t n = 0;
	for (size_t i = 0; i < host->n_devs; i++)
		n += p2ps_dev_is_nvidia_gpu(&host->devs[i]) || is_peer(opts, &host->devs[i]);
	if (n) {
		out->gpus = calloc(n, sizeof(*out->gpus));
		out->matrix = calloc(n * n, sizeof(*out->matrix));
		out->nvlink_matrix = calloc(n * n, sizeof(*out->nvlink_matrix));
		out->pairs = n > 1 ? calloc(n * (n - 1) / 2, sizeof(*out->pairs)) : NULL;
		if (!out->gpus || !out->matrix || !out->nvlink_matrix || (n > 1 && !out->pairs))
			goto oom;
	}
	for (size_t i = 0; i < host->n_devs; i++) {
		bool gpu = p2ps_dev_is_nvidia_gpu(&host->devs[i]);
		if (!gpu && !is_peer(opts, &host->devs[i]))
			continue;
		out->gpus[out->n_gpus].is_gpu = gpu;
		out->gpus[out->n_gpus++].dev_idx = (int)i;
	}

	for (size_t gi = 0; gi < out->n_gpus; gi++) {
		struct p2ps_gpu_report *g = &out->gpus[gi];
		const struct p2ps_dev *d = &host->devs[g->dev_idx];
		g->path_len = ancestors(host, g->dev_idx, g->path, P2PS_PATH_MAX, &g->path_looped);
		g->iommu = gpu_iommu(host, d);
		gpu_misc(&c, g, (int)gi);
		gpu_bar1(&c, g, (int)gi);
		gpu_windows(&c, g, (int)gi);
		gpu_link(&c, g, (int)gi);
		reasons_sort(&g->reasons);
	}

	/* The classes and NVLink counts are symmetric (test_topology_is_symmetric): each
	 * pair is classified once and mirrored into the matrix. */
	for (size_t i = 0; i < out->n_gpus; i++) {
		for (size_t j = i; j < out->n_gpus; j++) {
			int lca, turn[2];
			int di = out->gpus[i].dev_idx, dj = out->gpus[j].dev_idx;
			enum p2ps_topo t = p2ps_topo_classify(host, di, dj, &lca, turn);
			int nv = i == j ? 0
			                : nvlinks_between(host, &host->devs[di], &host->devs[dj]);
			size_t ij = i * out->n_gpus + j, ji = j * out->n_gpus + i;
			out->nvlink_matrix[ij] = out->nvlink_matrix[ji] = nv;
			out->matrix[ij] = out->matrix[ji] = nv ? P2PS_TOPO_NV : t;
			if (j == i)
				continue;
			struct p2ps_pair *p = &out->pairs[out->n_pairs++];
			p->a = (int)i;
			p->b = (int)j;
			p->pcie_topo = t;
			p->topo = nv ? P2PS_TOPO_NV : t;
			p->nvlinks = nv;
			p->moot = nv > 0;
			p->lca_idx = lca;
			p->turn[0] = turn[0];
			p->turn[1] = turn[1];
			double ga = out->gpus[i].link_sta_gbps, gb = out->gpus[j].link_sta_gbps;
			p->pcie_gbps = ga > 0 && gb > 0 ? (ga < gb ? ga : gb) : 0;
			pair_topology(&c, p);
			pair_models(&c, p);
			pair_iommu(&c, p);
			pair_acs(&c, p);
			pair_nccl(&c, p);
			copy_gpu_reasons(&c, p, &out->gpus[i]);
			copy_gpu_reasons(&c, p, &out->gpus[j]);
			pair_verdict(p);
			reasons_sort(&p->reasons);
		}
	}
	host_findings(&c);
	reasons_sort(&out->host_reasons);
	if (c.oom)
		goto oom;
	return 0;
oom:
	p2ps_analysis_free(out);
	return p2ps_error_set(err, P2PS_ENOMEM, "analysis: out of memory");
}

void p2ps_analysis_free(struct p2ps_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->gpus && i < a->n_gpus; i++)
		reasons_free(&a->gpus[i].reasons);
	for (size_t i = 0; a->pairs && i < a->n_pairs; i++)
		reasons_free(&a->pairs[i].reasons);
	reasons_free(&a->host_reasons);
	free(a->gpus);
	free(a->pairs);
	free(a->matrix);
	free(a->nvlink_matrix);
	memset(a, 0, sizeof(*a));
}
