/* SPDX-License-Identifier: MIT */
/* NVML facts through dlopen: the host model loads "libnvidia-ml.so.1" found on
 * LD_LIBRARY_PATH (tests/host/fake_nvml.c, answering as the real library did on the
 * 2 x H200 guest). Checks the binding, the BDF matching, direct NVLink peers and peers
 * behind an NVSwitch fabric the guest cannot see. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	/* Held open here, so that the stand-in's call count outlives the backend's dlclose. */
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	assert_non_null(lib);
	unsigned (*calls)(void) = (unsigned (*)(void))dlsym(lib, "fake_nvml_p2p_status_calls");
	assert_non_null(calls);
	unsigned before = calls();
	p2ps_nvml_fill(&h);
	/* Each ordered pair's five statuses once (nvidia-smi topo -p2p r/w/n/a/p); the
	 * fabric's NVLink status is taken from them, not asked again. */
	assert_int_equal(calls() - before, 2 * 5);
	dlclose(lib);
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

/* The one-GPU H100 snapshot with its captured facts forgotten. */
static void load_h100(struct p2ps_host *h)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = P2PS_HOST_SNAPSHOT,
	                               .path = p2ps_test_src_path("tests/fixtures/h100"),
	                               .flags = P2PS_HOST_F_NO_NAMES};
	assert_int_equal(p2ps_host_load(h, &src, &err), 0);
	for (size_t i = 0; i < h->n_devs; i++)
		memset(&h->devs[i].gpu, 0, sizeof(h->devs[i].gpu));
}

static char cache_home[64];

static void cache_path(char *out, size_t size)
{
	snprintf(out, size, "%s/p2pscope/nvml-facts", cache_home);
}

/* Loads the H100 snapshot and fills its NVML facts through the boot cache: whether it got
 * them (with NVML's init failing, only the cache can give them). */
static bool h100_has_nvml_facts(void)
{
	struct p2ps_host h;
	load_h100(&h);
	p2ps_nvml_fill_cached(&h);
	bool loaded = h.nvidia.nvml_loaded;
	p2ps_host_free(&h);
	return loaded;
}

static void write_file(const char *path, const char *text, const char *more)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fputs(more, f);
	fclose(f);
}

/* A one-GPU host: the first run asks NVML and writes the cache; the next takes the
 * facts from it without initialising NVML (whose init now fails); any change of the
 * key, a damaged file or one others may write sends it back to NVML. */
static void test_boot_cache(void **state)
{
	(void)state;
	struct p2ps_host h;
	char path[256], text[4096];
	strcpy(cache_home, "/tmp/p2ps-nvml-cache-XXXXXX");
	assert_non_null(mkdtemp(cache_home));
	setenv("XDG_CACHE_HOME", cache_home, 1);
	unsetenv("FAKE_NVML_INIT_FAIL");
	load_h100(&h);
	p2ps_nvml_fill_cached(&h);
	struct p2ps_dev *g = gpu(&h, 6);
	assert_true(h.nvidia.nvml_loaded);
	assert_int_equal(g->gpu.vram_bytes, 143771ull << 20);
	struct p2ps_gpu_facts asked = g->gpu;
	p2ps_host_free(&h);
	cache_path(path, sizeof(path));
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_non_null(
	        strstr(text, "gpu 0000:00:06.0 1 150754820096 1 274877906944 1 0 switch 18\n"));

	setenv("FAKE_NVML_INIT_FAIL", "1", 1);
	load_h100(&h);
	p2ps_nvml_fill_cached(&h);
	assert_true(h.nvidia.nvml_loaded);
	assert_string_equal(h.nvidia.nvml_driver_version, "580.159.04");
	assert_memory_equal(&gpu(&h, 6)->gpu, &asked, sizeof(asked));
	p2ps_host_free(&h);
	/* Another BAR1 size: another key, NVML asked (and failing). */
	load_h100(&h);
	assert_true(gpu(&h, 6)->bars[2].size > 0);
	gpu(&h, 6)->bars[2].size *= 2;
	p2ps_nvml_fill_cached(&h);
	assert_false(h.nvidia.nvml_loaded);
	assert_non_null(strstr(h.nvidia.nvml_status, "nvmlInit failed"));
	p2ps_host_free(&h);
	/* The library file it names is no longer the same file (another mtime). */
	char *lib = strstr(text, "\nlib ");
	assert_non_null(lib);
	char *eol = strchr(lib + 1, '\n');
	char last = eol[-1];
	eol[-1] = last == '1' ? '2' : '1';
	write_file(path, text, "");
	assert_false(h100_has_nvml_facts());
	eol[-1] = last;
	write_file(path, text, "");
	assert_true(h100_has_nvml_facts());
	/* A file others may write is not read. */
	assert_int_equal(chmod(path, 0666), 0);
	assert_false(h100_has_nvml_facts());
	/* Nor a damaged one, nor one cut short. */
	assert_int_equal(chmod(path, 0600), 0);
	for (int cut = 0; cut < 2; cut++) {
		if (cut)
			write_file(path, "p2pscope nvml-facts 1\n", "");
		else
			write_file(path, text, "gpu 0000:00:06.0 1 x\n");
		assert_false(h100_has_nvml_facts());
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/p2pscope", cache_home);
	rmdir(path);
	rmdir(cache_home);
	unsetenv("FAKE_NVML_INIT_FAIL");
	unsetenv("XDG_CACHE_HOME");
}

/* Two GPUs: NVLink between them can change, so NVML is asked every time. */
static void test_no_cache_for_pairs(void **state)
{
	(void)state;
	struct p2ps_host h;
	strcpy(cache_home, "/tmp/p2ps-nvml-cache-XXXXXX");
	assert_non_null(mkdtemp(cache_home));
	setenv("XDG_CACHE_HOME", cache_home, 1);
	unsetenv("FAKE_NVML_INIT_FAIL");
	load_h200(&h);
	p2ps_nvml_fill_cached(&h);
	assert_true(h.nvidia.nvml_loaded);
	p2ps_host_free(&h);
	char path[256];
	cache_path(path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
	rmdir(cache_home);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_nvswitch_fabric),
	        cmocka_unit_test(test_direct_links),
	        cmocka_unit_test(test_boot_cache),
	        cmocka_unit_test(test_no_cache_for_pairs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
