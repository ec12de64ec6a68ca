/* SPDX-License-Identifier: MIT */
/* p2pscope: the one NVIDIA driver table — every fact the tools key by driver series and
 * flavor, in one row, beside the chip table (nvidia_chips.h).
 *
 * A row is one (series, flavor): NVIDIA's open kernel modules as tagged ("stock") or a P2P
 * fork of them (tinygrad's and aikitoria's branches). It names the tags it was read from and
 * holds what every tool needs of that driver:
 *   - the switches of its P2P decision (p2p_caps.c, the registry keys, cpu.c, the static
 *     BAR1 rules of kern_bus_*.c, what a patch builds in), read by bar-inspect's driver
 *     model (src/host/analysis/driver_*.c);
 *   - its RM API struct layouts (the sizes that differ between series and the era of its
 *     control-field layouts), read by the RM client (src/rm);
 *   - the era of its BAR1-P2P entries (which rows of src/gmmu/bar1_rows.c apply), read by
 *     pte-decode and pte-probe;
 *   - the optional gates it has, and the sources (file and function per column group).
 * Beside the rows: the vocabulary every library shares (flavors, the driver's P2P statuses,
 * caps indices and connectivity paths, the gates), the one version parser, the known
 * defects by version, and the one fallback rule for a series without a row.
 *
 * A new series is one row in src/gmmu/nvidia_drivers.c plus the RM facts of its tag
 * (scripts/rm-derive-offsets.sh); ctest driver_new_series proves that nothing else changes.
 * The table lives in libgmmu (no allocation, no dependencies) so that every library can
 * read it: libgmmu's BAR1 rows, the RM client, the analysis, the tools.
 */
#ifndef P2PSCOPE_NVIDIA_DRIVERS_H
#define P2PSCOPE_NVIDIA_DRIVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- flavors ---------------------------------------------------------------------------- */

/* Whose modules: NVIDIA's, or a fork. A fork of a fork names its parent, whose rows model
 * it until it has rows of its own. */
enum p2ps_nv_flavor {
	P2PS_NV_FLAVOR_STOCK = 0, /* NVIDIA/open-gpu-kernel-modules as tagged */
	P2PS_NV_FLAVOR_TINYGRAD,  /* tinygrad/open-gpu-kernel-modules *-p2p branches */
	P2PS_NV_FLAVOR_AIKITORIA, /* aikitoria/open-gpu-kernel-modules *-p2p branches and ports */
	/* Duanyll/open-gpu-kernel-modules *-p2p-48g ("Method 3") and its descendants
	 * (LingzheZhao's 610.57.04-p2p-48g): aikitoria's ports with peer BAR1 windows mapped
	 * per allocation where BAR1 is smaller than VRAM */
	P2PS_NV_FLAVOR_DUANYLL,
	P2PS_NV_FLAVOR_COUNT,
};

/* What a fork does beyond NVIDIA's modules, as bits of a flavor's props. */
enum p2ps_nv_flavor_prop {
	P2PS_NV_FP_BAR1_ON_DEMAND = 1u << 0, /* maps peer BAR1 windows per mapping, on demand */
	P2PS_NV_FP_DISPLAY_PARTIAL_BAR1 = 1u << 1, /* a partial BAR1 window for a display GPU */
	P2PS_NV_FP_LIBCUDA_MIXED_GEN = 1u << 2,    /* ships a libcuda patch for mixed generations */
	P2PS_NV_FP_NEEDS_IOMMU_PT = 1u << 3,       /* needs the IOMMU in pass-through (iommu=pt) */
	P2PS_NV_FP_COUNT = 4,                      /* number of bits */
};
const char *p2ps_nv_flavor_prop_name(unsigned bit_index); /* "bar1_on_demand", ...; NULL */

struct p2ps_nv_flavor_row {
	const char *name;           /* "stock" */
	const char *repo;           /* "NVIDIA/open-gpu-kernel-modules" */
	enum p2ps_nv_flavor parent; /* what it forks (stock: itself) */
	unsigned props;             /* enum p2ps_nv_flavor_prop bits */
	const char *about;          /* one line */
};
const struct p2ps_nv_flavor_row *p2ps_nv_flavor_row(enum p2ps_nv_flavor f); /* NULL: none */
const char *p2ps_nv_flavor_name(enum p2ps_nv_flavor f); /* "stock", ...; "?" out of range */
/* A flavor by name (case-insensitive, n characters of s): 0, or P2PS_EINVAL naming them. */
int p2ps_nv_flavor_parse(const char *s, size_t n, enum p2ps_nv_flavor *out, struct p2ps_error *err);
/* Every flavor name, ", "-separated, into buf (for messages). */
const char *p2ps_nv_flavor_list(char *buf, size_t len);

