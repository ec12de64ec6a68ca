/* SPDX-License-Identifier: MIT */
/* p2p-bench measurement internals shared by measure.c (timed runs, matrices) and
 * devices.c (finding the devices, their streams, events and buffers, and freeing them). */
#ifndef P2P_BENCH_MEASURE_INTERNAL_H
#define P2P_BENCH_MEASURE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "bench.h"

enum { SRC0, DST0, SRC1, DST1, NBUF };
enum engine { ENG_CE, ENG_SM_WRITE, ENG_SM_READ, ENG_SM16 };

/* The host queues a run within microseconds; the hold gives up after 200 ms so
 * that a driver which blocks the host inside an enqueue (staged copies without
 * peer access may) costs a flagged run, not a deadlock. */
#define HOLD_TIMEOUT_NS 200000000ull
#define PP_TIMEOUT_NS   2000000000ull /* one whole ping-pong run */
#define POISON_SEED     0xdeadbeefu
#define LAT_BYTES       16 /* one int4, as p2pBandwidthLatencyTest's latency copies */

struct dev_state {
	cudaStream_t s[2];
	cudaEvent_t start, stop, done[2];
	void *buf[NBUF];
	unsigned long long *count; /* verification mismatches */
	unsigned *flag;            /* ping-pong word written by the peer */
	unsigned long long *pp;    /* ping-pong result: ns, status */
	int *failed;               /* set by a bulk copy whose stage never completed */
};

struct ctx {
	const struct pb_options *o;
	struct pb_result *r;
	struct dev_state d[PB_MAX_DEV];
	bool peer_on[PB_MAX_DEV][PB_MAX_DEV];
	volatile int *hold; /* host-mapped, read by the hold kernel */
	int *hold_timed_out;
	struct p2ps_error *err;
};

/* A CUDA status into c->err ("what (device N): reason"); 0 on success. */
static inline int cu(struct ctx *c, int e, const char *what, int dev)
{
	if (e == cudaSuccess)
		return 0;
	return p2ps_error_set(c->err, P2PS_EIO, "%s (device %d): %s", what, dev,
	                      cudaGetErrorString((cudaError_t)e));
}

static inline int ord(const struct ctx *c, int i)
{
	return c->r->dev[i].ordinal;
}

static inline int on_dev(struct ctx *c, int i)
{
	return cu(c, cudaSetDevice(ord(c, i)), "cudaSetDevice", ord(c, i));
}

/* The fill pattern of buffer buf of device dev. */
static inline uint32_t seed_of(int dev, int buf)
{
	return 0x5eed0000u + (uint32_t)dev * 16u + (uint32_t)buf;
}

/* devices.c */
int pb_probe_devices(struct ctx *c);
int pb_setup_devices(struct ctx *c);
void pb_teardown(struct ctx *c);

#endif
