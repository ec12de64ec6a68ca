/* SPDX-License-Identifier: MIT */
/* Kernel-log messages that name one device: NVRM's Xid and "GPU at" lines, IOMMU faults,
 * the PCI core's enumeration ("pci 0000:01:00.0: [10de:2684] type 00 class 0x030000",
 * "BAR 1 [mem ... 64bit pref]", "PCI bridge to [bus 01-02]", "BAR 1: no space for ...")
 * and a driver's own prefix ("nvidia 0000:07:00.0: ..."). */
#include <stdio.h>
#include <string.h>

#include "paste_kernel.h"

/* "0000:01:00" (NVRM prints domain:bus:device without the function). */
static bool nvrm_bdf(const char *p, struct p2ps_bdf *b)
{
	uint64_t d, bus, dev;
	const char *e;
	if (!pt_hex(p, &d, &e) || *e != ':' || !pt_hex(e + 1, &bus, &e) || *e != ':' ||
	    !pt_hex(e + 1, &dev, &e) || bus > 0xff || dev > 0x1f)
		return false;
	*b = (struct p2ps_bdf){(uint32_t)d, (uint8_t)bus, (uint8_t)dev, 0};
	return true;
}

/* The device is an NVIDIA GPU by the driver's own word. */
static void gpu_by_log(struct pctx *c, const struct p2ps_bdf *b, int line)
{
	struct p2ps_paste_dev *pd = pt_dev(c, b);
	if (pd && !pd->vendor_known) {
		pd->d.vendor_id = 0x10de;
		pd->vendor_known = true;
		pd->from[P2PS_PD_IDENT] = pt_where(c, line);
	}
	if (pd)
		pd->gpu_named = true;
	pt_gpu_bdf(c, b);
}

void pt_kernel_xid(struct pctx *c, const char *m, int line)
{
	struct p2ps_paste_event *ev = pt_event(c, P2PS_PE_XID, line);
	const char *p = strstr(m, "PCI:");
	struct p2ps_bdf b;
	bool have = p && nvrm_bdf(p + 4, &b);
	if (have)
		gpu_by_log(c, &b, line);
	if (!ev)
		return;
	snprintf(ev->text, sizeof(ev->text), "%s", m);
	ev->bdf_known = have;
	if (have)
		ev->bdf = b;
	long xid;
	if ((p = strstr(m, "): ")) && pt_dec(p + 3, &xid, NULL))
		ev->a = (uint64_t)xid;
	if ((p = strstr(m, "faulted @ ")))
		pt_hex(p + 10, &ev->b, NULL);
	if ((p = strstr(m, "of type "))) {
		p += 8;
		if (pt_starts(p, "FAULT_INFO_TYPE_"))
			p += 16;
		else if (pt_starts(p, "FAULT_"))
			p += 6;
		size_t n = strcspn(p, " .,");
		const char *acc = strstr(p, "ACCESS_TYPE_");
		snprintf(ev->detail, sizeof(ev->detail), "%.*s%s%.24s", (int)n, p, acc ? " " : "",
		         acc ? acc + 12 : "");
	}
}

void pt_kernel_gpu_at(struct pctx *c, const char *p, int line)
{
	struct p2ps_bdf b;
	if (nvrm_bdf(p, &b))
		gpu_by_log(c, &b, line);
}

void pt_kernel_iommu_fault(struct pctx *c, const char *t, const struct p2ps_bdf *devb, bool amd,
                           int line)
{
	struct p2ps_paste_event *ev = pt_event(c, P2PS_PE_IOMMU_FAULT, line);
	struct p2ps_bdf b;
	bool have = devb != NULL;
	if (devb)
		b = *devb;
	const char *p = strstr(t, "device=");
	if (!have && p)
		have = pt_bdf(p + 7, &b, NULL, NULL);
	if (!have && (p = strstr(t, "Request device [")))
		have = pt_bdf(p + 16, &b, NULL, NULL);
	if (have) {
		struct p2ps_paste_dev *pd = pt_dev(c, &b);
		if (pd)
			pd->iommu_faults++;
	}
	if (!ev)
		return;
	snprintf(ev->text, sizeof(ev->text), "%s", t);
	snprintf(ev->detail, sizeof(ev->detail), "%s", amd ? "amd" : "intel");
	ev->bdf_known = have;
	if (have)
		ev->bdf = b;
	if ((p = strstr(t, "address=")) || (p = strstr(t, "fault addr ")))
		pt_hex(p + (p[5] == 's' ? 8 : 11), &ev->a, NULL);
}

/* "[mem 0x100000000000-0x101fffffffff 64bit pref]" into BAR idx of pd. */
static void kernel_bar(struct pctx *c, struct p2ps_paste_dev *pd, long idx, const char *p, int line)
{
	uint64_t lo, hi;
	const char *e;
	bool io = pt_starts(p, "[io ");
	if (idx < 0 || idx >= P2PS_HOST_MAX_BARS || (!io && !pt_starts(p, "[mem ")))
		return;
	p = pt_skip_ws(p + (io ? 4 : 5));
	if (!pt_hex(p, &lo, &e) || *e != '-' || !pt_hex(e + 1, &hi, &e) || hi < lo)
		return;
	struct p2ps_bar *b = &pd->d.bars[idx];
	b->present = true;
	b->index = (uint8_t)idx;
	b->io = io;
	b->address = lo;
	b->unassigned = false;
	b->size = hi - lo + 1;
	b->size_known = true;
	b->is_64bit = strstr(e, "64bit") != NULL;
	b->prefetchable = strstr(e, "pref") != NULL;
	pd->from[P2PS_PD_BARS] = pt_where(c, line);
}

