/* SPDX-License-Identifier: MIT */
/* The paste forms users paste beyond lspci and nvidia-smi -q: simpleP2P with and without
 * its quote marks, older and '#'-less nccl-tests, the plain nvidia-smi table, NCCL logs,
 * CUDA / PyTorch error lines, setpci reads of ACS control, grep'd ACSCtl lines,
 * collect_env, p2pBandwidthLatencyTest titles run into text; the command line's IOMMU
 * state per driver (shared with the live path); and what the findings make of them:
 * symptom-ordered asks, "P2P works" from positive evidence, GeForce without the patched
 * driver. The lines are written the way the tools print them (the formats of
 * cuda-samples simpleP2P/p2pBandwidthLatencyTest, nccl-tests, NCCL's INFO/WARN logger,
 * nvidia-smi, pciutils' setpci and lspci, torch.utils.collect_env). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/paste.h"
#include "p2pscope/paste_report.h"

static struct p2ps_paste P;

static void parse(const char *text)
{
	struct p2ps_error err = {0};
	p2ps_paste_free(&P);
	assert_int_equal(p2ps_paste_parse(text, strlen(text), "test", &P, &err), 0);
}

static int teardown(void **state)
{
	(void)state;
	p2ps_paste_free(&P);
	return 0;
}

static const char *cell(enum p2ps_paste_matrix_kind k, int i, int j)
{
	const char *s = p2ps_paste_cell(&P, k, i, j);
	return s ? s : "(none)";
}

/* simpleP2P's "> Peer access" lines survive one, two or no quote levels. */
static void test_simplep2p_quotes(void **state)
{
	(void)state;
	static const char *const forms[] = {
	        "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 "
	        "(GPU1) : Yes\n> Peer access from NVIDIA GeForce RTX 4090 (GPU1) -> NVIDIA "
	        "GeForce RTX 4090 (GPU0) : No\n",
	        "> > Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 "
	        "(GPU1) : Yes\n> > Peer access from NVIDIA GeForce RTX 4090 (GPU1) -> NVIDIA "
	        "GeForce RTX 4090 (GPU0) : No\n",
	        "Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 "
	        "(GPU1) : Yes\nPeer access from NVIDIA GeForce RTX 4090 (GPU1) -> NVIDIA "
	        "GeForce RTX 4090 (GPU0) : No\n",
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		parse(forms[i]);
		assert_int_equal(P.blocks[0].kind, P2PS_PASTE_CUDA);
		assert_string_equal(cell(P2PS_PM_CUDA_ACCESS, 0, 1), "1");
		assert_string_equal(cell(P2PS_PM_CUDA_ACCESS, 1, 0), "0");
		const struct p2ps_paste_gpu *g = p2ps_paste_gpu_cuda(&P, 1);
		assert_non_null(g);
		assert_string_equal(g->name, "NVIDIA GeForce RTX 4090");
	}
	/* "GPU0 = ... IS capable" lines stay in the CUDA block (not a topo -m row). */
	parse("> GPU0 = \"     Tesla K40m\" IS  capable of Peer-to-Peer (P2P)\n"
	      "> GPU1 = \"     Tesla K40m\" IS  capable of Peer-to-Peer (P2P)\n"
	      "> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU1) : Yes\n");
	assert_int_equal(P.n_blocks, 1);
	assert_false(P.m[P2PS_PM_TOPO].present);
}