/* The forks' branch names: VERSION-SUFFIX ("610.57.04-p2p-48g"). A suffix names the flavor
 * whose branch it is within a range of series (the same suffix, "p2p", names tinygrad's
 * branches up to its last one and aikitoria's after). */
struct p2ps_nv_branch {
	const char *suffix;         /* "p2p-48g" (no leading '-') */
	unsigned first, last;       /* the series it names that flavor in */
	enum p2ps_nv_flavor flavor; /* whose branches carry it */
	const char *example;        /* a branch of that name, with its repository */
};
/* The flavor a branch suffix names at series (0: any): 0, or -1 for no such suffix. */
int p2ps_nv_branch_flavor(const char *suffix, size_t n, unsigned series, enum p2ps_nv_flavor *out);
/* The longest branch suffix that text holds as "-SUFFIX" after a version or alone as a word
 * (a build line, a module path): its flavor and the suffix, or NULL. Never a guess: text
 * without one of the table's suffixes or a flavor name gives NULL. */
const struct p2ps_nv_branch *p2ps_nv_branch_find(const char *text, unsigned series,
                                                 enum p2ps_nv_flavor *out);
size_t p2ps_nv_branch_count(void);
const struct p2ps_nv_branch *p2ps_nv_branch_at(size_t i);

/* ---- the driver's P2P vocabulary (ctrl0000system.h, p2p_caps.c) -------------------------- */

/* NV0000_P2P_CAPS_STATUS_* (0..5 in every tag 550.40.07 .. 595.45.04;
 * NV0000_P2P_CAPS_STATUS_NVLINK_SETUP_FAILED is named in a comment there but has no value),
 * plus UNKNOWN: ours, outside the driver's values (what a model cannot tell, or a status
 * nothing reported). A uint8_t holds every value. */
enum p2ps_nv_status {
	P2PS_NV_ST_OK = 0,
	P2PS_NV_ST_CHIPSET_NOT_SUPPORTED = 1,
	P2PS_NV_ST_GPU_NOT_SUPPORTED = 2,
	P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED = 3, /* nvidia-smi prints TNS */
	P2PS_NV_ST_DISABLED_BY_REGKEY = 4,
	P2PS_NV_ST_NOT_SUPPORTED = 5,
	P2PS_NV_ST_UNKNOWN = 0xff,
};
/* Whether v is a value the driver defines (0..5). */
bool p2ps_nv_status_is_driver(unsigned v);
/* The driver's name: "OK", "CHIPSET_NOT_SUPPORTED", ..., "UNKNOWN"; "?" for any other value. */
const char *p2ps_nv_status_name(unsigned v);
/* As nvidia-smi topo -p2p prints it: "OK", "CNS", "GNS", "TNS", "DR", "NS"; "U" otherwise. */
const char *p2ps_nv_status_code(unsigned v);
/* A printed code or name ("OK", "CNS", "TNS", "IOH", "CHIPSET_NOT_SUPPORTED", "U", ...):
 * 0, or -1 when s is none of them. */
int p2ps_nv_status_parse(const char *s, enum p2ps_nv_status *out);
/* Only nvidia-smi topo -p2p's codes ("OK", "CNS", "GNS", "TNS", "DR", "NS", "U"). */
int p2ps_nv_status_from_code(const char *s, enum p2ps_nv_status *out);

/* Indices of a pair's status array (NV0000_CTRL_P2P_CAPS_INDEX_*). */
enum p2ps_nv_caps_index {
	P2PS_NV_CAPS_READ = 0,
	P2PS_NV_CAPS_WRITE,
	P2PS_NV_CAPS_NVLINK,
	P2PS_NV_CAPS_ATOMICS,
	P2PS_NV_CAPS_PROP, /* nvidia-smi topo -p2p p: the PCIe mailbox */
	P2PS_NV_CAPS_LOOPBACK,
	P2PS_NV_CAPS_PCI,
	P2PS_NV_CAPS_C2C,
	P2PS_NV_CAPS_PCI_BAR1,
	P2PS_NV_CAPS_COUNT, /* NV0000_CTRL_P2P_CAPS_INDEX_TABLE_SIZE */
};
const char *p2ps_nv_caps_index_name(unsigned i); /* "read", ..., "pci_bar1"; "?" */

