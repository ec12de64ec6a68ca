/* SPDX-License-Identifier: MIT */
/* p2p-bench --ipc, a worker's side: one process, one GPU. It allocates a source buffer
 * (filled with its pattern) and a receive buffer that it shares with the other workers,
 * imports theirs, and runs what the parent asks (ipc.h). The cuMem calls are vmm.c's.
 *
 * argv = {prog, "--ipc-worker", SOCKFD, INDEX, ORDINAL, KIND, BYTES}. */
#include "ipc.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "measure_internal.h"
#include "p2pscope/parse.h"
#include "vmm.h"

struct worker {
	int sock, ord;
	enum pb_ipc_kind kind;
	size_t bytes;
	struct pb_vmm drv;
	cudaStream_t s;
	cudaEvent_t start, stop;
	void *src, *dst;
	struct pb_vmm_buf own;
	unsigned long long *count;
	volatile int *hold;
	void *remote[PB_MAX_DEV];
	struct pb_vmm_buf remote_vmm[PB_MAX_DEV];
	int index; /* this worker's place in the run: its source pattern's seed */
	char err[200];
};

static int cuda_fail(struct worker *w, int e, const char *what)
{
	snprintf(w->err, sizeof(w->err), "%s: %s", what, cudaGetErrorString((cudaError_t)e));
	return P2PS_EIO;
}

#define CK(w, call, what)                                                                          \
	do {                                                                                       \
		int e_ = (int)(call);                                                              \
		if (e_ != cudaSuccess)                                                             \
			return cuda_fail(w, e_, what);                                             \
	} while (0)

/* The receive buffer as a cuMem allocation exported to a POSIX descriptor. */
static int share_fd(struct worker *w, struct pb_ipc_msg *hello, int *fd)
{
	if (pb_vmm_load(&w->drv, w->err, sizeof(w->err)) ||
	    pb_vmm_create_fd(&w->drv, w->ord, w->bytes, &w->own, w->err, sizeof(w->err)) ||
	    pb_vmm_export_fd(&w->drv, &w->own, fd, w->err, sizeof(w->err)))
		return P2PS_EIO;
	w->dst = (void *)(uintptr_t)w->own.va;
	hello->alloc_bytes = w->own.size;
	return 0;
}

static int setup(struct worker *w, struct pb_ipc_msg *hello, int *fd)
{
	CK(w, cudaSetDevice(w->ord), "cudaSetDevice");
	CK(w, cudaStreamCreateWithFlags(&w->s, cudaStreamNonBlocking), "cudaStreamCreate");
	CK(w, cudaEventCreate(&w->start), "cudaEventCreate");
	CK(w, cudaEventCreate(&w->stop), "cudaEventCreate");
	CK(w, cudaMalloc(&w->src, w->bytes), "cudaMalloc");
	CK(w, cudaMalloc((void **)&w->count, sizeof(*w->count)), "cudaMalloc");
	CK(w, cudaHostAlloc((void **)&w->hold, 2 * sizeof(int), cudaHostAllocMapped),
	   "cudaHostAlloc");
	if (w->kind == PB_IPC_POSIX_FD) {
		if (share_fd(w, hello, fd))
			return P2PS_EIO;
	} else {
		cudaIpcMemHandle_t h;
		CK(w, cudaMalloc(&w->dst, w->bytes), "cudaMalloc");
		CK(w, cudaIpcGetMemHandle(&h, w->dst), "cudaIpcGetMemHandle");
		memcpy(hello->handle, &h, sizeof(h));
	}
	return 0;
}

static int open_peer(struct worker *w, const struct pb_ipc_msg *m, int fd)
{
	int j = m->peer;
	if (j < 0 || j >= PB_MAX_DEV) {
		snprintf(w->err, sizeof(w->err), "bad peer %d", j);
		return P2PS_EINVAL;
	}
	if (w->kind == PB_IPC_RUNTIME) {
		cudaIpcMemHandle_t h;
		memcpy(&h, m->handle, sizeof(h));
		CK(w, cudaIpcOpenMemHandle(&w->remote[j], h, cudaIpcMemLazyEnablePeerAccess),
		   "cudaIpcOpenMemHandle");
		return 0;
	}
	struct pb_vmm_buf *b = &w->remote_vmm[j];
	if (fd < 0) {
		snprintf(w->err, sizeof(w->err), "no descriptor came with peer %d's buffer", j);
		return P2PS_EINVAL;
	}
	if (pb_vmm_import_fd(&w->drv, fd, (size_t)m->alloc_bytes, b, w->err, sizeof(w->err)) ||
	    pb_vmm_access(&w->drv, b, w->ord, w->err, sizeof(w->err)))
		return P2PS_EIO;
	w->remote[j] = (void *)(uintptr_t)b->va;
	return 0;
}

/* Queues m->reps copies to peer m->peer behind a hold released by GO. */
static int queue(struct worker *w, const struct pb_ipc_msg *m)
{
	void *to = m->peer >= 0 && m->peer < PB_MAX_DEV ? w->remote[m->peer] : NULL;
	if (!to || m->bytes > w->bytes || m->reps < 1) {
		snprintf(w->err, sizeof(w->err), "bad copy request (peer %d)", m->peer);
		return P2PS_EINVAL;
	}
	w->hold[0] = w->hold[1] = 0;
	__sync_synchronize();
	CK(w, pb_launch_hold(w->hold, HOLD_TIMEOUT_NS, (int *)w->hold + 1, w->s), "hold kernel");
	CK(w, cudaEventRecord(w->start, w->s), "cudaEventRecord");
	for (int k = 0; k < m->reps; k++)
		CK(w, cudaMemcpyAsync(to, w->src, m->bytes, cudaMemcpyDeviceToDevice, w->s),
		   "cudaMemcpyAsync");
	CK(w, cudaEventRecord(w->stop, w->s), "cudaEventRecord");
	return 0;
}

