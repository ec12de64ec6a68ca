/* SPDX-License-Identifier: MIT */
/* The driver model's own data, the same in every series it models: the CPU types, the
 * Intel I/O-hub root ports, the PCIe switches the driver accepts, the chips and boards that
 * can be self-hosted, the chipsets seen refused. Each names the function and the tags of
 * NVIDIA/open-gpu-kernel-modules it was read from. What differs between series is a row of
 * the driver table (src/gmmu/nvidia_drivers.c), and so are the bus HAL's chip lists (BAR1
 * HAL, BAR1 P2P by default, bBar1Disabled), which change with the series. */
#include <stdio.h>
#include <string.h>

#include "driver_internal.h"

/* platform/cpu.c: Intel family 6 model 143 is XEON_SPR (550.54.15 .. 595.45.04); AMD
 * "Family & 0xFF0" of 0x080 (Zen..Zen 2, Linux family 0x17) and 0x0A0 (Zen 3/4, 0x19) are
 * RYZEN in every series; 570+ list 0x0B0 (Zen 5, 0x1A) as well and assume RYZEN for any
 * other family above K11 ("Unrecognized AMD processor ... Assuming new Ryzen"): the row's
 * amd_default_ryzen; 550/565 call all those K8. The driver's Family is base + (extended << 4):
 * Linux's family f >= 15 has extended family f - 15. */
const char *p2ps_drv_cpu_type(const struct p2ps_nv_driver *s, const char *vendor, int family,
                              int model, bool *bar1_reads)
{
	*bar1_reads = false;
	if (!vendor || !vendor[0])
		return "UNKNOWN";
	if (!strcmp(vendor, "GenuineIntel")) {
		if (family == 6 && model == 143) {
			*bar1_reads = true;
			return "XEON_SPR";
		}
		return "INTEL_OTHER";
	}
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		if (family < 15)
			return "K7";
		int ext = family - 15;
		if (ext == 0)
			return "K8";
		if (ext == 1)
			return "K10";
		if (ext == 2)
			return "K11";
		bool ryzen = ext == 8 || ext == 10 || s->amd_default_ryzen;
		*bar1_reads = ryzen;
		return ryzen ? "RYZEN" : "K8";
	}
	return "OTHER";
}

/* _kp2pCapsGetStatusOverPcie (550.54.15 .. 595.45.04), nvdevid.h DEVICE_ID_INTEL_*_ROOT_PORT. */
static const struct {
	uint16_t first, last;
} ioh_ports[] = {
        {0x3408, 0x3411}, /* 5520/5500 (Tylersburg) */
        {0x3c02, 0x3c0b}, /* Xeon E5 (Sandy Bridge-EP) */
        {0x0e02, 0x0e0b}, /* Xeon E5 v2 (Ivy Bridge-EP) */
        {0x2f01, 0x2f0b}, /* Xeon E5 v3 (Haswell-EP) */
        {0x6f01, 0x6f0b}, /* Xeon E5 v4 (Broadwell-EP) */
        {0x3420, 0x3421}, /* 7500 (Boxboro) */
};

bool p2ps_drv_intel_ioh_port(uint16_t vendor, uint16_t device)
{
	if (vendor != 0x8086)
		return false;
	for (size_t i = 0; i < sizeof(ioh_ports) / sizeof(ioh_ports[0]); i++)
		if (device >= ioh_ports[i].first && device <= ioh_ports[i].last)
			return true;
	return false;
}

/* pcie_switch_ref.h IS_SUPPORTED_PCIE_SWITCH (595.45.04): NVIDIA BR03 (0x01b3) and BR04
 * (0x05b0..0x05bf), PLX 87xx/97xx, PMC-Sierra 85xx/40xx, Mellanox 0x1976. Broadcom's PEX
 * 88xxx/89xxx (vendor 0x1000) are not in it. */
bool p2ps_drv_supported_switch(uint16_t vendor, uint16_t device)
{
	switch (vendor) {
	case 0x10de: return device == 0x01b3 || (device >> 4) == (0x05b0 >> 4);
	case 0x10b5: return (device & 0xff00) == 0x8700 || (device & 0xff00) == 0x9700;
	case 0x11f8: return (device & 0xff00) == 0x8500 || (device & 0xff00) == 0x4000;
	case 0x15b3: return device == 0x1976;
	default: return false;
	}
}

/* g_gpu_nvoc.c gpuDetermineSelfHostedMode (615.71.09): the chips whose HAL can set
 * bIsSelfHosted (from GSP's static info bSelfHostedMode); every other chip has the stub and
 * is never self-hosted. 595.45.04 has the same list without GR100 and GR102. */
static const char *const self_hostable_chips[] = {"GH100", "GB100", "GB102", "GB110",
                                                  "GB112", "GR100", "GR102"};

/* Boards that are a Grace superchip's GPU, so self-hosted: README.md's supported-GPU list
 * (615.71.09): GH200 120GB/480GB 0x2342, GH200 144G HBM3e 0x2348, GB200 0x2941, GB300
 * 0x31C2 and 0x31C3. */
