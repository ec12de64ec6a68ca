/* SPDX-License-Identifier: MIT */
/* The plan: which memory pte-probe allocates and how it maps it. Each page size the chip has,
 * of those the allocation API names (the NVOS32 classes 4K, BIG, HUGE 2M and 512M: the
 * API's vocabulary, not a generation's; a size the chip's format has no PTE level for is
 * skipped), in video memory, and system memory at 4K, 64K and 2M, with the
 * access choices the API leaves to the caller: read-only, GPU-uncached, coherent or not,
 * cached in the GPU by the allocation or by the mapping. System memory is not tried at 512M:
 * nothing hands out 512 MiB of physically contiguous system memory.
 *
 * Attribute values are the NVOS32_ATTR_* / NVOS32_ATTR2_* / NVOS32_ALLOC_FLAGS_* fields of
 * nvos.h; mapping flags the NVOS46_FLAGS_* of p2pscope/rm.h. */
#include "p2pscope/probe.h"

#include <string.h>

#define ATTR_PAGE(v)     ((uint32_t)(v) << 23) /* PAGE_SIZE 24:23: 1 4KB, 2 BIG, 3 HUGE */
#define ATTR_LOC_PCI     (1u << 25)            /* LOCATION 26:25 = PCI (system memory) */
#define ATTR_NONCONTIG   (1u << 27)            /* PHYSICALITY 28:27 */
#define ATTR_CONTIG      (2u << 27)
#define ATTR_COH_CACHED  (1u << 29)            /* COHERENCY 31:29 = CACHED (CPU side) */
#define ATTR2_NO_ZBC     1u                    /* ZBC 1:0 = PREFER_NO_ZBC */
#define ATTR2_GPU_CACHED (1u << 2)             /* GPU_CACHEABLE 3:2 = YES */
#define ATTR2_HUGE(v)    ((uint32_t)(v) << 20) /* PAGE_SIZE_HUGE 21:20: 1 2MB, 2 512MB */
#define ALLOC_FLAGS                                                                                \
	(0x1u | 0x100u | 0x8000u) /* IGNORE_BANK_PLACEMENT, ALIGNMENT_FORCE,                       \
	                           * MAP_NOT_REQUIRED */
#define KIND_GENERIC 6u           /* NV_MMU_PTE_KIND_GENERIC_MEMORY (TU+): system memory's format */

#define K 1024ull
#define M (1024ull * 1024ull)

#define SYS_ATTR (ATTR_LOC_PCI | ATTR_COH_CACHED)

static const struct probe_alloc allocs[] = {
        {"vid-4k", PROBE_VID, 12, 8 * K, 4 * K, ATTR_PAGE(1), ATTR2_NO_ZBC, ALLOC_FLAGS, 0, false},
        {"vid-64k", PROBE_VID, 16, 128 * K, 64 * K, ATTR_PAGE(2), ATTR2_NO_ZBC, ALLOC_FLAGS, 0,
         false},
        {"vid-2m", PROBE_VID, 21, 4 * M, 2 * M, ATTR_PAGE(3) | ATTR_CONTIG,
         ATTR2_NO_ZBC | ATTR2_HUGE(1), ALLOC_FLAGS, 0, false},
        {"vid-512m", PROBE_VID, 29, 512 * M, 512 * M, ATTR_PAGE(3) | ATTR_CONTIG,
         ATTR2_NO_ZBC | ATTR2_HUGE(2), ALLOC_FLAGS, 0, false},
        {"sys-4k", PROBE_SYS, 12, 8 * K, 4 * K, SYS_ATTR | ATTR_PAGE(1) | ATTR_NONCONTIG,
         ATTR2_NO_ZBC, ALLOC_FLAGS, KIND_GENERIC, false},
        {"sys-4k-gpu-cached", PROBE_SYS, 12, 8 * K, 4 * K, SYS_ATTR | ATTR_PAGE(1) | ATTR_NONCONTIG,
         ATTR2_NO_ZBC | ATTR2_GPU_CACHED, ALLOC_FLAGS, KIND_GENERIC, true},
        {"sys-64k", PROBE_SYS, 16, 128 * K, 64 * K, SYS_ATTR | ATTR_PAGE(2) | ATTR_CONTIG,
         ATTR2_NO_ZBC, ALLOC_FLAGS, KIND_GENERIC, false},
        {"sys-2m", PROBE_SYS, 21, 2 * M, 2 * M, SYS_ATTR | ATTR_PAGE(3) | ATTR_CONTIG,
         ATTR2_NO_ZBC | ATTR2_HUGE(1), ALLOC_FLAGS, KIND_GENERIC, false},
        /* The peer's video memory (--peer), allocated on the peer GPU. */
        {"peer-4k", PROBE_PEER, 12, 8 * K, 4 * K, ATTR_PAGE(1), ATTR2_NO_ZBC, ALLOC_FLAGS, 0,
         false},
        {"peer-64k", PROBE_PEER, 16, 128 * K, 64 * K, ATTR_PAGE(2), ATTR2_NO_ZBC, ALLOC_FLAGS, 0,
         false},
        {"peer-2m", PROBE_PEER, 21, 4 * M, 2 * M, ATTR_PAGE(3) | ATTR_CONTIG,
         ATTR2_NO_ZBC | ATTR2_HUGE(1), ALLOC_FLAGS, 0, false},
};

