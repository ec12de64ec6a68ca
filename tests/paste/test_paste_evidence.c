/* SPDX-License-Identifier: MIT */
/* The paste's evidence where it stands, one test per form of input, each built from the
 * lines public bug reports show (the thread is named beside each; most are cases of the
 * dev set, tests/fixtures/pastes):
 *  - NCCL's log without its "host:pid:tid [n]" prefix, GPUDirect RDMA on or off per NIC,
 *    the peer-memory module in a module list;
 *  - simpleP2P without its banner and without the '>' quote marks markdown took;
 *  - p2pBandwidthLatencyTest's latency matrices, bidirectional-only fragments, rows whose
 *    title and header the excerpt cut;
 *  - a GPU's identity from an environment list, llama.cpp's device lines, nvidia-smi
 *    --version, lscpu and collect_env;
 *  - blocks that cannot erase each other;
 *  - GeForce cards named by a test's header, releases with known defects, an A/B of
 *    releases;
 *  - the asks of a paste that names no GPU, by its symptom;
 *  - a blocker of the model the paste's own evidence contradicts: a note. */
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
#include "p2pscope/host_load.h"
#include "p2pscope/paste_report.h"

static bool has_finding(const struct p2ps_paste_run *x, const char *code)
{
	for (size_t i = 0; i < x->r.findings.n; i++)
		if (!strcmp(p2ps_paste_finding_name(x->r.findings.v[i].code), code))
			return true;
	return false;
}

static int ask_at(const struct p2ps_paste_run *x, const char *command)
{
	for (size_t i = 0; i < x->r.n_asks; i++)
		if (!strcmp(x->r.asks[i].command, command))
			return (int)i;
	return -1;
}

/* The pair whose labels hold both texts, or NULL. */
static const struct p2ps_paste_pair *pair(const struct p2ps_paste_run *x, const char *a,
                                          const char *b)
{
	for (size_t i = 0; i < x->r.n_pairs; i++)
		if (strstr(x->r.pairs[i].a, a) && strstr(x->r.pairs[i].b, b))
			return &x->r.pairs[i];
	return NULL;
}

/* ---- 1. NCCL without its prefix; GPUDirect RDMA; the peer-memory module --------------- */

/* NVIDIA/nccl#1190: the log as NCCL_DEBUG_FILE wrote it, without "host:pid:tid [n]". */
static void test_nccl_bare(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"
	            "NCCL INFO Using network Socket\n"
	            "NCCL INFO Channel 00 : 1[89000] -> 0[3d000] via direct shared memory\n"
	            "NCCL INFO Channel 01 : 1[89000] -> 0[3d000] via direct shared memory\n"
	            "NCCL INFO Connected all rings\n"
	            "NCCL INFO comm 0x7fac840181a0 rank 1 nranks 2 cudaDev 0 busId 89000 - Init "
	            "COMPLETE\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->n_blocks, 1);
	assert_int_equal(ev->blocks[0].kind, P2PS_PASTE_NCCL);
	assert_int_equal(ev->nccl.via[P2PS_NV_SHM], 2);
	assert_int_equal(ev->nccl.via_from[P2PS_NV_SHM].line, 3);
	/* The busIds name the GPUs: 0000:3d:00.0 and 0000:89:00.0, joined as one pair. */
	assert_int_equal(ev->n_gpus, 2);
	const struct p2ps_paste_pair *p = pair(&x, "0000:3d:00.0", "0000:89:00.0");
	assert_non_null(p);
	assert_string_equal(p->nccl, "SHM");
	assert_int_equal(p->works, 0);
	p2ps_paste_run_free(&x);
}

/* NVIDIA/nccl#1537: NCCL turns GPUDirect RDMA off on both NICs while nvidia_peermem is
 * loaded (lsmod). */
