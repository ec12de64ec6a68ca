/* SPDX-License-Identifier: MIT */
/* The typed controls pte-probe uses (page tables, surfaces, the P2P object) and the names
 * of the values the controls answer with. */
#include "rm_internal.h"

#include <stdio.h>

#include "p2pscope/rm_ctrl.h"

int p2ps_rm_ctrl_pde_info(struct p2ps_rm *rm, uint32_t device, uint32_t vaspace, uint64_t va,
                          struct p2ps_rm_pde_info *out, uint32_t *rm_status, struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[256] = {0};
	p2ps_put_le64(b + rm_fl_off(&l, P2PS_RMF_PDE_GPU_ADDR), va);
	p2ps_put_le32(b + rm_fl_off(&l, P2PS_RMF_PDE_VASPACE), vaspace);
	int rc = rm_fl_issue(rm, &l, device, P2PS_RM_CTRL_DMA_GET_PDE_INFO, P2PS_RMF_PDE_SIZE, b,
	                     sizeof(b), rm_status, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->pdb = p2ps_le64(b + rm_fl_off(&l, P2PS_RMF_PDE_PDB));
	size_t blocks = rm_fl_off(&l, P2PS_RMF_PDE_BLOCKS),
	       stride = rm_fl_size(&l, P2PS_RMF_PDE_BLOCK_STRIDE);
	for (unsigned i = 0; i < P2PS_RM_PTE_BLOCKS; i++) {
		const uint8_t *t = b + blocks + stride * i;
		out->blocks[i] = (struct p2ps_rm_pde_block){
		        .phys = p2ps_le64(t + rm_fl_off(&l, P2PS_RMF_PDE_BLOCK_PHYS)),
		        .entry_size = p2ps_le32(t + rm_fl_off(&l, P2PS_RMF_PDE_BLOCK_ENTRY_SIZE)),
		        .page_size = p2ps_le32(t + rm_fl_off(&l, P2PS_RMF_PDE_BLOCK_PAGE_SIZE)),
		        .aperture = p2ps_le32(t + rm_fl_off(&l, P2PS_RMF_PDE_BLOCK_APERTURE)),
		};
	}
	return 0;
}

int p2ps_rm_ctrl_pte_info(struct p2ps_rm *rm, uint32_t device, uint32_t vaspace, uint64_t va,
                          struct p2ps_rm_pte_info *out, uint32_t *rm_status, struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[256] = {0};
	p2ps_put_le64(b + rm_fl_off(&l, P2PS_RMF_PTE_GPU_ADDR), va);
	b[rm_fl_off(&l, P2PS_RMF_PTE_SKIP_VAS_INIT)] = 1; /* ask, do not set up */
	p2ps_put_le32(b + rm_fl_off(&l, P2PS_RMF_PTE_VASPACE), vaspace);
	int rc = rm_fl_issue(rm, &l, device, P2PS_RM_CTRL_DMA_GET_PTE_INFO, P2PS_RMF_PTE_SIZE, b,
	                     sizeof(b), rm_status, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	size_t blocks = rm_fl_off(&l, P2PS_RMF_PTE_BLOCKS),
	       stride = rm_fl_size(&l, P2PS_RMF_PTE_BLOCK_STRIDE);
	for (unsigned i = 0; i < P2PS_RM_PTE_BLOCKS; i++) {
		const uint8_t *t = b + blocks + stride * i;
		out->blocks[i] = (struct p2ps_rm_pte_block){
		        .page_size = p2ps_le64(t + rm_fl_off(&l, P2PS_RMF_PTE_BLOCK_PAGE_SIZE)),
		        .kind = p2ps_le32(t + rm_fl_off(&l, P2PS_RMF_PTE_BLOCK_KIND)),
		        .flags = p2ps_le32(t + rm_fl_off(&l, P2PS_RMF_PTE_BLOCK_FLAGS)),
		};
	}
	return 0;
}

void p2ps_rm_pte_flags_decode(uint32_t f, struct p2ps_rm_pte_flags *out)
{
	*out = (struct p2ps_rm_pte_flags){
	        .valid = f & 1u,
	        .aperture = (f >> 3) & 0xfu,
	        .gpu_cached = (f >> 11) & 3u,
	        .read_only = (f >> 15) & 1u,
	};
}

int p2ps_rm_ctrl_phys_attr(struct p2ps_rm *rm, uint32_t hmem, uint64_t offset,
                           struct p2ps_rm_phys_attr *out, uint32_t *rm_status,
                           struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[64] = {0};
	/* memOffset: in, the offset; out, its physical address. */
	p2ps_put_le64(b + rm_fl_off(&l, P2PS_RMF_PHYS_OFFSET), offset);
	int rc = rm_fl_issue(rm, &l, hmem, P2PS_RM_CTRL_GET_SURFACE_PHYS_ATTR, P2PS_RMF_PHYS_SIZE,
	                     b, sizeof(b), rm_status, err);
	if (rc)
		return rc;
	out->address = p2ps_le64(b + rm_fl_off(&l, P2PS_RMF_PHYS_OFFSET));
	out->format = p2ps_le32(b + rm_fl_off(&l, P2PS_RMF_PHYS_FORMAT));
	return 0;
}

int p2ps_rm_p2p_object_alloc(struct p2ps_rm *rm, uint32_t subdevice, uint32_t peer_subdevice,
                             struct p2ps_rm_p2p_object *out, uint32_t *rm_status,
                             struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[128] = {0};
	p2ps_put_le32(b + rm_fl_off(&l, P2PS_RMF_P2POBJ_SUBDEVICE), subdevice);
	p2ps_put_le32(b + rm_fl_off(&l, P2PS_RMF_P2POBJ_PEER_SUBDEVICE), peer_subdevice);
	*out = (struct p2ps_rm_p2p_object){.peer_fabric_base = UINT64_MAX};
	if (!l.ok)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "NV50_P2P: not in the layouts of driver series %u",
		                      rm->drv.major);
	int rc = p2ps_rm_alloc(rm, rm->client, P2PS_RM_P2P, b, rm->drv.layout->p2p_size,
	                       &out->handle, rm_status, err);
	if (rc)
		return rc;
	out->bar1_address = p2ps_le64(b + rm_fl_off(&l, P2PS_RMF_P2POBJ_L2P_BAR1_ADDR));
	out->bar1_size = p2ps_le64(b + rm_fl_off(&l, P2PS_RMF_P2POBJ_L2P_BAR1_SIZE));
	/* Only from 590: absent before, not an error. */
	const struct p2ps_rm_field *fab =
	        p2ps_rm_field_find(rm->drv.layout->era, P2PS_RMF_P2POBJ_P2L_FABRIC);
	if (fab)
		out->peer_fabric_base = p2ps_le64(b + fab->offset);
	return 0;
}

/* NV0000_CTRL_SYSTEM_GET_P2P_CAPS_*_SUPPORTED: the bits named as their caps index where
 * there is one (p2ps_nv_caps_index_name), else by their own words. */
static const char *caps_bit_name(unsigned bit)
{
	static const struct {
		int index; /* enum p2ps_nv_caps_index, or -1 */
		const char *own;
	} bits[] = {{-1, "writes"},
	            {-1, "reads"},
	            {P2PS_NV_CAPS_PROP, NULL},
	            {P2PS_NV_CAPS_NVLINK, NULL},
	            {P2PS_NV_CAPS_ATOMICS, NULL},
	            {P2PS_NV_CAPS_LOOPBACK, NULL},
	            {P2PS_NV_CAPS_PCI, NULL},
	            {-1, "indirect writes"},
	            {-1, "indirect reads"},
	            {-1, "indirect atomics"},
	            {-1, "indirect nvlink"},
	            {-1, NULL},
	            {P2PS_NV_CAPS_C2C, NULL},
	            {P2PS_NV_CAPS_PCI_BAR1, NULL}};
	if (bit >= RM_ARRAY_SIZE(bits))
		return "?";
	if (bits[bit].index >= 0)
		return p2ps_nv_caps_index_name((unsigned)bits[bit].index);
	return bits[bit].own ? bits[bit].own : "?";
}

const char *p2ps_rm_p2p_caps_str(uint32_t caps, char *buf, size_t len)
{
	size_t n = 0;
	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < 32 && n < len; i++) {
		if (!(caps >> i & 1))
			continue;
		const char *name = caps_bit_name(i);
		int k = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
		n += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* NV2080_CTRL_NVLINK_STATUS_LINK_STATE_* */
const char *p2ps_rm_nvlink_state_name(uint32_t state)
{
	static const char *const names[] = {"INIT",        "HWCFG", "SWCFG",      "ACTIVE",
	                                    "FAULT",       "SLEEP", "RECOVERY",   NULL,
	                                    "RECOVERY_AC", NULL,    "RECOVERY_RX"};
	return state < RM_ARRAY_SIZE(names) && names[state] ? names[state] : "?";
}

/* NV2080_CTRL_NVLINK_DEVICE_INFO_DEVICE_TYPE_* */
const char *p2ps_rm_nvlink_dev_type_name(uint32_t type)
{
	static const char *const names[] = {"EBRIDGE", "NPU", "GPU", "SWITCH", "TEGRA"};
	if (type == P2PS_RM_NVLINK_DEV_NONE)
		return "NONE";
	return type < RM_ARRAY_SIZE(names) ? names[type] : "?";
}

/* NV0000_CTRL_SYSTEM_CPU_TYPE_* of current server processors. */
const char *p2ps_rm_cpu_type_name(uint32_t type)
{
	static const struct {
		uint32_t v;
		const char *name;
	} t[] = {{0x00, "UNKNOWN"},
	         {0x10, "CORE2"},
	         {0x13, "ATOM"},
	         {0x14, "XEON_SPR"},
	         {0x35, "K8"},
	         {0x36, "K10"},
	         {0x37, "K11"},
	         {0x38, "RYZEN"},
	         {0xA0000000u, "ARM_UNKNOWN"},
	         {0xA00FF000u, "ARMV8A_GENERIC"},
	         {0xA00FF001u, "ARMV9A_GENERIC"}};
	for (size_t i = 0; i < RM_ARRAY_SIZE(t); i++)
		if (t[i].v == type)
			return t[i].name;
	return NULL;
}
