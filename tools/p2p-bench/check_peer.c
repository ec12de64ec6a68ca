/* SPDX-License-Identifier: MIT */
/* p2p-bench check's cross-process paths: one other process per GPU a, as p2p-bench --ipc's
 * workers (ipc.c's message transport, vmm.c's cuMem calls), that maps every other GPU's
 * memory the way NCCL, MPI and vLLM share it between ranks — a cudaIpc handle opened with
 * cudaIpcMemLazyEnablePeerAccess, a cuMem allocation imported from a POSIX file descriptor
 * and given access with cuMemSetAccess — and writes a step's payload there from its GPU with
 * the copy engine or an SM kernel. This process fills, and reads back, its own memory.
 *
 * A worker answers every request; what it could not map it says when asked to write there.
 * It ends when its socket closes. */
#include "check_cuda.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_kernels.h"
#include "ipc.h"
#include "kernels.h"
#include "p2pscope/parse.h"

/* ---- this process's side ---- */

int pb_chk_other_start(struct pb_chk_cuda *c, char *why, size_t why_len)
{
	for (int g = 0; g < c->n; g++) {
		struct pb_chk_gpu *G = &c->g[g];
		int sv[2];
		char a_fd[16], a_ord[16], a_index[16];
		pthread_mutex_init(&G->sock_mu, NULL);
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
			snprintf(why, why_len, "socketpair: %s", strerror(errno));
			return -1;
		}
		snprintf(a_fd, sizeof(a_fd), "%d", sv[1]);
		snprintf(a_ord, sizeof(a_ord), "%d", G->ordinal);
		snprintf(a_index, sizeof(a_index), "%d", g);
		char *args[] = {(char *)c->self, "--check-peer", a_fd, a_ord, a_index, NULL};
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			close(sv[0]);
			close(sv[1]);
			snprintf(why, why_len, "fork: %s", strerror(errno));
			return -1;
		}
		if (pid == 0) {
			fcntl(sv[1], F_SETFD, 0); /* the worker's end survives exec */
			execv(c->self, args);
			_exit(127);
		}
		close(sv[1]);
		G->sock = sv[0];
		G->worker = pid;
	}
	return 0;
}

int pb_chk_other_ask(struct pb_chk_cuda *c, int g, struct pb_chk_msg *m, int fd, char *why,
                     size_t why_len)
{
	struct pb_chk_gpu *G = &c->g[g];
	int got = -1, rc;
	if (G->sock < 0) {
		snprintf(why, why_len, "no other process for GPU %d", g);
		return P2PS_CHK_OP_ERROR;
	}
	pthread_mutex_lock(&G->sock_mu);
	errno = 0;
	if (pb_ipc_send_bytes(G->sock, m, sizeof(*m), fd) ||
	    pb_ipc_recv_bytes(G->sock, m, sizeof(*m), &got)) {
		snprintf(why, why_len, "the other process of GPU %d: %s", g,
		         errno ? strerror(errno) : "it ended");
		rc = P2PS_CHK_OP_ERROR;
	} else {
		m->why[sizeof(m->why) - 1] = 0;
		snprintf(why, why_len, "%s", m->why);
		rc = m->status >= P2PS_CHK_OP_OK && m->status <= P2PS_CHK_OP_UNSUPPORTED
		             ? m->status
		             : P2PS_CHK_OP_ERROR;
	}
	pthread_mutex_unlock(&G->sock_mu);
	if (got >= 0)
		close(got);
	return rc;
}

void pb_chk_other_stop(struct pb_chk_cuda *c, bool kill_them)
{
	for (int g = 0; g < c->n; g++) {
		if (c->g[g].sock >= 0)
			close(c->g[g].sock);
		c->g[g].sock = -1;
		if (kill_them && c->g[g].worker > 0)
			kill(c->g[g].worker, SIGKILL);
	}
}

/* ---- a worker ---- */

struct mapped {
	void *ptr;
	uint64_t size;
	struct pb_vmm_buf fd;
	char why[200]; /* why it is not mapped ("" before the request) */
	enum p2ps_chk_op status;
};

struct worker {
	int sock, ord, index;
	cudaStream_t s;
	struct pb_vmm vmm;
	bool vmm_loaded;
	void *src;
	uint64_t src_bytes;
	struct mapped map[P2PS_CHK_REGIONS][P2PS_CHK_MAX_GPUS];
	char init_why[200];
};

static int fail(int e, const char *what, struct pb_chk_msg *m)
{
	return pb_chk_cuda_fail(e, what, m->why, sizeof(m->why));
}

/* Maps GPU b's region: the error is kept for the writes that need it. */
static int import(struct worker *w, struct pb_chk_msg *m, int fd)
{
	if (m->b < 0 || m->b >= P2PS_CHK_MAX_GPUS || m->region < 0 || m->region > P2PS_CHK_R_FD)
		return snprintf(m->why, sizeof(m->why), "bad import request"), P2PS_CHK_OP_ERROR;
	struct mapped *x = &w->map[m->region][m->b];
	x->size = m->size;
	x->status = P2PS_CHK_OP_OK;
	x->why[0] = 0;
	if (m->region == P2PS_CHK_R_MAIN) {
		cudaIpcMemHandle_t h;
		memcpy(&h, m->handle, sizeof(h));
		cudaError_t e = cudaIpcOpenMemHandle(&x->ptr, h, cudaIpcMemLazyEnablePeerAccess);
		if (e != cudaSuccess) {
			x->status = e == cudaErrorPeerAccessUnsupported ? P2PS_CHK_OP_DENIED
			                                                : P2PS_CHK_OP_ERROR;
			snprintf(x->why, sizeof(x->why), "cudaIpcOpenMemHandle: %s",
			         cudaGetErrorString(e));
			cudaGetLastError();
		}
		return P2PS_CHK_OP_OK;
	}
	if (!w->vmm_loaded || fd < 0) {
		x->status = P2PS_CHK_OP_ERROR;
		snprintf(x->why, sizeof(x->why), "%s",
		         fd < 0 ? "no descriptor came with the request" : "no cuMem calls");
		return P2PS_CHK_OP_OK;
	}
	if (pb_vmm_import_fd(&w->vmm, fd, m->size, &x->fd, x->why, sizeof(x->why)))
		x->status = P2PS_CHK_OP_ERROR;
	else if (pb_vmm_access(&w->vmm, &x->fd, w->ord, x->why, sizeof(x->why)))
		x->status = P2PS_CHK_OP_DENIED; /* the driver refuses this GPU access to it */
	else
		x->ptr = (void *)(uintptr_t)x->fd.va;
	return P2PS_CHK_OP_OK;
}