static void test_gdr_off_peermem(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x,
	        "hostname1:25668:27396 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE "
	        "[1]mlx5_1:1/RoCE [RO]; OOB primaryip:10.10.10.10<0>\n"
	        "hostname1:25668:27396 [0] NCCL INFO Using network IB\n"
	        "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 "
	        "'mlx5_0'\n"
	        "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 "
	        "'mlx5_1'\n"
	        "\n"
	        "# lsmod | grep peermem\n"
	        "nvidia_peermem         12288  0\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->nccl.gdr_disabled, 2);
	assert_int_equal(ev->nccl.gdr_disabled_from.line, 3);
	assert_int_equal(ev->host.modules_listed, 1);
	assert_int_equal(ev->host.nvidia_peermem, 1);
	assert_true(has_finding(&x, "gdr_disabled"));
	assert_true(has_finding(&x, "peer_memory"));
	/* About GPUDirect RDMA, which NCCL turned off on every NIC: the path it asks about is
	 * refused, whatever P2P between the GPUs does. */
	assert_int_equal(x.r.verdict, P2PS_VERDICT_NOT_READY);
	p2ps_paste_run_free(&x);
	/* The same NICs with no peer-memory module in the list: the module is asked for
	 * first. */
	p2ps_paste_run_text(
	        &x,
	        "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 "
	        "'mlx5_0'\n"
	        "\n"
	        "$ lsmod | grep nvidia\n"
	        "nvidia_uvm           4956160  0\n"
	        "nvidia              56598528  147 nvidia_uvm,nvidia_modeset\n");
	ev = x.h.evidence;
	assert_int_equal(ev->host.modules_listed, 1);
	assert_int_equal(ev->host.nvidia_peermem, 0);
	assert_int_equal(ev->host.nv_peer_mem, 0);
	assert_true(has_finding(&x, "peer_memory"));
	/* The list answers whether a module is loaded: not asked again; the fix loads it. */
	for (size_t i = 0; i < x.r.n_asks; i++)
		assert_null(strstr(x.r.asks[i].command, "lsmod"));
	bool modprobe = false;
	for (size_t i = 0; i < x.r.findings.n; i++)
		modprobe |= strstr(x.r.findings.v[i].fix, "modprobe nvidia-peermem") != NULL;
	assert_true(modprobe);
	p2ps_paste_run_free(&x);
}

/* NCCL's own forms (src/transport/net_ib.cc, src/transport.cc): GPUDirect RDMA on, and a
 * network channel that registers GPU memory on the NIC. */
static void test_gdr_on(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "node1:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n"
	            "node1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via "
	            "NET/IB/0/GDRDMA\n");
	assert_int_equal(x.h.evidence->nccl.gdr_enabled, 1);
	assert_int_equal(x.h.evidence->nccl.via_gdr, 1);
	assert_false(has_finding(&x, "peer_memory") && x.r.verdict == P2PS_VERDICT_NOT_READY);
	p2ps_paste_run_free(&x);
}

/* ---- 2. simpleP2P without its banner or its quote marks ------------------------------ */

/* tinygrad/open-gpu-kernel-modules#44 (dev case 38): the run's lines with the '>' of the
 * peer-access lines gone and the banner left out; then only its last lines. */
