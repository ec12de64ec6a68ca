/* SPDX-License-Identifier: MIT */
/* The typed controls of rm_ctrl.h: each builds its parameters from the field table
 * (fields.c) of the loaded driver's series and reads the answer back by field. */
#include "rm_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "p2pscope/rm_ctrl.h"

/* The largest parameter struct issued here (GET_NVLINK_STATUS of 590: 13864 bytes). */
#define CTRL_BUF_MAX 16384

static const struct p2ps_rm_field *row(struct rm_fl *l, enum p2ps_rm_fid id)
{
	const struct p2ps_rm_field *f = p2ps_rm_field_find(l->era, id);
	if (!f)
		l->ok = false;
	return f;
}

size_t rm_fl_off(struct rm_fl *l, enum p2ps_rm_fid id)
{
	const struct p2ps_rm_field *f = row(l, id);
	return f ? f->offset : 0;
}

size_t rm_fl_size(struct rm_fl *l, enum p2ps_rm_fid id)
{
	const struct p2ps_rm_field *f = row(l, id);
	return f ? f->size : 0;
}

uint64_t rm_fl_get(struct rm_fl *l, const uint8_t *b, size_t base, enum p2ps_rm_fid id)
{
	const struct p2ps_rm_field *f = row(l, id);
	if (!f)
		return 0;
	const uint8_t *p = b + base + f->offset;
	switch (f->size) {
	case 1: return p[0];
	case 2: return p2ps_le16(p);
	case 4: return p2ps_le32(p);
	case 8: return p2ps_le64(p);
	}
	return 0;
}

void rm_fl_put(struct rm_fl *l, uint8_t *b, size_t base, enum p2ps_rm_fid id, uint64_t v)
{
	const struct p2ps_rm_field *f = row(l, id);
	if (!f)
		return;
	uint8_t *p = b + base + f->offset;
	switch (f->size) {
	case 1: p[0] = (uint8_t)v; break;
	case 2: p2ps_put_le16(p, (uint16_t)v); break;
	case 4: p2ps_put_le32(p, (uint32_t)v); break;
	case 8: p2ps_put_le64(p, v); break;
	}
}

struct rm_fl rm_fl_of(const struct p2ps_rm *rm)
{
	return (struct rm_fl){.era = rm->drv.layout->era, .ok = true};
}

static int unsupported(struct p2ps_error *err, const struct p2ps_rm *rm, const char *what)
{
	return p2ps_error_set(err, P2PS_ENOTSUP, "%s: not in the layouts of driver series %u", what,
	                      rm->drv.major);
}

int rm_fl_issue(struct p2ps_rm *rm, struct rm_fl *l, uint32_t object, uint32_t cmd,
                enum p2ps_rm_fid size_id, uint8_t *b, size_t cap, uint32_t *rm_status,
                struct p2ps_error *err)
{
	size_t n = rm_fl_size(l, size_id);
	if (!l->ok || n == 0 || n > cap) {
		const char *name = p2ps_rm_ctrl_name(cmd);
		return unsupported(err, rm, name ? name : "control");
	}
	return p2ps_rm_control(rm, object, cmd, b, (uint32_t)n, rm_status, err);
}

int p2ps_rm_ctrl_id_info(struct p2ps_rm *rm, uint32_t gpu_id, struct p2ps_rm_id_info *out,
                         uint32_t *rm_status, struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[64] = {0};
	rm_fl_put(&l, b, 0, P2PS_RMF_ID_INFO_GPU_ID, gpu_id);
	int rc = rm_fl_issue(rm, &l, rm->client, P2PS_RM_CTRL_GPU_GET_ID_INFO_V2,
	                     P2PS_RMF_ID_INFO_SIZE, b, sizeof(b), rm_status, err);
	if (rc)
		return rc;
	*out = (struct p2ps_rm_id_info){
	        .gpu_id = gpu_id,
	        .device_instance = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_ID_INFO_DEVICE_INSTANCE),
	        .subdevice_instance =
	                (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_ID_INFO_SUBDEVICE_INSTANCE),
	};
	return 0;
}

