/* SPDX-License-Identifier: MIT */
/* The driver model's data: one row per driver series and flavor, the CPU types, the
 * Intel I/O-hub root ports, the PCIe switches the driver accepts, and the names and
 * sources of statuses, paths and gates. Every row names the function and the tag of
 * NVIDIA/open-gpu-kernel-modules (or the patch branch) it was read from. */
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"

#define NA (-1L)

/* Columns: series, flavor, tag,
 *   c2c_path, chipset_init_gate, bar1_needs_force, bar1_map_first, override_atomics,
 *   RMForceP2PType values (mailbox, bar1, pcie, nvlink, c2c),
 *   amd_default_ryzen, zen5_ryzen,
 *   static BAR1 default policy, AUTO rule, start 512 MiB, IOMMU 512 MiB check,
 *   RMPcieP2PType, tail reserve key, RMForceStaticBar1 key, P2P mailbox in BAR1,
 *   BAR1 mapping HAL from,
 *   patch override, patch force type, patch PCIe type, patch ReBAR.
 * Sources, per column group (all in src/nvidia):
 *   p2p_caps.c p2pGetCapsStatus, _kp2pCapsGetStatusOverPcie, _kp2pCapsGetStatusOverPcieBar1,
 *     _kgetP2PCapsStatusOverC2C, _kp2pCapsCheckStatusOverridesForPcie;
 *   interface/nvrm_registry.h NV_REG_STR_RM_FORCE_P2P_TYPE_*, NV_REG_STR_RM_PCIEP2P_TYPE_*,
 *     NV_REG_STR_RM_FORCE_STATIC_BAR1_DEFAULT, NV_REG_STR_RM_FORCE_STATIC_BAR1 (from
 *     565.57.01; not in 560.35.03); kernel/gpu/bus/kern_bus.c (580+: AUTO when unset);
 *   platform/cpu.c cpuidInfoAMD (RYZEN cases and default), cpuidInfoIntel (model 143);
 *   gpu/bus/arch/turing/kern_bus_tu102.c kbusIsStaticBar1Supported_TU102 (565+),
 *     gpu/bus/arch/hopper/kern_bus_gh100.c kbusIsBar1P2PCapable_GH100 (550),
 *     gpu/bus/arch/maxwell/kern_bus_gm107.c kbusInitBar1_GM107 (start offset),
 *     _kbusRequiresP2PMailboxBar1_GM107 (mailbox space in BAR1; from 570.86.15, not in
 *     565.57.01),
 *     kern_bus_gh100.c _kbusCreateStaticBar1IOMMUMapping (575+);
 *   generated/g_kern_bus_nvoc.c kbusIsPcieBar1P2PMappingSupported (GH100 HAL: Hopper and
 *     Blackwell in stock; every chip in the patches);
 *   patches: gpu/bif/kernel_bif.c _kbifInitRegistryOverrides (p2pOverride = 0x11,
 *     forceP2PType = BAR1P2P), kernel-open/nvidia/nv-pci.c nv_resize_pcie_bars. */
