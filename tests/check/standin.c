/* SPDX-License-Identifier: MIT */
/* The stand-in GPUs of the check's tests (standin.h). */
#include "standin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A window of one region of one GPU, created by the first fill that covers it. */
struct chunk {
	uint64_t offset, bytes;
	uint8_t *data;
	struct chunk *next;
};

void standin_init(struct standin *s, int n)
{
	static const char *const bdfs[] = {"0000:00:06.0", "0000:00:07.0", "0000:00:08.0",
	                                   "0000:00:09.0"};
	memset(s, 0, sizeof(*s));
	s->n = n;
	for (int g = 0; g < n && g < 4; g++)
		s->bdf[g] = bdfs[g];
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->release_cv, NULL);
}

void standin_release(struct standin *s)
{
	pthread_mutex_lock(&s->mu);
	s->released = true;
	pthread_cond_broadcast(&s->release_cv);
	pthread_mutex_unlock(&s->mu);
}

void standin_free(struct standin *s)
{
	for (int g = 0; g < P2PS_CHK_MAX_GPUS; g++)
		for (int r = 0; r < P2PS_CHK_REGIONS; r++)
			for (struct chunk *c = s->mem[g][r], *next; c; c = next) {
				next = c->next;
				free(c->data);
				free(c);
			}
	pthread_cond_destroy(&s->release_cv);
	pthread_mutex_destroy(&s->mu);
}

static const struct fault *fault_of(const struct standin *s, int a, int b, int path)
{
	for (int k = 0; k < s->n_faults; k++)
		if (s->faults[k].a == a && s->faults[k].b == b &&
		    (s->faults[k].path == path || (s->faults[k].path < 0 && path != P2PS_CHK_PEER)))
			return &s->faults[k];
	return NULL;
}

/* Blocks until released: a call that does not return. */
static void hang(struct standin *s)
{
	pthread_mutex_lock(&s->mu);
	s->hung++;
	while (!s->released)
		pthread_cond_wait(&s->release_cv, &s->mu);
	s->hung--;
	pthread_mutex_unlock(&s->mu);
}

/* Copies between memory and buf where chunks exist (called with mu held). */
static void access_mem(struct standin *s, int g, int r, uint64_t off, uint8_t *buf, uint64_t n,
                       bool write)
{
	if (!write)
		memset(buf, 0, n);
	for (struct chunk *c = s->mem[g][r]; c; c = c->next) {
		uint64_t lo = off > c->offset ? off : c->offset;
		uint64_t hi = off + n < c->offset + c->bytes ? off + n : c->offset + c->bytes;
		if (lo >= hi)
			continue;
		if (write)
			memcpy(c->data + (lo - c->offset), buf + (lo - off), hi - lo);
		else
			memcpy(buf + (lo - off), c->data + (lo - c->offset), hi - lo);
	}
}

static int devices(void *ctx, struct p2ps_chk_gpu_info *out, int max, int *n, char *why,
                   size_t why_len)
{
	struct standin *s = ctx;
	if (s->hang_devices)
		hang(s);
	if (s->no_devices) {
		snprintf(why, why_len, "cudaGetDeviceCount: no NVIDIA driver loaded");
		return P2PS_CHK_OP_ERROR;
	}
	*n = s->n < max ? s->n : max;
	for (int g = 0; g < *n; g++) {
		out[g] = (struct p2ps_chk_gpu_info){.ordinal = g,
		                                    .cc_major = 9,
		                                    .cc_minor = 0,
		                                    .mem_bytes = 144ull << 30,
		                                    .fd_handles = true,
		                                    .managed = true};
		snprintf(out[g].bdf, sizeof(out[g].bdf), "%s", s->bdf[g]);
		snprintf(out[g].name, sizeof(out[g].name), "Stand-in GPU");
	}
	return P2PS_CHK_OP_OK;
}

static int open_gpu(void *ctx, int g, const uint64_t bytes[P2PS_CHK_REGIONS], char *why,
                    size_t why_len)
{
	(void)ctx;
	(void)g;
	(void)bytes;
	(void)why;
	(void)why_len;
	return P2PS_CHK_OP_OK;
}

