/* SPDX-License-Identifier: MIT */
/* p2pscope: the functional P2P check (p2p-bench check): does P2P work on this host, on
 * every GPU pair and path, right now — set beside what bar-inspect predicts.
 *
 * Three parts, each testable without a GPU:
 *  - the run (p2ps_chk_run): a plan of steps per ordered GPU pair and path, carried out
 *    through a table of operations (struct p2ps_chk_ops: the CUDA and NCCL side, or a test's
 *    stand-in), each on a thread of its own GPU ("lane") under a deadline. A call that does
 *    not return in time is a verdict (hung), not a stuck tool: its lane is given up and every
 *    later step that needs it is marked not run. Memory is written and read as self-naming
 *    16-byte cells (check_cell.h) with canaries around every buffer, and what is found is
 *    named as itself: zeros, all-ones, nothing arrived, a shifted copy, an alias a power of two
 *    away, a write that landed on another GPU.
 *  - NCCL's log (p2ps_chk_nccl_parse): the transport NCCL chose per pair.
 *  - the report (p2ps_chk_report_make): per ordered pair, the prediction (bar-inspect's
 *    analysis, the driver model, the driver's own reported caps, NCCL's rule) beside the
 *    observation, one verdict, and for every mismatch its likely causes and fixes.
 *
 * Nothing here prints or exits; renderers fill a p2ps_strbuf.
 */
#ifndef P2PSCOPE_CHECK_H
#define P2PSCOPE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/analysis.h"
#include "p2pscope/check_cell.h"
#include "p2pscope/driver_model.h"
#include "p2pscope/error.h"
#include "p2pscope/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paths checked per ordered pair "a -> b": GPU a accesses GPU b's memory. */
enum p2ps_chk_path {
	P2PS_CHK_PEER =
	        0,   /* cudaDeviceCanAccessPeer(a, b), then a's cudaDeviceEnablePeerAccess(b) */
	P2PS_CHK_CE, /* cudaMemcpyPeerAsync from a's memory into b's, on a's stream */
	P2PS_CHK_SM_STORE, /* a kernel on a stores into b's memory; b reads it back itself */
	P2PS_CHK_SM_LOAD,  /* a kernel on a loads b's memory (b wrote it itself) */
	P2PS_CHK_IPC_CE, /* another process: b's memory through a cudaIpc handle, a's copy engine */
	P2PS_CHK_IPC_SM, /* the same, stored by a kernel on a */
	P2PS_CHK_FD_CE,  /* another process: a cuMem allocation of b through a POSIX-FD handle */
	P2PS_CHK_FD_SM,
	P2PS_CHK_UVM, /* managed memory that prefers b, stored into by a kernel on a */
	P2PS_CHK_PATHS
};
const char *p2ps_chk_path_name(int p);     /* "peer_access", "ce", "sm_store", ...; "?" */
const char *p2ps_chk_path_title(int p);    /* "CUDA peer access", "copy engine", ... */
int p2ps_chk_path_parse(const char *name); /* -1 if none */

#define P2PS_CHK_PATH_BIT(p) (1u << (p))
/* The paths a check runs unless told otherwise (UVM is opt-in: it can fault on some
 * drivers). */
#define P2PS_CHK_PATHS_DEFAULT (((1u << P2PS_CHK_PATHS) - 1) & ~P2PS_CHK_PATH_BIT(P2PS_CHK_UVM))

/* The phases of a run, for where its time went: finding the GPUs, opening them, peer access,
 * sharing memory with the other processes (per region), each data path, and waiting for
 * NCCL after the last path. */
enum p2ps_chk_phase {
	P2PS_CHK_PH_FIND = 0,
	P2PS_CHK_PH_OPEN,
	P2PS_CHK_PH_SHARE_MAIN,
	P2PS_CHK_PH_SHARE_FD,
	P2PS_CHK_PH_PATH0, /* + enum p2ps_chk_path (peer access included) */
	P2PS_CHK_PH_NCCL_WAIT = P2PS_CHK_PH_PATH0 + P2PS_CHK_PATHS,
	P2PS_CHK_PHASES
};
const char *p2ps_chk_phase_name(int ph); /* "find", "open", "share_main", ..., "ce", ... */

/* What the caller allows besides P2P working everywhere. */
struct p2ps_chk_policy {
	bool allow_single; /* one GPU (no pair) counts as working, not unknown */
	bool allow_no_p2p; /* pairs without P2P, as the driver reports, count as working */
};

