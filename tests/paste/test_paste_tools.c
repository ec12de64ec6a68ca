/* SPDX-License-Identifier: MIT */
/* The paste reader on the output of the field's other tools and on error forms, each test
 * built from lines real threads posted (named beside each; all are cases of the dev set,
 * tests/fixtures/pastes, where the whole paste stands):
 *  - nvbandwidth's device lines, its device-to-device matrix and its pattern check;
 *  - TensorFlow's GPU log (the edge matrix and the physical-GPU lines);
 *  - nvidia-smi --query-gpu's CSV, with and without its header;
 *  - NCCL's connection lines cut from their "Channel" start, GPUDirect RDMA per GPU;
 *  - gdrcopy's pin failures and CUDA error 711;
 *  - nccl-tests' rows without their header, and its old rounding error column;
 *  - GPUs that all sit on bus 0 (a virtual machine). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2ps_paste_run.h"

#include "p2pscope/analysis.h"
#include "p2pscope/evidence.h"
#include "p2pscope/host.h"
#include "p2pscope/paste_report.h"

static const char *first_ask(const struct p2ps_paste_run *x)
{
	return x->r.n_asks ? x->r.asks[0].command : "";
}

static const struct p2ps_paste_gpu *gpu_at(const struct p2ps_evidence *ev, unsigned bus)
{
	for (size_t i = 0; i < ev->n_gpus; i++)
		if (ev->gpus[i].bdf_known && ev->gpus[i].bdf.bus == bus)
			return &ev->gpus[i];
	return NULL;
}

/* NVIDIA/nvbandwidth#50: six RTX A6000 copy between every pair; a figure in the
 * device-to-device matrix is a peer copy that completed. */
