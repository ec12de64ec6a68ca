/* SPDX-License-Identifier: MIT */
/* p2pscope: the RM controls as typed calls.
 *
 * Each control this library issues has one wrapper here that builds its parameter struct
 * from named fields and reads the answer back into a C struct; no caller outside src/rm
 * sees a byte offset. The offsets and sizes live in one table (src/rm/fields.c), one row
 * per field and RM layout era (the driver table's row for a series names its era, see
 * nvidia_drivers.h) with the tag whose headers it was read from, and a
 * test compares the table with the offsets derived from the headers of every supported tag
 * (tests/rm/fixtures/ctrl-offsets/TAG.txt, scripts/rm-derive-offsets.sh).
 *
 * Every wrapper is read-only towards the driver: the controls are on the allow-list
 * (p2ps_rm_ctrl_name()), and a control that writes state is refused before any ioctl. A
 * wrapper returns 0 or a negative P2PS_E*; an RM status other than NV_OK is P2PS_EIO
 * with the status in *rm_status (when not NULL) and its name in the message. A control
 * that the loaded series does not have (STATIC_BAR1_INFO before 570) is P2PS_ENOTSUP,
 * without an ioctl.
 */
#ifndef P2PSCOPE_RM_CTRL_H
#define P2PSCOPE_RM_CTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/rm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the layout table -------------------------------------------------------------------- */

/* One field (or a struct's size, field "sizeof"; or an array's element stride, "stride")
 * of a control's parameters. */
