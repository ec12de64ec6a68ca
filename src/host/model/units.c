/* SPDX-License-Identifier: MIT */
/* Units of the model: PCIe link speeds and bandwidth, port-type names, ReBAR sizes. */
#include "host_internal.h"

#include <string.h>

double p2ps_link_speed_gts(uint8_t speed)
{
	static const double gts[] = {0.0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
	return speed < sizeof(gts) / sizeof(gts[0]) ? gts[speed] : 0.0;
}

double p2ps_link_gbps(const struct p2ps_link *link)
{
	if (!link || !link->width)
		return 0.0;
	double gts = p2ps_link_speed_gts(link->speed);
	/* Line-code efficiency per generation: 8b/10b (Gen1/2), 128b/130b (Gen3..5),
	 * FLIT mode with 236 payload bytes of each 256-byte flit at Gen6. */
	double eff = link->speed <= 2 ? 0.8 : link->speed <= 5 ? 128.0 / 130.0 : 236.0 / 256.0;
	return gts * eff * link->width / 8.0;
}

bool p2ps_link_is_down(const struct p2ps_pcie *e)
{
	return e && e->sta_source != P2PS_LINK_NONE && !e->sta.width;
}

uint8_t p2ps_link_speed_parse(const char *s)
{
	static const struct {
		const char *prefix;
		uint8_t code;
	} speeds[] = {{"2.5 GT/s", 1}, {"5.0 GT/s", 2},  {"5 GT/s", 2},  {"8.0 GT/s", 3},
	              {"8 GT/s", 3},   {"16.0 GT/s", 4}, {"16 GT/s", 4}, {"32.0 GT/s", 5},
	              {"32 GT/s", 5},  {"64.0 GT/s", 6}, {"64 GT/s", 6}};
	if (!s)
		return 0;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (!strncmp(s, speeds[i].prefix, strlen(speeds[i].prefix)))
			return speeds[i].code;
	return 0;
}

const char *p2ps_pcie_type_name(uint8_t port_type)
{
	switch (port_type) {
	case P2PS_PCIE_ENDPOINT: return "Endpoint";
	case P2PS_PCIE_LEGACY_ENDPOINT: return "Legacy Endpoint";
	case P2PS_PCIE_ROOT_PORT: return "Root Port";
	case P2PS_PCIE_SWITCH_UPSTREAM: return "Upstream Port";
	case P2PS_PCIE_SWITCH_DOWNSTREAM: return "Downstream Port";
	case P2PS_PCIE_PCIE_TO_PCI: return "PCI-Express to PCI/PCI-X Bridge";
	case P2PS_PCIE_PCI_TO_PCIE: return "PCI/PCI-X to PCI-Express Bridge";
	case P2PS_PCIE_RC_ENDPOINT: return "Root Complex Integrated Endpoint";
	case P2PS_PCIE_RC_EVENT_COLLECTOR: return "Root Complex Event Collector";
	default: return "Unknown type";
	}
}

uint64_t p2ps_rebar_size_bytes(uint8_t log2_mib)
{
	/* ReBAR sizes run from 1 MiB (index 0) to 2^43 MiB; beyond 2^63 bytes is nonsense. */
	if (log2_mib > 43)
		return 0;
	return (uint64_t)1 << (20 + log2_mib);
}
