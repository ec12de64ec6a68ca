/* SPDX-License-Identifier: MIT */
/* p2p-bench check: this process's GPUs as the check's operations (struct p2ps_chk_ops). Each
 * GPU's calls come from one thread of the run (its lane), so each lane sets its device once
 * and keeps it; a step's transfer runs on the lane of GPU a, the GPU that accesses the other's
 * memory. The cross-process paths are forwarded to the other process (check_peer.c), NCCL's
 * operations to check_nccl.c. */
#include "check_cuda.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

#include "check_kernels.h"
#include "kernels.h"

int pb_chk_cuda_fail(int e, const char *what, char *why, size_t n)
{
	snprintf(why, n, "%s: %s", what, cudaGetErrorString((cudaError_t)e));
	return P2PS_CHK_OP_ERROR;
}

/* The driver's device queries, through the runtime's entry points (no libcuda linked): what
 * the check needs of a device without cudaGetDeviceProperties, which reads every property
 * there is (tens of milliseconds per GPU). */
struct dev_calls {
	CUresult (*get)(CUdevice *, int);
	CUresult (*name)(char *, int, CUdevice);
	CUresult (*mem)(size_t *, CUdevice);
	CUresult (*attr)(int *, CUdevice_attribute, CUdevice);
};

static int dev_calls(struct dev_calls *d, char *why, size_t why_len)
{
	static const char *const names[] = {"cuDeviceGet", "cuDeviceGetName", "cuDeviceTotalMem",
	                                    "cuDeviceGetAttribute"};
	void **fn[] = {(void **)&d->get, (void **)&d->name, (void **)&d->mem, (void **)&d->attr};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		enum cudaDriverEntryPointQueryResult q;
		if (cudaGetDriverEntryPointByVersion(names[k], fn[k], 12000, cudaEnableDefault,
		                                     &q) != cudaSuccess ||
		    q != cudaDriverEntryPointSuccess || !*fn[k]) {
			snprintf(why, why_len, "the driver has no %s", names[k]);
			return P2PS_CHK_OP_ERROR;
		}
	}
	return P2PS_CHK_OP_OK;
}

static int describe(const struct dev_calls *d, int ord, struct p2ps_chk_gpu_info *i, char *why,
                    size_t why_len)
{
	CUdevice dev;
	size_t mem = 0;
	int major = 0, minor = 0, managed = 0, fd = 0;
	memset(i, 0, sizeof(*i));
	i->ordinal = ord;
	if (d->get(&dev, ord) != CUDA_SUCCESS || d->name(i->name, sizeof(i->name), dev) ||
	    d->mem(&mem, dev) ||
	    d->attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) ||
	    d->attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) ||
	    d->attr(&managed, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, dev)) {
		snprintf(why, why_len, "describing CUDA device %d failed", ord);
		return P2PS_CHK_OP_ERROR;
	}
	if (d->attr(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev))
		fd = 0;
	i->name[sizeof(i->name) - 1] = 0;
	i->mem_bytes = mem;
	i->cc_major = major;
	i->cc_minor = minor;
	i->managed = managed != 0;
	i->fd_handles = fd == 1;
	PB_CHK_CUDA(cudaDeviceGetPCIBusId(i->bdf, sizeof(i->bdf), ord), "cudaDeviceGetPCIBusId");
	for (char *q = i->bdf; *q; q++)
		if (*q >= 'A' && *q <= 'F')
			*q = (char)(*q - 'A' + 'a');
	return P2PS_CHK_OP_OK;
}