/* nccl-tests: "#   Rank  0 uses device", the '#' gone, "[0000:01:00]". */
static void test_nccl_tests_forms(void **state)
{
	(void)state;
	parse("# Using devices\n"
	      "#   Rank  0 uses device  0 [0x02] Tesla P100-PCIE-16GB\n"
	      "#   Rank  1 uses device  1 [0x03] Tesla P100-PCIE-16GB\n");
	assert_int_equal(P.n_gpus, 2);
	assert_int_equal(p2ps_paste_gpu_cuda(&P, 1)->bdf.bus, 0x03);
	parse(" nThread 1 nGpus 1 minBytes 8 maxBytes 16777216 step: 2(factor)\n"
	      "\n"
	      " Using devices\n"
	      "  Rank  0 Group  0 Pid    127 on worker-0 device  0 [0x00] NVIDIA A10G\n");
	assert_int_equal(P.n_gpus, 1);
	assert_string_equal(p2ps_paste_gpu_cuda(&P, 0)->name, "NVIDIA A10G");
	/* A command after variable assignments (bold in markdown), the bare '#' between. */
	parse("**NCCL_P2P_DISABLE=1** NCCL_DEBUG=TRACE  ./all_reduce_perf -g 2\n"
	      "# nThread 1 nGpus 2 minBytes 8 maxBytes 2147483648 step: 2(factor)\n"
	      "#\n"
	      "# Using devices\n"
	      "#  Rank  0 Group  0 Pid   9822 on h device  0 [0000:2c:00] NVIDIA GeForce RTX "
	      "4090\n");
	assert_int_equal(P.n_blocks, 1);
	assert_non_null(strstr(P.blocks[0].command, "all_reduce_perf"));
	assert_int_equal(P.nccl.n_env, 2);
	assert_string_equal(P.nccl.env[0], "NCCL_P2P_DISABLE=1");
	parse("#  Rank  1 Group  0 Pid 895545 on     h100-2 device  1 [0002:00:02] NVIDIA H100\n");
	const struct p2ps_paste_gpu *g = p2ps_paste_gpu_cuda(&P, 1);
	assert_non_null(g);
	assert_int_equal(g->bdf.domain, 2);
	assert_int_equal(g->bdf.dev, 2);
}

/* The plain nvidia-smi table: header, GPU rows, memory rows, processes ignored. */
static void test_smi_table(void **state)
{
	(void)state;
	parse("+-----------------------------------------------------------------------------+\n"
	      "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
	      "|-------------------------------+----------------------+----------------------+\n"
	      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
	      "|===============================+======================+======================|\n"
	      "|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0  On |                  N/A |\n"
	      "| 30%   35C    P8    20W / 450W |    300MiB / 24564MiB |      0%      Default |\n"
	      "+-------------------------------+----------------------+----------------------+\n"
	      "|   1  NVIDIA GeForce ...  Off  | 00000000:02:00.0 Off |                  N/A |\n"
	      "| 30%   35C    P8    20W / 450W |      1MiB / 24564MiB |      0%      Default |\n"
	      "+-----------------------------------------------------------------------------+\n"
	      "| Processes:                                                                  |\n"
	      "|    0   N/A  N/A      1234      G   /usr/lib/xorg/Xorg              300MiB |\n"
	      "+-----------------------------------------------------------------------------+\n");
	assert_int_equal(P.n_blocks, 1);
	assert_int_equal(P.blocks[0].kind, P2PS_PASTE_NVSMI_TABLE);
	assert_string_equal(P.host.driver_version, "535.104.05");
	assert_int_equal(P.n_gpus, 2);
	const struct p2ps_paste_gpu *g = p2ps_paste_gpu_smi(&P, 1);
	assert_non_null(g);
	assert_int_equal(g->bdf.bus, 2);
	assert_int_equal(g->display, 0);
	assert_true(g->vram_known);
	assert_int_equal(g->vram, 24564ull << 20);
	assert_string_equal(g->name, "NVIDIA GeForce ...");
	assert_int_equal(p2ps_paste_gpu_smi(&P, 0)->display, 1);
}

/* NCCL's log: version, transports per channel (device numbers and busIds), busId of each
 * device, the variables set, intra-node P2P. */