static const struct p2ps_drv_series series[] = {
        {.series = 550,
         .flavor = P2PS_DF_STOCK,
         .tag = "550.54.15",
         .c2c_path = false,
         .chipset_init_gate = false,
         .bar1_needs_force = true,
         .bar1_map_first = false,
         .override_atomics = false,
         .ft_mailbox = 1,
         .ft_bar1 = 2,
         .ft_pcie = 0,
         .ft_nvlink = 3,
         .ft_c2c = 4,
         .amd_default_ryzen = false,
         .zen5_ryzen = false,
         .sb_default = P2PS_SB_NONE,
         .sb_auto = P2PS_AUTO_2X_FB,
         .sb_start_512m = false,
         .iommu_512m = false,
         .pcie_type_key = false,
         .tail_reserve = false,
         .static_bar1_key = false,
         .mailbox_bar1 = false,
         .bar1_hal_min = P2PS_NV_GEN_HOPPER,
         .patch_override = NA,
         .patch_force = NA,
         .patch_pcie_type = NA,
         .patch_rebar = false},
        {.series = 565,
         .flavor = P2PS_DF_STOCK,
         .tag = "565.57.01",
         .c2c_path = false,
         .chipset_init_gate = true,
         .bar1_needs_force = true,
         .bar1_map_first = false,
         .override_atomics = true,
         .ft_mailbox = 1,
         .ft_bar1 = 2,
         .ft_pcie = 0,
         .ft_nvlink = 3,
         .ft_c2c = 4,
         .amd_default_ryzen = false,
         .zen5_ryzen = false,
         .sb_default = P2PS_SB_ONLY_GPU,
         .sb_auto = P2PS_AUTO_2X_FB,
         .sb_start_512m = false,
         .iommu_512m = false,
         .pcie_type_key = false,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = false,
         .bar1_hal_min = P2PS_NV_GEN_HOPPER,
         .patch_override = NA,
         .patch_force = NA,
         .patch_pcie_type = NA,
         .patch_rebar = false},
        {.series = 570,
         .flavor = P2PS_DF_STOCK,
         .tag = "570.86.15",
         .c2c_path = false,
         .chipset_init_gate = true,
         .bar1_needs_force = true,
         .bar1_map_first = false,
         .override_atomics = true,
         .ft_mailbox = 1,
         .ft_bar1 = 2,
         .ft_pcie = 0,
         .ft_nvlink = 3,
         .ft_c2c = 4,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_ONLY_GPU,
         .sb_auto = P2PS_AUTO_RESERVES,
         .sb_start_512m = false,
         .iommu_512m = false,
         .pcie_type_key = false,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_HOPPER,
         .patch_override = NA,
         .patch_force = NA,
         .patch_pcie_type = NA,
         .patch_rebar = false},
        {.series = 575,
         .flavor = P2PS_DF_STOCK,
         .tag = "575.51.02",
         .c2c_path = false,
         .chipset_init_gate = true,
         .bar1_needs_force = false,
         .bar1_map_first = true,
         .override_atomics = true,
         .ft_mailbox = 0,
         .ft_bar1 = 0,
         .ft_pcie = 1,
         .ft_nvlink = 2,
         .ft_c2c = 3,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_DISABLE,
         .sb_auto = P2PS_AUTO_RESERVES,
         .sb_start_512m = false,
         .iommu_512m = true,
         .pcie_type_key = true,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_HOPPER,
         .patch_override = NA,
         .patch_force = NA,
         .patch_pcie_type = NA,
         .patch_rebar = false},
        {.series = 580,
         .flavor = P2PS_DF_STOCK,
         .tag = "580.65.06",
         .c2c_path = true,
         .chipset_init_gate = true,
         .bar1_needs_force = false,
         .bar1_map_first = true,
         .override_atomics = true,
         .ft_mailbox = 0,
         .ft_bar1 = 0,
         .ft_pcie = 1,
         .ft_nvlink = 2,
         .ft_c2c = 3,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_AUTO,
         .sb_auto = P2PS_AUTO_RESERVES_512M,
         .sb_start_512m = true,
         .iommu_512m = true,
         .pcie_type_key = true,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_HOPPER,
         .patch_override = NA,
         .patch_force = NA,
         .patch_pcie_type = NA,
         .patch_rebar = false},
        {.series = 590,
         .flavor = P2PS_DF_STOCK,
         .tag = "590.44.01",
         .c2c_path = true,
         .chipset_init_gate = true,
         .bar1_needs_force = false,
         .bar1_map_first = true,
         .override_atomics = true,
         .ft_mailbox = 0,
         .ft_bar1 = 0,
         .ft_pcie = 1,
         .ft_nvlink = 2,
         .ft_c2c = 3,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_AUTO,
         .sb_auto = P2PS_AUTO_RESERVES_512M,
         .sb_start_512m = true,
         .iommu_512m = true,
         .pcie_type_key = true,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_HOPPER,
         .patch_override = NA,
         .patch_force = NA,
         .patch_pcie_type = NA,
         .patch_rebar = false},
        {.series = 595,
         .flavor = P2PS_DF_STOCK,
         .tag = "595.45.04",
         .c2c_path = true,
         .chipset_init_gate = true,
         .bar1_needs_force = false,
         .bar1_map_first = true,
         .override_atomics = true,
         .ft_mailbox = 0,
         .ft_bar1 = 0,
         .ft_pcie = 1,
         .ft_nvlink = 2,
         .ft_c2c = 3,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_AUTO,
         .sb_auto = P2PS_AUTO_RESERVES_512M,
         .sb_start_512m = true,
         .iommu_512m = true,
         .pcie_type_key = true,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_HOPPER,
         .patch_override = NA,
         .patch_force = NA,
         .patch_pcie_type = NA,
         .patch_rebar = false},
        /* tinygrad 550.54.15-p2p, 565.57.01-p2p: p2pOverride 0x11, forceP2PType BAR1P2P (2),
         * the GH100 BAR1 HAL for every chip, ReBAR resize without the module parameter. */
        {.series = 550,
         .flavor = P2PS_DF_TINYGRAD,
         .tag = "tinygrad 550.54.15-p2p",
         .c2c_path = false,
         .chipset_init_gate = false,
         .bar1_needs_force = true,
         .bar1_map_first = false,
         .override_atomics = false,
         .ft_mailbox = 1,
         .ft_bar1 = 2,
         .ft_pcie = 0,
         .ft_nvlink = 3,
         .ft_c2c = 4,
         .amd_default_ryzen = false,
         .zen5_ryzen = false,
         .sb_default = P2PS_SB_NONE,
         .sb_auto = P2PS_AUTO_2X_FB,
         .sb_start_512m = false,
         .iommu_512m = false,
         .pcie_type_key = false,
         .tail_reserve = false,
         .static_bar1_key = false,
         .mailbox_bar1 = false,
         .bar1_hal_min = P2PS_NV_GEN_TURING,
         .patch_override = 0x11,
         .patch_force = 2,
         .patch_pcie_type = NA,
         .patch_rebar = true},
        {.series = 565,
         .flavor = P2PS_DF_TINYGRAD,
         .tag = "tinygrad 565.57.01-p2p",
         .c2c_path = false,
         .chipset_init_gate = true,
         .bar1_needs_force = true,
         .bar1_map_first = false,
         .override_atomics = true,
         .ft_mailbox = 1,
         .ft_bar1 = 2,
         .ft_pcie = 0,
         .ft_nvlink = 3,
         .ft_c2c = 4,
         .amd_default_ryzen = false,
         .zen5_ryzen = false,
         .sb_default = P2PS_SB_ONLY_GPU,
         .sb_auto = P2PS_AUTO_2X_FB,
         .sb_start_512m = false,
         .iommu_512m = false,
         .pcie_type_key = false,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = false,
         .bar1_hal_min = P2PS_NV_GEN_TURING,
         .patch_override = 0x11,
         .patch_force = 2,
         .patch_pcie_type = NA,
         .patch_rebar = true},
        /* aikitoria 570.86.16-p2p: the same patch on 570. The 575/580 ports (branches not in
         * the mirror; PRs #31 #34 #36 #41) keep p2pOverride 0x11, ask for BAR1 P2P through
         * RMPcieP2PType (1) and size static BAR1 as client FB + ALIGN_UP(console + mailbox,
         * 512 MiB), with RMP2PFbTailReserveMb (PR #41) to trim the shortfall. */
        {.series = 570,
         .flavor = P2PS_DF_AIKITORIA,
         .tag = "aikitoria 570.86.16-p2p",
         .c2c_path = false,
         .chipset_init_gate = true,
         .bar1_needs_force = true,
         .bar1_map_first = false,
         .override_atomics = true,
         .ft_mailbox = 1,
         .ft_bar1 = 2,
         .ft_pcie = 0,
         .ft_nvlink = 3,
         .ft_c2c = 4,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_ONLY_GPU,
         .sb_auto = P2PS_AUTO_RESERVES,
         .sb_start_512m = false,
         .iommu_512m = false,
         .pcie_type_key = false,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_TURING,
         .patch_override = 0x11,
         .patch_force = 2,
         .patch_pcie_type = NA,
         .patch_rebar = true},
        {.series = 575,
         .flavor = P2PS_DF_AIKITORIA,
         .tag = "aikitoria 575 port (PR #31)",
         .c2c_path = false,
         .chipset_init_gate = true,
         .bar1_needs_force = false,
         .bar1_map_first = true,
         .override_atomics = true,
         .ft_mailbox = 0,
         .ft_bar1 = 0,
         .ft_pcie = 1,
         .ft_nvlink = 2,
         .ft_c2c = 3,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_AUTO,
         .sb_auto = P2PS_AUTO_CLIENT_FLOOR,
         .sb_start_512m = false,
         .iommu_512m = true,
         .pcie_type_key = true,
         .tail_reserve = false,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_TURING,
         .patch_override = 0x11,
         .patch_force = NA,
         .patch_pcie_type = 1,
         .patch_rebar = true},
        {.series = 580,
         .flavor = P2PS_DF_AIKITORIA,
         .tag = "aikitoria 580 port (PRs #34 #36 #41)",
         .c2c_path = true,
         .chipset_init_gate = true,
         .bar1_needs_force = false,
         .bar1_map_first = true,
         .override_atomics = true,
         .ft_mailbox = 0,
         .ft_bar1 = 0,
         .ft_pcie = 1,
         .ft_nvlink = 2,
         .ft_c2c = 3,
         .amd_default_ryzen = true,
         .zen5_ryzen = true,
         .sb_default = P2PS_SB_AUTO,
         .sb_auto = P2PS_AUTO_CLIENT_FLOOR,
         .sb_start_512m = true,
         .iommu_512m = true,
         .pcie_type_key = true,
         .tail_reserve = true,
         .static_bar1_key = true,
         .mailbox_bar1 = true,
         .bar1_hal_min = P2PS_NV_GEN_TURING,
         .patch_override = 0x11,
         .patch_force = NA,
         .patch_pcie_type = 1,
         .patch_rebar = true},
};

