/* SPDX-License-Identifier: MIT */
/* The paste reader on small pastes written the way the tools print them: each block
 * syntax, the block finder (prompts, fences, quotes, prose, wrapped lines), provenance,
 * and bad input (binary, cut blocks, mismatched matrix columns). The real pastes from
 * bug reports are in test_paste_cases.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2pscope/nvidia_chips.h"
#include "p2pscope/paste.h"

static struct p2ps_paste P;

static void parse(const char *text)
{
	struct p2ps_error err = {0};
	p2ps_paste_free(&P);
	assert_int_equal(p2ps_paste_parse(text, strlen(text), "test", &P, &err), 0);
}

static const struct p2ps_paste_dev *dev(const char *bdf)
{
	struct p2ps_bdf b;
	assert_int_equal(p2ps_bdf_parse(bdf, &b), 0);
	const struct p2ps_paste_dev *pd = p2ps_paste_find_dev(&P, &b);
	assert_non_null(pd);
	return pd;
}

static int teardown(void **state)
{
	(void)state;
	p2ps_paste_free(&P);
	return 0;
}

/* lspci -vvv -nn with a prompt, inside a markdown fence, then prose. */
static void test_lspci_vvv(void **state)
{
	(void)state;
	parse("Here is my lspci:\n"
	      "```\n"
	      "$ sudo lspci -vvv -nn -s 01:00.0\n"
	      "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX "
	      "4090] "
	      "[10de:2684] (rev a1) (prog-if 00 [VGA controller])\n"
	      "\tRegion 0: Memory at f2000000 (32-bit, non-prefetchable) [size=16M]\n"
	      "\tRegion 1: Memory at 28800000000 (64-bit, prefetchable) [size=32G]\n"
	      "\tRegion 3: Memory at 28400000000 (64-bit, prefetchable) [size=32M]\n"
	      "\tRegion 5: I/O ports at 3000 [size=128]\n"
	      "\tCapabilities: [78] Express (v2) Legacy Endpoint, MSI 00\n"
	      "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <4us\n"
	      "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x8 (downgraded)\n"
	      "\tCapabilities: [bb0 v1] Physical Resizable BAR\n"
	      "\t\tBAR 0: current size: 16MB, supported: 16MB\n"
	      "\t\tBAR 1: current size: 32GB, supported: 64MB 128MB 256MB 512MB 1GB 2GB 4GB 8GB "
	      "16GB "
	      "32GB\n"
	      "\tKernel driver in use: nvidia\n"
	      "\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n"
	      "```\n"
	      "Thanks!\n");
	assert_int_equal(P.n_blocks, 3);
	assert_int_equal(P.blocks[0].kind, P2PS_PASTE_TEXT);
	assert_int_equal(P.blocks[1].kind, P2PS_PASTE_LSPCI);
	assert_string_equal(P.blocks[1].command, "sudo lspci -vvv -nn -s 01:00.0");
	assert_int_equal(P.blocks[1].first_line, 4);
	const struct p2ps_paste_dev *pd = dev("01:00.0");
	assert_true(pd->ids_known);
	assert_int_equal(pd->d.vendor_id, 0x10de);
	assert_int_equal(pd->d.device_id, 0x2684);
	assert_int_equal(pd->d.class_code, 0x030000);
	assert_string_equal(p2ps_nvidia_chip_name(pd->d.chip), "AD102");
	assert_int_equal(pd->d.revision, 0xa1);
	assert_true(pd->d.bars[1].present && pd->d.bars[1].size_known);
	assert_int_equal(pd->d.bars[1].size, 32ull << 30);
	assert_int_equal(pd->d.bars[1].address, 0x28800000000ull);
	assert_true(pd->d.bars[1].is_64bit && pd->d.bars[1].prefetchable);
	assert_true(pd->d.bars[5].io);
	assert_false(pd->d.bars[2].present);
	assert_int_equal(pd->d.pcie.port_type, 1);
	assert_int_equal(pd->d.pcie.cap.speed, 4);
	assert_int_equal(pd->d.pcie.cap.width, 16);
	assert_int_equal(pd->d.pcie.sta.speed, 1);
	assert_int_equal(pd->d.pcie.sta.width, 8);
	assert_int_equal(pd->d.rebar.count, 2);
	assert_int_equal(pd->d.rebar.e[1].bar, 1);
	assert_int_equal(pd->d.rebar.e[1].current, 15);   /* 32 GiB = 2^15 MiB */
	assert_int_equal(pd->d.rebar.e[1].sizes, 0xffc0); /* 64 MiB .. 32 GiB */
	assert_string_equal(pd->d.driver, "nvidia");
	assert_true(pd->complete);
	assert_false(pd->cut);
	/* Provenance: the BAR came from line 6 of the paste, in block 2. */
	assert_int_equal(pd->from[P2PS_PD_BARS].block, 1);
	assert_int_equal(pd->from[P2PS_PD_LINK].line, 11);
	assert_int_equal(pd->from[P2PS_PD_REBAR].line, 14);
}

