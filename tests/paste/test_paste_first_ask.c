/* SPDX-License-Identifier: MIT */
/* The first ask of a paste that shows P2P allowed and nothing copied, nothing failed:
 * whether peer copies complete and beat host copies (./p2pBandwidthLatencyTest), before
 * the platform's facts. Two forms, from the dev set (tests/fixtures/pastes):
 *  - CUDA's grants and the sample's output cut before its bandwidth rows (case 42,
 *    tinygrad/open-gpu-kernel-modules, 2 x RTX 3090);
 *  - the nvidia-smi table alone (case 76, vllm-project/vllm, 2 x RTX 3090).
 * And the counter-form: the same grants beside a hang go by the hang's order.
 * nccl-tests stopped after its result header (a hang or a cut): on NVLink boards (case 72,
 * NVIDIA/nccl-tests, 8 x A100-SXM4) whether the GPUs reach each other comes first, where
 * ACS and the IOMMU do not reach; on PCIe boards (case 62, NVIDIA/nccl, 8 x Tesla M40)
 * ACS of the ports between them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "p2ps_paste_run.h"

#include "p2pscope/analysis.h"
#include "p2pscope/evidence.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/paste_report.h"

#define GRANTS                                                                                     \
	"[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"                                        \
	"Device: 0, NVIDIA GeForce RTX 3090, pciBusID: 41, pciDeviceID: 0, pciDomainID:0\n"        \
	"Device: 1, NVIDIA GeForce RTX 3090, pciBusID: 61, pciDeviceID: 0, pciDomainID:0\n"        \
	"Device=0 CAN Access Peer Device=1\n"                                                      \
	"Device=1 CAN Access Peer Device=0\n"

static void test_grants_cut(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(&x, GRANTS "\nP2P Connectivity Matrix\n     D\\D     0     1\n");
	assert_true(x.r.n_asks > 0);
	assert_string_equal(x.r.asks[0].command, "./p2pBandwidthLatencyTest");
	p2ps_paste_run_free(&x);
}

static void test_table_only(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(
	        &x,
	        "+---------------------------------------------------------------------------------"
	        "--------+\n"
	        "| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: "
	        "13.3     |\n"
	        "+-----------------------------------------+------------------------+--------------"
	        "--------+\n"
	        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile "
	        "Uncorr. ECC |\n"
	        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  "
	        "Compute M. |\n"
	        "|                                         |                        |              "
	        " MIG M. |\n"
	        "|=========================================+========================+=============="
	        "========|\n"
	        "|   0  NVIDIA GeForce RTX 3090        On  |   00000000:01:00.0 Off |              "
	        "    N/A |\n"
	        "|  0%   37C    P8             29W /  280W |   22698MiB /  24576MiB |      0%      "
	        "Default |\n"
	        "|                                         |                        |              "
	        "    N/A |\n"
	        "+-----------------------------------------+------------------------+--------------"
	        "--------+\n"
	        "|   1  NVIDIA GeForce RTX 3090        On  |   00000000:02:00.0 Off |              "
	        "    N/A |\n"
	        "|  0%   37C    P8             27W /  280W |   22698MiB /  24576MiB |      0%      "
	        "Default |\n"
	        "|                                         |                        |              "
	        "    N/A |\n"
	        "+-----------------------------------------+------------------------+--------------"
	        "--------+\n");
	assert_true(x.r.n_asks > 0);
	assert_string_equal(x.r.asks[0].command, "./p2pBandwidthLatencyTest");
	p2ps_paste_run_free(&x);
}

static void test_grants_with_hang(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(
	        &x,
	        GRANTS "[Rank 0] Watchdog caught collective operation timeout: "
	               "WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 milliseconds before "
	               "timing out.\n");
	assert_true(x.h.evidence->sym.count[P2PS_PS_HANG] > 0);
	assert_true(x.r.n_asks > 0);
	assert_string_not_equal(x.r.asks[0].command, "./p2pBandwidthLatencyTest");
	p2ps_paste_run_free(&x);
}

static void test_header_only_nvlink_boards(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(&x, " nThread 1 nGpus 1 minBytes 32 maxBytes 8589934592 step: "
	                        "2(factor) warmup iters: 5 "
	                        "      iters: 20 validation: 1 single_test: 0 test_buffer_kind: 2\n"
	                        "\n"
	                        " Using devices\n"
	                        "   Rank  0 Pid 1821213 on AI-A100-Beethoven01 device  0 [0x00] "
	                        "NVIDIA A100-SXM4-40GB\n"
	                        "   Rank  1 Pid 1821214 on AI-A100-Beethoven01 device  1 [0x00] "
	                        "NVIDIA A100-SXM4-40GB\n"
	                        "\n"
	                        "                                                     out-of-place "
	                        "                    "
	                        "  in-place\n"
	                        "       size         count    type   redop     time   algbw   "
	                        "busbw  error     time   "
	                        "algbw   busbw  error\n");
	assert_true(x.h.evidence->sym.count[P2PS_PS_HANG] > 0);
	assert_true(x.r.n_asks > 0);
	assert_string_equal(x.r.asks[0].command, "./p2pBandwidthLatencyTest");
	p2ps_paste_run_free(&x);
}

static void test_header_only_pcie_boards(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(
	        &x,
	        "> Using devices\n"
	        "   Rank  0 uses device  0 [0x05] Tesla M40 24GB\n"
	        "   Rank  1 uses device  1 [0x08] Tesla M40 24GB\n"
	        ">\n"
	        ">                                                 out-of-place                    "
	        "in-place\n"
	        ">      bytes             N    type      op     time  algbw  busbw      res     "
	        "time  "
	        "algbw  busbw      res\n");
	assert_true(x.r.n_asks > 0);
	assert_string_equal(x.r.asks[0].command, "sudo lspci -vvv");
	p2ps_paste_run_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_grants_cut),
	        cmocka_unit_test(test_table_only),
	        cmocka_unit_test(test_grants_with_hang),
	        cmocka_unit_test(test_header_only_nvlink_boards),
	        cmocka_unit_test(test_header_only_pcie_boards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
