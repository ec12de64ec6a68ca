/* SPDX-License-Identifier: MIT */
/* p2p-bench check's NCCL part: NCCL loaded with dlopen (no build dependency: the few
 * declarations below are NCCL's public API, nccl.h), one communicator over every GPU of the
 * check in this process (ncclCommInitAll), an all-reduce, an all-gather and a send/receive
 * between every ordered pair (which makes NCCL connect each pair), each verified against the
 * sum or copy it must produce. The transport NCCL chose per pair comes from its own INFO log,
 * which main points at a file of its own (NCCL_DEBUG=INFO, NCCL_DEBUG_FILE) before NCCL
 * starts; the library parses it (p2ps_chk_nccl_parse). */
#include "check_cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nccl_comm;
typedef int nccl_result; /* ncclSuccess = 0 */
enum { NCCL_UINT32 = 3 /* ncclUint32 */, NCCL_SUM = 0 /* ncclSum */ };

#define PER_RANK 65536 /* uint32 elements each rank contributes */
#define PER_PAIR 16384 /* elements a rank sends to each other rank */

struct pb_chk_nccl {
	void *lib;
	const char *(*error_string)(nccl_result);
	nccl_result (*get_version)(int *);
	nccl_result (*init_all)(nccl_comm *, int, const int *);
	nccl_result (*all_reduce)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_result (*all_gather)(const void *, void *, size_t, int, nccl_comm, cudaStream_t);
	nccl_result (*send)(const void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_result (*recv)(void *, size_t, int, int, nccl_comm, cudaStream_t);
	nccl_result (*group_start)(void);
	nccl_result (*group_end)(void);
	int n;
	nccl_comm comm[P2PS_CHK_MAX_GPUS];
	cudaStream_t s[P2PS_CHK_MAX_GPUS];
	uint32_t *send_buf[P2PS_CHK_MAX_GPUS], *recv_buf[P2PS_CHK_MAX_GPUS];
	uint32_t *host; /* one rank's result */
};

#define SYM(field, name)                                                                           \
	do {                                                                                       \
		*(void **)&x->field = dlsym(x->lib, name);                                         \
		if (!x->field) {                                                                   \
			snprintf(why, why_len, "%s has no %s", path, name);                        \
			return P2PS_CHK_OP_UNSUPPORTED;                                            \
		}                                                                                  \
	} while (0)

static int load(struct pb_chk_nccl *x, const char *path, char *why, size_t why_len)
{
	x->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!x->lib) {
		const char *e = dlerror();
		snprintf(why, why_len, "%s", e ? e : path);
		return P2PS_CHK_OP_UNSUPPORTED;
	}
	SYM(error_string, "ncclGetErrorString");
	SYM(get_version, "ncclGetVersion");
	SYM(init_all, "ncclCommInitAll");
	SYM(all_reduce, "ncclAllReduce");
	SYM(all_gather, "ncclAllGather");
	SYM(send, "ncclSend");
	SYM(recv, "ncclRecv");
	SYM(group_start, "ncclGroupStart");
	SYM(group_end, "ncclGroupEnd");
	return P2PS_CHK_OP_OK;
}

static int nccl_fail(const struct pb_chk_nccl *x, nccl_result r, const char *what, char *why,
                     size_t why_len)
{
	snprintf(why, why_len, "%s: %s", what, x->error_string ? x->error_string(r) : "failed");
	return P2PS_CHK_OP_ERROR;
}

#define NK(call, what)                                                                             \
	do {                                                                                       \
		nccl_result r_ = (call);                                                           \
		if (r_ != 0)                                                                       \
			return nccl_fail(x, r_, what, why, why_len);                               \
	} while (0)

