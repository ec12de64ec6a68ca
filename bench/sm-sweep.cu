/* SPDX-License-Identifier: MIT */
/* sm-sweep: one-way NVLink bandwidth of SM copy kernel designs, GPU 0 -> GPU 1.
 *
 * A research aid beside p2p-bench, not part of the build: it times variants of
 * the SM copy (bytes in flight per thread, cache hints, grid shapes, bulk copy
 * through shared memory, memcpy_async, several streams, and a one-way mix in
 * which GPU 0 pushes part of the buffer while GPU 1 pulls the rest) and the copy
 * engine for reference, each at one or more sizes. Every timed trial is checked:
 * the destination is poisoned first and verified against the source's pattern
 * after. Build and run on a host with two peer-capable GPUs:
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 bench/sm-sweep.cu -o sm-sweep
 *   ./sm-sweep [--quick | --l2-hints] > sweep.md
 *
 * --quick caps the sizes at 1 GiB; --l2-hints times only the loads with a
 * prefetch-size hint (ld.global.L2::128B / L2::256B) beside the plain kernel.
 *
 * Output: a Markdown table (GB/s; fractions of 450 GB/s, the NVLink-4 data
 * rate of 18 links x 25 GB/s, and of 478.1 GB/s, NVML's 18 x 26.5625 GB/s). */
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#include "../tools/p2p-bench/device_common.cuh"

