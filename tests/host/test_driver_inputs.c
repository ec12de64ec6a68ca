/* SPDX-License-Identifier: MIT */
/* The driver model's inputs in the host model: /proc/cpuinfo's first block,
 * /proc/driver/nvidia/params and nvidia-smi topo -p2p matrices (texts as the kernel, the
 * driver 580.159.04 and nvidia-smi print them on a 2 x H200 host). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hostfacts.h"
#include "nvfacts.h"

static void test_cpuinfo(void **state)
{
	(void)state;
	struct p2ps_host_cpu c = {0};
	p2ps_cpuinfo_parse(&c, "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	                       "model\t\t: 207\nmodel name\t: Intel(R) Xeon(R) Processor\n"
	                       "stepping\t: 2\n\nprocessor\t: 1\nmodel\t\t: 1\n");
	assert_true(c.known);
	assert_string_equal(c.vendor, "GenuineIntel");
	assert_int_equal(c.family, 6);
	assert_int_equal(c.model, 207); /* the first block only */
	assert_string_equal(c.model_name, "Intel(R) Xeon(R) Processor");
	struct p2ps_host_cpu d = {0};
	p2ps_cpuinfo_parse(&d, "vendor_id\t: AuthenticAMD\ncpu family\t: 26\n");
	assert_true(d.known); /* an x86 CPU ... */
	assert_int_equal(d.family, 26);
	assert_int_equal(d.model, -1); /* ... whose model line is missing */
}

static void test_params(void **state)
{
	(void)state;
	struct p2ps_host_nvidia nv = {0};
	p2ps_nvidia_params_parse(&nv, "EnableMSI: 1\nEnableResizableBar: 0\n"
	                              "RegistryDwords: \"RMForceP2PType=1;RMPcieP2PType=2\"\n"
	                              "RmMsg: \"\"\n");
	assert_true(nv.params_known);
	assert_int_equal(nv.enable_resizable_bar, 0);
	assert_string_equal(nv.registry_dwords, "RMForceP2PType=1;RMPcieP2PType=2");
	struct p2ps_host_nvidia empty = {0};
	p2ps_nvidia_params_parse(&empty, "RegistryDwords: \"\"\n");
	assert_string_equal(empty.registry_dwords, "");
	assert_int_equal(empty.enable_resizable_bar, -1);
}

static void test_topo_p2p(void **state)
{
	(void)state;
	struct p2ps_dev devs[2];
	memset(devs, 0, sizeof(devs));
	struct p2ps_host h = {.devs = devs, .n_devs = 2};
	for (int i = 0; i < 2; i++) {
		devs[i].vendor_id = 0x10de;
		devs[i].class_code = 0x030200;
		devs[i].bdf.dev = (uint8_t)(6 + i);
	}
	p2ps_nvsmi_parse_p2p(&h, " \tGPU0\tGPU1\t\n GPU0\tX\tOK\t\n GPU1\tOK\tX\t\n\nLegend:\n", 0,
	                     "t");
	p2ps_nvsmi_parse_p2p(&h, " \tGPU0\tGPU1\t\n GPU0\tX\tNS\t\n GPU1\tNS\tX\t\n", 4, "t");
	assert_true(h.driver_caps.known);
	assert_int_equal(h.driver_caps.n_gpus, 2);
	assert_int_equal(h.driver_caps.st[0][1][0], 0);    /* OK */
	assert_int_equal(h.driver_caps.st[1][0][4], 5);    /* NS = NOT_SUPPORTED */
	assert_int_equal(h.driver_caps.st[0][1][1], 0xff); /* write: not captured */
	assert_int_equal(h.driver_caps.gpu[1].dev, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_cpuinfo),
	        cmocka_unit_test(test_params),
	        cmocka_unit_test(test_topo_p2p),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
