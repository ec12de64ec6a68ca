/* SPDX-License-Identifier: MIT */
/* The BAR1-P2P PTE field by field, as the driver stores fields: each value shifted into its
 * bits and masked (nvFieldSet32/nvFieldSet64 of the driver's field_desc.h). The bit ranges
 * are the NV_MMU_VER2_PTE_* and NV_MMU_VER3_PTE_* defines of dev_mmu.h, hi:lo. */
#include "bar1_pte.h"

/* Writes value into bits hi..lo of the entry. */
static uint64_t set_field(uint64_t pte, unsigned hi, unsigned lo, uint64_t value)
{
	uint64_t mask = ((2ull << (hi - lo)) - 1) << lo;
	return (pte & ~mask) | ((value << lo) & mask);
}

#define APERTURE_SYSTEM_NON_COHERENT 3    /* _APERTURE_SYSTEM_NON_COHERENT_MEMORY */
#define V3_PCF_CACHED_ACD            0x10 /* _PCF_REGULAR_RW_ATOMIC_CACHED_ACD */
#define V3_PCF_UNCACHED_ACD          0x11 /* _PCF_REGULAR_RW_ATOMIC_UNCACHED_ACD */

static uint64_t v2_pte(uint64_t addr, uint32_t kind, bool uncached)
{
	uint64_t pte = 0;
	pte = set_field(pte, 0, 0, 1);                            /* VALID */
	pte = set_field(pte, 2, 1, APERTURE_SYSTEM_NON_COHERENT); /* APERTURE */
	pte = set_field(pte, 3, 3, uncached);                     /* VOL */
	pte = set_field(pte, 53, 8, addr >> 12);                  /* ADDRESS_SYS */
	pte = set_field(pte, 63, 56, kind);                       /* KIND */
	return pte;
}

static uint64_t v3_pte(uint64_t addr, uint32_t kind, bool uncached)
{
	uint64_t pte = 0;
	pte = set_field(pte, 0, 0, 1);                            /* VALID */
	pte = set_field(pte, 2, 1, APERTURE_SYSTEM_NON_COHERENT); /* APERTURE */
	pte = set_field(pte, 7, 3, uncached ? V3_PCF_UNCACHED_ACD : V3_PCF_CACHED_ACD); /* PCF */
	pte = set_field(pte, 11, 8, kind);                                              /* KIND */
	pte = set_field(pte, 51, 12, addr >> 12); /* ADDRESS */
	return pte;
}

uint64_t bar1_pte(enum mmu_version ver, uint64_t bar1_base, uint64_t fb_offset, uint32_t kind,
                  bool uncached)
{
	uint64_t addr = bar1_base + fb_offset;
	return ver == MMU_VER3 ? v3_pte(addr, kind, uncached) : v2_pte(addr, kind, uncached);
}

uint64_t bar1_pte_without_base(enum mmu_version ver, uint64_t bar1_base, uint64_t fb_offset,
                               uint32_t kind, bool uncached)
{
	(void)bar1_base;
	return bar1_pte(ver, 0, fb_offset, kind, uncached);
}