const struct p2ps_drv_series *p2ps_drv_series_table(size_t *n)
{
	*n = sizeof(series) / sizeof(series[0]);
	return series;
}

enum p2ps_drv_flavor p2ps_drv_patch_flavor(int want)
{
	const struct p2ps_drv_series *best = NULL;
	for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		const struct p2ps_drv_series *r = &series[i];
		if (r->flavor != P2PS_DF_STOCK &&
		    (!best || abs(r->series - want) < abs(best->series - want)))
			best = r;
	}
	return best ? best->flavor : P2PS_DF_TINYGRAD;
}

/* The newest row of flavor f not newer than want (a newer series inherits the last
 * known rules), else the oldest row of f. */
static const struct p2ps_drv_series *nearest(int want, enum p2ps_drv_flavor f)
{
	const struct p2ps_drv_series *below = NULL, *oldest = NULL;
	for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		const struct p2ps_drv_series *r = &series[i];
		if (r->flavor != f)
			continue;
		if (r->series <= want && (!below || r->series > below->series))
			below = r;
		if (!oldest || r->series < oldest->series)
			oldest = r;
	}
	return below ? below : oldest;
}

const struct p2ps_drv_series *p2ps_drv_series_find(int want, enum p2ps_drv_flavor f, bool *exact)
{
	const struct p2ps_drv_series *s = nearest(want, f);
	*exact = s && s->series == want;
	return s ? s : nearest(want, P2PS_DF_STOCK);
}

