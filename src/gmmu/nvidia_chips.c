/* SPDX-License-Identifier: MIT */
/* The NVIDIA chip table (include/p2pscope/nvidia_chips.h): one row per chip.
 *
 * Sources, per column:
 *  - GMMU format: the HAL dispatch of NVIDIA/open-gpu-kernel-modules 595.45.04,
 *    src/nvidia/generated/g_kern_gmmu_nvoc.c. kgmmuFmtInitPte_GP10X +
 *    kgmmuFmtInitPteComptagLine_TU10X go to TU10x/GA10x/AD10x, kgmmuFmtInitPte_GH10X to
 *    every other chip; kgmmuFmtInitLevels picks GP10X (TU10x), GA10X (GA10x, AD10x),
 *    GH10X (GH100) and GB10X (all Blackwell). Pascal and Volta left the open driver's
 *    chip list; their v2 layout with the 53:36 comptag line is in pascal/gp100 and
 *    volta/gv100 dev_mmu.h and kgmmuFmtInitPteComptagLine_GP10X. Maxwell's v1 layout
 *    and the Tegra GV11B are not modeled (no format). The display-only Tegra HALs
 *    T234D/T264D have no GMMU and no row.
 *  - BOOT_42 chip id: GPU_ARCHITECTURE_* << 4 | GPU_IMPLEMENTATION_* of the same
 *    release's src/common/inc/swref/published/nv_arch.h (names as nova-core and nouveau
 *    use them).
 *  - Device ids: NVIDIA allocates them in 0x80-aligned blocks per chip; the blocks
 *    follow pci.ids' chip names, and for the newest chips the boards the 595.45.04
 *    README lists (B300 0x3182 and GB300 0x31c2 are GB110; GB10 0x2e12 is GB20B, which
 *    pci.ids names "GB20B [GB10]"). test_chip_table (tests/host) checks every GPU entry
 *    of the system's pci.ids against the blocks.
 *  - GB10C, GR100, GR102 (new in 615.71.09, NVIDIA/open-gpu-kernel-modules commit
 *    61dcc93722ecb418bb5f2e00923f05b4b8051dd1): BOOT_42 ids from nv_arch.h and
 *    ctrl2080mc.h there (GPU_ARCHITECTURE_BLACKWELL_GB1XX 0x1A0 implementation 0xC;
 *    GPU_ARCHITECTURE_RUBIN_GR1XX 0x1C0, implementations 0x0 and 0x2), chip to HAL variant in
 *    g_chips2halspec_nvoc.c; GMMU from g_kern_gmmu_nvoc.c there (kgmmuFmtInitLevels_GB10X,
 *    kgmmuFmtInitPte/Pde/PdeMulti_GH10X: v3-gb). No dev_mmu.h of Rubin is published
 *    (swref/published/rubin/ holds no dev_mmu.h): the GR10x bits are the Hopper/Blackwell
 *    headers', which the driver builds their entries from. No README board, no pci.ids
 *    entry: no device-id block. Fabric base: knvlinkValidateFabricBaseAddress_GB100 for
 *    GR100/GR102 too (g_kernel_nvlink_nvoc.c there).
 *  - NVLink fabric-base alignment (log2): the HAL dispatch of knvlinkValidateFabricBaseAddress
 *    in src/nvidia/generated/g_kernel_nvlink_nvoc.c, 595.45.04 (and 580.142 for GV100):
 *    _GV100 wants 16 GB map slots (2^34), _GA100 (GA100, GA10x, AD10x) 64 GB (2^36),
 *    _GH100 512 GB (2^39), _GB100 (every Blackwell chip) 4 TB (2^42). TU10x gets the stub
 *    that answers NOT_SUPPORTED, Pascal and the Tegra GV11B have no NVSwitch: 0.
 */
#include "p2pscope/nvidia_chips.h"

#include <string.h>
#include <strings.h>

#include "gmmu_internal.h"

static const char generation_names[P2PS_NV_GEN_COUNT][12] = {
        [P2PS_NV_GEN_MAXWELL] = "Maxwell", [P2PS_NV_GEN_PASCAL] = "Pascal",
        [P2PS_NV_GEN_VOLTA] = "Volta",     [P2PS_NV_GEN_TURING] = "Turing",
        [P2PS_NV_GEN_AMPERE] = "Ampere",   [P2PS_NV_GEN_ADA] = "Ada",
        [P2PS_NV_GEN_HOPPER] = "Hopper",   [P2PS_NV_GEN_BLACKWELL] = "Blackwell",
        [P2PS_NV_GEN_RUBIN] = "Rubin",
};

/* The family libgmmu shows for a chip is its generation's name (an address constant). */
#define FAMILY(g) generation_names[P2PS_NV_GEN_##g]