/* What one step found. */
enum p2ps_chk_form {
	P2PS_CF_OK = 0,
	P2PS_CF_DENIED,      /* CUDA refused peer access (or the mapping of a peer's memory) */
	P2PS_CF_ZEROS,       /* zeros where the data belong */
	P2PS_CF_ONES,        /* all-one bits: a read nobody answered */
	P2PS_CF_LOST,        /* nothing arrived: the destination still holds its canary */
	P2PS_CF_SHIFTED,     /* the data moved by a distance that is not a power of two */
	P2PS_CF_ALIASED,     /* the data moved by a power of two (256 MiB, 512 MiB, ...) */
	P2PS_CF_WRONG_GPU,   /* the data landed on (or a load read) another GPU */
	P2PS_CF_CORRUPT,     /* garbage, or data of another run */
	P2PS_CF_CANARY,      /* the data arrived, but memory beside them changed */
	P2PS_CF_HUNG,        /* the call did not return before its deadline */
	P2PS_CF_ERROR,       /* a call failed (the detail has CUDA's or NCCL's message) */
	P2PS_CF_UNSUPPORTED, /* the GPU, driver or library cannot do this path here */
	P2PS_CF_NOT_RUN,     /* not run: a step it needs failed or hung (the detail says) */
	P2PS_CF_SKIPPED,     /* not asked for */
	P2PS_CF_COUNT
};
const char *p2ps_chk_form_name(int f);     /* "ok", "denied", "zeros", ... */
const char *p2ps_chk_form_title(int f);    /* one line */
int p2ps_chk_form_parse(const char *name); /* -1 if none */
/* Whether a form says the path is broken (data wrong, hang, error). */
bool p2ps_chk_form_broken(int f);

/* ---- memory layout ---- */

/* The memory a path uses on each GPU. */
enum p2ps_chk_region {
	P2PS_CHK_R_MAIN = 0, /* cudaMalloc: the in-process paths and cudaIpc */
	P2PS_CHK_R_FD,       /* cuMemCreate, exportable as a POSIX file descriptor */
	P2PS_CHK_R_UVM,      /* cudaMallocManaged */
	P2PS_CHK_REGIONS
};

enum p2ps_chk_role {
	P2PS_CHK_W_SLOT = 0, /* where a step's payload belongs (or a load's source) */
	P2PS_CHK_W_GUARD,    /* right before or after the slot */
	P2PS_CHK_W_ALIAS,    /* the slot's place a power of two away */
	P2PS_CHK_W_SCRATCH,  /* a step's source (writes) or a load's destination */
};

#define P2PS_CHK_MAX_ALIAS   4
#define P2PS_CHK_MAX_WINDOWS (4 + 2 * P2PS_CHK_MAX_ALIAS)

struct p2ps_chk_window {
	uint64_t offset, bytes;
	enum p2ps_chk_role role;
	int64_t alias; /* ALIAS: its distance from the slot (bytes, signed) */
};

/* The windows of one region. Only the windows are ever written or read; the rest of the
 * region is there so that an alias probe lands in memory of the same allocation. */
struct p2ps_chk_layout {
	uint64_t bytes; /* the region's size */
	uint64_t payload, guard;
	size_t slot, scratch; /* indices into w */
	size_t n;
	struct p2ps_chk_window w[P2PS_CHK_MAX_WINDOWS];
};

/* The layout of a region with the payload and guard sizes (multiples of 16 bytes) and
 * alias probes at +-alias[k] bytes from the slot (each at least payload + 2 * guard).
 * Returns 0, or P2PS_EINVAL. */
int p2ps_chk_layout_make(uint64_t payload, uint64_t guard, const uint64_t *alias, size_t n_alias,
                         struct p2ps_chk_layout *l, struct p2ps_error *err);

/* A window to fill or scan: where, and what its cells are (or must be). */
struct p2ps_chk_span {
	uint64_t offset, bytes;
	struct p2ps_cell_win win;
};

/* Scans a window of host memory (the stand-ins' memory, and the reference the GPU kernel
 * is held to): cells[0..n) found at window win. */
void p2ps_cell_scan(const uint32_t *cells, uint64_t n, const struct p2ps_cell_win *win,
                    struct p2ps_cell_tally *t);

/* ---- the operations (the CUDA and NCCL side) ---- */

struct p2ps_chk_gpu_info {
	int ordinal;  /* CUDA device number */
	char bdf[16]; /* "0000:3b:00.0", lower case */
	char name[96];
	int cc_major, cc_minor;
	uint64_t mem_bytes;
	bool fd_handles; /* can export POSIX-FD handles */
	bool managed;    /* concurrent managed access */
};

