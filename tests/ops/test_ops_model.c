/* SPDX-License-Identifier: MIT */
/* What --nccl-topo needs from the host model, on constructed data: the CPU read from
 * /proc/cpuinfo of each architecture (the keys are the kernels' own: arch/x86/kernel/cpu/
 * proc.c, arch/arm64/kernel/cpuinfo.c, arch/powerpc/kernel/setup-common.c), and NVLinks that
 * end at an NVSwitch counted from NVML (tests/host/fake_nvml.c answers as the real library
 * did on the 2 x H200 guest) and written as NCCL's own dump of that guest writes them
 * (tests/fixtures/nccl-topo/h200x2-nccl-topo-dump.xml: count="18" tclass="0x068000"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostfacts.h"
#include "nvfacts.h"
#include "p2ps_test.h"
#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/render.h"

/* p2ps_hostfacts_read on a root whose proc/cpuinfo holds text. */
static void read_cpuinfo(const char *text, struct p2ps_host *h)
{
	char root[] = "/tmp/p2ps-cpuinfo-XXXXXX", path[128];
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	memset(h, 0, sizeof(*h));
	p2ps_hostfacts_read(h, root, false);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", root);
	rmdir(path);
	rmdir(root);
}

static void test_cpuinfo(void **state)
{
	(void)state;
	struct p2ps_host h;
	/* The H200 guest's first block (tests/fixtures/h200x2/proc/cpuinfo); NCCL's dump of the
	 * same guest: arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207". */
	read_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n"
	             "model name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu hypervisor\n",
	             &h);
	assert_true(h.cpu.known);
	assert_string_equal(h.cpu.arch, "x86_64");
	assert_string_equal(h.cpu.vendor, "GenuineIntel");
	assert_int_equal(h.cpu.family, 6);
	assert_int_equal(h.cpu.model, 207);
	p2ps_host_free(&h);
	read_cpuinfo("processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd\n"
	             "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n",
	             &h);
	assert_string_equal(h.cpu.arch, "arm64");
	assert_string_equal(h.cpu.vendor, "");
	assert_int_equal(h.cpu.family, -1);
	p2ps_host_free(&h);
	read_cpuinfo(
	        "processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\nclock\t\t: 3800MHz\n",
	        &h);
	assert_string_equal(h.cpu.arch, "ppc64");
	p2ps_host_free(&h);
	/* "cpu family" is not "cpu", "model name" is not "model". */
	read_cpuinfo("cpu family\t: 25\nmodel name\t: AMD EPYC\nvendor_id\t: AuthenticAMD\n"
	             "model\t\t: 17\n",
	             &h);
	assert_string_equal(h.cpu.arch, "x86_64");
	assert_int_equal(h.cpu.family, 25);
	assert_int_equal(h.cpu.model, 17);
	p2ps_host_free(&h);
	read_cpuinfo("processor\t: 0\n", &h);
	assert_false(h.cpu.known);
	p2ps_host_free(&h);
}

static void load_h200(struct p2ps_host *h)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = P2PS_HOST_SNAPSHOT,
	                               .path = p2ps_test_src_path("tests/fixtures/h200x2-raw-snap"),
	                               .flags = P2PS_HOST_F_NO_NAMES};
	assert_int_equal(p2ps_host_load(h, &src, &err), 0);
	for (size_t i = 0; i < h->n_devs; i++)
		memset(&h->devs[i].gpu, 0, sizeof(h->devs[i].gpu));
}

static char *nccl_topo(const struct p2ps_host *h)
{
	struct p2ps_analysis a;
	struct p2ps_error err = {0};
	struct p2ps_strbuf sb = {0};
	assert_int_equal(p2ps_analysis_run(h, &a, &err), 0);
	assert_int_equal(p2ps_render_nccl_topo(&a, NULL, &sb, &err), 0);
	p2ps_analysis_free(&a);
	return sb.s;
}

static void test_nvswitch_links(void **state)
{
	(void)state;
	struct p2ps_host h;
	unsetenv("FAKE_NVML_DIRECT");
	load_h200(&h);
	p2ps_nvml_fill(&h);
	for (size_t i = 0; i < h.n_devs; i++)
		if (p2ps_dev_is_nvidia_gpu(&h.devs[i]))
			assert_int_equal(h.devs[i].gpu.nvswitch_links, 18);
	char *xml = nccl_topo(&h);
	const char *line = "<nvlink target=\"fffffff:ffff:ff\" count=\"18\" tclass=\"0x068000\"/>";
	const char *first = strstr(xml, line);
	assert_non_null(first);
	assert_non_null(strstr(first + 1, line)); /* both GPUs */
	assert_null(strstr(xml, "tclass=\"0x030200\""));
	free(xml);
	p2ps_host_free(&h);

	/* Direct links (an NVLink bridge): the peer GPU is the target, no switch. */
	setenv("FAKE_NVML_DIRECT", "1", 1);
	load_h200(&h);
	p2ps_nvml_fill(&h);
	xml = nccl_topo(&h);
	assert_non_null(strstr(xml, "<nvlink target=\"0000:00:07.0\" count=\"4\" "
	                            "tclass=\"0x030200\"/>"));
	assert_null(strstr(xml, "0x068000"));
	free(xml);
	p2ps_host_free(&h);
	unsetenv("FAKE_NVML_DIRECT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_cpuinfo),
	        cmocka_unit_test(test_nvswitch_links),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
