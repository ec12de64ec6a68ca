/* SPDX-License-Identifier: MIT */
/* p2p-bench: the GPU side. Kernels live in kernels.cu; these C entry points
 * launch them on the current device and return the cudaError_t of the launch
 * (as int, so that C callers need no CUDA types beyond the runtime API). */
#ifndef P2P_BENCH_KERNELS_H
#define P2P_BENCH_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest grid the copy kernel is given per multiprocessor (see pb_copy_blocks). */
#define PB_COPY_THREADS 512

/* Fills bytes (a multiple of 4) at buf with the pattern of seed. Every 32-bit
 * word depends on its index and the seed, so a copy that lands at the wrong
 * offset, is cut short or is stale (another seed) fails verification. */
int pb_launch_fill(void *buf, size_t bytes, uint32_t seed, cudaStream_t s);

/* Adds to *count (device memory) the number of 32-bit words in buf that differ
 * from the pattern of seed. */
int pb_launch_verify(const void *buf, size_t bytes, uint32_t seed, unsigned long long *count,
                     cudaStream_t s);

/* SM copy kernels: PB_SM_GRID, a grid-stride loop with four 16-byte loads per
 * thread in flight; PB_SM_WARP, contiguous 4 KiB pieces per warp; PB_SM_BULK,
 * Hopper's bulk copy (cp.async.bulk) through shared memory, one issuing thread
 * per block (sm_90 and later only). */
enum pb_sm_variant { PB_SM_GRID, PB_SM_WARP, PB_SM_BULK };

/* SM copy of bytes (a multiple of 16) from src to dst; either pointer may be
 * peer memory. blocks == 0 picks one full wave. The bulk variant sets *failed
 * (device memory) if a stage never completed. */
int pb_launch_copy(void *dst, const void *src, size_t bytes, int blocks, int variant, int *failed,
                   cudaStream_t s);

/* Blocks per grid that keeps every multiprocessor of the current device full. */
int pb_copy_blocks(int *blocks);

/* Holds the stream until the host sets *flag (host-mapped memory) non-zero, or
 * timeout_ns pass; then writes 1 to *timed_out if it gave up. This lets the
 * host queue a whole timed run before any of it starts. */
int pb_launch_hold(const volatile int *flag, unsigned long long timeout_ns, int *timed_out,
                   cudaStream_t s);

/* One thread copies 16 bytes src -> dst (the unit of the latency matrices). */
int pb_launch_copy16(void *dst, const void *src, cudaStream_t s);

/* Ping-pong over two flag words. The initiator stores k to remote and waits
 * for k in local; the responder waits for k in local and stores k to remote,
 * for k = 1..iters. out[0] receives the elapsed nanoseconds (initiator), out[1]
 * 0 on success or 1 on timeout. */
int pb_launch_pingpong(volatile unsigned *remote, const volatile unsigned *local, unsigned iters,
                       int initiator, unsigned long long timeout_ns, unsigned long long *out,
                       cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
