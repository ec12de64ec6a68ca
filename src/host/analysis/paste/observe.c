/* SPDX-License-Identifier: MIT */
/* Paste findings: the entry point, the bookkeeping every finding shares, and what the
 * kernel log says (the NVIDIA driver's BAR1-P2P messages, faults, BARs the kernel could
 * not place). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"

struct p2ps_reason *po_add(struct octx *c, enum p2ps_reason_code code, enum p2ps_severity sev,
                           struct p2ps_paste_where from, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct p2ps_reason *f = p2ps_reasons_addv(&c->r->findings, code, sev, -1, fmt, ap);
	va_end(ap);
	if (!f) {
		c->oom = true;
		return NULL;
	}
	f->from = from;
	return f;
}

void po_ask(struct octx *c, const char *command, const char *fmt, ...)
{
	struct p2ps_paste_report *r = c->r;
	for (size_t i = 0; i < r->n_asks; i++)
		if (!strcmp(r->asks[i].command, command))
			return;
	if (r->n_asks == P2PS_PASTE_MAX_ASKS)
		return;
	struct p2ps_paste_ask *a = &r->asks[r->n_asks++];
	snprintf(a->command, sizeof(a->command), "%s", command);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->what, sizeof(a->what), fmt, ap);
	va_end(ap);
}

const char *po_gpu_label(const struct octx *c, const struct p2ps_bdf *b, char *buf, size_t size)
{
	const struct p2ps_dev *d = p2ps_host_find(c->h, b);
	int gi = d ? p2ps_analysis_gpu_of_dev(c->a, (int)(d - c->h->devs)) : -1;
	char addr[20];
	p2ps_bdf_format(b, addr, sizeof(addr));
	if (gi >= 0)
		snprintf(buf, size, "GPU%d %s", gi, addr);
	else
		snprintf(buf, size, "%s", addr);
	return buf;
}

/* First stored event of a kind, or NULL. */
static const struct p2ps_paste_event *first(const struct p2ps_paste *p,
                                            enum p2ps_paste_event_kind k)
{
	for (size_t i = 0; i < p->n_events; i++)
		if (p->events[i].kind == k)
			return &p->events[i];
	return NULL;
}

static void driver_findings(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	const struct p2ps_paste_host *h = &p->host;
	if (h->driver_version[0])
		po_add(c, P2PS_PF_DRIVER, P2PS_SEV_INFO, h->driver_from, "NVIDIA driver %s%s%s",
		       h->driver_version,
		       h->driver_open == 1   ? " (open kernel modules)"
		       : h->driver_open == 0 ? " (proprietary kernel module: the BAR1-P2P patches "
		                               "modify the open one)"
		                             : "",
		       strstr(h->driver_version, "p2p") ? "; the version names a P2P-patched build"
		                                        : "");
	const struct p2ps_paste_event *st = first(p, P2PS_PE_STATIC_BAR1);
	const struct p2ps_paste_event *mp = first(p, P2PS_PE_BAR1_P2P_MAPPING);
	char s[32];
	if (st || mp)
		po_add(c, P2PS_PF_BAR1_P2P_PATH, P2PS_SEV_INFO, (st ? st : mp)->from,
		       "the driver takes the BAR1-P2P path: %s%s%s%s",
		       st ? "static BAR1 mapping of " : "",
		       st ? p2ps_size_format(st->b, s, sizeof(s)) : "",
		       st && mp ? " logged, and " : (st ? " logged" : ""),
		       mp ? "BAR1 P2P mappings added between GPUs (NVRM's instance numbers)" : "");
	const struct p2ps_paste_event *un = first(p, P2PS_PE_PEER_DMA_UNALIGNED);
	if (un) {
		const struct p2ps_paste_event *mf = first(p, P2PS_PE_IOMMU_MAP_FAILED);
		struct p2ps_reason *f =
		        po_add(c, P2PS_PF_PEER_DMA_UNALIGNED, P2PS_SEV_BLOCKER, un->from,
		               "the driver refused the static BAR1 peer mapping: peer DMA address "
		               "0x%llx is not "
		               "aligned to 0x%llx (%s)%s; the peer's BAR1 base plus the driver's "
		               "reserved offset "
		               "misses the alignment its check demands",
		               (unsigned long long)un->a, (unsigned long long)un->b,
		               p2ps_size_format(un->b, s, sizeof(s)),
		               mf ? ", then \"IOMMU mapping failed\" (NVRM's name for the peer "
		                    "mapping; it fails "
		                    "with the IOMMU off too)"
		                  : "");
		p2ps_an_fix(
		        f, "a driver change, not a BIOS, IOMMU or ACS setting: relax the alignment "
		           "check of "
		           "the static BAR1 peer mapping (_kbusCreateStaticBar1IOMMUMapping; "
		           "tinygrad/open-gpu-kernel-modules PR #48 turns it into a warning)");
	}
	const struct p2ps_paste_event *as = first(p, P2PS_PE_ASSERT);
	if (as)
		po_add(c, P2PS_PF_DRIVER_ASSERT, P2PS_SEV_WARNING, as->from,
		       "%d driver assertion%s failed, first: %s%s", p->event_count[P2PS_PE_ASSERT],
		       p->event_count[P2PS_PE_ASSERT] == 1 ? "" : "s", as->text,
		       strstr(as->text, "pField")
		               ? " (a value too wide for its page-table field: a release build "
		                 "writes "
		                 "it anyway and the high bits spill into the neighbouring fields)"
		               : "");
}

