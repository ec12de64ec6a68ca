/* SPDX-License-Identifier: MIT */
/* libgmmu: the entries the NVIDIA driver writes for its ordinary mappings.
 *
 * Beside the P2P model (gmmu_p2p_encode), this is what RM's own mapping path writes when a
 * client maps video or system memory into a GPU VA space (NV_ESC_RM_MAP_MEMORY_DMA):
 *   PTEs              dmaAllocMapping_GM107 picks aperture, volatility and kind, and
 *                     dmaUpdateVASpace_GF100 builds the entry (v3: the PCF from
 *                     kgmmuTranslatePtePcfFromSw_GH100);
 *   directory entries _gmmuWalkCBUpdatePde (gmmu_walk.c): aperture of the table's memory,
 *                     its address, VOL (v2) or PCF cached/uncached + ATS (v3).
 * Read at NVIDIA/open-gpu-kernel-modules 580.142 and 595.45.04 (the same in both for what is
 * modelled here); docs/gmmu.md, "The driver's ordinary mappings", walks through the choices.
 *
 * Nothing here allocates or prints; errors fill struct p2ps_error.
 */
#ifndef P2PSCOPE_GMMU_DRVMAP_H
#define P2PSCOPE_GMMU_DRVMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/gmmu.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gmmu_drvmap_mem {
	GMMU_DRVMAP_VIDEO = 0,  /* the GPU's own video memory (NV01_MEMORY_LOCAL_USER) */
	GMMU_DRVMAP_SYSTEM = 1, /* system memory (NV01_MEMORY_SYSTEM) */
};

/* NVOS46_FLAGS_GPU_CACHEABLE of the mapping. */
enum gmmu_drvmap_cache {
	GMMU_DRVMAP_CACHE_DEFAULT = 0, /* the allocation's attribute decides */
	GMMU_DRVMAP_CACHE_YES = 1,
	GMMU_DRVMAP_CACHE_NO = 2,
};

struct gmmu_drvmap_request {
	enum gmmu_drvmap_mem mem;
	/* The page's address as the GPU sees it: the FB offset of video memory, the DMA address
	 * of system memory (what NV0041_CTRL_CMD_GET_SURFACE_PHYS_ATTR reports). Page-aligned;
	 * the driver aligns it down to the page size. */
	uint64_t addr;
	uint64_t page_size; /* bytes; a PTE page size of the format */
	uint32_t kind;      /* the allocation's PTE kind (memdescGetPteKind) */
	/* Allocation: system memory is GPU-uncached unless NVOS32_ATTR2_GPU_CACHEABLE_YES
	 * (memSetSysmemCacheAttrib); video memory is always cached by default. */
	bool alloc_gpu_cached;
	/* Mapping flags (NVOS46). */
	bool read_only;                       /* ACCESS_READ_ONLY */
	enum gmmu_drvmap_cache gpu_cacheable; /* overrides the default volatility */
	bool cache_snoop;                     /* CACHE_SNOOP_ENABLE: GPU snoops CPU caches */
	/* A fully coherent platform (bPlatformFullyCoherent: Grace-Hopper and the like) takes
	 * the system-memory aperture from gpu_cache_snoop instead of cache_snoop. */
	bool platform_coherent;
	bool gpu_cache_snoop;
};

struct gmmu_drvmap_result {
	uint64_t pte;                   /* the entry (a PTE in a dual level: the low 8 bytes) */
	enum gmmu_aperture aperture;    /* VIDEO, SYS_COH or SYS_NONCOH */
	bool vol;                       /* uncached in the GPU (v2 VOL, v3 PCF UNCACHED) */
	const char *pcf;                /* v3: the PCF's name, "REGULAR_RW_ATOMIC_CACHED_ACD" */
	const struct gmmu_level *level; /* the level PTEs of this page size live in */
};

/* The PTE the driver writes for one page of an ordinary mapping. P2PS_EINVAL for a page size
 * the format has no PTE level for, or a misaligned address. */
int gmmu_drvmap_pte(const struct gmmu_format *f, const struct gmmu_drvmap_request *rq,
                    struct gmmu_drvmap_result *out, struct p2ps_error *err);

