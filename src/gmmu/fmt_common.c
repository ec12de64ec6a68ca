/* SPDX-License-Identifier: MIT */
/* Value tables shared by MMU format versions 2 and 3.
 *
 * The v2 headers define no aperture values of their own: the driver encodes v2 and v3
 * apertures with the v1 names (kgmmuFmtInitPteApertures_GM10X, kgmmuFmtInitPdeApertures_GM10X),
 * NV_MMU_PTE_APERTURE_* and NV_MMU_PDE_APERTURE_BIG_*; v3 repeats the same numbers under
 * NV_MMU_VER3_PTE_APERTURE_* and NV_MMU_VER3_PDE_APERTURE_*.
 */
#include "gmmu_internal.h"

const struct gmmu_value gmmu_bool_values[2] = {
        {"FALSE", 0},
        {"TRUE", 1},
};

/* NV_MMU_PTE_APERTURE_* (gp100, tu102, gh100), NV_MMU_VER3_PTE_APERTURE_* (gh100). */
const struct gmmu_value gmmu_pte_aperture_values[4] = {
        {"VIDEO_MEMORY", 0},
        {"PEER_MEMORY", 1},
        {"SYSTEM_COHERENT_MEMORY", 2},
        {"SYSTEM_NON_COHERENT_MEMORY", 3},
};

/* NV_MMU_PDE_APERTURE_BIG_* (gp100, tu102), NV_MMU_VER3_PDE_APERTURE_* (gh100). */
const struct gmmu_value gmmu_pde_aperture_values[4] = {
        {"INVALID", 0},
        {"VIDEO_MEMORY", 1},
        {"SYSTEM_COHERENT_MEMORY", 2},
        {"SYSTEM_NON_COHERENT_MEMORY", 3},
};

/* NV_MMU_PTE_KIND_* of turing/tu102 (same list in hopper/gh100, blackwell/gb202, gb20b):
 * the 4-bit kinds of Turing and later. */
const struct gmmu_value gmmu_kind_values_tu[16] = {
        {"PITCH", 0x0},
        {"Z16", 0x1},
        {"S8", 0x2},
        {"S8Z24", 0x3},
        {"ZF32_X24S8", 0x4},
        {"Z24S8", 0x5},
        {"GENERIC_MEMORY", 0x6},
        {"INVALID", 0x7},
        {"GENERIC_MEMORY_COMPRESSIBLE", 0x8},
        {"GENERIC_MEMORY_COMPRESSIBLE_DISABLE_PLC", 0x9},
        {"S8_COMPRESSIBLE_DISABLE_PLC", 0xA},
        {"Z16_COMPRESSIBLE_DISABLE_PLC", 0xB},
        {"S8Z24_COMPRESSIBLE_DISABLE_PLC", 0xC},
        {"ZF32_X24S8_COMPRESSIBLE_DISABLE_PLC", 0xD},
        {"Z24S8_COMPRESSIBLE_DISABLE_PLC", 0xE},
        {"SMSKED_MESSAGE", 0xF},
};
