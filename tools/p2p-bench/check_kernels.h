/* SPDX-License-Identifier: MIT */
/* p2p-bench check: the kernels that fill memory with the check's cells and judge what is
 * found (check_kernels.cu), over the same cell rules as the host code
 * (p2pscope/check_cell.h). Each returns the cudaError_t of the launch (as int). */
#ifndef P2P_BENCH_CHECK_KERNELS_H
#define P2P_BENCH_CHECK_KERNELS_H

#include <cuda_runtime_api.h>

#include "p2pscope/check_cell.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_CHK_SPANS 13 /* P2PS_CHK_MAX_WINDOWS + 1 */

/* The windows of one region a launch covers (passed by value: it is small). */
struct pb_chk_spans {
	int n;
	struct {
		unsigned long long offset, cells;
		struct p2ps_cell_win win;
	} s[PB_CHK_SPANS];
};

/* Writes the cells each span must hold (its win's key and indices) into region. */
int pb_chk_launch_fill(void *region, const struct pb_chk_spans *sp, cudaStream_t s);

/* Judges every span of region into tally[k] (device memory, initialised by the caller with
 * p2ps_cell_tally_init and the span's cell count). */
int pb_chk_launch_scan(const void *region, const struct pb_chk_spans *sp,
                       struct p2ps_cell_tally *tally, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
