/* SPDX-License-Identifier: MIT */
/* bar-inspect's NVIDIA facts through the RM API (src/host/backends/rm_facts.c) against the
 * fake RM (fake_rm.c, 580 layouts): the 2 x H200 snapshot's GPUs get FB, BAR1, NVLink and
 * the pair's P2P caps per path; NVLink peers directly and through an NVSwitch fabric; every
 * object is freed; a driver series without layouts leaves the facts to the fallback with
 * one line; a write control stays refused before any ioctl. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_rm.h"
#include "nvfacts.h"
#include "p2ps_test.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/rm_ctrl.h"

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

static struct p2ps_dev *gpu(struct p2ps_host *h, unsigned dev)
{
	struct p2ps_bdf b = {0, 0, (uint8_t)dev, 0};
	return p2ps_host_find(h, &b);
}

static void run(struct p2ps_host *h, struct fake_rm *f, int nvlink_mode)
{
	struct p2ps_rm_sys sys;
	fake_rm_init(f, &sys);
	f->gpus = 2;
	f->h200_slots = true;
	f->nvlink_mode = nvlink_mode;
	load_h200(h);
	assert_int_equal(p2ps_rm_facts_fill(h, &sys), 0);
	assert_int_equal(fake_rm_live(f), 0);
	assert_int_equal(f->fds_open, 0);
	assert_int_equal(f->bad_frees, 0);
}

static void test_facts(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct fake_rm f;
	run(&h, &f, 1);
	assert_true(h.nvidia.rm_loaded);
	assert_string_equal(h.nvidia.rm_driver_version, "580.159.04");
	for (unsigned d = 6; d <= 7; d++) {
		const struct p2ps_gpu_facts *g = &gpu(&h, d)->gpu;
		assert_int_equal(g->source, P2PS_GPU_SRC_RM);
		assert_int_equal(g->vram_bytes, 143771ull << 20);
		assert_int_equal(g->bar1_total_bytes, 262144ull << 20);
		assert_int_equal(g->rm.fb_reserved, 616ull << 20);
		assert_true(g->rm.static_bar1_known && g->rm.static_bar1);
		assert_int_equal(g->rm.pci_device_id, 0x2330); /* the fake's CARD_INFO */
		assert_string_equal(g->rm.chip, "GH100");
		assert_int_equal(g->rm.n_links, 2);
		assert_string_equal(g->rm.links[1].state_name, "ACTIVE");
		assert_string_equal(g->rm.links[1].remote_type_name, "GPU");
	}
	/* The fake links both GPUs to slot 7: GPU 6 gets 7 as its peer over 2 links. */
	assert_int_equal(gpu(&h, 6)->gpu.n_nvlink_peers, 1);
	assert_int_equal(gpu(&h, 6)->gpu.nvlink_peers[0].bdf.dev, 7);
	assert_int_equal(gpu(&h, 6)->gpu.nvlink_peers[0].links, 2);
	const struct p2ps_driver_p2p *p =
	        p2ps_host_driver_p2p(&h, &gpu(&h, 7)->bdf, &gpu(&h, 6)->bdf);
	assert_non_null(p);
	assert_true(p->known);
	assert_int_equal(p->a.dev, 6);
	assert_int_equal(p->caps, 0xb);
	assert_int_equal(p->status[P2PS_NV_CAPS_NVLINK], 0);
	assert_string_equal(p2ps_nv_status_name(p->status[P2PS_NV_CAPS_PCI]), "NOT_SUPPORTED");
	assert_int_equal(p->peer_id_ab, 0);
	assert_int_equal(p->peer_id_ba, 1);
	assert_false(p->matrix_known); /* not asked: two GSP calls per GPU for no status */
	assert_true(h.nvidia.rm.cpu_known);
	assert_string_equal(h.nvidia.rm.cpu_type_name, "XEON_SPR");
	assert_string_equal(h.nvidia.rm.cpu_name, "Fake Xeon");
	assert_true(h.nvidia.rm.chipset_known);
	assert_string_equal(h.nvidia.rm.chipset_name, "Fake chipset");
	p2ps_host_free(&h);
}