/* lspci -v (no Region numbers) without root, names only (old pci.ids), and the bridge
 * lines and ACS of a switch port. */
static void test_lspci_v_and_bridge(void **state)
{
	(void)state;
	parse("tiny@tiny14:~$ lspci -s 01:00.0 -v\n"
	      "01:00.0 VGA compatible controller: NVIDIA Corporation Device 2b85 (rev a1)\n"
	      "        Flags: bus master, fast devsel, latency 0, IRQ 377, NUMA node 1\n"
	      "        Memory at b2000000 (32-bit, non-prefetchable) [size=16M]\n"
	      "        Memory at 28800000000 (64-bit, prefetchable) [size=32G]\n"
	      "        Memory at 28400000000 (64-bit, prefetchable) [size=32M]\n"
	      "        I/O ports at 3000 [size=128]\n"
	      "        Capabilities: <access denied>\n"
	      "        Kernel driver in use: nvidia\n"
	      "\n"
	      "04:08.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 "
	      "(8.0 GT/s) Switch (rev ca) (prog-if 00 [Normal decode])\n"
	      "\tBus: primary=04, secondary=05, subordinate=05, sec-latency=0\n"
	      "\tPrefetchable memory behind bridge: 0000038000000000-00000387ffffffff [size=32G] "
	      "[32-bit]\n"
	      "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n"
	      "\tCapabilities: [f24 v1] Access Control Services\n"
	      "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ "
	      "DirectTrans+\n"
	      "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
	      "DirectTrans-\n");
	const struct p2ps_paste_dev *gpu = dev("01:00.0");
	assert_true(gpu->ids_known); /* "Device 2b85" */
	assert_int_equal(gpu->d.device_id, 0x2b85);
	assert_string_equal(p2ps_nvidia_chip_name(gpu->d.chip), "GB202");
	assert_int_equal(gpu->verbosity, 1);
	assert_true(gpu->caps_denied);
	assert_int_equal(gpu->d.numa_node, 1);
	/* lspci -v omits the register numbers: 32-bit BAR0, 64-bit BAR1 (1-2), BAR3 (3-4). */
	assert_true(gpu->d.bars[1].present && gpu->d.bars[3].present && gpu->d.bars[5].io);
	assert_int_equal(gpu->d.bars[1].size, 32ull << 30);
	const struct p2ps_paste_dev *br = dev("04:08.0");
	assert_int_equal(br->d.vendor_id, 0x10b5);
	assert_false(br->ids_known);
	assert_int_equal(br->d.header_type, 1);
	assert_int_equal(br->d.bridge.secondary, 5);
	assert_true(br->d.bridge.pref.present);
	assert_int_equal(br->d.bridge.pref.limit, 0x387ffffffffull);
	assert_int_equal(br->d.pcie.port_type, 6);
	assert_true(br->d.acs.present);
	assert_int_equal(br->d.acs.offset, 0xf24);
	assert_int_equal(br->d.acs.cap, 0x7f);
	assert_int_equal(br->d.acs.ctl, 0x1d);
	/* It ends the paste without a driver line: not provably whole, so its absences are not
	 * facts. */
	assert_true(br->ext_caps_seen && br->cut);
}