int pb_chk_nccl_init(void *ctx, int n, char *version, size_t version_len, char *why, size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct pb_chk_nccl *x = calloc(1, sizeof(*x));
	int v = 0, dev[P2PS_CHK_MAX_GPUS];
	if (!x)
		return snprintf(why, why_len, "out of memory"), P2PS_CHK_OP_ERROR;
	c->nccl = x;
	x->n = n;
	int rc = load(x, c->nccl_path ? c->nccl_path : "libnccl.so.2", why, why_len);
	if (rc)
		return rc;
	NK(x->get_version(&v), "ncclGetVersion");
	/* Since 2.9: major * 10000 + minor * 100 + patch. */
	snprintf(version, version_len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	for (int g = 0; g < n; g++)
		dev[g] = c->g[g].ordinal;
	NK(x->init_all(x->comm, n, dev), "ncclCommInitAll");
	size_t bytes = (size_t)n * PER_RANK * sizeof(uint32_t);
	for (int g = 0; g < n; g++) {
		PB_CHK_CUDA(cudaSetDevice(dev[g]), "cudaSetDevice");
		PB_CHK_CUDA(cudaStreamCreateWithFlags(&x->s[g], cudaStreamNonBlocking),
		            "cudaStreamCreate");
		PB_CHK_CUDA(cudaMalloc((void **)&x->send_buf[g], bytes), "cudaMalloc");
		PB_CHK_CUDA(cudaMalloc((void **)&x->recv_buf[g], bytes), "cudaMalloc");
	}
	x->host = malloc(bytes);
	if (!x->host)
		return snprintf(why, why_len, "out of memory"), P2PS_CHK_OP_ERROR;
	return P2PS_CHK_OP_OK;
}

/* What rank r contributes at element k in operation op (to rank q for send/receive). */
static uint32_t value(int op, int r, int q, size_t k)
{
	return p2ps_cell_mix((uint32_t)op * 0x9e3779b9u ^ (uint32_t)r * 0x10001u ^
	                     (uint32_t)q * 0x3f1u ^ (uint32_t)k * 0x2545f491u);
}

/* Puts each rank's contribution into its send buffer. */
static int stage(struct pb_chk_cuda *c, struct pb_chk_nccl *x, enum p2ps_chk_nccl_op op, char *why,
                 size_t why_len)
{
	for (int r = 0; r < x->n; r++) {
		size_t count = op == P2PS_CHK_NCCL_SEND_RECV ? (size_t)x->n * PER_PAIR : PER_RANK;
		for (size_t k = 0; k < count; k++)
			x->host[k] = op == P2PS_CHK_NCCL_SEND_RECV
			                     ? value(op, r, (int)(k / PER_PAIR), k % PER_PAIR)
			                     : value(op, r, 0, k);
		PB_CHK_CUDA(cudaSetDevice(c->g[r].ordinal), "cudaSetDevice");
		PB_CHK_CUDA(cudaMemcpy(x->send_buf[r], x->host, count * sizeof(uint32_t),
		                       cudaMemcpyHostToDevice),
		            "cudaMemcpy");
	}
	return P2PS_CHK_OP_OK;
}

static int launch(struct pb_chk_nccl *x, enum p2ps_chk_nccl_op op, char *why, size_t why_len)
{
	NK(x->group_start(), "ncclGroupStart");
	for (int r = 0; r < x->n; r++) {
		if (op == P2PS_CHK_NCCL_ALL_REDUCE)
			NK(x->all_reduce(x->send_buf[r], x->recv_buf[r], PER_RANK, NCCL_UINT32,
			                 NCCL_SUM, x->comm[r], x->s[r]),
			   "ncclAllReduce");
		else if (op == P2PS_CHK_NCCL_ALL_GATHER)
			NK(x->all_gather(x->send_buf[r], x->recv_buf[r], PER_RANK, NCCL_UINT32,
			                 x->comm[r], x->s[r]),
			   "ncclAllGather");
		else
			for (int q = 0; q < x->n; q++) {
				if (q == r)
					continue;
				NK(x->send(x->send_buf[r] + (size_t)q * PER_PAIR, PER_PAIR,
				           NCCL_UINT32, q, x->comm[r], x->s[r]),
				   "ncclSend");
				NK(x->recv(x->recv_buf[r] + (size_t)q * PER_PAIR, PER_PAIR,
				           NCCL_UINT32, q, x->comm[r], x->s[r]),
				   "ncclRecv");
			}
	}
	NK(x->group_end(), "ncclGroupEnd");
	return P2PS_CHK_OP_OK;
}

/* The element k of rank r's result. */
static uint32_t expected(const struct pb_chk_nccl *x, enum p2ps_chk_nccl_op op, int r, size_t k)
{
	if (op == P2PS_CHK_NCCL_ALL_REDUCE) {
		uint32_t sum = 0;
		for (int q = 0; q < x->n; q++)
			sum += value(op, q, 0, k);
		return sum;
	}
	if (op == P2PS_CHK_NCCL_ALL_GATHER)
		return value(op, (int)(k / PER_RANK), 0, k % PER_RANK);
	/* Received from rank k / PER_PAIR, which sent what it made for r. */
	return value(op, (int)(k / PER_PAIR), r, k % PER_PAIR);
}

int pb_chk_nccl_run(void *ctx, enum p2ps_chk_nccl_op op, uint64_t *bad, uint64_t *total, char *why,
                    size_t why_len)
{
	struct pb_chk_cuda *c = ctx;
	struct pb_chk_nccl *x = c->nccl;
	int rc = stage(c, x, op, why, why_len);
	if (rc || (rc = launch(x, op, why, why_len)))
		return rc;
	*bad = *total = 0;
	size_t count = op == P2PS_CHK_NCCL_ALL_REDUCE   ? PER_RANK
	               : op == P2PS_CHK_NCCL_ALL_GATHER ? (size_t)x->n * PER_RANK
	                                                : (size_t)x->n * PER_PAIR;
	for (int r = 0; r < x->n; r++) {
		PB_CHK_CUDA(cudaSetDevice(c->g[r].ordinal), "cudaSetDevice");
		PB_CHK_CUDA(cudaStreamSynchronize(x->s[r]), p2ps_chk_nccl_op_name(op));
		PB_CHK_CUDA(cudaMemcpy(x->host, x->recv_buf[r], count * sizeof(uint32_t),
		                       cudaMemcpyDeviceToHost),
		            "cudaMemcpy");
		for (size_t k = 0; k < count; k++) {
			if (op == P2PS_CHK_NCCL_SEND_RECV && k / PER_PAIR == (size_t)r)
				continue; /* nothing comes from itself */
			(*total)++;
			*bad += x->host[k] != expected(x, op, r, k);
		}
	}
	return P2PS_CHK_OP_OK;
}

char *pb_chk_nccl_log(void *ctx)
{
	struct pb_chk_cuda *c = ctx;
	FILE *f = c->nccl_logfile ? fopen(c->nccl_logfile, "r") : NULL;
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len < cap)
			break;
		char *more = cap < (64u << 20) ? realloc(buf, 2 * cap + 1) : NULL;
		if (!more)
			break;
		buf = more;
		cap *= 2;
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}
