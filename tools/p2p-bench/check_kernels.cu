/* SPDX-License-Identifier: MIT */
/* p2p-bench check's kernels (check_kernels.h): one launch fills or judges every window of a
 * region, the window being blockIdx.y. The rules are the host's (p2pscope/check_cell.h), so
 * that the stand-ins of the tests and the GPU judge memory alike. */
#include "check_kernels.h"

namespace
{

__global__ void k_chk_fill(uint4 *region, pb_chk_spans sp)
{
	const auto &s = sp.s[blockIdx.y];
	uint4 *base = region + s.offset / P2PS_CELL_BYTES;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < s.cells; i += stride) {
		uint32_t w[4];
		p2ps_cell_make(&s.win.expect, s.win.expect_base + (uint32_t)i, w);
		base[i] = make_uint4(w[0], w[1], w[2], w[3]);
	}
}

__device__ unsigned warp_sum(unsigned v)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

/* Counts per place in registers, summed per warp; the rare misplaced cells go straight to
 * the tally with atomics. */
__global__ void k_chk_scan(const uint4 *region, pb_chk_spans sp, p2ps_cell_tally *tally)
{
	const auto &s = sp.s[blockIdx.y];
	p2ps_cell_tally *t = tally + blockIdx.y;
	const uint4 *base = region + s.offset / P2PS_CELL_BYTES;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned n[P2PS_CP_PLACES] = {0};
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < s.cells; i += stride) {
		uint4 c = base[i];
		uint32_t w[4] = {c.x, c.y, c.z, c.w}, who = 0, path = 0;
		long long disp = 0;
		int place = p2ps_cell_place(w, &s.win, (uint32_t)i, &who, &path, &disp);
		n[place]++;
		if (place == P2PS_CP_IS_OK)
			continue;
		atomicMin(&t->first_bad, (unsigned long long)i);
		if (place < P2PS_CP_IS_DISPLACED)
			continue;
		bool canary = place == P2PS_CP_IS_CANARY || (place == P2PS_CP_IS_DISPLACED &&
		                                             s.win.expect.kind == P2PS_CELL_CANARY);
		if (who < P2PS_CHK_MAX_GPUS)
			atomicAdd(&(canary ? t->canary_of : t->payload_of)[who], 1ull);
		if (!canary)
			atomicOr(&t->path_mask, 1ull << (path & 31));
		atomicMin(&t->disp_min, disp);
		atomicMax(&t->disp_max, disp);
	}
	for (int k = 0; k < P2PS_CP_PLACES; k++) {
		unsigned v = warp_sum(n[k]);
		if ((threadIdx.x & 31) == 0 && v)
			atomicAdd(&t->n[k], (unsigned long long)v);
	}
}

dim3 grid_of(const pb_chk_spans *sp)
{
	unsigned long long most = 1;
	for (int k = 0; k < sp->n; k++)
		most = sp->s[k].cells > most ? sp->s[k].cells : most;
	int dev = 0, sms = 32;
	if (cudaGetDevice(&dev) == cudaSuccess)
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	unsigned long long want = (most + 255) / 256, cap = (unsigned long long)sms * 2;
	return dim3((unsigned)(want < cap ? want : cap), (unsigned)sp->n);
}

} // namespace

extern "C" int pb_chk_launch_fill(void *region, const struct pb_chk_spans *sp, cudaStream_t s)
{
	if (sp->n <= 0 || sp->n > PB_CHK_SPANS)
		return (int)cudaErrorInvalidValue;
	k_chk_fill<<<grid_of(sp), 256, 0, s>>>((uint4 *)region, *sp);
	return (int)cudaGetLastError();
}

extern "C" int pb_chk_launch_scan(const void *region, const struct pb_chk_spans *sp,
                                  struct p2ps_cell_tally *tally, cudaStream_t s)
{
	if (sp->n <= 0 || sp->n > PB_CHK_SPANS)
		return (int)cudaErrorInvalidValue;
	k_chk_scan<<<grid_of(sp), 256, 0, s>>>((const uint4 *)region, *sp, tally);
	return (int)cudaGetLastError();
}