static void test_simplep2p_bare(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 "
	            "(GPU1) : Yes\n"
	            "Peer access from NVIDIA GeForce RTX 4090 (GPU1) -> NVIDIA GeForce RTX 4090 "
	            "(GPU0) : Yes\n"
	            "Enabling peer access between GPU0 and GPU1...\n"
	            "Allocating buffers (64MB on GPU0, GPU1 and CPU Host)...\n"
	            "Creating event handles...\n"
	            "cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 6.13GB/s\n"
	            "Preparing host buffer and memcpy to GPU0...\n"
	            "Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...\n"
	            "Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...\n"
	            "Copy data back to host from GPU0 and verify results...\n"
	            "Disabling peer access...\n"
	            "Shutting down...\n"
	            "Test passed\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_string_equal(ev->cuda.test, "simpleP2P");
	assert_int_equal(ev->cuda.result, 1);
	assert_int_equal(ev->cuda.enabled_a, 0);
	assert_int_equal(ev->cuda.enabled_b, 1);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_READY);
	assert_int_equal(x.r.n_pairs, 1);
	assert_int_equal(x.r.pairs[0].works, 1);
	assert_false(x.r.pairs[0].works_weak);
	/* A working host is not asked what a broken one is: no IOMMU or ACS question. */
	assert_int_equal(ask_at(&x, "cat /proc/cmdline"), -1);
	p2ps_paste_run_free(&x);
	/* Only the run's end: simpleP2P enables access once both directions allow it, and
	 * its check passed. */
	p2ps_paste_run_text(&x, "Enabling peer access between GPU0 and GPU1...\n"
	                        "Disabling peer access...\n"
	                        "Shutting down...\n"
	                        "Test passed\n");
	assert_int_equal(x.r.verdict, P2PS_VERDICT_READY);
	p2ps_paste_run_free(&x);
}

/* ---- 3. p2pBandwidthLatencyTest beyond the unidirectional pair ------------------------ */

/* tinygrad/open-gpu-kernel-modules#44: the bidirectional matrices alone. P2P on beats P2P
 * off (12.88 against 8.66 GB/s), the only figures the fragment has. */
static void test_bidirectional_only(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(&x, "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
	                        "   D\\D     0      1 \n"
	                        "     0 1018.92   8.66 \n"
	                        "     1   8.67 926.39 \n"
	                        "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)\n"
	                        "   D\\D     0      1 \n"
	                        "     0 1016.92  12.88 \n"
	                        "     1  12.88 924.00 \n");
	assert_int_equal(x.r.n_pairs, 1);
	assert_true(x.r.pairs[0].bw_bidirectional);
	assert_true(x.r.pairs[0].bw_on > 12.8 && x.r.pairs[0].bw_off < 8.7);
	assert_int_equal(x.r.pairs[0].works, 1);
	p2ps_paste_run_free(&x);
}

/* The same thread's unidirectional matrices with the excerpt starting inside the first
 * one: its rows, without title or header, are the P2P-off figures the sample prints
 * before the P2P-on title; P2P gains nothing (6.60 against 6.34 GB/s). */