enum p2ps_rm_fid {
	/* NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS */
	P2PS_RMF_ID_INFO_SIZE,
	P2PS_RMF_ID_INFO_GPU_ID,
	P2PS_RMF_ID_INFO_DEVICE_INSTANCE,
	P2PS_RMF_ID_INFO_SUBDEVICE_INSTANCE,
	/* NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS */
	P2PS_RMF_ARCH_SIZE,
	P2PS_RMF_ARCH_ARCHITECTURE,
	P2PS_RMF_ARCH_IMPLEMENTATION,
	P2PS_RMF_ARCH_REVISION,
	/* NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS */
	P2PS_RMF_PCI_SIZE,
	P2PS_RMF_PCI_DEVICE_ID,
	P2PS_RMF_PCI_SUBSYSTEM_ID,
	P2PS_RMF_PCI_REVISION_ID,
	/* NV2080_CTRL_FB_GET_INFO_V2_PARAMS, NV2080_CTRL_FB_INFO */
	P2PS_RMF_FB_SIZE,
	P2PS_RMF_FB_LIST_SIZE,
	P2PS_RMF_FB_LIST,
	P2PS_RMF_FB_ENTRY_STRIDE,
	P2PS_RMF_FB_ENTRY_INDEX,
	P2PS_RMF_FB_ENTRY_DATA,
	/* NV2080_CTRL_FB_GET_STATIC_BAR1_INFO_PARAMS (570+) */
	P2PS_RMF_SBAR1_SIZE,
	P2PS_RMF_SBAR1_ENABLED,
	P2PS_RMF_SBAR1_START,
	P2PS_RMF_SBAR1_BYTES,
	/* NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS_PARAMS, NV2080_CTRL_NVLINK_LINK_STATUS_INFO,
	 * NV2080_CTRL_NVLINK_DEVICE_INFO */
	P2PS_RMF_NVL_SIZE,
	P2PS_RMF_NVL_ENABLED_MASK,
	P2PS_RMF_NVL_LINK_INFO,
	P2PS_RMF_NVL_LINK_COUNT, /* linkInfo's element count (the row's size) */
	P2PS_RMF_NVL_LINK_STRIDE,
	P2PS_RMF_NVL_LINK_STATE,
	P2PS_RMF_NVL_LINK_CONNECTED,
	P2PS_RMF_NVL_LINK_REMOTE_LINK,
	P2PS_RMF_NVL_LINK_REMOTE,
	P2PS_RMF_NVL_DEV_DOMAIN,
	P2PS_RMF_NVL_DEV_BUS,
	P2PS_RMF_NVL_DEV_DEVICE,
	P2PS_RMF_NVL_DEV_FUNCTION,
	P2PS_RMF_NVL_DEV_PCI_DEVICE_ID,
	P2PS_RMF_NVL_DEV_TYPE,
	/* NV0000_CTRL_SYSTEM_GET_P2P_CAPS_V2_PARAMS */
	P2PS_RMF_P2P_SIZE,
	P2PS_RMF_P2P_GPU_IDS,
	P2PS_RMF_P2P_GPU_COUNT,
	P2PS_RMF_P2P_CAPS,
	P2PS_RMF_P2P_STATUS,
	P2PS_RMF_P2P_PEER_IDS,
	/* NV0000_CTRL_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS */
	P2PS_RMF_P2PM_SIZE,
	P2PS_RMF_P2PM_A_COUNT,
	P2PS_RMF_P2PM_B_COUNT,
	P2PS_RMF_P2PM_A_IDS,
	P2PS_RMF_P2PM_B_IDS,
	P2PS_RMF_P2PM_CAPS,
	/* NV0000_CTRL_SYSTEM_GET_CPU_INFO_PARAMS */
	P2PS_RMF_CPU_SIZE,
	P2PS_RMF_CPU_TYPE,
	P2PS_RMF_CPU_CLOCK,
	P2PS_RMF_CPU_LOGICAL,
	P2PS_RMF_CPU_PHYSICAL,
	P2PS_RMF_CPU_NAME,
	P2PS_RMF_CPU_FAMILY,
	P2PS_RMF_CPU_MODEL,
	/* NV0000_CTRL_SYSTEM_GET_CHIPSET_INFO_PARAMS */
	P2PS_RMF_CHIPSET_SIZE,
	P2PS_RMF_CHIPSET_VENDOR,
	P2PS_RMF_CHIPSET_DEVICE,
	P2PS_RMF_CHIPSET_HB_VENDOR,
	P2PS_RMF_CHIPSET_HB_DEVICE,
	P2PS_RMF_CHIPSET_VENDOR_NAME,
	P2PS_RMF_CHIPSET_NAME,
	P2PS_RMF_CHIPSET_FLAGS,
	/* NV0080_CTRL_DMA_GET_PDE_INFO_PARAMS, NV0080_CTRL_DMA_PDE_INFO_PTE_BLOCK */
	P2PS_RMF_PDE_SIZE,
	P2PS_RMF_PDE_GPU_ADDR,
	P2PS_RMF_PDE_BLOCKS,
	P2PS_RMF_PDE_PDB,
	P2PS_RMF_PDE_VASPACE,
	P2PS_RMF_PDE_BLOCK_STRIDE,
	P2PS_RMF_PDE_BLOCK_PHYS,
	P2PS_RMF_PDE_BLOCK_ENTRY_SIZE,
	P2PS_RMF_PDE_BLOCK_PAGE_SIZE,
	P2PS_RMF_PDE_BLOCK_APERTURE,
	/* NV0080_CTRL_DMA_GET_PTE_INFO_PARAMS, NV0080_CTRL_DMA_PTE_INFO_PTE_BLOCK */
	P2PS_RMF_PTE_SIZE,
	P2PS_RMF_PTE_GPU_ADDR,
	P2PS_RMF_PTE_SKIP_VAS_INIT,
	P2PS_RMF_PTE_BLOCKS,
	P2PS_RMF_PTE_VASPACE,
	P2PS_RMF_PTE_BLOCK_STRIDE,
	P2PS_RMF_PTE_BLOCK_PAGE_SIZE,
	P2PS_RMF_PTE_BLOCK_KIND,
	P2PS_RMF_PTE_BLOCK_FLAGS,
	/* NV0041_CTRL_GET_SURFACE_PHYS_ATTR_PARAMS */
	P2PS_RMF_PHYS_SIZE,
	P2PS_RMF_PHYS_OFFSET,
	P2PS_RMF_PHYS_FORMAT,
	/* NV503B_ALLOC_PARAMETERS (an allocation, not a control: NV50_P2P) */
	P2PS_RMF_P2POBJ_SUBDEVICE,
	P2PS_RMF_P2POBJ_PEER_SUBDEVICE,
	P2PS_RMF_P2POBJ_L2P_BAR1_ADDR,
	P2PS_RMF_P2POBJ_L2P_BAR1_SIZE,
	P2PS_RMF_P2POBJ_P2L_FABRIC,
	P2PS_RMF_COUNT
};

/* A row: field `id` of struct `type` ("NV2080_CTRL_FB_GET_INFO_V2_PARAMS") named `field`
 * as in the driver's header ("fbInfoListSize"; "sizeof", "stride" or "count" for the
 * struct's size, an array element's size or an array's length), at `offset` with `size`
 * bytes in the series first..last, as read from the headers of `tag`. */
