/* SPDX-License-Identifier: MIT */
/* lspci detail lines of one device: regions, ROM, bridge bus numbers and windows, the
 * capability list ("Capabilities: [60] Express (v2) Endpoint"), LnkCap/LnkSta, ACSCap/
 * ACSCtl, Resizable BAR entries, NUMA node, IOMMU group and the bound driver. The values
 * go into the device's struct p2ps_dev exactly as the config-space decoders would have
 * put them (ACS bits, ReBAR size indexes, link speed codes). */
#include <stdio.h>
#include <string.h>

#include "paste_internal.h"

static void mark(struct pctx *c, struct p2ps_paste_dev *pd, enum p2ps_paste_dfact f, int line)
{
	pd->from[f] = pt_where(c, line);
}

/* "(64-bit, prefetchable) [disabled] [size=256M]" after a BAR's address. */
static void bar_attrs(struct p2ps_bar *b, const char *p)
{
	b->is_64bit = strstr(p, "64-bit") != NULL;
	b->prefetchable = strstr(p, " prefetchable") || strstr(p, "(prefetchable");
	const char *sz = strstr(p, "[size=");
	if (sz && pt_size(sz + 6, &b->size, NULL))
		b->size_known = true;
}

/* The next BAR index for lspci -v, which omits "Region N:": after the last BAR, two
 * further for a 64-bit one. */
static int next_bar_index(const struct p2ps_dev *d)
{
	int next = 0;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		if (d->bars[i].present)
			next = i + (d->bars[i].is_64bit ? 2 : 1);
	return next;
}

/* "Region 1: Memory at 40060000000 (64-bit, prefetchable) [size=256M]", "Memory at ...",
 * "Region 5: I/O ports at c000 [size=128]", "... at <unassigned> [disabled]". */
static bool region(struct pctx *c, struct p2ps_paste_dev *pd, const char *t, int line)
{
	long idx = -1;
	const char *p = t;
	if (pt_starts(p, "Region ")) {
		if (!pt_dec(p + 7, &idx, &p) || *p != ':')
			return false;
		p = pt_skip_ws(p + 1);
		pd->verbosity = pd->verbosity < 2 ? 2 : pd->verbosity;
	}
	bool io = pt_starts(p, "I/O ports at ");
	if (!io && !pt_starts(p, "Memory at "))
		return false;
	if (idx < 0)
		idx = next_bar_index(&pd->d);
	if (idx >= P2PS_HOST_MAX_BARS)
		return true;
	p += io ? 13 : 10;
	struct p2ps_bar *b = &pd->d.bars[idx];
	memset(b, 0, sizeof(*b));
	b->present = true;
	b->index = (uint8_t)idx;
	b->io = io;
	if (*p == '<') {
		b->unassigned = true;
	} else if (!pt_hex(p, &b->address, NULL)) {
		b->present = false;
		return true;
	}
	bar_attrs(b, p);
	if (!pd->from[P2PS_PD_BARS].line) /* where the region lines start */
		mark(c, pd, P2PS_PD_BARS, line);
	return true;
}

static void window(struct p2ps_window *w, const char *p)
{
	uint64_t lo, hi;
	const char *e;
	if (!pt_hex(p, &lo, &e) || *e != '-' || !pt_hex(e + 1, &hi, &e) || strstr(e, "[disabled]"))
		return;
	w->present = lo <= hi;
	w->base = lo;
	w->limit = hi;
	w->is_64bit = strstr(e, "64-bit") != NULL;
}

static bool bridge_line(struct pctx *c, struct p2ps_paste_dev *pd, const char *t, int line)
{
	struct p2ps_bridge *br = &pd->d.bridge;
	uint64_t v[3];
	const char *p = strstr(t, "primary=");
	if (pt_starts(t, "Bus: ") && p && pt_hex(p + 8, &v[0], NULL) &&
	    (p = strstr(t, "secondary=")) && pt_hex(p + 10, &v[1], NULL) &&
	    (p = strstr(t, "subordinate=")) && pt_hex(p + 12, &v[2], NULL)) {
		br->is_bridge = true;
		pd->d.header_type = 1;
		br->primary = (uint8_t)v[0];
		br->secondary = (uint8_t)v[1];
		br->subordinate = (uint8_t)v[2];
	} else if (pt_starts(t, "Memory behind bridge: ")) {
		window(&br->mem, t + 22);
		pd->windows_seen = true;
	} else if (pt_starts(t, "Prefetchable memory behind bridge: ")) {
		window(&br->pref, t + 35);
		pd->windows_seen = true;
	} else if (pt_starts(t, "I/O behind bridge: ")) {
		window(&br->io, t + 19);
		pd->windows_seen = true;
	} else {
		return false;
	}
	mark(c, pd, P2PS_PD_BRIDGE, line);
	return true;
}

