/* SPDX-License-Identifier: MIT */
/* Reading one register read-only (VFIO mmap, VFIO pread, sysfs resourceN), the
 * BAR:OFFSET syntax, and NV_PMC_BOOT_0 decoding against NVIDIA's published
 * values (nv_ref.h: NV_PMC_BOOT_0_ARCHITECTURE_* and NV_PMC_BOOT_42_CHIP_ID_GA100). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>

#include "fake_kernel.h"
#include "p2pscope/render.h"
#include "p2pscope/vfio.h"

/* The device at the address text bdf (which must parse). */
static const struct p2ps_bdf *addr(const char *bdf)
{
	static struct p2ps_bdf b;
	assert_int_equal(p2ps_bdf_parse(bdf, &b), 0);
	return &b;
}

static void reg_spec(void **state)
{
	(void)state;
	unsigned bar;
	uint64_t off;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_vfio_reg_spec_parse("0:0x0", &bar, &off, &err), 0);
	assert_int_equal(bar, 0);
	assert_int_equal(off, 0);
	assert_int_equal(p2ps_vfio_reg_spec_parse("1:0x88000", &bar, &off, &err), 0);
	assert_int_equal(bar, 1);
	assert_int_equal(off, 0x88000);
	assert_int_equal(p2ps_vfio_reg_spec_parse("5:16", &bar, &off, &err), 0);
	assert_int_equal(off, 16);
	assert_int_equal(p2ps_vfio_reg_spec_parse("6:0x0", &bar, &off, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_vfio_reg_spec_parse("0:0x2", &bar, &off, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "not 4-byte aligned"));
	assert_int_equal(p2ps_vfio_reg_spec_parse("0", &bar, &off, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_vfio_reg_spec_parse("0:", &bar, &off, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_vfio_reg_spec_parse(":4", &bar, &off, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_vfio_reg_spec_parse("0:0xzz", &bar, &off, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_vfio_reg_spec_parse("0:-4", &bar, &off, &err), P2PS_EINVAL);
}

static void boot0_published_values(void **state)
{
	(void)state;
	struct p2ps_nv_boot0 b;
	/* GA100 A1: architecture 0x17 = NV_PMC_BOOT_0_ARCHITECTURE_GA100, chip id
	 * 0x170 = NV_PMC_BOOT_42_CHIP_ID_GA100. */
	p2ps_nv_boot0_decode(0x170000a1u, &b);
	assert_true(b.responding);
	assert_int_equal(b.architecture, 0x17);
	assert_int_equal(b.implementation, 0);
	assert_int_equal(b.chip_id, 0x170);
	assert_int_equal(b.major_rev, 0xa);
	assert_int_equal(b.minor_rev, 1);
	assert_string_equal(b.chip_name, "GA100");
	assert_string_equal(b.arch_name, "Ampere");
	assert_string_equal(b.gmmu, "v2-ga");
	/* AD102: NV_PMC_BOOT_0_ARCHITECTURE_AD100 = 0x19, implementation 2. */
	p2ps_nv_boot0_decode(0x192000a1u, &b);
	assert_int_equal(b.architecture, 0x19);
	assert_int_equal(b.chip_id, 0x192);
	assert_string_equal(b.chip_name, "AD102");
	assert_string_equal(b.arch_name, "Ada");
	/* GH100: NV_PMC_BOOT_0_ARCHITECTURE_GH100 = 0x18 uses the v3 format. */
	p2ps_nv_boot0_decode(0x180000a1u, &b);
	assert_string_equal(b.chip_name, "GH100");
	assert_string_equal(b.gmmu, "v3-gh");
	/* GB202: NV_PMC_BOOT_0_ARCHITECTURE_GB200 = 0x1B. */
	p2ps_nv_boot0_decode(0x1b2000a1u, &b);
	assert_int_equal(b.architecture, 0x1b);
	assert_string_equal(b.chip_name, "GB202");
	assert_string_equal(b.gmmu, "v3-gb");
	/* GM107 (Maxwell, NV_PMC_BOOT_0_ARCHITECTURE_GM100 = 0x11): a known chip whose v1
	 * format libgmmu does not model, so no GMMU format. */
	p2ps_nv_boot0_decode(0x117000a1u, &b);
	assert_string_equal(b.chip_name, "GM107");
	assert_string_equal(b.arch_name, "Maxwell (GM10x)");
	assert_null(b.gmmu);
	/* ARCHITECTURE_1 (bit 8) is the architecture's MSB: 0x20 | 0x19 is no
	 * known architecture, and must not decode as Ada. */
	p2ps_nv_boot0_decode(0x192001a1u, &b);
	assert_int_equal(b.architecture, 0x39);
	assert_null(b.arch_name);
	assert_null(b.chip_name);
	assert_null(b.gmmu);
	p2ps_nv_boot0_decode(0xffffffffu, &b);
	assert_false(b.responding);
	assert_null(b.chip_name);
}

/* The text form names libgmmu's layout, or says why the format is unknown. */
static void collect_line(void *ctx, const char *line)
{
	char *out = ctx;
	size_t n = strlen(out);
	snprintf(out + n, 1024 - n, "%s\n", line);
}

static void boot0_text_gmmu(void **state)
{
	(void)state;
	static const struct {
		uint32_t raw;
		const char *line;
	} cases[] = {
	        {0x192000a1u, "GMMU format: v2-ga\n"},
	        {0x180000a1u, "GMMU format: v3-gh\n"},
	        {0x117000a1u, "GMMU format: unknown (libgmmu has no chip GM107)\n"},
	        {0x192001a1u, "GMMU format: unknown (chip id 0x392 is not in the table)\n"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct p2ps_nv_boot0 b;
		char out[1024] = "";
		p2ps_nv_boot0_decode(cases[i].raw, &b);
		p2ps_nv_boot0_text(&b, "", collect_line, out);
		if (!strstr(out, cases[i].line))
			fail_msg("0x%08x: expected '%s' in:\n%s", cases[i].raw, cases[i].line, out);
	}
}

struct fixture {
	struct fake_kernel fk;
	struct p2ps_vfio_sys sys;
	struct p2ps_vfio_opts opts;
	struct p2ps_vfio v;
	struct p2ps_vfio_device d;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || fk_setup(&f->fk) != 0)
		return -1;
	f->sys = fk_sys(&f->fk);
	f->opts = (struct p2ps_vfio_opts){.sys = &f->sys,
	                                  .sysfs_root = f->fk.sys,
	                                  .dev_root = f->fk.dev,
	                                  .flow = P2PS_VFIO_FLOW_LEGACY};
	char p[700];
	snprintf(p, sizeof(p), "%s/bus/pci/devices/0000:03:00.0/resource0", f->fk.sys);
	fk_write(p, f->fk.bar0_page, sizeof(f->fk.bar0_page));
	if (p2ps_vfio_open(&f->v, &f->opts, NULL) != 0 ||
	    p2ps_vfio_device_open(&f->v, addr("0000:03:00.0"), &f->d, NULL) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	p2ps_vfio_device_close(&f->d);
	p2ps_vfio_close(&f->v);
	fk_teardown(&f->fk);
	free(f);
	return 0;
}

static void vfio_mmap_and_pread(void **state)
{
	struct fixture *f = *state;
	uint32_t v = 0;
	char how[32];
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_vfio_read_reg(&f->d, NULL, NULL, 0, 0x0, &v, how, sizeof(how), &err),
	                 0);
	assert_int_equal(v, 0x192000a1u);
	assert_string_equal(how, "vfio-mmap");
	assert_int_equal(p2ps_vfio_read_reg(&f->d, NULL, NULL, 0, 0x8, &v, how, sizeof(how), &err),
	                 0);
	assert_int_equal(v, 0x192000a3u);
	/* 0x2004 lies in the hole between the sparse areas: pread, not mmap. */
	assert_int_equal(
	        p2ps_vfio_read_reg(&f->d, NULL, NULL, 0, 0x2004, &v, how, sizeof(how), &err), 0);
	assert_string_equal(how, "vfio-pread");
	assert_int_equal(v, 0x192000a2u);
	/* Outside the BAR, and a BAR the device does not implement. */
	assert_int_equal(
	        p2ps_vfio_read_reg(&f->d, NULL, NULL, 0, 0x4000, &v, how, sizeof(how), &err),
	        P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "outside BAR0"));
	assert_int_equal(p2ps_vfio_read_reg(&f->d, NULL, NULL, 1, 0, &v, how, sizeof(how), &err),
	                 P2PS_ENOENT);
}

static void sysfs_resource_mmap(void **state)
{
	struct fixture *f = *state;
	uint32_t v = 0;
	char how[32];
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_vfio_read_reg(NULL, &f->opts, addr("03:00.0"), 0, 0x10, &v, how,
	                                    sizeof(how), &err),
	                 0);
	assert_string_equal(how, "sysfs-mmap");
	assert_int_equal(v, 0x192000a5u);
	assert_int_equal(p2ps_vfio_read_reg(NULL, &f->opts, addr("03:00.0"), 1, 0x0, &v, how,
	                                    sizeof(how), &err),
	                 P2PS_ENOENT);
	assert_int_equal(p2ps_vfio_read_reg(NULL, &f->opts, addr("03:00.0"), 0, 0x4000, &v, how,
	                                    sizeof(how), &err),
	                 P2PS_ERANGE);
	assert_int_equal(p2ps_vfio_read_reg(NULL, &f->opts, addr("0000:09:00.0"), 0, 0, &v, how,
	                                    sizeof(how), &err),
	                 P2PS_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(reg_spec),
	        cmocka_unit_test(boot0_published_values),
	        cmocka_unit_test(boot0_text_gmmu),
	        cmocka_unit_test_setup_teardown(vfio_mmap_and_pread, setup, teardown),
	        cmocka_unit_test_setup_teardown(sysfs_resource_mmap, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
