/* SPDX-License-Identifier: MIT */
/* Memory: the client's VA space, memory allocations, GPU mappings (MAP_MEMORY_DMA) and the
 * read-only CPU window onto video memory used to read page tables. */
#include "rm_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define PAGE 4096u

int p2ps_rm_vas_new(struct p2ps_rm *rm, const struct p2ps_rm_gpu *gpu, uint64_t va_limit,
                    struct p2ps_rm_vas *vas, struct p2ps_error *err)
{
	/* NV_VASPACE_ALLOCATION_PARAMETERS: index GPU_NEW, flags 0 (RM-managed, not externally
	 * owned, no ATS), default size and big page size. VA below 1 MiB stays unused. */
	uint8_t p[56] = {0};
	put64(p, VASPACE_VA_BASE, 0x100000);
	int rc = p2ps_rm_alloc(rm, gpu->device, P2PS_RM_VASPACE, p, rm->drv.layout->vaspace_size,
	                       &vas->vaspace, NULL, err);
	if (rc)
		return rc;
	/* NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS: offset 0, limit, hVASpace. */
	uint8_t v[VIRTUAL_ALLOC_SIZE] = {0};
	put64(v, 8, va_limit);
	put32(v, 16, vas->vaspace);
	return p2ps_rm_alloc(rm, gpu->device, P2PS_RM_MEMORY_VIRTUAL, v, sizeof(v), &vas->virt,
	                     NULL, err);
}

int p2ps_rm_mem_alloc(struct p2ps_rm *rm, const struct p2ps_rm_gpu *gpu,
                      const struct p2ps_rm_mem_req *req, uint32_t *handle, uint32_t *rm_status,
                      struct p2ps_error *err)
{
	if (req->cls != P2PS_RM_MEMORY_LOCAL_USER && req->cls != P2PS_RM_MEMORY_SYSTEM)
		return p2ps_error_set(err, P2PS_EINVAL, "memory class 0x%x is not video or system",
		                      req->cls);
	uint8_t p[MEM_ALLOC_SIZE] = {0};
	put32(p, MEM_ALLOC_OWNER, rm->client);
	put32(p, MEM_ALLOC_TYPE, req->type);
	put32(p, MEM_ALLOC_FLAGS, req->flags);
	put32(p, MEM_ALLOC_ATTR, req->attr);
	put32(p, MEM_ALLOC_ATTR2, req->attr2);
	put32(p, MEM_ALLOC_FORMAT, req->format);
	put64(p, MEM_ALLOC_SIZE_FIELD, req->size);
	put64(p, MEM_ALLOC_ALIGNMENT, req->alignment);
	put64(p, MEM_ALLOC_LIMIT, req->size - 1);
	return p2ps_rm_alloc(rm, gpu->device, req->cls, p, sizeof(p), handle, rm_status, err);
}

static int remember_map(struct p2ps_rm *rm, const struct rm_dma_map *m, struct p2ps_error *err)
{
	void *v = rm->maps;
	if (!p2ps_grow(&v, &rm->cap_maps, rm->n_maps + 1, sizeof(*rm->maps)))
		return p2ps_error_set(err, P2PS_ENOMEM, "RM client: out of memory");
	rm->maps = v;
	rm->maps[rm->n_maps++] = *m;
	rm->st.maps++;
	return 0;
}

int p2ps_rm_map_dma(struct p2ps_rm *rm, uint32_t device, uint32_t hdma, uint32_t hmem,
                    uint64_t offset, uint64_t length, uint32_t flags, uint64_t *va,
                    uint32_t *rm_status, struct p2ps_error *err)
{
	const struct p2ps_nv_rm_layout *l = rm->drv.layout;
	uint8_t a[64] = {0};
	RM_PUT32(a, {NVOS46_CLIENT, rm->client}, {NVOS46_DEVICE, device}, {NVOS46_DMA, hdma},
	         {NVOS46_MEMORY, hmem}, {NVOS46_FLAGS, flags});
	put64(a, NVOS46_OFFSET, offset);
	put64(a, NVOS46_LENGTH, length);
	struct p2ps_rm_call c =
	        rm_call(rm, RM_ESC_MAP_MEMORY_DMA, a, l->nvos46_size, "MAP_MEMORY_DMA");
	int rc = rm_escape_status(rm, &c, l->nvos46_status, rm_status, err);
	if (rc)
		return rc;
	*va = get64(a, l->nvos46_dma_offset);
	struct rm_dma_map m = {.device = device, .hdma = hdma, .hmem = hmem, .va = *va};
	return remember_map(rm, &m, err);
}

static int unmap_dma(struct p2ps_rm *rm, const struct rm_dma_map *m, struct p2ps_error *err)
{
	uint8_t a[NVOS47_SIZE] = {0};
	RM_PUT32(a, {NVOS47_CLIENT, rm->client}, {NVOS47_DEVICE, m->device}, {NVOS47_DMA, m->hdma},
	         {NVOS47_MEMORY, m->hmem});
	put64(a, NVOS47_DMA_OFFSET, m->va);
	struct p2ps_rm_call c =
	        rm_call(rm, RM_ESC_UNMAP_MEMORY_DMA, a, sizeof(a), "UNMAP_MEMORY_DMA");
	int rc = rm_escape_status(rm, &c, NVOS47_STATUS, NULL, err);
	if (rc)
		return rc;
	rm->st.unmaps++;
	return 0;
}

int rm_unmap_all(struct p2ps_rm *rm, struct p2ps_error *err)
{
	int first = 0;
	struct p2ps_error e2;
	while (rm->n_maps > 0) {
		struct rm_dma_map m = rm->maps[--rm->n_maps];
		int rc = unmap_dma(rm, &m, first ? &e2 : err);
		if (rc && !first)
			first = rc;
	}
	return first;
}