static int devices(void *ctx, struct p2ps_chk_gpu_info *out, int max, int *n, char *why,
                   size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct dev_calls d = {0};
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		snprintf(why, why_len, "cudaGetDeviceCount: %s",
		         e == cudaErrorInsufficientDriver ? "no NVIDIA driver loaded"
		                                          : cudaGetErrorString(e));
		return P2PS_CHK_OP_ERROR;
	}
	c->n = c->ndev_asked ? c->ndev_asked : count < max ? count : max;
	if (c->n > 0 && dev_calls(&d, why, why_len)) {
		c->n = 0;
		return P2PS_CHK_OP_ERROR;
	}
	for (int g = 0; g < c->n; g++) {
		int ord = c->ndev_asked ? c->dev_asked[g] : g;
		if (ord >= count) {
			snprintf(why, why_len, "device %d does not exist (%d visible)", ord, count);
			c->n = 0;
			return P2PS_CHK_OP_ERROR;
		}
		c->g[g].ordinal = ord;
		c->g[g].sock = -1;
		if (describe(&d, ord, &out[g], why, why_len)) {
			c->n = 0;
			return P2PS_CHK_OP_ERROR;
		}
	}
	*n = c->n;
	char vwhy[160];
	c->vmm_loaded = !pb_vmm_load(&c->vmm, vwhy, sizeof(vwhy));
	/* The other processes start their GPUs while this one opens its own. */
	if (c->other_process && c->n > 1)
		c->others_started = !pb_chk_other_start(c, c->others_why, sizeof(c->others_why));
	return P2PS_CHK_OP_OK;
}

static int open_gpu(void *ctx, int g, const uint64_t bytes[P2PS_CHK_REGIONS], char *why,
                    size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct pb_chk_gpu *G = &c->g[g];
	PB_CHK_CUDA(cudaSetDevice(G->ordinal), "cudaSetDevice");
	PB_CHK_CUDA(cudaFree(0), "creating the context");
	PB_CHK_CUDA(cudaStreamCreateWithFlags(&G->s, cudaStreamNonBlocking), "cudaStreamCreate");
	PB_CHK_CUDA(cudaMalloc((void **)&G->dtally, PB_CHK_SPANS * sizeof(*G->dtally)),
	            "cudaMalloc");
	PB_CHK_CUDA(cudaMallocHost((void **)&G->htally, PB_CHK_SPANS * sizeof(*G->htally)),
	            "cudaMallocHost");
	for (int r = 0; r < P2PS_CHK_REGIONS; r++)
		G->bytes[r] = bytes[r];
	if (bytes[P2PS_CHK_R_MAIN])
		PB_CHK_CUDA(cudaMalloc(&G->region[P2PS_CHK_R_MAIN], bytes[P2PS_CHK_R_MAIN]),
		            "cudaMalloc (the check's memory)");
	if (bytes[P2PS_CHK_R_FD]) {
		if (!c->vmm_loaded) {
			snprintf(why, why_len, "the driver's cuMem calls are missing");
			return P2PS_CHK_OP_ERROR;
		}
		if (pb_vmm_create_fd(&c->vmm, G->ordinal, bytes[P2PS_CHK_R_FD], &G->fd, why,
		                     why_len))
			return P2PS_CHK_OP_ERROR;
		G->region[P2PS_CHK_R_FD] = (void *)(uintptr_t)G->fd.va;
	}
	if (bytes[P2PS_CHK_R_UVM]) {
		struct cudaMemLocation here = {cudaMemLocationTypeDevice, G->ordinal};
		PB_CHK_CUDA(cudaMallocManaged(&G->region[P2PS_CHK_R_UVM], bytes[P2PS_CHK_R_UVM],
		                              cudaMemAttachGlobal),
		            "cudaMallocManaged");
		PB_CHK_CUDA(cudaMemAdvise(G->region[P2PS_CHK_R_UVM], bytes[P2PS_CHK_R_UVM],
		                          cudaMemAdviseSetPreferredLocation, here),
		            "cudaMemAdvise");
	}
	return P2PS_CHK_OP_OK;
}

