/* SPDX-License-Identifier: MIT */
/* A stand-in for the GPU side of the check (struct p2ps_chk_ops) that the tests drive: GPUs
 * whose memory is host memory (only the windows the check fills exist; a write anywhere else
 * is lost, a read there gives zeros), and planted failures, each the way it shows on real
 * hardware: a write of zeros, a read answered with all ones, a write that never lands, one
 * that lands shifted, a power of two away or on another GPU, garbage, a copy that overruns,
 * a call that never returns, CUDA denying peer access, a failing call, and on NCCL's side a
 * transport through host memory, wrong data, a hang and a missing library. */
#ifndef P2PS_TEST_STANDIN_H
#define P2PS_TEST_STANDIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "p2pscope/check.h"

enum fault_kind {
	F_NONE = 0,
	F_ZEROS,     /* the destination gets zeros */
	F_ONES,      /* a load reads all ones */
	F_DROP,      /* the write never lands */
	F_SHIFT,     /* lands arg bytes away from its place (a load reads there) */
	F_WRONG_GPU, /* lands on GPU gpu, arg bytes from the place (a load reads there) */
	F_CORRUPT,   /* one word of every cell flipped */
	F_OVERRUN,   /* the payload and 64 bytes of zeros after it */
	F_HANG,      /* the call blocks until standin_release() */
	F_DENY,      /* peer access: cudaDeviceCanAccessPeer says 0 */
	F_ERROR,     /* the call fails */
};

struct fault {
	int a, b, path; /* path -1: every path of the pair (peer access: P2PS_CHK_PEER) */
	enum fault_kind kind;
	int64_t arg;
	int gpu;
};

enum nccl_fault { N_NONE = 0, N_SHM, N_CORRUPT, N_HANG, N_NO_LIBRARY, N_INIT_ERROR };

struct standin {
	int n; /* GPUs */
	const char *bdf[P2PS_CHK_MAX_GPUS];
	int n_faults;
	struct fault faults[8];
	enum nccl_fault nccl;
	int nccl_pair[2]; /* N_SHM: the ordered pair NCCL connects through SHM */
	bool no_devices;  /* devices() fails as without a driver */
	bool hang_devices;
	/* inside */
	pthread_mutex_t mu;
	pthread_cond_t release_cv;
	bool released;
	int hung; /* calls blocked now */
	struct chunk *mem[P2PS_CHK_MAX_GPUS][P2PS_CHK_REGIONS];
	int calls[16];
};

void standin_init(struct standin *s, int n);
/* Lets every hanging call return (as a GPU reset would). */
void standin_release(struct standin *s);
void standin_free(struct standin *s);
extern const struct p2ps_chk_ops standin_ops;

#endif
