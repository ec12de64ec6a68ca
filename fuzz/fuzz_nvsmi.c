/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost p2ps_backends_private
/* libFuzzer target for the parsers of captured nvidia-smi output (a snapshot's
 * p2pscope/nvidia-smi-q.txt and nvidia-smi-topo-m.txt): the first byte picks the
 * parser, the rest is the text. The host is two NVIDIA GPUs at 0000:00:06.0 and
 * 0000:00:07.0; results must stay within the model's bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_host.h"
#include "nvfacts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct p2ps_dev devs[2];
	if (size < 1)
		return 0;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	struct p2ps_host h = fuzz_two_gpus(devs);
	if (data[0] & 1)
		p2ps_nvsmi_parse_topo(&h, text);
	else
		p2ps_nvsmi_parse_q(&h, text);
	for (int i = 0; i < 2; i++) {
		const struct p2ps_gpu_facts *g = &devs[i].gpu;
		if (g->n_nvlink_peers < 0 || g->n_nvlink_peers > P2PS_HOST_MAX_NVLINK)
			abort();
		for (int k = 0; k < g->n_nvlink_peers; k++)
			if (g->nvlink_peers[k].bdf.dev == devs[i].bdf.dev)
				abort(); /* a GPU is never its own NVLink peer */
	}
	free(text);
	return 0;
}