#define HAL  "g_kern_gmmu_nvoc.c " GMMU_DRIVER_TAG
#define HIST "dev_mmu.h history (not in the " GMMU_DRIVER_TAG " HAL)"
/* Chips the 615.71.09 release added (GB10C, GR100, GR102): their format is what its HAL
 * assigns them (kgmmuFmtInitLevels_GB10X, kgmmuFmtInitPte/Pde_GH10X, the same classes as
 * GB100's), and their device ids are not public. */
#define NEW_TAG           "615.71.09"
#define HAL_NEW           "g_kern_gmmu_nvoc.c " NEW_TAG
#define HAL_NEW_NO_HEADER HAL_NEW "; no dev_mmu.h of the chip is published"
/* The note tools print with a chip whose own dev_mmu.h is not public. */
#define NOTE_NO_HEADER                                                                             \
	"the formats are the driver's assignment (its GMMU HAL, " NEW_TAG "): the chip's own "     \
	"dev_mmu.h is not public, so its bits are those of the Hopper/Blackwell headers"

/* Why a chip has no device-id block. */
#define NO_PCI_TEGRA "integrated in a Tegra SoC: a platform device, not on PCI"
#define NO_PCI_PUBLIC                                                                              \
	"no public device id: neither the " GMMU_DRIVER_TAG " README nor pci.ids names a board"
#define NO_PCI_PUBLIC_NEW                                                                          \
	"no public device id: neither the " NEW_TAG " README nor pci.ids names a board"
/* Maxwell predates the open kernel modules; bar-inspect has always reported its GPUs
 * as chips outside the table, so the row keeps them that way. */
#define NO_PCI_MAXWELL "not listed: bar-inspect reports Maxwell GPUs as unknown chips"

/* One row per chip: {libgmmu's view: name, family, example boards, GMMU format, source},
 * generation, header family prefix, BOOT_42 chip id, device-id blocks, why there are
 * none, log2 of the NVLink fabric-base alignment (0: none). By generation, in the order libgmmu
 * lists chips (pte-decode formats); rows without a GMMU format are not part of that list. */