static const uint16_t superchip_boards[] = {0x2342, 0x2348, 0x2941, 0x31c2, 0x31c3};

enum p2ps_drv_tri p2ps_drv_self_hosted(const struct p2ps_dev *d, const struct p2ps_host_cpu *cpu,
                                       char *why, size_t n)
{
	if (!d->chip) {
		snprintf(why, n, "unknown: needs the chip of %s", d->bdf_str);
		return P2PS_DRV_UNKNOWN;
	}
	bool hal = false;
	for (size_t i = 0; i < sizeof(self_hostable_chips) / sizeof(self_hostable_chips[0]); i++)
		hal = hal || !strcmp(d->chip->gmmu.name, self_hostable_chips[i]);
	if (!hal) {
		snprintf(why, n, "%s is never self-hosted", d->chip->gmmu.name);
		return P2PS_DRV_NO;
	}
	for (size_t i = 0; i < sizeof(superchip_boards) / sizeof(superchip_boards[0]); i++)
		if (d->vendor_id == 0x10de && d->device_id == superchip_boards[i]) {
			snprintf(why, n, "%s (device %04x) is a Grace superchip's GPU: self-hosted",
			         d->bdf_str, d->device_id);
			return P2PS_DRV_YES;
		}
	/* Self-hosted mode is a GPU whose host is the Grace CPU it is coupled to (C2C): an
	 * Arm host. Any other CPU the snapshot names rules it out. */
	if (cpu->known && cpu->arch[0] && strcmp(cpu->arch, "arm64")) {
		snprintf(why, n, "%s: a %s host has no Grace CPU", d->bdf_str, cpu->arch);
		return P2PS_DRV_NO;
	}
	snprintf(why, n,
	         "unknown: whether %s (%s, device %04x) is self-hosted (a Grace superchip's GPU) "
	         "on %s",
	         d->bdf_str, d->chip->gmmu.name, d->device_id,
	         cpu->known ? "an Arm host" : "a host whose CPU is not known");
	return P2PS_DRV_UNKNOWN;
}

/* Host bridges (00:00.0) the CPU-side chipset check of 610+ finds not peer read/write
 * capable (chipset_pcie.c's table, matched on the host bridge, ends in "any: not
 * capable"). The table itself is not modelled: only bridges seen refused are listed. */
static const struct {
	uint16_t vendor, device;
	const char *name, *source;
} chipsets_not_capable[] = {
        {0x8086, 0x29c0, "QEMU q35",
         "noonghunna/club-3090 docs/PCIE_P2P.md (e8581033), read on 610.43.02-p2p; CNS "
         "observed in a 610.57.04 guest"},
};

enum p2ps_drv_tri p2ps_drv_chipset_capable(const struct p2ps_dev *hb, char *why, size_t n)
{
	if (!hb) {
		snprintf(why, n, "unknown: needs the host bridge (00:00.0)");
		return P2PS_DRV_UNKNOWN;
	}
	for (size_t i = 0; i < sizeof(chipsets_not_capable) / sizeof(chipsets_not_capable[0]); i++)
		if (hb->vendor_id == chipsets_not_capable[i].vendor &&
		    hb->device_id == chipsets_not_capable[i].device) {
			snprintf(why, n, "host bridge %04x:%04x (%s) not peer-capable",
			         hb->vendor_id, hb->device_id, chipsets_not_capable[i].name);
			return P2PS_DRV_NO;
		}
	snprintf(why, n,
	         "unknown: whether host bridge %04x:%04x is a peer read/write capable chipset "
	         "(the driver's chipset table is not modelled)",
	         hb->vendor_id, hb->device_id);
	return P2PS_DRV_UNKNOWN;
}

/* objClLoadPcieVirtualP2PApproval (chipset_pcie.c, 595.45.04): the hypervisor's virtual
 * P2P approval capability, a vendor-specific capability (id 0x09) whose signature is
 * 0x503250 ("P2P": bits 31:24 of its first dword, 15:0 of its second), version 0 (18:16),
 * peer clique id in bits 22:19 of the second dword. -1: none, -2: config not readable. */
int p2ps_drv_p2p_clique(const struct p2ps_dev *d)
{
	if (d->config_len < 256)
		return -2;
	const uint8_t *c = d->config;
	unsigned cap = c[0x34], guard = 0;
	while (cap >= 0x40 && cap <= 0xf8 && guard++ < 48) {
		uint32_t w0 = (uint32_t)c[cap] | (uint32_t)c[cap + 1] << 8 |
		              (uint32_t)c[cap + 2] << 16 | (uint32_t)c[cap + 3] << 24;
		uint32_t w1 = (uint32_t)c[cap + 4] | (uint32_t)c[cap + 5] << 8 |
		              (uint32_t)c[cap + 6] << 16 | (uint32_t)c[cap + 7] << 24;
		if ((w0 & 0xff) == 0x09 && ((w0 >> 24) | (w1 & 0xffff) << 8) == 0x503250)
			return ((w1 >> 16) & 7) ? -1 : (int)((w1 >> 19) & 0xf);
		cap = (w0 >> 8) & 0xff;
	}
	return -1;
}