int p2ps_rm_ctrl_arch_info(struct p2ps_rm *rm, uint32_t subdevice, struct p2ps_rm_arch_info *out,
                           uint32_t *rm_status, struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[64] = {0};
	int rc = rm_fl_issue(rm, &l, subdevice, P2PS_RM_CTRL_MC_GET_ARCH_INFO, P2PS_RMF_ARCH_SIZE,
	                     b, sizeof(b), rm_status, err);
	if (rc)
		return rc;
	*out = (struct p2ps_rm_arch_info){
	        .architecture = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_ARCH_ARCHITECTURE),
	        .implementation = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_ARCH_IMPLEMENTATION),
	        .revision = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_ARCH_REVISION),
	};
	return 0;
}

int p2ps_rm_ctrl_pci_info(struct p2ps_rm *rm, uint32_t subdevice, struct p2ps_rm_pci_info *out,
                          uint32_t *rm_status, struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[64] = {0};
	int rc = rm_fl_issue(rm, &l, subdevice, P2PS_RM_CTRL_BUS_GET_PCI_INFO, P2PS_RMF_PCI_SIZE, b,
	                     sizeof(b), rm_status, err);
	if (rc)
		return rc;
	uint32_t id = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_PCI_DEVICE_ID);
	uint32_t sub = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_PCI_SUBSYSTEM_ID);
	*out = (struct p2ps_rm_pci_info){
	        .vendor_id = (uint16_t)id,
	        .device_id = (uint16_t)(id >> 16),
	        .subsys_vendor_id = (uint16_t)sub,
	        .subsys_id = (uint16_t)(sub >> 16),
	        .revision = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_PCI_REVISION_ID),
	};
	return 0;
}

/* NV2080_CTRL_FB_INFO_INDEX_* (the same values in every supported series). */
static const struct {
	uint32_t index;
	size_t field; /* offsetof(struct p2ps_rm_fb_info, ...) */
} fb_indices[] = {
        {0x07, offsetof(struct p2ps_rm_fb_info, ram_kib)},
        {0x08, offsetof(struct p2ps_rm_fb_info, total_ram_kib)},
        {0x20, offsetof(struct p2ps_rm_fb_info, usable_ram_kib)},
        {0x09, offsetof(struct p2ps_rm_fb_info, heap_kib)},
        {0x16, offsetof(struct p2ps_rm_fb_info, heap_free_kib)},
        {0x10, offsetof(struct p2ps_rm_fb_info, fb_tax_kib)},
        {0x05, offsetof(struct p2ps_rm_fb_info, bar1_kib)},
        {0x1d, offsetof(struct p2ps_rm_fb_info, bar1_avail_kib)},
};

int p2ps_rm_ctrl_fb_info(struct p2ps_rm *rm, uint32_t subdevice, struct p2ps_rm_fb_info *out,
                         uint32_t *rm_status, struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[CTRL_BUF_MAX] = {0};
	size_t list = rm_fl_off(&l, P2PS_RMF_FB_LIST),
	       stride = rm_fl_size(&l, P2PS_RMF_FB_ENTRY_STRIDE);
	size_t n = RM_ARRAY_SIZE(fb_indices);
	rm_fl_put(&l, b, 0, P2PS_RMF_FB_LIST_SIZE, n);
	for (size_t i = 0; i < n; i++)
		rm_fl_put(&l, b, list + i * stride, P2PS_RMF_FB_ENTRY_INDEX, fb_indices[i].index);
	int rc = rm_fl_issue(rm, &l, subdevice, P2PS_RM_CTRL_FB_GET_INFO_V2, P2PS_RMF_FB_SIZE, b,
	                     sizeof(b), rm_status, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		uint64_t v = rm_fl_get(&l, b, list + i * stride, P2PS_RMF_FB_ENTRY_DATA);
		memcpy((char *)out + fb_indices[i].field, &v, sizeof(v));
	}
	return 0;
}

