/* SPDX-License-Identifier: MIT */
/* p2pscope: the host model — what bar-inspect knows about a machine's PCI devices,
 * IOMMU, kernel command line and NVIDIA driver, independent of where it came from.
 *
 * One model, several backends (include/p2pscope/host_load.h): the live machine (libpci's
 * sysfs method plus sysfs/proc attributes), a captured snapshot tree (the same code with
 * every path under a root DIR), an `lspci -x/-xxx/-xxxx` dump (libpci's dump method; no
 * sysfs attributes, topology from bridge bus numbers), or VFIO (the live model with what
 * vfio-pci tells about its devices laid over it, and those facts kept in host->vfio).
 *
 * Contract for readers (the analysis and renderers):
 *  - Every fact has a "known" flag or a sentinel documented on the field. A fact that
 *    is not known has a reason in dev->unknown[P2PS_FACT_*] (p2ps_dev_unknown()),
 *    e.g. "needs root: config space past 64 bytes is not readable".
 *  - Fields are only ever added to these structs, never renamed or removed.
 *  - The model owns all memory; p2ps_host_free() releases it. Pointers into the model
 *    (dev->parent, dev->chip, host->vfio) stay valid until then.
 *  - Nothing here reads files, writes config space, maps a BAR or opens a VFIO device:
 *    the backends do the reading, and only they.
 *
 * Library functions return 0 or a negative P2PS_E* code and fill struct p2ps_error.
 */
#ifndef P2PSCOPE_HOST_H
#define P2PSCOPE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/pci_addr.h"
#include "p2pscope/timings.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P2PS_HOST_MAX_BARS     6  /* type-0 header BARs; bridges (type 1) use 0..1 */
#define P2PS_HOST_MAX_REBAR    6  /* ReBAR control: number of resizable BARs is 1..6 */
#define P2PS_HOST_MAX_NVLINK   18 /* NVML_NVLINK_MAX_LINKS on Hopper/Blackwell */
#define P2PS_HOST_CONFIG_MAX   4096
#define P2PS_HOST_NAME_MAX     192
#define P2PS_HOST_REASON_MAX   128
#define P2PS_HOST_MAX_NCCL_ENV 16

enum p2ps_host_backend_kind {
	P2PS_HOST_LIVE = 0,       /* this machine: /sys, /proc, libpci linux_sysfs */
	P2PS_HOST_SNAPSHOT = 1,   /* a captured tree: DIR/sys/..., DIR/proc/... (--root DIR) */
	P2PS_HOST_LSPCI_DUMP = 2, /* lspci -x/-xxx/-xxxx text (--lspci-dump FILE) */
	P2PS_HOST_VFIO = 3,       /* live sysfs plus devices opened through VFIO (--vfio) */
	P2PS_HOST_PASTE = 4,      /* text pasted into a bug report (--paste FILE|-) */
};

/* Facts that can be unknown, each with a reason string in dev->unknown[]. */
enum p2ps_fact {
	P2PS_FACT_CONFIG = 0,  /* config space beyond the first 64 bytes */
	P2PS_FACT_CAPS,        /* capability list (PCIe, ACS, ReBAR need it) */
	P2PS_FACT_BAR_SIZES,   /* BAR sizes (dumps carry none) */
	P2PS_FACT_LINK_CAP,    /* PCIe LnkCap speed/width */
	P2PS_FACT_LINK_STATUS, /* PCIe LnkSta speed/width */
	P2PS_FACT_ACS,         /* ACS capability/control (bridges) */
	P2PS_FACT_REBAR,       /* Resizable BAR capability */
	P2PS_FACT_DRIVER,      /* bound driver */
	P2PS_FACT_NUMA,        /* NUMA node */
	P2PS_FACT_IOMMU_GROUP, /* IOMMU group and its default domain type */
	P2PS_FACT_BOOT_VGA,    /* boot_vga attribute */
	P2PS_FACT_PARENT,      /* upstream bridge */
	P2PS_FACT_VRAM,        /* GPU memory size (NVML or captured nvidia-smi -q) */
	P2PS_FACT_NVLINK,      /* NVLink peers */
	P2PS_FACT_COUNT
};

