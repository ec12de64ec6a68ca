/* SPDX-License-Identifier: MIT */
/* The fake RM (fake_rm.h). Offsets: NVOS21/NVOS54/NVOS00 and friends as in every supported
 * series, NVOS46 as from 580 (status at 56). */
#include "fake_rm.h"

#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"

#define CLIENT_HANDLE    0xc1d00001u
#define NV_ERR_GENERIC   0x0000ffffu
#define NV_ERR_TEST_ONLY 0x7eu

static bool fail_now(struct fake_rm *f)
{
	return ++f->calls == f->fail_at && f->fail_mode != FAKE_FAIL_NONE;
}

static struct fake_obj *find(struct fake_rm *f, uint32_t h)
{
	for (unsigned i = 0; i < f->n_objs; i++)
		if (f->objs[i].live && f->objs[i].handle == h)
			return &f->objs[i];
	return NULL;
}

/* RM's own cleanup of an object's children and of mappings of freed memory. */
static void release_below(struct fake_rm *f, uint32_t h)
{
	for (unsigned i = 0; i < f->n_objs; i++)
		if (f->objs[i].live && f->objs[i].parent == h &&
		    f->objs[i].cls != P2PS_RM_ROOT_CLIENT) {
			f->objs[i].live = false;
			f->implicit_frees++;
			release_below(f, f->objs[i].handle);
		}
	for (unsigned i = 0; i < f->n_maps; i++) {
		struct fake_map *m = &f->maps[i];
		if (m->live && (!find(f, m->hmem) || (m->hdma && !find(f, m->hdma)))) {
			m->live = false;
			f->implicit_unmaps++;
			if (m->hdma)
				f->dma_maps--;
			else
				f->cpu_maps--;
		}
	}
}

static int fk_open(void *ctx, const char *path, struct p2ps_error *err)
{
	struct fake_rm *f = ctx;
	if (fail_now(f))
		return p2ps_error_set(err, P2PS_EIO, "fake: open %s fails", path);
	f->fds_open++;
	int fd = 10 + (int)f->calls;
	if (!strcmp(path, "/dev/nvidiactl"))
		f->ctl_fd = fd;
	return fd;
}

static void fk_close(void *ctx, int fd)
{
	struct fake_rm *f = ctx;
	f->fds_open--;
	/* Closing the control descriptor frees the client and everything under it. */
	struct fake_obj *c = find(f, CLIENT_HANDLE);
	if (fd == f->ctl_fd && c) {
		c->live = false;
		f->implicit_frees++;
		release_below(f, CLIENT_HANDLE);
	}
}

static uint32_t add_map(struct fake_rm *f, uint32_t hdma, uint32_t hmem, uint64_t va)
{
	if (f->n_maps == FAKE_MAX_MAPS || !find(f, hmem))
		return NV_ERR_GENERIC;
	f->maps[f->n_maps++] =
	        (struct fake_map){.hdma = hdma, .hmem = hmem, .va = va, .live = true};
	if (hdma)
		f->dma_maps++;
	else
		f->cpu_maps++;
	return 0;
}

static uint32_t remove_map(struct fake_rm *f, uint32_t hdma, uint32_t hmem, uint64_t va)
{
	for (unsigned i = 0; i < f->n_maps; i++) {
		struct fake_map *m = &f->maps[i];
		if (m->live && m->hdma == hdma && m->hmem == hmem && m->va == va) {
			m->live = false;
			if (hdma)
				f->dma_maps--;
			else
				f->cpu_maps--;
			return 0;
		}
	}
	return 0x18;
}

static uint32_t do_alloc(struct fake_rm *f, uint8_t *a)
{
	uint32_t parent = p2ps_le32(a + 4), h = p2ps_le32(a + 8), cls = p2ps_le32(a + 12);
	if (cls == P2PS_RM_ROOT_CLIENT)
		h = CLIENT_HANDLE;
	else if (!find(f, parent) || find(f, h))
		return 0x22; /* NV_ERR_INVALID_OBJECT_PARENT-ish */
	if (f->n_objs == FAKE_MAX_OBJS)
		return NV_ERR_GENERIC;
	f->objs[f->n_objs++] =
	        (struct fake_obj){.handle = h, .parent = parent, .cls = cls, .live = true};
	/* NVOS21: pAllocParms@16, paramsSize@24; NV503B l2p/p2lFabricP2PInfo@72/80 (590+). */
	uint8_t *params = (uint8_t *)(uintptr_t)p2ps_le64(a + 16);
	if (cls == P2PS_RM_P2P && p2ps_le32(a + 24) >= 88) {
		p2ps_put_le64(params + 72, f->fabric_gpa[0]);
		p2ps_put_le64(params + 80, f->fabric_gpa[1]);
	}
	p2ps_put_le32(a + 8, h);
	return 0;
}

