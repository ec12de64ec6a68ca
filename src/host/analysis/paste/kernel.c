/* SPDX-License-Identifier: MIT */
/* What the kernel log says: the NVIDIA driver's version and BAR1-P2P messages, its
 * refused peer mappings and assertions, Xid faults (gmmu.c decodes Xid 31), IOMMU
 * faults, BARs the kernel could not place. */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"

static void driver_findings(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	const struct p2ps_paste_host *h = &ev->host;
	if (h->driver_version[0])
		po_add(c, P2PS_PF_DRIVER, P2PS_SEV_INFO, h->driver_from, "NVIDIA driver %s%s%s",
		       h->driver_version,
		       h->driver_open == 1   ? " (open kernel modules)"
		       : h->driver_open == 0 ? " (proprietary kernel module: the BAR1-P2P patches "
		                               "modify the open one)"
		                             : "",
		       strstr(h->driver_version, "p2p") ? "; the version names a P2P-patched build"
		                                        : "");
	const struct p2ps_paste_event *st = po_first_event(c, P2PS_PE_STATIC_BAR1);
	const struct p2ps_paste_event *mp = po_first_event(c, P2PS_PE_BAR1_P2P_MAPPING);
	char s[32];
	if (st || mp)
		po_add(c, P2PS_PF_BAR1_P2P_PATH, P2PS_SEV_INFO, (st ? st : mp)->from,
		       "the driver takes the BAR1-P2P path: %s%s%s%s",
		       st ? "static BAR1 mapping of " : "",
		       st ? p2ps_size_format(st->b, s, sizeof(s)) : "",
		       st && mp ? " logged, and " : (st ? " logged" : ""),
		       mp ? "BAR1 P2P mappings added between GPUs (NVRM's instance numbers)" : "");
	const struct p2ps_paste_event *un = po_first_event(c, P2PS_PE_PEER_DMA_UNALIGNED);
	if (un) {
		const struct p2ps_paste_event *mf = po_first_event(c, P2PS_PE_IOMMU_MAP_FAILED);
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
	const struct p2ps_paste_event *as = po_first_event(c, P2PS_PE_ASSERT);
	if (as)
		po_add(c, P2PS_PF_DRIVER_ASSERT, P2PS_SEV_WARNING, as->from,
		       "%d driver assertion%s failed, first: %s%s", ev->event_count[P2PS_PE_ASSERT],
		       ev->event_count[P2PS_PE_ASSERT] == 1 ? "" : "s", as->text,
		       strstr(as->text, "pField")
		               ? " (a value too wide for its page-table field: a release build "
		                 "writes "
		                 "it anyway and the high bits spill into the neighbouring fields)"
		               : "");
}

/* IOMMU faults, grouped per device. */
static void iommu_faults(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	for (size_t i = 0; i < ev->n_devs; i++) {
		const struct p2ps_paste_dev_facts *pd = &ev->devs[i];
		if (!pd->iommu_faults)
			continue;
		const struct p2ps_paste_event *e = NULL;
		for (size_t k = 0; k < ev->n_events && !e; k++)
			if (ev->events[k].kind == P2PS_PE_IOMMU_FAULT && ev->events[k].bdf_known &&
			    p2ps_bdf_equal(&ev->events[k].bdf, &pd->bdf))
				e = &ev->events[k];
		char lbl[48];
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_IOMMU_FAULT, P2PS_SEV_BLOCKER,
		        e ? e->from : (struct p2ps_paste_where){-1, 0},
		        "the %s IOMMU faulted %d DMA access%s of %s (first at 0x%llx): it "
		        "translates "
		        "this device's DMA, so peer writes to another GPU's BAR are not mapped",
		        e && !strcmp(e->detail, "amd") ? "AMD" : "Intel", pd->iommu_faults,
		        pd->iommu_faults == 1 ? "" : "es",
		        po_gpu_label(c, &pd->bdf, lbl, sizeof(lbl)),
		        e ? (unsigned long long)e->a : 0ull);
		p2ps_an_fix(f, "%s", p2ps_an_iommu_fix(e ? e->detail : ""));
	}
}

static void kernel_bars(struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_events; i++) {
		const struct p2ps_paste_event *e = &c->ev->events[i];
		if (e->kind != P2PS_PE_BAR1_INVALID)
			continue;
		struct p2ps_reason *f =
		        po_add(c, P2PS_PF_BAR_UNASSIGNABLE, P2PS_SEV_BLOCKER, e->from,
		               "no address space for a GPU BAR: %s", e->text);
		p2ps_an_fix(f, "enable 'Above 4G Decoding' (and 'Resizable BAR') in the firmware "
		               "setup; if "
		               "it is on, boot with pci=realloc");
	}
}

void po_kernel(struct octx *c)
{
	driver_findings(c);
	for (size_t i = 0; i < c->ev->n_events; i++)
		if (c->ev->events[i].kind == P2PS_PE_XID)
			po_gmmu_fault(c, &c->ev->events[i]);
	iommu_faults(c);
	kernel_bars(c);
}