static void test_nccl_log(void **state)
{
	(void)state;
	parse("h:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.1\n"
	      "h:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
	      "h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 "
	      "busId 1b000 commId 0x2 - Init START\n"
	      "h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 1 nranks 2 cudaDev 1 nvmlDev 1 "
	      "busId 1901000 commId 0x2 - Init START\n"
	      "h:1:1 [0] NCCL INFO Check P2P Type intraNodeP2pSupport 0 directMode 1\n"
	      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[1b000] -> 1[1901000] via SHM/direct/direct\n"
	      "h:1:1 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC\n"
	      "h:1:1 [1] NCCL INFO Channel 01/0 : 1[1] -> 2[2] via NET/Socket/0\n");
	assert_int_equal(P.blocks[0].kind, P2PS_PASTE_NCCL);
	assert_string_equal(P.nccl.version, "2.18.3+cuda12.1");
	assert_int_equal(P.nccl.via[P2PS_NV_P2P], 1);
	assert_int_equal(P.nccl.via[P2PS_NV_SHM], 1);
	assert_int_equal(P.nccl.via[P2PS_NV_NET], 1);
	assert_string_equal(P.nccl.p2p_how, "P2P/IPC");
	assert_int_equal(P.nccl.intra_p2p, 0);
	assert_int_equal(P.nccl.n_env, 1);
	assert_string_equal(P.nccl.env[0], "NCCL_P2P_DISABLE=1");
	assert_string_equal(cell(P2PS_PM_NCCL, 0, 1), "SHM");
	assert_string_equal(cell(P2PS_PM_NCCL, 1, 0), "P2P");
	/* busId 1901000: domain 0x19, bus 0x01 (NCCL runs the address's hex digits
	 * together). */
	const struct p2ps_paste_gpu *g = p2ps_paste_gpu_cuda(&P, 1);
	assert_non_null(g);
	assert_int_equal(g->bdf.domain, 0x19);
	assert_int_equal(g->bdf.bus, 0x01);
	assert_int_equal(p2ps_paste_gpu_cuda(&P, 0)->bdf.bus, 0x1b);
	/* Only bootstrap chatter: recognised, not understood, and said so. */
	parse("h:1:1 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.4<0>\n"
	      "h:1:1 [0] NCCL INFO NET/IB : No device found.\n");
	assert_int_equal(P.unread_blocks, 1);
	assert_non_null(strstr(P.blocks[0].summary, "not understood"));
}

/* Error lines of CUDA, NCCL and PyTorch, each its symptom. */
static void test_error_lines(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		enum p2ps_paste_symptom sym;
	} rows[] = {
	        {"h:1:1 [0] allocator.cc:89 (ncclMemAlloc) NCCL WARN Cuda failure 205 'mapping of "
	         "buffer object failed'",
	         P2PS_PS_MAP_FAILED},
	        {"Cuda failure p2pBandwidthLatencyTest.cu:189: 'mapping of buffer object failed'",
	         P2PS_PS_MAP_FAILED},
	        {"RuntimeError: CUDA error: peer access is not supported between these two devices",
	         P2PS_PS_PEER_UNSUPPORTED},
	        {"RuntimeError: CUDA error: an illegal memory access was encountered",
	         P2PS_PS_ILLEGAL_ACCESS},
	        {"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
	         "OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.",
	         P2PS_PS_HANG},
	        {"h:1:1 [0] NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can "
	         "repress this message with NCCL_IGNORE_DISABLED_P2P=1.",
	         P2PS_PS_P2P_DISABLED},
	        {"h:1:1 [3] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-x "
	         "to 5967876 bytes",
	         P2PS_PS_SHM},
	        {"tensor([0., 0., 0., 0., 0.], device='cuda:0')", P2PS_PS_WRONG_DATA},
	        {"torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
	         "unhandled cuda error",
	         P2PS_PS_CUDA_ERROR},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		parse(rows[i].line);
		assert_int_equal(P.sym.count[rows[i].sym], 1);
		assert_int_equal(P.sym.first[rows[i].sym].line, 1);
	}
	parse("tensor([1., 1., 1.], device='cuda:0')\n");
	assert_int_equal(P.sym.count[P2PS_PS_WRONG_DATA], 0);
	/* nccl-tests that stops after its result header: a hang; with rows it is not. */
	static const char header[] =
	        "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor)\n"
	        "#       size         count      type   redop    root     time   algbw   busbw "
	        "#wrong\n"
	        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n";
	parse(header);
	assert_int_equal(P.sym.count[P2PS_PS_HANG], 1);
	assert_int_equal(P.sym.first[P2PS_PS_HANG].line, 2);
	char full[1024];
	snprintf(full, sizeof(full), "%s%s", header,
	         "           8             2     float     sum      -1    8.49    0.00    0.00"
	         "      0\n");
	parse(full);
	assert_int_equal(P.sym.count[P2PS_PS_HANG], 0);
	assert_int_equal(P.cuda.nccl_rows, 1);
}