static void test_fabric(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct fake_rm f;
	run(&h, &f, 2);
	/* 18 links each to NVSwitches the guest cannot see, NVLink status OK: NV18. */
	for (unsigned d = 6; d <= 7; d++) {
		const struct p2ps_gpu_facts *g = &gpu(&h, d)->gpu;
		assert_int_equal(g->n_nvlink_peers, 1);
		assert_int_equal(g->nvlink_peers[0].bdf.dev, 13 - d);
		assert_int_equal(g->nvlink_peers[0].links, 18);
	}
	p2ps_host_free(&h);
}

/* The session recorded through the recorder, then replayed in a snapshot load: the same
 * facts without the fake, every call of the capture used. */
static void test_record_replay(void **state)
{
	(void)state;
	struct fake_rm f;
	struct p2ps_rm_sys inner, rec_sys, rep_sys;
	fake_rm_init(&f, &inner);
	f.gpus = 2;
	f.h200_slots = true;
	f.nvlink_mode = 2;
	char path[] = "/tmp/test_rm_facts.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct p2ps_rm_recorder *rec;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_rm_record_start(&rec, &inner, path, "test", &rec_sys, &err), 0);
	struct p2ps_host h;
	load_h200(&h);
	assert_int_equal(p2ps_rm_facts_fill(&h, &rec_sys), 0);
	assert_int_equal(p2ps_rm_record_finish(rec, &err), 0);
	p2ps_host_free(&h);

	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	static char text[1 << 20];
	size_t len = fread(text, 1, sizeof(text), fp);
	fclose(fp);
	/* TEST_RM_FACTS_KEEP=FILE keeps the capture (to try bar-inspect --replay by hand). */
	const char *keep = getenv("TEST_RM_FACTS_KEEP");
	if (!keep || rename(path, keep) != 0)
		unlink(path);
	struct p2ps_rm_capture cap = {0};
	assert_int_equal(p2ps_rm_capture_parse(text, len, path, &cap, &err), 0);
	struct p2ps_rm_replay *rep;
	assert_int_equal(p2ps_rm_replay_start(&rep, &cap, &rep_sys, &err), 0);
	struct p2ps_host_source src = {.kind = P2PS_HOST_SNAPSHOT,
	                               .path = p2ps_test_src_path("tests/fixtures/h200x2-raw-snap"),
	                               .flags = P2PS_HOST_F_NO_NAMES,
	                               .rm_sys = &rep_sys};
	assert_int_equal(p2ps_host_load(&h, &src, &err), 0);
	assert_int_equal(p2ps_rm_replay_finish(rep, &err), 0);
	p2ps_rm_capture_cleanup(&cap);
	assert_string_equal(h.nvidia.facts_source, "rm");
	assert_int_equal(gpu(&h, 6)->gpu.source, P2PS_GPU_SRC_RM);
	assert_int_equal(gpu(&h, 7)->gpu.nvlink_peers[0].links, 18);
	p2ps_host_free(&h);
}

/* Three GPUs on NVLink (a model made by hand: 00:06.0, 00:07.0, 00:08.0): one
 * GET_P2P_CAPS_V2 for the group answers every pair, each with its own peer ids. */
static void test_group(void **state)
{
	(void)state;
	struct fake_rm f;
	struct p2ps_rm_sys sys;
	fake_rm_init(&f, &sys);
	f.gpus = 3;
	f.h200_slots = true;
	f.nvlink_mode = 2;
	struct p2ps_host h;
	memset(&h, 0, sizeof(h));
	h.devs = calloc(3, sizeof(*h.devs));
	assert_non_null(h.devs);
	h.n_devs = 3;
	for (unsigned i = 0; i < 3; i++)
		h.devs[i] = (struct p2ps_dev){.bdf = {0, 0, (uint8_t)(6 + i), 0},
		                              .vendor_id = 0x10de,
		                              .class_code = 0x030200};
	assert_int_equal(p2ps_rm_facts_fill(&h, &sys), 0);
	assert_int_equal(fake_rm_live(&f), 0);
	assert_int_equal(f.p2p_caps_calls, 1);
	assert_int_equal(h.nvidia.rm.n_p2p, 3);
	const struct p2ps_driver_p2p *p = p2ps_host_driver_p2p(&h, &h.devs[2].bdf, &h.devs[1].bdf);
	assert_non_null(p);
	assert_true(p->known && p->from_group);
	assert_int_equal(p->status[P2PS_NV_CAPS_NVLINK], 0);
	assert_int_equal(p->status[P2PS_NV_CAPS_PCI_BAR1], 5);
	assert_int_equal(p->peer_id_ab, 16 * 1 + 2); /* 07.0's id for 08.0 */
	assert_int_equal(p->peer_id_ba, 16 * 2 + 1);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(h.devs[i].gpu.n_nvlink_peers, 2);
		assert_int_equal(h.devs[i].gpu.nvlink_peers[0].links, 18);
	}
	p2ps_host_free(&h);
}

