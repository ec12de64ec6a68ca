/* SPDX-License-Identifier: MIT */
/* The one NVIDIA chip table (p2pscope/nvidia_chips.h): every chip with a GMMU format is
 * recognised from its PCI device ids and from PMC_BOOT_0, and a row missing any column
 * fails here. Chips without a public PCI device id are listed below with the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"

/* The rows that may lack a device-id block, and why (the row's no_ids must say so). */
static const struct {
	const char *chip;
	const char *because;
} no_device_ids[] = {
        {"GM107", "Maxwell: kept out of device-id recognition"},
        {"GM108", "Maxwell: kept out of device-id recognition"},
        {"GM200", "Maxwell: kept out of device-id recognition"},
        {"GM204", "Maxwell: kept out of device-id recognition"},
        {"GM206", "Maxwell: kept out of device-id recognition"},
        {"GV11B", "Tegra Xavier iGPU, not a PCI device"},
        {"GB10B", "Tegra Thor iGPU, not a PCI device"},
        {"GB20C", "Tegra iGPU, not a PCI device"},
        {"GB102", "no board with a public device id"},
        {"GB112", "no board with a public device id"},
        {"GB10C", "new in 615.71.09: no board with a public device id"},
        {"GR100", "Rubin, new in 615.71.09: no board with a public device id"},
        {"GR102", "Rubin, new in 615.71.09: no board with a public device id"},
};

static bool allowed_without_ids(const char *chip)
{
	for (size_t i = 0; i < sizeof(no_device_ids) / sizeof(no_device_ids[0]); i++)
		if (!strcmp(chip, no_device_ids[i].chip))
			return true;
	return false;
}

/* PMC_BOOT_0 as the published fields put a chip id: ARCHITECTURE_0 28:24, ARCHITECTURE_1
 * 8:8 (the architecture's bit 5), IMPLEMENTATION 23:20, revision A1 in 7:0. */
static uint32_t boot0_of(uint16_t chip_id)
{
	uint32_t arch = chip_id >> 4, impl = chip_id & 0xf;
	return (arch & 0x1f) << 24 | (arch >> 5) << 8 | impl << 20 | 0xa1;
}

static void row_by_device_ids(const struct p2ps_nvidia_chip *c)
{
	const char *name = p2ps_nvidia_chip_name(c);
	if (!c->ids[0].last) {
		if (!c->no_ids || !allowed_without_ids(name))
			fail_msg("%s has no device-id block and no listed reason", name);
		return;
	}
	assert_null(c->no_ids);
	for (size_t k = 0; k < P2PS_NV_MAX_ID_RANGES && c->ids[k].last; k++) {
		if (p2ps_nvidia_chip_lookup(c->ids[k].first) != c ||
		    p2ps_nvidia_chip_lookup(c->ids[k].last) != c)
			fail_msg("%s: device ids %04x..%04x do not resolve to it", name,
			         c->ids[k].first, c->ids[k].last);
	}
}

static void row_by_boot0(const struct p2ps_nvidia_chip *c)
{
	const char *name = p2ps_nvidia_chip_name(c);
	struct p2ps_nv_boot0 b;
	if (!c->boot0_id)
		fail_msg("%s has no BOOT_42 chip id", name);
	assert_ptr_equal(p2ps_nvidia_chip_by_boot0(c->boot0_id), c);
	p2ps_nv_boot0_decode(boot0_of(c->boot0_id), &b);
	assert_int_equal(b.chip_id, c->boot0_id);
	if (!b.chip_name || strcmp(b.chip_name, name))
		fail_msg("%s: BOOT_0 0x%08x decodes to %s", name, boot0_of(c->boot0_id),
		         b.chip_name ? b.chip_name : "nothing");
	/* The architecture BOOT_0 names is the row's generation. */
	const char *gen = p2ps_nv_generation_name(c->generation);
	assert_non_null(b.arch_name);
	if (strncmp(b.arch_name, gen, strlen(gen)))
		fail_msg("%s: BOOT_0 architecture %s, row generation %s", name, b.arch_name, gen);
	if (c->gmmu.format)
		assert_string_equal(b.gmmu, c->gmmu.format->name);
	else
		assert_null(b.gmmu);
}