namespace
{

/* p2p-bench's default kernel (grid-stride, four loads in flight per thread). */
__global__ void k_grid4(int4 *__restrict__ dst, const int4 *__restrict__ src, size_t n)
{
	copy_grid4(dst, src, n);
}

enum { LD_PLAIN, LD_NC, LD_VOLATILE, LD_L2_128, LD_L2_256 };
enum { ST_PLAIN, ST_CS };

template <int LD> __device__ __forceinline__ int4 load(const int4 *p)
{
	if (LD == LD_NC)
		return __ldg(p);
	if (LD == LD_VOLATILE) {
		int4 v;
		asm volatile("ld.volatile.global.v4.s32 {%0,%1,%2,%3}, [%4];"
		             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		             : "l"(p));
		return v;
	}
	if (LD == LD_L2_128 || LD == LD_L2_256) {
		/* Prefetch-size hint: the memory system may fetch the whole 128/256-byte
		 * block around the access (PTX ISA, ld .level::prefetch_size). */
		int4 v;
		if (LD == LD_L2_256)
			asm volatile("ld.global.L2::256B.v4.s32 {%0,%1,%2,%3}, [%4];"
			             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
			             : "l"(p));
		else
			asm volatile("ld.global.L2::128B.v4.s32 {%0,%1,%2,%3}, [%4];"
			             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
			             : "l"(p));
		return v;
	}
	return *p;
}

template <int ST> __device__ __forceinline__ void store(int4 *p, int4 v)
{
	if (ST == ST_CS)
		__stcs(p, v);
	else
		*p = v;
}

/* Warp-contiguous pieces of 32 x U int4: U independent 16-byte loads per lane
 * in flight before the first store. No __restrict__ on purpose: with it, ptxas
 * may pair each load with its store to save registers; without it no store may
 * move above a load, so all U loads are issued first. */
template <int U, int LD, int ST> __global__ void k_ilp(int4 *dst, const int4 *src, size_t n)
{
	const unsigned lane = threadIdx.x & 31;
	const size_t piece = 32 * U;
	size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
	size_t full = n / piece * piece;
	for (size_t base = warp * piece; base < full; base += nwarps * piece) {
		int4 r[U];
#pragma unroll
		for (int k = 0; k < U; k++)
			r[k] = load<LD>(src + base + lane + 32 * k);
#pragma unroll
		for (int k = 0; k < U; k++)
			store<ST>(dst + base + lane + 32 * k, r[k]);
	}
	for (size_t i = full + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

/* Bulk copy (bulk_copy_staged), STAGES buffers of CHUNK bytes in dynamic shared memory. */
template <int CHUNK, int STAGES>
__global__ void k_bulk(char *dst, const char *src, size_t bytes, int *failed)
{
	extern __shared__ __align__(128) char smem[];
	__shared__ unsigned long long bar[STAGES];
	bulk_copy_staged<CHUNK, STAGES>(dst, src, bytes, smem, bar, failed);
}

/* cooperative_groups::memcpy_async (cp.async, no TMA) into two shared buffers
 * of CHUNK bytes, then the block stores them with 16-byte stores. */
template <int CHUNK> __global__ void k_memcpy_async(int4 *dst, const int4 *src, size_t n)
{
	extern __shared__ __align__(128) int4 sbuf[];
	cg::thread_block block = cg::this_thread_block();
	const size_t per = CHUNK / 16;
	const size_t nchunks = n / per; /* sizes here are multiples of CHUNK */
	size_t c = blockIdx.x;
	int s = 0;
	if (c < nchunks)
		cg::memcpy_async(block, sbuf, src + c * per, CHUNK);
	for (; c < nchunks; c += gridDim.x, s ^= 1) {
		size_t next = c + gridDim.x;
		if (next < nchunks) {
			cg::memcpy_async(block, sbuf + (s ^ 1) * per, src + next * per, CHUNK);
			cg::wait_prior<1>(block);
		} else {
			cg::wait(block);
		}
		for (size_t i = threadIdx.x; i < per; i += blockDim.x)
			dst[c * per + i] = sbuf[s * per + i];
		block.sync();
	}
}

struct Gpu {
	int dev, sms;
	std::vector<cudaStream_t> s;
	cudaEvent_t start, stop;
	std::vector<cudaEvent_t> join;
};

/* One launch: copies bytes from src to dst on stream st of the current device. */
using Launch = std::function<void(char *dst, const char *src, size_t bytes, cudaStream_t st)>;

/* Part of a configuration: which GPU launches, which share of the buffer it
 * copies, on how many streams (the share split evenly between them). */
struct Part {
	int gpu;
	double from, to;
	int streams;
	Launch fn;
};

struct Row {
	std::string name, dir, grid;
	size_t bytes;
	double gbs;
	unsigned long long bad;
};

struct Bench {
	Gpu g[2];
	char *src = nullptr, *dst = nullptr; /* src on GPU 0, dst on GPU 1 */
	size_t cap = 0;
	volatile int *flag = nullptr;
	int *timed_out = nullptr; /* host-mapped */
	unsigned long long *bad = nullptr;
	int *failed = nullptr; /* GPU 1 */
	int *failed0 = nullptr;
	uint32_t seed = 1;
	std::vector<Row> rows;

	void init(size_t max_bytes)
	{
		cap = max_bytes;
		for (int d = 0; d < 2; d++) {
			Gpu &x = g[d];
			x.dev = d;
			CK(cudaSetDevice(d));
			CK(cudaDeviceGetAttribute(&x.sms, cudaDevAttrMultiProcessorCount, d));
			int can = 0;
			CK(cudaDeviceCanAccessPeer(&can, d, 1 - d));
			if (!can) {
				fprintf(stderr, "no peer access %d -> %d\n", d, 1 - d);
				exit(2);
			}
			CK(cudaDeviceEnablePeerAccess(1 - d, 0));
			x.s.resize(4);
			x.join.resize(4);
			for (int k = 0; k < 4; k++) {
				CK(cudaStreamCreateWithFlags(&x.s[k], cudaStreamNonBlocking));
				CK(cudaEventCreateWithFlags(&x.join[k], cudaEventDisableTiming));
			}
			CK(cudaEventCreate(&x.start));
			CK(cudaEventCreate(&x.stop));
		}
		CK(cudaSetDevice(0));
		CK(cudaMalloc(&src, cap));
		CK(cudaMalloc(&failed0, sizeof(int)));
		CK(cudaSetDevice(1));
		CK(cudaMalloc(&dst, cap));
		CK(cudaMalloc(&bad, sizeof(*bad)));
		CK(cudaMalloc(&failed, sizeof(int)));
		CK(cudaHostAlloc((void **)&flag, 2 * sizeof(int),
		                 cudaHostAllocMapped | cudaHostAllocPortable));
		timed_out = (int *)flag + 1;
	}

	/* Queues reps rounds of every part behind a hold on each GPU, releases them
	 * and returns the longest GPU's time in ms (the GPUs start within
	 * microseconds of each other: the same host store releases both). */
	double timed(const std::vector<Part> &parts, size_t bytes, int reps)
	{
		bool used[2] = {false, false};
		for (auto &p : parts)
			used[p.gpu] = true;
		*flag = 0;
		*timed_out = 0;
		for (int d = 0; d < 2; d++) {
			if (!used[d])
				continue;
			Gpu &x = g[d];
			CK(cudaSetDevice(d));
			k_hold<<<1, 1, 0, x.s[0]>>>(flag, 2000000000ull, timed_out);
			CK(cudaEventRecord(x.start, x.s[0]));
			for (int k = 1; k < 4; k++)
				CK(cudaStreamWaitEvent(x.s[k], x.start, 0));
		}
		for (int r = 0; r < reps; r++)
			for (auto &p : parts) {
				CK(cudaSetDevice(p.gpu));
				size_t lo = (size_t)(p.from * (double)(bytes / 4096)) * 4096;
				size_t hi = (size_t)(p.to * (double)(bytes / 4096)) * 4096;
				size_t per = (hi - lo) / p.streams / 4096 * 4096;
				for (int k = 0; k < p.streams; k++) {
					size_t a = lo + k * per,
					       b = k + 1 == p.streams ? hi : a + per;
					p.fn(dst + a, src + a, b - a, g[p.gpu].s[k]);
				}
			}
		CK(cudaGetLastError());
		for (int d = 0; d < 2; d++) {
			if (!used[d])
				continue;
			Gpu &x = g[d];
			CK(cudaSetDevice(d));
			for (int k = 1; k < 4; k++) {
				CK(cudaEventRecord(x.join[k], x.s[k]));
				CK(cudaStreamWaitEvent(x.s[0], x.join[k], 0));
			}
			CK(cudaEventRecord(x.stop, x.s[0]));
		}
		*flag = 1;
		double ms = 0;
		for (int d = 0; d < 2; d++) {
			if (!used[d])
				continue;
			CK(cudaSetDevice(d));
			CK(cudaEventSynchronize(g[d].stop));
			float t = 0;
			CK(cudaEventElapsedTime(&t, g[d].start, g[d].stop));
			ms = std::max(ms, (double)t);
		}
		if (*timed_out)
			return -1;
		return ms;
	}

	void run(const std::string &name, const std::string &dir, const std::string &grid,
	         const std::vector<Part> &parts, size_t bytes, int reps = 5, int trials = 3)
	{
		std::vector<double> gbs;
		unsigned long long bad_total = 0;
		bool error = false;
		uint32_t s = ++seed;
		CK(cudaSetDevice(0));
		k_fill<<<g[0].sms * 8, 256>>>((uint32_t *)src, bytes / 4, s);
		CK(cudaDeviceSynchronize());
		for (int t = 0; t <= trials; t++) { /* trial 0 warms up, untimed */
			CK(cudaSetDevice(1));
			CK(cudaMemset(dst, 0xa5, bytes));
			CK(cudaMemset(failed, 0, sizeof(int)));
			CK(cudaSetDevice(0));
			CK(cudaMemset(failed0, 0, sizeof(int)));
			for (int d = 0; d < 2; d++) {
				CK(cudaSetDevice(d));
				CK(cudaDeviceSynchronize());
			}
			double ms = timed(parts, bytes, reps);
			cudaError_t e = cudaSuccess;
			for (int d = 0; d < 2 && e == cudaSuccess; d++) {
				CK(cudaSetDevice(d));
				e = cudaDeviceSynchronize();
			}
			if (e != cudaSuccess || ms <= 0) {
				fprintf(stderr, "%s %s %s: %s\n", name.c_str(), dir.c_str(),
				        grid.c_str(),
				        e != cudaSuccess ? cudaGetErrorString(e)
				                         : "hold timed out");
				if (e != cudaSuccess)
					exit(1); /* a sticky error leaves nothing to measure */
				error = true;
				break;
			}
			int f0 = 0, f1 = 0;
			CK(cudaSetDevice(1));
			CK(cudaMemset(bad, 0, sizeof(*bad)));
			k_verify<<<g[1].sms * 8, 256>>>((const uint32_t *)dst, bytes / 4, s, bad);
			unsigned long long b = 0;
			CK(cudaMemcpy(&b, bad, sizeof(b), cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(&f1, failed, sizeof(int), cudaMemcpyDeviceToHost));
			CK(cudaSetDevice(0));
			CK(cudaMemcpy(&f0, failed0, sizeof(int), cudaMemcpyDeviceToHost));
			bad_total += b + (f0 || f1 ? 1 : 0);
			if (t > 0)
				gbs.push_back((double)bytes * reps / (ms * 1e6));
		}
		double med = 0;
		if (!error && !gbs.empty()) {
			std::sort(gbs.begin(), gbs.end());
			med = gbs[gbs.size() / 2];
		}
		rows.push_back({name, dir, grid, bytes, med, bad_total});
		printf("| %s | %s | %s | %s | %.1f | %.1f%% | %.1f%% | %llu |\n", name.c_str(),
		       dir.c_str(), grid.c_str(), size_name(bytes).c_str(), med, med / 4.5,
		       med / 4.781, bad_total);
		fflush(stdout);
	}

	static std::string size_name(size_t b)
	{
		char buf[32];
		if (b >= (1ull << 30))
			snprintf(buf, sizeof buf, "%zu GiB", b >> 30);
		else
			snprintf(buf, sizeof buf, "%zu MiB", b >> 20);
		return buf;
	}
};

template <typename K> int occupancy(K kernel, int threads, size_t smem)
{
	int per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
	return per_sm;
}

/* A launch of an int4 kernel with a fixed grid. */
template <typename K> Launch vec(K kernel, int blocks, int threads, size_t smem = 0)
{
	return [=](char *d, const char *s, size_t bytes, cudaStream_t st) {
		kernel<<<blocks, threads, smem, st>>>((int4 *)d, (const int4 *)s, bytes / 16);
	};
}

/* The design sweep's shared context: the bench, GPU 0's SM count and the sizes. */
struct Sweep {
	Bench &b;
	int sms;
	size_t S;   /* the size of the design sweep */
	size_t big; /* the largest size */
};

const size_t MiB = 1ull << 20, GiB = 1ull << 30;

/* One part on GPU 0 (rd 0, write: it stores into GPU 1) or on GPU 1 (rd 1, read: it loads
 * GPU 0). */
std::vector<Part> one_way(int rd, Launch f)
{
	return {{rd, 0.0, 1.0, 1, f}};
}

const char *dir_name(int rd)
{
	return rd ? "read" : "write";
}

std::string grid(int blocks, int threads)
{
	return std::to_string(blocks) + "x" + std::to_string(threads);
}

/* Named kernel variants, each timed writing then, after all of them, reading. */
struct Variant {
	const char *name;
	Launch f;
};

void run_variants(Sweep &w, const std::string &gs, const std::vector<Variant> &vs)
{
	for (int rd = 0; rd < 2; rd++)
		for (const Variant &v : vs)
			w.b.run(v.name, dir_name(rd), gs, one_way(rd, v.f), w.S);
}

/* --l2-hints: the prefetch-size hints only, beside the plain kernel, at 2 x 512 per SM. */
void sweep_l2_hints(Sweep &w)
{
	int bl = w.sms * 2;
	std::string gs = grid(bl, 512);
	run_variants(w, gs,
	             {{"ilp8", vec(k_ilp<8, LD_PLAIN, ST_PLAIN>, bl, 512)},
	              {"ilp8 ld.L2::128B", vec(k_ilp<8, LD_L2_128, ST_PLAIN>, bl, 512)},
	              {"ilp8 ld.L2::256B", vec(k_ilp<8, LD_L2_256, ST_PLAIN>, bl, 512)},
	              {"ilp16 ld.L2::256B", vec(k_ilp<16, LD_L2_256, ST_PLAIN>, bl, 512)}});
	Launch f = vec(k_ilp<8, LD_L2_256, ST_PLAIN>, bl, 512);
	w.b.run("ilp8 ld.L2::256B push+pull, 50% pushed", "0->1 mix", "2 x " + gs,
	        {{0, 0.0, 0.5, 1, f}, {1, 0.5, 1.0, 1, f}}, w.S);
}

/* The copy engine, and p2p-bench's current default: one full wave of k_grid4 at 512
 * threads. */
void sweep_references(Sweep &w)
{
	Launch ce = [](char *d, const char *s, size_t bytes, cudaStream_t st) {
		CK(cudaMemcpyPeerAsync(d, 1, s, 0, bytes, st));
	};
	for (size_t sz : {256 * MiB, GiB, w.big})
		w.b.run("copy engine", "write", "-", one_way(0, ce), sz);
	int g4 = w.sms * occupancy(k_grid4, 512, 0);
	for (size_t sz : {256 * MiB, GiB, w.big})
		for (int rd = 0; rd < 2; rd++)
			w.b.run("grid4 (current)", dir_name(rd), grid(g4, 512),
			        one_way(rd, vec(k_grid4, g4, 512)), sz);
}

/* Bytes in flight per thread and grid shape. */
void sweep_grid_shapes(Sweep &w)
{
	for (int threads : {512, 1024})
		for (int per_sm : {1, 2, 4}) {
			int bl = w.sms * per_sm;
			if (per_sm * threads > 2048)
				continue;
			std::vector<Variant> vs{
			        {"ilp4", vec(k_ilp<4, LD_PLAIN, ST_PLAIN>, bl, threads)},
			        {"ilp8", vec(k_ilp<8, LD_PLAIN, ST_PLAIN>, bl, threads)}};
			if (threads == 512)
				vs.push_back(
				        {"ilp16", vec(k_ilp<16, LD_PLAIN, ST_PLAIN>, bl, threads)});
			for (const Variant &v : vs)
				for (int rd = 0; rd < 2; rd++)
					w.b.run(v.name, dir_name(rd), grid(bl, threads),
					        one_way(rd, v.f), w.S);
		}
}

/* Cache hints, ilp8 at 2 x 512 per SM. */
void sweep_cache_hints(Sweep &w)
{
	int bl = w.sms * 2;
	run_variants(w, grid(bl, 512),
	             {{"ilp8 ld.global.nc", vec(k_ilp<8, LD_NC, ST_PLAIN>, bl, 512)},
	              {"ilp8 ld.volatile", vec(k_ilp<8, LD_VOLATILE, ST_PLAIN>, bl, 512)},
	              {"ilp8 st.global.cs", vec(k_ilp<8, LD_PLAIN, ST_CS>, bl, 512)},
	              {"ilp8 nc + cs", vec(k_ilp<8, LD_NC, ST_CS>, bl, 512)}});
}

/* Several streams, each a quarter/half of the buffer, ilp8 at 1 x 512 per SM each. */
void sweep_streams(Sweep &w)
{
	for (int ns : {2, 4})
		for (int rd = 0; rd < 2; rd++) {
			std::vector<Part> parts{
			        {rd, 0.0, 1.0, ns, vec(k_ilp<8, LD_PLAIN, ST_PLAIN>, w.sms, 512)}};
			w.b.run("ilp8, " + std::to_string(ns) + " streams", dir_name(rd),
			        std::to_string(ns) + " x " + grid(w.sms, 512), parts, w.S);
		}
}

/* Lets kernel use smem bytes of dynamic shared memory on both GPUs. */
template <typename K> void allow_smem(K kernel, size_t smem)
{
	for (int d = 0; d < 2; d++) {
		CK(cudaSetDevice(d));
		CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                        (int)smem));
	}
}

/* Bulk copy through shared memory: one chunk size and stage count, 1 to 4 blocks of 32
 * threads per SM where they fit. */
template <typename K> void sweep_bulk(Sweep &w, K kernel, size_t smem, const char *name)
{
	allow_smem(kernel, smem);
	int fit = occupancy(kernel, 32, smem);
	for (int per_sm : {1, 2, 4}) {
		if (per_sm > fit)
			continue;
		int bl = w.sms * per_sm;
		for (int rd = 0; rd < 2; rd++) {
			int *fl = rd ? w.b.failed : w.b.failed0;
			Launch f = [=](char *d, const char *s, size_t bytes, cudaStream_t st) {
				kernel<<<bl, 32, smem, st>>>(d, s, bytes, fl);
			};
			w.b.run(name, dir_name(rd), grid(bl, 32), one_way(rd, f), w.S);
		}
	}
}

/* memcpy_async (cp.async) through two shared buffers. */
void sweep_memcpy_async(Sweep &w)
{
	const size_t smem = 2 * 32768;
	allow_smem(k_memcpy_async<32768>, smem);
	for (int per_sm : {1, 2, 3})
		for (int rd = 0; rd < 2; rd++) {
			int bl = w.sms * per_sm;
			Launch f = vec(k_memcpy_async<32768>, bl, 512, smem);
			w.b.run("memcpy_async 32 KiB x 2", dir_name(rd), grid(bl, 512),
			        one_way(rd, f), w.S);
		}
}

/* One-way mix: GPU 0 pushes a share, GPU 1 pulls the rest, both into GPU 1. */
void sweep_push_pull(Sweep &w)
{
	for (size_t sz : {GiB, w.big})
		for (double share : {0.25, 0.5, 0.75}) {
			int bl = w.sms * 2;
			Launch f = vec(k_ilp<8, LD_PLAIN, ST_PLAIN>, bl, 512);
			std::vector<Part> parts{{0, 0.0, share, 1, f}, {1, share, 1.0, 1, f}};
			char nm[64];
			snprintf(nm, sizeof nm, "ilp8 push+pull, %.0f%% pushed", share * 100);
			w.b.run(nm, "0->1 mix", "2 x " + grid(bl, 512), parts, sz);
		}
}

/* The best simple designs at larger sizes. */
void sweep_large(Sweep &w)
{
	for (size_t sz : {256 * MiB, w.big}) {
		int bl = w.sms * 2;
		for (int rd = 0; rd < 2; rd++)
			w.b.run("ilp8", dir_name(rd), grid(bl, 512),
			        one_way(rd, vec(k_ilp<8, LD_PLAIN, ST_PLAIN>, bl, 512)), sz);
	}
}

} // namespace

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	bool hints = argc > 1 && !strcmp(argv[1], "--l2-hints");
	Bench b;
	Sweep w{b, 0, GiB, quick || hints ? GiB : 4 * GiB};
	b.init(w.big);
	w.sms = b.g[0].sms;

	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("# SM copy sweep: %s x2, %d SMs, one way GPU 0 -> GPU 1\n\n", p.name, w.sms);
	printf("Median of 3 trials of 5 copies after one untimed trial; every trial verified.\n");
	printf("write = kernel on GPU 0 stores into GPU 1; read = kernel on GPU 1 loads GPU 0;\n");
	printf("push+pull = GPU 0 writes the first share while GPU 1 reads the rest.\n\n");
	printf("| variant | direction | grid | size | GB/s | of 450 | of 478.1 | bad |\n");
	printf("|---|---|---|---|---|---|---|---|\n");

	if (hints) {
		sweep_l2_hints(w);
		return 0;
	}
	sweep_references(w);
	sweep_grid_shapes(w);
	sweep_cache_hints(w);
	sweep_streams(w);
	sweep_bulk(w, k_bulk<16384, 4>, 4 * 16384, "bulk 16 KiB x 4");
	sweep_bulk(w, k_bulk<32768, 4>, 4 * 32768, "bulk 32 KiB x 4");
	sweep_bulk(w, k_bulk<65536, 3>, 3 * 65536, "bulk 64 KiB x 3");
	sweep_memcpy_async(w);
	sweep_push_pull(w);
	sweep_large(w);

	unsigned long long bad = 0;
	for (auto &r : b.rows)
		bad += r.bad;
	printf("\n%zu configurations, %llu bad (mismatched words or failed bulk stages)\n",
	       b.rows.size(), bad);
	return bad ? 1 : 0;
}