int p2ps_rm_ctrl_static_bar1(struct p2ps_rm *rm, uint32_t subdevice,
                             struct p2ps_rm_static_bar1 *out, uint32_t *rm_status,
                             struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[64] = {0};
	int rc = rm_fl_issue(rm, &l, subdevice, P2PS_RM_CTRL_FB_GET_STATIC_BAR1_INFO,
	                     P2PS_RMF_SBAR1_SIZE, b, sizeof(b), rm_status, err);
	if (rc)
		return rc;
	/* 565's struct has no staticBar1StartOffset: its static BAR1 sits at offset 0
	 * (kbusEnableStaticBar1Mapping_TU102, 565.57.01), which the missing field reads. */
	*out = (struct p2ps_rm_static_bar1){
	        .enabled = rm_fl_get(&l, b, 0, P2PS_RMF_SBAR1_ENABLED) != 0,
	        .start = rm_fl_get(&l, b, 0, P2PS_RMF_SBAR1_START),
	        .size = rm_fl_get(&l, b, 0, P2PS_RMF_SBAR1_BYTES),
	};
	return 0;
}

int p2ps_rm_ctrl_nvlink_status(struct p2ps_rm *rm, uint32_t subdevice,
                               struct p2ps_rm_nvlink_status *out, uint32_t *rm_status,
                               struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t *b = calloc(1, CTRL_BUF_MAX);
	if (!b)
		return p2ps_error_set(err, P2PS_ENOMEM, "GET_NVLINK_STATUS: out of memory");
	int rc = rm_fl_issue(rm, &l, subdevice, P2PS_RM_CTRL_NVLINK_GET_NVLINK_STATUS,
	                     P2PS_RMF_NVL_SIZE, b, CTRL_BUF_MAX, rm_status, err);
	if (rc) {
		free(b);
		return rc;
	}
	memset(out, 0, sizeof(*out));
	out->enabled_mask = rm_fl_get(&l, b, 0, P2PS_RMF_NVL_ENABLED_MASK);
	size_t links = rm_fl_off(&l, P2PS_RMF_NVL_LINK_INFO),
	       stride = rm_fl_size(&l, P2PS_RMF_NVL_LINK_STRIDE);
	size_t count = rm_fl_size(&l, P2PS_RMF_NVL_LINK_COUNT),
	       remote = rm_fl_off(&l, P2PS_RMF_NVL_LINK_REMOTE);
	for (unsigned i = 0; i < count && i < 64 && out->n < P2PS_RM_MAX_NVLINKS; i++) {
		if (!(out->enabled_mask >> i & 1))
			continue;
		size_t base = links + i * stride, r = base + remote;
		out->links[out->n++] = (struct p2ps_rm_nvlink){
		        .link = i,
		        .state = (uint32_t)rm_fl_get(&l, b, base, P2PS_RMF_NVL_LINK_STATE),
		        .connected = rm_fl_get(&l, b, base, P2PS_RMF_NVL_LINK_CONNECTED) != 0,
		        .remote_link =
		                (uint8_t)rm_fl_get(&l, b, base, P2PS_RMF_NVL_LINK_REMOTE_LINK),
		        .remote_type = (uint32_t)rm_fl_get(&l, b, r, P2PS_RMF_NVL_DEV_TYPE),
		        .remote_domain = (uint32_t)rm_fl_get(&l, b, r, P2PS_RMF_NVL_DEV_DOMAIN),
		        .remote_bus = (uint16_t)rm_fl_get(&l, b, r, P2PS_RMF_NVL_DEV_BUS),
		        .remote_device = (uint16_t)rm_fl_get(&l, b, r, P2PS_RMF_NVL_DEV_DEVICE),
		        .remote_function = (uint16_t)rm_fl_get(&l, b, r, P2PS_RMF_NVL_DEV_FUNCTION),
		        .remote_pci_device_id =
		                (uint32_t)rm_fl_get(&l, b, r, P2PS_RMF_NVL_DEV_PCI_DEVICE_ID),
		};
	}
	free(b);
	return 0;
}