/* One BAR as both the device and the kernel see it. bars[] is indexed by BAR
 * number; the upper half of a 64-bit BAR is not present on its own. */
struct p2ps_bar {
	bool present;      /* the device implements this BAR (or the kernel reports it) */
	uint8_t index;     /* 0..5, equals the array index */
	uint64_t address;  /* bus address (kernel's view on sysfs, register value in dumps) */
	uint64_t size;     /* bytes; valid only if size_known */
	bool size_known;   /* false for dumps unless ReBAR says the current size */
	bool is_64bit;     /* memory BAR of type 64-bit (takes index and index+1) */
	bool prefetchable; /* memory BAR marked prefetchable */
	bool io;           /* I/O port BAR */
	bool unassigned;   /* the register holds no address: firmware/kernel left it unassigned */
	uint32_t raw;      /* the lower BAR register as read from config space (0 if unreadable) */
};

/* Expansion ROM. */
struct p2ps_rom {
	bool present;
	uint64_t address;
	uint64_t size; /* valid only if size_known */
	bool size_known;
	bool enabled; /* ROM address register bit 0 */
};

/* PCIe link speed/width. speed uses the LnkCap/LnkSta encoding: 1 = 2.5 GT/s,
 * 2 = 5, 3 = 8, 4 = 16, 5 = 32, 6 = 64 GT/s; 0 = unknown. width is lanes: 0 is unknown
 * where the link's source is P2PS_LINK_NONE, and otherwise a fact: a link status of width
 * 0 is a link that is down (lspci's "LnkSta: ... Width x0": an empty slot or a dead port;
 * p2ps_link_is_down()). */
struct p2ps_link {
	uint8_t speed;
	uint8_t width;
};

enum p2ps_link_source {
	P2PS_LINK_NONE = 0, /* not known */
	P2PS_LINK_CONFIG,   /* PCIe capability in config space (needs root on live/snapshot) */
	P2PS_LINK_SYSFS,    /* sysfs max_link_* / current_link_* (non-root fallback) */
};

/* PCIe capability port types (PCIe flags bits 7:4). */
enum p2ps_pcie_type {
	P2PS_PCIE_ENDPOINT = 0x0,
	P2PS_PCIE_LEGACY_ENDPOINT = 0x1,
	P2PS_PCIE_ROOT_PORT = 0x4,
	P2PS_PCIE_SWITCH_UPSTREAM = 0x5,
	P2PS_PCIE_SWITCH_DOWNSTREAM = 0x6,
	P2PS_PCIE_PCIE_TO_PCI = 0x7,
	P2PS_PCIE_PCI_TO_PCIE = 0x8,
	P2PS_PCIE_RC_ENDPOINT = 0x9,
	P2PS_PCIE_RC_EVENT_COLLECTOR = 0xa,
};

struct p2ps_pcie {
	bool present;         /* a PCIe capability (id 0x10) was found */
	uint16_t offset;      /* its config-space offset */
	uint8_t version;      /* capability version (flags bits 3:0) */
	uint8_t port_type;    /* enum p2ps_pcie_type value (raw 4 bits kept as read) */
	uint32_t lnkcap_raw;  /* Link Capabilities register */
	uint16_t lnksta_raw;  /* Link Status register */
	struct p2ps_link cap; /* maximum the port supports (LnkCap, else sysfs max_link_*) */
	struct p2ps_link sta; /* what it trained to (LnkSta, else sysfs current_link_*) */
	enum p2ps_link_source cap_source;
	enum p2ps_link_source sta_source;
	/* sysfs's own view, kept separately for cross-checks; zero where absent. */
	struct p2ps_link sysfs_max;
	struct p2ps_link sysfs_cur;
};

