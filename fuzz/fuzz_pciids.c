/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost p2ps_backends_private
/* libFuzzer target for the one-pass pci.ids reader (src/host/backends/pciids.c): the
 * first 16 bytes are two devices' vendor, device, subsystem vendor and subsystem ids,
 * the rest is the list. Names must stay NUL-terminated within the model's buffers. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"
#include "pciids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct p2ps_dev devs[2];
	if (size < 16)
		return 0;
	memset(devs, 0, sizeof(devs));
	for (int i = 0; i < 2; i++) {
		devs[i].vendor_id = p2ps_le16(data + 8 * i);
		devs[i].device_id = p2ps_le16(data + 8 * i + 2);
		devs[i].subsys_vendor_id = p2ps_le16(data + 8 * i + 4);
		devs[i].subsys_id = p2ps_le16(data + 8 * i + 6);
	}
	/* A copy of exactly the list's bytes, so that a read past its end is caught. */
	size_t len = size - 16;
	char *text = malloc(len ? len : 1);
	if (!text)
		return 0;
	memcpy(text, data + 16, len);
	p2ps_pciids_fill_text(text, len, devs, 2);
	free(text);
	for (int i = 0; i < 2; i++)
		if (memchr(devs[i].vendor_name, 0, P2PS_HOST_NAME_MAX) == NULL ||
		    memchr(devs[i].device_name, 0, P2PS_HOST_NAME_MAX) == NULL ||
		    memchr(devs[i].subsys_name, 0, P2PS_HOST_NAME_MAX) == NULL)
			abort();
	return 0;
}