struct p2ps_rm_field {
	enum p2ps_rm_fid id;
	const char *type;
	const char *field;
	enum p2ps_nv_rm_era first, last; /* inclusive */
	uint16_t offset;
	uint16_t size;
	const char *tag;
};

size_t p2ps_rm_field_count(void);
const struct p2ps_rm_field *p2ps_rm_field_at(size_t i);
/* The row of field id in RM era era, or NULL when that era lacks it. */
const struct p2ps_rm_field *p2ps_rm_field_find(enum p2ps_nv_rm_era era, enum p2ps_rm_fid id);

/* ---- GPUs ------------------------------------------------------------------------------- */

struct p2ps_rm_arch_info {
	uint32_t architecture, implementation, revision;
};
int p2ps_rm_ctrl_arch_info(struct p2ps_rm *rm, uint32_t subdevice, struct p2ps_rm_arch_info *out,
                           uint32_t *rm_status, struct p2ps_error *err);

struct p2ps_rm_id_info {
	uint32_t gpu_id, device_instance, subdevice_instance;
};
int p2ps_rm_ctrl_id_info(struct p2ps_rm *rm, uint32_t gpu_id, struct p2ps_rm_id_info *out,
                         uint32_t *rm_status, struct p2ps_error *err);

/* NV2080_CTRL_CMD_BUS_GET_PCI_INFO: pciDeviceId is device << 16 | vendor. */
struct p2ps_rm_pci_info {
	uint16_t vendor_id, device_id;
	uint16_t subsys_vendor_id, subsys_id;
	uint32_t revision;
};
int p2ps_rm_ctrl_pci_info(struct p2ps_rm *rm, uint32_t subdevice, struct p2ps_rm_pci_info *out,
                          uint32_t *rm_status, struct p2ps_error *err);

/* NV2080_CTRL_CMD_FB_GET_INFO_V2 with the indices below; sizes in KiB as the driver gives
 * them. `reserved` is usable - heap: what the driver keeps for itself out of what it
 * reports as usable (nvidia-smi -q's FB Reserved). */
struct p2ps_rm_fb_info {
	uint64_t ram_kib;        /* RAM_SIZE: framebuffer physically present */
	uint64_t total_ram_kib;  /* TOTAL_RAM_SIZE: video memory incl. dedicated sysmem */
	uint64_t usable_ram_kib; /* USABLE_RAM_SIZE */
	uint64_t heap_kib;       /* HEAP_SIZE: available for allocations */
	uint64_t heap_free_kib;  /* HEAP_FREE */
	uint64_t fb_tax_kib;     /* FB_TAX_SIZE_KB */
	uint64_t bar1_kib;       /* BAR1_SIZE: BAR1 as the driver maps it */
	uint64_t bar1_avail_kib; /* BAR1_AVAIL_SIZE */
};
int p2ps_rm_ctrl_fb_info(struct p2ps_rm *rm, uint32_t subdevice, struct p2ps_rm_fb_info *out,
                         uint32_t *rm_status, struct p2ps_error *err);

/* NV2080_CTRL_CMD_FB_GET_STATIC_BAR1_INFO (570+): whether all of FB is mapped into BAR1
 * once at boot (static BAR1). */
struct p2ps_rm_static_bar1 {
	bool enabled;
	uint64_t start, size;
};
int p2ps_rm_ctrl_static_bar1(struct p2ps_rm *rm, uint32_t subdevice,
                             struct p2ps_rm_static_bar1 *out, uint32_t *rm_status,
                             struct p2ps_error *err);

/* NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS: each enabled link. */
#define P2PS_RM_MAX_NVLINKS         64
#define P2PS_RM_NVLINK_STATE_ACTIVE 3u /* NV2080_CTRL_NVLINK_STATUS_LINK_STATE_ACTIVE */
#define P2PS_RM_NVLINK_STATE_SLEEP  5u /* ..._SLEEP: low power, still connected */
enum p2ps_rm_nvlink_dev_type {
	P2PS_RM_NVLINK_DEV_EBRIDGE = 0,
	P2PS_RM_NVLINK_DEV_NPU = 1,
	P2PS_RM_NVLINK_DEV_GPU = 2,
	P2PS_RM_NVLINK_DEV_SWITCH = 3,
	P2PS_RM_NVLINK_DEV_TEGRA = 4,
	P2PS_RM_NVLINK_DEV_NONE = 0xff,
};
struct p2ps_rm_nvlink {
	unsigned link;
	uint32_t state; /* NV2080_CTRL_NVLINK_STATUS_LINK_STATE_* */
	bool connected;
	uint32_t remote_type; /* enum p2ps_rm_nvlink_dev_type */
	uint32_t remote_domain;
	uint16_t remote_bus, remote_device, remote_function;
	uint32_t remote_pci_device_id;
	uint8_t remote_link;
};
struct p2ps_rm_nvlink_status {
	uint64_t enabled_mask;
	unsigned n;
	struct p2ps_rm_nvlink links[P2PS_RM_MAX_NVLINKS];
};
int p2ps_rm_ctrl_nvlink_status(struct p2ps_rm *rm, uint32_t subdevice,
                               struct p2ps_rm_nvlink_status *out, uint32_t *rm_status,
                               struct p2ps_error *err);
