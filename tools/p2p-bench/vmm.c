/* SPDX-License-Identifier: MIT */
/* cuMem allocations shared as POSIX file descriptors (vmm.h). */
#include "vmm.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

static int entry(const char *name, void **fn, char *err, size_t err_len)
{
	enum cudaDriverEntryPointQueryResult q;
	if (cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q) !=
	            cudaSuccess ||
	    q != cudaDriverEntryPointSuccess || !*fn) {
		snprintf(err, err_len, "the driver has no %s", name);
		return -1;
	}
	return 0;
}

int pb_vmm_load(struct pb_vmm *d, char *err, size_t n)
{
	return entry("cuMemCreate", (void **)&d->create, err, n) ||
	                       entry("cuMemGetAllocationGranularity", (void **)&d->granularity, err,
	                             n) ||
	                       entry("cuMemExportToShareableHandle", (void **)&d->export_fd, err,
	                             n) ||
	                       entry("cuMemImportFromShareableHandle", (void **)&d->import_fd, err,
	                             n) ||
	                       entry("cuMemAddressReserve", (void **)&d->reserve, err, n) ||
	                       entry("cuMemMap", (void **)&d->map, err, n) ||
	                       entry("cuMemSetAccess", (void **)&d->set_access, err, n) ||
	                       entry("cuMemUnmap", (void **)&d->unmap, err, n) ||
	                       entry("cuMemAddressFree", (void **)&d->addr_free, err, n) ||
	                       entry("cuMemRelease", (void **)&d->release, err, n)
	               ? -1
	               : 0;
}

static int drv_fail(CUresult e, const char *what, char *err, size_t n)
{
	snprintf(err, n, "%s: CUresult %d", what, (int)e);
	return -1;
}

#define DK(call, what)                                                                             \
	do {                                                                                       \
		CUresult e_ = (call);                                                              \
		if (e_ != CUDA_SUCCESS)                                                            \
			return drv_fail(e_, what, err, n);                                         \
	} while (0)

int pb_vmm_access(const struct pb_vmm *d, const struct pb_vmm_buf *b, int ord, char *err, size_t n)
{
	CUmemAccessDesc a = {{CU_MEM_LOCATION_TYPE_DEVICE, ord},
	                     CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
	DK(d->set_access(b->va, b->size, &a, 1), "cuMemSetAccess");
	return 0;
}

static int reserve_map(const struct pb_vmm *d, struct pb_vmm_buf *b, char *err, size_t n)
{
	DK(d->reserve(&b->va, b->size, 0, 0, 0), "cuMemAddressReserve");
	DK(d->map(b->va, b->size, 0, b->h, 0), "cuMemMap");
	return 0;
}

int pb_vmm_create_fd(const struct pb_vmm *d, int ord, size_t bytes, struct pb_vmm_buf *b, char *err,
                     size_t n)
{
	CUmemAllocationProp p = {0};
	size_t g = 0;
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = ord;
	DK(d->granularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity");
	b->size = (bytes + g - 1) / g * g;
	DK(d->create(&b->h, b->size, &p, 0), "cuMemCreate (POSIX-FD)");
	if (reserve_map(d, b, err, n))
		return -1;
	return pb_vmm_access(d, b, ord, err, n);
}

int pb_vmm_export_fd(const struct pb_vmm *d, const struct pb_vmm_buf *b, int *fd, char *err,
                     size_t n)
{
	int handle = -1;
	DK(d->export_fd(&handle, b->h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
	   "cuMemExportToShareableHandle");
	*fd = handle;
	return 0;
}

int pb_vmm_import_fd(const struct pb_vmm *d, int fd, size_t size, struct pb_vmm_buf *b, char *err,
                     size_t n)
{
	b->size = size;
	DK(d->import_fd(&b->h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
	   "cuMemImportFromShareableHandle");
	return reserve_map(d, b, err, n);
}

void pb_vmm_free(const struct pb_vmm *d, struct pb_vmm_buf *b)
{
	if (b->va) {
		d->unmap(b->va, b->size);
		d->addr_free(b->va, b->size);
	}
	if (b->h)
		d->release(b->h);
	*b = (struct pb_vmm_buf){0};
}