/* An operation's answer (besides the why text it fills). */
enum p2ps_chk_op {
	P2PS_CHK_OP_OK = 0,
	P2PS_CHK_OP_ERROR,       /* failed: why says how */
	P2PS_CHK_OP_DENIED,      /* peer access refused */
	P2PS_CHK_OP_UNSUPPORTED, /* not possible here: why says why */
};

/* One step's data movement: GPU a accesses GPU b; bytes from src to dst. */
struct p2ps_chk_xfer {
	enum p2ps_chk_path path;
	int a, b;
	enum p2ps_chk_region src_region, dst_region;
	int src_gpu, dst_gpu;
	uint64_t src_offset, dst_offset, bytes;
	/* The payload's cells, for a process that makes its own source (the IPC paths). */
	struct p2ps_cell_key key;
	uint32_t index_base;
};

enum p2ps_chk_nccl_op {
	P2PS_CHK_NCCL_ALL_REDUCE = 0,
	P2PS_CHK_NCCL_ALL_GATHER,
	P2PS_CHK_NCCL_SEND_RECV, /* every ordered pair at once: NCCL connects each */
	P2PS_CHK_NCCL_OPS
};
const char *p2ps_chk_nccl_op_name(int op); /* "all_reduce", "all_gather", "send_recv" */

/* Every call may block for as long as it likes: the run gives each a deadline. why (of
 * why_len bytes) takes one line on failure. Each GPU's calls come from one thread of its
 * own; the NCCL calls from another. */
struct p2ps_chk_ops {
	/* The GPUs to check, in the order of the check's indices (at most max). */
	int (*devices)(void *ctx, struct p2ps_chk_gpu_info *out, int max, int *n, char *why,
	               size_t why_len);
	/* Prepares GPU g: its context and the regions (bytes[r]; 0: not needed). */
	int (*open)(void *ctx, int g, const uint64_t bytes[P2PS_CHK_REGIONS], char *why,
	            size_t why_len);
	/* Whether a can access b, then enabling it; *can: CUDA's answer. DENIED when it
	 * cannot. */
	int (*peer)(void *ctx, int a, int b, int *can, char *why, size_t why_len);
	/* Lets the other process map GPU g's region r (the IPC paths). */
	int (*share)(void *ctx, int g, enum p2ps_chk_region r, char *why, size_t why_len);
	/* Writes the cells of each span into GPU g's region r. */
	int (*fill)(void *ctx, int g, enum p2ps_chk_region r, const struct p2ps_chk_span *s,
	            size_t n, char *why, size_t why_len);
	/* Moves x->bytes (on GPU a, or in the other process for the IPC paths). */
	int (*xfer)(void *ctx, const struct p2ps_chk_xfer *x, char *why, size_t why_len);
	/* Scans each span of GPU g's region r into t[k] (first_bad_cell filled). */
	int (*scan)(void *ctx, int g, enum p2ps_chk_region r, const struct p2ps_chk_span *s,
	            size_t n, struct p2ps_cell_tally *t, char *why, size_t why_len);
	/* NCCL, one communicator over the n GPUs (all in this process); UNSUPPORTED when no
	 * library could be loaded. version: "2.28.9". */
	int (*nccl_init)(void *ctx, int n, char *version, size_t version_len, char *why,
	                 size_t why_len);
	/* One collective (op), verified: *bad of *total elements differ. */
	int (*nccl_run)(void *ctx, enum p2ps_chk_nccl_op op, uint64_t *bad, uint64_t *total,
	                char *why, size_t why_len);
	/* NCCL's INFO log so far (malloc'd, the caller frees), or NULL. */
	char *(*nccl_log)(void *ctx);
};

/* ---- the run ---- */

struct p2ps_chk_opts {
	uint64_t payload;                   /* bytes per step, a multiple of 16 (default 2 MiB) */
	uint64_t guard;                     /* canary bytes before and after (default 64 KiB) */
	uint64_t alias[P2PS_CHK_MAX_ALIAS]; /* alias probe distances (default 256M, 512M, 1G) */
	size_t n_alias;
	unsigned paths;   /* P2PS_CHK_PATH_BIT()s (default P2PS_CHK_PATHS_DEFAULT) */
	bool nccl;        /* run the NCCL part */
	unsigned step_ms; /* deadline of one data step (default 2000) */
	unsigned open_ms; /* of finding and opening the GPUs, sharing, NCCL's init (20000) */
	uint32_t nonce;   /* the run's; 0: from the clock */
};
/* The defaults above. */
void p2ps_chk_opts_default(struct p2ps_chk_opts *o);