static uint32_t do_free(struct fake_rm *f, const uint8_t *a)
{
	struct fake_obj *o = find(f, p2ps_le32(a + 8));
	if (!o) {
		f->bad_frees++;
		return 0x18; /* NV_ERR_INVALID_OBJECT_HANDLE-ish */
	}
	for (unsigned i = 0; i < f->n_objs; i++)
		if (f->objs[i].live && f->objs[i].parent == o->handle &&
		    o->cls != P2PS_RM_ROOT_CLIENT)
			f->bad_frees++;
	o->live = false;
	release_below(f, o->handle);
	return 0;
}

/* NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS in the 580 layout: links at 32, 208 bytes each,
 * remoteDeviceInfo at 96 (domain 4, bus 8, device 10, deviceType 24). */
static uint32_t nvlink_status(struct fake_rm *f, uint8_t *p)
{
	if (!f->nvlink_mode)
		return 0x57;
	unsigned n = f->nvlink_mode == 1 ? 2 : 18;
	p2ps_put_le32(p, (1u << n) - 1);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *l = p + 32 + 208 * i;
		p2ps_put_le32(l + 8, 3); /* ACTIVE */
		l[56] = 1;
		l[58] = (uint8_t)i;
		/* The peer of the subdevice asked is not known here: the fake links every GPU
		 * to the card at slot 7 (direct) or to a switch the guest cannot see. */
		p2ps_put_le16(l + 96 + 8, f->nvlink_mode == 1 ? 0 : 0xff);
		p2ps_put_le16(l + 96 + 10, f->nvlink_mode == 1 ? 7 : 0);
		p2ps_put_le64(l + 96 + 24, f->nvlink_mode == 1 ? 2 : 3);
	}
	return 0;
}

/* bar-inspect's facts: FB info by index, static BAR1, PCI ids, NVLink, CPU, chipset, the
 * P2P matrix (580 layouts). */
static uint32_t fact_control(struct fake_rm *f, uint32_t cmd, uint8_t *p)
{
	switch (cmd) {
	case P2PS_RM_CTRL_BUS_GET_PCI_INFO: p2ps_put_le32(p, 0x233510deu); return 0;
	case P2PS_RM_CTRL_FB_GET_INFO_V2:
		for (uint32_t i = 0; i < p2ps_le32(p) && i < 128; i++) {
			/* What 580.159.04 answered on a 2 x H200 host (scripts/device/rm.sh,
			 * 2026-11-26), in KiB: total and RAM 143771 MiB (nvidia-smi's FB Total),
			 * usable 143497, heap and free 143155 (FB Reserved 616 = total - heap),
			 * BAR1 256 GiB. */
			uint32_t idx = p2ps_le32(p + 4 + 8 * i), v = 0;
			if (idx == 0x08 || idx == 0x07)
				v = 143771u << 10;
			else if (idx == 0x20)
				v = 143497u << 10;
			else if (idx == 0x09 || idx == 0x16)
				v = 143155u << 10;
			else if (idx == 0x05)
				v = 262144u << 10;
			p2ps_put_le32(p + 8 + 8 * i, v);
		}
		return 0;
	case P2PS_RM_CTRL_FB_GET_STATIC_BAR1_INFO:
		p[0] = 1;
		p2ps_put_le64(p + 16, 147456ull << 20);
		return 0;
	case P2PS_RM_CTRL_NVLINK_GET_NVLINK_STATUS: return nvlink_status(f, p);
	case P2PS_RM_CTRL_SYSTEM_GET_CPU_INFO:
		p2ps_put_le32(p, 0x14); /* XEON_SPR */
		p2ps_put_le32(p + 24, 32);
		memcpy(p + 32, "Fake Xeon", 10);
		return 0;
	case P2PS_RM_CTRL_SYSTEM_GET_CHIPSET_INFO:
		p2ps_put_le16(p, 0x8086);
		p2ps_put_le16(p + 2, 0x1bc8);
		memcpy(p + 20, "Intel", 6);
		memcpy(p + 84, "Fake chipset", 13);
		return 0;
	case P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_MATRIX:
		for (unsigned i = 0; i < p2ps_le32(p) && i < 8; i++)
			for (unsigned j = 0; j < p2ps_le32(p) && j < 8; j++)
				p2ps_put_le32(p + 72 + 4 * (8 * i + j), i == j ? 0 : 0xb);
		return 0;
	default: return 0x57; /* NV_ERR_NOT_SUPPORTED */
	}
}