static void test_unknown_series(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct fake_rm f;
	struct p2ps_rm_sys sys;
	fake_rm_init(&f, &sys);
	f.version =
	        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.10  Release Build\n";
	load_h200(&h);
	assert_int_equal(p2ps_rm_facts_fill(&h, &sys), -1);
	assert_false(h.nvidia.rm_loaded);
	assert_non_null(strstr(h.nvidia.rm_status, "series 610"));
	assert_int_equal(f.escapes, 0);
	assert_false(gpu(&h, 6)->gpu.vram_known);
	p2ps_host_free(&h);
}

/* Writes stay refused by name before the driver sees them, whatever the typed wrappers add. */
static void test_write_refused(void **state)
{
	(void)state;
	struct fake_rm f;
	struct p2ps_rm_sys sys;
	fake_rm_init(&f, &sys);
	struct p2ps_rm *rm;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_rm_open(&rm, &sys, &err), 0);
	unsigned before = f.escapes;
	f.gpus = 2;
	uint8_t b[64] = {0};
	/* NV2080_CTRL_CMD_BUS_SET_P2P_MAPPING and NV0080_CTRL_CMD_DMA_SET_PTE_INFO. */
	assert_int_equal(
	        p2ps_rm_control(rm, p2ps_rm_client(rm), 0x2080182e, b, sizeof(b), NULL, &err),
	        P2PS_EACCES);
	assert_int_equal(
	        p2ps_rm_control(rm, p2ps_rm_client(rm), 0x0080180a, b, sizeof(b), NULL, &err),
	        P2PS_EACCES);
	assert_int_equal(f.escapes, before);
	/* The matrix form, typed: the group against itself. */
	uint32_t ids[2] = {0x4100, 0x4101};
	struct p2ps_rm_p2p_matrix m;
	assert_int_equal(p2ps_rm_ctrl_p2p_matrix(rm, ids, 2, &m, NULL, &err), 0);
	assert_int_equal(m.caps[0][1], 0xb);
	assert_int_equal(m.caps[1][1], 0);
	assert_int_equal(p2ps_rm_ctrl_p2p_matrix(rm, ids, 9, &m, NULL, &err), P2PS_EINVAL);
	/* Every control the typed wrappers issue is on the allow-list. */
	const uint32_t typed[] = {P2PS_RM_CTRL_SYSTEM_GET_CPU_INFO,
	                          P2PS_RM_CTRL_SYSTEM_GET_CHIPSET_INFO,
	                          P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_MATRIX,
	                          P2PS_RM_CTRL_BUS_GET_PCI_INFO,
	                          P2PS_RM_CTRL_FB_GET_INFO_V2,
	                          P2PS_RM_CTRL_FB_GET_STATIC_BAR1_INFO,
	                          P2PS_RM_CTRL_NVLINK_GET_NVLINK_STATUS};
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++)
		assert_non_null(p2ps_rm_ctrl_name(typed[i]));
	assert_int_equal(p2ps_rm_close(rm, NULL, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_facts),          cmocka_unit_test(test_fabric),
	        cmocka_unit_test(test_record_replay),  cmocka_unit_test(test_group),
	        cmocka_unit_test(test_unknown_series), cmocka_unit_test(test_write_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