/* setpci reads of ACS control: with -s, from a loop, unnamed, and a raw offset. */
static void test_setpci(void **state)
{
	(void)state;
	parse("$ sudo setpci -s 00:01.1 ECAP_ACS+6.w\n001d\n");
	struct p2ps_bdf b = {0, 0, 1, 1};
	const struct p2ps_paste_dev *pd = p2ps_paste_find_dev(&P, &b);
	assert_non_null(pd);
	assert_true(pd->d.acs.present);
	assert_int_equal(pd->d.acs.ctl, 0x001d);
	parse("# setpci ECAP_ACS+6.w\n005d\n0000\n");
	assert_int_equal(P.acs_loose.lines, 2);
	assert_int_equal(P.acs_loose.redirect, 1);
	parse("$ setpci -s 02:00.0 f2a.w\n001d\n");
	assert_int_equal(P.unread_blocks, 1);
	assert_int_equal(P.blocks[0].kind, P2PS_PASTE_SETPCI);
	/* The raw offset is ACS control where lspci shows the capability at f24 (PEX 8747). */
	parse("$ sudo lspci -vvv -s 02:08.0\n"
	      "02:08.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 "
	      "(8.0 GT/s) Switch (rev ca)\n"
	      "\tCapabilities: [f24 v1] Access Control Services\n"
	      "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- "
	      "DirectTrans-\n"
	      "$ sudo setpci -s 02:08.0 f2a.w\n001d\n");
	assert_int_equal(P.unread_blocks, 0);
	struct p2ps_bdf sw = {0, 2, 8, 0};
	assert_int_equal(p2ps_paste_find_dev(&P, &sw)->d.acs.ctl, 0x001d);
}

/* `lspci -vvv | grep ACSCtl`: no device line, the values kept. */
static void test_acsctl_grep(void **state)
{
	(void)state;
	parse("$ sudo lspci -vvv | grep ACSCtl\n"
	      "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- "
	      "DirectTrans-\n"
	      "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
	      "DirectTrans-\n");
	assert_int_equal(P.acs_loose.lines, 2);
	assert_int_equal(P.acs_loose.redirect, 1);
	assert_int_equal(P.acs_loose.first.line, 3); /* the redirecting one */
}

/* collect_env and nvidia-smi -L. */
static void test_gpu_list(void **state)
{
	(void)state;
	parse("PyTorch version: 2.1.0+cu121\n"
	      "Is debug build: False\n"
	      "CUDA used to build PyTorch: 12.1\n"
	      "Is CUDA available: True\n"
	      "GPU models and configuration:\n"
	      "GPU 0: NVIDIA GeForce RTX 4090\n"
	      "GPU 1: NVIDIA GeForce RTX 4090\n"
	      "\n"
	      "Nvidia driver version: 535.104.05\n");
	assert_string_equal(P.host.driver_version, "535.104.05");
	assert_string_equal(p2ps_paste_gpu_smi(&P, 1)->name, "NVIDIA GeForce RTX 4090");
	parse("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-d38e6300-de5a-ae7b-585f-d6f65b3d442a)\n");
	assert_string_equal(p2ps_paste_gpu_smi(&P, 0)->name, "NVIDIA GeForce RTX 3090");
}

/* p2pBandwidthLatencyTest titles that lost their start or run into text. */
static void test_merged_titles(void **state)
{
	(void)state;
	parse("directional P2P=Disabled Bandwidth Matrix (GB/s)\n"
	      "D\\D     0      1\n"
	      "0 723.04  19.25\n"
	      "1  18.39 922.88\n"
	      "my results: Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s) "
	      "D\\D 0 1\n"
	      "0 723.04  25.10\n"
	      "1  25.39 922.88\n");
	assert_string_equal(cell(P2PS_PM_BW_UNI_OFF, 0, 1), "19.25");
	assert_string_equal(cell(P2PS_PM_BW_UNI_ON, 1, 0), "25.39");
}

/* The command line's IOMMU state, per driver (the values p2ps_cmdline_parse takes from
 * intel_iommu=, amd_iommu=, iommu=, iommu.passthrough=; their meaning from the kernel's
 * Documentation/admin-guide/kernel-parameters.txt). */