/* ACS bits, same positions in the capability and control registers. */
enum p2ps_acs_bit {
	P2PS_ACS_SV = 0x01, /* source validation */
	P2PS_ACS_TB = 0x02, /* translation blocking */
	P2PS_ACS_RR = 0x04, /* P2P request redirect */
	P2PS_ACS_CR = 0x08, /* P2P completion redirect */
	P2PS_ACS_UF = 0x10, /* upstream forwarding */
	P2PS_ACS_EC = 0x20, /* P2P egress control */
	P2PS_ACS_DT = 0x40, /* direct translated P2P */
};

struct p2ps_acs {
	bool present;    /* ACS extended capability (0x0d) found */
	uint16_t offset; /* its config-space offset */
	uint16_t cap;    /* ACS Capability register (raw) */
	uint16_t ctl;    /* ACS Control register (raw) */
};

struct p2ps_rebar_entry {
	uint8_t bar;      /* BAR index the entry controls (control bits 2:0) */
	uint64_t sizes;   /* supported sizes: bit n set => 2^n MiB is supported (n = 0..43) */
	uint8_t current;  /* current size as log2(MiB) (control bits 13:8): 8 => 256 MiB */
	uint32_t cap_raw; /* the entry's capability register */
	uint32_t ctl_raw; /* the entry's control register */
};

struct p2ps_rebar {
	bool present;    /* Resizable BAR extended capability (0x15) found */
	uint16_t offset; /* its config-space offset */
	uint8_t count;   /* valid entries */
	struct p2ps_rebar_entry e[P2PS_HOST_MAX_REBAR];
	/* sysfs resourceN_resize (Linux >= 6.1, readable without root): bit n => 2^n MiB. */
	uint64_t sysfs_resize[P2PS_HOST_MAX_BARS];
	bool sysfs_resize_known[P2PS_HOST_MAX_BARS];
};

/* A bridge forwarding window; limit is inclusive. */
struct p2ps_window {
	bool present; /* window enabled (base <= limit) */
	uint64_t base;
	uint64_t limit;
	bool is_64bit; /* prefetchable window with 64-bit addressing */
};

struct p2ps_bridge {
	bool is_bridge;  /* header type 1 (PCI-to-PCI) or 2 (CardBus: bus numbers only) */
	uint8_t primary; /* bus numbers from config 0x18..0x1a */
	uint8_t secondary;
	uint8_t subordinate;
	struct p2ps_window io;
	struct p2ps_window mem;  /* non-prefetchable memory window */
	struct p2ps_window pref; /* prefetchable memory window */
	/* The windows were not read (a CardBus bridge; a paste that names the bridge only in
	 * its tree or log): absent windows above are not closed ones. */
	bool windows_unknown;
};

/* NVIDIA facts from the driver's RM API, NVML (dlopen) or a captured nvidia-smi -q / topo -m. */
enum p2ps_gpu_source {
	P2PS_GPU_SRC_NONE = 0,
	P2PS_GPU_SRC_NVML,       /* libnvidia-ml.so.1 loaded at run time */
	P2PS_GPU_SRC_NVIDIA_SMI, /* parsed from a snapshot's nvidia-smi output */
	P2PS_GPU_SRC_RM,         /* the driver's RM API (live, or a capture's replay) */
};

struct p2ps_nvlink_peer {
	struct p2ps_bdf bdf; /* remote end's PCI address (a GPU, or an NVSwitch) */
	int links;           /* number of active links to it */
};

/* One NVLink of a GPU as the RM API reports it (NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS). */
struct p2ps_nvlink_link {
	int link;             /* the link's number */
	uint32_t state;       /* NV2080_CTRL_NVLINK_STATUS_LINK_STATE_*: 3 ACTIVE */
	char state_name[16];  /* "ACTIVE" */
	uint32_t remote_type; /* NV2080_CTRL_NVLINK_DEVICE_INFO_DEVICE_TYPE_*: 2 GPU, 3 SWITCH */
	char remote_type_name[12];
	struct p2ps_bdf remote; /* the far end's PCI address */
	int remote_link;        /* the far end's link number */
};

