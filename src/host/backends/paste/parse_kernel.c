/* SPDX-License-Identifier: MIT */
/* Kernel log lines (dmesg, journalctl -k, /var/log/syslog): the NVIDIA driver's (NVRM)
 * load line, static BAR1 and BAR1-P2P messages, assertion failures and Xid MMU faults;
 * IOMMU units, default domain and DMA faults (AMD-Vi, DMAR); the PCI core's enumeration
 * (ids, class, BARs, bridge windows, unassignable BARs); the command line and the
 * hypervisor. Each message is read from its tag on, whatever prefix the log format put
 * before it; a long line the mail client wrapped is joined back. */
#include <limits.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"
#include "paste_kernel.h"
#include "p2pscope/parse.h"

/* The message after the "host kernel:" prefix and the timestamp: /var/log/kern.log has
 * both ("Mar  1 10:00:00 host kernel: [   12.345678] NVRM: ..."). */
static const char *message(const char *s)
{
	const char *k = s[0] == '[' ? NULL : strstr(s, " kernel: ");
	if (k && k - s < 80)
		s = pt_skip_ws(k + 9);
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		if (e)
			return pt_skip_ws(e + 1);
	}
	return s;
}

/* "pci 0000:01:00.0: rest" or "nvidia 0000:07:00.0: rest": device and driver. */
static const char *device_prefix(const char *m, struct p2ps_bdf *b, char *drv, size_t size)
{
	size_t n = strcspn(m, " ");
	if (!n || n >= size || m[n] != ' ')
		return NULL;
	const char *e;
	if (!pt_bdf(m + n + 1, b, NULL, &e) || e[0] != ':' || e[1] != ' ')
		return NULL;
	memcpy(drv, m, n);
	drv[n] = '\0';
	return e + 2;
}

static void nvrm_load(struct pctx *c, const char *m, int line)
{
	const char *p = strstr(m, "Kernel Module");
	if (!p)
		return;
	p += 13;
	if (pt_starts(p, " for "))
		p = strchr(p + 5, ' ') ? strchr(p + 5, ' ') : p;
	p = pt_skip_ws(p);
	struct p2ps_paste_host *h = &c->p->host;
	size_t n = strcspn(p, " ");
	if (!n || n >= sizeof(h->driver_version))
		return;
	struct p2ps_paste_event *ev = pt_event(c, P2PS_PE_DRIVER_LOAD, line);
	memcpy(h->driver_version, p, n);
	h->driver_version[n] = '\0';
	h->driver_from = pt_where(c, line);
	pt_release(c, P2PS_SW_DRIVER, h->driver_version, line);
	h->driver_open = strstr(m, "Open Kernel Module") != NULL;
	if (ev)
		snprintf(ev->detail, sizeof(ev->detail), "%s", h->driver_version);
}

/* "<first>0xA... <second>0xB" in m: A and B. */
/* "GPU<a><sep><b>" after the message's "GPU": the two NVRM instance numbers, each set
 * only where it is there. */
static void two_gpus(const char *p, const char *sep, struct p2ps_paste_event *ev)
{
	long a, b;
	const char *e;
	if (!pt_dec(p, &a, &e) || a > INT_MAX)
		return;
	ev->gpu_a = (int)a;
	if (pt_starts(e, sep) && pt_dec(e + strlen(sep), &b, NULL) && b <= INT_MAX)
		ev->gpu_b = (int)b;
}

static bool two_hex(const char *m, const char *first, const char *second, uint64_t *a, uint64_t *b)
{
	const char *p = strstr(m, first);
	return p && pt_hex(p + strlen(first), a, &p) && (p = strstr(p, second)) &&
	       pt_hex(p + strlen(second), b, NULL);
}

/* An event of kind k carrying the numbers a and b. */
static struct p2ps_paste_event *hex_event(struct pctx *c, enum p2ps_paste_event_kind k, int line,
                                          uint64_t a, uint64_t b)
{
	struct p2ps_paste_event *ev = pt_event(c, k, line);
	if (ev)
		ev->a = a, ev->b = b;
	return ev;
}

/* NVRM messages about BAR1 and P2P. */
static bool nvrm(struct pctx *c, const char *m, int line)
{
	if (!pt_starts(m, "NVRM: "))
		return false;
	const char *p;
	uint64_t a, b;
	struct p2ps_paste_event *ev = NULL;
	if (strstr(m, "loading NVIDIA UNIX")) {
		nvrm_load(c, m, line);
	} else if (two_hex(m, "Static bar1 mapped offset ", "size ", &a, &b)) {
		ev = hex_event(c, P2PS_PE_STATIC_BAR1, line, a, b);
	} else if ((p = strstr(m, "added PCIe BAR1 P2P mapping between GPU"))) {
		if ((ev = pt_event(c, P2PS_PE_BAR1_P2P_MAPPING, line)))
			two_gpus(p + strlen("added PCIe BAR1 P2P mapping between GPU"), " and GPU",
			         ev);
	} else if (two_hex(m, "peer DMA address ", "aligned at ", &a, &b)) {
		ev = hex_event(c, P2PS_PE_PEER_DMA_UNALIGNED, line, a, b);
	} else if ((p = strstr(m, "IOMMU mapping failed from GPU"))) {
		if ((ev = pt_event(c, P2PS_PE_IOMMU_MAP_FAILED, line)))
			two_gpus(p + strlen("IOMMU mapping failed from GPU"), " to GPU", ev);
	} else if (strstr(m, "nvAssertFailed") || strstr(m, "Assertion failed")) {
		ev = pt_event(c, P2PS_PE_ASSERT, line);
	} else if (pt_starts(m, "NVRM: Xid ")) {
		pt_kernel_xid(c, m, line);
	} else if ((p = strstr(m, "GPU at PCI:"))) {
		pt_kernel_gpu_at(c, p + 11, line);
	} else if ((p = strstr(m, "BAR1 is ")) && strstr(p, "0M")) {
		ev = pt_event(c, P2PS_PE_BAR1_INVALID, line);
		const char *q = strstr(p, "PCI:");
		if (ev && q && pt_bdf(q + 4, &ev->bdf, NULL, NULL))
			ev->bdf_known = true;
	}
	if (ev)
		snprintf(ev->text, sizeof(ev->text), "%s", m);
	return true;
}