static void test_cmdline_iommu(void **state)
{
	(void)state;
	static const struct {
		const char *intel, *amd, *iommu, *pass;
		enum p2ps_cmdline_iommu_state want;
		const char *kind;
	} rows[] = {
	        {"on", "", "", "", P2PS_CMDLINE_IOMMU_TRANSLATING, "intel"},
	        {"on", "", "pt", "", P2PS_CMDLINE_IOMMU_PASSTHROUGH, "intel"},
	        {"on,sm_on", "", "", "", P2PS_CMDLINE_IOMMU_TRANSLATING, "intel"},
	        {"off", "", "pt", "", P2PS_CMDLINE_IOMMU_OFF, "intel"},
	        {"", "off", "", "", P2PS_CMDLINE_IOMMU_OFF, "amd"},
	        {"", "on", "", "", P2PS_CMDLINE_IOMMU_DEFAULT, "amd"},
	        {"", "force_enable", "", "", P2PS_CMDLINE_IOMMU_TRANSLATING, "amd"},
	        {"", "", "off", "", P2PS_CMDLINE_IOMMU_OFF, ""},
	        {"", "", "soft", "", P2PS_CMDLINE_IOMMU_SOFT, ""},
	        {"", "", "pt", "", P2PS_CMDLINE_IOMMU_PASSTHROUGH, ""},
	        {"", "", "", "1", P2PS_CMDLINE_IOMMU_PASSTHROUGH, ""},
	        {"", "", "", "0", P2PS_CMDLINE_IOMMU_TRANSLATING, ""},
	        {"", "", "nopt", "", P2PS_CMDLINE_IOMMU_TRANSLATING, ""},
	        {"", "", "", "", P2PS_CMDLINE_IOMMU_DEFAULT, ""},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char raw[] = "ro";
		struct p2ps_host_cmdline c = {.known = true, .raw = raw};
		snprintf(c.intel_iommu, sizeof(c.intel_iommu), "%s", rows[i].intel);
		snprintf(c.amd_iommu, sizeof(c.amd_iommu), "%s", rows[i].amd);
		snprintf(c.iommu, sizeof(c.iommu), "%s", rows[i].iommu);
		snprintf(c.iommu_passthrough, sizeof(c.iommu_passthrough), "%s", rows[i].pass);
		struct p2ps_cmdline_iommu ci;
		p2ps_cmdline_iommu(&c, &ci);
		if (ci.state != rows[i].want || strcmp(ci.kind, rows[i].kind))
			fail_msg("row %zu: %s/%s, want %s/%s", i,
			         p2ps_cmdline_iommu_state_name(ci.state), ci.kind,
			         p2ps_cmdline_iommu_state_name(rows[i].want), rows[i].kind);
	}
	struct p2ps_host_cmdline unknown = {0};
	struct p2ps_cmdline_iommu ci;
	p2ps_cmdline_iommu(&unknown, &ci);
	assert_int_equal(ci.state, P2PS_CMDLINE_IOMMU_DEFAULT);
}

/* The whole pipeline on a paste: verdict, causes and asks. */
static void report(const char *text, struct p2ps_host *h, struct p2ps_analysis *a,
                   struct p2ps_paste_report *r)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_PASTE, .path = "test", .text = text, .text_len = strlen(text)};
	assert_int_equal(p2ps_host_load(h, &src, &err), 0);
	assert_int_equal(p2ps_analysis_run(h, a, &err), 0);
	assert_int_equal(p2ps_paste_observe(a, r, &err), 0);
}

static void done(struct p2ps_host *h, struct p2ps_analysis *a, struct p2ps_paste_report *r)
{
	p2ps_paste_report_free(r);
	p2ps_analysis_free(a);
	p2ps_host_free(h);
}

static bool has_cause(const struct p2ps_paste_report *r, const char *code)
{
	for (size_t i = 0; i < r->n_causes; i++)
		if (!strcmp(r->causes[i].code, code))
			return true;
	return false;
}

static int ask_at(const struct p2ps_paste_report *r, const char *command)
{
	for (size_t i = 0; i < r->n_asks; i++)
		if (!strcmp(r->asks[i].command, command))
			return (int)i;
	return -1;
}

/* Error 205: BAR1 first, then the driver's log of the mapping it refused, then the command
 * line; a fact the paste holds is not asked. */
