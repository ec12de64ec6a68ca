/* SPDX-License-Identifier: MIT */
/* What this library may ask of the driver, and what it never asks.
 *
 * Allowed: the object classes of enum p2ps_rm_class and the controls of enum p2ps_rm_ctrl,
 * each of which only reads driver state (GET_PDE_INFO may instantiate the page-table levels
 * of a VA range in the caller's own VA space; that is the driver filling its own tables,
 * not a write by us). Everything else is refused by p2ps_rm_control() before it reaches
 * the driver. The excluded list names the dangerous neighbours explicitly, so that the
 * refusal says why and docs/pte-probe.md can print the list; the numbers are from the
 * driver's ctrl*.h headers (595.45.04).
 */
#include "rm_internal.h"

struct named {
	uint32_t value;
	const char *name;
};

static const struct named classes[] = {
        {P2PS_RM_ROOT_CLIENT, "NV01_ROOT_CLIENT"},
        {P2PS_RM_DEVICE, "NV01_DEVICE_0"},
        {P2PS_RM_SUBDEVICE, "NV20_SUBDEVICE_0"},
        {P2PS_RM_VASPACE, "FERMI_VASPACE_A"},
        {P2PS_RM_MEMORY_VIRTUAL, "NV01_MEMORY_VIRTUAL"},
        {P2PS_RM_MEMORY_LOCAL_USER, "NV01_MEMORY_LOCAL_USER"},
        {P2PS_RM_MEMORY_SYSTEM, "NV01_MEMORY_SYSTEM"},
        {P2PS_RM_MEMORY_LOCAL_PHYSICAL, "NV01_MEMORY_LOCAL_PHYSICAL"},
        {P2PS_RM_P2P, "NV50_P2P"},
};

static const struct named controls[] = {
        {P2PS_RM_CTRL_GPU_GET_ID_INFO_V2, "NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2"},
        {P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_V2, "NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2"},
        {P2PS_RM_CTRL_MC_GET_ARCH_INFO, "NV2080_CTRL_CMD_MC_GET_ARCH_INFO"},
        {P2PS_RM_CTRL_DMA_GET_PTE_INFO, "NV0080_CTRL_CMD_DMA_GET_PTE_INFO"},
        {P2PS_RM_CTRL_DMA_GET_PDE_INFO, "NV0080_CTRL_CMD_DMA_GET_PDE_INFO"},
        {P2PS_RM_CTRL_GET_SURFACE_PHYS_ATTR, "NV0041_CTRL_CMD_GET_SURFACE_PHYS_ATTR"},
        {P2PS_RM_CTRL_SYSTEM_GET_CPU_INFO, "NV0000_CTRL_CMD_SYSTEM_GET_CPU_INFO"},
        {P2PS_RM_CTRL_SYSTEM_GET_CHIPSET_INFO, "NV0000_CTRL_CMD_SYSTEM_GET_CHIPSET_INFO"},
        {P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_MATRIX, "NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX"},
        {P2PS_RM_CTRL_BUS_GET_PCI_INFO, "NV2080_CTRL_CMD_BUS_GET_PCI_INFO"},
        {P2PS_RM_CTRL_FB_GET_INFO_V2, "NV2080_CTRL_CMD_FB_GET_INFO_V2"},
        {P2PS_RM_CTRL_FB_GET_STATIC_BAR1_INFO, "NV2080_CTRL_CMD_FB_GET_STATIC_BAR1_INFO"},
        {P2PS_RM_CTRL_NVLINK_GET_NVLINK_STATUS, "NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS"},
};

static const struct p2ps_rm_excluded excluded[] = {
        {0x0080180a, "NV0080_CTRL_CMD_DMA_SET_PTE_INFO", "writes page-table entries"},
        {0x00801802, "NV0080_CTRL_CMD_DMA_FILL_PTE_MEM", "writes page-table entries"},
        {0x0080180f, "NV0080_CTRL_CMD_DMA_UPDATE_PDE_2", "writes page-directory entries"},
        {0x00801813, "NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY", "replaces a page directory"},
        {0x00801814, "NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY", "removes a page directory"},
        {0x0080180e, "NV0080_CTRL_CMD_DMA_SET_VA_SPACE_SIZE", "resizes a VA space's tables"},
        {0x0080180c, "NV0080_CTRL_CMD_DMA_INVALIDATE_TLB", "invalidates TLBs"},
        {0x00801805, "NV0080_CTRL_CMD_DMA_FLUSH", "flushes caches and invalidates TLBs"},
        {0x20802502, "NV2080_CTRL_CMD_DMA_INVALIDATE_TLB", "invalidates TLBs"},
        {0x2080130e, "NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE", "flushes and invalidates GPU caches"},
        {0x00410116, "NV0041_CTRL_CMD_SURFACE_FLUSH_GPU_CACHE", "flushes GPU caches"},
        {0x90f10103, "NV90F1_CTRL_CMD_VASPACE_RESERVE_ENTRIES", "pins page-directory entries"},
        {0x90f10104, "NV90F1_CTRL_CMD_VASPACE_RELEASE_ENTRIES", "releases pinned entries"},
        {0x2080182e, "NV2080_CTRL_CMD_BUS_SET_P2P_MAPPING", "reprograms peer mappings"},
        {0x2080016f, "NV2080_CTRL_CMD_GPU_SET_FABRIC_BASE_ADDR", "changes the fabric base"},
        {0x00000215, "NV0000_CTRL_CMD_GPU_ATTACH_IDS", "attaches GPUs (driver state)"},
        /* The registry is reached through an escape, not a control; it is listed so the
         * list is complete. This library has no way to issue NV_ESC_RM_ACCESS_REGISTRY. */
        {0x0000004d, "NV_ESC_RM_ACCESS_REGISTRY (escape)", "reads and writes registry keys"},
};

static const char *find(const struct named *t, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

const char *p2ps_rm_class_name(uint32_t cls)
{
	return find(classes, RM_ARRAY_SIZE(classes), cls);
}

const char *p2ps_rm_ctrl_name(uint32_t cmd)
{
	return find(controls, RM_ARRAY_SIZE(controls), cmd);
}

size_t p2ps_rm_excluded_count(void)
{
	return RM_ARRAY_SIZE(excluded);
}

const struct p2ps_rm_excluded *p2ps_rm_excluded_at(size_t i)
{
	return i < RM_ARRAY_SIZE(excluded) ? &excluded[i] : NULL;
}
