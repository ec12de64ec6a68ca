/* SPDX-License-Identifier: MIT */
/* The chip table's NVLink fabric-base alignment (p2pscope/nvidia_chips.h): the NVSwitch
 * map slot knvlinkValidateFabricBaseAddress_* holds a chip's fabric base to. The expected
 * values are the driver's, not the table's: the chip lists of the HAL dispatch in
 * g_kernel_nvlink_nvoc.c (595.45.04; GV100 from 580.142) and the slot size each variant
 * checks. Every chip not listed must have none (0): pte-probe then asks for page alignment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"

static const struct {
	const char *chip;
	unsigned align; /* log2 */
} known[] = {
        {"GV100", 34}, /* _GV100: 16 GB */
        {"GA100", 36},
        {"GA102", 36},
        {"GA103", 36},
        {"GA104", 36},
        {"GA106", 36},
        {"GA107", 36},
        {"AD102", 36},
        {"AD103", 36},
        {"AD104", 36},
        {"AD106", 36},
        {"AD107", 36}, /* _GA100: 64 GB */
        {"GH100", 39}, /* _GH100: 512 GB */
        {"GB100", 42},
        {"GB102", 42},
        {"GB10B", 42},
        {"GB110", 42},
        {"GB112", 42},
        {"GB202", 42},
        {"GB203", 42},
        {"GB205", 42},
        {"GB206", 42},
        {"GB207", 42},
        {"GB20B", 42},
        {"GB20C", 42}, /* _GB100: 4 TB */
        /* 615.71.09 (commit 61dcc937): GB10C, GR100, GR102 also dispatch to _GB100 */
        {"GB10C", 42},
        {"GR100", 42},
        {"GR102", 42},
};

static unsigned expected(const char *chip)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(chip, known[i].chip))
			return known[i].align;
	return 0;
}

static void every_row_has_the_drivers_alignment(void **state)
{
	(void)state;
	size_t n;
	const struct p2ps_nvidia_chip *t = p2ps_nvidia_chip_table(&n);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		unsigned want = expected(p2ps_nvidia_chip_name(&t[i]));
		if (t[i].nvlink_fabric_align != want)
			fail_msg("%s: fabric alignment 2^%u, the driver's is 2^%u",
			         p2ps_nvidia_chip_name(&t[i]), t[i].nvlink_fabric_align, want);
	}
}

static void every_listed_chip_is_in_the_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_find(known[i].chip);
		if (!c)
			fail_msg("%s: not in the chip table", known[i].chip);
		assert_int_equal(c->nvlink_fabric_align, known[i].align);
	}
	/* Chips without NVSwitch support: the stub that answers NOT_SUPPORTED (TU10x), and
	 * generations before NVSwitch. */
	assert_int_equal(p2ps_nvidia_chip_find("TU102")->nvlink_fabric_align, 0);
	assert_int_equal(p2ps_nvidia_chip_find("GP100")->nvlink_fabric_align, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(every_row_has_the_drivers_alignment),
	        cmocka_unit_test(every_listed_chip_is_in_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