/* One step's result. */
struct p2ps_chk_obs {
	enum p2ps_chk_form form;
	double ms;            /* how long the step took (for HUNG: its deadline) */
	int64_t displacement; /* SHIFTED, ALIASED: bytes (where the data went, or the read came
	                       * from, minus where they should) */
	int other_gpu;        /* WRONG_GPU: the check index of the other GPU; -1 */
	uint64_t cells, bad_cells;
	char detail[200];
};

struct p2ps_chk_gpu {
	struct p2ps_chk_gpu_info info;
	struct p2ps_chk_obs open;
};

struct p2ps_chk_nccl {
	bool asked;
	struct p2ps_chk_obs init; /* UNSUPPORTED: no library */
	struct p2ps_chk_obs op[P2PS_CHK_NCCL_OPS];
	char version[32];
	char library[256];
	/* Per ordered pair of ranks (= check indices): the transports NCCL logged, "" none;
	 * several channels with different transports are listed with " + ". */
	char transport[P2PS_CHK_MAX_GPUS][P2PS_CHK_MAX_GPUS][64];
	char warnings[4][200];
	int n_warnings;
};

/* What a run saw (or a replay read back). */
struct p2ps_chk_result {
	struct p2ps_chk_opts opts;
	struct p2ps_chk_obs find; /* finding the GPUs */
	int n;
	struct p2ps_chk_gpu gpu[P2PS_CHK_MAX_GPUS];
	struct p2ps_chk_obs obs[P2PS_CHK_MAX_GPUS][P2PS_CHK_MAX_GPUS][P2PS_CHK_PATHS];
	struct p2ps_chk_nccl nccl;
	uint64_t region_bytes[P2PS_CHK_REGIONS];
	double wall_ms;                   /* the run, from its start to its end */
	double phase_ms[P2PS_CHK_PHASES]; /* where that time went (0: not run) */
	double process_s; /* the whole process, start to output (set by the tool; 0 unknown) */
	double host_ms;   /* loading and analysing the host beside it (set by the tool) */
	struct p2ps_chk_policy policy; /* what the run's command line allowed */
	/* The NCCL_* variables the run saw (NAME=value), for its prediction when judged again
	 * (nccl_env_known: the saved run said which). */
	bool nccl_env_known;
	int n_nccl_env;
	char nccl_env[8][128];
	int stuck_lanes; /* threads still inside a call (each hung): exit without cleanup */
	void *lanes_;    /* the run's threads (p2ps_chk_result_free) */
};

/* Runs the check through ops (ctx is theirs) into res (zeroed first). Returns 0, or
 * P2PS_ENOMEM / P2PS_EIO (no thread could be started) with err filled; a step that fails is a
 * result, not an error. */
int p2ps_chk_run(const struct p2ps_chk_opts *o, const struct p2ps_chk_ops *ops, void *ctx,
                 struct p2ps_chk_result *res, struct p2ps_error *err);

/* Waits up to wait_ms for threads still inside a call, joins those that returned and gives up
 * the others (their memory is left to them). Returns how many were given up: a process with
 * any should end with _exit() once its output is written. */
int p2ps_chk_result_free(struct p2ps_chk_result *res, unsigned wait_ms);

/* ---- NCCL's log ---- */

/* Reads NCCL's INFO lines (NCCL_DEBUG=INFO): every "Channel NN[/C] : R1[D1] -> R2[D2] via
 * TRANSPORT" line into n->transport[R1][R2] (ranks beyond P2PS_CHK_MAX_GPUS are skipped), the
 * NCCL version, and the first WARN lines. Returns the number of transport lines read. */
int p2ps_chk_nccl_parse(const char *text, size_t len, struct p2ps_chk_nccl *n);

/* A transport as its class: "P2P", "SHM", "NET", "" for none or unknown. */
const char *p2ps_chk_nccl_class(const char *transport);

/* ---- the report: prediction beside observation ---- */

enum p2ps_chk_verdict {
	P2PS_CV_WORKS = 0,
	P2PS_CV_BROKEN,
	P2PS_CV_UNAVAILABLE, /* no P2P, as the driver says; copies through host memory verified */
	P2PS_CV_UNKNOWN,
};
const char *p2ps_chk_verdict_name(int v); /* "works", "broken", "unavailable", "unknown" */
int p2ps_chk_verdict_parse(const char *name);

