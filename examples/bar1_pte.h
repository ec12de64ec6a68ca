/* SPDX-License-Identifier: MIT */
/* A patched driver's BAR1-P2P page-table entry, written the way the driver writes entries:
 * a stand-in for the code a port changes (nvGpuOpsBuildExternalAllocPtes with the BAR1-P2P
 * patch), for the unit test beside it (test_bar1_pte.c). */
#ifndef BAR1_PTE_H
#define BAR1_PTE_H

#include <stdbool.h>
#include <stdint.h>

/* The MMU format version of the GPU: 2 (Pascal .. Ada), 3 (Hopper, Blackwell). */
enum mmu_version { MMU_VER2 = 2, MMU_VER3 = 3 };

/* The PTE of one page of a peer GPU's memory, reached through the peer's BAR1: a system-
 * memory entry (non-coherent) holding bar1_base + fb_offset. */
uint64_t bar1_pte(enum mmu_version ver, uint64_t bar1_base, uint64_t fb_offset, uint32_t kind,
                  bool uncached);

/* The same with a porting bug: the BAR1 base left out, because the port rewrote the
 * aperture before the code that adds the base ran. */
uint64_t bar1_pte_without_base(enum mmu_version ver, uint64_t bar1_base, uint64_t fb_offset,
                               uint32_t kind, bool uncached);

#endif