static void test_symptom_asks(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_analysis a;
	struct p2ps_paste_report r;
	report("h:1:1 [0] NCCL WARN Cuda failure 205 'mapping of buffer object failed'\n", &h, &a,
	       &r);
	assert_int_equal(ask_at(&r, "nvidia-smi -q -d MEMORY"), 0);
	assert_int_equal(ask_at(&r, "sudo dmesg | grep -E 'NVRM|Xid'"), 1);
	assert_int_equal(ask_at(&r, "cat /proc/cmdline"), 2);
	done(&h, &a, &r);
	report("h:1:1 [0] NCCL WARN Cuda failure 205 'mapping of buffer object failed'\n"
	       "$ cat /proc/cmdline\n"
	       "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet intel_iommu=on iommu=pt\n",
	       &h, &a, &r);
	assert_int_equal(ask_at(&r, "nvidia-smi -q -d MEMORY"), 0);
	assert_int_equal(ask_at(&r, "cat /proc/cmdline"), -1);
	done(&h, &a, &r);
	/* A command line that decides nothing is still not asked for again. */
	report("$ cat /proc/cmdline\nBOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet splash\n"
	       "01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090]\n"
	       "02:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090]\n",
	       &h, &a, &r);
	assert_int_equal(ask_at(&r, "cat /proc/cmdline"), -1);
	assert_true(ask_at(&r, "sudo dmesg | grep -iE 'iommu|dmar|amd-vi'") >= 0);
	done(&h, &a, &r);
	/* Zeros after a copy: the IOMMU first. */
	report("tensor([0., 0., 0., 0., 0.], device='cuda:0')\n", &h, &a, &r);
	assert_int_equal(ask_at(&r, "cat /proc/cmdline"), 0);
	assert_true(ask_at(&r, "sudo lspci -vvv") > 0);
	done(&h, &a, &r);
	/* Shared memory: a cause, and /dev/shm asked. */
	report("h:1:1 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend "
	       "/dev/shm/nccl-x to 5967876 bytes\n",
	       &h, &a, &r);
	assert_true(has_cause(&r, "nccl_shm"));
	assert_int_equal(ask_at(&r, "df -h /dev/shm"), 0);
	done(&h, &a, &r);
}

/* simpleP2P that passed, joined with nvidia-smi's table: P2P works on the pair. */
static void test_p2p_works(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_analysis a;
	struct p2ps_paste_report r;
	report("|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0 Off |                  N/A |\n"
	       "|   1  NVIDIA GeForce ...  Off  | 00000000:02:00.0 Off |                  N/A |\n"
	       "[./simpleP2P] - Starting...\n"
	       "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 "
	       "(GPU1) : Yes\n"
	       "> Peer access from NVIDIA GeForce RTX 4090 (GPU1) -> NVIDIA GeForce RTX 4090 "
	       "(GPU0) : Yes\n"
	       "Test passed\n",
	       &h, &a, &r);
	assert_int_equal(r.verdict, P2PS_VERDICT_READY);
	assert_int_equal(r.n_pairs, 1);
	assert_int_equal(r.pairs[0].works, 1);
	assert_non_null(strstr(r.pairs[0].a, "0000:01:00.0"));
	done(&h, &a, &r);
	/* The same with a wrong-data line: no. */
	report("> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 "
	       "(GPU1) : Yes\n"
	       "> Peer access from NVIDIA GeForce RTX 4090 (GPU1) -> NVIDIA GeForce RTX 4090 "
	       "(GPU0) : Yes\n"
	       "Verification error @ element 0: val = 0.000000, ref = 0.000000\n"
	       "Test failed!\n",
	       &h, &a, &r);
	assert_int_not_equal(r.verdict, P2PS_VERDICT_READY);
	done(&h, &a, &r);
}

/* NCCL connecting a pair via P2P on one host is evidence for the pair; across hosts
 * (device numbers repeat) it names no pair but still shows P2P in use; with NCCL_P2P_LEVEL
 * forcing it, it is not evidence. */
