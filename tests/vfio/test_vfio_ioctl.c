/* SPDX-License-Identifier: MIT */
/* The VFIO ioctl layer against a scripted kernel (fake_kernel.h): the legacy
 * open flow, argsz growth, per-region refusals, config cross-check, error
 * messages, and map-peer's DMA mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "fake_kernel.h"
#include "p2pscope/render.h"
#include "p2pscope/vfio.h"

/* Opens the device at the address text bdf: P2PS_EINVAL when it is none. */
static int open_dev(struct p2ps_vfio *v, const char *bdf, struct p2ps_vfio_device *d,
                    struct p2ps_error *err)
{
	struct p2ps_bdf b;
	if (p2ps_bdf_parse(bdf, &b) != 0)
		return P2PS_EINVAL;
	return p2ps_vfio_device_open(v, &b, d, err);
}

struct fixture {
	struct fake_kernel fk;
	struct p2ps_vfio_sys sys;
	struct p2ps_vfio_opts opts;
	struct p2ps_vfio v;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || fk_setup(&f->fk) != 0)
		return -1;
	f->sys = fk_sys(&f->fk);
	f->opts.sys = &f->sys;
	f->opts.sysfs_root = f->fk.sys;
	f->opts.dev_root = f->fk.dev;
	f->opts.flow = P2PS_VFIO_FLOW_LEGACY;
	if (p2ps_vfio_open(&f->v, &f->opts, NULL) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	p2ps_vfio_close(&f->v);
	fk_teardown(&f->fk);
	free(f);
	return 0;
}

static void legacy_open_sets_up_container(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device d;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "03:00.0", &d, &err), 0);
	assert_string_equal(d.bdf, "0000:03:00.0");
	assert_int_equal(d.group, 6);
	assert_int_equal(d.flow, P2PS_VFIO_FLOW_LEGACY);
	assert_true(d.fd >= 0);
	/* Type1v2 is preferred when the container offers both. */
	assert_int_equal(f->fk.set_iommu_type, VFIO_TYPE1v2_IOMMU);
	assert_int_equal(f->v.iommu_type, VFIO_TYPE1v2_IOMMU);
	assert_true(f->v.ext_type1 && f->v.ext_type1v2 && !f->v.ext_noiommu);
	assert_string_equal(f->fk.got_device_name, "0000:03:00.0");
	assert_non_null(strstr(d.node, "/vfio/6"));
	p2ps_vfio_device_close(&d);
	assert_int_equal(d.fd, -1);
}

static void report_grows_argsz_and_reads_config(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device d;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &d, &err), 0);
	struct p2ps_vfio_dev_report *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(p2ps_vfio_device_report(&d, r, &err), 0);
	assert_int_equal(r->info.num_regions, 9);
	assert_int_equal(r->n_regions, 9);
	/* BAR0: first call with the fixed 32 bytes, then with the 80 asked for. */
	assert_int_equal(f->fk.region_calls[0], 2);
	assert_int_equal(f->fk.region_argsz_seen[0][0], 32);
	assert_int_equal(f->fk.region_argsz_seen[0][1], FK_REGION_ARGSZ_BAR0);
	assert_int_equal(f->fk.region_calls[2], 1);
	assert_true(r->regions[0].has_sparse);
	assert_int_equal(r->regions[0].n_areas, 2);
	assert_int_equal(r->regions[0].areas[1].offset, 0x3000);
	assert_int_equal(r->regions[2].size, FK_BAR2_SIZE);
	assert_int_equal(r->regions[2].offset, 2ull << 40);
	assert_int_equal(r->regions[1].size, 0);
	/* VGA refused by the kernel: recorded, not fatal. */
	assert_int_equal(r->regions[8].query_errno, EINVAL);
	assert_int_equal(r->n_irqs, 5);
	assert_int_equal(r->irqs[2].count, 65);
	/* Config through VFIO, cross-checked with the sysfs file. */
	assert_int_equal(r->config_len, 256);
	assert_true(r->check.done);
	assert_true(r->check.identity_match);
	assert_int_equal(r->check.n_diff, 1);
	assert_int_equal(r->check.first_diff, 0x18);
	free(r);
	p2ps_vfio_device_close(&d);
}