/* Writes the payload of step a -> b into b's mapped region. */
static int write_step(struct worker *w, struct pb_chk_msg *m)
{
	bool fd = m->path == P2PS_CHK_FD_CE || m->path == P2PS_CHK_FD_SM;
	bool sm = m->path == P2PS_CHK_IPC_SM || m->path == P2PS_CHK_FD_SM;
	int region = fd ? P2PS_CHK_R_FD : P2PS_CHK_R_MAIN;
	if (m->b < 0 || m->b >= P2PS_CHK_MAX_GPUS || !m->bytes || m->bytes % P2PS_CELL_BYTES)
		return snprintf(m->why, sizeof(m->why), "bad write request"), P2PS_CHK_OP_ERROR;
	struct mapped *x = &w->map[region][m->b];
	if (x->status != P2PS_CHK_OP_OK || !x->ptr) {
		snprintf(m->why, sizeof(m->why), "%s", x->why[0] ? x->why : "not mapped");
		return x->status != P2PS_CHK_OP_OK ? (int)x->status : P2PS_CHK_OP_ERROR;
	}
	if (m->offset + m->bytes > x->size)
		return snprintf(m->why, sizeof(m->why), "write beyond the mapping"),
		       P2PS_CHK_OP_ERROR;
	if (m->bytes > w->src_bytes) {
		cudaFree(w->src);
		w->src = NULL;
		w->src_bytes = 0;
		int e = cudaMalloc(&w->src, m->bytes);
		if (e)
			return fail(e, "cudaMalloc", m);
		w->src_bytes = m->bytes;
	}
	struct pb_chk_spans sp = {.n = 1};
	sp.s[0].cells = m->bytes / P2PS_CELL_BYTES;
	sp.s[0].win.expect = m->key;
	sp.s[0].win.expect_base = m->index_base;
	int e = pb_chk_launch_fill(w->src, &sp, w->s);
	if (e)
		return fail(e, "the fill kernel", m);
	void *dst = (char *)x->ptr + m->offset;
	e = sm ? pb_launch_copy(dst, w->src, m->bytes, 0, PB_SM_GRID, NULL, w->s)
	       : (int)cudaMemcpyAsync(dst, w->src, m->bytes, cudaMemcpyDeviceToDevice, w->s);
	if (e)
		return fail(e, sm ? "the copy kernel" : "cudaMemcpyAsync", m);
	e = (int)cudaStreamSynchronize(w->s);
	return e ? fail(e, sm ? "the copy kernel" : "cudaMemcpyAsync", m) : P2PS_CHK_OP_OK;
}

static void serve(struct worker *w)
{
	for (;;) {
		struct pb_chk_msg m;
		int fd = -1;
		if (pb_ipc_recv_bytes(w->sock, &m, sizeof(m), &fd))
			return;
		m.why[0] = 0;
		if (w->init_why[0]) {
			snprintf(m.why, sizeof(m.why), "%s", w->init_why);
			m.status = P2PS_CHK_OP_ERROR;
		} else {
			m.status = m.op == PB_CHK_IMPORT  ? import(w, &m, fd)
			           : m.op == PB_CHK_WRITE ? write_step(w, &m)
			                                  : P2PS_CHK_OP_ERROR;
		}
		if (fd >= 0)
			close(fd);
		m.op = PB_CHK_REPLY;
		if (pb_ipc_send_bytes(w->sock, &m, sizeof(m), -1))
			return;
	}
}

int pb_chk_other_main(int argc, char **argv)
{
	struct worker *w = calloc(1, sizeof(*w));
	uint64_t sock, ord, index;
	if (!w || argc != 5 || p2ps_parse_uint(argv[2], 1 << 20, &sock) ||
	    p2ps_parse_uint(argv[3], 1023, &ord) ||
	    p2ps_parse_uint(argv[4], P2PS_CHK_MAX_GPUS - 1, &index)) {
		fputs("p2p-bench: --check-peer is started by p2p-bench check itself\n", stderr);
		free(w);
		return 2;
	}
	w->sock = (int)sock;
	w->ord = (int)ord;
	w->index = (int)index;
	int e = cudaSetDevice(w->ord);
	if (!e)
		e = cudaFree(0);
	if (!e)
		e = cudaStreamCreateWithFlags(&w->s, cudaStreamNonBlocking);
	if (e)
		snprintf(w->init_why, sizeof(w->init_why), "the other process on device %d: %s",
		         w->ord, cudaGetErrorString((cudaError_t)e));
	char why[160];
	w->vmm_loaded = !pb_vmm_load(&w->vmm, why, sizeof(why));
	serve(w);
	/* The process ends here; the driver frees what it mapped. */
	fflush(NULL);
	_exit(0);
}