static void test_untitled_rows(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(&x, "     0 1008.06   6.34 \n"
	                        "     1   6.34 926.75 \n"
	                        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n"
	                        "   D\\D     0      1 \n"
	                        "     0 1015.27   6.60 \n"
	                        "     1   6.60 945.63 \n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->n_blocks, 1);
	assert_true(ev->matrix[P2PS_PM_BW_UNI_OFF].present);
	assert_string_equal(p2ps_evidence_cell(ev, P2PS_PM_BW_UNI_OFF, 0, 1), "6.34");
	assert_true(has_finding(&x, "p2p_no_gain"));
	assert_int_equal(x.r.pairs[0].works, 0);
	p2ps_paste_run_free(&x);
}

/* aikitoria/open-gpu-kernel-modules#6 (shared fixture 07): P2P writes take 0.37-0.44 us
 * against 14.3 us with P2P off: live peer writes, no stall. Then the latency form of a
 * stall on the same layout: P2P-on cells written in at the tens of milliseconds a peer
 * write that times out takes (these two figures are ours, not the thread's). */
static void test_latency(void **state)
{
	(void)state;
	static const char head[] = "P2P=Disabled Latency Matrix (us)\n"
	                           "   GPU     0      1\n"
	                           "     0   2.07  14.31\n"
	                           "     1  14.31   2.07\n"
	                           "\n"
	                           "   CPU     0      1\n"
	                           "     0   3.20   8.82\n"
	                           "     1   8.98   3.01\n"
	                           "P2P=Enabled Latency (P2P Writes) Matrix (us)\n"
	                           "   GPU     0      1\n";
	char text[1024];
	struct p2ps_paste_run x;
	snprintf(text, sizeof(text), "%s%s", head,
	         "     0   2.07   0.44\n"
	         "     1   0.37   2.07\n"
	         "\n"
	         "   CPU     0      1\n"
	         "     0   3.04   2.49\n"
	         "     1   2.61   2.94\n");
	p2ps_paste_run_text(&x, text);
	assert_true(x.h.evidence->matrix[P2PS_PM_LAT_ON].present);
	assert_int_equal(x.r.n_pairs, 1);
	assert_true(x.r.pairs[0].lat_off > 14.0 && x.r.pairs[0].lat_on < 0.5);
	assert_false(has_finding(&x, "p2p_latency"));
	p2ps_paste_run_free(&x);
	snprintf(text, sizeof(text), "%s%s", head,
	         "     0   2.07 49230.12\n"
	         "     1 49188.55   2.07\n");
	p2ps_paste_run_text(&x, text);
	assert_true(has_finding(&x, "p2p_latency"));
	assert_true(p2ps_paste_run_has_cause(&x, "p2p_latency"));
	assert_int_not_equal(x.r.verdict, P2PS_VERDICT_READY);
	assert_int_equal(x.r.pairs[0].works, 0);
	p2ps_paste_run_free(&x);
}

/* ---- 4. one GPU identity from every source -------------------------------------------- */

static void test_identity(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	/* ggml-org/llama.cpp#10152 (dev case 88): llama.cpp's device lines. */
	p2ps_paste_run_text(&x, "CUDA error: peer access has not been enabled\n"
	                        "\n"
	                        "ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no\n"
	                        "ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no\n"
	                        "ggml_cuda_init: found 3 CUDA devices:\n"
	                        "  Device 0: Tesla P40, compute capability 6.1, VMM: yes\n"
	                        "  Device 1: Tesla P40, compute capability 6.1, VMM: yes\n"
	                        "  Device 2: Tesla P40, compute capability 6.1, VMM: yes\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_int_equal(ev->n_gpus, 3);
	assert_int_equal(ev->gpus[2].cuda, 2);
	assert_string_equal(ev->gpus[2].name, "Tesla P40");
	assert_false(has_finding(&x, "no_gpu"));
	p2ps_paste_run_free(&x);
	/* pytorch/pytorch#87363 (dev case 65): an environment list. */
	p2ps_paste_run_text(&x, "- GPU: A100-PCIE-40GB X 4\n"
	                        "- CUDA: 11.0\n"
	                        "- GPU Driver version: 450.142.00\n"
	                        "- PyTorch: 1.8 ~ 1.13\n"
	                        "\n"
	                        ">>> a.to('cuda:1')\n"
	                        "tensor([0., 0.], device='cuda:1')\n");
	ev = x.h.evidence;
	assert_int_equal(ev->n_gpus, 4);
	assert_int_equal(ev->gpus[3].listed, 3);
	assert_non_null(strstr(ev->gpus[0].name, "A100-PCIE-40GB"));
	assert_string_equal(ev->host.driver_version, "450.142.00");
	assert_false(has_finding(&x, "no_gpu"));
	p2ps_paste_run_free(&x);
	/* aikitoria/open-gpu-kernel-modules#18 (dev case 40): nvidia-smi --version. */
	p2ps_paste_run_text(&x, "$ nvidia-smi --version\n"
	                        "NVIDIA-SMI version  : 595.58.03\n"
	                        "NVML version        : 595.58\n"
	                        "DRIVER version      : 595.58.03\n"
	                        "CUDA Version        : 13.2\n");
	assert_string_equal(x.h.evidence->host.driver_version, "595.58.03");
	p2ps_paste_run_free(&x);
	/* vllm-project/vllm#4411 (dev case 83): collect_env's GPU list and lscpu's model. */
	p2ps_paste_run_text(
	        &x, "GPU models and configuration:\n"
	            "GPU 0: NVIDIA GeForce RTX 3090\n"
	            "GPU 1: NVIDIA GeForce RTX 3090\n"
	            "\n"
	            "Nvidia driver version: 551.76\n"
	            "\n"
	            "CPU:\n"
	            "Architecture:                       x86_64\n"
	            "Vendor ID:                          GenuineIntel\n"
	            "Model name:                         12th Gen Intel(R) Core(TM) i7-12700KF\n"
	            "CPU family:                         6\n"
	            "Model:                              151\n");
	ev = x.h.evidence;
	assert_int_equal(ev->n_gpus, 2);
	assert_string_equal(ev->gpus[1].name, "NVIDIA GeForce RTX 3090");
	assert_string_equal(ev->host.driver_version, "551.76");
	assert_true(ev->host.cpu.known);
	assert_string_equal(ev->host.cpu.vendor, "GenuineIntel");
	assert_int_equal(ev->host.cpu.family, 6);
	assert_int_equal(ev->host.cpu.model, 151);
	p2ps_paste_run_free(&x);
}

/* ---- 5. blocks that cannot erase each other ------------------------------------------- */

/* aikitoria/open-gpu-kernel-modules#18 (dev case 40): nvidia-smi topo -m of four RTX 3090
 * in two NVLinked pairs; before it, a stray "key : value" line, after it a command whose
 * output the excerpt cut. The topology's pairs stay. */
static void test_blocks_isolated(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x,
	        "CUDA Version        : 13.2\n"
	        "$ nvidia-smi topo -m\n"
	        "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA "
	        "ID\n"
	        "GPU0     X      PHB     NV4     NODE    0-23    0               N/A\n"
	        "GPU1    PHB      X      NODE    NV4     0-23    0               N/A\n"
	        "GPU2    NV4     NODE     X      PHB     0-23    0               N/A\n"
	        "GPU3    NODE    NV4     PHB      X      0-23    0               N/A\n"
	        "\n"
	        "$ nvidia-smi -q\n");
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_true(ev->matrix[P2PS_PM_TOPO].present);
	assert_int_equal(ev->n_gpus, 4);
	const struct p2ps_paste_pair *p = pair(&x, "GPU0", "GPU2");
	assert_non_null(p);
	assert_string_equal(p->topo, "NV4");
	assert_int_equal(p->nvlinks, 4);
	assert_int_equal(p->works, 1);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_READY);
	p2ps_paste_run_free(&x);
}