/* The connectivity the driver picks (P2P_CONNECTIVITY_*), in the order it tries them. */
enum p2ps_nv_path {
	P2PS_NV_PATH_C2C = 0,
	P2PS_NV_PATH_NVLINK,
	P2PS_NV_PATH_NVLINK_INDIRECT,
	P2PS_NV_PATH_PCIE_MAILBOX, /* P2P_CONNECTIVITY_PCIE_PROPRIETARY */
	P2PS_NV_PATH_PCIE_BAR1,
	P2PS_NV_PATH_COUNT,
	P2PS_NV_PATH_NONE = P2PS_NV_PATH_COUNT, /* P2P_CONNECTIVITY_UNKNOWN: no P2P */
};
const char *p2ps_nv_path_name(unsigned p); /* "c2c", ..., "pcie_bar1", "none" */

/* Every check of the driver's decision the model knows (its predicates are in
 * src/host/analysis/driver_model.c); each has a name and its source. A gate only some series
 * have is enabled by their rows (struct p2ps_nv_driver.gates). */
enum p2ps_nv_gate {
	P2PS_NV_GATE_NONE = 0,       /* nothing refused: the path's checks all passed */
	P2PS_NV_GATE_FORCE_P2P_TYPE, /* RMForceP2PType names another path */
	P2PS_NV_GATE_NO_C2C,         /* no C2C link between the GPUs (optional: 580+) */
	P2PS_NV_GATE_NO_NVLINK,      /* no NVLink between the GPUs */
	P2PS_NV_GATE_NVSWITCH,       /* NVLink seen with an NVSwitch: no fallback to PCIe */
	P2PS_NV_GATE_P2P_OVERRIDE,   /* ForceP2P (regkey, or a patch's built-in 0x11) */
	P2PS_NV_GATE_HYPERVISOR,     /* hypervisor P2P clique (virtual P2P approval capability) */
	P2PS_NV_GATE_IOH,            /* GPUs under root ports of two Intel I/O hubs */
	P2PS_NV_GATE_GPU_COMPAT,     /* different chip architecture/implementation or mobile */
	P2PS_NV_GATE_GSP,            /* GSP firmware's answer (NV2080 INTERNAL_GET_PCIE_P2P_CAPS) */
	P2PS_NV_GATE_MAILBOX_ATOMICS, /* atomics are never supported over the mailbox path */
	P2PS_NV_GATE_PCIE_P2P_TYPE,   /* RMPcieP2PType / RMForceP2PType keeps BAR1 off */
	P2PS_NV_GATE_BAR1_HAL,        /* the chip's bus HAL has no BAR1 P2P mapping */
	P2PS_NV_GATE_BAR1_BY_DEFAULT, /* AUTO needs a chip with BAR1 P2P by default (optional) */
	P2PS_NV_GATE_STATIC_BAR1,     /* static BAR1 not enabled on one GPU */
	P2PS_NV_GATE_HOST_READ,       /* BAR1 reads need a common switch or a Ryzen / Xeon SPR */
	P2PS_NV_GATE_BAR1_ATOMICS,    /* BAR1 atomics: topology discovery not implemented */
	P2PS_NV_GATE_UNKNOWN_FACT,    /* a fact the gate needs is missing (see the text) */
	/* the chip's bus HAL sets bBar1Disabled: BAR1 is sized 0, so static BAR1 and the BAR1
	 * P2P mapping are off (optional; checked after BAR1_BY_DEFAULT) */
	P2PS_NV_GATE_BAR1_DISABLED,
	P2PS_NV_GATE_SELF_HOSTED,  /* a self-hosted GPU (Grace superchip): no PCIe P2P (optional) */
	P2PS_NV_GATE_CHIPSET,      /* the CPU-side chipset check replaces GSP's per-pair answer
	                            * (optional) */
	P2PS_NV_GATE_CHIPSET_SKIP, /* GSP's per-GPU bSkipChipsetCheck may waive it (optional) */
	P2PS_NV_GATE_COUNT
};
#define P2PS_NV_GATE_BIT(g) (1u << (unsigned)(g))
/* The gates a row may enable (the others every series has). */
#define P2PS_NV_OPTIONAL_GATES                                                                     \
	(P2PS_NV_GATE_BIT(P2PS_NV_GATE_NO_C2C) | P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_BY_DEFAULT) |  \
	 P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_DISABLED) |                                            \
	 P2PS_NV_GATE_BIT(P2PS_NV_GATE_SELF_HOSTED) | P2PS_NV_GATE_BIT(P2PS_NV_GATE_CHIPSET) |     \
	 P2PS_NV_GATE_BIT(P2PS_NV_GATE_CHIPSET_SKIP))
const char *p2ps_nv_gate_name(unsigned g);   /* "ioh_topology", ...; "?" */
const char *p2ps_nv_gate_source(unsigned g); /* "p2p_caps.c _kp2p... (595.45.04)"; "" */