/* A link that is down is a fact: LnkSta Width x0. */
static void test_link_down(void **state)
{
	(void)state;
	parse("00:1c.0 PCI bridge [0604]: Intel Corporation Device [8086:7a38] (rev 11)\n"
	      "\tCapabilities: [40] Express (v2) Root Port (Slot+), IntMsgNum 0\n"
	      "\t\tLnkCap:\tPort #1, Speed 8GT/s, Width x1, ASPM L0s L1\n"
	      "\t\tLnkSta:\tSpeed 2.5GT/s, Width x0\n"
	      "\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-\n");
	const struct p2ps_paste_dev *pd = dev("00:1c.0");
	assert_true(pd->link_down_seen);
	assert_int_equal(pd->d.pcie.sta_source, P2PS_LINK_CONFIG);
	assert_int_equal(pd->d.pcie.sta.width, 0);
	assert_int_equal(pd->d.pcie.sta.speed, 1);
}

/* A Resizable BAR excerpt grep'd out of `lspci -s SLOT`: the slot comes from the command. */
static void test_rebar_grep_slot(void **state)
{
	(void)state;
	parse("$ sudo lspci -vv -s 01:00.0 | grep -A4 \"Physical Resizable BAR\"\n"
	      "    BAR 0: current size: 16MB, supported: 16MB\n"
	      "    BAR 1: current size: 256MB, supported: 64MB 128MB 256MB\n"
	      "    BAR 3: current size: 32MB, supported: 32MB\n");
	const struct p2ps_paste_dev *pd = dev("01:00.0");
	assert_false(pd->vendor_known);
	assert_int_equal(pd->d.rebar.count, 3);
	assert_int_equal(pd->d.rebar.e[1].current, 8);
	assert_int_equal(pd->d.rebar.e[1].sizes, 0x1c0);
	/* Without a slot, such lines have no device: skipped and said so. */
	parse("`BAR 1: current size: 256MB`\n");
	assert_int_equal(P.n_devs, 0);
	assert_non_null(strstr(P.blocks[0].summary, "without a device line"));
}

/* lspci -tv with two domains and a switch; lspci -t without names. */
static void test_tree(void **state)
{
	(void)state;
	parse("$ lspci -tv\n"
	      "-+-[0000:00]-+-00.0  Intel Corporation Device 0d57\n"
	      " |           +-01.0-[01-03]----00.0-[02-03]--+-08.0-[03]----00.0  NVIDIA "
	      "Corporation "
	      "GA102 [GeForce RTX 3090]\n"
	      " |           |                               \\-10.0-[04]--\n"
	      " |           \\-06.0  Device 10de:2330\n"
	      " \\-[0001:80]---02.0-[81]--+-00.0  Device 10de:2684\n"
	      "                          \\-00.1  NVIDIA Corporation AD102 High Definition Audio "
	      "Controller\n");
	assert_int_equal(P.blocks[0].kind, P2PS_PASTE_LSPCI_TREE);
	const struct p2ps_paste_dev *gpu = dev("03:00.0");
	assert_true(gpu->d.has_parent);
	assert_int_equal(gpu->d.parent_bdf.bus, 2);
	assert_int_equal(gpu->d.parent_bdf.dev, 8);
	assert_string_equal(p2ps_nvidia_chip_name(gpu->d.chip), "GA102");
	assert_int_equal(dev("02:08.0")->d.parent_bdf.bus, 1);
	assert_int_equal(dev("01:00.0")->d.parent_bdf.dev, 1);
	assert_int_equal(dev("01:00.0")->d.bridge.secondary, 2);
	assert_int_equal(dev("01:00.0")->d.bridge.subordinate, 3);
	assert_false(dev("00:06.0")->d.has_parent);
	assert_int_equal(dev("00:06.0")->d.device_id, 0x2330);
	const struct p2ps_paste_dev *far = dev("0001:81:00.0");
	assert_int_equal(far->d.parent_bdf.domain, 1);
	assert_int_equal(far->d.parent_bdf.bus, 0x80);
	assert_string_equal(far->d.root_bus, "pci0001:80");
	assert_int_equal(dev("0001:81:00.1")->d.parent_bdf.dev, 2);
}

