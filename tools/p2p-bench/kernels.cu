/* p2p-bench kernels: pattern fill/verify, the SM copy, the stream hold and the
 * latency probes. Host code that drives them is C (measure.c). */
#include "kernels.h"

#include "device_common.cuh"

namespace
{

__global__ void k_verify(const uint32_t *buf, size_t words, uint32_t seed,
                         unsigned long long *count)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned bad = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
		bad += buf[i] != pattern(i, seed);
	/* One atomic per warp that saw a mismatch keeps the clean case cheap. */
	for (int off = 16; off > 0; off /= 2)
		bad += __shfl_down_sync(0xffffffffu, bad, off);
	if ((threadIdx.x & 31) == 0 && bad)
		atomicAdd(count, (unsigned long long)bad);
}

/* Four independent 16-byte loads per thread are in flight before the first
 * store: a peer read over NVLink or PCIe has microseconds of latency, and only
 * many outstanding requests per SM cover it. */
__global__ void __launch_bounds__(PB_COPY_THREADS)
        k_copy(int4 *__restrict__ dst, const int4 *__restrict__ src, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		int4 a = src[i];
		int4 b = src[i + stride];
		int4 c = src[i + 2 * stride];
		int4 d = src[i + 3 * stride];
		dst[i] = a;
		dst[i + stride] = b;
		dst[i + 2 * stride] = c;
		dst[i + 3 * stride] = d;
	}
	for (; i < n; i += stride)
		dst[i] = src[i];
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

/* Hopper's bulk copy engine (TMA, cp.async.bulk): one thread per block streams
 * chunks global -> shared -> global through PB_BULK_STAGES buffers, so the SM
 * issues few, large requests instead of many 16-byte ones. Loads complete on an
 * mbarrier per stage; a stage is reloaded once the bulk store that read it is
 * done reading (wait_group.read). */
#define PB_BULK_STAGES 4
#define PB_BULK_CHUNK  (8 * 1024)

__global__ void k_copy_bulk(char *dst, const char *src, size_t bytes, int *failed)
{
	__shared__ alignas(128) char buf[PB_BULK_STAGES][PB_BULK_CHUNK];
	__shared__ unsigned long long bar[PB_BULK_STAGES];
	const size_t nchunks = (bytes + PB_BULK_CHUNK - 1) / PB_BULK_CHUNK;
	unsigned phase[PB_BULK_STAGES] = {0};
	size_t mine = 0; /* chunks this block owns: blockIdx.x + k * gridDim.x */

	if (threadIdx.x != 0)
		return;
	for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x)
		mine++;
	for (int s = 0; s < PB_BULK_STAGES; s++)
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s]))
		             : "memory");
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");

	for (size_t t = 0; t < mine && t < PB_BULK_STAGES; t++) {
		size_t off = (blockIdx.x + t * gridDim.x) * PB_BULK_CHUNK;
		unsigned len = (unsigned)min((size_t)PB_BULK_CHUNK, bytes - off);
		bulk_load(buf[t], src + off, len, &bar[t]);
	}
	for (size_t t = 0; t < mine; t++) {
		int s = (int)(t % PB_BULK_STAGES);
		size_t off = (blockIdx.x + t * gridDim.x) * PB_BULK_CHUNK;
		unsigned len = (unsigned)min((size_t)PB_BULK_CHUNK, bytes - off);
		if (!bar_wait(&bar[s], phase[s])) {
			*failed = 1;
			break;
		}
		phase[s] ^= 1;
		asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
		                     dst + off),
		             "r"(smem_addr(buf[s])), "r"(len)
		             : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		/* The store before this one has read its stage: refill that stage. */
		if (t >= 1 && t - 1 + PB_BULK_STAGES < mine) {
			size_t r = t - 1 + PB_BULK_STAGES;
			int rs = (int)((t - 1) % PB_BULK_STAGES);
			size_t roff = (blockIdx.x + r * gridDim.x) * PB_BULK_CHUNK;
			unsigned rlen = (unsigned)min((size_t)PB_BULK_CHUNK, bytes - roff);
			asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
			bulk_load(buf[rs], src + roff, rlen, &bar[rs]);
		}
	}
	asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void k_hold(const volatile int *flag, unsigned long long timeout_ns, int *timed_out)
{
	unsigned long long end = now_ns() + timeout_ns;
	while (!*flag) {
		if (now_ns() > end) {
			*timed_out = 1;
			return;
		}
	}
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