/* One likely cause of a mismatch and its fix. */
struct p2ps_chk_cause {
	char text[400];
	char fix[320];
};
#define P2PS_CHK_MAX_CAUSES 6

/* What was predicted for an ordered pair. */
struct p2ps_chk_prediction {
	bool host_known;     /* the GPUs were found in the host model */
	enum p2ps_topo topo; /* bar-inspect's class (NV#: nvlinks) */
	int nvlinks;
	enum p2ps_verdict bar1; /* bar-inspect's static BAR1 verdict for the pair */
	bool model;             /* the driver model ran (driver series known) */
	enum p2ps_nv_status model_read, model_write;
	enum p2ps_nv_path model_path;
	enum p2ps_nv_gate model_gate; /* what decided a status that is not OK */
	char model_why[200];
	bool reported; /* the driver's own caps (NVML, nvidia-smi topo -p2p, the RM API) */
	enum p2ps_nv_status reported_read, reported_write;
	char reported_source[64];
	int p2p;              /* the prediction: 1 P2P works, 0 it does not, -1 unknown */
	const char *p2p_from; /* "the driver's reported caps", "the driver model", ... */
	int nccl_p2p;         /* NCCL's rule: 1 P2P transport, 0 SHM, -1 unknown */
	char nccl_why[200];
	enum p2ps_iommu_mode iommu[2];
};

struct p2ps_chk_pair {
	int a, b; /* check indices: a accesses b */
	struct p2ps_chk_prediction pred;
	enum p2ps_chk_verdict verdict;
	char verdict_why[200];
	const char *nccl_seen; /* the observed transport's class, "" when not seen */
	size_t n_causes;
	struct p2ps_chk_cause cause[P2PS_CHK_MAX_CAUSES];
};

struct p2ps_chk_report {
	const struct p2ps_chk_result *res;
	const struct p2ps_analysis *an;    /* NULL: no host model */
	const struct p2ps_drv_report *drv; /* NULL: no driver model */
	struct p2ps_chk_policy policy;
	size_t n_pairs;
	struct p2ps_chk_pair *pairs; /* every ordered pair of checked GPUs */
	enum p2ps_chk_verdict verdict;
	int exit_status;      /* 0 works, 1 broken (or unavailable, unless allowed), 3 unknown */
	char summary[400];    /* one line: the verdict and its main reason */
	char host_note[400];  /* what could and could not be checked, "" when nothing to say */
	double host_ms;       /* loading and analysing the host (0: not measured) */
	char host_error[200]; /* why there is no host model, "" */
};

/* Joins a run with the host's analysis and driver model (either may be NULL). Returns 0 or
 * P2PS_ENOMEM. The report points into res, an and drv: they must outlive it. */
int p2ps_chk_report_make(const struct p2ps_chk_result *res, const struct p2ps_analysis *an,
                         const struct p2ps_drv_report *drv, const struct p2ps_chk_policy *pol,
                         struct p2ps_chk_report *out, struct p2ps_error *err);
void p2ps_chk_report_free(struct p2ps_chk_report *r);

/* ---- outputs and the saved form ---- */

struct p2ps_chk_render_opts {
	const char *version; /* the tool's */
	const char *date;    /* UTC, ISO 8601 */
	const char *hostname;
	double wall_s; /* the whole process, start to output; 0: not given */
};

int p2ps_chk_render_text(const struct p2ps_chk_report *r, const struct p2ps_chk_render_opts *o,
                         struct p2ps_strbuf *out);
/* One line (the summary), for health checks and job prologs. */
int p2ps_chk_render_line(const struct p2ps_chk_report *r, const struct p2ps_chk_render_opts *o,
                         struct p2ps_strbuf *out);
int p2ps_chk_render_json(const struct p2ps_chk_report *r, const struct p2ps_chk_render_opts *o,
                         struct p2ps_strbuf *out, struct p2ps_error *err);
int p2ps_chk_render_prometheus(const struct p2ps_chk_report *r,
                               const struct p2ps_chk_render_opts *o, struct p2ps_strbuf *out);

/* Reads a saved `p2p-bench check --json` back into res (what the run saw; the report is made
 * again). Returns 0, or P2PS_EINVAL with err naming what is wrong. */
int p2ps_chk_result_read(const char *text, size_t len, struct p2ps_chk_result *res,
                         struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