static void test_nvbandwidth_matrix(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(&x, "nvbandwidth Version: v0.8\n"
	                        "Driver Version: 580.95.05\n"
	                        "\n"
	                        "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
	                        "           0         1         2\n"
	                        " 0       N/A     26.34     21.95\n"
	                        " 1     26.34       N/A     21.86\n"
	                        " 2     26.34     22.36       N/A\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_true(ev->matrix[P2PS_PM_D2D].present);
	assert_int_equal(x.r.n_pairs, 3);
	for (size_t i = 0; i < x.r.n_pairs; i++) {
		assert_int_equal(x.r.pairs[i].works, 1);
		assert_true(x.r.pairs[i].d2d > 20.0);
	}
	assert_int_equal(x.r.verdict, P2PS_VERDICT_READY);
	/* 26 against 22 GB/s: the path of the slower pairs is the question left. */
	assert_string_equal(first_ask(&x), "nvidia-smi topo -m");
	p2ps_paste_run_free(&x);
}

/* NVIDIA/nvbandwidth#34: eight A100-SXM4 named with their bus ids; the copy's pattern
 * check fails. Wrong data between NVLink boards asks the driver's log first. */
static void test_nvbandwidth_devices_pattern(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(&x, "nvbandwidth Version: v0.7\n"
	                        "\n"
	                        "Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)\n"
	                        "Device 1: NVIDIA A100-SXM4-80GB (00000000:35:00)\n"
	                        "\n"
	                        "Running device_to_device_memcpy_read_ce.\n"
	                        " Invalid value when checking the pattern at 0x70a640000000\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->n_gpus, 2);
	const struct p2ps_paste_gpu *g = gpu_at(ev, 0x35);
	assert_non_null(g);
	assert_int_equal(g->cuda, 1);
	assert_string_equal(g->name, "NVIDIA A100-SXM4-80GB");
	assert_int_equal(ev->sym.count[P2PS_PS_WRONG_DATA], 1);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_NOT_READY);
	assert_string_equal(first_ask(&x), "sudo dmesg | grep -E 'NVRM|Xid'");
	p2ps_paste_run_free(&x);
}

/* tensorflow/tensorflow#24677: TensorFlow 1.13's edge matrix, all N, under its log prefix;
 * the physical-GPU lines give names and bus ids. */
static void test_tensorflow_edge_matrix(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x,
	        "2019-01-03 07:07:31.374026: I tensorflow/core/common_runtime/gpu/"
	        "gpu_device.cc:971] Device interconnect StreamExecutor with strength 1 edge "
	        "matrix:\n"
	        "2019-01-03 07:07:31.374063: I tensorflow/core/common_runtime/gpu/"
	        "gpu_device.cc:977]      0 1 \n"
	        "2019-01-03 07:07:31.374070: I tensorflow/core/common_runtime/gpu/"
	        "gpu_device.cc:990] 0:   N N \n"
	        "2019-01-03 07:07:31.374075: I tensorflow/core/common_runtime/gpu/"
	        "gpu_device.cc:990] 1:   N N \n"
	        "2019-01-03 07:07:31.374707: I tensorflow/core/common_runtime/gpu/"
	        "gpu_device.cc:1103] Created TensorFlow device (/job:localhost/replica:0/task:0/"
	        "device:GPU:0 with 9854 MB memory) -> physical GPU (device: 0, name: GeForce RTX "
	        "2080 Ti, pci bus id: 0000:05:00.0, compute capability: 7.5)\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	const struct p2ps_paste_gpu *g = gpu_at(ev, 0x05);
	assert_non_null(g);
	assert_string_equal(g->name, "GeForce RTX 2080 Ti");
	assert_int_equal(g->cuda, 0);
	assert_true(p2ps_paste_run_has_cause(&x, "cuda_no_peer_access"));
	assert_int_equal(x.r.verdict, P2PS_VERDICT_NOT_READY);
	p2ps_paste_run_free(&x);
}

/* gardenlinux/gardenlinux#4556: the query's CSV without a header; and the header form
 * bar-inspect itself asks for. */
static void test_query_csv(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(&x,
	                    "0, NVIDIA RTX PRO 6000 Blackwell Server Edition, 00000000:03:00.0\n"
	                    "1, NVIDIA RTX PRO 6000 Blackwell Server Edition, 00000000:04:00.0\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->n_gpus, 2);
	const struct p2ps_paste_gpu *g = gpu_at(ev, 0x04);
	assert_non_null(g);
	assert_int_equal(g->smi, 1);
	assert_string_equal(g->name, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
	p2ps_paste_run_free(&x);
	p2ps_paste_run_text(&x, "index, pci.bus_id, name, memory.total [MiB]\n"
	                        "0, 00000000:01:00.0, NVIDIA GeForce RTX 4090, 24564 MiB\n"
	                        "1, 00000000:41:00.0, NVIDIA GeForce RTX 4090, 24564 MiB\n");
	ev = x.h.evidence;
	g = gpu_at(ev, 0x41);
	assert_non_null(g);
	assert_int_equal(g->smi, 1);
	assert_true(g->vram_known);
	assert_true(g->vram == (uint64_t)24564 << 20);
	p2ps_paste_run_free(&x);
}

/* NVIDIA/nccl#897: two connection lines cut from their "Channel" start; the receiving one
 * runs without GPUDirect RDMA where the other uses it. */
static void test_nccl_connection_lines(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(&x, "9[1a000] -> 2[6b000] [send] via NET/IB/0/GDRDMA\n"
	                        "9[1a000] -> 2[6b000] [receive] via NET/IB/1\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->nccl.via[P2PS_NV_NET], 2);
	assert_int_equal(ev->nccl.via_gdr, 1);
	assert_int_equal(ev->nccl.recv_no_gdr, 1);
	assert_int_equal(ev->nccl.recv_no_gdr_from.line, 2);
	assert_string_equal(first_ask(&x), "lsmod | grep -E 'nvidia_peermem|nv_peer_mem'");
	p2ps_paste_run_free(&x);
}

/* Mellanox/nv_peer_memory#56: NCCL 2.4's per-GPU form of GPUDirect RDMA turned off by the
 * path's distance, in a log of two hosts whose local pairs use P2P: not ready. */
static void test_gdr_distance(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "master_node:11718:11985 [3] NCCL INFO Ring 00 : 3[3] -> 1[1] via P2P/IPC\n"
	            "master_node:11717:11986 [2] NCCL INFO NET/IB : GPU Direct RDMA Disabled for "
	            "GPU 2[2] / HCA 0 (distance 3 >= 2)\n"
	            "master_node:11717:11986 [2] NCCL INFO Ring 00 : 6 -> 2 [receive] via "
	            "NET/IB/0\n"
	            "secondary_node:11791:12057 [2] NCCL INFO NET/IB : GPU Direct RDMA Disabled "
	            "for GPU 2[2] / HCA 0 (distance 3 >= 2)\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->nccl.gdr_disabled, 2);
	assert_true(p2ps_paste_run_has_cause(&x, "gdr_disabled"));
	assert_int_equal(x.r.verdict, P2PS_VERDICT_NOT_READY);
	p2ps_paste_run_free(&x);
}

/* NVIDIA/gdrcopy#305 and ggml-org/llama.cpp#21883: gdrcopy's pin failing; CUDA error 711.
 * Each is P2P (or GPUDirect RDMA) failing, with its own first ask. */
static void test_gdr_pin_and_711(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(&x, "gdrcopy_sanity\n"
	                        "Assertion \"(gdr_pin_buffer(g, d_A, A_size, 0, 0, &A_mh)) == "
	                        "(0)\" failed at sanity.cpp:344\n");
	assert_int_equal(x.h.evidence->sym.count[P2PS_PS_GDR_PIN], 1);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_NOT_READY);
	assert_string_equal(first_ask(&x), "cat /proc/driver/nvidia/version");
	p2ps_paste_run_free(&x);
	p2ps_paste_run_text(&x, "ggml_cuda_init: found 2 CUDA devices:\n"
	                        "  Device 0: Tesla P40, compute capability 6.1, VMM: yes\n"
	                        "  Device 1: Tesla P40, compute capability 6.1, VMM: yes\n"
	                        "CUDA error: peer mapping resources exhausted\n");
	assert_int_equal(x.h.evidence->sym.count[P2PS_PS_TOO_MANY_PEERS], 1);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_NOT_READY);
	assert_string_equal(first_ask(&x), "nvidia-smi topo -p2p r");
	p2ps_paste_run_free(&x);
}

/* NVIDIA/nccl-tests#44 (rows of a 2020 release: its "error" column holds the largest
 * error, 0e+00) and NVIDIA/nccl-tests#331 (2.x rows after NCCL's log, header gone). */
static void test_nccl_tests_rows(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "#   Rank  0 Pid   3795 on w-system device  0 [0x01] GeForce RTX 2080 Ti\n"
	            "#   Rank  1 Pid   3795 on w-system device  1 [0x02] GeForce RTX 2080 Ti\n"
	            "           8             2   float     sum     7.18    0.00    0.00  0e+00   "
	            "  7.02    0.00    0.00  0e+00\n"
	            "       32768          4096   float    13.39    1.22    1.22  0e+00    11.85 "
	            "   1.38    1.38  0e+00\n"
	            "# Out of bounds values : 0 OK\n");
	assert_int_equal(x.h.evidence->cuda.nccl_wrong, 0);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_READY);
	p2ps_paste_run_free(&x);
	p2ps_paste_run_text(
	        &x, "#  Rank  0 Group  0 Pid 4063850 on   lrdn2296 device  0 [0000:1d:00] "
	            "NVIDIA A100-SXM-64GB\n"
	            "#  Rank  1 Group  0 Pid 4063850 on   lrdn2296 device  1 [0000:56:00] "
	            "NVIDIA A100-SXM-64GB\n"
	            "lrdn2296:4063850:4063882 [0] NCCL INFO Channel 03/1 : 0[0] -> 1[1] via "
	            "P2P/direct pointer/read\n"
	            "           8             2     float     sum      -1     9.85    0.00    0.00 "
	            "     0     9.90    0.00    0.00    N/A\n");
	assert_int_equal(x.h.evidence->cuda.nccl_wrong, 0);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_READY);
	p2ps_paste_run_free(&x);
	/* A summary that counts wrong values is a failure. */
	p2ps_paste_run_text(&x, "# Out of bounds values : 50 FAILED\n");
	assert_int_equal(x.h.evidence->cuda.nccl_wrong, 50);
	p2ps_paste_run_free(&x);
}