/* ---- the bus HAL's chip lists, by series ------------------------------------------------- */

/* The chips the bus HAL (g_kern_bus_nvoc.c) gives a BAR1-P2P property. A list changes with
 * the series (a chip joins in a release): each row holds from its first series until the
 * list's next row. The gates that read them: BAR1_HAL, BAR1_BY_DEFAULT, BAR1_DISABLED. */
enum p2ps_nv_chip_list {
	P2PS_NV_LIST_BAR1_HAL = 0,    /* kbusIsPcieBar1P2PMappingSupported -> _GH100 */
	P2PS_NV_LIST_BAR1_BY_DEFAULT, /* PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT */
	P2PS_NV_LIST_BAR1_DISABLED,   /* bBar1Disabled */
	P2PS_NV_LIST_COUNT,
};
const char *p2ps_nv_chip_list_name(enum p2ps_nv_chip_list l); /* "bar1_hal", ...; "?" */

struct p2ps_nv_chip_list_row {
	enum p2ps_nv_chip_list list;
	unsigned first;     /* the first series it holds for */
	const char *chips;  /* chip names, each followed by one space */
	const char *source; /* file, function and the tags it was read at */
};
size_t p2ps_nv_chip_list_count(void);
const struct p2ps_nv_chip_list_row *p2ps_nv_chip_list_at(size_t i);
/* The row of list l that holds for series (the newest whose first is not newer), or NULL
 * when series is older than every row of l. */
const struct p2ps_nv_chip_list_row *p2ps_nv_chip_list_of(enum p2ps_nv_chip_list l, unsigned series);
/* Whether the chip named chip (case-insensitive) is in list l at series. */
bool p2ps_nv_chip_listed(enum p2ps_nv_chip_list l, unsigned series, const char *chip);

/* Why the driver can print a non-OK status on one index of a pair (the path letter of
 * nvidia-smi topo -p2p): the gates of its decision that answer that status there, where
 * the index takes the status from (the control that fills the array), and the fix. Rows
 * in src/gmmu/nvidia_drivers.c; a status and index without a row: no gate gives it. */
struct p2ps_nv_status_why {
	enum p2ps_nv_status st;
	enum p2ps_nv_caps_index index;
	unsigned gates;     /* P2PS_NV_GATE_BIT()s */
	const char *source; /* how the index gets the status ("client_resource.c ...") */
	const char *fix;    /* what changes the answer, or why it needs no change */
	bool expected;      /* the status is normal for a working pair without that path */
};
/* The row for status st on index, or NULL. */
const struct p2ps_nv_status_why *p2ps_nv_status_why(unsigned st, unsigned index);
/* nvidia-smi topo -p2p's mode letter ('r', 'w', 'n', 'a', 'p') to its index, or -1. */
int p2ps_nv_caps_index_from_mode(char mode);

/* ---- versions ---------------------------------------------------------------------------- */

/* A driver version, or a spec naming a flavor: SERIES[.MINOR[.PATCH]][-FLAVOR]. SERIES is 3
 * or 4 digits (at least 100), MINOR and PATCH 1 to 4 digits each. */
struct p2ps_nv_version {
	unsigned series, minor, patch; /* 580, 159, 4 (0 when absent) */
	int parts;                     /* numbers given: 1..3 */
	char text[24];                 /* the numbers as written: "580.159.04" */
	bool has_flavor;               /* a -FLAVOR suffix was given */
	enum p2ps_nv_flavor flavor;    /* its flavor (a flavor's name, or a branch suffix of
	                                * p2ps_nv_branch_flavor: "-p2p", "-p2p-48g") */
};
/* Reads a version at the start of s (no flavor): the characters it took, 0 when s does not
 * start with one; what follows is the caller's. */
size_t p2ps_nv_version_scan(const char *s, struct p2ps_nv_version *out);
enum p2ps_nv_version_error {
	P2PS_NV_VERSION_OK = 0,
	P2PS_NV_VERSION_NO_SERIES = -1, /* not 3-4 digits (at least 100) first */
	P2PS_NV_VERSION_MALFORMED = -2, /* a bad part after the series, or trailing characters */
	P2PS_NV_VERSION_FLAVOR = -3,    /* an unknown -FLAVOR */
};
/* The whole of s as a version or spec ("580.159.04", "550.54", "565-tinygrad",
 * "595.71.05-p2p"): P2PS_NV_VERSION_OK or why not. */
enum p2ps_nv_version_error p2ps_nv_version_parse(const char *s, struct p2ps_nv_version *out);

/* ---- the rows ---------------------------------------------------------------------------- */

