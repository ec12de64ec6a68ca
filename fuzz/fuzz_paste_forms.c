/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost
/* libFuzzer target for the forms the paste reader takes wherever they stand: each input
 * line starts with a byte that picks one of the forms' openings (NCCL's log without its
 * prefix and its GPUDirect RDMA lines, a module list, llama.cpp's device lines, an
 * environment list, nvidia-smi --version, lscpu, simpleP2P's lines without their quote
 * marks, latency and bidirectional matrices and their bare rows, collect_env, a bug
 * report's section lines, nvbandwidth's matrices and device lines, TensorFlow's GPU log,
 * nvidia-smi's query CSV, bare NCCL connections, gdrcopy's and CUDA's peer errors,
 * nccl-tests' rows and summary), and the rest of the line follows it. The paste so built goes
 * through the whole pipeline with the checks of fuzz_paste (fuzz_paste_checks.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_paste_checks.h"

static const char *const openings[] = {
        "",
        "NCCL INFO Channel 00 : ",
        "NCCL INFO Channel 01/0 : 0[0] -> 1[1] via ",
        "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA ",
        "NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA ",
        "NCCL INFO NCCL version ",
        "NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId ",
        "nvidia_peermem         12288  0",
        "nv_peer_mem ",
        "$ lsmod | grep ",
        "ggml_cuda_init: found ",
        "  Device ",
        "- GPU: ",
        "- Driver version: ",
        "| NCCL | ",
        "NVIDIA-SMI version  : ",
        "DRIVER version      : ",
        "Architecture:                       ",
        "Vendor ID:                          ",
        "CPU family:                         ",
        "Model:                              ",
        "Model name:                         ",
        "Peer access from ",
        "Enabling peer access between GPU",
        "Test passed",
        "Test failed",
        "P2P=Disabled Latency Matrix (us)",
        "P2P=Enabled Latency (P2P Writes) Matrix (us)",
        "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)",
        "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)",
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
        "   D\\D     0      1 ",
        "   GPU     0      1",
        "     ",
        "GPU models and configuration:",
        "GPU 0: NVIDIA GeForce RTX ",
        "Nvidia driver version: ",
        "#  Rank  0 Group  0 Pid   9822 on host device  0 [0000:2c:00] ",
        "____________________________________________",
        "/usr/bin/lspci -t",
        "*** /proc/modules",
        "*** /proc/driver/nvidia/./version",
        "$ nvidia-smi topo -m",
        "GPU0     X      ",
        "CUDA Version        : ",
        "tensor([0., 0.], device='cuda:1')",
        "RuntimeError: CUDA error: ",
        "uname: Linux host ",
        "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)",
        "           0         1 ",
        " 0       N/A     ",
        "Device 0: NVIDIA A100-SXM4-80GB (00000000:",
        "Invalid value when checking the pattern at ",
        "2019-01-03 07:07:31.374063: I tensorflow/core/common_runtime/gpu/gpu_device.cc:977] ",
        "Device interconnect StreamExecutor with strength 1 edge matrix:",
        "-> physical GPU (device: 0, name: ",
        "index, pci.bus_id, name, memory.total [MiB]",
        "0, NVIDIA GeForce RTX 4090, 00000000:",
        "9[1a000] -> 2[6b000] [receive] via NET/IB/",
        "NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance ",
        "Assertion \"(gdr_pin_buffer(",
        "peer mapping resources exhausted",
        "# Out of bounds values : ",
        "           8             2     float     sum      -1 ",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t n_open = sizeof(openings) / sizeof(openings[0]);
	size_t longest = 0;
	for (size_t k = 0; k < n_open; k++)
		longest = strlen(openings[k]) > longest ? strlen(openings[k]) : longest;
	/* At most one opening and one newline per input byte. */
	char *text = malloc(size * (longest + 2) + 1);
	if (!text)
		return 0;
	size_t len = 0;
	for (size_t i = 0; i < size;) {
		const char *o = openings[data[i++] % n_open];
		size_t ol = strlen(o);
		memcpy(text + len, o, ol);
		len += ol;
		while (i < size && data[i] != '\n')
			text[len++] = (char)data[i++];
		text[len++] = '\n';
		i += i < size; /* the newline */
	}
	fuzz_paste_pipeline(text, len);
	free(text);
	return 0;
}