/* What only the RM API reports per GPU (source P2PS_GPU_SRC_RM). Sizes in bytes. */
struct p2ps_gpu_rm {
	bool known;
	uint32_t gpu_id;        /* RM's GPU id (CARD_INFO) */
	uint32_t arch, impl;    /* NV2080_CTRL_MC_GET_ARCH_INFO */
	char chip[16];          /* "GH100", or "" */
	uint16_t pci_device_id; /* CARD_INFO */
	bool fb_known;          /* NV2080_CTRL_CMD_FB_GET_INFO_V2 */
	uint64_t fb_ram, fb_total_ram, fb_usable, fb_heap, fb_heap_free, fb_tax;
	uint64_t fb_reserved; /* total - heap (nvidia-smi -q FB Reserved) */
	uint64_t bar1_avail;
	bool static_bar1_known; /* NV2080_CTRL_CMD_FB_GET_STATIC_BAR1_INFO (570+) */
	bool static_bar1;
	uint64_t static_bar1_size;
	char static_bar1_status[64]; /* why unknown: "not in series 550", an RM status name */
	int n_links;                 /* enabled NVLinks */
	struct p2ps_nvlink_link links[P2PS_HOST_MAX_NVLINK];
};

struct p2ps_gpu_facts {
	enum p2ps_gpu_source source;
	bool vram_known;
	uint64_t vram_bytes; /* FB memory total */
	bool bar1_known;
	uint64_t bar1_total_bytes; /* BAR1 total as the driver reports it */
	bool nvlink_known;
	int n_nvlink_peers;
	struct p2ps_nvlink_peer nvlink_peers[P2PS_HOST_MAX_NVLINK];
	/* Active NVLinks that end at an NVSwitch (NVML's remote device type, or a remote
	 * address the host cannot see, as in a VM on an HGX board); 0 when none or unknown.
	 * The GPU peers reached through the switch are in nvlink_peers as well. */
	int nvswitch_links;
	struct p2ps_gpu_rm rm; /* source P2PS_GPU_SRC_RM only */
};

struct p2ps_nvidia_chip; /* include/p2pscope/nvidia_chips.h */
struct p2ps_vfio_facts;  /* include/p2pscope/vfio/facts.h */
struct p2ps_evidence;    /* include/p2pscope/evidence.h */

struct p2ps_dev {
	struct p2ps_bdf bdf;
	char bdf_str[16]; /* "DDDD:BB:DD.F" */

	uint16_t vendor_id;
	uint16_t device_id;
	uint16_t subsys_vendor_id; /* 0 when the header has none (bridges) */
	uint16_t subsys_id;
	uint32_t class_code; /* 24 bits: base class << 16 | subclass << 8 | prog-if */
	uint8_t revision;
	uint8_t header_type; /* 0 normal, 1 bridge, 2 CardBus (bit 7 multifunction removed) */
	char vendor_name[P2PS_HOST_NAME_MAX]; /* from pci.ids; "" if not found */
	char device_name[P2PS_HOST_NAME_MAX];
	char subsys_name[P2PS_HOST_NAME_MAX];
	const struct p2ps_nvidia_chip *chip; /* NVIDIA device-id table; NULL otherwise */

	struct p2ps_bar bars[P2PS_HOST_MAX_BARS];
	struct p2ps_rom rom;
	struct p2ps_pcie pcie;
	struct p2ps_acs acs;
	struct p2ps_rebar rebar;
	struct p2ps_bridge bridge;

	/* Upstream bridge: index into host->devs and pointer to it; -1/NULL for devices on a
	 * root bus (their upstream is the host bridge named by root_bus). has_parent and
	 * parent_bdf say the same by address (set even if the bridge itself is not in the
	 * model, e.g. a hidden bridge in a VM). */
	int parent_idx;
	struct p2ps_dev *parent;
	bool has_parent;
	struct p2ps_bdf parent_bdf;
	/* The root bus the device hangs under: "pci0000:00" (sysfs node name); dumps use the
	 * same spelling from the top-level bus number. Two devices with different root_bus
	 * sit under different host bridges. */
	char root_bus[32];

	char driver[64];            /* bound driver; "" if none or unknown (see unknown[]) */
	int numa_node;              /* -1: none/unknown */
	int iommu_group;            /* -1: no group (no IOMMU) or unknown */
	char iommu_domain_type[16]; /* "identity", "DMA", "DMA-FQ", "blocked", "unmanaged"; "" */
	int boot_vga;               /* 1/0; -1 unknown */