/* Static BAR1 policy values (NV_REG_STR_RM_FORCE_STATIC_BAR1_*), and NONE: no policy key. */
enum p2ps_nv_sb_policy {
	P2PS_NV_SB_DISABLE = 0,
	P2PS_NV_SB_ENABLE = 1,
	P2PS_NV_SB_AUTO = 2,
	P2PS_NV_SB_ONLY_GPU = 3,
	P2PS_NV_SB_NONE = 4, /* no policy key: kbusIsBar1P2PCapable decides */
};

/* How the AUTO policy sizes BAR1. */
enum p2ps_nv_sb_auto {
	P2PS_NV_AUTO_2X_FB = 0,     /* BAR1 >= 2 x FB */
	P2PS_NV_AUTO_RESERVES,      /* FB + UserD + 128 KiB + console + mailbox */
	P2PS_NV_AUTO_RESERVES_512M, /* the same, console + mailbox padded to 512 MiB */
	P2PS_NV_AUTO_CLIENT_FLOOR,  /* client FB + ALIGN_UP(console + mailbox, 512 MiB) */
	P2PS_NV_AUTO_COUNT,
};

/* Eras of the RM control structs: the first series whose headers have that shape. The
 * control-field rows (src/rm/fields.c) are keyed by era; a driver row names its own. */
enum p2ps_nv_rm_era {
	P2PS_NV_RM_550 = 0, /* FB_GET_INFO 55 entries, NVLink 32 links of 184 bytes */
	P2PS_NV_RM_565,     /* FB 57; NVLink 32 x 192; STATIC_BAR1_INFO without a start offset */
	P2PS_NV_RM_570,     /* NVLink 64 x 208; STATIC_BAR1_INFO with its start offset */
	P2PS_NV_RM_580,     /* FB 128; NVLink enabledLinks */
	P2PS_NV_RM_590,     /* NVLink link info 216 bytes; NV503B fabric P2P info */
	P2PS_NV_RM_615,     /* GET_CHIPSET_INFO gained chipsetId (152 -> 156 bytes) */
	P2PS_NV_RM_ERA_COUNT,
	P2PS_NV_RM_NEWEST = P2PS_NV_RM_ERA_COUNT - 1,
};
const char *p2ps_nv_rm_era_name(enum p2ps_nv_rm_era e); /* "565"; "?" */

/* The RM API layout of a series: what differs between series in the structs the RM client
 * builds itself, and the era of its controls. Everything else is the same in every row's
 * tags (tests/rm/fixtures/ctrl-offsets/TAG.txt, checked against src/rm/rm_internal.h). */
struct p2ps_nv_rm_layout {
	enum p2ps_nv_rm_era era;
	uint16_t nvos46_size;       /* NVOS46_PARAMETERS (MAP_MEMORY_DMA) */
	uint16_t nvos46_dma_offset; /* offset of dmaOffset (flags2 and kindOverride moved it) */
	uint16_t nvos46_status;     /* offset of status */
	uint16_t vaspace_size;      /* NV_VASPACE_ALLOCATION_PARAMETERS (pasid added) */
	uint16_t p2p_size;          /* NV503B_ALLOC_PARAMETERS */
	bool p2p_fabric_info;       /* NV503B has l2p/p2lFabricP2PInfo */
};

/* Eras of the BAR1-P2P entries: the code a set of src/gmmu/bar1_rows.c rows was read from.
 * Each era belongs to one flavor; a driver row names the era its code has. */
enum p2ps_nv_bar1_era {
	P2PS_NV_BAR1_NONE = 0,        /* not read: no BAR1-P2P rows */
	P2PS_NV_BAR1_STOCK_550,       /* static BAR1 at offset 0; no UVM BAR1-P2P case */
	P2PS_NV_BAR1_STOCK_570,       /* static BAR1 where BAR1's allocator puts it */
	P2PS_NV_BAR1_STOCK_580,       /* UVM's BAR1-P2P case; start 512 MiB aligned */
	P2PS_NV_BAR1_TINYGRAD_550,    /* the UVM rewrite; RM's static branch commented out */
	P2PS_NV_BAR1_TINYGRAD_565,    /* the UVM rewrite */
	P2PS_NV_BAR1_AIKITORIA_570,   /* the UVM rewrite on 570 */
	P2PS_NV_BAR1_AIKITORIA_PORT,  /* NVIDIA's BAR1-P2P case for every generation */
	P2PS_NV_BAR1_DUANYLL_METHOD3, /* windows mapped into the peer's BAR1 per allocation */
	P2PS_NV_BAR1_ERA_COUNT,
};
enum p2ps_nv_flavor p2ps_nv_bar1_era_flavor(enum p2ps_nv_bar1_era e);