static void argsz_that_keeps_growing_fails(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device d;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &d, &err), 0);
	f->fk.grow_forever = true;
	struct p2ps_vfio_region reg;
	assert_int_equal(p2ps_vfio_region_get(&d, 2, &reg, &err), P2PS_EIO);
	assert_non_null(strstr(err.msg, "still growing"));
	assert_int_equal(f->fk.region_calls[2], 4);
	f->fk.grow_forever = false;
	f->fk.huge_argsz = 0x7fffffffu;
	assert_int_equal(p2ps_vfio_region_get(&d, 3, &reg, &err), P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "argsz 2147483647"));
	assert_int_equal(f->fk.region_calls[3], 1);
	p2ps_vfio_device_close(&d);
}

static void ioctl_failure_names_call_and_region(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device d;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &d, &err), 0);
	f->fk.fail_region_index = 1;
	struct p2ps_vfio_region reg;
	assert_int_equal(p2ps_vfio_region_get(&d, 1, &reg, &err), P2PS_EIO);
	char want[160];
	snprintf(want, sizeof(want), "0000:03:00.0: ioctl(VFIO_DEVICE_GET_REGION_INFO(bar1)): %s",
	         strerror(EIO));
	assert_string_equal(err.msg, want);
	p2ps_vfio_device_close(&d);
}

static void group_not_viable_names_blockers(void **state)
{
	struct fixture *f = *state;
	/* Put an nvme-bound device into group 6 next to ours. */
	char p[700];
	snprintf(p, sizeof(p), "%s/kernel/iommu_groups/6/devices/0000:05:00.0", f->fk.sys);
	assert_int_equal(symlink("../../../../bus/pci/devices/0000:05:00.0", p), 0);
	f->fk.group_flags = 0;
	struct p2ps_vfio_device d;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &d, &err), P2PS_EIO);
	assert_non_null(strstr(err.msg, "group 6 is not viable"));
	assert_non_null(strstr(err.msg, "0000:05:00.0 (nvme)"));
	assert_null(strstr(err.msg, "0000:04:00.0"));
}

static void device_not_on_vfio_pci(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device d;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:05:00.0", &d, &err), P2PS_ENOTSUP);
	assert_non_null(strstr(err.msg, "bound to nvme, not vfio-pci"));
	assert_int_equal(open_dev(&f->v, "0000:09:00.0", &d, &err), P2PS_ENOENT);
	assert_int_equal(open_dev(&f->v, "zz:00.0", &d, &err), P2PS_EINVAL);
	/* Nothing was opened on the failed attempts. */
	assert_int_equal(f->fk.set_iommu_type, 0);
}

static void map_peer_maps_read_only_at_bus_address(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device a, b;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &a, &err), 0);
	assert_int_equal(open_dev(&f->v, "0000:04:00.0", &b, &err), 0);
	struct p2ps_vfio_peer_map m;
	assert_int_equal(p2ps_vfio_map_peer(&a, &b, -1, &m, &err), 0);
	assert_true(m.same_group);
	assert_int_equal(m.bar, 2); /* the largest mmappable BAR */
	assert_int_equal(m.bar_size, FK_BAR2_SIZE);
	assert_int_equal(m.bar_bus_addr, FK_BAR2_BUS_B);
	assert_true(m.mapped);
	assert_int_equal(m.iova, FK_BAR2_BUS_B);
	assert_true(m.iova_is_bus_addr);
	assert_int_equal(f->fk.last_map.flags, VFIO_DMA_MAP_FLAG_READ);
	assert_int_equal(f->fk.last_map.size, FK_BAR2_SIZE);
	assert_int_equal(f->fk.last_map.iova, FK_BAR2_BUS_B);
	assert_true(f->fk.unmap_called);
	assert_true(m.unmapped);
	assert_string_equal(m.method, "VFIO_IOMMU_MAP_DMA");

	/* BAR0 has sparse areas: the largest one is mapped, not the MSI-X hole. */
	assert_int_equal(p2ps_vfio_map_peer(&a, &b, 0, &m, &err), 0);
	assert_int_equal(m.map_offset, 0);
	assert_int_equal(m.map_size, 0x2000);

	f->fk.map_errno = EFAULT;
	assert_int_equal(p2ps_vfio_map_peer(&a, &b, 2, &m, &err), 0);
	assert_false(m.mapped);
	assert_int_equal(m.map_errno, EFAULT);
	assert_non_null(strstr(m.meaning, "could not resolve"));
	p2ps_vfio_device_close(&a);
	p2ps_vfio_device_close(&b);
}