static const struct {
	const char *name;
	uint8_t type;
} port_types[] = {
        {"Root Complex Integrated Endpoint", P2PS_PCIE_RC_ENDPOINT},
        {"Root Complex Event Collector", P2PS_PCIE_RC_EVENT_COLLECTOR},
        {"Legacy Endpoint", P2PS_PCIE_LEGACY_ENDPOINT},
        {"Endpoint", P2PS_PCIE_ENDPOINT},
        {"Root Port", P2PS_PCIE_ROOT_PORT},
        {"Upstream Port", P2PS_PCIE_SWITCH_UPSTREAM},
        {"Downstream Port", P2PS_PCIE_SWITCH_DOWNSTREAM},
        {"PCI-Express to PCI/PCI-X Bridge", P2PS_PCIE_PCIE_TO_PCI},
        {"PCI/PCI-X to PCI-Express Bridge", P2PS_PCIE_PCI_TO_PCIE},
};

/* "Express (v2) Root Port (Slot+), IntMsgNum 0", "Express Endpoint, MSI 00". */
static bool express(struct pctx *c, struct p2ps_paste_dev *pd, const char *p, uint16_t off,
                    int line)
{
	if (!pt_starts(p, "Express "))
		return false;
	p += 8;
	struct p2ps_pcie *e = &pd->d.pcie;
	if (pt_starts(p, "(v")) {
		e->version = (uint8_t)(p[2] - '0');
		p = pt_skip_ws(p + 4);
	}
	for (size_t i = 0; i < sizeof(port_types) / sizeof(port_types[0]); i++)
		if (pt_starts(p, port_types[i].name)) {
			e->present = true;
			e->port_type = port_types[i].type;
			e->offset = off;
			pd->express_seen = true;
			mark(c, pd, P2PS_PD_LINK, line);
			return true;
		}
	return false;
}

/* "Capabilities: [bb0 v1] Physical Resizable BAR", "Capabilities: <access denied>". */
static bool capability(struct pctx *c, struct p2ps_paste_dev *pd, const char *t, int line, int *ctx)
{
	if (!pt_starts(t, "Capabilities: "))
		return false;
	const char *p = t + 14;
	mark(c, pd, P2PS_PD_CAPS, line);
	*ctx = 0;
	if (pt_starts(p, "<access denied>")) {
		pd->caps_denied = true;
		return true;
	}
	uint64_t off;
	const char *e;
	if (*p != '[' || !pt_hex(p + 1, &off, &e) || off > 0xfff)
		return true;
	p = strchr(e, ']');
	if (!p)
		return true;
	p = pt_skip_ws(p + 1);
	pd->caps_seen = true;
	pd->ext_caps_seen |= off >= 0x100;
	if (express(c, pd, p, (uint16_t)off, line))
		return true;
	if (pt_starts(p, "Virtual Resizable BAR")) {
		*ctx = 'V';
	} else if (pt_starts(p, "Physical Resizable BAR")) {
		pd->d.rebar.present = true;
		pd->d.rebar.offset = (uint16_t)off;
		mark(c, pd, P2PS_PD_REBAR, line);
		*ctx = 'R';
	} else if (pt_starts(p, "Access Control Services")) {
		pd->d.acs.present = true;
		pd->d.acs.offset = (uint16_t)off;
		mark(c, pd, P2PS_PD_ACS, line);
		*ctx = 'A';
	}
	return true;
}

/* "LnkCap: Port #0, Speed 32GT/s, Width x16, ..." / "LnkSta: Speed 2.5GT/s (downgraded),
 * Width x0". Width x0 is a link that is down: a fact, kept as width 0. */
static bool link(struct pctx *c, struct p2ps_paste_dev *pd, const char *t, int line)
{
	bool cap = pt_starts(t, "LnkCap:");
	if (!cap && !pt_starts(t, "LnkSta:"))
		return false;
	const char *sp = strstr(t, "Speed ");
	const char *wd = strstr(t, "Width x");
	long w;
	if (!sp || !wd || !pt_dec(wd + 7, &w, NULL) || w > 32)
		return true;
	struct p2ps_pcie *e = &pd->d.pcie;
	struct p2ps_link *l = cap ? &e->cap : &e->sta;
	l->speed = pt_speed(sp + 6);
	l->width = (uint8_t)w;
	if (cap) {
		e->cap_source = P2PS_LINK_CONFIG;
		e->lnkcap_raw = (uint32_t)l->speed | (uint32_t)l->width << 4;
	} else {
		e->sta_source = P2PS_LINK_CONFIG;
		e->lnksta_raw = (uint16_t)(l->speed | l->width << 4);
		pd->link_down_seen |= w == 0;
	}
	e->present = true;
	mark(c, pd, P2PS_PD_LINK, line);
	return true;
}