static int peer(void *ctx, int a, int b, int *can, char *why, size_t why_len)
{
	struct standin *s = ctx;
	const struct fault *f = fault_of(s, a, b, P2PS_CHK_PEER);
	*can = 1;
	if (f && f->kind == F_HANG)
		hang(s);
	if (f && f->kind == F_DENY) {
		*can = 0;
		return P2PS_CHK_OP_DENIED;
	}
	if (f && f->kind == F_ERROR) {
		snprintf(why, why_len, "cudaDeviceEnablePeerAccess: planted failure");
		return P2PS_CHK_OP_ERROR;
	}
	return P2PS_CHK_OP_OK;
}

static int share(void *ctx, int g, enum p2ps_chk_region r, char *why, size_t why_len)
{
	(void)ctx;
	(void)g;
	(void)r;
	(void)why;
	(void)why_len;
	return P2PS_CHK_OP_OK;
}

static struct chunk *chunk_for(struct standin *s, int g, int r, uint64_t off, uint64_t bytes)
{
	for (struct chunk *c = s->mem[g][r]; c; c = c->next)
		if (c->offset == off && c->bytes == bytes)
			return c;
	struct chunk *c = calloc(1, sizeof(*c));
	c->offset = off;
	c->bytes = bytes;
	c->data = calloc(1, bytes);
	c->next = s->mem[g][r];
	s->mem[g][r] = c;
	return c;
}

static int fill(void *ctx, int g, enum p2ps_chk_region r, const struct p2ps_chk_span *sp, size_t n,
                char *why, size_t why_len)
{
	struct standin *s = ctx;
	(void)why;
	(void)why_len;
	pthread_mutex_lock(&s->mu);
	for (size_t k = 0; k < n; k++) {
		struct chunk *c = chunk_for(s, g, r, sp[k].offset, sp[k].bytes);
		uint32_t *w = (uint32_t *)c->data;
		for (uint64_t i = 0; i < sp[k].bytes / P2PS_CELL_BYTES; i++)
			p2ps_cell_make(&sp[k].win.expect, sp[k].win.expect_base + (uint32_t)i,
			               w + 4 * i);
	}
	pthread_mutex_unlock(&s->mu);
	return P2PS_CHK_OP_OK;
}

static void corrupt(uint8_t *buf, uint64_t n)
{
	for (uint64_t i = 0; i + P2PS_CELL_BYTES <= n; i += P2PS_CELL_BYTES)
		buf[i + 5] ^= 0x40;
}

static int xfer(void *ctx, const struct p2ps_chk_xfer *x, char *why, size_t why_len)
{
	struct standin *s = ctx;
	const struct fault *f = fault_of(s, x->a, x->b, x->path);
	bool remote = x->path >= P2PS_CHK_IPC_CE && x->path <= P2PS_CHK_FD_SM;
	bool load = x->path == P2PS_CHK_SM_LOAD;
	enum fault_kind k = f ? f->kind : F_NONE;
	if (k == F_HANG)
		hang(s);
	if (k == F_ERROR) {
		snprintf(why, why_len, "cudaMemcpyPeerAsync: planted failure");
		return P2PS_CHK_OP_ERROR;
	}
	uint64_t extra = k == F_OVERRUN ? 64 : 0;
	uint8_t *buf = calloc(1, x->bytes + extra);
	int src_gpu = x->src_gpu, dst_gpu = x->dst_gpu;
	uint64_t src_off = x->src_offset, dst_off = x->dst_offset;
	/* A load's faults move its source, a write's its destination. */
	if (k == F_SHIFT || k == F_WRONG_GPU) {
		int gpu = k == F_WRONG_GPU ? f->gpu : load ? src_gpu : dst_gpu;
		if (load) {
			src_gpu = gpu;
			src_off = (uint64_t)((int64_t)src_off + f->arg);
		} else {
			dst_gpu = gpu;
			dst_off = (uint64_t)((int64_t)dst_off + f->arg);
		}
	}
	pthread_mutex_lock(&s->mu);
	if (remote) {
		uint32_t *w = (uint32_t *)buf;
		for (uint64_t i = 0; i < x->bytes / P2PS_CELL_BYTES; i++)
			p2ps_cell_make(&x->key, x->index_base + (uint32_t)i, w + 4 * i);
	} else {
		access_mem(s, src_gpu, x->src_region, src_off, buf, x->bytes, false);
	}
	if (k == F_ZEROS)
		memset(buf, 0, x->bytes);
	if (k == F_ONES)
		memset(buf, 0xff, x->bytes);
	if (k == F_CORRUPT)
		corrupt(buf, x->bytes);
	if (k != F_DROP)
		access_mem(s, dst_gpu, x->dst_region, dst_off, buf, x->bytes + extra, true);
	pthread_mutex_unlock(&s->mu);
	free(buf);
	return P2PS_CHK_OP_OK;
}