/* Answers for the controls the probe asks. */
static uint32_t do_control(struct fake_rm *f, const uint8_t *a)
{
	uint32_t cmd = p2ps_le32(a + 8);
	uint8_t *p = (uint8_t *)(uintptr_t)p2ps_le64(a + 16);
	if (f->n_controls < 64)
		f->controls[f->n_controls++] = cmd;
	switch (cmd) {
	case P2PS_RM_CTRL_GPU_GET_ID_INFO_V2:
		p2ps_put_le32(p + 8, p2ps_le32(p) & 0xff); /* deviceInstance from the gpu id */
		return 0;
	case P2PS_RM_CTRL_MC_GET_ARCH_INFO:
		p2ps_put_le32(p, 0x180); /* GH100 */
		return 0;
	case P2PS_RM_CTRL_DMA_GET_PDE_INFO:
		p2ps_put_le64(p + 192, 0);        /* pdbAddr */
		p2ps_put_le64(p + 32, 0x6000);    /* pteBlocks[0].ptePhysAddr */
		p2ps_put_le32(p + 32 + 12, 8);    /* pteEntrySize */
		p2ps_put_le32(p + 32 + 16, 4096); /* pageSize */
		return 0;
	case P2PS_RM_CTRL_DMA_GET_PTE_INFO: return NV_ERR_TEST_ONLY;
	case P2PS_RM_CTRL_GET_SURFACE_PHYS_ATTR: return f->root ? 0 : 0x1b;
	case P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_V2:
		p2ps_put_le32(p + 132,
		              f->nvlink_mode ? 0xbu : 1u << 3); /* (writes, reads,) nvlink */
		p2ps_put_le32(p + 156 + 4, 0);                  /* peer id 0 */
		if (f->nvlink_mode) {
			p2ps_put_le32(p + 156 + 8, 1); /* the peer's id for this GPU */
			p[144 + 6] = 5;                /* pci NOT_SUPPORTED */
			p[144 + 8] = 5;                /* pci_bar1 NOT_SUPPORTED */
		}
		/* A group of more than two: busPeerIds[X * n + Y] = 16 * X + Y. */
		for (uint32_t n = p2ps_le32(p + 128), x = 0; n > 2 && n <= 8 && x < n; x++)
			for (uint32_t y = 0; y < n; y++)
				p2ps_put_le32(p + 156 + 4 * (x * n + y), 16 * x + y);
		f->p2p_caps_calls++;
		return 0;
	default: return fact_control(f, cmd, p);
	}
}

static void do_cards(struct fake_rm *f, uint8_t *a, uint32_t size)
{
	for (unsigned i = 0; i < f->gpus && (i + 1) * 72 <= size; i++) {
		uint8_t *e = a + 72 * i;
		e[0] = 1;
		e[8] = f->h200_slots ? 0 : (uint8_t)(0x41 + i);
		e[9] = f->h200_slots ? (uint8_t)(6 + i) : 0;
		p2ps_put_le32(e + 12, 0x233010deu);
		p2ps_put_le32(e + 16, 0x4100 + i);
		p2ps_put_le32(e + 56, i);
	}
}

