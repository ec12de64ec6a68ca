/* SPDX-License-Identifier: MIT */
/* Device helpers shared by p2p-bench's kernels and bench/sm-sweep.cu, so the
 * bench and the sweep fill, time, check, hold and copy buffers the same way. Everything is static:
 * each translation unit gets its own copy. */
#ifndef P2P_BENCH_DEVICE_COMMON_CUH
#define P2P_BENCH_DEVICE_COMMON_CUH

#include <cstddef>
#include <cstdint>

#include "../../include/p2pscope/check_cell.h"

/* The mixer of the check's cells (MurmurHash3's finaliser, p2pscope/check_cell.h; the path is
 * relative so that bench/sm-sweep.cu builds without the project's include path): neighbouring
 * words and neighbouring seeds give unrelated values. */
static __device__ __forceinline__ uint32_t mix32(uint32_t x)
{
	return p2ps_cell_mix(x);
}

static __device__ __forceinline__ uint32_t pattern(size_t word, uint32_t seed)
{
	return mix32((uint32_t)word ^ mix32(seed ^ (uint32_t)(word >> 32) * 0x9e3779b9u));
}

static __device__ __forceinline__ unsigned long long now_ns()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __global__ void k_fill(uint32_t *buf, size_t words, uint32_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
		buf[i] = pattern(i, seed);
}

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void bulk_load(void *sm, const void *g, unsigned bytes,
                                                 unsigned long long *bar)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
	             "r"(bytes)
	             : "memory");
	asm volatile(
	        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
	        "%2, [%3];" ::"r"(smem_addr(sm)),
	        "l"(g), "r"(bytes), "r"(smem_addr(bar))
	        : "memory");
}

/* Waits for phase `parity` of bar; false after a second without completion. */
static __device__ __forceinline__ bool bar_wait(unsigned long long *bar, unsigned parity)
{
	unsigned long long end = now_ns() + 1000000000ull;
	unsigned done = 0;
	while (!done) {
		asm volatile(
		        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
		        "selp.u32 %0, 1, 0, p; }"
		        : "=r"(done)
		        : "r"(smem_addr(bar)), "r"(parity)
		        : "memory");
		if (!done && now_ns() > end)
			return false;
	}
	return true;
}

/* Counts the words of buf that differ from pattern(word, seed) into *count. One atomic
 * per warp that saw a mismatch keeps the clean case cheap. */
static __global__ void k_verify(const uint32_t *buf, size_t words, uint32_t seed,
                                unsigned long long *count)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned bad = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
		bad += buf[i] != pattern(i, seed);
	for (int off = 16; off > 0; off /= 2)
		bad += __shfl_down_sync(0xffffffffu, bad, off);
	if ((threadIdx.x & 31) == 0 && bad)
		atomicAdd(count, (unsigned long long)bad);
}

/* Spins until the host sets *flag, so that work queued behind it starts at once; gives
 * up (and says so in *timed_out) after timeout_ns. */
static __global__ void k_hold(const volatile int *flag, unsigned long long timeout_ns,
                              int *timed_out)
{
	unsigned long long end = now_ns() + timeout_ns;
	while (!*flag) {
		if (now_ns() > end) {
			*timed_out = 1;
			return;
		}
	}
}

/* p2p-bench's default SM copy, grid-stride: four independent 16-byte loads per thread
 * are in flight before the first store: a peer read over NVLink or PCIe has
 * microseconds of latency, and only many outstanding requests per SM cover it. */
static __device__ __forceinline__ void copy_grid4(int4 *__restrict__ dst,
                                                  const int4 *__restrict__ src, size_t n)
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

/* Hopper's bulk copy engine (TMA, cp.async.bulk): thread 0 of each block streams the
 * block's CHUNK-byte chunks (blockIdx.x + k * gridDim.x) global -> shared -> global
 * through STAGES buffers at smem (STAGES * CHUNK bytes, 128-byte aligned), so the SM
 * issues few, large requests instead of many 16-byte ones. Loads complete on bar[stage]
 * (STAGES mbarriers in shared memory); a stage is reloaded once the bulk store that read
 * it is done reading (wait_group.read). Sets *failed when a load does not complete. */
template <int CHUNK, int STAGES>
static __device__ void bulk_copy_staged(char *dst, const char *src, size_t bytes, char *smem,
                                        unsigned long long *bar, int *failed)
{
	const size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
	unsigned phase[STAGES] = {0};
	size_t mine = 0; /* chunks this block owns */

	if (threadIdx.x != 0)
		return;
	for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x)
		mine++;
	for (int s = 0; s < STAGES; s++)
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s]))
		             : "memory");
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");

	for (size_t t = 0; t < mine && t < STAGES; t++) {
		size_t off = (blockIdx.x + t * gridDim.x) * (size_t)CHUNK;
		unsigned len = (unsigned)min((size_t)CHUNK, bytes - off);
		bulk_load(smem + t * CHUNK, src + off, len, &bar[t]);
	}
	for (size_t t = 0; t < mine; t++) {
		int s = (int)(t % STAGES);
		size_t off = (blockIdx.x + t * gridDim.x) * (size_t)CHUNK;
		unsigned len = (unsigned)min((size_t)CHUNK, bytes - off);
		if (!bar_wait(&bar[s], phase[s])) {
			*failed = 1;
			break;
		}
		phase[s] ^= 1;
		asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
		                     dst + off),
		             "r"(smem_addr(smem + s * CHUNK)), "r"(len)
		             : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		/* The store before this one has read its stage: refill that stage. */
		if (t >= 1 && t - 1 + STAGES < mine) {
			size_t r = t - 1 + STAGES;
			int rs = (int)((t - 1) % STAGES);
			size_t roff = (blockIdx.x + r * gridDim.x) * (size_t)CHUNK;
			unsigned rlen = (unsigned)min((size_t)CHUNK, bytes - roff);
			asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
			bulk_load(smem + rs * CHUNK, src + roff, rlen, &bar[rs]);
		}
	}
	asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

#endif