static int scan(void *ctx, int g, enum p2ps_chk_region r, const struct p2ps_chk_span *sp, size_t n,
                struct p2ps_cell_tally *t, char *why, size_t why_len)
{
	struct standin *s = ctx;
	(void)why;
	(void)why_len;
	pthread_mutex_lock(&s->mu);
	for (size_t k = 0; k < n; k++) {
		uint8_t *buf = malloc(sp[k].bytes);
		access_mem(s, g, r, sp[k].offset, buf, sp[k].bytes, false);
		p2ps_cell_scan((const uint32_t *)buf, sp[k].bytes / P2PS_CELL_BYTES, &sp[k].win,
		               &t[k]);
		free(buf);
	}
	pthread_mutex_unlock(&s->mu);
	return P2PS_CHK_OP_OK;
}

static int nccl_init(void *ctx, int n, char *version, size_t version_len, char *why, size_t why_len)
{
	struct standin *s = ctx;
	(void)n;
	if (s->nccl == N_NO_LIBRARY) {
		snprintf(why, why_len, "libnccl.so.2: cannot open shared object file");
		return P2PS_CHK_OP_UNSUPPORTED;
	}
	if (s->nccl == N_INIT_ERROR) {
		snprintf(why, why_len, "ncclCommInitAll: unhandled cuda error");
		return P2PS_CHK_OP_ERROR;
	}
	snprintf(version, version_len, "2.28.9");
	return P2PS_CHK_OP_OK;
}

static int nccl_run(void *ctx, enum p2ps_chk_nccl_op op, uint64_t *bad, uint64_t *total, char *why,
                    size_t why_len)
{
	struct standin *s = ctx;
	(void)why;
	(void)why_len;
	if (s->nccl == N_HANG && op == P2PS_CHK_NCCL_ALL_REDUCE)
		hang(s);
	*total = 1024;
	*bad = s->nccl == N_CORRUPT && op == P2PS_CHK_NCCL_ALL_GATHER ? 5 : 0;
	return P2PS_CHK_OP_OK;
}

/* NCCL's own lines (the spelling of src/transport/p2p.cc and shm.cc) for every ordered pair. */
static char *nccl_log(void *ctx)
{
	struct standin *s = ctx;
	size_t cap = 256 + (size_t)s->n * (size_t)s->n * 160;
	char *log = malloc(cap);
	size_t len =
	        (size_t)snprintf(log, cap, "vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n");
	for (int a = 0; a < s->n; a++)
		for (int b = 0; b < s->n; b++) {
			if (a == b)
				continue;
			bool shm = s->nccl == N_SHM && a == s->nccl_pair[0] && b == s->nccl_pair[1];
			len += (size_t)snprintf(
			        log + len, cap - len,
			        shm ? "vm:1:1 [%d] NCCL INFO Channel 00 : %d[%d] -> %d[%d] "
			              "via SHM/direct/direct\n"
			            : "vm:1:1 [%d] NCCL INFO Channel 00/1 : %d[%d] -> "
			              "%d[%d] via P2P/direct pointer\n",
			        a, a, a, b, b);
		}
	return log;
}

const struct p2ps_chk_ops standin_ops = {
        .devices = devices,
        .open = open_gpu,
        .peer = peer,
        .share = share,
        .fill = fill,
        .xfer = xfer,
        .scan = scan,
        .nccl_init = nccl_init,
        .nccl_run = nccl_run,
        .nccl_log = nccl_log,
};
