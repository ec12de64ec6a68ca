/* SPDX-License-Identifier: MIT */
/* --peer: the second GPU, the P2P object between the two (this changes the driver's peer
 * state for as long as the run lasts: peer ids are assigned, and on PCIe BAR1-P2P systems a
 * BAR1 window is mapped), and the model of the peer entries: gmmu_p2p_encode in the mode the
 * driver's answers point at (NVLink, stock PCIe, or BAR1-P2P).
 *
 * The fabric base of an NVLink peer. RM's map path (dmaAllocMapping_GM107) adds to every
 * peer address the base of the GPU that owns the memory: on an NVSwitch system its unique
 * fabric (GPA) base, which the Fabric Manager hands out in the fabric probe response
 * (_gpuFabricProbeSetupGpaRange -> knvlinkSetUniqueFabricBaseAddress), on a self-hosted
 * direct-connect system the direct-connect base, else nothing (_dmaGetFabricAddress,
 * _kgmmuEncodePeerAddrs). The NV50_P2P object reports it from 590 (p2lFabricP2PInfo); up to
 * 580 no read-only control does, so the base is taken from the first peer entry the walk
 * read and held to what the driver requires of one (aligned to the NVSwitch map slot,
 * knvlinkValidateFabricBaseAddress_*), and every other peer entry is checked against it. */
#include "p2pscope/probe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/rm_ctrl.h"

#define NO_FABRIC_ADDR UINT64_MAX /* NVLINK_INVALID_FABRIC_ADDR */

/* The alignment (log2) knvlinkValidateFabricBaseAddress_* demands of the chip's fabric base:
 * its generation's NVSwitch map slot, a column of the chip table. A chip without one (no
 * NVSwitch generation) needs page alignment only. */
static unsigned fabric_align(const struct probe_run *run)
{
	unsigned align = run->chip ? run->chip->nvlink_fabric_align : 0;
	return align ? align : 12;
}

const char *probe_fabric_src_name(enum probe_fabric_src s)
{
	switch (s) {
	case PROBE_FABRIC_NONE: return "none";
	case PROBE_FABRIC_NV503B: return "NV503B";
	case PROBE_FABRIC_UNREPORTED: return "unreported";
	case PROBE_FABRIC_INFERRED: return "inferred";
	case PROBE_FABRIC_UNKNOWN: return "unknown";
	}
	return "?";
}

/* NV50_P2P between this GPU and the peer (p2ps_rm_p2p_object_alloc). */
static int p2p_object(struct probe_run *run, struct p2ps_rm *rm, struct p2ps_error *err)
{
	struct p2ps_rm_p2p_object o;
	int rc = p2ps_rm_p2p_object_alloc(rm, run->gpu.subdevice, run->peer.gpu.subdevice, &o,
	                                  &run->peer.p2p_status, err);
	if (rc)
		return rc;
	run->peer.p2p = o.handle;
	run->peer.bar1_dma_address = o.bar1_address;
	run->peer.bar1_dma_size = o.bar1_size;
	run->peer.fabric_reported = o.peer_fabric_base;
	return 0;
}

static void p2p_caps(struct probe_run *run, struct p2ps_rm *rm)
{
	struct p2ps_rm_p2p_caps c;
	struct p2ps_error e;
	if (p2ps_rm_ctrl_p2p_caps(rm, run->gpu.card.gpu_id, run->peer.gpu.card.gpu_id, &c,
	                          &run->peer.caps_status, &e))
		return;
	run->peer.caps_known = true;
	run->peer.caps = c.caps;
	memcpy(run->peer.p2p_status_by_type, c.status, PROBE_P2P_STATUS_N);
	run->peer.peer_id = c.peer_id_ab;
}

/* Where the NVLink fabric base comes from: the driver's answer where it gives one. */
static void fabric_source(struct probe_peer *pe, const struct p2ps_nv_rm_layout *l)
{
	pe->fabric_base = 0;
	pe->fabric_src = PROBE_FABRIC_NONE;
	if (pe->mode != GMMU_P2P_NVLINK)
		return;
	if (!l->p2p_fabric_info) {
		pe->fabric_src = PROBE_FABRIC_UNREPORTED;
		return;
	}
	pe->fabric_src = PROBE_FABRIC_NV503B;
	pe->fabric_base = pe->fabric_reported == NO_FABRIC_ADDR ? 0 : pe->fabric_reported;
}