	/* Config space as read; config_len is how many bytes were readable (64 for a
	 * non-root sysfs read, 256 for `lspci -xxx`, 4096 for -xxxx or root). */
	uint8_t config[P2PS_HOST_CONFIG_MAX];
	size_t config_len;
	bool config_limited; /* only the first 64 bytes were readable (non-root) */
	/* How the extended capability walk ended: "ok", "looped", "broken", "denied",
	 * "none" (no extended space). */
	char ext_cap_walk[12];

	struct p2ps_gpu_facts gpu; /* NVIDIA GPUs only */

	/* Per-fact reasons: "" = known (or not applicable), otherwise why it is unknown. */
	char unknown[P2PS_FACT_COUNT][P2PS_HOST_REASON_MAX];
};

/* Host-wide facts. Strings are "" when absent; *_known says whether we could look. */
struct p2ps_host_iommu {
	bool known;
	bool present;    /* any entry in /sys/class/iommu */
	char units[256]; /* space-separated entries, e.g. "dmar0 dmar1" */
	char kind[16];   /* "intel" (dmar*), "amd" (ivhd*), "arm-smmu", "virtio", "other", "" */
	int n_groups;    /* entries in /sys/kernel/iommu_groups */
};

struct p2ps_host_cmdline {
	bool known;
	char *raw;                   /* whole /proc/cmdline, owned by the model */
	char iommu[32];              /* value of iommu= ("pt", "off", ...) */
	char intel_iommu[64];        /* value of intel_iommu= */
	char amd_iommu[64];          /* value of amd_iommu= */
	char iommu_passthrough[16];  /* value of iommu.passthrough= */
	char pcie_acs_override[128]; /* value of pcie_acs_override= */
	char pci[128];               /* value of pci= (config_acs, disable_acs_redir, realloc) */
	char iommu_strict[8];        /* value of iommu.strict= */
};

/* What the kernel command line makes of the IOMMU, per driver: one rule for the live
 * host, snapshots and pastes (p2ps_cmdline_iommu). */
enum p2ps_cmdline_iommu_state {
	P2PS_CMDLINE_IOMMU_DEFAULT = 0, /* nothing decisive: the kernel's build default rules */
	P2PS_CMDLINE_IOMMU_OFF,         /* intel_iommu=off, amd_iommu=off, iommu=off */
	P2PS_CMDLINE_IOMMU_SOFT,        /* iommu=soft: bounce buffers, the hardware IOMMU unused */
	P2PS_CMDLINE_IOMMU_TRANSLATING, /* turned on (intel_iommu=on) without pass-through */
	P2PS_CMDLINE_IOMMU_PASSTHROUGH, /* iommu=pt, iommu.passthrough=1 */
};

struct p2ps_cmdline_iommu {
	enum p2ps_cmdline_iommu_state state;
	char kind[8];  /* "intel", "amd" (the flag that named a driver), "" */
	bool strict;   /* iommu.strict=1 or intel_iommu=strict: unmapped at once, no batching */
	char why[160]; /* "intel_iommu=on without iommu=pt: on and translating" */
};
void p2ps_cmdline_iommu(const struct p2ps_host_cmdline *c, struct p2ps_cmdline_iommu *out);
const char *p2ps_cmdline_iommu_state_name(enum p2ps_cmdline_iommu_state s);

/* The driver's P2P capabilities of one GPU pair, per path, as the RM API reports them
 * (NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2 for the pair a, b; a before b in PCI order) and
 * the same pair's caps in the matrix form (GET_P2P_CAPS_MATRIX, up to 8 GPUs). This is the
 * driver's own decision per path: compare a model of its gates against `status`. Found with
 * p2ps_host_driver_p2p(). */