/* clang-format off */
static const struct p2ps_nvidia_chip chips[] = {
	{{"GM107", FAMILY(MAXWELL), "GTX 750 Ti", NULL, NULL, NULL},
	 P2PS_NV_GEN_MAXWELL, "gm10x", 0x117, {{0, 0}}, NO_PCI_MAXWELL, 0},
	{{"GM108", FAMILY(MAXWELL), "", NULL, NULL, NULL},
	 P2PS_NV_GEN_MAXWELL, "gm10x", 0x118, {{0, 0}}, NO_PCI_MAXWELL, 0},
	{{"GM200", FAMILY(MAXWELL), "GTX 980 Ti", NULL, NULL, NULL},
	 P2PS_NV_GEN_MAXWELL, "gm20x", 0x120, {{0, 0}}, NO_PCI_MAXWELL, 0},
	{{"GM204", FAMILY(MAXWELL), "GTX 980", NULL, NULL, NULL},
	 P2PS_NV_GEN_MAXWELL, "gm20x", 0x124, {{0, 0}}, NO_PCI_MAXWELL, 0},
	{{"GM206", FAMILY(MAXWELL), "GTX 960", NULL, NULL, NULL},
	 P2PS_NV_GEN_MAXWELL, "gm20x", 0x126, {{0, 0}}, NO_PCI_MAXWELL, 0},
	{{"GP100", FAMILY(PASCAL), "Tesla P100", &gmmu_format_v2_gp, HIST, NULL},
	 P2PS_NV_GEN_PASCAL, "gp100", 0x130, {{0x15f0, 0x15ff}, {0x1720, 0x173f}}, NULL, 0},
	{{"GP102", FAMILY(PASCAL), "TITAN Xp, GTX 1080 Ti", &gmmu_format_v2_gp, HIST, NULL},
	 P2PS_NV_GEN_PASCAL, "gp10x", 0x132, {{0x1b00, 0x1b7f}}, NULL, 0},
	{{"GP104", FAMILY(PASCAL), "GTX 1080, GTX 1070", &gmmu_format_v2_gp, HIST, NULL},
	 P2PS_NV_GEN_PASCAL, "gp10x", 0x134, {{0x1b80, 0x1bff}}, NULL, 0},
	{{"GP106", FAMILY(PASCAL), "GTX 1060", &gmmu_format_v2_gp, HIST, NULL},
	 P2PS_NV_GEN_PASCAL, "gp10x", 0x136, {{0x1c00, 0x1c7f}}, NULL, 0},
	{{"GP107", FAMILY(PASCAL), "GTX 1050", &gmmu_format_v2_gp, HIST, NULL},
	 P2PS_NV_GEN_PASCAL, "gp10x", 0x137, {{0x1c80, 0x1cff}}, NULL, 0},
	{{"GP108", FAMILY(PASCAL), "GT 1030", &gmmu_format_v2_gp, HIST, NULL},
	 P2PS_NV_GEN_PASCAL, "gp10x", 0x138, {{0x1d00, 0x1d7f}}, NULL, 0},
	{{"GV100", FAMILY(VOLTA), "Tesla V100, TITAN V", &gmmu_format_v2_gp, HIST, NULL},
	 P2PS_NV_GEN_VOLTA, "gv100", 0x140, {{0x1d80, 0x1dff}}, NULL, 34},
	{{"GV11B", FAMILY(VOLTA), "Jetson AGX Xavier", NULL, NULL, NULL},
	 P2PS_NV_GEN_VOLTA, "gv11b", 0x15b, {{0, 0}}, NO_PCI_TEGRA, 0},
	{{"TU102", FAMILY(TURING), "RTX 2080 Ti, TITAN RTX", &gmmu_format_v2_tu, HAL, NULL},
	 P2PS_NV_GEN_TURING, "tu10x", 0x162, {{0x1e00, 0x1e7f}}, NULL, 0},
	{{"TU104", FAMILY(TURING), "RTX 2080, Tesla T4", &gmmu_format_v2_tu, HAL, NULL},
	 P2PS_NV_GEN_TURING, "tu10x", 0x164, {{0x1e80, 0x1eff}}, NULL, 0},
	{{"TU106", FAMILY(TURING), "RTX 2070, RTX 2060", &gmmu_format_v2_tu, HAL, NULL},
	 P2PS_NV_GEN_TURING, "tu10x", 0x166, {{0x1f00, 0x1f7f}}, NULL, 0},
	{{"TU116", FAMILY(TURING), "GTX 1660", &gmmu_format_v2_tu, HAL, NULL},
	 P2PS_NV_GEN_TURING, "tu10x", 0x168, {{0x2180, 0x21ff}}, NULL, 0},
	{{"TU117", FAMILY(TURING), "GTX 1650", &gmmu_format_v2_tu, HAL, NULL},
	 P2PS_NV_GEN_TURING, "tu10x", 0x167, {{0x1f80, 0x1fff}}, NULL, 0},
	{{"GA100", FAMILY(AMPERE), "A100", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_AMPERE, "ga100", 0x170, {{0x2080, 0x20ff}}, NULL, 36},
	{{"GA102", FAMILY(AMPERE), "RTX 3090, RTX 3080, RTX A6000, A40, A10", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_AMPERE, "ga10x", 0x172, {{0x2200, 0x227f}}, NULL, 36},
	{{"GA103", FAMILY(AMPERE), "", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_AMPERE, "ga10x", 0x173, {{0x2400, 0x247f}}, NULL, 36},
	{{"GA104", FAMILY(AMPERE), "RTX 3070, RTX A4000", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_AMPERE, "ga10x", 0x174, {{0x2480, 0x24ff}}, NULL, 36},
	{{"GA106", FAMILY(AMPERE), "RTX 3060", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_AMPERE, "ga10x", 0x176, {{0x2500, 0x257f}}, NULL, 36},
	{{"GA107", FAMILY(AMPERE), "RTX 3050", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_AMPERE, "ga10x", 0x177, {{0x2580, 0x25ff}}, NULL, 36},
	{{"AD102", FAMILY(ADA), "RTX 4090, RTX 6000 Ada, L40", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_ADA, "ad10x", 0x192, {{0x2680, 0x26ff}}, NULL, 36},
	{{"AD103", FAMILY(ADA), "RTX 4080", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_ADA, "ad10x", 0x193, {{0x2700, 0x277f}}, NULL, 36},
	{{"AD104", FAMILY(ADA), "RTX 4070 Ti, RTX 4070", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_ADA, "ad10x", 0x194, {{0x2780, 0x27ff}}, NULL, 36},
	{{"AD106", FAMILY(ADA), "RTX 4060 Ti", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_ADA, "ad10x", 0x196, {{0x2800, 0x287f}}, NULL, 36},
	{{"AD107", FAMILY(ADA), "RTX 4060", &gmmu_format_v2_ga, HAL, NULL},
	 P2PS_NV_GEN_ADA, "ad10x", 0x197, {{0x2880, 0x28ff}}, NULL, 36},
	{{"GH100", FAMILY(HOPPER), "H100, H200", &gmmu_format_v3_gh, HAL, NULL},
	 P2PS_NV_GEN_HOPPER, "gh100", 0x180, {{0x2300, 0x237f}}, NULL, 39},
	{{"GB100", FAMILY(BLACKWELL), "B200", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb100", 0x1a0, {{0x2900, 0x297f}}, NULL, 42},
	{{"GB102", FAMILY(BLACKWELL), "", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb100", 0x1a2, {{0, 0}}, NO_PCI_PUBLIC, 42},
	{{"GB10B", FAMILY(BLACKWELL), "", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb10b", 0x1ab, {{0, 0}}, NO_PCI_TEGRA, 42},
	{{"GB10C", FAMILY(BLACKWELL), "", &gmmu_format_v3_gb, HAL_NEW, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb10c", 0x1ac, {{0, 0}}, NO_PCI_PUBLIC_NEW, 42},
	{{"GB110", FAMILY(BLACKWELL), "B300, GB300", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb110", 0x1a3, {{0x3180, 0x31ff}}, NULL, 42},
	{{"GB112", FAMILY(BLACKWELL), "", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb110", 0x1a4, {{0, 0}}, NO_PCI_PUBLIC, 42},
	{{"GB202", FAMILY(BLACKWELL), "RTX 5090, RTX PRO 6000 Blackwell", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb20x", 0x1b2, {{0x2b80, 0x2bff}}, NULL, 42},
	{{"GB203", FAMILY(BLACKWELL), "RTX 5080, RTX 5070 Ti", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb20x", 0x1b3, {{0x2c00, 0x2c7f}}, NULL, 42},
	{{"GB205", FAMILY(BLACKWELL), "RTX 5070", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb20x", 0x1b5, {{0x2f00, 0x2f7f}}, NULL, 42},
	{{"GB206", FAMILY(BLACKWELL), "RTX 5060 Ti, RTX 5060", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb20x", 0x1b6, {{0x2d00, 0x2d7f}}, NULL, 42},
	{{"GB207", FAMILY(BLACKWELL), "RTX 5050", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb20x", 0x1b7, {{0x2d80, 0x2dff}}, NULL, 42},
	{{"GB20B", FAMILY(BLACKWELL), "GB10", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb20b", 0x1bb, {{0x2e00, 0x2e7f}}, NULL, 42},
	{{"GB20C", FAMILY(BLACKWELL), "", &gmmu_format_v3_gb, HAL, NULL},
	 P2PS_NV_GEN_BLACKWELL, "gb20c", 0x1bc, {{0, 0}}, NO_PCI_TEGRA, 42},
	{{"GR100", FAMILY(RUBIN), "", &gmmu_format_v3_gb, HAL_NEW_NO_HEADER, NOTE_NO_HEADER},
	 P2PS_NV_GEN_RUBIN, "gr100", 0x1c0, {{0, 0}}, NO_PCI_PUBLIC_NEW, 42},
	{{"GR102", FAMILY(RUBIN), "", &gmmu_format_v3_gb, HAL_NEW_NO_HEADER, NOTE_NO_HEADER},
	 P2PS_NV_GEN_RUBIN, "gr102", 0x1c2, {{0, 0}}, NO_PCI_PUBLIC_NEW, 42},
};
/* clang-format on */

const char *p2ps_nv_generation_name(enum p2ps_nv_generation g)
{
	return (unsigned)g < P2PS_NV_GEN_COUNT && generation_names[g][0] ? generation_names[g]
	                                                                 : NULL;
}

const struct p2ps_nvidia_chip *p2ps_nvidia_chip_table(size_t *count)
{
	if (count)
		*count = GMMU_ARRAY_SIZE(chips);
	return chips;
}

const struct p2ps_nvidia_chip *p2ps_nvidia_chip_lookup(uint16_t device_id)
{
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(chips); i++)
		for (size_t k = 0; k < P2PS_NV_MAX_ID_RANGES; k++) {
			const struct p2ps_nv_id_range *r = &chips[i].ids[k];
			if (r->last && device_id >= r->first && device_id <= r->last)
				return &chips[i];
		}
	return NULL;
}

const struct p2ps_nvidia_chip *p2ps_nvidia_chip_by_boot0(uint16_t chip_id)
{
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(chips); i++)
		if (chips[i].boot0_id == chip_id)
			return &chips[i];
	return NULL;
}

const struct p2ps_nvidia_chip *p2ps_nvidia_chip_find(const char *chip)
{
	for (size_t i = 0; chip && i < GMMU_ARRAY_SIZE(chips); i++)
		if (!strcasecmp(chip, chips[i].gmmu.name))
			return &chips[i];
	return NULL;
}

const struct gmmu_format *p2ps_nvidia_chip_gmmu(const char *chip)
{
	const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_find(chip);
	return c ? c->gmmu.format : NULL;
}