/* nvidia-smi -q, whole and grep'd, and the topo matrices (tabs or spaces, header on the
 * command line, a legend, a row with too few cells). */
static void test_nvidia_smi(void **state)
{
	(void)state;
	parse("GPU 00000000:41:00.0\n"
	      "    Product Name                          : NVIDIA GeForce RTX 4090\n"
	      "    Display Active                        : Enabled\n"
	      "    PCI\n"
	      "        GPU Link Info\n"
	      "            PCIe Generation\n"
	      "                Max                       : 4\n"
	      "                Current                   : 1\n"
	      "            Link Width\n"
	      "                Max                       : 16x\n"
	      "                Current                   : 8x\n"
	      "    FB Memory Usage\n"
	      "        Total                             : 24564 MiB\n"
	      "    BAR1 Memory Usage\n"
	      "        Total                             : 32768 MiB\n"
	      "\n"
	      "nvidia-smi topo -m        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
	      "GPU0     X      PIX     0-23    0\n"
	      "GPU1    PIX      X      0-23    0\n"
	      "\n"
	      "Legend:\n"
	      "  X    = Self\n"
	      "$ nvidia-smi topo -p2p w\n"
	      " \tGPU0\tGPU1\tGPU2\t\n"
	      " GPU0\tX\tOK\tCNS\t\n"
	      " GPU1\tOK\tX\n");
	const struct p2ps_paste_gpu *g = p2ps_paste_gpu_smi(&P, 0);
	assert_non_null(g);
	assert_true(g->bdf_known);
	assert_int_equal(g->bdf.bus, 0x41);
	assert_string_equal(g->name, "NVIDIA GeForce RTX 4090");
	assert_int_equal(g->vram, 24564ull << 20);
	assert_int_equal(g->bar1, 32768ull << 20);
	assert_int_equal(g->link_max.speed, 4);
	assert_int_equal(g->link_cur.width, 8);
	assert_int_equal(g->display, 1);
	assert_int_equal(g->bar1_from.line, 15);
	assert_true(P.m[P2PS_PM_TOPO].present);
	assert_int_equal(P.m[P2PS_PM_TOPO].n, 2);
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_TOPO, 1, 0), "PIX");
	/* topo -p2p's header promised 3 GPUs; GPU1 has 2 cells, GPU2 no row: read, marked. */
	const struct p2ps_paste_matrix *m = &P.m[P2PS_PM_P2P];
	assert_true(m->present);
	assert_int_equal(m->n, 3);
	assert_string_equal(m->mode, "w");
	assert_true(m->ragged);
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_P2P, 0, 2), "CNS");
	assert_null(p2ps_paste_cell(&P, P2PS_PM_P2P, 1, 2));
	/* grep'd -q: runs of BAR1 lines without a GPU line are GPUs in nvidia-smi's order. */
	parse("nvidia-smi -q | grep -i bar -A 3\n"
	      "    BAR1 Memory Usage\n"
	      "        Total                       : 256 MiB\n"
	      "--\n"
	      "    BAR1 Memory Usage\n"
	      "        Total                       : 32768 MiB\n");
	assert_int_equal(P.n_gpus, 2);
	assert_int_equal(p2ps_paste_gpu_smi(&P, 0)->bar1, 256ull << 20);
	assert_int_equal(p2ps_paste_gpu_smi(&P, 1)->bar1, 32768ull << 20);
	assert_false(p2ps_paste_gpu_smi(&P, 1)->bdf_known);
}