struct p2ps_driver_p2p {
	struct p2ps_bdf a, b;
	bool known;              /* GET_P2P_CAPS_V2 answered NV_OK */
	uint32_t rm_status;      /* its NV_STATUS otherwise */
	char rm_status_name[48]; /* "NV_ERR_NOT_SUPPORTED" */
	uint32_t caps;           /* p2pCaps: NV0000_CTRL_SYSTEM_GET_P2P_CAPS_*_SUPPORTED bits */
	uint8_t status[P2PS_NV_CAPS_COUNT]; /* p2pCapsStatus per index (enum p2ps_nv_status) */
	uint32_t peer_id_ab, peer_id_ba;    /* busPeerIds; 0xffffffff: none */
	bool matrix_known;
	uint32_t matrix_caps; /* GET_P2P_CAPS_MATRIX's p2pCaps[a][b] */
	/* The answer is the driver's for the group of all the host's GPUs (gpuCount N, one
	 * call), which holds for each pair: asked so where the group's NVLink status is OK (every
	 * pair NVLink-connected), so that N GPUs cost one call, not N(N-1)/2. */
	bool from_group;
};
#define P2PS_HOST_MAX_DRIVER_P2P 128

/* The CPU and chipset the driver recognised (SYSTEM_GET_CPU_INFO, _GET_CHIPSET_INFO). */
struct p2ps_host_rm {
	bool cpu_known;
	uint32_t cpu_type;
	char cpu_type_name[24]; /* "XEON_SPR", or "0x..." */
	char cpu_name[53];
	uint32_t cpu_clock_mhz, cpu_logical, cpu_physical, cpu_family, cpu_model;
	bool chipset_known;
	uint16_t chipset_vendor, chipset_device, hb_vendor, hb_device;
	char chipset_vendor_name[33], chipset_name[33];
	uint32_t chipset_flags; /* bit 0: HAS_RESIZABLE_BAR_ISSUE */
	unsigned controls;      /* controls issued */
	/* GPUs the driver listed that the PCI devices lack (a replay against another host's
	 * snapshot): their facts were dropped. The first P2PS_HOST_RM_UNMATCHED are kept. */
#define P2PS_HOST_RM_UNMATCHED 4
	int n_unmatched;
	struct p2ps_bdf unmatched[P2PS_HOST_RM_UNMATCHED];
	int n_p2p;
	struct p2ps_driver_p2p p2p[P2PS_HOST_MAX_DRIVER_P2P];
};

struct p2ps_host_nvidia {
	bool module_known;
	char module_version[64]; /* /sys/module/nvidia/version */
	bool proc_known;
	char proc_version[256];       /* first line of /proc/driver/nvidia/version */
	char proc_driver_version[64]; /* the version number taken from that line */
	bool nvml_loaded;             /* libnvidia-ml.so.1 was opened and initialised */
	char nvml_status[128];        /* why NVML facts are missing, if they are */
	char nvml_driver_version[64];
	/* /proc/driver/nvidia/params: the registry and the module parameters in effect. */
	bool params_known;
	char registry_dwords[512]; /* RegistryDwords: "Key=value;Key=value" ("" none) */
	int enable_resizable_bar;  /* EnableResizableBar: 0/1 (valid when params_known) */
	/* Every other numeric line of params ("EnableDmaBufP2P: 1"), in file order: what a
	 * fork's row names (struct p2ps_nv_driver dmabuf_key, pcie_p2p_key) is looked up here. */
#define P2PS_HOST_MAX_PARAMS 96
	int n_params;
	struct p2ps_host_param {
		char name[40];
		long value;
	} params[P2PS_HOST_MAX_PARAMS];
	/* libcuda as hashed (bar-inspect --libcuda FILE): its path and SHA-256 ("" not hashed). */
	char libcuda_path[160];
	char libcuda_sha256[65];
	/* Where the per-GPU facts came from on a live host or a replay: "rm", "nvml", "none"
	 * ("" for snapshots and dumps, whose facts are their nvidia-smi files), and, when the
	 * RM API was not used, why (the one line the report prints). */
	char facts_source[8];
	char facts_note[192];
	bool rm_loaded;      /* the RM API answered (rm below is filled) */
	char rm_status[160]; /* why not, if it did not */
	char rm_driver_version[32];
	struct p2ps_host_rm rm;
};

