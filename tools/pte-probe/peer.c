/* --peer: the second GPU, the P2P object between the two (this changes the driver's peer
 * state for as long as the run lasts: peer ids are assigned, and on PCIe BAR1-P2P systems a
 * BAR1 window is mapped), and the model of the peer entries: gmmu_p2p_encode in the mode the
 * driver's answers point at (NVLink, stock PCIe, or BAR1-P2P). */
#include "probe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/bytes.h"

#define P2P_CAPS_SIZE     8348 /* NV0000_CTRL_SYSTEM_GET_P2P_CAPS_V2_PARAMS */
#define P2P_CAPS_COUNT    128
#define P2P_CAPS_CAPS     132
#define P2P_CAPS_PEER_IDS 156
#define P2P_CAP_NVLINK    (1u << 3) /* NV0000_CTRL_SYSTEM_GET_P2P_CAPS_NVLINK_SUPPORTED */
#define P2P_INVALID_PEER  0xffffffffu

/* NV503B_ALLOC_PARAMETERS: hSubDevice@0 hPeerSubDevice@4 ... l2pBar1P2PDmaInfo@40 (address,
 * size), p2lBar1P2PDmaInfo@56; from 590 l2pFabricP2PInfo@72, p2lFabricP2PInfo@80. */
static int p2p_object(struct probe_run *run, struct p2ps_rm *rm, struct p2ps_error *err)
{
	const struct p2ps_rm_layout *l = run->driver.layout;
	uint8_t b[88] = {0};
	p2ps_put_le32(b, run->gpu.subdevice);
	p2ps_put_le32(b + 4, run->peer.gpu.subdevice);
	int rc = p2ps_rm_alloc(rm, p2ps_rm_client(rm), P2PS_RM_P2P, b, l->p2p_size, &run->peer.p2p,
	                       &run->peer.p2p_status, err);
	if (rc)
		return rc;
	run->peer.bar1_dma_address = p2ps_le64(b + 40);
	run->peer.bar1_dma_size = p2ps_le64(b + 48);
	if (l->p2p_fabric_info)
		run->peer.fabric_base = p2ps_le64(b + 80);
	return 0;
}

static void p2p_caps(struct probe_run *run, struct p2ps_rm *rm)
{
	uint8_t b[P2P_CAPS_SIZE] = {0};
	p2ps_put_le32(b, run->gpu.card.gpu_id);
	p2ps_put_le32(b + 4, run->peer.gpu.card.gpu_id);
	p2ps_put_le32(b + P2P_CAPS_COUNT, 2);
	struct p2ps_error e;
	if (p2ps_rm_control(rm, p2ps_rm_client(rm), P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_V2, b,
	                    sizeof(b), &run->peer.caps_status, &e))
		return;
	run->peer.caps_known = true;
	run->peer.caps = p2ps_le32(b + P2P_CAPS_CAPS);
	/* busPeerIds[X * gpuCount + Y]: the id GPU X (this one) uses for GPU Y (the peer). */
	run->peer.peer_id = p2ps_le32(b + P2P_CAPS_PEER_IDS + 4 * (0 * 2 + 1));
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
	pe->mode = pe->caps_known && (pe->caps & P2P_CAP_NVLINK) ? GMMU_P2P_NVLINK
	           : pe->bar1_dma_size                           ? GMMU_P2P_BAR1
	                                                         : GMMU_P2P_STOCK;
	return 0;
}

int probe_peer_model(const struct probe_run *run, const struct probe_map *m,
                     const struct probe_page *p, struct probe_entry *e, struct p2ps_error *err)
{
	const struct probe_peer *pe = &run->peer;
	unsigned cache = (m->spec->map_flags >> 17) & 3;
	struct gmmu_pte_view v;
	gmmu_pte_view(run->fmt, e->raw[0], &v);
	uint64_t offset = p->phys_known ? p->phys : v.addr;
	struct gmmu_p2p_request rq = {
	        .mode = pe->mode,
	        .peer_index = pe->peer_id,
	        .fabric_base = pe->fabric_base,
	        .offset = offset,
	        .page_size = 1ull << m->spec->page_shift,
	        .kind = probe_kind_generic(run->fmt),
	        /* A peer mapping is GPU-uncached unless the allocation or mapping says cached
	         * (dmaIsDefaultGpuUncached: the P2P cache attribute defaults to UNCACHED). */
	        .vol = cache != P2PS_RM_MAP_CACHEABLE_YES,
	        .read_only = m->spec->map_flags & P2PS_RM_MAP_ACCESS_READ_ONLY,
	};
	e->addr_source = p->phys_known ? "GET_SURFACE_PHYS_ATTR (peer FB offset)" : "followed";
	if (pe->mode == GMMU_P2P_BAR1) {
		/* BAR1-P2P, stock (Hopper+, static BAR1) or patched: the peer's BAR1 bus address
		 * (CARD_INFO fb_address, gpumgrGetGpuPhysFbAddr) plus the FB offset, static BAR1
		 * mapping FB offset 0 at BAR1 offset 0. */
		rq.bar1_base = pe->gpu.card.fb_address;
		e->addr_source =
		        p->phys_known ? "CARD_INFO peer BAR1 + GET_SURFACE_PHYS_ATTR" : "followed";
	}
	struct gmmu_p2p_result res;
	int rc = gmmu_p2p_encode(run->fmt, &rq, &res, err);
	e->model[0] = res.pte;
	return rc;
}