/* IOMMU units, their mode and their faults. */
static bool iommu(struct pctx *c, const char *m, const char *dev_rest, const struct p2ps_bdf *devb,
                  int line)
{
	const char *t = dev_rest ? dev_rest : m;
	bool amd = pt_starts(t, "AMD-Vi:"),
	     intel = pt_starts(t, "DMAR:") || pt_starts(t, "DMAR-IR:");
	struct p2ps_paste_host *h = &c->p->host;
	if (pt_starts(m, "iommu: Default domain type: ")) {
		struct p2ps_paste_event *ev = pt_event(c, P2PS_PE_DEFAULT_DOMAIN, line);
		snprintf(h->default_domain, sizeof(h->default_domain), "%s",
		         pt_starts(m + 28, "Passthrough") ? "identity" : "DMA");
		if (ev)
			snprintf(ev->detail, sizeof(ev->detail), "%s", h->default_domain);
		return true;
	}
	if (!amd && !intel)
		return false;
	if (strstr(t, "IO_PAGE_FAULT") || strstr(t, "fault addr") || strstr(t, "DMA Write") ||
	    strstr(t, "DMA Read")) {
		pt_kernel_iommu_fault(c, t, devb, amd, line);
	} else if (strstr(t, "IOMMU disabled") || strstr(t, "disabled by BIOS")) {
		h->iommu_known = true;
		h->iommu_present = false;
		h->iommu_from = pt_where(c, line);
		return true;
	}
	if (!h->iommu_known) {
		struct p2ps_paste_event *ev = pt_event(c, P2PS_PE_IOMMU_ON, line);
		h->iommu_known = h->iommu_present = true;
		snprintf(h->iommu_kind, sizeof(h->iommu_kind), "%s", amd ? "amd" : "intel");
		if (!h->iommu_from.line)
			h->iommu_from = pt_where(c, line);
		if (ev)
			snprintf(ev->detail, sizeof(ev->detail), "%s", h->iommu_kind);
	}
	return true;
}

static void one(struct pctx *c, const char *s, int line)
{
	const char *m = message(s);
	struct p2ps_bdf b;
	char drv[32];
	const char *rest = device_prefix(m, &b, drv, sizeof(drv));
	/* "nvidia 0000:07:00.0: ...": whatever follows, that driver has the device. */
	if (rest && (!strcmp(drv, "nvidia") || !strcmp(drv, "vfio-pci") || !strcmp(drv, "nouveau")))
		pt_kernel_driver(c, &b, drv, line);
	if (nvrm(c, m, line) || iommu(c, m, rest, rest ? &b : NULL, line))
		return;
	if (rest && !strcmp(drv, "pci")) {
		pt_kernel_pci(c, &b, rest, line);
	} else if (pt_starts(m, "Kernel command line: ") || pt_starts(m, "Command line: ")) {
		pt_kernel_cmdline(c, strchr(m, ':') + 2, line);
	} else if (pt_starts(m, "Hypervisor detected: ")) {
		struct p2ps_paste_event *ev = pt_event(c, P2PS_PE_HYPERVISOR, line);
		c->p->host.vm = true;
		snprintf(c->p->host.hypervisor, sizeof(c->p->host.hypervisor), "%s", m + 21);
		snprintf(c->p->host.vm_from, sizeof(c->p->host.vm_from), "kernel log");
		if (ev)
			snprintf(ev->detail, sizeof(ev->detail), "%s", m + 21);
	}
}

void pt_parse_kernel(struct pctx *c, const struct pl_span *sp)
{
	struct pl_iter it;
	struct pl_line l;
	char joined[1024];
	int joined_line = 0;
	int before = 0;
	for (int k = 0; k < P2PS_PE_COUNT; k++)
		before += c->p->event_count[k];
	joined[0] = '\0';
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom) {
		/* A wrapped line goes on without a timestamp or tag of its own. */
		bool cont = joined[0] && pt_classify(l.s, PT_KERNEL) != PT_KERNEL;
		if (cont) {
			size_t n = strlen(joined);
			snprintf(joined + n, sizeof(joined) - n, "%s%s", l.s[0] == ' ' ? "" : " ",
			         l.s);
			continue;
		}
		if (joined[0])
			one(c, joined, joined_line);
		snprintf(joined, sizeof(joined), "%s", l.s);
		joined_line = l.no;
	}
	if (joined[0])
		one(c, joined, joined_line);
	int after = 0;
	for (int k = 0; k < P2PS_PE_COUNT; k++)
		after += c->p->event_count[k];
	pt_summary(c, "%d kernel line%s, %d of them about the driver, the IOMMU or P2P",
	           sp->last - sp->first + 1, sp->last == sp->first ? "" : "s", after - before);
}
