/* SPDX-License-Identifier: MIT */
/* p2p-bench devices: which CUDA devices take part and what they say about each pair,
 * their streams, events and buffers (filled with the verification pattern), and freeing
 * everything again. */
#include "kernels.h"
#include "measure_internal.h"

#include <stdio.h>

#include <cuda.h>

/* Peer access and the P2P attributes of every ordered pair. */
static int probe_pairs(struct ctx *c)
{
	struct pb_result *r = c->r;
	for (int i = 0; i < r->n; i++)
		for (int j = 0; j < r->n; j++) {
			struct pb_pair *q = &r->pair[i][j];
			int a = r->dev[i].ordinal, b = r->dev[j].ordinal;
			*q = (struct pb_pair){i == j, -1, -1, -1, -1};
			if (i == j)
				continue;
			if (cu(c, cudaDeviceCanAccessPeer(&q->can_access, a, b),
			       "cudaDeviceCanAccessPeer", a))
				return c->err->code;
			/* Attributes are informational: a failure leaves -1 ("unknown"). */
			if (cudaDeviceGetP2PAttribute(&q->perf_rank, cudaDevP2PAttrPerformanceRank,
			                              a, b) != cudaSuccess)
				q->perf_rank = -1;
			if (cudaDeviceGetP2PAttribute(&q->access_supported,
			                              cudaDevP2PAttrAccessSupported, a,
			                              b) != cudaSuccess)
				q->access_supported = -1;
			if (cudaDeviceGetP2PAttribute(&q->native_atomics,
			                              cudaDevP2PAttrNativeAtomicSupported, a,
			                              b) != cudaSuccess)
				q->native_atomics = -1;
			if (cudaDeviceGetP2PAttribute(&q->cuda_array_access,
			                              cudaDevP2PAttrCudaArrayAccessSupported, a,
			                              b) != cudaSuccess)
				q->cuda_array_access = -1;
		}
	return 0;
}

/* One attribute through the driver API, reached with cudaGetDriverEntryPointByVersion so
 * that no libcuda is linked; -1 where the driver does not answer. */
static int driver_attr(int ordinal, CUdevice_attribute a)
{
	CUresult (*get)(int *, CUdevice_attribute, CUdevice) = NULL;
	CUresult (*dev)(CUdevice *, int) = NULL;
	enum cudaDriverEntryPointQueryResult q;
	CUdevice d;
	int v = -1;
	if (cudaGetDriverEntryPointByVersion("cuDeviceGetAttribute", (void **)&get, 12000,
	                                     cudaEnableDefault, &q) != cudaSuccess ||
	    q != cudaDriverEntryPointSuccess ||
	    cudaGetDriverEntryPointByVersion("cuDeviceGet", (void **)&dev, 12000, cudaEnableDefault,
	                                     &q) != cudaSuccess ||
	    q != cudaDriverEntryPointSuccess || dev(&d, ordinal) != CUDA_SUCCESS ||
	    get(&v, a, d) != CUDA_SUCCESS)
		return -1;
	return v;
}

static int runtime_attr(int ordinal, enum cudaDeviceAttr a)
{
	int v = -1;
	return cudaDeviceGetAttribute(&v, a, ordinal) == cudaSuccess ? v : -1;
}

