/* SPDX-License-Identifier: MIT */
/* p2pscope: the one NVIDIA chip table — every fact the tools key by chip, in one row.
 *
 * A row names a chip ("AD102") and gives its generation, its family prefix in NVIDIA's
 * headers, its NV_PMC_BOOT_42 chip id (what PMC_BOOT_0 decodes to), the PCI device-id
 * ranges NVIDIA allocated to it, its GMMU page-table format and the alignment of its NVLink
 * fabric base. libgmmu (gmmu_chip_*()), the host model (a GPU's chip by device id), VFIO
 * (a chip by PMC_BOOT_0) and pte-probe (the fabric base) all read this table, so they
 * cannot disagree. Adding a chip is adding a row
 * (src/gmmu/nvidia_chips.c); test_nvidia_chips checks that every chip with a GMMU format
 * is found by its device ids and by BOOT_0, and fails on a row missing a column.
 *
 * The table lives in libgmmu, which is shipped on its own (gmmu.pc): this header is
 * installed with it.
 */
#ifndef P2PSCOPE_NVIDIA_CHIPS_H
#define P2PSCOPE_NVIDIA_CHIPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/gmmu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GPU generations in release order: comparisons (<, >=) are meaningful. */
enum p2ps_nv_generation {
	P2PS_NV_GEN_UNKNOWN = 0,
	P2PS_NV_GEN_MAXWELL,
	P2PS_NV_GEN_PASCAL,
	P2PS_NV_GEN_VOLTA,
	P2PS_NV_GEN_TURING, /* the first generation NVIDIA's open kernel modules support */
	P2PS_NV_GEN_AMPERE,
	P2PS_NV_GEN_ADA,
	P2PS_NV_GEN_HOPPER,
	P2PS_NV_GEN_BLACKWELL,
	P2PS_NV_GEN_RUBIN,
	P2PS_NV_GEN_COUNT
};

/* "Maxwell" ... "Rubin"; NULL for UNKNOWN or out of range. */
const char *p2ps_nv_generation_name(enum p2ps_nv_generation g);

/* One block of PCI device ids (vendor 0x10de), inclusive. */
struct p2ps_nv_id_range {
	uint16_t first;
	uint16_t last;
};

#define P2PS_NV_MAX_ID_RANGES 2

struct p2ps_nvidia_chip {
	/* libgmmu's view of the row (gmmu_chip_at/find return &row->gmmu): name ("AD102"),
	 * family (the generation's name), example boards, GMMU format (NULL: libgmmu has
	 * none, e.g. Maxwell's v1 layout) and where the format assignment comes from. */
	struct gmmu_chip gmmu;
	enum p2ps_nv_generation generation;
	const char *arch; /* family prefix of NVIDIA's headers: "gp10x", "ad10x", "gb20x" */
	/* NV_PMC_BOOT_42 chip id: PMC_BOOT_0's architecture << 4 | implementation (0x192). */
	uint16_t boot0_id;
	/* Device-id blocks; unused entries are {0, 0}. NVIDIA allocates ids in 0x80-aligned
	 * blocks per chip, so a block names the chip even for boards newer than pci.ids. */
	struct p2ps_nv_id_range ids[P2PS_NV_MAX_ID_RANGES];
	const char *no_ids; /* why the row has no device-id block; NULL when it has one */
	/* log2 of the alignment the driver demands of the chip's NVLink fabric (GPA) base: the
	 * NVSwitch map-slot size of its generation (knvlinkValidateFabricBaseAddress_*).
	 * 0: none (the chip has no NVSwitch support) or unknown. */
	uint8_t nvlink_fabric_align;
};

/* The whole table, for listings and tests; *count receives the number of rows. */
const struct p2ps_nvidia_chip *p2ps_nvidia_chip_table(size_t *count);

/* The row whose device-id blocks hold device_id (vendor 0x10de assumed), or NULL. */
const struct p2ps_nvidia_chip *p2ps_nvidia_chip_lookup(uint16_t device_id);

/* The row with this NV_PMC_BOOT_42 chip id, or NULL. */
const struct p2ps_nvidia_chip *p2ps_nvidia_chip_by_boot0(uint16_t chip_id);

/* The row named chip (case-insensitive), or NULL. */
const struct p2ps_nvidia_chip *p2ps_nvidia_chip_find(const char *chip);

/* The chip's name ("AD102"). */
static inline const char *p2ps_nvidia_chip_name(const struct p2ps_nvidia_chip *c)
{
	return c->gmmu.name;
}

/* The GMMU format of the chip named chip ("AD102" -> v2-ga), or NULL when chip is NULL,
 * not in the table, or has no format libgmmu models. Callers say "unknown" then. */
const struct gmmu_format *p2ps_nvidia_chip_gmmu(const char *chip);

/* NVIDIA NV_PMC_BOOT_0 (BAR0 + 0x0), decoded from the published field layout. */
struct p2ps_nv_boot0 {
	uint32_t raw;
	bool responding;        /* false for 0xffffffff (device gone / in reset / BAR off) */
	uint8_t minor_rev;      /* NV_PMC_BOOT_0_MINOR_REVISION 3:0 */
	uint8_t major_rev;      /* NV_PMC_BOOT_0_MAJOR_REVISION 7:4 */
	uint8_t implementation; /* NV_PMC_BOOT_0_IMPLEMENTATION 23:20 */
	uint8_t architecture;   /* ARCHITECTURE_1 8:8 << 5 | ARCHITECTURE_0 28:24 */
	uint16_t chip_id;       /* architecture << 4 | implementation, e.g. 0x192 */
	const char *arch_name;  /* "Ada", ... or NULL when the architecture is unknown */
	const char *chip_name;  /* "AD102", ... or NULL */
	const char *gmmu;       /* libgmmu's format of chip_name ("v2-ga"), or NULL */
};

void p2ps_nv_boot0_decode(uint32_t raw, struct p2ps_nv_boot0 *out);

#ifdef __cplusplus
}
#endif

#endif