/* ---- 6. rules on facts the reader has ------------------------------------------------- */

/* tinygrad/open-gpu-kernel-modules#45 (dev case 35): GeForce cards named only by the
 * nccl-tests header; which driver runs decides whether they may peer at all. */
static void test_geforce_in_test_header(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "# nThread 1 nGpus 2 minBytes 8 maxBytes 2147483648 step: 2(factor) warmup "
	            "iters: 2 iters: 10 agg iters: 1 validation: 1 graph: 0\n"
	            "#\n"
	            "# Using devices\n"
	            "#  Rank  0 Group  0 Pid   9822 on i-56butc28zq2jtjaluzq7va7p6 device  0 "
	            "[0000:2c:00] NVIDIA GeForce RTX 4090\n"
	            "#  Rank  1 Group  0 Pid   9822 on i-56butc28zq2jtjaluzq7va7p6 device  1 "
	            "[0000:2d:00] NVIDIA GeForce RTX 4090\n");
	assert_int_equal(x.h.evidence->n_gpus, 2);
	assert_int_equal(ask_at(&x, "cat /proc/driver/nvidia/version"), 0);
	p2ps_paste_run_free(&x);
}

/* NVIDIA/nccl#1637 (dev case 19): NCCL 2.25.1 on an RTX 5090 asks more shared memory than
 * the GPU has; the release and its sign together are the finding. */
