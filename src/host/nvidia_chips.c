/* NVIDIA chip table: device-id ranges per chip. The ranges follow NVIDIA's block
 * allocation (each chip owns one or more 0x80-aligned blocks); the chip names match
 * the prefixes pci.ids gives its entries (test_chip_table in tests/host/test_host_model.c
 * checks every GPU entry of the system's pci.ids against this table, and that libgmmu's
 * chip map knows every row's chip with the same generation). The GMMU format is taken
 * from libgmmu by chip name, so the two tables cannot disagree on it. */
#include "p2pscope/nvidia_chips.h"

#include "p2pscope/gmmu.h"

/* Sorted by first id; ranges do not overlap (checked by the unit test). */
static const struct p2ps_nvidia_chip chips[] = {
        {0x15f0, 0x15ff, "GP100", "Pascal", "gp100"},
        {0x1720, 0x173f, "GP100", "Pascal", "gp100"},
        {0x1b00, 0x1b7f, "GP102", "Pascal", "gp10x"},
        {0x1b80, 0x1bff, "GP104", "Pascal", "gp10x"},
        {0x1c00, 0x1c7f, "GP106", "Pascal", "gp10x"},
        {0x1c80, 0x1cff, "GP107", "Pascal", "gp10x"},
        {0x1d00, 0x1d7f, "GP108", "Pascal", "gp10x"},
        {0x1d80, 0x1dff, "GV100", "Volta", "gv100"},
        {0x1e00, 0x1e7f, "TU102", "Turing", "tu10x"},
        {0x1e80, 0x1eff, "TU104", "Turing", "tu10x"},
        {0x1f00, 0x1f7f, "TU106", "Turing", "tu10x"},
        {0x1f80, 0x1fff, "TU117", "Turing", "tu10x"},
        {0x2080, 0x20ff, "GA100", "Ampere", "ga100"},
        {0x2180, 0x21ff, "TU116", "Turing", "tu10x"},
        {0x2200, 0x227f, "GA102", "Ampere", "ga10x"},
        {0x2300, 0x237f, "GH100", "Hopper", "gh100"},
        {0x2400, 0x247f, "GA103", "Ampere", "ga10x"},
        {0x2480, 0x24ff, "GA104", "Ampere", "ga10x"},
        {0x2500, 0x257f, "GA106", "Ampere", "ga10x"},
        {0x2580, 0x25ff, "GA107", "Ampere", "ga10x"},
        {0x2680, 0x26ff, "AD102", "Ada", "ad10x"},
        {0x2700, 0x277f, "AD103", "Ada", "ad10x"},
        {0x2780, 0x27ff, "AD104", "Ada", "ad10x"},
        {0x2800, 0x287f, "AD106", "Ada", "ad10x"},
        {0x2880, 0x28ff, "AD107", "Ada", "ad10x"},
        {0x2900, 0x297f, "GB100", "Blackwell", "gb100"},
        {0x2b80, 0x2bff, "GB202", "Blackwell", "gb20x"},
        {0x2c00, 0x2c7f, "GB203", "Blackwell", "gb20x"},
        {0x2d00, 0x2d7f, "GB206", "Blackwell", "gb20x"},
        {0x2d80, 0x2dff, "GB207", "Blackwell", "gb20x"},
        {0x2f00, 0x2f7f, "GB205", "Blackwell", "gb20x"},
};

const struct p2ps_nvidia_chip *p2ps_nvidia_chip_lookup(uint16_t device_id)
{
	for (size_t i = 0; i < sizeof(chips) / sizeof(chips[0]); i++)
		if (device_id >= chips[i].first && device_id <= chips[i].last)
			return &chips[i];
	return NULL;
}

const struct p2ps_nvidia_chip *p2ps_nvidia_chip_table(size_t *count)
{
	if (count)
		*count = sizeof(chips) / sizeof(chips[0]);
	return chips;
}

const struct gmmu_format *p2ps_nvidia_chip_gmmu(const char *chip)
{
	const struct gmmu_chip *c = chip ? gmmu_chip_find(chip) : NULL;
	return c ? c->format : NULL;
}
