/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost p2ps_backends_private
/* libFuzzer target for the driver model's inputs: the first byte picks the parser
 * (NVreg_RegistryDwords, /proc/driver/nvidia/params, /proc/cpuinfo, a topo -p2p matrix),
 * the rest is the text; then the model runs over the two-GPU host. Results must stay
 * within the model's bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_host.h"
#include "hostfacts.h"
#include "nvfacts.h"
#include "p2pscope/analysis.h"
#include "p2pscope/driver_model.h"

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
	struct p2ps_drv_regkeys reg;
	memset(&reg, 0xff, sizeof(reg));
	switch (data[0] & 3) {
	case 0:
		if (p2ps_drv_registry_parse(text, &reg) > 6)
			abort();
		break;
	case 1: p2ps_nvidia_params_parse(&h.nvidia, text); break;
	case 2: p2ps_cpuinfo_parse(&h.cpu, text); break;
	default: p2ps_nvsmi_parse_p2p(&h, text, (data[0] >> 2) % 6, "fuzz"); break;
	}
	if (h.driver_caps.n_gpus > P2PS_HOST_DRVCAPS_GPUS)
		abort();
	struct p2ps_drv_config cfg;
	char err[160];
	struct p2ps_analysis a;
	struct p2ps_error e = {0};
	if (p2ps_drv_config_make(&h, text[0] == '5' ? text : "580", NULL, &cfg, err, sizeof(err)) ==
	            0 &&
	    p2ps_analysis_run(&h, &a, &e) == 0) {
		struct p2ps_drv_report r;
		if (p2ps_drv_model_run(&a, &cfg, &r) == 0)
			p2ps_drv_report_free(&r);
		p2ps_analysis_free(&a);
	}
	free(text);
	return 0;
}
