/* SPDX-License-Identifier: MIT */
/* Names and spellings of the analysis: topology classes and their legend, severities,
 * reason codes, IOMMU modes, verdicts, ACS bits and byte sizes. */
#include "analysis_internal.h"

#include <stdio.h>

/* names[v] when v is in the table, else fallback. The tables below are in enum order;
 * their length is checked against the enum's count or last value. */
static const char *name_at(const char *const *names, size_t n, unsigned v, const char *fallback)
{
	return v < n && names[v] ? names[v] : fallback;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *p2ps_topo_name(enum p2ps_topo t)
{
	static const char *const names[] = {NULL, "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"};
	_Static_assert(N_OF(names) == P2PS_TOPO_SYS + 1, "one name per class");
	return name_at(names, N_OF(names), (unsigned)t, "?");
}

const char *p2ps_topo_legend(enum p2ps_topo t)
{
	static const char *const legend[] = {
	        NULL,
	        "Self",
	        "Connection traversing a bonded set of # NVLinks",
	        "Connection traversing at most a single PCIe bridge",
	        "Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
	        "Bridge)",
	        "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
	        "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
	        "within a NUMA node",
	        "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
	        "(e.g., QPI/UPI)",
	};
	_Static_assert(N_OF(legend) == P2PS_TOPO_SYS + 1, "one legend line per class");
	return name_at(legend, N_OF(legend), (unsigned)t,
	               "Unknown: the PCI tree or NUMA facts needed are missing");
}

const char *p2ps_severity_name(enum p2ps_severity s)
{
	static const char *const names[] = {"blocker", "unknown", "warning", "info"};
	_Static_assert(N_OF(names) == P2PS_SEV_INFO + 1, "one name per severity");
	return name_at(names, N_OF(names), (unsigned)s, "?");
}

const char *p2ps_reason_code_name(enum p2ps_reason_code code)
{
	/* The JSON "code" of each finding, in enum p2ps_reason_code's order. */
	/* clang-format off */
	static const char *const names[] = {
	        "bar1_smaller_than_vram", "bar1_not_maximal", "bar1_unknown", "vram_unknown",
	        "bar_unassigned", "bar_exceeds_bridge_window", "iommu_translating", "iommu_blocked",
	        "iommu_unmanaged", "iommu_unknown", "acs_redirect", "acs_redirect_root_port",
	        "acs_unknown", "path_host_bridge", "path_cpu_interconnect", "topology_unknown",
	        "link_width_below_capability", "link_speed_below_capability", "link_slot_limit",
	        "link_unknown", "mixed_generations", "mixed_chips", "mixed_models",
	        "generation_unsupported", "chip_unknown", "nvlink", "driver", "driver_unknown",
	        "boot_vga", "driver_version_mismatch", "virtual_machine", "nccl_env", "needs_root",
	        "iommu_state", "nccl_p2p_level", "link_down"};
	/* clang-format on */
	_Static_assert(N_OF(names) == P2PS_R_CODE_COUNT, "one name per reason code");
	return name_at(names, N_OF(names), (unsigned)code, "?");
}

const char *p2ps_iommu_mode_name(enum p2ps_iommu_mode m)
{
	static const char *const names[] = {NULL,          "off",     "identity",
	                                    "translating", "blocked", "unmanaged"};
	_Static_assert(N_OF(names) == P2PS_IOMMU_UNMANAGED + 1, "one name per IOMMU mode");
	return name_at(names, N_OF(names), (unsigned)m, "unknown");
}

const char *p2ps_verdict_name(enum p2ps_verdict v)
{
	static const char *const names[] = {"ready", "not ready", "unknown"};
	_Static_assert(N_OF(names) == P2PS_VERDICT_UNKNOWN + 1, "one name per verdict");
	return name_at(names, N_OF(names), (unsigned)v, "?");
}

const char *p2ps_endpoint_prefix(const struct p2ps_analysis *a, size_t gi)
{
	return a && gi < a->n_gpus && !a->gpus[gi].is_gpu ? "DEV" : "GPU";
}

uint16_t p2ps_acs_redirect_bits(uint16_t ctl)
{
	return ctl & (P2PS_ACS_RR | P2PS_ACS_CR | P2PS_ACS_EC);
}

uint16_t p2ps_acs_ctl_without_redirect(uint16_t ctl)
{
	return ctl & (uint16_t) ~(P2PS_ACS_RR | P2PS_ACS_CR | P2PS_ACS_EC);
}

char *p2ps_acs_format(uint16_t reg, char *buf, size_t size)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} bits[] = {
	        {P2PS_ACS_SV, "SrcValid"},    {P2PS_ACS_TB, "TransBlk"},
	        {P2PS_ACS_RR, "ReqRedir"},    {P2PS_ACS_CR, "CmpltRedir"},
	        {P2PS_ACS_UF, "UpstreamFwd"}, {P2PS_ACS_EC, "EgressCtrl"},
	        {P2PS_ACS_DT, "DirectTrans"},
	};
	size_t off = 0;
	if (!size)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		int n = snprintf(buf + off, size - off, "%s%s%c", i ? " " : "", bits[i].name,
		                 (reg & bits[i].bit) ? '+' : '-');
		if (n < 0 || (size_t)n >= size - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

char *p2ps_size_format(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;
	uint64_t v = bytes;
	while (v >= 1024 && !(v % 1024) && u < 5) {
		v /= 1024;
		u++;
	}
	if (v < 1024 || u == 5) {
		snprintf(buf, size, "%llu %s", (unsigned long long)v, units[u]);
		return buf;
	}
	/* Not a whole number of the next unit: one decimal in the largest fitting unit. */
	double d = (double)bytes;
	u = 0;
	while (d >= 1024.0 && u < 5) {
		d /= 1024.0;
		u++;
	}
	snprintf(buf, size, "%.1f %s", d, units[u]);
	return buf;
}
