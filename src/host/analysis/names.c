/* SPDX-License-Identifier: MIT */
/* Names and spellings of the analysis: topology classes and their legend, severities,
 * reason codes, IOMMU modes, verdicts, ACS bits and byte sizes. */
#include "analysis_internal.h"

#include <stdio.h>
#include <string.h>

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

/* The reasons: each code's JSON "code" and the short title a summary of many hosts
 * (bar-inspect --fleet) groups it under, in enum p2ps_reason_code's order. */
static const struct {
	const char *name, *title;
} reasons[] = {
        {"bar1_smaller_than_vram", "BAR1 smaller than VRAM (Resizable BAR off or too small)"},
        {"bar1_not_maximal", "BAR1 below the largest Resizable BAR size"},
        {"bar1_unknown", "BAR1 size unknown"},
        {"vram_unknown", "VRAM size unknown"},
        {"bar_unassigned", "a BAR has no address"},
        {"bar_exceeds_bridge_window", "a BAR does not fit its bridge's window"},
        {"iommu_translating", "IOMMU translates peer DMA"},
        {"iommu_blocked", "IOMMU blocks DMA"},
        {"iommu_unmanaged", "IOMMU group owned by a VFIO user"},
        {"iommu_unknown", "IOMMU state unknown"},
        {"acs_redirect", "ACS redirects peer requests at a switch port"},
        {"acs_redirect_root_port", "ACS redirect on a root port"},
        {"acs_unknown", "ACS unreadable (not root)"},
        {"path_host_bridge", "peer traffic crosses the root complex"},
        {"path_cpu_interconnect", "peer traffic crosses the CPU interconnect"},
        {"topology_unknown", "PCI topology unknown"},
        {"link_width_below_capability", "link trained narrower than it can"},
        {"link_speed_below_capability", "link trained slower than it can"},
        {"link_slot_limit", "slot slower than the GPU"},
        {"link_unknown", "link unknown"},
        {"mixed_generations", "GPUs of different generations paired"},
        {"mixed_chips", "GPUs of different chips paired"},
        {"mixed_models", "GPUs of different models paired"},
        {"generation_unsupported", "GPU older than Turing"},
        {"chip_unknown", "chip not in bar-inspect's table"},
        {"nvlink", "peers share NVLink (the BAR1 path is moot)"},
        {"driver", "GPU not bound to nvidia"},
        {"driver_unknown", "driver unknown"},
        {"boot_vga", "GPU drives the boot display"},
        {"driver_version_mismatch", "loaded nvidia module differs from the installed one"},
        {"virtual_machine", "virtual machine: guest topology"},
        {"vm_p2p_clique", "virtual machine: the GPUs' P2P cliques"},
        {"nccl_env", "NCCL variable set"},
        {"needs_root", "facts need root"},
        {"iommu_state", "IOMMU mode"},
        {"nccl_p2p_level", "NCCL's P2P level and this path"},
        {"link_down", "a link is down"},
        {"gdr_path", "GPUDirect RDMA: the path between GPU and device"},
        {"gdr_peer_memory", "GPUDirect RDMA: nvidia-peermem or dma-buf"},
        {"gdr_driver_race", "GPUDirect RDMA: driver with the free-callback race"},
        {"gdr_bar1", "GPUDirect RDMA: BAR1 for pinned memory"},
        {"gdr_nccl", "whether NCCL uses GPUDirect RDMA"},
        {"static_bar1", "BAR1 short of the driver's static BAR1 rule"},
};
_Static_assert(N_OF(reasons) == P2PS_R_CODE_COUNT, "one row per reason code");

/* A paste's findings (paste_report.h), from P2PS_PF_DRIVER on. */
static const char *const paste_names[] = {
        "driver",
        "bar1_p2p_path",
        "peer_dma_unaligned",
        "driver_assert",
        "mmu_fault",
        "xid",
        "iommu_fault",
        "bar_unassignable",
        "rebar_ceiling",
        "bar1_vs_vram",
        "cuda_no_peer_access",
        "p2p_no_gain",
        "data_mismatch",
        "nvidia_p2p_status",
        "nvidia_topology",
        "disagreement",
        "capabilities_denied",
        "malformed_block",
        "no_gpu",
        "symptom",
        "nccl",
        "nccl_shm",
        "acs_redirect_unplaced",
        "not_understood",
        "p2p_works",
        "geforce_stock_driver",
        "p2p_latency",
        "gdr_disabled",
        "peer_memory",
        "release_defect",
        "release_ab",
};
_Static_assert(N_OF(paste_names) == P2PS_PF_CODE_END - P2PS_PF_DRIVER, "one name per code");

const char *p2ps_reason_code_name(enum p2ps_reason_code code)
{
	if ((unsigned)code < N_OF(reasons))
		return reasons[code].name;
	return name_at(paste_names, N_OF(paste_names), (unsigned)code - P2PS_PF_DRIVER, "?");
}

const char *p2ps_paste_finding_name(enum p2ps_reason_code c)
{
	return p2ps_reason_code_name(c); /* a paste finding may carry an analysis code too */
}

const char *p2ps_reason_code_title(enum p2ps_reason_code code)
{
	return (unsigned)code < N_OF(reasons) ? reasons[code].title : NULL;
}

const char *p2ps_reason_title(const char *name)
{
	for (size_t i = 0; name && i < N_OF(reasons); i++)
		if (!strcmp(reasons[i].name, name))
			return reasons[i].title;
	return NULL;
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