static void test_nccl_works(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_analysis a;
	struct p2ps_paste_report r;
	report("n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
	       "n1:1:3 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC\n",
	       &h, &a, &r);
	assert_int_equal(r.verdict, P2PS_VERDICT_READY);
	assert_string_equal(r.pairs[0].nccl, "P2P");
	done(&h, &a, &r);
	report("n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
	       "n2:1:3 [1] NCCL INFO Channel 00/0 : 3[1] -> 2[0] via P2P/IPC\n",
	       &h, &a, &r);
	assert_false(h.evidence->matrix[P2PS_PM_NCCL].present);
	assert_int_equal(r.n_pairs, 0);
	assert_int_equal(r.verdict, P2PS_VERDICT_READY);
	assert_non_null(strstr(r.verdict_why, "NCCL connects the GPUs of each host"));
	done(&h, &a, &r);
	report("$ NCCL_P2P_LEVEL=SYS NCCL_DEBUG=INFO ./build/all_reduce_perf -g 2\n"
	       "n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
	       &h, &a, &r);
	assert_int_not_equal(r.verdict, P2PS_VERDICT_READY);
	done(&h, &a, &r);
	/* NCCL_P2P_DISABLE logged as set reaches the analysis' NCCL rule. */
	report("n1:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n", &h, &a, &r);
	assert_int_equal(h.n_nccl_env, 1);
	assert_string_equal(h.nccl_env[0], "NCCL_P2P_DISABLE=1");
	done(&h, &a, &r);
}

/* GeForce RTX 40 cards CUDA refuses: the stock driver is the cause. */
static void test_geforce_stock(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_analysis a;
	struct p2ps_paste_report r;
	/* The proprietary module is the stock driver: the cause. */
	report("[    5.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 "
	       "01:44:30 UTC 2024\n"
	       "GPU 0: NVIDIA GeForce RTX 4090\nGPU 1: NVIDIA GeForce RTX 4090\n"
	       "RuntimeError: CUDA error: peer access is not supported between these two devices\n",
	       &h, &a, &r);
	assert_true(has_cause(&r, "geforce_stock_driver"));
	done(&h, &a, &r);
	/* Which driver runs is unknown: likely, and the driver is asked for first. */
	report("GPU 0: NVIDIA GeForce RTX 4090\nGPU 1: NVIDIA GeForce RTX 4090\n"
	       "RuntimeError: CUDA error: peer access is not supported between these two devices\n",
	       &h, &a, &r);
	assert_false(has_cause(&r, "geforce_stock_driver"));
	assert_int_equal(ask_at(&r, "cat /proc/driver/nvidia/version"), 0);
	done(&h, &a, &r);
	/* An H100 pair refused: not this cause. */
	report("GPU 0: NVIDIA H100 80GB HBM3\nGPU 1: NVIDIA H100 80GB HBM3\n"
	       "RuntimeError: CUDA error: peer access is not supported between these two devices\n",
	       &h, &a, &r);
	assert_false(has_cause(&r, "geforce_stock_driver"));
	done(&h, &a, &r);
}

/* The reason with code in list, or NULL. */
static const struct p2ps_reason *find_reason(const struct p2ps_reasons *list,
                                             enum p2ps_reason_code code)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->v[i].code == code)
			return &list->v[i];
	return NULL;
}

/* Two RTX 4090s as `lspci -tv` draws them under two root ports, and each GPU's
 * `sudo lspci -vv` block (pciutils' lspci.c prints "Region N: Memory at ADDR (64-bit,
 * prefetchable) [size=S]"; for a bridge "Memory behind bridge: BASE-LIMIT [size=S]" and
 * "Prefetchable memory behind bridge: BASE-LIMIT [size=S] [32-bit|64-bit]"). */
#define TREE_2X4090                                                                                \
	"$ lspci -tv\n"                                                                            \
	"-[0000:00]-+-00.0  Intel Corporation Device 0d57\n"                                       \
	"           +-01.0-[01]----00.0  NVIDIA Corporation AD102 [GeForce RTX 4090]\n"            \
	"           \\-02.0-[02]----00.0  NVIDIA Corporation AD102 [GeForce RTX 4090]\n"
#define GPU_VV(bdf, mmio, bar1)                                                                    \
	"$ sudo lspci -vv -s " bdf "\n" bdf " VGA compatible controller: NVIDIA Corporation "      \
	"AD102 [GeForce RTX 4090] (rev a1) (prog-if 00 [VGA controller])\n"                        \
	"\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- "   \
	"FastB2B- DisINTx+\n"                                                                      \
	"\tRegion 0: Memory at " mmio " (32-bit, non-prefetchable) [size=16M]\n"                   \
	"\tRegion 1: Memory at " bar1 " (64-bit, prefetchable) [size=32G]\n"                       \
	"\tKernel driver in use: nvidia\n"