static void test_release_defect(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "localhost:11326:11326 [0] NCCL INFO NCCL version 2.25.1+cuda12.2\n"
	            "localhost:11344:11344 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn "
	            "maxSharedMem 79856\n");
	assert_int_equal(x.h.evidence->n_releases, 1);
	assert_string_equal(x.h.evidence->releases[0].version, "2.25.1+cuda12.2");
	assert_true(p2ps_paste_run_has_cause(&x, "release_defect"));
	p2ps_paste_run_free(&x);
	/* The sign without the release: no accusation. */
	p2ps_paste_run_text(
	        &x, "localhost:11344:11344 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn "
	            "maxSharedMem 79856\n");
	assert_false(has_finding(&x, "release_defect"));
	p2ps_paste_run_free(&x);
}

/* An A/B of NCCL releases on one host, in the form the threads post them: the failing run
 * of NVIDIA/nccl#1637 (2.25.1) and after it a run with another release whose nccl-tests
 * rows come back with no wrong value (the rows' form is nccl-tests'; the pairing of the
 * two runs in one paste is ours). The release is the variable. */
static void test_release_ab(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "localhost:11326:11326 [0] NCCL INFO NCCL version 2.25.1+cuda12.2\n"
	            "localhost:11344:11344 [1] misc/shmutils.cc:71 NCCL WARN Cuda failure 'invalid "
	            "argument'\n"
	            "\n"
	            "localhost:11400:11400 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n"
	            "#       size         count      type   redop    root     time   algbw   busbw "
	            "#wrong     time   algbw   busbw #wrong\n"
	            "     1048576        262144     float     sum      -1    71.89   14.59   14.59"
	            "      0    71.21   14.72   14.72      0\n");
	assert_int_equal(x.h.evidence->n_releases, 2);
	assert_true(p2ps_paste_run_has_cause(&x, "release_ab"));
	p2ps_paste_run_free(&x);
}

/* ---- 7. no GPU in the paste: asks by the symptom --------------------------------------- */

static void test_no_gpu_asks(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	/* NVIDIA/TensorRT-LLM#1498 (dev case 21): NCCL ran, no GPU named. */
	p2ps_paste_run_text(
	        &x, "> 9d31476b19d7:840:858 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.4<0>\n"
	            "> 9d31476b19d7:840:858 [0] NCCL INFO cudaDriverVersion 12000\n"
	            "> NCCL version 2.19.3+cuda12.3\n"
	            "> 9d31476b19d7:840:858 [0] NCCL INFO NET/IB : No device found.\n");
	assert_int_equal(x.h.evidence->n_gpus, 0);
	assert_int_equal(x.r.verdict, P2PS_VERDICT_UNKNOWN);
	assert_int_equal(
	        ask_at(&x,
	               "nvidia-smi --query-gpu=index,pci.bus_id,name,memory.total --format=csv"),
	        0);
	p2ps_paste_run_free(&x);
	/* Nothing ran: the GPUs on the bus first. */
	p2ps_paste_run_text(&x, "It hangs when I start training on two GPUs.\n");
	assert_int_equal(x.r.verdict, P2PS_VERDICT_UNKNOWN);
	assert_true(x.r.n_asks > 0);
	assert_non_null(strstr(x.r.asks[0].command, "lspci"));
	p2ps_paste_run_free(&x);
}

/* ---- the model's doubt against the paste's evidence: a note ---------------------------- */

/* ginkgo-project/ginkgo#164 (dev case 43): V100-SXM2 boards the driver model doubts (the
 * open modules do not support Volta) that CUDA peers over NVLink: notes, not causes. */
static void test_doubt_is_a_note(void **state)
{
	(void)state;
	struct p2ps_paste_run x;
	p2ps_paste_run_text(
	        &x, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
	            "Device: 0, Tesla V100-SXM2-16GB, pciBusID: 5d, pciDeviceID: 0, pciDomainID:0\n"
	            "Device: 1, Tesla V100-SXM2-16GB, pciBusID: 5e, pciDeviceID: 0, pciDomainID:0\n"
	            "Device=0 CAN Access Peer Device=1\n"
	            "Device=1 CAN Access Peer Device=0\n");
	assert_int_equal(x.r.verdict, P2PS_VERDICT_READY);
	assert_int_equal(x.r.n_causes, 0);
	assert_true(x.r.n_notes >= 1);
	assert_string_equal(x.r.notes[0].code, "generation_unsupported");
	assert_true(x.r.notes[0].gpu >= 0);
	p2ps_paste_run_free(&x);
}

