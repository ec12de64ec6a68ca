/* SPDX-License-Identifier: MIT */
/* What the host-side fuzz targets share: a model of two NVIDIA GPUs at 0000:00:06.0 and
 * 0000:00:07.0 (the 2 x H200 guest's addresses), the host their facts are parsed into. */
#ifndef P2PS_FUZZ_HOST_H
#define P2PS_FUZZ_HOST_H

#include <string.h>

#include "p2pscope/host.h"

static inline struct p2ps_host fuzz_two_gpus(struct p2ps_dev devs[2])
{
	memset(devs, 0, 2 * sizeof(devs[0]));
	for (int i = 0; i < 2; i++) {
		devs[i].bdf = (struct p2ps_bdf){0, 0, (uint8_t)(6 + i), 0};
		devs[i].vendor_id = 0x10de;
		devs[i].class_code = 0x030200;
	}
	return (struct p2ps_host){.devs = devs, .n_devs = 2};
}

#endif