/* NVIDIA/nccl#1329: NCCL's topology of a guest whose GPUs all sit on bus 0. */
static void test_root_bus_vm(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "<system version=\"1\">\n"
	            "  <cpu numaid=\"-1\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" "
	            "modelid=\"134\">\n"
	            "    <pci busid=\"0000:00:09.0\" class=\"0x030200\" vendor=\"0x10de\" "
	            "device=\"0x20f5\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x1799\" "
	            "link_speed=\"\" link_width=\"0\">\n"
	            "      <gpu dev=\"0\" sm=\"80\" rank=\"0\" gdr=\"1\"/>\n"
	            "    </pci>\n"
	            "    <pci busid=\"0000:00:0a.0\" class=\"0x030200\" vendor=\"0x10de\" "
	            "device=\"0x20f5\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x1799\" "
	            "link_speed=\"\" link_width=\"0\">\n"
	            "      <gpu dev=\"1\" sm=\"80\" rank=\"1\" gdr=\"1\"/>\n"
	            "    </pci>\n"
	            "  </cpu>\n"
	            "</system>\n");
	assert_true(x.h.evidence->host.vm);
	assert_string_equal(first_ask(&x), "nvidia-smi topo -p2p r");
	p2ps_paste_run_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_nvbandwidth_matrix),
	        cmocka_unit_test(test_nvbandwidth_devices_pattern),
	        cmocka_unit_test(test_tensorflow_edge_matrix),
	        cmocka_unit_test(test_query_csv),
	        cmocka_unit_test(test_nccl_connection_lines),
	        cmocka_unit_test(test_gdr_distance),
	        cmocka_unit_test(test_gdr_pin_and_711),
	        cmocka_unit_test(test_nccl_tests_rows),
	        cmocka_unit_test(test_root_bus_vm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
