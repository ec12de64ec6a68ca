/* SPDX-License-Identifier: MIT */
/* p2p-bench check: the CUDA and NCCL side of the check (the operations of struct
 * p2ps_chk_ops, p2pscope/check.h), shared by check_cuda.c (this process's GPUs),
 * check_peer.c (the other processes of the cross-process paths: one per GPU, as p2p-bench
 * --ipc's workers, each writing from its GPU into the others' memory) and check_nccl.c. */
#ifndef P2P_BENCH_CHECK_CUDA_H
#define P2P_BENCH_CHECK_CUDA_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cuda_runtime_api.h>

#include "p2pscope/check.h"
#include "vmm.h"

/* A message between this process and another (check_peer.c), either way. */
enum pb_chk_op {
	PB_CHK_IMPORT = 1, /* map GPU b's region (handle, or the descriptor that travels along) */
	PB_CHK_WRITE,      /* GPU a writes a step's payload into GPU b's imported region */
	PB_CHK_REPLY,
};

struct pb_chk_msg {
	int32_t op, status; /* status: enum p2ps_chk_op (check.h) in replies */
	int32_t path, a, b, region;
	uint64_t offset, bytes, size;
	struct p2ps_cell_key key;
	uint32_t index_base;
	unsigned char handle[64]; /* cudaIpcMemHandle_t */
	char why[200];
};

struct pb_chk_nccl; /* check_nccl.c */

/* One GPU of this process. */
struct pb_chk_gpu {
	int ordinal;
	cudaStream_t s;
	void *region[P2PS_CHK_REGIONS];
	uint64_t bytes[P2PS_CHK_REGIONS];
	struct pb_vmm_buf fd;
	struct p2ps_cell_tally *dtally, *htally; /* PB_CHK_SPANS each */
	int sock;                /* to the other process that writes from this GPU, -1 none */
	pid_t worker;            /* that process */
	pthread_mutex_t sock_mu; /* one request and its reply at a time */
};

struct pb_chk_cuda {
	int ndev_asked;
	int dev_asked[P2PS_CHK_MAX_GPUS]; /* --devices; 0 asked: every visible one */
	bool other_process;               /* start the other processes (cross-process paths) */
	const char *self;                 /* this executable, for the other processes */
	int n;
	struct pb_chk_gpu g[P2PS_CHK_MAX_GPUS];
	struct pb_vmm vmm;
	bool vmm_loaded;
	bool others_started;
	char others_why[160]; /* why they did not start */
	struct pb_chk_nccl *nccl;
	const char *nccl_path;    /* --nccl PATH; NULL: libnccl.so.2 */
	const char *nccl_logfile; /* where NCCL_DEBUG_FILE points */
};

extern const struct p2ps_chk_ops pb_chk_cuda_ops;

/* check_peer.c: starts one other process per GPU of c (c->g[].sock, .worker); 0 or -1 with
 * why. */
int pb_chk_other_start(struct pb_chk_cuda *c, char *why, size_t why_len);
/* Sends m (and fd) to the other process of GPU g and waits for its reply into m; returns its
 * status (enum p2ps_chk_op) with why filled. */
int pb_chk_other_ask(struct pb_chk_cuda *c, int g, struct pb_chk_msg *m, int fd, char *why,
                     size_t why_len);
/* Ends the other processes without waiting for them (kill: also those inside a call). */
void pb_chk_other_stop(struct pb_chk_cuda *c, bool kill);
/* An other process's main: argv = {prog, "--check-peer", SOCKFD, ORDINAL, INDEX}. */
int pb_chk_other_main(int argc, char **argv);

/* check_nccl.c: the NCCL operations. */
int pb_chk_nccl_init(void *ctx, int n, char *version, size_t version_len, char *why,
                     size_t why_len);
int pb_chk_nccl_run(void *ctx, enum p2ps_chk_nccl_op op, uint64_t *bad, uint64_t *total, char *why,
                    size_t why_len);
char *pb_chk_nccl_log(void *ctx);

/* A CUDA error as one line ("what: message"); returns P2PS_CHK_OP_ERROR. */
int pb_chk_cuda_fail(int e, const char *what, char *why, size_t why_len);

/* Returns pb_chk_cuda_fail() from the calling operation (its why, why_len) when call fails. */
#define PB_CHK_CUDA(call, what)                                                                    \
	do {                                                                                       \
		int e_ = (int)(call);                                                              \
		if (e_ != cudaSuccess)                                                             \
			return pb_chk_cuda_fail(e_, what, why, why_len);                           \
	} while (0)

#endif