int probe_peer_collect(struct probe_run *run, struct p2ps_rm *rm, const struct p2ps_rm_card *card,
                       struct p2ps_error *err)
{
	struct probe_peer *pe = &run->peer;
	struct p2ps_error e;
	(void)err;
	if (p2ps_rm_gpu_open(rm, card, &pe->gpu, &e)) {
		probe_copy(pe->note, sizeof(pe->note), e.msg);
		return 0;
	}
	pe->opened = true;
	if (p2p_object(run, rm, &e)) {
		probe_copy(pe->note, sizeof(pe->note), e.msg);
		return 0;
	}
	p2p_caps(run, rm);
	/* The connection type NV50_P2P itself picks from the same caps (p2papiConstruct): NVLink
	 * before PCIe BAR1-P2P before the PCIe mailbox path. Its BAR1-P2P DMA window is filled
	 * for kernel clients only (privLevel >= RS_PRIV_LEVEL_KERNEL), so from userspace the
	 * caps decide; a window reported anyway (a patched driver) means BAR1-P2P too. */
	uint32_t caps = pe->caps_known ? pe->caps : 0;
	pe->mode = caps & P2PS_RM_P2P_CAP_NVLINK                            ? GMMU_P2P_NVLINK
	           : (caps & P2PS_RM_P2P_CAP_PCI_BAR1) || pe->bar1_dma_size ? GMMU_P2P_BAR1
	                                                                    : GMMU_P2P_STOCK;
	fabric_source(pe, run->driver.layout);
	return 0;
}

/* The full peer address a PTE holds. v2 formats that widen the peer address on NVSwitch
 * systems (kgmmuFmtInitPeerPteFld_TU10X) continue it from ADDRESS_VID into COMPTAGLINE. */
static uint64_t peer_addr(const struct gmmu_format *f, uint64_t raw, bool nvswitch)
{
	struct gmmu_pte_view v;
	gmmu_pte_view(f, raw, &v);
	const struct gmmu_field *lo = gmmu_field_find(f->entry[GMMU_ENTRY_PTE], "ADDRESS_VID");
	if (!nvswitch || !lo)
		return v.addr;
	return v.addr | (uint64_t)v.comptagline << (gmmu_field_width(lo) + lo->addr_shift);
}

/* The first peer PTE the walk read whose page's FB offset the driver reported. */
int probe_first_peer_pte(const struct probe_run *run, const struct probe_map **mo,
                         const struct probe_page **po)
{
	for (unsigned i = 0; i < run->n_maps; i++) {
		const struct probe_map *m = &run->maps[i];
		for (unsigned k = 0;
		     m->alloc->mem == PROBE_PEER && m->state == PROBE_MAPPED && k < m->n_pages;
		     k++) {
			const struct probe_page *p = &m->pages[k];
			for (size_t j = 0; p->phys_known && j < run->n_entries; j++) {
				const struct probe_entry *e = &run->entries[j];
				if (e->pte && e->va == p->va &&
				    e->level->page_shift == m->spec->page_shift) {
					*mo = m;
					*po = p;
					return (int)j;
				}
			}
		}
	}
	return -1;
}

static void fabric_unknown(struct probe_peer *pe, const char *why)
{
	pe->fabric_src = PROBE_FABRIC_UNKNOWN;
	pe->fabric_base = 0;
	probe_copy(pe->fabric_note, sizeof(pe->fabric_note), why);
}

