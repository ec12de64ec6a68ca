/* p2pscope: NVIDIA NV_PMC_BOOT_0 (BAR0 + 0x0) decoded into chip and GMMU format.
 *
 * Every fact below is data. Field positions are NVIDIA's published ones
 * (open-gpu-kernel-modules src/common/inc/swref/published/nv_ref.h, and
 * open-gpu-doc manuals/ampere/ga100/dev_boot.ref.txt for the four classic
 * fields); the architecture is split in two fields since Blackwell-era headers
 * (ARCHITECTURE_1 is its most significant bit). Chip ids (architecture << 4 |
 * implementation) follow the names the Linux nova-core and nouveau drivers use.
 * The GMMU format is not kept here: libgmmu's chip map (NVIDIA's kern_gmmu HAL per
 * chip) gives it by chip name, through p2ps_nvidia_chip_gmmu().
 */
#include "p2pscope/vfio.h"

#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"

#include <stddef.h>
#include <string.h>

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

static uint32_t boot0_get(uint32_t raw, enum boot0_field f)
{
	unsigned width = boot0_fields[f].hi - boot0_fields[f].lo + 1;
	uint32_t mask = width >= 32 ? UINT32_MAX : ((UINT32_C(1) << width) - 1);
	return (raw >> boot0_fields[f].lo) & mask;
}

/* NV_PMC_BOOT_42_ARCHITECTURE_* values (nv_ref.h). */
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
};

static const struct {
	uint16_t id;
	const char *name;
} nv_chips[] = {
        {0x117, "GM107"}, {0x118, "GM108"}, {0x120, "GM200"}, {0x124, "GM204"}, {0x126, "GM206"},
        {0x130, "GP100"}, {0x132, "GP102"}, {0x134, "GP104"}, {0x136, "GP106"}, {0x137, "GP107"},
        {0x138, "GP108"}, {0x140, "GV100"}, {0x162, "TU102"}, {0x164, "TU104"}, {0x166, "TU106"},
        {0x167, "TU117"}, {0x168, "TU116"}, {0x170, "GA100"}, {0x172, "GA102"}, {0x173, "GA103"},
        {0x174, "GA104"}, {0x176, "GA106"}, {0x177, "GA107"}, {0x180, "GH100"}, {0x192, "AD102"},
        {0x193, "AD103"}, {0x194, "AD104"}, {0x196, "AD106"}, {0x197, "AD107"}, {0x1a0, "GB100"},
        {0x1a2, "GB102"}, {0x1b2, "GB202"}, {0x1b3, "GB203"}, {0x1b5, "GB205"}, {0x1b6, "GB206"},
        {0x1b7, "GB207"},
};

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
	unsigned arch0_width = boot0_fields[B0_ARCH_0].hi - boot0_fields[B0_ARCH_0].lo + 1;
	out->architecture =
	        (uint8_t)(boot0_get(raw, B0_ARCH_1) << arch0_width | boot0_get(raw, B0_ARCH_0));
	unsigned impl_width = boot0_fields[B0_IMPL].hi - boot0_fields[B0_IMPL].lo + 1;
	out->chip_id = (uint16_t)((unsigned)out->architecture << impl_width | out->implementation);
	for (size_t i = 0; i < sizeof(nv_archs) / sizeof(nv_archs[0]); i++) {
		if (nv_archs[i].arch == out->architecture)
			out->arch_name = nv_archs[i].name;
	}
	for (size_t i = 0; i < sizeof(nv_chips) / sizeof(nv_chips[0]); i++)
		if (nv_chips[i].id == out->chip_id)
			out->chip_name = nv_chips[i].name;
	const struct gmmu_format *f = p2ps_nvidia_chip_gmmu(out->chip_name);
	out->gmmu = f ? f->name : NULL;
}