const char *p2ps_rm_nvlink_state_name(uint32_t state);   /* "ACTIVE", or "?" */
const char *p2ps_rm_nvlink_dev_type_name(uint32_t type); /* "GPU", "SWITCH", or "?" */

/* ---- P2P -------------------------------------------------------------------------------- */

/* NV0000_CTRL_SYSTEM_GET_P2P_CAPS_*_SUPPORTED bits of p2pCaps. */
#define P2PS_RM_P2P_CAP_WRITES   (1u << 0)
#define P2PS_RM_P2P_CAP_READS    (1u << 1)
#define P2PS_RM_P2P_CAP_PROP     (1u << 2)
#define P2PS_RM_P2P_CAP_NVLINK   (1u << 3)
#define P2PS_RM_P2P_CAP_ATOMICS  (1u << 4)
#define P2PS_RM_P2P_CAP_LOOPBACK (1u << 5)
#define P2PS_RM_P2P_CAP_PCI      (1u << 6)
#define P2PS_RM_P2P_CAP_C2C      (1u << 12)
#define P2PS_RM_P2P_CAP_PCI_BAR1 (1u << 13)
#define P2PS_RM_INVALID_PEER     0xffffffffu

/* GET_P2P_CAPS_V2 for one ordered pair (gpuCount 2): the caps, the status per path and
 * the bus peer ids each way (peer_id_ab: the id A uses for B). */
struct p2ps_rm_p2p_caps {
	uint32_t caps;
	uint8_t status[P2PS_NV_CAPS_COUNT]; /* by enum p2ps_nv_caps_index: enum p2ps_nv_status */
	uint32_t peer_id_ab, peer_id_ba;
};
int p2ps_rm_ctrl_p2p_caps(struct p2ps_rm *rm, uint32_t gpu_a, uint32_t gpu_b,
                          struct p2ps_rm_p2p_caps *out, uint32_t *rm_status,
                          struct p2ps_error *err);
/* GET_P2P_CAPS_V2 for a group of n GPUs (gpuCount n): the caps and the status per path
 * that hold between all of them, and the bus peer ids, peer_ids[X * n + Y] the id GPU X
 * uses for GPU Y. */
struct p2ps_rm_p2p_group {
	unsigned n;
	uint32_t caps;
	uint8_t status[P2PS_NV_CAPS_COUNT];
	uint32_t peer_ids[P2PS_RM_MAX_CARDS * P2PS_RM_MAX_CARDS];
};
int p2ps_rm_ctrl_p2p_caps_group(struct p2ps_rm *rm, const uint32_t *gpu_ids, unsigned n,
                                struct p2ps_rm_p2p_group *out, uint32_t *rm_status,
                                struct p2ps_error *err);
/* The names of the bits set in caps, ", "-separated, into buf. */
const char *p2ps_rm_p2p_caps_str(uint32_t caps, char *buf, size_t len);

/* GET_P2P_CAPS_MATRIX of a group against itself (at most 8 GPUs): caps[a][b]. */
#define P2PS_RM_P2P_GROUP_MAX 8
struct p2ps_rm_p2p_matrix {
	unsigned n;
	uint32_t caps[P2PS_RM_P2P_GROUP_MAX][P2PS_RM_P2P_GROUP_MAX];
};
int p2ps_rm_ctrl_p2p_matrix(struct p2ps_rm *rm, const uint32_t *gpu_ids, unsigned n,
                            struct p2ps_rm_p2p_matrix *out, uint32_t *rm_status,
                            struct p2ps_error *err);

/* ---- the system ------------------------------------------------------------------------- */

