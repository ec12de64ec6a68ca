/* Names and spellings of the analysis: topology classes and their legend, severities,
 * reason codes, IOMMU modes, verdicts, ACS bits and byte sizes. */
#include "analysis_internal.h"

#include <stdio.h>

const char *p2ps_topo_name(enum p2ps_topo t)
{
	switch (t) {
	case P2PS_TOPO_X: return "X";
	case P2PS_TOPO_NV: return "NV";
	case P2PS_TOPO_PIX: return "PIX";
	case P2PS_TOPO_PXB: return "PXB";
	case P2PS_TOPO_PHB: return "PHB";
	case P2PS_TOPO_NODE: return "NODE";
	case P2PS_TOPO_SYS: return "SYS";
	case P2PS_TOPO_UNKNOWN: break;
	}
	return "?";
}

const char *p2ps_topo_legend(enum p2ps_topo t)
{
	switch (t) {
	case P2PS_TOPO_X: return "Self";
	case P2PS_TOPO_SYS:
		return "Connection traversing PCIe as well as the SMP interconnect between NUMA "
		       "nodes (e.g., QPI/UPI)";
	case P2PS_TOPO_NODE:
		return "Connection traversing PCIe as well as the interconnect between PCIe Host "
		       "Bridges within a NUMA node";
	case P2PS_TOPO_PHB:
		return "Connection traversing PCIe as well as a PCIe Host Bridge (typically the "
		       "CPU)";
	case P2PS_TOPO_PXB:
		return "Connection traversing multiple PCIe bridges (without traversing the PCIe "
		       "Host Bridge)";
	case P2PS_TOPO_PIX: return "Connection traversing at most a single PCIe bridge";
	case P2PS_TOPO_NV: return "Connection traversing a bonded set of # NVLinks";
	case P2PS_TOPO_UNKNOWN: break;
	}
	return "Unknown: the PCI tree or NUMA facts needed are missing";
}

const char *p2ps_severity_name(enum p2ps_severity s)
{
	switch (s) {
	case P2PS_SEV_BLOCKER: return "blocker";
	case P2PS_SEV_UNKNOWN: return "unknown";
	case P2PS_SEV_WARNING: return "warning";
	case P2PS_SEV_INFO: return "info";
	}
	return "?";
}

const char *p2ps_reason_code_name(enum p2ps_reason_code code)
{
	static const char *const names[P2PS_R_CODE_COUNT] = {
	        [P2PS_R_BAR1_SMALLER_THAN_VRAM] = "bar1_smaller_than_vram",
	        [P2PS_R_BAR1_NOT_MAXIMAL] = "bar1_not_maximal",
	        [P2PS_R_BAR1_UNKNOWN] = "bar1_unknown",
	        [P2PS_R_VRAM_UNKNOWN] = "vram_unknown",
	        [P2PS_R_BAR_UNASSIGNED] = "bar_unassigned",
	        [P2PS_R_BAR_EXCEEDS_WINDOW] = "bar_exceeds_bridge_window",
	        [P2PS_R_IOMMU_TRANSLATING] = "iommu_translating",
	        [P2PS_R_IOMMU_BLOCKED] = "iommu_blocked",
	        [P2PS_R_IOMMU_UNMANAGED] = "iommu_unmanaged",
	        [P2PS_R_IOMMU_UNKNOWN] = "iommu_unknown",
	        [P2PS_R_ACS_REDIRECT] = "acs_redirect",
	        [P2PS_R_ACS_REDIRECT_ROOT] = "acs_redirect_root_port",
	        [P2PS_R_ACS_UNKNOWN] = "acs_unknown",
	        [P2PS_R_PATH_HOST_BRIDGE] = "path_host_bridge",
	        [P2PS_R_PATH_CPU_INTERCONNECT] = "path_cpu_interconnect",
	        [P2PS_R_TOPOLOGY_UNKNOWN] = "topology_unknown",
	        [P2PS_R_LINK_WIDTH_DOWN] = "link_width_below_capability",
	        [P2PS_R_LINK_SPEED_DOWN] = "link_speed_below_capability",
	        [P2PS_R_LINK_SLOT_LIMIT] = "link_slot_limit",
	        [P2PS_R_LINK_UNKNOWN] = "link_unknown",
	        [P2PS_R_MIXED_GENERATIONS] = "mixed_generations",
	        [P2PS_R_MIXED_CHIPS] = "mixed_chips",
	        [P2PS_R_MIXED_MODELS] = "mixed_models",
	        [P2PS_R_GENERATION_UNSUPPORTED] = "generation_unsupported",
	        [P2PS_R_CHIP_UNKNOWN] = "chip_unknown",
	        [P2PS_R_NVLINK] = "nvlink",
	        [P2PS_R_DRIVER] = "driver",
	        [P2PS_R_DRIVER_UNKNOWN] = "driver_unknown",
	        [P2PS_R_BOOT_VGA] = "boot_vga",
	        [P2PS_R_DRIVER_VERSION_MISMATCH] = "driver_version_mismatch",
	        [P2PS_R_VM] = "virtual_machine",
	        [P2PS_R_NCCL_ENV] = "nccl_env",
	        [P2PS_R_NEEDS_ROOT] = "needs_root",
	        [P2PS_R_IOMMU_STATE] = "iommu_state",
	        [P2PS_R_NCCL_LEVEL] = "nccl_p2p_level",
	};
	if ((int)code < 0 || code >= P2PS_R_CODE_COUNT || !names[code])
		return "?";
	return names[code];
}

const char *p2ps_iommu_mode_name(enum p2ps_iommu_mode m)
{
	switch (m) {
	case P2PS_IOMMU_OFF: return "off";
	case P2PS_IOMMU_IDENTITY: return "identity";
	case P2PS_IOMMU_TRANSLATING: return "translating";
	case P2PS_IOMMU_BLOCKED: return "blocked";
	case P2PS_IOMMU_UNMANAGED: return "unmanaged";
	case P2PS_IOMMU_UNKNOWN: break;
	}
	return "unknown";
}

const char *p2ps_verdict_name(enum p2ps_verdict v)
{
	switch (v) {
	case P2PS_VERDICT_READY: return "ready";
	case P2PS_VERDICT_NOT_READY: return "not ready";
	case P2PS_VERDICT_UNKNOWN: return "unknown";
	}
	return "?";
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