/* Kernel log in three formats, wrapped lines joined. */
static void test_kernel_log(void **state)
{
	(void)state;
	parse("[    1.5] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  565.57.01-p2p  "
	      "Release Build\n"
	      "May 02 10:00:01 box kernel: NVRM: kbusEnableStaticBar1Mapping_GH100: Static bar1 "
	      "mapped offset 0x0 size 0x5e9200000\n"
	      "2024-05-02T10:00:02+0000 box kernel: NVRM: kbusCreateP2PMappingForBar1P2P_GH100: "
	      "added "
	      "PCIe BAR1 P2P mapping between GPU0 and GPU1\n"
	      "[ 3742.865956] NVRM: Xid (PCI:0000:01:00): 31, pid=21804, name=simpleP2P, Ch "
	      "00000013, "
	      "intr 00000000. MMU Fault: ENGINE CE3 HUBCLIENT_CE1 faulted @ 0x7f97_94000000.\n"
	      "Fault is of type FAULT_INFO_TYPE_UNSUPPORTED_KIND ACCESS_TYPE_VIRT_WRITE\n"
	      "[    0.17] pci 0000:01:00.0: [10de:2684] type 00 class 0x030000 PCIe Legacy "
	      "Endpoint\n"
	      "[    0.18] pci 0000:01:00.0: BAR 1 [mem 0x28800000000-0x28fffffffff 64bit pref]\n"
	      "[    0.19] pci 0000:02:00.0: BAR 1 [mem size 0x800000000 64bit pref]: can't assign; "
	      "no space\n"
	      "[    0.20] DMAR: IOMMU enabled\n"
	      "[    0.21] iommu: Default domain type: Passthrough (set via kernel command line)\n"
	      "[    5.00] nvidia 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 "
	      "address=0x80000040 flags=0x0020]\n");
	assert_int_equal(P.n_blocks, 1);
	assert_string_equal(P.host.driver_version, "565.57.01-p2p");
	assert_int_equal(P.host.driver_open, 1);
	assert_int_equal(P.event_count[P2PS_PE_STATIC_BAR1], 1);
	assert_int_equal(P.event_count[P2PS_PE_BAR1_P2P_MAPPING], 1);
	assert_int_equal(P.event_count[P2PS_PE_XID], 1);
	assert_int_equal(P.event_count[P2PS_PE_BAR1_INVALID], 1);
	assert_int_equal(P.event_count[P2PS_PE_IOMMU_FAULT], 1);
	for (size_t i = 0; i < P.n_events; i++)
		if (P.events[i].kind == P2PS_PE_XID) {
			assert_int_equal(P.events[i].a, 31);
			assert_int_equal(P.events[i].b, 0x7f9794000000ull);
			assert_string_equal(P.events[i].detail, "UNSUPPORTED_KIND VIRT_WRITE");
			assert_int_equal(P.events[i].bdf.bus, 1);
		}
	assert_true(P.host.iommu_known && P.host.iommu_present);
	assert_string_equal(P.host.iommu_kind, "intel");
	assert_string_equal(P.host.default_domain, "identity");
	const struct p2ps_paste_dev *pd = dev("01:00.0");
	assert_int_equal(pd->d.device_id, 0x2684);
	assert_int_equal(pd->d.bars[1].size, 32ull << 30);
	assert_string_equal(pd->d.driver, "nvidia");
	assert_int_equal(pd->iommu_faults, 1);
}