static void map_peer_needs_one_session(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device a;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &a, &err), 0);
	struct p2ps_vfio_device b = {.fd = -1};
	struct p2ps_vfio_peer_map m;
	assert_int_equal(p2ps_vfio_map_peer(&a, &b, -1, &m, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_vfio_map_peer(&a, &a, 1, &m, &err), P2PS_ENOTSUP);
	assert_non_null(strstr(err.msg, "BAR1"));
	p2ps_vfio_device_close(&a);
}

static void cdev_flow_binds_and_attaches(void **state)
{
	struct fixture *f = *state;
	p2ps_vfio_close(&f->v);
	f->opts.flow = P2PS_VFIO_FLOW_CDEV;
	assert_int_equal(p2ps_vfio_open(&f->v, &f->opts, NULL), 0);
	struct p2ps_vfio_device a, b;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &a, &err), 0);
	assert_int_equal(a.flow, P2PS_VFIO_FLOW_CDEV);
	assert_non_null(strstr(a.node, "/vfio/devices/vfio0"));
	assert_int_equal(a.devid, 1);
	assert_int_equal(f->v.ioas_id, 7);
	assert_int_equal(f->fk.attach_pt, 7);
	assert_int_equal(a.hwpt_id, 8);
	assert_int_equal((int)f->fk.bind_iommufd, f->v.iommufd);
	assert_int_equal(f->v.container_fd, -1); /* no legacy container in this flow */
	struct p2ps_vfio_dev_report *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(p2ps_vfio_device_report(&a, r, &err), 0);
	assert_int_equal(r->flow, P2PS_VFIO_FLOW_CDEV);
	assert_int_equal(r->regions[2].size, FK_BAR2_SIZE);
	free(r);
	/* A peer BAR through iommufd: the kernel refuses to pin VFIO MMIO. */
	assert_int_equal(open_dev(&f->v, "0000:04:00.0", &b, &err), 0);
	f->fk.ioas_map_errno = EFAULT;
	struct p2ps_vfio_peer_map m;
	assert_int_equal(p2ps_vfio_map_peer(&a, &b, -1, &m, &err), 0);
	assert_string_equal(m.method, "IOMMU_IOAS_MAP");
	assert_false(m.mapped);
	assert_int_equal(m.map_errno, EFAULT);
	assert_non_null(strstr(m.meaning, "iommufd"));
	assert_int_equal(f->fk.ioas_map_flags, IOMMU_IOAS_MAP_READABLE);
	p2ps_vfio_device_close(&a);
	p2ps_vfio_device_close(&b);
}

static const char *jstr(struct json_object *o, const char *path)
{
	/* path: dot-separated keys, [N] for array elements ("regions.[0].name"). */
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	char *save = NULL;
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (k[0] == '[')
			o = json_object_array_get_idx(o, (size_t)atoi(k + 1));
		else if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	}
	return o ? json_object_get_string(o) : NULL;
}