void probe_peer_fabric(struct probe_run *run)
{
	struct probe_peer *pe = &run->peer;
	pe->fabric_align = fabric_align(run);
	if (pe->fabric_src == PROBE_FABRIC_INFERRED || pe->fabric_src == PROBE_FABRIC_UNKNOWN)
		pe->fabric_src = PROBE_FABRIC_UNREPORTED; /* compared again: infer again */
	if (pe->fabric_src != PROBE_FABRIC_UNREPORTED)
		return;
	const struct probe_map *m = NULL;
	const struct probe_page *p = NULL;
	int j = probe_first_peer_pte(run, &m, &p);
	if (j < 0) {
		fabric_unknown(pe, "no peer entry was read");
		return;
	}
	const struct probe_entry *e = &run->entries[j];
	struct gmmu_pte_view v;
	gmmu_pte_view(run->fmt, e->raw[0], &v);
	uint64_t addr =
	        peer_addr(run->fmt, e->raw[0], run->fmt->flags & GMMU_FORMAT_F_NVSWITCH_PEER);
	char why[160];
	if (!v.valid || v.aperture != GMMU_APERTURE_PEER || addr < p->phys) {
		snprintf(why, sizeof(why),
		         "%s's entry is no peer entry at or above FB offset 0x%" PRIx64,
		         m->spec->name, p->phys);
		fabric_unknown(pe, why);
		return;
	}
	uint64_t base = addr - p->phys;
	if (base & ((1ull << pe->fabric_align) - 1)) {
		snprintf(why, sizeof(why),
		         "%s's entry implies 0x%" PRIx64 ", not aligned to 2^%u as %s requires",
		         m->spec->name, base, pe->fabric_align,
		         pe->fabric_align > 12 ? "the chip's NVSwitch map slot "
		                                 "(knvlinkValidateFabricBaseAddress_*)"
		                               : "page alignment");
		fabric_unknown(pe, why);
		return;
	}
	pe->fabric_src = PROBE_FABRIC_INFERRED;
	pe->fabric_base = base;
	pe->fabric_entry = j;
	pe->fabric_from = m->spec->name;
}

static const char *peer_addr_source(const struct probe_run *run, const struct probe_entry *e,
                                    bool phys_known)
{
	const struct probe_peer *pe = &run->peer;
	if (!phys_known)
		return "followed";
	if (pe->mode == GMMU_P2P_BAR1)
		return probe_bar1_addr_source(run, e);
	switch (pe->fabric_src) {
	case PROBE_FABRIC_NV503B:
		return "NV503B fabric base + GET_SURFACE_PHYS_ATTR (peer FB offset)";
	case PROBE_FABRIC_INFERRED:
		return e == &run->entries[pe->fabric_entry]
		               ? "fabric base taken from this entry, FB offset checked"
		               : "fabric base from the first peer entry + GET_SURFACE_PHYS_ATTR";
	default: return "GET_SURFACE_PHYS_ATTR (peer FB offset)";
	}
}

int probe_peer_model(const struct probe_run *run, const struct probe_map *m,
                     const struct probe_page *p, struct probe_entry *e, struct p2ps_error *err)
{
	const struct probe_peer *pe = &run->peer;
	unsigned cache = p2ps_rm_map_gpu_cacheable(m->spec->map_flags);
	struct gmmu_pte_view v;
	gmmu_pte_view(run->fmt, e->raw[0], &v);
	/* libgmmu's model of RM's peer map path (gmmu_drvmap_peer_pte), fed from the driver's
	 * answers: the connection from the caps, the peer id, the fabric base, the BAR1 row. */
	struct gmmu_drvmap_peer rq = {
	        .mode = pe->mode,
	        .peer_id = pe->peer_id,
	        .fabric_base = pe->fabric_base,
	        .fb_offset = p->phys_known ? p->phys : v.addr,
	        .page_size = 1ull << m->spec->page_shift,
	        .kind = probe_kind_generic(run->fmt),
	        .gpu_cacheable = cache == P2PS_RM_MAP_CACHEABLE_YES  ? GMMU_DRVMAP_CACHE_YES
	                         : cache == P2PS_RM_MAP_CACHEABLE_NO ? GMMU_DRVMAP_CACHE_NO
	                                                             : GMMU_DRVMAP_CACHE_DEFAULT,
	        .read_only = m->spec->map_flags & P2PS_RM_MAP_ACCESS_READ_ONLY,
	        .peer_field_patched = pe->bar1.peer_field_patched,
	};
	e->addr_source = peer_addr_source(run, e, p->phys_known);
	if (pe->mode == GMMU_P2P_BAR1) {
		int rc = probe_bar1_request(run, e, &rq, err);
		if (rc)
			return rc;
	}
	return gmmu_drvmap_peer_pte(run->fmt, &rq, &e->model[0], err);
}