struct p2ps_rm_cpu_info {
	uint32_t type; /* NV0000_CTRL_SYSTEM_CPU_TYPE_* */
	uint32_t clock_mhz;
	uint32_t logical, physical;
	uint32_t family, model;
	char name[53];
};
int p2ps_rm_ctrl_cpu_info(struct p2ps_rm *rm, struct p2ps_rm_cpu_info *out, uint32_t *rm_status,
                          struct p2ps_error *err);
const char *p2ps_rm_cpu_type_name(uint32_t type); /* "XEON_SPR", "RYZEN", or NULL */

struct p2ps_rm_chipset_info {
	uint16_t vendor_id, device_id;       /* 0xffff: not identified */
	uint16_t hb_vendor_id, hb_device_id; /* the host bridge */
	char vendor_name[33], chipset_name[33];
	uint32_t flags; /* bit 0: HAS_RESIZABLE_BAR_ISSUE */
};
int p2ps_rm_ctrl_chipset_info(struct p2ps_rm *rm, struct p2ps_rm_chipset_info *out,
                              uint32_t *rm_status, struct p2ps_error *err);

/* ---- page tables and surfaces (pte-probe) ----------------------------------------------- */

#define P2PS_RM_PTE_BLOCKS 5 /* NV0080_CTRL_DMA_{PDE,PTE}_INFO_PTE_BLOCKS */

struct p2ps_rm_pde_block {
	uint64_t phys;
	uint32_t entry_size, page_size, aperture;
};
struct p2ps_rm_pde_info {
	uint64_t pdb;
	struct p2ps_rm_pde_block blocks[P2PS_RM_PTE_BLOCKS]; /* page_size 0: none */
};
int p2ps_rm_ctrl_pde_info(struct p2ps_rm *rm, uint32_t device, uint32_t vaspace, uint64_t va,
                          struct p2ps_rm_pde_info *out, uint32_t *rm_status,
                          struct p2ps_error *err);

struct p2ps_rm_pte_block {
	uint64_t page_size; /* 0: none */
	uint32_t kind, flags;
};
struct p2ps_rm_pte_info {
	struct p2ps_rm_pte_block blocks[P2PS_RM_PTE_BLOCKS];
};
/* skipVASpaceInit is set: the driver answers about the VA space, it does not set it up. */
int p2ps_rm_ctrl_pte_info(struct p2ps_rm *rm, uint32_t device, uint32_t vaspace, uint64_t va,
                          struct p2ps_rm_pte_info *out, uint32_t *rm_status,
                          struct p2ps_error *err);

/* NV0080_CTRL_DMA_PTE_INFO_PARAMS_FLAGS_* of a PTE block's pteFlags. */
struct p2ps_rm_pte_flags {
	bool valid;          /* VALID 0:0 */
	unsigned aperture;   /* APERTURE 6:3: 0 video, 1 peer, 2 coherent, 3 non-coherent sysmem */
	unsigned gpu_cached; /* GPU_CACHED 12:11: 0 false, 1 true, 2 not supported */
	bool read_only;      /* READ_ONLY 15:15 */
};
void p2ps_rm_pte_flags_decode(uint32_t flags, struct p2ps_rm_pte_flags *out);

/* NV0041_CTRL_CMD_GET_SURFACE_PHYS_ATTR at offset of memory hmem. */
struct p2ps_rm_phys_attr {
	uint64_t address;
	uint32_t format;
};
int p2ps_rm_ctrl_phys_attr(struct p2ps_rm *rm, uint32_t hmem, uint64_t offset,
                           struct p2ps_rm_phys_attr *out, uint32_t *rm_status,
                           struct p2ps_error *err);

/* NV50_P2P between two subdevices (this changes the driver's peer state while it lives):
 * the BAR1-P2P window and, from 590, the peer's fabric base (UINT64_MAX when the series
 * does not report it). */
struct p2ps_rm_p2p_object {
	uint32_t handle;
	uint64_t bar1_address, bar1_size;
	uint64_t peer_fabric_base;
};
int p2ps_rm_p2p_object_alloc(struct p2ps_rm *rm, uint32_t subdevice, uint32_t peer_subdevice,
                             struct p2ps_rm_p2p_object *out, uint32_t *rm_status,
                             struct p2ps_error *err);

/* The GPU_CACHEABLE field of NVOS46 flags (18:17): P2PS_RM_MAP_CACHEABLE_*. */
static inline unsigned p2ps_rm_map_gpu_cacheable(uint32_t nvos46_flags)
{
	return (nvos46_flags >> 17) & 3u;
}

#ifdef __cplusplus
}
#endif

#endif
