/* SPDX-License-Identifier: MIT */
/* p2p-bench kernels: pattern fill/verify, the SM copy, the stream hold and the
 * latency probes. Host code that drives them is C (measure.c). */
#include "kernels.h"

#include "device_common.cuh"

namespace
{

/* The default SM copy (copy_grid4). */
__global__ void __launch_bounds__(PB_COPY_THREADS)
        k_copy(int4 *__restrict__ dst, const int4 *__restrict__ src, size_t n)
{
	copy_grid4(dst, src, n);
}

/* Each warp moves contiguous 4 KiB pieces: eight 16-byte loads per lane in
 * flight, then eight stores, so every warp-wide store fills whole 128-byte lines. */
__global__ void __launch_bounds__(PB_COPY_THREADS)
        k_copy_warp(int4 *__restrict__ dst, const int4 *__restrict__ src, size_t n)
{
	const unsigned lane = threadIdx.x & 31;
	const size_t piece = 32 * 8;
	size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
	size_t full = n / piece * piece;
	for (size_t base = warp * piece; base < full; base += nwarps * piece) {
		int4 r[8];
#pragma unroll
		for (int k = 0; k < 8; k++)
			r[k] = src[base + lane + 32 * k];
#pragma unroll
		for (int k = 0; k < 8; k++)
			dst[base + lane + 32 * k] = r[k];
	}
	for (size_t i = full + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

/* The bulk copy engine (bulk_copy_staged): four stages of 8 KiB. */
#define PB_BULK_STAGES 4
#define PB_BULK_CHUNK  (8 * 1024)

__global__ void k_copy_bulk(char *dst, const char *src, size_t bytes, int *failed)
{
	__shared__ alignas(128) char buf[PB_BULK_STAGES][PB_BULK_CHUNK];
	__shared__ unsigned long long bar[PB_BULK_STAGES];
	bulk_copy_staged<PB_BULK_CHUNK, PB_BULK_STAGES>(dst, src, bytes, &buf[0][0], bar, failed);
}

__global__ void k_copy16(int4 *dst, const int4 *src)
{
	*dst = *src;
}

__global__ void k_pingpong(volatile unsigned *remote, const volatile unsigned *local,
                           unsigned iters, int initiator, unsigned long long timeout_ns,
                           unsigned long long *out)
{
	unsigned long long t0 = now_ns();
	unsigned long long end = t0 + timeout_ns;
	for (unsigned k = 1; k <= iters; k++) {
		if (initiator)
			*remote = k;
		while (*local != k) {
			if (now_ns() > end) {
				out[1] = 1;
				return;
			}
		}
		if (!initiator)
			*remote = k;
	}
	out[0] = now_ns() - t0;
	out[1] = 0;
}

/* Enough blocks for a grid-stride loop over n items, capped at one full wave. */
unsigned grid_for(size_t n, unsigned threads)
{
	size_t want = (n + threads - 1) / threads;
	int dev = 0, sms = 1;
	if (cudaGetDevice(&dev) == cudaSuccess)
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	size_t cap = (size_t)sms * 8;
	if (want > cap)
		want = cap;
	return want ? (unsigned)want : 1;
}

} // namespace

extern "C" int pb_launch_fill(void *buf, size_t bytes, uint32_t seed, cudaStream_t s)
{
	size_t words = bytes / 4;
	k_fill<<<grid_for(words, 256), 256, 0, s>>>((uint32_t *)buf, words, seed);
	return (int)cudaGetLastError();
}

extern "C" int pb_launch_verify(const void *buf, size_t bytes, uint32_t seed,
                                unsigned long long *count, cudaStream_t s)
{
	size_t words = bytes / 4;
	k_verify<<<grid_for(words, 256), 256, 0, s>>>((const uint32_t *)buf, words, seed, count);
	return (int)cudaGetLastError();
}

extern "C" int pb_copy_blocks(int *blocks)
{
	int dev = 0, sms = 0, per_sm = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_copy, PB_COPY_THREADS,
		                                                  0);
	if (e == cudaSuccess)
		*blocks = sms * (per_sm > 0 ? per_sm : 1);
	return (int)e;
}

extern "C" int pb_launch_copy(void *dst, const void *src, size_t bytes, int blocks, int variant,
                              int *failed, cudaStream_t s)
{
	if (blocks <= 0) {
		int e = pb_copy_blocks(&blocks);
		if (e)
			return e;
	}
	switch (variant) {
	case PB_SM_WARP:
		k_copy_warp<<<blocks, PB_COPY_THREADS, 0, s>>>((int4 *)dst, (const int4 *)src,
		                                               bytes / 16);
		break;
	case PB_SM_BULK:
		k_copy_bulk<<<blocks, 32, 0, s>>>((char *)dst, (const char *)src, bytes, failed);
		break;
	default:
		k_copy<<<blocks, PB_COPY_THREADS, 0, s>>>((int4 *)dst, (const int4 *)src,
		                                          bytes / 16);
		break;
	}
	return (int)cudaGetLastError();
}

extern "C" int pb_launch_hold(const volatile int *flag, unsigned long long timeout_ns,
                              int *timed_out, cudaStream_t s)
{
	k_hold<<<1, 1, 0, s>>>(flag, timeout_ns, timed_out);
	return (int)cudaGetLastError();
}

extern "C" int pb_launch_copy16(void *dst, const void *src, cudaStream_t s)
{
	k_copy16<<<1, 1, 0, s>>>((int4 *)dst, (const int4 *)src);
	return (int)cudaGetLastError();
}

extern "C" int pb_launch_pingpong(volatile unsigned *remote, const volatile unsigned *local,
                                  unsigned iters, int initiator, unsigned long long timeout_ns,
                                  unsigned long long *out, cudaStream_t s)
{
	k_pingpong<<<1, 1, 0, s>>>(remote, local, iters, initiator, timeout_ns, out);
	return (int)cudaGetLastError();
}