int p2ps_rm_ctrl_p2p_caps_group(struct p2ps_rm *rm, const uint32_t *gpu_ids, unsigned n,
                                struct p2ps_rm_p2p_group *out, uint32_t *rm_status,
                                struct p2ps_error *err)
{
	if (n == 0 || n > P2PS_RM_MAX_CARDS)
		return p2ps_error_set(err, P2PS_EINVAL, "GET_P2P_CAPS_V2: %u GPUs (1 to %d)", n,
		                      P2PS_RM_MAX_CARDS);
	struct rm_fl l = rm_fl_of(rm);
	uint8_t *b = calloc(1, CTRL_BUF_MAX);
	if (!b)
		return p2ps_error_set(err, P2PS_ENOMEM, "GET_P2P_CAPS_V2: out of memory");
	size_t ids = rm_fl_off(&l, P2PS_RMF_P2P_GPU_IDS);
	for (unsigned i = 0; i < n; i++)
		p2ps_put_le32(b + ids + 4 * i, gpu_ids[i]);
	rm_fl_put(&l, b, 0, P2PS_RMF_P2P_GPU_COUNT, n);
	int rc = rm_fl_issue(rm, &l, rm->client, P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_V2,
	                     P2PS_RMF_P2P_SIZE, b, CTRL_BUF_MAX, rm_status, err);
	if (rc == 0) {
		out->n = n;
		out->caps = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_P2P_CAPS);
		memcpy(out->status, b + rm_fl_off(&l, P2PS_RMF_P2P_STATUS), P2PS_NV_CAPS_COUNT);
		/* busPeerIds[X * gpuCount + Y]: the id GPU X uses for GPU Y. */
		size_t peers = rm_fl_off(&l, P2PS_RMF_P2P_PEER_IDS);
		for (unsigned i = 0; i < n * n; i++)
			out->peer_ids[i] = p2ps_le32(b + peers + 4 * i);
	}
	free(b);
	return rc;
}

int p2ps_rm_ctrl_p2p_caps(struct p2ps_rm *rm, uint32_t gpu_a, uint32_t gpu_b,
                          struct p2ps_rm_p2p_caps *out, uint32_t *rm_status, struct p2ps_error *err)
{
	const uint32_t ids[2] = {gpu_a, gpu_b};
	struct p2ps_rm_p2p_group *g = calloc(1, sizeof(*g));
	if (!g)
		return p2ps_error_set(err, P2PS_ENOMEM, "GET_P2P_CAPS_V2: out of memory");
	int rc = p2ps_rm_ctrl_p2p_caps_group(rm, ids, 2, g, rm_status, err);
	if (rc == 0) {
		out->caps = g->caps;
		memcpy(out->status, g->status, sizeof(out->status));
		out->peer_id_ab = g->peer_ids[1];
		out->peer_id_ba = g->peer_ids[2];
	}
	free(g);
	return rc;
}

