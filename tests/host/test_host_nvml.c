/* NVML facts through dlopen: the host model loads "libnvidia-ml.so.1" found on
 * LD_LIBRARY_PATH (tests/host/fake_nvml.c, answering as the real library did on the
 * 2 x H200 guest). Checks the binding, the BDF matching, direct NVLink peers and peers
 * behind an NVSwitch fabric the guest cannot see. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfacts.h"
#include "p2ps_test.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"

static struct p2ps_dev *gpu(struct p2ps_host *h, unsigned dev)
{
	struct p2ps_bdf b = {0, 0, (uint8_t)dev, 0};
	return p2ps_host_find(h, &b);
}

static void load_h200(struct p2ps_host *h)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = P2PS_HOST_SNAPSHOT,
	                               .path = p2ps_test_src_path("tests/fixtures/h200x2-raw-snap"),
	                               .flags = P2PS_HOST_F_NO_NAMES};
	assert_int_equal(p2ps_host_load(h, &src, &err), 0);
	/* Forget what the captured nvidia-smi output said: NVML alone fills it now. */
	for (size_t i = 0; i < h->n_devs; i++)
		memset(&h->devs[i].gpu, 0, sizeof(h->devs[i].gpu));
}

static void test_nvswitch_fabric(void **state)
{
	(void)state;
	struct p2ps_host h;
	unsetenv("FAKE_NVML_DIRECT");
	load_h200(&h);
	p2ps_nvml_fill(&h);
	assert_true(h.nvidia.nvml_loaded);
	assert_string_equal(h.nvidia.nvml_driver_version, "580.159.04");
	for (unsigned d = 6; d <= 7; d++) {
		struct p2ps_gpu_facts *g = &gpu(&h, d)->gpu;
		assert_int_equal(g->source, P2PS_GPU_SRC_NVML);
		assert_true(g->vram_known);
		assert_int_equal(g->vram_bytes, 143771ull << 20);
		assert_int_equal(g->bar1_total_bytes, 262144ull << 20);
		/* nvidia-smi topo -m on that host: NV18 — not an all-ones "peer". */
		assert_true(g->nvlink_known);
		assert_int_equal(g->n_nvlink_peers, 1);
		assert_int_equal(g->nvlink_peers[0].bdf.dev, 13 - d);
		assert_int_equal(g->nvlink_peers[0].links, 18);
	}
	p2ps_host_free(&h);
}

static void test_direct_links(void **state)
{
	(void)state;
	struct p2ps_host h;
	setenv("FAKE_NVML_DIRECT", "1", 1);
	load_h200(&h);
	p2ps_nvml_fill(&h);
	for (unsigned d = 6; d <= 7; d++) {
		struct p2ps_gpu_facts *g = &gpu(&h, d)->gpu;
		assert_int_equal(g->n_nvlink_peers, 1);
		assert_int_equal(g->nvlink_peers[0].bdf.dev, 13 - d);
		assert_int_equal(g->nvlink_peers[0].links, 4);
	}
	p2ps_host_free(&h);
	unsetenv("FAKE_NVML_DIRECT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_nvswitch_fabric),
	        cmocka_unit_test(test_direct_links),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