static int peer(void *ctx, int a, int b, int *can, char *why, size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	PB_CHK_CUDA(cudaDeviceCanAccessPeer(can, c->g[a].ordinal, c->g[b].ordinal),
	            "cudaDeviceCanAccessPeer");
	if (!*can)
		return P2PS_CHK_OP_DENIED;
	cudaError_t e = cudaDeviceEnablePeerAccess(c->g[b].ordinal, 0);
	if (e == cudaErrorPeerAccessAlreadyEnabled) {
		cudaGetLastError();
		return P2PS_CHK_OP_OK;
	}
	PB_CHK_CUDA(e, "cudaDeviceEnablePeerAccess");
	return P2PS_CHK_OP_OK;
}

/* Exports GPU g's region r and has every other GPU's process map it. A process that cannot
 * map it says so when it is asked to write there. */
static int share(void *ctx, int g, enum p2ps_chk_region r, char *why, size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct pb_chk_gpu *G = &c->g[g];
	struct pb_chk_msg m = {.op = PB_CHK_IMPORT, .b = g, .region = r, .size = G->bytes[r]};
	int fd = -1, rc = P2PS_CHK_OP_OK;
	if (!c->others_started) {
		snprintf(why, why_len, "the other processes did not start: %s", c->others_why);
		return P2PS_CHK_OP_ERROR;
	}
	if (r == P2PS_CHK_R_MAIN) {
		cudaIpcMemHandle_t h;
		PB_CHK_CUDA(cudaIpcGetMemHandle(&h, G->region[r]), "cudaIpcGetMemHandle");
		memcpy(m.handle, &h, sizeof(h));
	} else if (r == P2PS_CHK_R_FD) {
		if (pb_vmm_export_fd(&c->vmm, &G->fd, &fd, why, why_len))
			return P2PS_CHK_OP_ERROR;
		m.size = G->fd.size;
	} else {
		snprintf(why, why_len, "managed memory is not shared between processes");
		return P2PS_CHK_OP_UNSUPPORTED;
	}
	for (int a = 0; a < c->n && rc == P2PS_CHK_OP_OK; a++) {
		struct pb_chk_msg ask = m;
		if (a != g)
			rc = pb_chk_other_ask(c, a, &ask, fd, why, why_len);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

static void spans_of(const struct p2ps_chk_span *sp, size_t n, struct pb_chk_spans *out)
{
	memset(out, 0, sizeof(*out));
	out->n = (int)n;
	for (size_t k = 0; k < n && k < PB_CHK_SPANS; k++) {
		out->s[k].offset = sp[k].offset;
		out->s[k].cells = sp[k].bytes / P2PS_CELL_BYTES;
		out->s[k].win = sp[k].win;
	}
}

static int fill(void *ctx, int g, enum p2ps_chk_region r, const struct p2ps_chk_span *sp, size_t n,
                char *why, size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct pb_chk_gpu *G = &c->g[g];
	struct pb_chk_spans s;
	if (n > PB_CHK_SPANS || !G->region[r]) {
		snprintf(why, why_len, "no such memory to fill");
		return P2PS_CHK_OP_ERROR;
	}
	spans_of(sp, n, &s);
	PB_CHK_CUDA(pb_chk_launch_fill(G->region[r], &s, G->s), "the fill kernel");
	PB_CHK_CUDA(cudaStreamSynchronize(G->s), "filling the memory");
	return P2PS_CHK_OP_OK;
}

static void *at(const struct pb_chk_cuda *c, int g, enum p2ps_chk_region r, uint64_t off)
{
	return c->g[g].region[r] ? (char *)c->g[g].region[r] + off : NULL;
}

static int xfer(void *ctx, const struct p2ps_chk_xfer *x, char *why, size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct pb_chk_gpu *A = &c->g[x->a];
	if (x->path >= P2PS_CHK_IPC_CE && x->path <= P2PS_CHK_FD_SM) {
		struct pb_chk_msg m = {.op = PB_CHK_WRITE,
		                       .path = x->path,
		                       .a = x->a,
		                       .b = x->b,
		                       .region = x->dst_region,
		                       .offset = x->dst_offset,
		                       .bytes = x->bytes,
		                       .key = x->key,
		                       .index_base = x->index_base};
		return pb_chk_other_ask(c, x->a, &m, -1, why, why_len);
	}
	void *src = at(c, x->src_gpu, x->src_region, x->src_offset);
	void *dst = at(c, x->dst_gpu, x->dst_region, x->dst_offset);
	if (!src || !dst) {
		snprintf(why, why_len, "no such memory to copy");
		return P2PS_CHK_OP_ERROR;
	}
	if (x->path == P2PS_CHK_CE)
		PB_CHK_CUDA(cudaMemcpyPeerAsync(dst, c->g[x->dst_gpu].ordinal, src,
		                                c->g[x->src_gpu].ordinal, x->bytes, A->s),
		            "cudaMemcpyPeerAsync");
	else
		PB_CHK_CUDA(pb_launch_copy(dst, src, x->bytes, 0, PB_SM_GRID, NULL, A->s),
		            "the copy kernel");
	PB_CHK_CUDA(cudaStreamSynchronize(A->s),
	            x->path == P2PS_CHK_CE ? "cudaMemcpyPeerAsync" : "the copy kernel");
	return P2PS_CHK_OP_OK;
}

static int scan(void *ctx, int g, enum p2ps_chk_region r, const struct p2ps_chk_span *sp, size_t n,
                struct p2ps_cell_tally *t, char *why, size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct pb_chk_gpu *G = &c->g[g];
	struct pb_chk_spans s;
	if (n > PB_CHK_SPANS || !G->region[r]) {
		snprintf(why, why_len, "no such memory to read back");
		return P2PS_CHK_OP_ERROR;
	}
	spans_of(sp, n, &s);
	for (size_t k = 0; k < n; k++) {
		p2ps_cell_tally_init(&G->htally[k]);
		G->htally[k].cells = s.s[k].cells;
	}
	size_t bytes = n * sizeof(*G->htally);
	PB_CHK_CUDA(cudaMemcpyAsync(G->dtally, G->htally, bytes, cudaMemcpyHostToDevice, G->s),
	            "cudaMemcpyAsync");
	PB_CHK_CUDA(pb_chk_launch_scan(G->region[r], &s, G->dtally, G->s), "the scan kernel");
	PB_CHK_CUDA(cudaMemcpyAsync(G->htally, G->dtally, bytes, cudaMemcpyDeviceToHost, G->s),
	            "cudaMemcpyAsync");
	PB_CHK_CUDA(cudaStreamSynchronize(G->s), "reading the memory back");
	for (size_t k = 0; k < n; k++) {
		t[k] = G->htally[k];
		if (t[k].first_bad >= s.s[k].cells)
			continue;
		const char *cell = (const char *)G->region[r] + s.s[k].offset +
		                   t[k].first_bad * P2PS_CELL_BYTES;
		PB_CHK_CUDA(cudaMemcpyAsync(G->htally[k].first_bad_cell, cell, P2PS_CELL_BYTES,
		                            cudaMemcpyDeviceToHost, G->s),
		            "cudaMemcpyAsync");
		PB_CHK_CUDA(cudaStreamSynchronize(G->s), "reading a cell back");
		memcpy(t[k].first_bad_cell, G->htally[k].first_bad_cell, P2PS_CELL_BYTES);
	}
	return P2PS_CHK_OP_OK;
}

const struct p2ps_chk_ops pb_chk_cuda_ops = {
        .devices = devices,
        .open = open_gpu,
        .peer = peer,
        .share = share,
        .fill = fill,
        .xfer = xfer,
        .scan = scan,
        .nccl_init = pb_chk_nccl_init,
        .nccl_run = pb_chk_nccl_run,
        .nccl_log = pb_chk_nccl_log,
};
