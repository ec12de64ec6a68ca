/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost p2ps_backends_private
/* libFuzzer target for the parser of the per-boot NVML facts cache
 * (src/host/backends/nvml_cache.c): the input is the file's text, checked against the key
 * "k" on a host of two NVIDIA GPUs at 0000:00:06.0 and 0000:00:07.0. The facts must
 * stay within the model's bounds, and a text that does not parse must change nothing. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_host.h"
#include "nvfacts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct p2ps_dev devs[2];
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct p2ps_host h = fuzz_two_gpus(devs);
	bool ok = p2ps_nvml_cache_parse(&h, text, "k");
	free(text);
	if (!ok && (h.nvidia.nvml_loaded || devs[0].gpu.source || devs[1].gpu.source))
		abort();
	for (int i = 0; i < 2; i++)
		if (devs[i].gpu.n_nvlink_peers < 0 ||
		    devs[i].gpu.n_nvlink_peers > P2PS_HOST_MAX_NVLINK)
			abort();
	return 0;
}