#define PORT_VV(bdf, sec, pref)                                                                    \
	"$ sudo lspci -vv -s " bdf "\n" bdf " PCI bridge: Intel Corporation Device a70d (rev 01) " \
	"(prog-if 00 [Normal decode])\n"                                                           \
	"\tBus: primary=00, secondary=" sec ", subordinate=" sec ", sec-latency=0\n"               \
	"\tMemory behind bridge: f0000000-f0ffffff [size=16M] [32-bit]\n"                          \
	"\tPrefetchable memory behind bridge: " pref " [64-bit]\n"                                 \
	"\tKernel driver in use: pcieport\n"

/* A bridge the paste shows only in its tree has unknown windows, not closed ones: no
 * "does not fit the window" blocker; its own lspci block decides, both ways. ACS unknown
 * on a paste asks for the bridge's lspci block, not for root. */
static void test_bridge_windows(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_analysis a;
	struct p2ps_paste_report r;
	report(TREE_2X4090 GPU_VV("01:00.0", "f0000000", "4000000000")
	               GPU_VV("02:00.0", "f2000000", "5000000000"),
	       &h, &a, &r);
	const struct p2ps_bdf port = {0, 0, 1, 0};
	assert_true(p2ps_host_find(&h, &port)->bridge.windows_unknown);
	assert_int_equal(a.n_gpus, 2);
	assert_null(find_reason(&a.gpus[0].reasons, P2PS_R_BAR_EXCEEDS_WINDOW));
	assert_false(has_cause(&r, "bar_exceeds_bridge_window"));
	assert_int_equal(a.n_pairs, 1);
	const struct p2ps_reason *acs = find_reason(&a.pairs[0].reasons, P2PS_R_ACS_UNKNOWN);
	assert_non_null(acs);
	assert_non_null(strstr(acs->fix, "paste the output of sudo lspci -vvv -s 0000:00:0"));
	assert_null(strstr(acs->fix, "run bar-inspect as root"));
	done(&h, &a, &r);

	/* The port's block: its prefetchable window ends below BAR1 (a window of 32 MiB). */
	report(TREE_2X4090 PORT_VV("00:01.0", "01", "4800000000-4801ffffff [size=32M]")
	               GPU_VV("01:00.0", "f0000000", "4000000000")
	                       GPU_VV("02:00.0", "f2000000", "5000000000"),
	       &h, &a, &r);
	assert_false(p2ps_host_find(&h, &port)->bridge.windows_unknown);
	const struct p2ps_reason *x = find_reason(&a.gpus[0].reasons, P2PS_R_BAR_EXCEEDS_WINDOW);
	assert_non_null(x);
	assert_int_equal(x->sev, P2PS_SEV_BLOCKER);
	assert_true(has_cause(&r, "bar_exceeds_bridge_window"));
	done(&h, &a, &r);

	/* A window that holds BAR1 (4000000000-47ffffffff, 32 GiB): nothing to say. */
	report(TREE_2X4090 PORT_VV("00:01.0", "01", "4000000000-47ffffffff [size=32G]")
	               GPU_VV("01:00.0", "f0000000", "4000000000")
	                       GPU_VV("02:00.0", "f2000000", "5000000000"),
	       &h, &a, &r);
	assert_null(find_reason(&a.gpus[0].reasons, P2PS_R_BAR_EXCEEDS_WINDOW));
	done(&h, &a, &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_teardown(test_simplep2p_quotes, teardown),
	        cmocka_unit_test_teardown(test_nccl_tests_forms, teardown),
	        cmocka_unit_test_teardown(test_smi_table, teardown),
	        cmocka_unit_test_teardown(test_nccl_log, teardown),
	        cmocka_unit_test_teardown(test_error_lines, teardown),
	        cmocka_unit_test_teardown(test_setpci, teardown),
	        cmocka_unit_test_teardown(test_acsctl_grep, teardown),
	        cmocka_unit_test_teardown(test_gpu_list, teardown),
	        cmocka_unit_test_teardown(test_merged_titles, teardown),
	        cmocka_unit_test(test_cmdline_iommu),
	        cmocka_unit_test(test_symptom_asks),
	        cmocka_unit_test(test_p2p_works),
	        cmocka_unit_test(test_nccl_works),
	        cmocka_unit_test(test_geforce_stock),
	        cmocka_unit_test(test_bridge_windows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