/* One page of a peer GPU's memory as RM maps it through NV50_P2P (NV_ESC_RM_MAP_MEMORY_DMA
 * with NVOS46_FLAGS_P2P_ENABLE): the entry of the connection the P2P object chose. */
struct gmmu_drvmap_peer {
	/* NVLink (PEER, peer id, + the owning GPU's fabric base), the PCIe mailbox path (PEER,
	 * peer id, the FB offset) or BAR1-P2P (the driver row's sysmem entry). */
	enum gmmu_p2p_mode mode;
	uint32_t peer_id;     /* GET_P2P_CAPS_V2 busPeerIds: the id this GPU uses for the peer */
	uint64_t fabric_base; /* NVLink: _dmaGetFabricAddress(peer), 0 without NVSwitch */
	/* BAR1-P2P: the RM row (gmmu_bar1_row_find(..., GMMU_BAR1_PATH_RM, ...)) and the static
	 * BAR1 as the entries hold it (bus address + start offset, or its IOVA). */
	const struct gmmu_bar1_row *bar1_row;
	uint64_t bar1_base;
	uint64_t fb_offset; /* the page's offset in the peer's framebuffer */
	uint64_t page_size;
	uint32_t kind; /* the allocation's kind */
	/* NVOS46 GPU_CACHEABLE: peer memory is GPU-uncached unless the mapping (or a
	 * P2P-cacheable allocation) says YES (dmaIsDefaultGpuUncached,
	 * memdescGetGpuP2PCacheAttrib). */
	enum gmmu_drvmap_cache gpu_cacheable;
	bool read_only;
	/* A driver whose gmmuFmtPtePhysAddrFld(PEER) returns the sysmem field
	 * (gmmu_bar1_peer_field_patched()): PEER entries carry their address there. */
	bool peer_field_patched;
};

/* The PTE RM writes for one page of a peer mapping (dmaAllocMapping_GM107 and
 * dmaUpdateVASpace_GF100 for PEER; dmaAllocBar1P2PMapping_GH100 first for BAR1-P2P): the
 * P2P model (gmmu_p2p_encode) with the map path's defaults. Fails as gmmu_p2p_encode does,
 * and with P2PS_ENOTSUP naming the driver's reason where the row writes no entry. */
int gmmu_drvmap_peer_pte(const struct gmmu_format *f, const struct gmmu_drvmap_peer *rq,
                         uint64_t *pte, struct p2ps_error *err);

/* Where a page table or directory lives, as a directory entry points at it. */
struct gmmu_drvmap_table {
	bool present;                /* false: the entry (or half) is left zero */
	enum gmmu_aperture aperture; /* VIDEO, SYS_COH or SYS_NONCOH */
	uint64_t addr;               /* its physical address */
	bool uncached;               /* a system-memory table mapped GPU-uncached */
};

/* The 8-byte PDE pointing at table t; ats: the VA space allows ATS (v3 PCF ATS_ALLOWED;
 * a VA space made without NV_VASPACE_ALLOCATION_FLAGS_ENABLE_NVLINK_ATS does not). */
int gmmu_drvmap_pde(const struct gmmu_format *f, const struct gmmu_drvmap_table *t, bool ats,
                    uint64_t *pde, struct p2ps_error *err);
/* The 16-byte dual PDE pointing at a big-page and a small-page table (either may be absent:
 * its half stays zero). w[0] = bits 63:0, w[1] = bits 127:64. */
int gmmu_drvmap_dual_pde(const struct gmmu_format *f, const struct gmmu_drvmap_table *big,
                         const struct gmmu_drvmap_table *small, bool ats, uint64_t w[2],
                         struct p2ps_error *err);

/* One field where two entries differ: its row and both values as pte-decode prints them. */
struct gmmu_field_diff {
	const struct gmmu_field *field; /* NULL: bits no shown field explains */
	char got[48], want[48];
};

/* Compares entry `got` (what the driver wrote) with `want` (the model) field by field:
 * every field shown for either entry's aperture(s), plus set bits no field explains. Fills
 * up to max differences and returns how many there are (0: the entries agree). */
size_t gmmu_entry_diff(const struct gmmu_entry_format *ef, const uint64_t got[2],
                       const uint64_t want[2], struct gmmu_field_diff *d, size_t max);

#ifdef __cplusplus
}
#endif

#endif
