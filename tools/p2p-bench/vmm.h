/* SPDX-License-Identifier: MIT */
/* cuMem allocations shared between processes as POSIX file descriptors, for p2p-bench --ipc's
 * workers and p2p-bench check's other process. The driver's cuMem calls are taken through
 * cudaGetDriverEntryPointByVersion, so the program links no libcuda and still starts (and
 * says why) where no driver is installed. */
#ifndef P2P_BENCH_VMM_H
#define P2P_BENCH_VMM_H

#include <cuda.h>
#include <stddef.h>

/* The driver entry points (pb_vmm_load). */
struct pb_vmm {
	CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
	                   unsigned long long);
	CUresult (*granularity)(size_t *, const CUmemAllocationProp *,
	                        CUmemAllocationGranularity_flags);
	CUresult (*export_fd)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
	                      unsigned long long);
	CUresult (*import_fd)(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
	CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
	CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
	                unsigned long long);
	CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
	CUresult (*unmap)(CUdeviceptr, size_t);
	CUresult (*addr_free)(CUdeviceptr, size_t);
	CUresult (*release)(CUmemGenericAllocationHandle);
};

/* A buffer mapped from an allocation handle (own or imported). */
struct pb_vmm_buf {
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	size_t size;
};

/* Each returns 0, or -1 with one line in err. */
int pb_vmm_load(struct pb_vmm *d, char *err, size_t err_len);
/* A new allocation of at least bytes on device ord, exportable as a POSIX descriptor, mapped
 * and readable and writable by ord. */
int pb_vmm_create_fd(const struct pb_vmm *d, int ord, size_t bytes, struct pb_vmm_buf *b, char *err,
                     size_t err_len);
int pb_vmm_export_fd(const struct pb_vmm *d, const struct pb_vmm_buf *b, int *fd, char *err,
                     size_t err_len);
/* Imports size bytes exported as fd and maps them (no device may access them yet). */
int pb_vmm_import_fd(const struct pb_vmm *d, int fd, size_t size, struct pb_vmm_buf *b, char *err,
                     size_t err_len);
/* Lets device ord read and write b. */
int pb_vmm_access(const struct pb_vmm *d, const struct pb_vmm_buf *b, int ord, char *err,
                  size_t err_len);
void pb_vmm_free(const struct pb_vmm *d, struct pb_vmm_buf *b);

#endif