/* p2pBandwidthLatencyTest and simpleP2P. */
static void test_cuda(void **state)
{
	(void)state;
	parse("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
	      "Device: 0, NVIDIA GeForce RTX 5090, pciBusID: 1, pciDeviceID: 0, pciDomainID:0\n"
	      "Device: 1, NVIDIA GeForce RTX 5070 Ti, pciBusID: 3, pciDeviceID: 0, pciDomainID:0\n"
	      "Device=0 CANNOT Access Peer Device=1\n"
	      "Device=1 CANNOT Access Peer Device=0\n"
	      "\n"
	      "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
	      "   D\\D     0      1\n"
	      "     0 1743.86  24.85\n"
	      "     1  24.91 1771.60\n"
	      "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n"
	      "   D\\D     0      1\n"
	      "     0 1743.86  25.10\n"
	      "     1  24.99 1771.60 99.0\n"
	      "Verification error @ element 1: val = 0.000000, ref = 4.000000\n"
	      "Test failed!\n");
	const struct p2ps_paste_gpu *g = p2ps_paste_gpu_cuda(&P, 1);
	assert_non_null(g);
	assert_int_equal(g->bdf.bus, 3);
	assert_string_equal(g->name, "NVIDIA GeForce RTX 5070 Ti");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_CUDA_ACCESS, 0, 1), "0");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_BW_UNI_OFF, 0, 1), "24.85");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_BW_UNI_ON, 1, 0), "24.99");
	assert_true(P.m[P2PS_PM_BW_UNI_ON].ragged); /* a row with a cell too many */
	assert_int_equal(P.cuda.verify_errors, 1);
	assert_int_equal(P.cuda.result, 0);
	assert_string_equal(P.cuda.test, "p2pBandwidthLatencyTest");
}

/* The damage a web page, a mail client or a log collector does: each form read as the
 * tool printed it (scripts/paste-morph.py checks the same over the real pastes). */
static void test_page_damage(void **state)
{
	(void)state;
	/* <details> around an indented code block, HTML entities, no-break spaces, a container
	 * log's time stamp before a quote mark, kern.log's prefix and stamp together. */
	parse("<details><summary>simpleP2P</summary>\n"
	      "\n"
	      "    2025-03-01T10:00:00.123Z &gt; Peer access from NVIDIA GeForce RTX 4090 (GPU0) "
	      "-&gt; NVIDIA GeForce RTX 4090 (GPU1) : No\n"
	      "    [rank0]: &gt;\xc2\xa0Peer access from NVIDIA GeForce RTX 4090 (GPU1) -&gt; "
	      "NVIDIA GeForce RTX 4090 (GPU0) : No\n"
	      "    Mar  1 10:00:02 box kernel: [   12.345678] NVRM: loading NVIDIA UNIX x86_64 "
	      "Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
	      "</details>\n");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_CUDA_ACCESS, 0, 1), "0");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_CUDA_ACCESS, 1, 0), "0");
	assert_string_equal(P.host.driver_version, "550.54.14");
	/* nvidia-smi -q whose indentation a page collapsed, and one indented with tabs. */
	parse("nvidia-smi -q\n"
	      "GPU 00000000:01:00.0\n"
	      "Product Name : NVIDIA GeForce RTX 4090\n"
	      "FB Memory Usage\n"
	      "Total : 24564 MiB\n"
	      "BAR1 Memory Usage\n"
	      "Total : 256 MiB\n"
	      "GPU 00000000:02:00.0\n"
	      "\tBAR1 Memory Usage\n"
	      "\t\tTotal : 32768 MiB\n"
	      "\tFB Memory Usage\n"
	      "\t\tTotal : 24564 MiB\n");
	assert_int_equal(P.n_gpus, 2);
	assert_int_equal(p2ps_paste_gpu_smi(&P, 0)->bar1, 256ull << 20);
	assert_int_equal(p2ps_paste_gpu_smi(&P, 0)->vram, 24564ull << 20);
	assert_int_equal(p2ps_paste_gpu_smi(&P, 1)->bar1, 32768ull << 20);
	/* docker compose's service column before simpleP2P's lines. */
	parse("app-1  | > Peer access from Tesla T4 (GPU0) -> Tesla T4 (GPU1) : No\n"
	      "app-1  | > Peer access from Tesla T4 (GPU1) -> Tesla T4 (GPU0) : Yes\n");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_CUDA_ACCESS, 0, 1), "0");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_CUDA_ACCESS, 1, 0), "1");
	/* TensorFlow's DMA rows with single blanks; a samples summary's row is no command. */
	parse("I tensorflow/core/common_runtime/gpu/gpu_init.cc:126] DMA: 0 1\n"
	      "I tensorflow/core/common_runtime/gpu/gpu_init.cc:136] 0: Y N\n"
	      "I tensorflow/core/common_runtime/gpu/gpu_init.cc:136] 1: N Y\n");
	assert_string_equal(p2ps_paste_cell(&P, P2PS_PM_CUDA_ACCESS, 0, 1), "0");
}

