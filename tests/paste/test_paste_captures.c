/* SPDX-License-Identifier: MIT */
/* Pastes of our own: the text outputs of the H100 and 2 x H200 captures (lspci -vvv -nn,
 * lspci -tv, lspci -xxxx, nvidia-smi -q, topo -m, topo -p2p; for the H100 also the kernel
 * log, /proc/cmdline and the IOMMU group listing of the same machine type), pasted the way
 * a user would (prompts, a fence, prose), read by the paste backend. Every fact the issue
 * names must equal what the snapshot backend reads from the same capture: BARs (address,
 * size, type), the PCIe link, BAR1 total, VRAM and NVLink (NV#). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "p2ps_test.h"
#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/paste.h"

struct piece {
	const char *command; /* prompt line, NULL: none */
	const char *file;    /* under the source tree */
};

/* Appends a file of the source tree to f; fails the test when it is missing. */
static void append(FILE *f, const char *rel)
{
	FILE *in = fopen(p2ps_test_src_path(rel), "r");
	if (!in)
		fail_msg("committed fixture %s is missing", rel);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(in);
}

/* Writes the paste to a temporary file; returns its path (static buffer). */
static const char *assemble(const struct piece *pieces, size_t n)
{
	static char path[] = "/tmp/p2ps-paste-XXXXXX";
	strcpy(path, "/tmp/p2ps-paste-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("Here is everything from the machine:\n\n```\n", f);
	for (size_t i = 0; i < n; i++) {
		if (pieces[i].command)
			fprintf(f, "root@vm:~# %s\n", pieces[i].command);
		append(f, pieces[i].file);
		fputs("\n", f);
	}
	fputs("```\n", f);
	fclose(f);
	return path;
}

static void load(struct p2ps_host *h, enum p2ps_host_backend_kind kind, const char *path)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = kind, .path = path, .flags = P2PS_HOST_F_NO_NVML};
	if (p2ps_host_load(h, &src, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
}

static void same_bars(const struct p2ps_dev *s, const struct p2ps_dev *p)
{
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *a = &s->bars[i], *b = &p->bars[i];
		assert_int_equal(a->present, b->present);
		if (!a->present)
			continue;
		assert_int_equal(a->address, b->address);
		assert_true(b->size_known);
		assert_int_equal(a->size, b->size);
		assert_int_equal(a->is_64bit, b->is_64bit);
		assert_int_equal(a->prefetchable, b->prefetchable);
		assert_int_equal(a->io, b->io);
	}
}

static void same_gpu_facts(const struct p2ps_dev *s, const struct p2ps_dev *p)
{
	assert_int_equal(s->vendor_id, p->vendor_id);
	assert_int_equal(s->device_id, p->device_id);
	assert_int_equal(s->class_code >> 8, p->class_code >> 8);
	same_bars(s, p);
	assert_int_equal(s->pcie.cap.speed, p->pcie.cap.speed);
	assert_int_equal(s->pcie.cap.width, p->pcie.cap.width);
	assert_int_equal(s->pcie.sta.speed, p->pcie.sta.speed);
	assert_int_equal(s->pcie.sta.width, p->pcie.sta.width);
	assert_true(s->gpu.bar1_known && p->gpu.bar1_known);
	assert_int_equal(s->gpu.bar1_total_bytes, p->gpu.bar1_total_bytes);
	assert_true(s->gpu.vram_known && p->gpu.vram_known);
	assert_int_equal(s->gpu.vram_bytes, p->gpu.vram_bytes);
	assert_int_equal(s->gpu.nvlink_known, p->gpu.nvlink_known);
	assert_int_equal(s->gpu.n_nvlink_peers, p->gpu.n_nvlink_peers);
	for (int k = 0; k < s->gpu.n_nvlink_peers; k++) {
		assert_true(
		        p2ps_bdf_equal(&s->gpu.nvlink_peers[k].bdf, &p->gpu.nvlink_peers[k].bdf));
		assert_int_equal(s->gpu.nvlink_peers[k].links, p->gpu.nvlink_peers[k].links);
	}
}

/* The paste must name the same GPUs as the snapshot, each with the same facts, and the
 * analysis must see the same pairs (class, NV#). Returns the number of GPUs compared. */
static size_t compare(const char *snapshot, const char *paste)
{
	struct p2ps_host s, p;
	load(&s, P2PS_HOST_SNAPSHOT, p2ps_test_src_path(snapshot));
	load(&p, P2PS_HOST_PASTE, paste);
	size_t gpus = 0;
	for (size_t i = 0; i < s.n_devs; i++) {
		if (!p2ps_dev_is_nvidia_gpu(&s.devs[i]))
			continue;
		const struct p2ps_dev *pd = p2ps_host_find(&p, &s.devs[i].bdf);
		assert_non_null(pd);
		assert_true(p2ps_dev_is_nvidia_gpu(pd));
		same_gpu_facts(&s.devs[i], pd);
		gpus++;
	}
	struct p2ps_analysis as, ap;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_analysis_run(&s, &as, &err), 0);
	assert_int_equal(p2ps_analysis_run(&p, &ap, &err), 0);
	assert_int_equal(as.n_gpus, ap.n_gpus);
	assert_int_equal(as.n_pairs, ap.n_pairs);
	for (size_t k = 0; k < as.n_pairs; k++) {
		assert_int_equal(as.pairs[k].topo, ap.pairs[k].topo);
		assert_int_equal(as.pairs[k].pcie_topo, ap.pairs[k].pcie_topo);
		assert_int_equal(as.pairs[k].nvlinks, ap.pairs[k].nvlinks);
	}
	p2ps_analysis_free(&as);
	p2ps_analysis_free(&ap);
	p2ps_host_free(&s);
	p2ps_host_free(&p);
	unlink(paste);
	return gpus;
}

