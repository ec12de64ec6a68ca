/* SPDX-License-Identifier: MIT */
/* p2p-bench: what a run measures (struct pb_result) and the options that shape
 * it. measure.c fills a result; output.c renders it as text or JSON. */
#ifndef P2P_BENCH_BENCH_H
#define P2P_BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/error.h"

#define PB_MAX_DEV      16
#define PB_MAX_MATRICES 24
#define PB_NVLINK_MAX   18 /* NVML_NVLINK_MAX_LINKS */
#define PB_BDF_LEN      16 /* "dddd:bb:dd.f" + NUL */

struct pb_options {
	int ndev; /* 0: every visible device */
	int dev[PB_MAX_DEV];
	size_t size;       /* bytes per copy, a multiple of 16 */
	int reps;          /* copies per timed run */
	int trials;        /* timed runs per cell; the median is reported */
	int lat_reps;      /* small copies per latency run */
	unsigned pp_iters; /* round trips per ping-pong */
	int sm_blocks;     /* SM copy grid; 0: one full wave */
	int sm_variant;    /* enum pb_sm_variant (kernels.h) */
	int warmup;        /* untimed rounds before the timed runs of a cell */
	bool grouped;      /* bidirectional: queue each direction's copies as a block */
	bool bandwidth;    /* measure the bandwidth matrices */
	bool latency;      /* measure the latency matrices */
	bool sm_read;      /* also the SM copy that pulls from the peer */
	unsigned ipc;      /* PB_IPC_* bits: also the matrices with one process per GPU */
};

/* Bits of pb_options.ipc: which ways of sharing memory between processes to measure. */
#define PB_IPC_CUDA_IPC 1u /* cudaIpcGetMemHandle / cudaIpcOpenMemHandle */
#define PB_IPC_FD       2u /* cuMem allocations exported to POSIX file descriptors */

struct pb_nvlink {
	bool known;          /* NVML answered for this device */
	unsigned speed_mbps; /* per link and direction (MB/s) of the first active link */
	int active;          /* links up */
	unsigned link_mbps[PB_NVLINK_MAX];      /* per active link, 0 if NVML did not say */
	char remote[PB_NVLINK_MAX][PB_BDF_LEN]; /* remote BDF per link, "" if down/unknown */
	char remote_raw[PB_NVLINK_MAX][32];     /* NVML's remote busId as given */
	bool up[PB_NVLINK_MAX];                 /* link active */
};

/* What a GPU reports about GPUDirect RDMA and memory sharing (-1: the query failed). */
struct pb_gdr_attrs {
	int rdma_supported;       /* cudaDevAttrGPUDirectRDMASupported */
	int rdma_flush_options;   /* cudaDevAttrGPUDirectRDMAFlushWritesOptions (bit mask) */
	int rdma_writes_ordering; /* cudaDevAttrGPUDirectRDMAWritesOrdering */
	int rdma_with_vmm;        /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED */
	int dma_buf;              /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
	int posix_fd_handles; /* CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED */
};

struct pb_device {
	int ordinal; /* CUDA device number */
	char name[256];
	char bdf[PB_BDF_LEN]; /* lower case, as sysfs and bar-inspect spell it */
	int sm_count;
	int cc_major, cc_minor;
	size_t mem_bytes;
	int copy_blocks; /* SM copy grid used */
	struct pb_nvlink nvlink;
	struct pb_gdr_attrs gdr;
};

/* cudaDeviceGetP2PAttribute for src -> dst (-1 where the query failed). */
struct pb_pair {
	int can_access;
	int perf_rank;
	int access_supported;
	int native_atomics;
	int cuda_array_access;
};

/* One n x n matrix, row = source (or initiator) device, column = destination.
 * NAN marks a cell that does not apply (an SM copy without peer access). */
struct pb_matrix {
	const char *key;    /* stable name in JSON, e.g. "ce_uni_p2p_on" */
	const char *title;  /* heading in text output */
	const char *metric; /* "bandwidth" (GB/s, 1e9 bytes) or "latency" (us) */
	const char *engine; /* "ce", "sm_write", "sm_read", "pingpong" */
	bool bidirectional;
	bool p2p;
	const char *sharing; /* NULL: one process; "cuda_ipc" or "posix_fd": one per GPU */
	const char *base;    /* the one-process matrix an IPC matrix is set beside, or NULL */
	double *v;
};

struct pb_result {
	int n;
	struct pb_device dev[PB_MAX_DEV];
	struct pb_pair pair[PB_MAX_DEV][PB_MAX_DEV];
	int nmat;
	struct pb_matrix mat[PB_MAX_MATRICES];
	unsigned long long copies_verified;
	unsigned long long words_bad;
	int hold_timeouts; /* timed runs whose queue hold gave up (timing less exact) */
	int runtime_version, driver_version;
	char date[32]; /* UTC, ISO 8601 */
	char host[64];
	bool nvml;
	char nvml_note[128];
};

static inline double *pb_cell(const struct pb_result *r, const struct pb_matrix *m, int i, int j)
{
	return &m->v[i * r->n + j];
}

/* A --devices list ("0,1": CUDA device numbers, each once, at most PB_MAX_DEV) into dev and
 * *count; 0, or -1 with one line in err. */
int pb_parse_devices(const char *arg, int *dev, int *count, char *err, size_t err_size);

/* Names of enum pb_sm_variant for options and output. */
const char *pb_sm_variant_name(int v);
int pb_sm_variant_parse(const char *s, int *v);

/* Runs the measurement; fills r (caller frees with pb_result_cleanup). Returns 0,
 * P2PS_ENOENT when no CUDA device is usable, or another P2PS_E* code. */
int pb_measure(const struct pb_options *o, struct pb_result *r, struct p2ps_error *err);
void pb_result_cleanup(struct pb_result *r);

/* Appends an n x n matrix of NANs to r; NULL when full or out of memory. */
struct pb_matrix *pb_add_matrix(struct pb_result *r, const char *key, const char *title,
                                const char *metric, const char *engine, bool bidir, bool p2p);

/* The one-process matrix of r with this key, or NULL. */
const struct pb_matrix *pb_find_matrix(const struct pb_result *r, const char *key);

/* Fills the NVLink facts of every device of r through NVML, loaded with dlopen;
 * sets r->nvml and r->nvml_note. Never fails: NVML is optional. */
void pb_nvml_fill(struct pb_result *r);

#endif