/* ---- the driver's printed codes per pair and path -------------------------------------- */

/* triton-lang/triton#209 (dev case 26): nvidia-smi topo -p2p of eight GPUs, OK within each
 * group of four and NS across. The thread does not show which mode ran; the command line
 * before it here is ours, so that the codes are kept per path letter ('r' and 'w' for rw). */
static void test_p2p_codes_per_path(void **state)
{
	(void)state;
	static const char rows[] =
	        "       GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7\n"
	        "GPU0   X       OK      OK      OK      OK      NS      NS      NS\n"
	        "GPU1   OK      X       OK      OK      NS      OK      NS      NS\n"
	        "GPU2   OK      OK      X       OK      NS      NS      OK      NS\n"
	        "GPU3   OK      OK      OK      X       NS      NS      NS      OK\n"
	        "GPU4   OK      NS      NS      NS      X       OK      OK      OK\n"
	        "GPU5   NS      OK      NS      NS      OK      X       OK      OK\n"
	        "GPU6   NS      NS      OK      NS      OK      OK      X       OK\n"
	        "GPU7   NS      NS      NS      OK      OK      OK      OK      X\n";
	char text[2048];
	struct p2ps_paste_run x;
	snprintf(text, sizeof(text), "$ nvidia-smi topo -p2p rw\n%s", rows);
	p2ps_paste_run_text(&x, text);
	const struct p2ps_evidence *ev = x.h.evidence;
	assert_true(ev->matrix[P2PS_PM_P2P].present);
	assert_string_equal(ev->matrix[P2PS_PM_P2P].mode, "rw");
	const struct p2ps_pair_obs *r = p2ps_evidence_obs_path(ev, 0, 5, 'r');
	const struct p2ps_pair_obs *w = p2ps_evidence_obs_path(ev, 0, 5, 'w');
	assert_non_null(r);
	assert_non_null(w);
	assert_string_equal(r->text, "NS");
	assert_string_equal(w->text, "NS");
	assert_int_equal(r->from.line, 2);
	assert_string_equal(p2ps_evidence_obs_path(ev, 0, 1, 'r')->text, "OK");
	assert_null(p2ps_evidence_obs_path(ev, 0, 1, 'n'));
	p2ps_paste_run_free(&x);
	/* Without the command the mode is unknown: one code per pair, path 0. */
	p2ps_paste_run_text(&x, rows);
	ev = x.h.evidence;
	const struct p2ps_pair_obs *o = p2ps_evidence_obs(ev, P2PS_PM_P2P, 4, 1);
	assert_non_null(o);
	assert_int_equal(o->path, 0);
	assert_string_equal(o->text, "NS");
	p2ps_paste_run_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_nccl_bare),
	        cmocka_unit_test(test_gdr_off_peermem),
	        cmocka_unit_test(test_gdr_on),
	        cmocka_unit_test(test_simplep2p_bare),
	        cmocka_unit_test(test_bidirectional_only),
	        cmocka_unit_test(test_untitled_rows),
	        cmocka_unit_test(test_latency),
	        cmocka_unit_test(test_identity),
	        cmocka_unit_test(test_blocks_isolated),
	        cmocka_unit_test(test_geforce_in_test_header),
	        cmocka_unit_test(test_release_defect),
	        cmocka_unit_test(test_release_ab),
	        cmocka_unit_test(test_no_gpu_asks),
	        cmocka_unit_test(test_doubt_is_a_note),
	        cmocka_unit_test(test_p2p_codes_per_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