/* platform/cpu.c: Intel family 6 model 143 is XEON_SPR (550.54.15 .. 595.45.04); AMD
 * "Family & 0xFF0" of 0x080 (Zen..Zen 2, Linux family 0x17) and 0x0A0 (Zen 3/4, 0x19) are
 * RYZEN in every series; 0x0B0 (Zen 5, 0x1A) from 570; 570+ assume RYZEN for any other
 * family above K11 ("Unrecognized AMD processor ... Assuming new Ryzen"); 550/565 call
 * those K8. The driver's Family is base + (extended << 4): Linux's family f >= 15 has
 * extended family f - 15. */
const char *p2ps_drv_cpu_type(const struct p2ps_drv_series *s, const char *vendor, int family,
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
		bool ryzen = ext == 8 || ext == 10 || (ext == 11 && s->zen5_ryzen) ||
		             s->amd_default_ryzen;
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

/* g_kern_bus_nvoc.c PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT: GB202 GB203 GB205 GB206
 * GB207 GB20B GB20C (590.44.01, 595.45.04). */
bool p2ps_drv_bar1_by_default(const struct p2ps_nvidia_chip *chip)
{
	return chip && chip->arch && !strcmp(chip->arch, "gb20x");
}

static const char *const status_code[] = {"OK", "CNS", "GNS", "TNS", "DR", "NS", "U"};
static const char *const status_name[] = {"OK",
                                          "CHIPSET_NOT_SUPPORTED",
                                          "GPU_NOT_SUPPORTED",
                                          "IOH_TOPOLOGY_NOT_SUPPORTED",
                                          "DISABLED_BY_REGKEY",
                                          "NOT_SUPPORTED",
                                          "UNKNOWN"};

const char *p2ps_drv_status_code(enum p2ps_drv_status s)
{
	return (unsigned)s <= P2PS_DS_U ? status_code[s] : "U";
}

const char *p2ps_drv_status_name(enum p2ps_drv_status s)
{
	return (unsigned)s <= P2PS_DS_U ? status_name[s] : "UNKNOWN";
}

int p2ps_drv_status_parse(const char *s)
{
	for (int i = 0; i <= P2PS_DS_U; i++)
		if (!strcmp(s, status_code[i]) || !strcmp(s, status_name[i]))
			return i;
	if (!strcmp(s, "IOH"))
		return P2PS_DS_IOH;
	return -1;
}

static const char *const path_names[] = {"c2c",          "nvlink",    "nvlink_indirect",
                                         "pcie_mailbox", "pcie_bar1", "none"};

const char *p2ps_drv_path_name(enum p2ps_drv_path p)
{
	return (unsigned)p <= P2PS_DP_NONE ? path_names[p] : "none";
}

static const char *const flavor_names[] = {"stock", "tinygrad", "aikitoria"};

const char *p2ps_drv_flavor_name(enum p2ps_drv_flavor f)
{
	return (unsigned)f < P2PS_DF_COUNT ? flavor_names[f] : "?";
}

#define CAPS "p2p_caps.c "
static const struct {
	const char *name;
	const char *source;
} gates[] = {
        {"none", ""},
        {"mig", CAPS "p2pGetCapsStatus (kmigmgrIsMIGNvlinkP2PSupported), 550.54.15..595.45.04"},
        {"force_p2p_type", CAPS "_kgetP2PCapsStatusOverC2C/_gpumgrGetP2PCapsStatusOverNvLink/"
                                "_kp2pCapsGetStatusOverPcieBar1 (forceP2PType), 595.45.04"},
        {"no_c2c", CAPS "_kgetP2PCapsStatusOverC2C (kbifIsC2CP2PSupported), 580.65.06+"},
        {"no_nvlink", CAPS "_gpumgrGetP2PCapsStatusOverNvLink (knvlinkIsNvlinkP2pSupported)"},
        {"nvswitch", CAPS "p2pGetCapsStatus (NVSwitch present: no PCIe fallback), 595.45.04"},
        {"p2p_override", CAPS "_kp2pCapsCheckStatusOverridesForPcie (ForceP2P / p2pOverride)"},
        {"hypervisor", CAPS "_kp2pCapsGetStatusOverPcie (hypervisorPcieP2pDetection)"},
        {"chipset_init", CAPS "_kp2pCapsGetStatusOverPcie (!ChipsetInitialized), 565.57.01+"},
        {"ioh_topology", CAPS "_kp2pCapsGetStatusOverPcie (Intel IOH root ports), 550.54.15+"},
        {"gpu_compat", CAPS "areGpusP2PCompatible (arch, impl, mobile)"},
        {"gsp", CAPS "_kp2pCapsGetStatusOverPcie (NV2080_CTRL_CMD_INTERNAL_GET_PCIE_P2P_CAPS: "
                     "GSP firmware, not in the open source)"},
        {"gpu_disabled", CAPS "_kp2pCapsGetStatusOverPcie (PDB_PROP_KBIF_P2P_*_DISABLED)"},
        {"mailbox_atomics", CAPS "_kp2pCapsGetStatusOverPcie (atomics never over mailbox)"},
        {"pcie_p2p_type", CAPS "_kp2pCapsGetStatusOverPcieBar1 (RMForceP2PType BAR1P2P <= "
                               "570; RMPcieP2PType BAR1/AUTO 575.51.02+)"},
        {"bar1_hal", "g_kern_bus_nvoc.c kbusIsPcieBar1P2PMappingSupported (GH100 HAL only)"},
        {"bar1_by_default", "kern_bus_gh100.c kbusIsPcieBar1P2PMappingSupported_GH100 "
                            "(PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT)"},
        {"static_bar1", "kern_bus_gh100.c kbusIsPcieBar1P2PMappingSupported_GH100 "
                        "(kbusIsStaticBar1Enabled on both GPUs)"},
        {"host_read", CAPS "_p2pCapsGetHostSystemStatusOverPcieBar1 (common switch, RYZEN, "
                           "XEON_SPR)"},
        {"bar1_atomics", CAPS "_p2pCapsGetPcieToplogySupportForBar1Atomics (not implemented)"},
        {"unknown_fact", "a fact the gate needs is missing"},
};
_Static_assert(sizeof(gates) / sizeof(gates[0]) == P2PS_DG_COUNT, "a gate without a name");

const char *p2ps_drv_gate_name(enum p2ps_drv_gate g)
{
	return (unsigned)g < P2PS_DG_COUNT ? gates[g].name : "?";
}

const char *p2ps_drv_gate_source(enum p2ps_drv_gate g)
{
	return (unsigned)g < P2PS_DG_COUNT ? gates[g].source : "";
}