/* /proc/cmdline after its command, and the IOMMU listings. */
static void test_host_blocks(void **state)
{
	(void)state;
	parse("$ cat /proc/cmdline\n"
	      "BOOT_IMAGE=/vmlinuz root=UUID=1 ro quiet amd_iommu=on iommu=pt\n"
	      "$ find /sys/kernel/iommu_groups -type l\n"
	      "/sys/kernel/iommu_groups/7/devices/0000:01:00.0\n"
	      "/sys/kernel/iommu_groups/7/devices/0000:01:00.1\n"
	      "/sys/kernel/iommu_groups/9/devices/0000:02:00.0\n");
	assert_true(P.host.cmdline_known);
	assert_non_null(strstr(P.host.cmdline, "iommu=pt"));
	assert_int_equal(P.host.iommu_groups, 2);
	assert_true(P.host.iommu_known && P.host.iommu_present);
	assert_int_equal(dev("01:00.1")->d.iommu_group, 7);
	/* An empty listing is a fact too: no group, no IOMMU. */
	parse("$ find /sys/kernel/iommu_groups/\n/sys/kernel/iommu_groups/\n");
	assert_true(P.host.iommu_known);
	assert_false(P.host.iommu_present);
}

/* Bad input: binary data is an error; noise, a cut block and prose are a report. */
static void test_bad_input(void **state)
{
	(void)state;
	struct p2ps_error err = {0};
	static const char bin[] = "\x7f"
	                          "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0";
	p2ps_paste_free(&P);
	assert_int_equal(p2ps_paste_parse(bin, sizeof(bin), "bin", &P, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "binary data"));
	p2ps_paste_free(&P);
	parse("");
	assert_int_equal(P.n_blocks, 0);
	parse("no diagnostic output here\njust words\n");
	assert_int_equal(P.n_blocks, 1);
	assert_int_equal(P.blocks[0].kind, P2PS_PASTE_TEXT);
	/* A device block cut by "[...]": its later lines stay its own. */
	parse("d8:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090]\n"
	      "[...]\n"
	      "        Capabilities: [bb0 v1] Physical Resizable BAR\n"
	      "                BAR 1: current size: 256MB, supported: 64MB 128MB 256MB 512MB "
	      "1GB\n");
	const struct p2ps_paste_dev *pd = dev("d8:00.0");
	assert_true(pd->cut);
	assert_true(P.blocks[0].cut);
	assert_int_equal(pd->d.rebar.e[0].sizes, 0x7c0);
	assert_false(pd->ids_known);
	assert_int_equal(pd->d.vendor_id, 0x10de);
	assert_string_equal(p2ps_nvidia_chip_name(pd->d.chip), "GA102");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_teardown(test_lspci_vvv, teardown),
	        cmocka_unit_test_teardown(test_lspci_v_and_bridge, teardown),
	        cmocka_unit_test_teardown(test_link_down, teardown),
	        cmocka_unit_test_teardown(test_rebar_grep_slot, teardown),
	        cmocka_unit_test_teardown(test_tree, teardown),
	        cmocka_unit_test_teardown(test_nvidia_smi, teardown),
	        cmocka_unit_test_teardown(test_kernel_log, teardown),
	        cmocka_unit_test_teardown(test_cuda, teardown),
	        cmocka_unit_test_teardown(test_page_damage, teardown),
	        cmocka_unit_test_teardown(test_host_blocks, teardown),
	        cmocka_unit_test_teardown(test_bad_input, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