/* "ACSCap: SrcValid+ TransBlk+ ReqRedir+ ..." -> the register's bits. */
static bool acs(struct pctx *c, struct p2ps_paste_dev *pd, const char *t, int line)
{
	bool cap = pt_starts(t, "ACSCap:");
	if (!cap && !pt_starts(t, "ACSCtl:"))
		return false;
	static const char *const names[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
	                                    "UpstreamFwd", "EgressCtrl", "DirectTrans"};
	uint16_t v = 0;
	for (int i = 0; i < 7; i++) {
		const char *p = strstr(t, names[i]);
		if (p && p[strlen(names[i])] == '+')
			v |= (uint16_t)(1u << i);
	}
	if (cap)
		pd->d.acs.cap = v;
	else
		pd->d.acs.ctl = v;
	pd->d.acs.present = true;
	mark(c, pd, P2PS_PD_ACS, line);
	return true;
}

/* log2 of a size in MiB ("256MB" -> 8), -1 if not a power of two of at least 1 MiB. */
static int size_log2_mib(const char *s, const char **end)
{
	uint64_t bytes;
	if (!pt_size(s, &bytes, end) || bytes < (1u << 20) || (bytes & (bytes - 1)))
		return -1;
	int n = 0;
	for (uint64_t m = bytes >> 20; m > 1; m >>= 1)
		n++;
	return n;
}

/* "BAR 1: current size: 256MB, supported: 64MB 128MB 256MB". */
static bool rebar_entry(struct pctx *c, struct p2ps_paste_dev *pd, const char *t, int line, int ctx)
{
	long bar;
	const char *p;
	if (!pt_starts(t, "BAR ") || !pt_dec(t + 4, &bar, &p) || !pt_starts(p, ": current size: "))
		return false;
	if (ctx == 'V' || bar >= P2PS_HOST_MAX_BARS)
		return true; /* the VF variant, or nonsense */
	struct p2ps_rebar *r = &pd->d.rebar;
	int k = 0;
	while (k < r->count && r->e[k].bar != bar)
		k++;
	if (k == r->count) {
		if (r->count == P2PS_HOST_MAX_REBAR)
			return true;
		r->count++;
	}
	struct p2ps_rebar_entry *en = &r->e[k];
	memset(en, 0, sizeof(*en));
	en->bar = (uint8_t)bar;
	int cur = size_log2_mib(p + 16, &p);
	en->current = cur >= 0 ? (uint8_t)cur : 0;
	en->sizes = cur >= 0 ? 1ull << cur : 0;
	const char *sup = strstr(p, "supported:");
	for (p = sup ? sup + 10 : ""; *(p = pt_skip_ws(p));) {
		int n = size_log2_mib(p, &p);
		if (n < 0)
			break;
		en->sizes |= 1ull << n;
	}
	if (!sup)
		en->sizes = 0; /* only the current size was pasted */
	r->present = true;
	mark(c, pd, P2PS_PD_REBAR, line);
	return true;
}

/* NUMA node, IOMMU group, driver and lspci -v's "Flags:" line. */
static bool misc(struct pctx *c, struct p2ps_paste_dev *pd, const char *t, int line)
{
	long v;
	const char *p;
	if ((pt_starts(t, "NUMA node: ") && pt_dec(t + 11, &v, NULL)) ||
	    (pt_starts(t, "Flags: ") && (p = strstr(t, "NUMA node ")) &&
	     pt_dec(p + 10, &v, NULL))) {
		pd->d.numa_node = (int)v;
		mark(c, pd, P2PS_PD_NUMA, line);
	} else if (pt_starts(t, "IOMMU group: ") && pt_dec(t + 13, &v, NULL)) {
		pd->d.iommu_group = (int)v;
		mark(c, pd, P2PS_PD_IOMMU_GROUP, line);
	} else if (pt_starts(t, "Kernel driver in use: ")) {
		snprintf(pd->d.driver, sizeof(pd->d.driver), "%s", t + 22);
		pd->driver_line = true;
		mark(c, pd, P2PS_PD_DRIVER, line);
	} else if (pt_starts(t, "Kernel modules: ")) {
		pd->complete = true;
	} else if (!pt_starts(t, "Flags: ")) {
		return false;
	}
	if (pt_starts(t, "Flags: ") && pd->verbosity < 1)
		pd->verbosity = 1;
	return true;
}

bool pt_lspci_detail(struct pctx *c, struct p2ps_paste_dev *pd, const struct pl_line *l, int *ctx)
{
	const char *t = pt_skip_ws(l->s);
	pd->in_text = true;
	if (pd->verbosity < 1)
		pd->verbosity = 1;
	if (pt_starts(t, "Capabilities: "))
		return capability(c, pd, t, l->no, ctx);
	if (pt_starts(t, "Express ")) /* IOMMU listings print it without the header */
		return express(c, pd, t, 0, l->no);
	return region(c, pd, t, l->no) || bridge_line(c, pd, t, l->no) || link(c, pd, t, l->no) ||
	       acs(c, pd, t, l->no) || rebar_entry(c, pd, t, l->no, *ctx) ||
	       misc(c, pd, t, l->no) || pt_starts(t, "Expansion ROM at ");
}