int p2ps_rm_ctrl_p2p_matrix(struct p2ps_rm *rm, const uint32_t *gpu_ids, unsigned n,
                            struct p2ps_rm_p2p_matrix *out, uint32_t *rm_status,
                            struct p2ps_error *err)
{
	if (n == 0 || n > P2PS_RM_P2P_GROUP_MAX)
		return p2ps_error_set(err, P2PS_EINVAL, "GET_P2P_CAPS_MATRIX: %u GPUs (1 to %d)", n,
		                      P2PS_RM_P2P_GROUP_MAX);
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[2048] = {0};
	rm_fl_put(&l, b, 0, P2PS_RMF_P2PM_A_COUNT, n);
	rm_fl_put(&l, b, 0, P2PS_RMF_P2PM_B_COUNT, 0); /* the group against itself */
	size_t a_ids = rm_fl_off(&l, P2PS_RMF_P2PM_A_IDS);
	for (unsigned i = 0; i < n; i++)
		p2ps_put_le32(b + a_ids + 4 * i, gpu_ids[i]);
	int rc = rm_fl_issue(rm, &l, rm->client, P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_MATRIX,
	                     P2PS_RMF_P2PM_SIZE, b, sizeof(b), rm_status, err);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->n = n;
	size_t caps = rm_fl_off(&l, P2PS_RMF_P2PM_CAPS);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			out->caps[i][j] = p2ps_le32(b + caps + 4 * (i * P2PS_RM_P2P_GROUP_MAX + j));
	return 0;
}

static void copy_str(char *dst, size_t cap, const uint8_t *src, size_t len)
{
	size_t n = len < cap - 1 ? len : cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	dst[strnlen(dst, n)] = '\0';
}

int p2ps_rm_ctrl_cpu_info(struct p2ps_rm *rm, struct p2ps_rm_cpu_info *out, uint32_t *rm_status,
                          struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[256] = {0};
	int rc = rm_fl_issue(rm, &l, rm->client, P2PS_RM_CTRL_SYSTEM_GET_CPU_INFO,
	                     P2PS_RMF_CPU_SIZE, b, sizeof(b), rm_status, err);
	if (rc)
		return rc;
	*out = (struct p2ps_rm_cpu_info){
	        .type = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_CPU_TYPE),
	        .clock_mhz = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_CPU_CLOCK),
	        .logical = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_CPU_LOGICAL),
	        .physical = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_CPU_PHYSICAL),
	        .family = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_CPU_FAMILY),
	        .model = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_CPU_MODEL),
	};
	copy_str(out->name, sizeof(out->name), b + rm_fl_off(&l, P2PS_RMF_CPU_NAME),
	         rm_fl_size(&l, P2PS_RMF_CPU_NAME));
	return 0;
}

int p2ps_rm_ctrl_chipset_info(struct p2ps_rm *rm, struct p2ps_rm_chipset_info *out,
                              uint32_t *rm_status, struct p2ps_error *err)
{
	struct rm_fl l = rm_fl_of(rm);
	uint8_t b[256] = {0};
	int rc = rm_fl_issue(rm, &l, rm->client, P2PS_RM_CTRL_SYSTEM_GET_CHIPSET_INFO,
	                     P2PS_RMF_CHIPSET_SIZE, b, sizeof(b), rm_status, err);
	if (rc)
		return rc;
	*out = (struct p2ps_rm_chipset_info){
	        .vendor_id = (uint16_t)rm_fl_get(&l, b, 0, P2PS_RMF_CHIPSET_VENDOR),
	        .device_id = (uint16_t)rm_fl_get(&l, b, 0, P2PS_RMF_CHIPSET_DEVICE),
	        .hb_vendor_id = (uint16_t)rm_fl_get(&l, b, 0, P2PS_RMF_CHIPSET_HB_VENDOR),
	        .hb_device_id = (uint16_t)rm_fl_get(&l, b, 0, P2PS_RMF_CHIPSET_HB_DEVICE),
	        .flags = (uint32_t)rm_fl_get(&l, b, 0, P2PS_RMF_CHIPSET_FLAGS),
	};
	copy_str(out->vendor_name, sizeof(out->vendor_name),
	         b + rm_fl_off(&l, P2PS_RMF_CHIPSET_VENDOR_NAME),
	         rm_fl_size(&l, P2PS_RMF_CHIPSET_VENDOR_NAME));
	copy_str(out->chipset_name, sizeof(out->chipset_name),
	         b + rm_fl_off(&l, P2PS_RMF_CHIPSET_NAME), rm_fl_size(&l, P2PS_RMF_CHIPSET_NAME));
	return 0;
}