/* Column groups, for a row's sources. */
enum p2ps_nv_column_group {
	P2PS_NV_SRC_CAPS = 0,    /* the decision switches: p2p_caps.c */
	P2PS_NV_SRC_REGISTRY,    /* registry keys and their values */
	P2PS_NV_SRC_CPU,         /* CPU types */
	P2PS_NV_SRC_STATIC_BAR1, /* the static BAR1 policy, rule and start */
	P2PS_NV_SRC_BAR1_HAL,    /* which chips have the BAR1 P2P mapping */
	P2PS_NV_SRC_PATCH,       /* what a patch builds in */
	P2PS_NV_SRC_RM,          /* the RM layout */
	P2PS_NV_SRC_BAR1_ENTRY,  /* the BAR1-P2P entries */
	P2PS_NV_SRC_COUNT,
};
const char *p2ps_nv_column_group_name(enum p2ps_nv_column_group g); /* "caps", ... */

/* Where a group of columns was read: file (a path in the flavor's repository) and function,
 * at the row's ref. file NULL: the group does not apply. */
struct p2ps_nv_source {
	const char *file;
	const char *function;
};

#define P2PS_NV_MAX_TAGS 4

/* One driver series of one flavor. */
struct p2ps_nv_driver {
	unsigned series;
	enum p2ps_nv_flavor flavor;
	/* The tag, branch or commit the columns were read from ("580.65.06", "565.57.01-p2p").
	 * For stock it is tags[0]. */
	const char *ref;
	/* NVIDIA tags whose headers verified the RM layout (each has its facts file); NULL
	 * after the last. */
	const char *tags[P2PS_NV_MAX_TAGS];
	/* the decision: p2p_caps.c */
	unsigned gates;        /* P2PS_NV_GATE_BIT()s of the optional gates it has */
	bool bar1_needs_force; /* the BAR1 path only with forceP2PType == BAR1P2P */
	bool bar1_map_first;   /* BAR1: the mapping check before the overrides */
	bool override_atomics; /* ForceP2P has an atomics field */
	/* The RMForceP2PType values (nvrm_registry.h) each check of p2p_caps.c compares with:
	 * the BAR1 path's BAR1P2P (where the path needs it, bar1_needs_force) or PCIEP2P (where it
	 * does not), NVLink's, and C2C's (where the series checks C2C); 0 where none. */
	uint8_t ft_bar1, ft_pcie, ft_nvlink, ft_c2c;
	bool pcie_type_key;   /* RMPcieP2PType exists */
	bool static_bar1_key; /* RMForceStaticBar1 exists */
	bool tail_reserve;    /* RMP2PFbTailReserveMb exists */
	/* cpu.c: an AMD family above K11 it does not list is "assumed new Ryzen" (from the
	 * series that also lists Zen 5, 0x1A) rather than K8 */
	bool amd_default_ryzen;
	/* static BAR1 (kbusIsStaticBar1Supported, kbusInitBar1) */
	enum p2ps_nv_sb_policy sb_default;
	enum p2ps_nv_sb_auto sb_auto;
	bool sb_start_512m; /* start = ALIGN_UP(console + mailbox, 512 MiB) */
	bool iommu_512m;   /* _kbusCreateStaticBar1IOMMUMapping: peer DMA address 512 MiB aligned */
	bool mailbox_bar1; /* _kbusRequiresP2PMailboxBar1: mailbox space in BAR1 */
	/* BAR1 P2P mapping HAL (kbusIsPcieBar1P2PMappingSupported): oldest generation with it */
	enum p2ps_nv_generation bar1_hal_min;
	/* what a patch builds in; -1 none */
	long patch_override;  /* p2pOverride set in _kbifInitRegistryOverrides */
	long patch_force;     /* forceP2PType set there */
	long patch_pcie_type; /* pcieP2PType set there */
	bool patch_rebar;     /* nv_resize_pcie_bars without the EnableResizableBar check */
	/* the RM API: NULL when the RM client must not use this row, rm_why saying why */
	const struct p2ps_nv_rm_layout *rm;
	const char *rm_why;
	/* the BAR1-P2P entries */
	enum p2ps_nv_bar1_era bar1;
	/* where each column group was read ([P2PS_NV_SRC_COUNT]) */
	const struct p2ps_nv_source *sources;
	/* What this row's code does beyond NVIDIA's (enum p2ps_nv_flavor_prop bits, a subset of
	 * its flavor's and its ancestors' props): the verdicts follow these, not the flavor. */
	unsigned props;
	/* Module parameters the row adds, as /proc/driver/nvidia/params (or
	 * /sys/module/nvidia_uvm/parameters) names them; NULL: none. */
	const char *dmabuf_key;   /* DMA-BUF P2P export ("EnableDmaBufP2P") */
	const char *pcie_p2p_key; /* PCIe P2P on/off ("EnablePcieP2P"; 0: DISABLED_BY_REGKEY) */
	const char *uvm_managed_param; /* nvidia_uvm: managed memory over BAR1 peers, opt-in */
	/* The repository ref is a branch of, where it is not the flavor's (a descendant's
	 * branch modelled under its flavor); NULL: the flavor's. */
	const char *repo;
	/* Columns not read at ref (its branch not stored): which, and the row they were taken
	 * from; every output that shows the row says so. NULL: all read. */
	const char *assumed;
};