/* The attributes that decide GPUDirect RDMA and sharing memory with other processes. */
static void probe_gdr(struct pb_device *d)
{
	struct pb_gdr_attrs *g = &d->gdr;
	g->rdma_supported = runtime_attr(d->ordinal, cudaDevAttrGPUDirectRDMASupported);
	g->rdma_flush_options =
	        runtime_attr(d->ordinal, cudaDevAttrGPUDirectRDMAFlushWritesOptions);
	g->rdma_writes_ordering = runtime_attr(d->ordinal, cudaDevAttrGPUDirectRDMAWritesOrdering);
	g->rdma_with_vmm = driver_attr(d->ordinal,
	                               CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED);
	g->dma_buf = driver_attr(d->ordinal, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
	g->posix_fd_handles = driver_attr(
	        d->ordinal, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED);
}

int pb_probe_devices(struct ctx *c)
{
	const struct pb_options *o = c->o;
	struct pb_result *r = c->r;
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	/* Without the NVIDIA kernel driver the runtime finds no libcuda and calls
	 * that an "insufficient driver"; for the user it means no usable GPU. */
	if (e != cudaSuccess || count == 0)
		return p2ps_error_set(c->err, P2PS_ENOENT,
		                      "no CUDA GPU found (cudaGetDeviceCount: %s)",
		                      e == cudaErrorInsufficientDriver ? "no NVIDIA driver loaded"
		                      : e != cudaSuccess               ? cudaGetErrorString(e)
		                                                       : "0 devices");
	if (o->ndev == 0) {
		r->n = count < PB_MAX_DEV ? count : PB_MAX_DEV;
		for (int i = 0; i < r->n; i++)
			r->dev[i].ordinal = i;
	} else {
		r->n = o->ndev;
		for (int i = 0; i < o->ndev; i++) {
			if (o->dev[i] >= count)
				return p2ps_error_set(c->err, P2PS_EINVAL,
				                      "device %d does not exist (%d visible)",
				                      o->dev[i], count);
			r->dev[i].ordinal = o->dev[i];
		}
	}
	for (int i = 0; i < r->n; i++) {
		struct pb_device *d = &r->dev[i];
		struct cudaDeviceProp p;
		if (cu(c, cudaGetDeviceProperties(&p, d->ordinal), "cudaGetDeviceProperties",
		       d->ordinal) ||
		    cu(c, cudaDeviceGetPCIBusId(d->bdf, sizeof(d->bdf), d->ordinal),
		       "cudaDeviceGetPCIBusId", d->ordinal))
			return c->err->code;
		for (char *q = d->bdf; *q; q++)
			if (*q >= 'A' && *q <= 'F')
				*q = (char)(*q - 'A' + 'a');
		snprintf(d->name, sizeof(d->name), "%s", p.name);
		d->sm_count = p.multiProcessorCount;
		d->cc_major = p.major;
		d->cc_minor = p.minor;
		d->mem_bytes = p.totalGlobalMem;
		probe_gdr(d);
	}
	if (probe_pairs(c))
		return c->err->code;
	cudaGetLastError(); /* attribute queries may leave a sticky-free error behind */
	return 0;
}

int pb_setup_devices(struct ctx *c)
{
	for (int i = 0; i < c->r->n; i++) {
		struct dev_state *D = &c->d[i];
		int o = ord(c, i);
		if (on_dev(c, i) ||
		    cu(c, cudaStreamCreateWithFlags(&D->s[0], cudaStreamNonBlocking),
		       "cudaStreamCreate", o) ||
		    cu(c, cudaStreamCreateWithFlags(&D->s[1], cudaStreamNonBlocking),
		       "cudaStreamCreate", o) ||
		    cu(c, cudaEventCreate(&D->start), "cudaEventCreate", o) ||
		    cu(c, cudaEventCreate(&D->stop), "cudaEventCreate", o) ||
		    cu(c, cudaEventCreate(&D->done[0]), "cudaEventCreate", o) ||
		    cu(c, cudaEventCreate(&D->done[1]), "cudaEventCreate", o) ||
		    cu(c, cudaMalloc((void **)&D->count, sizeof(*D->count)), "cudaMalloc", o) ||
		    cu(c, cudaMalloc((void **)&D->flag, sizeof(*D->flag)), "cudaMalloc", o) ||
		    cu(c, cudaMalloc((void **)&D->pp, 2 * sizeof(*D->pp)), "cudaMalloc", o) ||
		    cu(c, cudaMalloc((void **)&D->failed, sizeof(*D->failed)), "cudaMalloc", o) ||
		    cu(c, cudaMemset(D->failed, 0, sizeof(*D->failed)), "cudaMemset", o) ||
		    cu(c, pb_copy_blocks(&c->r->dev[i].copy_blocks), "occupancy query", o))
			return c->err->code;
		if (c->o->sm_blocks > 0)
			c->r->dev[i].copy_blocks = c->o->sm_blocks;
		for (int b = 0; b < NBUF; b++) {
			if (cu(c, cudaMalloc(&D->buf[b], c->o->size), "cudaMalloc (copy buffer)",
			       o))
				return p2ps_error_prefix(c->err, "%zu bytes x %d buffers",
				                         c->o->size, NBUF);
			if (cu(c, pb_launch_fill(D->buf[b], c->o->size, seed_of(i, b), D->s[0]),
			       "pattern fill", o))
				return c->err->code;
		}
		if (cu(c, cudaStreamSynchronize(D->s[0]), "pattern fill", o))
			return c->err->code;
	}
	return 0;
}

void pb_teardown(struct ctx *c)
{
	for (int i = 0; i < c->r->n; i++) {
		struct dev_state *D = &c->d[i];
		if (cudaSetDevice(ord(c, i)) != cudaSuccess)
			continue;
		for (int j = 0; j < c->r->n; j++)
			if (c->peer_on[i][j])
				cudaDeviceDisablePeerAccess(ord(c, j));
		for (int b = 0; b < NBUF; b++)
			cudaFree(D->buf[b]);
		cudaFree(D->count);
		cudaFree(D->flag);
		cudaFree(D->pp);
		cudaFree(D->failed);
		for (int k = 0; k < 2; k++) {
			if (D->s[k])
				cudaStreamDestroy(D->s[k]);
			if (D->done[k])
				cudaEventDestroy(D->done[k]);
		}
		if (D->start)
			cudaEventDestroy(D->start);
		if (D->stop)
			cudaEventDestroy(D->stop);
	}
	if (c->hold)
		cudaFreeHost((void *)c->hold);
}
