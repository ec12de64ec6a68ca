/* SPDX-License-Identifier: MIT */
/* NVIDIA NV_PMC_BOOT_0 (BAR0 + 0x0) decoded into architecture, chip and GMMU format.
 *
 * Field positions are NVIDIA's published ones (open-gpu-kernel-modules
 * src/common/inc/swref/published/nv_ref.h, and open-gpu-doc
 * manuals/ampere/ga100/dev_boot.ref.txt for the four classic fields); the architecture
 * is split in two fields since Blackwell-era headers (ARCHITECTURE_1 is its most
 * significant bit). The chip comes from the chip table's BOOT_42 chip id column.
 */
#include "p2pscope/nvidia_chips.h"

#include <string.h>

#include "gmmu_internal.h"

enum boot0_field {
	B0_MINOR_REV,
	B0_MAJOR_REV,
	B0_ARCH_1,
	B0_IMPL,
	B0_ARCH_0,
	B0_NFIELDS,
};

static const struct {
	const char *name;
	unsigned hi, lo;
} boot0_fields[B0_NFIELDS] = {
        [B0_MINOR_REV] = {"MINOR_REVISION", 3, 0}, /* NV_PMC_BOOT_0_MINOR_REVISION 3:0 */
        [B0_MAJOR_REV] = {"MAJOR_REVISION", 7, 4}, /* NV_PMC_BOOT_0_MAJOR_REVISION 7:4 */
        [B0_ARCH_1] = {"ARCHITECTURE_1", 8, 8},    /* NV_PMC_BOOT_0_ARCHITECTURE_1 8:8 */
        [B0_IMPL] = {"IMPLEMENTATION", 23, 20},    /* NV_PMC_BOOT_0_IMPLEMENTATION 23:20 */
        [B0_ARCH_0] = {"ARCHITECTURE_0", 28, 24},  /* NV_PMC_BOOT_0_ARCHITECTURE_0 28:24 */
};

/* NV_PMC_BOOT_42_ARCHITECTURE_* values (nv_ref.h), as BOOT_0 reports name them. */
static const struct {
	uint8_t arch;
	const char *name;
} nv_archs[] = {
        {0x11, "Maxwell (GM10x)"},
        {0x12, "Maxwell (GM20x)"},
        {0x13, "Pascal"},
        {0x14, "Volta"},
        {0x15, "Volta (GV11B, Tegra)"},
        {0x16, "Turing"},
        {0x17, "Ampere"},
        {0x18, "Hopper"},
        {0x19, "Ada"},
        {0x1a, "Blackwell (GB10x)"},
        {0x1b, "Blackwell (GB20x)"},
        {0x1c, "Rubin (GR10x)"},
};

static unsigned field_width(enum boot0_field f)
{
	return boot0_fields[f].hi - boot0_fields[f].lo + 1;
}

static uint32_t boot0_get(uint32_t raw, enum boot0_field f)
{
	unsigned width = field_width(f);
	uint32_t mask = width >= 32 ? UINT32_MAX : ((UINT32_C(1) << width) - 1);
	return (raw >> boot0_fields[f].lo) & mask;
}

void p2ps_nv_boot0_decode(uint32_t raw, struct p2ps_nv_boot0 *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	out->raw = raw;
	/* All ones is what a read returns when the device does not answer
	 * (surprise removal, in reset, memory decoding off). */
	out->responding = raw != UINT32_MAX;
	if (!out->responding)
		return;
	out->minor_rev = (uint8_t)boot0_get(raw, B0_MINOR_REV);
	out->major_rev = (uint8_t)boot0_get(raw, B0_MAJOR_REV);
	out->implementation = (uint8_t)boot0_get(raw, B0_IMPL);
	out->architecture = (uint8_t)(boot0_get(raw, B0_ARCH_1) << field_width(B0_ARCH_0) |
	                              boot0_get(raw, B0_ARCH_0));
	out->chip_id = (uint16_t)((unsigned)out->architecture << field_width(B0_IMPL) |
	                          out->implementation);
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(nv_archs); i++)
		if (nv_archs[i].arch == out->architecture)
			out->arch_name = nv_archs[i].name;
	const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_by_boot0(out->chip_id);
	out->chip_name = c ? c->gmmu.name : NULL;
	out->gmmu = c && c->gmmu.format ? c->gmmu.format->name : NULL;
}
