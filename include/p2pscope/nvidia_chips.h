/* p2pscope: NVIDIA GPU chip and generation by PCI device id.
 *
 * A generation is data: one table row per device-id range (src/host/nvidia_chips.c).
 * NVIDIA allocates device ids in blocks per chip (e.g. 0x2680..0x26ff for AD102), so
 * a range names the chip even for boards newer than the system's pci.ids. The GMMU
 * page-table format is not a column here: libgmmu's chip map (from NVIDIA's kern_gmmu
 * HAL) owns it, and p2ps_nvidia_chip_gmmu() asks it by chip name.
 */
#ifndef P2PSCOPE_NVIDIA_CHIPS_H
#define P2PSCOPE_NVIDIA_CHIPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct p2ps_nvidia_chip {
	uint16_t first;         /* first device id of the range (inclusive) */
	uint16_t last;          /* last device id of the range (inclusive) */
	const char *chip;       /* "AD102", "GH100", "GB202" */
	const char *generation; /* "Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper",
	                           "Blackwell" */
	const char *arch;       /* the chip family prefix NVIDIA's headers use: "gp10x", "ad10x" */
};

struct gmmu_format;

/* The row whose range holds device_id (vendor 0x10de assumed), or NULL. */
const struct p2ps_nvidia_chip *p2ps_nvidia_chip_lookup(uint16_t device_id);

/* The whole table, for listings and tests; *count receives the number of rows. */
const struct p2ps_nvidia_chip *p2ps_nvidia_chip_table(size_t *count);

/* The GMMU format libgmmu assigns to a chip by its HAL name ("AD102" -> "v2-ga"), or NULL
 * when chip is NULL or libgmmu has no chip of that name (Maxwell, display-only Tegra,
 * a chip newer than libgmmu). Callers say "unknown" with that reason. */
const struct gmmu_format *p2ps_nvidia_chip_gmmu(const char *chip);

#ifdef __cplusplus
}
#endif

#endif