/* What the driver itself reported per GPU pair: NV0000_P2P_CAPS_STATUS_* per index of
 * NV0000_CTRL_P2P_CAPS_INDEX_* (read, write, nvlink, atomics, prop, loopback, pci, c2c,
 * pci_bar1), P2PS_NV_ST_UNKNOWN (0xff) where not reported. GPUs are in nvidia-smi's order (PCI bus
 * id). */
#define P2PS_HOST_DRVCAPS_GPUS  16
#define P2PS_HOST_DRVCAPS_INDEX P2PS_NV_CAPS_COUNT
struct p2ps_host_driver_caps {
	bool known;
	char source[64]; /* "NVML", "nvidia-smi topo -p2p (snapshot)", "RM" */
	int n_gpus;
	struct p2ps_bdf gpu[P2PS_HOST_DRVCAPS_GPUS];
	bool gpu_known[P2PS_HOST_DRVCAPS_GPUS]; /* gpu[i] holds the GPU's address */
	uint8_t st[P2PS_HOST_DRVCAPS_GPUS][P2PS_HOST_DRVCAPS_GPUS][P2PS_HOST_DRVCAPS_INDEX];
};

struct p2ps_host_vm {
	bool known;
	bool in_vm;
	char hypervisor[64]; /* e.g. "KVM", "Firecracker", "xen", from DMI / cpuinfo / sysfs */
	char evidence[128];  /* which file said so */
};

/* GPUDirect RDMA: what lets a NIC reach GPU memory, and the RDMA devices of the host. */
#define P2PS_HOST_MAX_RDMA 32
struct p2ps_rdma_dev {
	char name[32];       /* "mlx5_0" (/sys/class/infiniband/NAME) */
	struct p2ps_bdf bdf; /* the PCI function behind it */
};

struct p2ps_host_rdma {
	bool known;          /* the source can show loaded modules and RDMA devices */
	bool nvidia_peermem; /* module nvidia_peermem loaded (/sys/module/nvidia_peermem) */
	bool nv_peer_mem;    /* the older out-of-tree nv_peer_mem loaded */
	int n_devs;
	struct p2ps_rdma_dev devs[P2PS_HOST_MAX_RDMA];
};

/* The first CPU as /proc/cpuinfo describes it: what NCCL's topology calls the CPU's arch,
 * vendor, familyid and modelid, and what the driver's CPU type needs (platform/cpu.c). */
struct p2ps_host_cpu {
	bool known;      /* the architecture was recognised */
	char arch[16];   /* "x86_64", "arm64", "ppc64" (from the keys cpuinfo uses); "" */
	char vendor[16]; /* x86 vendor_id ("GenuineIntel", "AuthenticAMD"); "" elsewhere */
	int family;      /* x86 "cpu family" (base + extended, as Linux prints it); -1 unknown */
	int model;       /* x86 "model" (with the extended model); -1 unknown */
	char model_name[96];
};

struct p2ps_host {
	enum p2ps_host_backend_kind kind;
	const char *backend_name; /* "sysfs", "snapshot", "lspci-dump", "vfio", "paste" */
	char source_path[4096];   /* --root DIR, --lspci-dump FILE or --paste FILE; "" for live */

	struct p2ps_dev *devs; /* sorted by domain, bus, dev, fn */
	size_t n_devs;

	struct p2ps_host_iommu iommu;
	struct p2ps_host_cmdline cmdline;
	struct p2ps_host_nvidia nvidia;
	struct p2ps_host_vm vm;
	struct p2ps_host_rdma rdma;

	int n_nccl_env;
	char nccl_env[P2PS_HOST_MAX_NCCL_ENV][128]; /* "NCCL_P2P_DISABLE=1" */