/* The whole table, for listings and tests; *count receives the number of rows. */
const struct p2ps_nv_driver *p2ps_nv_driver_table(size_t *count);
/* The row of exactly (series, flavor), or NULL. */
const struct p2ps_nv_driver *p2ps_nv_driver_exact(unsigned series, enum p2ps_nv_flavor f);
/* THE fallback rule. The row of (series, flavor), or for a series without one the newest row
 * of the flavor not newer than it (a series older than every row: the flavor's oldest); a
 * flavor without rows takes its parent's. series P2PS_NV_SERIES_NONE (none known): the
 * flavor's newest. Never NULL; *exact says whether it is the series' own row. A fact taken
 * from another row is "assumed", and every output that shows one says so
 * (p2ps_nv_driver_assumed()). */
#define P2PS_NV_SERIES_NONE 0u
const struct p2ps_nv_driver *p2ps_nv_driver_find(unsigned series, enum p2ps_nv_flavor f,
                                                 bool *exact);
/* The one wording of the rule, into buf: "610 stock has no row in the driver table:
 * modelled as stock 595 (595.45.04), the newest stock row not newer than it (assumed)". */
const char *p2ps_nv_driver_assumed(unsigned series, enum p2ps_nv_flavor f,
                                   const struct p2ps_nv_driver *d, char *buf, size_t len);
/* "595 stock" into buf. */
const char *p2ps_nv_driver_str(const struct p2ps_nv_driver *d, char *buf, size_t len);
/* The P2P fork of a series: the patched flavor whose rows come nearest. */
enum p2ps_nv_flavor p2ps_nv_patch_flavor(unsigned series);
/* The row whose static-BAR1 rule judges BAR1 when the host's driver is not known: the
 * widest-used P2P patch (bar-inspect's static_bar1 reason). */
const struct p2ps_nv_driver *p2ps_nv_driver_reference(void);

/* ---- known defects, by version ----------------------------------------------------------- */

enum p2ps_nv_defect_id {
	P2PS_NV_DEFECT_GDR_PUT_PAGES_RACE = 0, /* nvidia_p2p_put_pages vs the free callback */
	P2PS_NV_DEFECT_NVSWITCH_NS,            /* topo -p2p NS between NVSwitch H100s */
	P2PS_NV_DEFECT_COUNT,
};

/* A defect of a range of series, fixed from a release of it or never. */
struct p2ps_nv_defect {
	enum p2ps_nv_defect_id id;
	unsigned flavors;     /* bits (1u << flavor) of the flavors it affects */
	unsigned first, last; /* the series it affects */
	const char *fixed_in; /* the first release of the range with the fix; NULL: none */
	const char *what;     /* one line */
	const char *fix;      /* what to do */
	const char *source;
};
size_t p2ps_nv_defect_count(void);
const struct p2ps_nv_defect *p2ps_nv_defect_at(size_t i);
/* Whether d affects the driver of version v. */
bool p2ps_nv_defect_affects(const struct p2ps_nv_defect *d, const struct p2ps_nv_version *v);

/* ---- libcuda: the user-space half of a mixed-generation pair ------------------------------ */

/* CUDA's libcuda compares the two devices' architecture before it allows peer access: a pair
 * of two generations is refused (cudaDeviceCanAccessPeer 0) even where the driver says OK,
 * unless the library is patched (aikitoria's patch-libcuda-p2p.py, commit 2a8c369b). The
 * patch leaves no marker: a library is known only by its SHA-256. */
enum p2ps_nv_libcuda_state {
	P2PS_NV_LIBCUDA_UNKNOWN = 0, /* not hashed, or a digest the table does not hold */
	P2PS_NV_LIBCUDA_UNPATCHED,   /* a release as NVIDIA ships it */
	P2PS_NV_LIBCUDA_PATCHED,     /* with the peer-access changes */
};
struct p2ps_nv_libcuda {
	const char *release; /* "615.71.09" */
	const char *sha256;  /* 64 lowercase hex digits */
	enum p2ps_nv_libcuda_state state;
	const char *what; /* "NVIDIA's libcuda.so.615.71.09 (Debian 615.71.09-1, -2)" */
	const char *source;
};
/* The state of the library whose digest is sha256_hex (any case); *which (may be NULL) the
 * row that said so, NULL when unknown. */