/* "BAR 1: no space for [mem size 0x800000000 64bit pref]", "BAR 1 [mem size ...]: can't
 * assign; no space", "BAR 1: failed to assign ...". */
static bool bar_unassignable(struct pctx *c, struct p2ps_paste_dev *pd, long idx, const char *rest,
                             int line)
{
	if (!strstr(rest, "no space") && !strstr(rest, "failed to assign") &&
	    !strstr(rest, "can't assign"))
		return false;
	struct p2ps_paste_event *ev = pt_event(c, P2PS_PE_BAR1_INVALID, line);
	if (ev) {
		ev->bdf = pd->d.bdf;
		ev->bdf_known = true;
		ev->a = (uint64_t)idx;
		const char *sz = strstr(rest, "size ");
		if (sz)
			pt_hex(sz + 5, &ev->b, NULL);
		snprintf(ev->text, sizeof(ev->text), "pci %s: %s", pd->d.bdf_str, rest);
	}
	return true;
}

static void enumeration(struct pctx *c, struct p2ps_paste_dev *pd, const char *rest, int line)
{
	uint64_t ven, dev, cls, type;
	const char *e, *p;
	if (rest[0] == '[' && pt_hex(rest + 1, &ven, &e) && *e == ':' && pt_hex(e + 1, &dev, &e) &&
	    *e == ']' && (p = strstr(e, "type ")) && pt_hex(p + 5, &type, NULL) &&
	    (p = strstr(e, "class 0x")) && pt_hex(p + 8, &cls, NULL)) {
		pd->d.vendor_id = (uint16_t)ven;
		pd->d.device_id = (uint16_t)dev;
		pd->d.class_code = (uint32_t)cls & 0xffffff;
		pd->d.header_type = (uint8_t)(type & 0x7f);
		pd->ids_known = pd->vendor_known = pd->class_known = true;
		pd->from[P2PS_PD_IDENT] = pd->from[P2PS_PD_CLASS] = pt_where(c, line);
	} else if ((p = strstr(rest, "PCI bridge to [bus ")) && pt_hex(p + 19, &ven, &e)) {
		pd->d.bridge.is_bridge = true;
		pd->d.header_type = 1;
		pd->d.bridge.secondary = (uint8_t)ven;
		pd->d.bridge.subordinate = (uint8_t)ven;
		if (*e == '-' && pt_hex(e + 1, &dev, NULL))
			pd->d.bridge.subordinate = (uint8_t)dev;
		pd->from[P2PS_PD_BRIDGE] = pt_where(c, line);
	} else if ((p = strstr(rest, "bridge window [mem ")) && pt_hex(p + 19, &ven, &e) &&
	           *e == '-' && pt_hex(e + 1, &dev, &e) && dev >= ven) {
		struct p2ps_window *w = strstr(e, "pref") ? &pd->d.bridge.pref : &pd->d.bridge.mem;
		*w = (struct p2ps_window){true, ven, dev, strstr(e, "64bit") != NULL};
		pd->windows_seen = true;
		pd->from[P2PS_PD_BRIDGE] = pt_where(c, line);
	}
}

void pt_kernel_pci(struct pctx *c, const struct p2ps_bdf *b, const char *rest, int line)
{
	struct p2ps_paste_dev *pd = pt_dev(c, b);
	if (!pd)
		return;
	long idx = -1;
	uint64_t reg;
	const char *p = rest;
	if (pt_starts(rest, "BAR ") && pt_dec(rest + 4, &idx, &p)) {
		if (bar_unassignable(c, pd, idx, rest, line))
			return;
		p = strchr(p, '[');
		if (p)
			kernel_bar(c, pd, idx, p, line);
		return;
	}
	if (pt_starts(rest, "reg 0x") && pt_hex(rest + 4, &reg, &p) && reg >= 0x10 && reg <= 0x24) {
		p = strchr(p, '[');
		if (p)
			kernel_bar(c, pd, (long)(reg - 0x10) / 4, p, line);
		return;
	}
	enumeration(c, pd, rest, line);
}

void pt_kernel_driver(struct pctx *c, const struct p2ps_bdf *b, const char *drv, int line)
{
	struct p2ps_paste_dev *pd = pt_dev(c, b);
	if (!pd)
		return;
	snprintf(pd->d.driver, sizeof(pd->d.driver), "%s", drv);
	pd->from[P2PS_PD_DRIVER] = pt_where(c, line);
	if (!strcmp(drv, "nvidia"))
		gpu_by_log(c, b, line);
}

void pt_kernel_cmdline(struct pctx *c, const char *s, int line)
{
	struct p2ps_paste_host *h = &c->p->host;
	if (h->cmdline_known)
		return;
	h->cmdline_known = true;
	snprintf(h->cmdline, sizeof(h->cmdline), "%s", s);
	h->cmdline_from = pt_where(c, line);
}
