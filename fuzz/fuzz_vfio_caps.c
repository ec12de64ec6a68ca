/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost
/* libFuzzer target for the VFIO INFO-buffer parsers: the same bytes are read
 * as a region info, an IOMMU info and a device info buffer, and the first byte
 * also drives a bare chain walk with an arbitrary start offset. Every result is
 * checked for the parsers' own invariants (counts within bounds, areas and
 * capability headers inside the buffer), so a silent overrun that ASan cannot
 * see still fails. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/vfio.h"

static void check_chain(const struct p2ps_vfio_cap_chain *c, size_t len)
{
	if (c->n > P2PS_VFIO_MAX_CAPS)
		abort();
	for (unsigned i = 0; i < c->n; i++)
		if ((uint64_t)c->caps[i].offset + 8 > len ||
		    (uint64_t)c->caps[i].offset + c->caps[i].len > len)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p2ps_vfio_region r;
	if (p2ps_vfio_region_parse(data, size, &r, NULL) == 0) {
		check_chain(&r.chain, size);
		if (r.n_areas > P2PS_VFIO_MAX_AREAS)
			abort();
		if (r.n_areas > r.sparse_nr_areas)
			abort();
	}
	struct p2ps_vfio_iommu_info io;
	if (p2ps_vfio_iommu_info_parse(data, size, &io, NULL) == 0) {
		check_chain(&io.chain, size);
		if (io.n_ranges > P2PS_VFIO_MAX_RANGES || io.n_ranges > io.nr_iovas)
			abort();
	}
	struct p2ps_vfio_device_info di;
	if (p2ps_vfio_device_info_parse(data, size, &di, NULL) == 0)
		check_chain(&di.chain, size);
	if (size >= 4) {
		uint32_t first;
		memcpy(&first, data, sizeof(first));
		struct p2ps_vfio_cap_chain c;
		p2ps_vfio_caps_walk(data, size, first % (uint32_t)(size + 16), 0, &c, NULL);
		check_chain(&c, size);
	}
	return 0;
}
