/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost p2ps_backends_private
/* libFuzzer target for the config-space decoders shared by every backend (and the
 * VFIO one, which hands them raw config bytes): the input is one device's config
 * space (its length is the readable length), decoded as header plus PCIe, ACS and
 * Resizable BAR capabilities through the bounded chain walks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct p2ps_dev d;
	memset(&d, 0, sizeof(d));
	d.config_len = size > P2PS_HOST_CONFIG_MAX ? P2PS_HOST_CONFIG_MAX : size;
	memcpy(d.config, data, d.config_len);
	p2ps_cfg_decode_header(&d);
	p2ps_cfg_decode_caps(&d);
	if (d.pcie.present && (size_t)d.pcie.offset + 0x14 > d.config_len)
		abort();
	if (d.acs.present && (size_t)d.acs.offset + 8 > d.config_len)
		abort();
	if (d.rebar.count > P2PS_HOST_MAX_REBAR)
		abort();
	if (d.rebar.present && (size_t)d.rebar.offset + 12 > d.config_len)
		abort();
	return 0;
}
