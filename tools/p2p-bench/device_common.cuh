/* Device helpers shared by p2p-bench's kernels and bench/sm-sweep.cu, so the
 * bench and the sweep fill, time, check and bulk-copy buffers the same way. Everything is static:
 * each translation unit gets its own copy. */
#ifndef P2P_BENCH_DEVICE_COMMON_CUH
#define P2P_BENCH_DEVICE_COMMON_CUH

#include <cstddef>
#include <cstdint>

/* A bijective 32-bit mixer (the finaliser of MurmurHash3): neighbouring words
 * and neighbouring seeds give unrelated values. */
static __device__ __forceinline__ uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
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

#endif