static int go(struct worker *w, struct pb_ipc_msg *m)
{
	float t = 0;
	__sync_synchronize();
	w->hold[0] = 1;
	CK(w, cudaStreamSynchronize(w->s), "copy run");
	CK(w, cudaEventElapsedTime(&t, w->start, w->stop), "cudaEventElapsedTime");
	m->ms = t;
	m->hold_timed_out = w->hold[1];
	return 0;
}

static int verify_own(struct worker *w, struct pb_ipc_msg *m)
{
	unsigned long long bad = 0;
	CK(w, cudaMemsetAsync(w->count, 0, sizeof(*w->count), w->s), "cudaMemsetAsync");
	if (m->bytes == 0 || m->bytes > w->bytes || m->peer < 0 || m->peer >= PB_MAX_DEV) {
		snprintf(w->err, sizeof(w->err), "bad verify request");
		return P2PS_EINVAL;
	}
	CK(w, pb_launch_verify(w->dst, m->bytes, seed_of(m->peer, SRC0), w->count, w->s), "verify");
	CK(w, cudaMemcpyAsync(&bad, w->count, sizeof(bad), cudaMemcpyDeviceToHost, w->s),
	   "cudaMemcpyAsync");
	CK(w, cudaStreamSynchronize(w->s), "verify");
	m->bad = bad;
	return 0;
}

static int handle(struct worker *w, struct pb_ipc_msg *m, int fd)
{
	switch (m->op) {
	case PB_IPC_OPEN: return open_peer(w, m, fd);
	case PB_IPC_POISON:
		CK(w,
		   pb_launch_fill(w->dst, m->bytes && m->bytes <= w->bytes ? m->bytes : w->bytes,
		                  POISON_SEED, w->s),
		   "poison fill");
		CK(w, cudaStreamSynchronize(w->s), "poison fill");
		return 0;
	case PB_IPC_QUEUE: return queue(w, m);
	case PB_IPC_GO: return go(w, m);
	case PB_IPC_VERIFY: return verify_own(w, m);
	default: snprintf(w->err, sizeof(w->err), "unknown request %d", m->op); return P2PS_EINVAL;
	}
}

static void teardown(struct worker *w)
{
	for (int j = 0; j < PB_MAX_DEV; j++) {
		if (w->kind == PB_IPC_RUNTIME && w->remote[j])
			cudaIpcCloseMemHandle(w->remote[j]);
		if (w->kind == PB_IPC_POSIX_FD)
			pb_vmm_free(&w->drv, &w->remote_vmm[j]);
	}
	if (w->kind == PB_IPC_POSIX_FD)
		pb_vmm_free(&w->drv, &w->own);
	else if (w->dst)
		cudaFree(w->dst);
	cudaFree(w->src);
	cudaFree(w->count);
	if (w->hold)
		cudaFreeHost((void *)w->hold);
}

/* Serves requests until QUIT or the parent goes away. */
static void serve(struct worker *w)
{
	for (;;) {
		struct pb_ipc_msg m;
		int fd;
		if (pb_ipc_recv(w->sock, &m, &fd) || m.op == PB_IPC_QUIT) {
			if (fd >= 0)
				close(fd);
			return;
		}
		w->err[0] = 0;
		m.status = handle(w, &m, fd);
		if (fd >= 0)
			close(fd);
		m.op = PB_IPC_REPLY;
		snprintf(m.err, sizeof(m.err), "%s", w->err);
		if (pb_ipc_send(w->sock, &m, -1))
			return;
	}
}

int pb_ipc_worker_main(int argc, char **argv)
{
	struct worker w = {.sock = -1};
	struct pb_ipc_msg hello = {.op = PB_IPC_HELLO};
	uint64_t sock, index, ord, kind, bytes;
	int fd = -1;
	if (argc != 7 || p2ps_parse_uint(argv[2], 1 << 20, &sock) ||
	    p2ps_parse_uint(argv[3], PB_MAX_DEV - 1, &index) ||
	    p2ps_parse_uint(argv[4], 1023, &ord) || p2ps_parse_uint(argv[5], 1, &kind) ||
	    p2ps_parse_uint(argv[6], 16ull << 30, &bytes) || bytes == 0) {
		fputs("p2p-bench: --ipc-worker is started by p2p-bench --ipc itself\n", stderr);
		return 2;
	}
	w.sock = (int)sock;
	w.index = (int)index;
	w.ord = (int)ord;
	w.kind = (enum pb_ipc_kind)kind;
	w.bytes = (size_t)bytes;
	hello.status = setup(&w, &hello, &fd);
	if (hello.status == 0 &&
	    pb_launch_fill(w.src, w.bytes, seed_of(w.index, SRC0), w.s) != cudaSuccess)
		hello.status = cuda_fail(&w, cudaGetLastError(), "source fill");
	if (hello.status == 0)
		cudaStreamSynchronize(w.s);
	snprintf(hello.err, sizeof(hello.err), "%s", w.err);
	if (pb_ipc_send(w.sock, &hello, fd) == 0 && hello.status == 0)
		serve(&w);
	if (fd >= 0)
		close(fd);
	teardown(&w);
	close(w.sock);
	return hello.status ? 1 : 0;
}