static uint32_t do_escape(struct fake_rm *f, struct p2ps_rm_call *c)
{
	uint8_t *a = c->arg;
	switch (c->nr) {
	case 0x2b: return do_alloc(f, a);
	case 0x29: return do_free(f, a);
	case 0x2a: return do_control(f, a);
	case 0x57: /* NVOS46: hDma@8 hMemory@12 dmaOffset@48 */
		p2ps_put_le64(a + 48, f->next_va += 0x200000);
		return add_map(f, p2ps_le32(a + 8), p2ps_le32(a + 12), f->next_va);
	case 0x58: /* NVOS47: hDma@8 hMemory@12 dmaOffset@24 */
		return remove_map(f, p2ps_le32(a + 8), p2ps_le32(a + 12), p2ps_le64(a + 24));
	case 0x4e: /* NVOS33: hMemory@8, pLinearAddress@32 */
		p2ps_put_le64(a + 32, 0x1000 + f->calls);
		return add_map(f, 0, p2ps_le32(a + 8), 0x1000 + f->calls);
	case 0x4f: /* NVOS34: hMemory@8, pLinearAddress@16 */
		return remove_map(f, 0, p2ps_le32(a + 8), p2ps_le64(a + 16));
	case 0xc8: do_cards(f, a, c->size); return 0;
	default: return 0;
	}
}

/* Where each escape keeps its status (0: none). */
static unsigned status_offset(unsigned nr)
{
	switch (nr) {
	case 0x2b: return 28;
	case 0x29: return 12;
	case 0x2a: return 28;
	case 0x57: return 56;
	case 0x58:
	case 0x4e: return 40;
	case 0x4f: return 24;
	default: return 0;
	}
}

static int fk_escape(void *ctx, struct p2ps_rm_call *c, struct p2ps_error *err)
{
	struct fake_rm *f = ctx;
	f->escapes++;
	f->escapes_by_nr[c->nr & 0xff]++;
	unsigned so = status_offset(c->nr);
	if (fail_now(f)) {
		f->failed_release = c->nr == 0x29 || c->nr == 0x58 || c->nr == 0x4f;
		if (f->fail_mode == FAKE_FAIL_IOCTL || !so)
			return p2ps_error_set(err, P2PS_EIO, "fake: %s fails", c->what);
		p2ps_put_le32((uint8_t *)c->arg + so, NV_ERR_GENERIC);
		return 0;
	}
	uint32_t st = do_escape(f, c);
	if (so)
		p2ps_put_le32((uint8_t *)c->arg + so, st);
	return 0;
}

static int fk_mmap(void *ctx, int fd, size_t len, const void **out, struct p2ps_error *err)
{
	struct fake_rm *f = ctx;
	(void)fd;
	if (fail_now(f))
		return p2ps_error_set(err, P2PS_EIO, "fake: mmap fails");
	void *p = calloc(1, len);
	if (!p)
		return p2ps_error_set(err, P2PS_ENOMEM, "fake: out of memory");
	f->mmaps++;
	*out = p;
	return 0;
}

static void fk_munmap(void *ctx, const void *addr, size_t len)
{
	struct fake_rm *f = ctx;
	(void)len;
	free((void *)(uintptr_t)addr);
	f->mmaps--;
}

static int fk_read_text(void *ctx, const char *path, char *buf, size_t cap, struct p2ps_error *err)
{
	struct fake_rm *f = ctx;
	if (!f->version)
		return p2ps_error_set(err, P2PS_ENOENT, "fake: no %s", path);
	size_t n = strlen(f->version);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, f->version, n);
	buf[n] = '\0';
	return (int)n;
}

static bool fk_is_root(void *ctx)
{
	return ((struct fake_rm *)ctx)->root;
}

static const struct p2ps_rm_sys_ops fake_ops = {
        .name = "fake",
        .open = fk_open,
        .close = fk_close,
        .escape = fk_escape,
        .mmap_ro = fk_mmap,
        .munmap = fk_munmap,
        .read_text = fk_read_text,
        .is_root = fk_is_root,
};

void fake_rm_init(struct fake_rm *f, struct p2ps_rm_sys *sys)
{
	memset(f, 0, sizeof(*f));
	f->version = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
	             "Build\n";
	f->root = true;
	f->gpus = 1;
	f->next_va = 0x120000000ull;
	sys->ops = &fake_ops;
	sys->ctx = f;
}

unsigned fake_rm_live(const struct fake_rm *f)
{
	unsigned n = 0;
	for (unsigned i = 0; i < f->n_objs; i++)
		n += f->objs[i].live;
	return n;
}