static void test_h100(void **state)
{
	(void)state;
	static const struct piece pieces[] = {
	        {"lspci -D -vvv -nn", "tests/fixtures/h100/p2pscope/lspci-vvv.txt"},
	        {"lspci -tv", "tests/fixtures/h100/p2pscope/lspci-tv.txt"},
	        {"nvidia-smi -q", "tests/fixtures/h100/p2pscope/nvidia-smi-q.txt"},
	        {"nvidia-smi topo -m", "tests/fixtures/h100/p2pscope/nvidia-smi-topo-m.txt"},
	        {"nvidia-smi topo -p2p r", "tests/fixtures/h100/p2pscope/nvidia-smi-topo-p2p.txt"},
	        {"cat /proc/cmdline", "tests/fixtures/h100-recon/cmdline.txt"},
	        {"find /sys/kernel/iommu_groups/", "tests/fixtures/h100-recon/iommu-groups.txt"},
	        {"dmesg", "tests/fixtures/h100-recon/dmesg.txt"},
	};
	assert_int_equal(compare("tests/fixtures/h100", assemble(pieces, 8)), 1);
}

/* The H100 again with its config bytes pasted as lspci -xxxx: the hex path must agree. */
static void test_h100_hex(void **state)
{
	(void)state;
	static const struct piece pieces[] = {
	        {"lspci -D -vvv -nn", "tests/fixtures/h100/p2pscope/lspci-vvv.txt"},
	        {"sudo lspci -D -xxxx", "tests/fixtures/h100/p2pscope/lspci-xxxx.txt"},
	        {"nvidia-smi -q", "tests/fixtures/h100/p2pscope/nvidia-smi-q.txt"},
	        {"nvidia-smi topo -m", "tests/fixtures/h100/p2pscope/nvidia-smi-topo-m.txt"},
	};
	assert_int_equal(compare("tests/fixtures/h100", assemble(pieces, 4)), 1);
}

static void test_h200x2(void **state)
{
	(void)state;
	static const struct piece pieces[] = {
	        {"nvidia-smi topo -m", "tests/fixtures/h200x2/p2pscope/nvidia-smi-topo-m.txt"},
	        {"sudo lspci -D -vvv -nn", "tests/fixtures/h200x2/p2pscope/lspci-vvv.txt"},
	        {"nvidia-smi -q", "tests/fixtures/h200x2/p2pscope/nvidia-smi-q.txt"},
	        {"lspci -tv", "tests/fixtures/h200x2/p2pscope/lspci-tv.txt"},
	        {"nvidia-smi topo -p2p r",
	         "tests/fixtures/h200x2/p2pscope/nvidia-smi-topo-p2p.txt"},
	};
	assert_int_equal(compare("tests/fixtures/h200x2", assemble(pieces, 5)), 2);
}

/* The H100 paste's host facts: the empty IOMMU listing (no IOMMU), the command line, the
 * driver version from NVRM's load line, the VM from the kernel log. */
static void test_h100_host_facts(void **state)
{
	(void)state;
	static const struct piece pieces[] = {
	        {"cat /proc/cmdline", "tests/fixtures/h100-recon/cmdline.txt"},
	        {"find /sys/kernel/iommu_groups/", "tests/fixtures/h100-recon/iommu-groups.txt"},
	        {"dmesg", "tests/fixtures/h100-recon/dmesg.txt"},
	};
	struct p2ps_paste p;
	struct p2ps_error err = {0};
	const char *path = assemble(pieces, 3);
	assert_int_equal(p2ps_paste_load(path, &p, &err), 0);
	unlink(path);
	assert_true(p.host.iommu_known);
	assert_false(p.host.iommu_present);
	assert_true(p.host.cmdline_known);
	assert_non_null(strstr(p.host.cmdline, "pci=realloc=off"));
	assert_string_equal(p.host.driver_version, "580.159.04");
	assert_int_equal(p.host.driver_open, 1);
	assert_true(p.host.vm);
	assert_string_equal(p.host.hypervisor, "KVM");
	struct p2ps_bdf b = {0, 0, 6, 0};
	const struct p2ps_paste_dev *pd = p2ps_paste_find_dev(&p, &b);
	assert_non_null(pd);
	assert_int_equal(pd->d.device_id, 0x2330);
	assert_int_equal(pd->d.bars[2].size, 128ull << 30);
	p2ps_paste_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_h100),
	        cmocka_unit_test(test_h100_hex),
	        cmocka_unit_test(test_h200x2),
	        cmocka_unit_test(test_h100_host_facts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