enum p2ps_nv_libcuda_state p2ps_nv_libcuda_state(const char *sha256_hex,
                                                 const struct p2ps_nv_libcuda **which);
const char *p2ps_nv_libcuda_state_name(enum p2ps_nv_libcuda_state s); /* "patched", ... */
size_t p2ps_nv_libcuda_count(void);
const struct p2ps_nv_libcuda *p2ps_nv_libcuda_at(size_t i);

/* ---- BAR1-P2P entry rows (src/gmmu/bar1_rows.c) ------------------------------------------ */

/* The BAR1-P2P entry as a driver writes it: one row per era range, path and generation,
 * with the function and tag it was read from (docs/gmmu.md, "BAR1-P2P rows"). A driver
 * row selects them by its era (struct p2ps_nv_driver.bar1). */
struct gmmu_bar1_row {
	enum p2ps_nv_bar1_era first, last; /* the eras it holds for (one flavor's, in order) */
	enum gmmu_bar1_path path;
	unsigned gens;               /* GMMU_BAR1_GEN_BIT() of the generations it covers */
	const char *refused;         /* non-NULL: the path writes no BAR1-P2P entry here: why */
	enum gmmu_aperture aperture; /* the aperture written */
	/* The address: base + (adds_start ? the static-BAR1 start offset : 0) + FB offset.
	 * iova: the base is the static BAR1 as the mapping GPU's IOMMU maps it (the bus address
	 * without an IOMMU; an IOVA covers the start already: pass start 0 with it); else
	 * always the bus address (gpumgrGetGpuPhysFbAddr). */
	bool adds_start, iova;
	/* log2 of the alignment the era gives the static-BAR1 start: 0 (the region sits at
	 * BAR1 offset 0), 21 (BAR1's 2 MiB allocator), 29 (ALIGN_UP(console + mailbox,
	 * 512 MiB)). */
	uint8_t start_align;
	/* The address is at a BAR1 offset the driver allocates per mapping (no static
	 * region): only the aperture and flags can be held to the row. */
	bool dynamic_offset;
	/* The patched gmmuFmtPtePhysAddrFld(PEER) returns the sysmem address field: on v2 an RM
	 * PEER write (NVLink or mailbox peer) then overwrites the peer index at 35:33. */
	bool peer_field_patched;
	/* The UVM rewrite also turns NVLink peers' PEER entries into this form. */
	bool nvlink_too;
	const char *source; /* "function, tag" */
};

size_t gmmu_bar1_row_count(void);
const struct gmmu_bar1_row *gmmu_bar1_row_at(size_t i);
enum gmmu_bar1_gen gmmu_bar1_gen_of(const struct gmmu_format *f);
const char *gmmu_bar1_gen_name(enum gmmu_bar1_gen g);   /* "Turing..Ada", "Hopper" .. */
const char *gmmu_bar1_path_name(enum gmmu_bar1_path p); /* "uvm", "rm" */
int gmmu_bar1_path_parse(const char *s, enum gmmu_bar1_path *out, struct p2ps_error *err);
/* The row of driver d's era for path and generation g, or NULL. */
const struct gmmu_bar1_row *gmmu_bar1_row_of(const struct p2ps_nv_driver *d,
                                             enum gmmu_bar1_path path, enum gmmu_bar1_gen g);
/* The row of driver d's era for path and format f; P2PS_ENOTSUP naming the driver when
 * there is none. A row with `refused` set is returned (0) as well. */
int gmmu_bar1_row_find(const struct p2ps_nv_driver *d, enum gmmu_bar1_path path,
                       const struct gmmu_format *f, const struct gmmu_bar1_row **out,
                       struct p2ps_error *err);
/* Whether driver d patches gmmuFmtPtePhysAddrFld(PEER) (any row of its era says so). */
bool gmmu_bar1_peer_field_patched(const struct p2ps_nv_driver *d);
/* The series of the driver rows whose era r holds ("580-595", "570") into buf. */
const char *gmmu_bar1_row_series(const struct gmmu_bar1_row *r, char *buf, size_t len);
/* "580-595 stock rm Hopper" into buf. */
const char *gmmu_bar1_row_str(const struct gmmu_bar1_row *r, enum gmmu_bar1_gen g, char *buf,
                              size_t len);

#ifdef __cplusplus
}
#endif

#endif