static void collect(void *ctx, const char *line)
{
	char *buf = ctx;
	size_t n = strlen(buf);
	snprintf(buf + n, 8192 - n, "%s\n", line);
}

/* The JSON keys and text lines docs/vfio.md and the guest tests rely on. */
static void rendered_report_keys(void **state)
{
	struct fixture *f = *state;
	struct p2ps_vfio_device a, b;
	struct p2ps_error err = {0};
	assert_int_equal(open_dev(&f->v, "0000:03:00.0", &a, &err), 0);
	assert_int_equal(open_dev(&f->v, "0000:04:00.0", &b, &err), 0);
	struct p2ps_vfio_dev_report *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(p2ps_vfio_device_report(&a, r, &err), 0);
	struct json_object *o = p2ps_vfio_report_json(r);
	assert_non_null(o);
	assert_string_equal(jstr(o, "flow"), "legacy");
	assert_string_equal(jstr(o, "iommu_type"), "Type1v2");
	assert_string_equal(jstr(o, "group"), "6");
	assert_string_equal(jstr(o, "regions.[0].name"), "bar0");
	assert_string_equal(jstr(o, "regions.[0].caps.[0]"), "sparse_mmap");
	assert_string_equal(jstr(o, "regions.[0].mmap_areas.[1].offset"), "0x3000");
	assert_string_equal(jstr(o, "regions.[0].mmap_areas.[1].size"), "4096");
	assert_string_equal(jstr(o, "regions.[2].size"), "4294967296");
	assert_string_equal(jstr(o, "regions.[2].offset"), "0x20000000000");
	assert_string_equal(jstr(o, "regions.[2].flags.[2]"), "mmap");
	assert_string_equal(jstr(o, "regions.[8].error"), strerror(EINVAL));
	assert_string_equal(jstr(o, "irqs.[2].name"), "msix");
	assert_string_equal(jstr(o, "irqs.[2].count"), "65");
	assert_string_equal(jstr(o, "config.identity_match"), "true");
	assert_string_equal(jstr(o, "config.first_diff"), "0x18");
	json_object_put(o);
	char *text = calloc(1, 8192);
	assert_non_null(text);
	p2ps_vfio_report_text(r, "", collect, text);
	assert_non_null(
	        strstr(text, "region 0 bar0  : size 16K offset 0x0 [read write mmap caps]"));
	assert_non_null(strstr(text, "mmap area 0x3000+0x1000"));
	assert_non_null(strstr(text, "region 8 vga   : not available"));

	struct p2ps_vfio_peer_map m;
	assert_int_equal(p2ps_vfio_map_peer(&a, &b, -1, &m, &err), 0);
	o = p2ps_vfio_peer_map_json(&m);
	assert_string_equal(jstr(o, "result"), "mapped");
	assert_string_equal(jstr(o, "iova"), "0x4100000000");
	assert_string_equal(jstr(o, "iova_is_bus_addr"), "true");
	assert_string_equal(jstr(o, "method"), "VFIO_IOMMU_MAP_DMA");
	assert_string_equal(jstr(o, "unmapped"), "true");
	json_object_put(o);
	free(text);
	free(r);
	p2ps_vfio_device_close(&a);
	p2ps_vfio_device_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(legacy_open_sets_up_container, setup, teardown),
	        cmocka_unit_test_setup_teardown(report_grows_argsz_and_reads_config, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(argsz_that_keeps_growing_fails, setup, teardown),
	        cmocka_unit_test_setup_teardown(ioctl_failure_names_call_and_region, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(group_not_viable_names_blockers, setup, teardown),
	        cmocka_unit_test_setup_teardown(device_not_on_vfio_pci, setup, teardown),
	        cmocka_unit_test_setup_teardown(map_peer_maps_read_only_at_bus_address, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(map_peer_needs_one_session, setup, teardown),
	        cmocka_unit_test_setup_teardown(cdev_flow_binds_and_attaches, setup, teardown),
	        cmocka_unit_test_setup_teardown(rendered_report_keys, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