	bool config_limited_any; /* some device's config space was cut at 64 bytes */
	bool is_root;            /* LIVE: effective uid 0; SNAPSHOT: captured as root (if known) */
	char hostname[64];       /* where known ("" otherwise) */
	/* Which boot of which host, and when: what tells reports from many machines apart
	 * (bar-inspect --fleet). "" when not known. */
	char boot_id[40]; /* /proc/sys/kernel/random/boot_id (older captures lack it) */
	char time[24];    /* when the facts were read, UTC "2026-11-22T00:27:01Z": now for a
	                   * live host, the capture time for a snapshot */
	char kernel[128]; /* the running kernel's release (uname -r; a snapshot's kernel=) */

	/* What the VFIO options found (include/p2pscope/vfio/facts.h): the devices opened
	 * through VFIO, register reads, the peer-mapping attempt. NULL when none was asked. */
	struct p2ps_vfio_facts *vfio;

	/* PASTE: what the paste holds beyond these facts (include/p2pscope/evidence.h): its
	 * blocks, the GPUs joined from every source, what each tool printed per GPU pair,
	 * kernel events, symptoms, each with its line; the paste findings, the driver model
	 * and the renderers read it. Owned by the model; NULL for other sources. */
	struct p2ps_evidence *evidence;

	/* Where the load's time went, per phase (timings.h); NULL when not asked. Owned by
	 * the caller, who set it through struct p2ps_host_source. */
	struct p2ps_timings *timings;

	struct p2ps_host_cpu cpu;
	/* The driver's own P2P statuses per pair (NVML live, or a snapshot's nvidia-smi
	 * topo -p2p captures); driver_caps.known is false when there are none. */
	struct p2ps_host_driver_caps driver_caps;
};

/* Releases everything the model owns and zeroes it. NULL is fine. */
void p2ps_host_free(struct p2ps_host *host);

/* Device lookup by BDF; NULL if absent. */
struct p2ps_dev *p2ps_host_find(const struct p2ps_host *host, const struct p2ps_bdf *bdf);
/* The driver's P2P caps of the pair of GPUs at x and y (either order), or NULL when the RM
 * API gave none. Its a is the one first in PCI order. */
const struct p2ps_driver_p2p *p2ps_host_driver_p2p(const struct p2ps_host *host,
                                                   const struct p2ps_bdf *x,
                                                   const struct p2ps_bdf *y);

/* The reason a fact is unknown, or NULL when it is known / applicable. */
const char *p2ps_dev_unknown(const struct p2ps_dev *dev, enum p2ps_fact fact);

/* Short name of a fact ("link_cap", "acs", ...) for JSON keys and messages. */
const char *p2ps_fact_name(enum p2ps_fact fact);

/* Which devices to select, as lspci's -s: each field is -1 for "any". */
struct p2ps_slot_filter {
	int domain;
	int bus;
	int dev;
	int fn;
};

bool p2ps_slot_match(const struct p2ps_slot_filter *f, const struct p2ps_bdf *bdf);

/* Class helpers. */
bool p2ps_dev_is_bridge(const struct p2ps_dev *dev);     /* header type 1 */
bool p2ps_dev_is_nvidia_gpu(const struct p2ps_dev *dev); /* vendor 0x10de, class 0x03xx */

/* Link speed code -> GT/s (2.5, 5, 8, 16, 32, 64); 0.0 when unknown. */
double p2ps_link_speed_gts(uint8_t speed);

/* Theoretical payload bandwidth of a link per direction, in GB/s (10^9 bytes/s),
 * after line encoding (8b/10b up to 5 GT/s, 128b/130b for 8..32 GT/s, 1b/1b FLIT
 * carrying 236 payload bytes per 256-byte flit at 64 GT/s). 0.0 when speed or width is unknown. */
double p2ps_link_gbps(const struct p2ps_link *link);

/* Whether the link status was read (config or sysfs) and is down: width x0. */
bool p2ps_link_is_down(const struct p2ps_pcie *e);

/* Name of a PCIe port type ("Endpoint", "Root Port", "Upstream Port", ...). */
const char *p2ps_pcie_type_name(uint8_t port_type);

/* Size in bytes of a ReBAR size index (log2 MiB); 0 for out-of-range. */
uint64_t p2ps_rebar_size_bytes(uint8_t log2_mib);

#ifdef __cplusplus
}
#endif

#endif