#define MAP_PAGE(v)  P2PS_RM_MAP_PAGE_SIZE(v)
#define RO           P2PS_RM_MAP_ACCESS_READ_ONLY
#define SNOOP        P2PS_RM_MAP_CACHE_SNOOP
#define MAP_CACHED   P2PS_RM_MAP_GPU_CACHEABLE(P2PS_RM_MAP_CACHEABLE_YES)
#define MAP_UNCACHED P2PS_RM_MAP_GPU_CACHEABLE(P2PS_RM_MAP_CACHEABLE_NO)
#define P4K          MAP_PAGE(P2PS_RM_MAP_PAGE_4KB)
#define PBIG         MAP_PAGE(P2PS_RM_MAP_PAGE_BIG)
#define PHUGE        MAP_PAGE(P2PS_RM_MAP_PAGE_HUGE)
#define P512M        MAP_PAGE(P2PS_RM_MAP_PAGE_512M)

static const struct probe_spec specs[] = {
        {"vid-4k", "vid-4k", 12, P4K, "default (read-write, GPU-cached)"},
        {"vid-64k", "vid-64k", 16, PBIG, "default"},
        {"vid-2m", "vid-2m", 21, PHUGE, "default"},
        {"vid-512m", "vid-512m", 29, P512M, "default"},
        {"vid-2m-ro", "vid-2m", 21, PHUGE | RO, "read-only"},
        {"vid-2m-uncached", "vid-2m", 21, PHUGE | MAP_UNCACHED, "GPU-uncached (mapping)"},
        {"sys-4k-coh", "sys-4k", 12, P4K | SNOOP, "coherent (snooped), GPU-uncached"},
        {"sys-4k-noncoh", "sys-4k", 12, P4K, "non-coherent, GPU-uncached"},
        {"sys-4k-ro", "sys-4k", 12, P4K | SNOOP | RO, "coherent, read-only"},
        {"sys-4k-map-cached", "sys-4k", 12, P4K | SNOOP | MAP_CACHED,
         "coherent, GPU-cached (mapping)"},
        {"sys-4k-alloc-cached", "sys-4k-gpu-cached", 12, P4K | SNOOP,
         "coherent, GPU-cached (allocation)"},
        {"sys-64k-coh", "sys-64k", 16, PBIG | SNOOP, "coherent, contiguous"},
        {"sys-2m-coh", "sys-2m", 21, PHUGE | SNOOP, "coherent, contiguous"},
        {"peer-4k", "peer-4k", 12, P4K | P2PS_RM_MAP_P2P_NOSLI, "peer (P2P)"},
        {"peer-64k", "peer-64k", 16, PBIG | P2PS_RM_MAP_P2P_NOSLI, "peer (P2P)"},
        {"peer-2m", "peer-2m", 21, PHUGE | P2PS_RM_MAP_P2P_NOSLI, "peer (P2P)"},
};

const struct probe_alloc *probe_alloc_find(const char *name)
{
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (!strcmp(allocs[i].name, name))
			return &allocs[i];
	return NULL;
}

bool probe_plan_has_page(unsigned shift)
{
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (allocs[i].page_shift == shift)
			return true;
	return false;
}

static const char *skip_reason(const struct probe_run *run, const struct probe_spec *s,
                               const struct probe_alloc *a)
{
	if (a->mem == PROBE_PEER && !run->peer.asked)
		return "no --peer";
	if (!(run->page_mask & (1u << s->page_shift)))
		return "page size not asked for (--page-sizes)";
	if (!gmmu_level_for_page(run->fmt, s->page_shift))
		return "the chip has no PTEs of this size";
	return NULL;
}

void probe_plan(struct probe_run *run)
{
	run->n_maps = 0;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]) && run->n_maps < PROBE_MAX_MAPS;
	     i++) {
		struct probe_map *m = &run->maps[run->n_maps++];
		memset(m, 0, sizeof(*m));
		m->spec = &specs[i];
		m->alloc = probe_alloc_find(specs[i].alloc);
		const char *why = skip_reason(run, m->spec, m->alloc);
		m->state = why ? PROBE_SKIPPED : PROBE_FAILED; /* FAILED until mapped */
		if (why)
			snprintf(m->why, sizeof(m->why), "%s", why);
	}
}