/* IOMMU faults, grouped per device. */
static void iommu_faults(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	for (size_t i = 0; i < p->n_devs; i++) {
		const struct p2ps_paste_dev *pd = &p->devs[i];
		if (!pd->iommu_faults)
			continue;
		const struct p2ps_paste_event *ev = NULL;
		for (size_t k = 0; k < p->n_events && !ev; k++)
			if (p->events[k].kind == P2PS_PE_IOMMU_FAULT && p->events[k].bdf_known &&
			    p2ps_bdf_equal(&p->events[k].bdf, &pd->d.bdf))
				ev = &p->events[k];
		char lbl[48];
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_IOMMU_FAULT, P2PS_SEV_BLOCKER,
		        ev ? ev->from : (struct p2ps_paste_where){-1, 0},
		        "the %s IOMMU faulted %d DMA access%s of %s (first at 0x%llx): it "
		        "translates "
		        "this device's DMA, so peer writes to another GPU's BAR are not mapped",
		        ev && !strcmp(ev->detail, "amd") ? "AMD" : "Intel", pd->iommu_faults,
		        pd->iommu_faults == 1 ? "" : "es",
		        po_gpu_label(c, &pd->d.bdf, lbl, sizeof(lbl)),
		        ev ? (unsigned long long)ev->a : 0ull);
		p2ps_an_fix(f, "%s", p2ps_an_iommu_fix(ev ? ev->detail : ""));
	}
}

static void kernel_bars(struct octx *c)
{
	for (size_t i = 0; i < c->p->n_events; i++) {
		const struct p2ps_paste_event *ev = &c->p->events[i];
		if (ev->kind != P2PS_PE_BAR1_INVALID)
			continue;
		struct p2ps_reason *f =
		        po_add(c, P2PS_PF_BAR_UNASSIGNABLE, P2PS_SEV_BLOCKER, ev->from,
		               "no address space for a GPU BAR: %s", ev->text);
		p2ps_an_fix(f, "enable 'Above 4G Decoding' (and 'Resizable BAR') in the firmware "
		               "setup; if "
		               "it is on, boot with pci=realloc");
	}
}

void po_kernel(struct octx *c)
{
	driver_findings(c);
	for (size_t i = 0; i < c->p->n_events; i++)
		if (c->p->events[i].kind == P2PS_PE_XID)
			po_gmmu_fault(c, &c->p->events[i]);
	iommu_faults(c);
	kernel_bars(c);
}

int p2ps_paste_observe(const struct p2ps_analysis *a, struct p2ps_paste_report *out,
                       struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!a || !a->host || !a->host->paste)
		return p2ps_error_set(err, P2PS_EINVAL, "paste findings: the host is not a paste");
	struct octx c = {.a = a, .h = a->host, .p = a->host->paste, .r = out};
	po_kernel(&c);
	po_devices(&c);
	po_nvidia_smi(&c);
	po_cuda(&c);
	po_symptoms(&c);
	if (po_pairs(&c) < 0)
		c.oom = true;
	po_verdict(&c);
	if (c.oom) {
		p2ps_paste_report_free(out);
		return p2ps_error_set(err, P2PS_ENOMEM, "paste findings: out of memory");
	}
	return 0;
}

void p2ps_paste_report_free(struct p2ps_paste_report *r)
{
	if (!r)
		return;
	p2ps_an_reasons_free(&r->findings);
	free(r->pairs);
	memset(r, 0, sizeof(*r));
}