/* The whole framebuffer as one memory object (root only), made once per device. */
static int local_physical(struct p2ps_rm *rm, const struct p2ps_rm_gpu *gpu, uint32_t *h,
                          struct p2ps_error *err)
{
	size_t free_slot = P2PS_RM_MAX_CARDS;
	for (size_t i = 0; i < P2PS_RM_MAX_CARDS; i++) {
		if (rm->phys[i] && rm->phys_device[i] == gpu->device) {
			*h = rm->phys[i];
			return 0;
		}
		if (!rm->phys[i] && free_slot == P2PS_RM_MAX_CARDS)
			free_slot = i;
	}
	if (free_slot == P2PS_RM_MAX_CARDS)
		return p2ps_error_set(err, P2PS_ERANGE, "too many devices");
	uint8_t p[PHYS_ALLOC_SIZE] = {0};
	uint32_t st = 0;
	int rc = p2ps_rm_alloc(rm, gpu->device, P2PS_RM_MEMORY_LOCAL_PHYSICAL, p, sizeof(p), h, &st,
	                       err);
	if (rc && st == P2PS_RM_NV_ERR_INSUFFICIENT_PERMISSIONS)
		return p2ps_error_set(
		        err, P2PS_EACCES,
		        "reading page-table entries needs root: the driver gives the "
		        "framebuffer window (NV01_MEMORY_LOCAL_PHYSICAL) only to root");
	if (rc)
		return rc;
	rm->phys[free_slot] = *h;
	rm->phys_device[free_slot] = gpu->device;
	return 0;
}

static int cpu_map(struct p2ps_rm *rm, const struct p2ps_rm_gpu *gpu, uint32_t hphys, uint64_t pa,
                   int fd, uint64_t *cookie, struct p2ps_error *err)
{
	uint8_t a[NVOS33_SIZE] = {0};
	RM_PUT32(a, {NVOS33_CLIENT, rm->client}, {NVOS33_DEVICE, gpu->device},
	         {NVOS33_MEMORY, hphys}, {NVOS33_FLAGS, NVOS33_ACCESS_READ_ONLY},
	         {NVOS33_FD, (uint32_t)fd});
	put64(a, NVOS33_OFFSET, pa);
	put64(a, NVOS33_LENGTH, PAGE);
	struct p2ps_rm_call c =
	        rm_call(rm, RM_ESC_MAP_MEMORY, a, sizeof(a), "MAP_MEMORY (read-only)");
	int rc = rm_escape_status(rm, &c, NVOS33_STATUS, NULL, err);
	if (rc)
		return rc;
	*cookie = get64(a, NVOS33_LINEAR);
	rm->st.cpu_maps++;
	return 0;
}

static int cpu_unmap(struct p2ps_rm *rm, const struct p2ps_rm_gpu *gpu, uint32_t hphys,
                     uint64_t cookie, struct p2ps_error *err)
{
	uint8_t a[NVOS34_SIZE] = {0};
	RM_PUT32(a, {NVOS34_CLIENT, rm->client}, {NVOS34_DEVICE, gpu->device},
	         {NVOS34_MEMORY, hphys}, {NVOS34_FLAGS, NVOS33_ACCESS_READ_ONLY});
	put64(a, NVOS34_LINEAR, cookie);
	struct p2ps_rm_call c = rm_call(rm, RM_ESC_UNMAP_MEMORY, a, sizeof(a), "UNMAP_MEMORY");
	int rc = rm_escape_status(rm, &c, NVOS34_STATUS, NULL, err);
	if (rc)
		return rc;
	rm->st.cpu_unmaps++;
	return 0;
}

/* Maps, copies and unmaps one page; every step undone on every path. The mmap context the
 * driver creates belongs to the descriptor, so each page gets a fresh one. */
static int read_page(struct p2ps_rm *rm, struct p2ps_rm_gpu *gpu, uint32_t hphys, uint64_t pa,
                     uint8_t out[PAGE], struct p2ps_error *err)
{
	int fd;
	int rc = rm_open_gpu_fd(rm, gpu->card.minor, &fd, err);
	if (rc)
		return rc;
	uint64_t cookie = 0;
	rc = cpu_map(rm, gpu, hphys, pa, fd, &cookie, err);
	if (rc == 0) {
		const void *p = NULL;
		rc = rm->sys.ops->mmap_ro(rm->sys.ctx, fd, PAGE, &p, err);
		if (rc == 0) {
			memcpy(out, p, PAGE);
			rm->sys.ops->munmap(rm->sys.ctx, p, PAGE);
		}
		struct p2ps_error e2;
		int rc2 = cpu_unmap(rm, gpu, hphys, cookie, rc ? &e2 : err);
		if (rc == 0)
			rc = rc2;
	}
	rm_close_fd(rm, fd);
	return rc;
}

int p2ps_rm_read_vidmem(struct p2ps_rm *rm, struct p2ps_rm_gpu *gpu, uint64_t pa, uint8_t out[4096],
                        struct p2ps_error *err)
{
	if (pa & (PAGE - 1))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "video memory read at 0x%" PRIx64 " is not page-aligned", pa);
	if (!rm->root)
		return p2ps_error_set(err, P2PS_EACCES,
		                      "reading page-table entries needs root (the driver maps "
		                      "the framebuffer only for root)");
	uint32_t hphys;
	int rc = local_physical(rm, gpu, &hphys, err);
	if (rc == 0)
		rc = read_page(rm, gpu, hphys, pa, out, err);
	if (rc)
		return p2ps_error_prefix(err, "video memory page 0x%" PRIx64, pa);
	return 0;
}
