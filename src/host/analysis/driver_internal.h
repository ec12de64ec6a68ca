/* SPDX-License-Identifier: MIT */
/* The driver model's tables (driver_tables.c), shared with its predicates. */
#ifndef P2PS_DRIVER_INTERNAL_H
#define P2PS_DRIVER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "p2pscope/driver_model.h"
#include "p2pscope/nvidia_chips.h"

/* Static BAR1 policy values (NV_REG_STR_RM_FORCE_STATIC_BAR1_*). */
enum p2ps_drv_sb {
	P2PS_SB_DISABLE = 0,
	P2PS_SB_ENABLE = 1,
	P2PS_SB_AUTO = 2,
	P2PS_SB_ONLY_GPU = 3,
	P2PS_SB_NONE = 4, /* 550: no policy key; kbusIsBar1P2PCapable decides */
};

/* How the AUTO policy sizes BAR1. */
enum p2ps_drv_auto {
	P2PS_AUTO_2X_FB = 0,     /* 565: BAR1 >= 2 x FB */
	P2PS_AUTO_RESERVES,      /* 570/575: FB + UserD + 128 KiB + console + mailbox */
	P2PS_AUTO_RESERVES_512M, /* 580+: the same plus padding to 512 MiB after console+mailbox */
	P2PS_AUTO_CLIENT_FLOOR,  /* aikitoria 580 (PRs #36/#41): client FB + ALIGN_UP(con+mbx, 512M)
	                          */
};

/* One driver series of one flavor. */
struct p2ps_drv_series {
	int series;
	enum p2ps_drv_flavor flavor;
	const char *tag; /* the tag or branch the row was read from */
	/* p2p_caps.c */
	bool c2c_path;          /* _kgetP2PCapsStatusOverC2C exists */
	bool chipset_init_gate; /* "!pCl->ChipsetInitialized" in _kp2pCapsGetStatusOverPcie */
	bool bar1_needs_force;  /* BAR1 path only with forceP2PType == BAR1P2P (550-570) */
	bool bar1_map_first;    /* BAR1: mapping check before the overrides (575+) */
	bool override_atomics;  /* ForceP2P has an atomics field (565+) */
	/* nvrm_registry.h RMForceP2PType values; 0 where the series has none */
	uint8_t ft_mailbox, ft_bar1, ft_pcie, ft_nvlink, ft_c2c;
	/* cpu.c: AMD families the driver calls RYZEN, as Linux "cpu family" values */
	bool amd_default_ryzen; /* 570+: an unknown AMD family is "assumed new Ryzen" */
	bool zen5_ryzen;        /* family 0x1A listed (570+) */
	/* static BAR1 (kern_bus_tu102.c kbusIsStaticBar1Supported, kern_bus_gm107.c) */
	enum p2ps_drv_sb sb_default;
	enum p2ps_drv_auto sb_auto;
	bool sb_start_512m; /* start = ALIGN_UP(console + mailbox, 512 MiB) (580+) */
	bool iommu_512m; /* _kbusCreateStaticBar1IOMMUMapping: peer DMA address 512 MiB aligned */
	bool pcie_type_key;   /* RMPcieP2PType exists (575+) */
	bool tail_reserve;    /* RMP2PFbTailReserveMb (aikitoria PR #41) */
	bool static_bar1_key; /* RMForceStaticBar1 exists (565+) */
	bool mailbox_bar1;    /* _kbusRequiresP2PMailboxBar1: mailbox space in BAR1 (570+) */
	/* BAR1 P2P mapping HAL (kbusIsPcieBar1P2PMappingSupported): oldest generation with it */
	enum p2ps_nv_generation bar1_hal_min;
	/* what a patch builds in */
	long patch_override;  /* p2pOverride set in _kbifInitRegistryOverrides; -1 none */
	long patch_force;     /* forceP2PType set there; -1 none */
	long patch_pcie_type; /* pcieP2PType set there; -1 none */
	bool patch_rebar;     /* nv_resize_pcie_bars without the EnableResizableBar check */
};

/* The row for (series, flavor): exact, else the nearest known series of that flavor (or
 * of stock when the flavor has no row that close); *exact says which. */
const struct p2ps_drv_series *p2ps_drv_series_find(int series, enum p2ps_drv_flavor f, bool *exact);
const struct p2ps_drv_series *p2ps_drv_series_table(size_t *n);
/* The P2P patch of a series: the patched flavor whose rows come nearest (tinygrad's
 * branches for 550-565, aikitoria's for 570 on). */
enum p2ps_drv_flavor p2ps_drv_patch_flavor(int series);

/* The CPU type platform/cpu.c derives from CPUID ("RYZEN", "XEON_SPR", "OTHER"), and
 * whether it is one _p2pCapsGetHostSystemStatusOverPcieBar1 lets read. */
const char *p2ps_drv_cpu_type(const struct p2ps_drv_series *s, const char *vendor, int family,
                              int model, bool *bar1_reads);

/* Root port of an Intel I/O hub whose P2P stops at the hub (_kp2pCapsGetStatusOverPcie). */
bool p2ps_drv_intel_ioh_port(uint16_t vendor, uint16_t device);

/* A switch clFindCommonDownstreamBR accepts (IS_SUPPORTED_PCIE_SWITCH). */
bool p2ps_drv_supported_switch(uint16_t vendor, uint16_t device);

/* Chips whose bus HAL sets PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT (GB20x). */
bool p2ps_drv_bar1_by_default(const struct p2ps_nvidia_chip *chip);

struct p2ps_pair;
/* One pair through p2pGetCapsStatus (driver_model.c); r holds the GPUs' static BAR1. */
void p2ps_drv_pair_model(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                         const struct p2ps_drv_report *r, const struct p2ps_pair *ap,
                         struct p2ps_drv_pair *out);

/* Persistent fixes for a pair's deciding gates (driver_fixes.c), into out->fix. */
void p2ps_drv_pair_fixes(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                         const struct p2ps_drv_report *r, struct p2ps_drv_pair *out);

/* The driver's CPU type needs the x86 vendor, family and model (platform/cpu.c). */
static inline bool p2ps_drv_cpu_known(const struct p2ps_host_cpu *c)
{
	return c->vendor[0] && c->family >= 0 && c->model >= 0;
}

#endif