static void every_column(void **state)
{
	(void)state;
	size_t n, with_format = 0;
	const struct p2ps_nvidia_chip *t = p2ps_nvidia_chip_table(&n);
	for (size_t i = 0; i < n; i++) {
		const struct p2ps_nvidia_chip *c = &t[i];
		assert_non_null(c->gmmu.name);
		assert_true(c->generation > P2PS_NV_GEN_UNKNOWN &&
		            c->generation < P2PS_NV_GEN_COUNT);
		assert_string_equal(c->gmmu.family, p2ps_nv_generation_name(c->generation));
		assert_true(c->arch && c->arch[0]);
		assert_ptr_equal(p2ps_nvidia_chip_find(c->gmmu.name), c);
		row_by_device_ids(c);
		row_by_boot0(c);
		if (c->gmmu.format) {
			with_format++;
			assert_non_null(c->gmmu.source);
		}
	}
	/* libgmmu lists exactly the rows with a format, in table order. */
	assert_int_equal(gmmu_chip_count(), with_format);
	for (size_t i = 0, k = 0; i < n; i++)
		if (t[i].gmmu.format)
			assert_ptr_equal(gmmu_chip_at(k++), &t[i].gmmu);
}

/* The chips the table once lacked a column for, by boards NVIDIA's README lists. */
static void newest_boards(void **state)
{
	(void)state;
	static const struct {
		uint16_t device_id;
		const char *chip;
	} boards[] = {
	        {0x3182, "GB110"}, /* B300 SXM6 AC */
	        {0x31c2, "GB110"}, /* GB300 */
	        {0x2e12, "GB20B"}, /* GB10 (DGX Spark) */
	        {0x2901, "GB100"}, /* B200 */
	        {0x2b85, "GB202"}, /* RTX 5090 */
	};
	for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_lookup(boards[i].device_id);
		assert_non_null(c);
		assert_string_equal(p2ps_nvidia_chip_name(c), boards[i].chip);
	}
	/* Generations compare in release order. */
	assert_true(P2PS_NV_GEN_PASCAL < P2PS_NV_GEN_TURING);
	assert_true(P2PS_NV_GEN_HOPPER < P2PS_NV_GEN_BLACKWELL);
	assert_true(P2PS_NV_GEN_BLACKWELL < P2PS_NV_GEN_RUBIN);
	assert_string_equal(p2ps_nv_generation_name(P2PS_NV_GEN_RUBIN), "Rubin");
	assert_string_equal(p2ps_nv_generation_name(P2PS_NV_GEN_ADA), "Ada");
	assert_null(p2ps_nv_generation_name(P2PS_NV_GEN_UNKNOWN));
	assert_null(p2ps_nvidia_chip_lookup(0x13ba)); /* a Maxwell board stays unknown */
}

/* The chips 615.71.09 added, by their BOOT_42 ids: nv_arch.h and ctrl2080mc.h at commit
 * 61dcc93722ecb418bb5f2e00923f05b4b8051dd1 (GPU_ARCHITECTURE_BLACKWELL_GB1XX 0x1A0
 * implementation 0xC; NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GR100 0x1C0, implementations
 * GR100 0x0, GR102 0x2). None has a public device id: no 10de:xxxx names them, so an id the
 * table does not hold stays unknown instead of being guessed from a neighbouring block. */
static void chips_of_615(void **state)
{
	(void)state;
	static const struct {
		const char *chip;
		uint16_t boot42;
		enum p2ps_nv_generation gen;
	} rows[] = {
	        {"GB10C", 0x1ac, P2PS_NV_GEN_BLACKWELL},
	        {"GR100", 0x1c0, P2PS_NV_GEN_RUBIN},
	        {"GR102", 0x1c2, P2PS_NV_GEN_RUBIN},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_find(rows[i].chip);
		assert_non_null(c);
		assert_int_equal(c->boot0_id, rows[i].boot42);
		assert_int_equal(c->generation, rows[i].gen);
		assert_int_equal(c->ids[0].last, 0);
		assert_non_null(strstr(c->no_ids, "no public device id"));
		/* knvlinkValidateFabricBaseAddress_GB100 for all three: 4 TB slots */
		assert_int_equal(c->nvlink_fabric_align, 42);
	}
	struct p2ps_nv_boot0 b;
	p2ps_nv_boot0_decode(0x1c2000a1, &b); /* ARCHITECTURE_0 0x1c, IMPLEMENTATION 2 */
	assert_string_equal(b.chip_name, "GR102");
	assert_string_equal(b.arch_name, "Rubin (GR10x)");
	/* Ids no row holds: neither the 0x3200 block after GB110's nor the 0x2e80 block after
	 * GB20B's names a chip. */
	assert_null(p2ps_nvidia_chip_lookup(0x3200));
	assert_null(p2ps_nvidia_chip_lookup(0x2e80));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(every_column),
	        cmocka_unit_test(newest_boards),
	        cmocka_unit_test(chips_of_615),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
