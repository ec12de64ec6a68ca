/* SPDX-License-Identifier: MIT */
/* p2pscope: what a paste adds to the analysis — the triage of a bug report.
 *
 * The analysis (analysis.h) runs unchanged on the host model the paste backend filled.
 * p2ps_paste_observe() then reads the evidence the paste reader handed over
 * (host->evidence, evidence.h): what only a paste shows and a live host cannot:
 *  - the driver the reporter ran and its BAR1-P2P path (NVRM lines: static BAR1 mapping,
 *    "added PCIe BAR1 P2P mapping", peer DMA alignment, assertions),
 *  - faults (IOMMU page faults, Xid MMU faults decoded with libgmmu),
 *  - what CUDA saw (peer access matrix, P2P on vs off bandwidth, data mismatches),
 *  - nvidia-smi's own topology class and P2P status per pair,
 * puts each beside the analysis' verdict (saying where they disagree), names the causes
 * that block BAR1 P2P, and lists what to send next: for every unknown that would change
 * the verdict, the command whose output settles it.
 */
#ifndef P2PSCOPE_PASTE_REPORT_H
#define P2PSCOPE_PASTE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/analysis.h"
#include "p2pscope/evidence.h"
#include "p2pscope/nvidia_drivers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A paste finding is a struct p2ps_reason (analysis.h) whose code is one of the
 * P2PS_PF_* codes (or an analysis code where the paste shows the same fact for GPUs the
 * analysis cannot pair: mixed_generations between GPUs known only by CUDA ordinal) and
 * whose `from` names the paste line it rests on. Its JSON "code": */
const char *p2ps_paste_finding_name(enum p2ps_reason_code c); /* "iommu_fault", ... */

#define P2PS_PASTE_TEXT_MAX 512

/* One path of nvidia-smi topo -p2p for a pair, in the driver's terms. */
struct p2ps_paste_p2p_code {
	char path; /* 'r', 'w', 'n', 'a', 'p'; 0 when the paste does not say which */
	char ab[P2PS_PASTE_CELL], ba[P2PS_PASTE_CELL]; /* as printed a->b, b->a; "" */
	/* The driver's status of the first code of the two that is not OK (an enum
	 * p2ps_nv_status); -1 when both read OK or neither is a code. */
	int status;
	/* The gates that answer it on this path (P2PS_NV_GATE_BIT()s): the driver table's row
	 * (why), or with the path unknown every row of the status; 0 none. */
	unsigned gates;
	const struct p2ps_nv_status_why *why; /* NULL: path unknown, or no gate gives it */
	struct p2ps_paste_where from;         /* the a->b cell, else the b->a cell */
};

#define P2PS_PASTE_P2P_PATHS 6 /* r, w, n, a, p and "not said" */

/* One GPU pair as every source in the paste sees it. GPUs are numbered as nvidia-smi
 * numbers them where the paste allows (else by CUDA ordinal, else by address order). */
struct p2ps_paste_pair {
	char a[40], b[40];            /* "GPU0 0000:01:00.0", "GPU3 (no address)" */
	const struct p2ps_pair *ours; /* the analysis' pair, NULL when an address is missing */
	char topo[P2PS_PASTE_CELL];   /* nvidia-smi topo -m, "" */
	char p2p_ab[P2PS_PASTE_CELL]; /* nvidia-smi topo -p2p, a->b and b->a, "" */
	char p2p_ba[P2PS_PASTE_CELL];
	int cuda_ab, cuda_ba; /* CUDA peer access: 1 CAN, 0 CANNOT, -1 not in the paste */
	/* GB/s a->b, P2P off / on: unidirectional, or bidirectional where the paste has only
	 * that (bw_bidirectional); 0 not in the paste. */
	double bw_off, bw_on;
	double d2d; /* GB/s nvbandwidth copied between the pair (a->b, else b->a); 0 none */
	char nccl[P2PS_PASTE_CELL]; /* NCCL's transport a->b ("P2P", "SHM"), "" */
	int works;                  /* 1: positive evidence that P2P works, nothing against it */
	char works_why[160];        /* the evidence, "" */
	char note[P2PS_PASTE_TEXT_MAX]; /* disagreement, "" */
	bool bw_bidirectional;
	double lat_off,
	        lat_on; /* latency a->b in us, P2P off / on (GPU part); 0 not in the paste */
	int connect_ab, connect_ba; /* CUDA's P2P Connectivity Matrix: 1, 0, -1 not in the paste */
	int nvlinks;                /* nvidia-smi topo -m NV# between them; 0 none or not known */
	/* works == 1 only from the driver's word (CUDA grants access, topo -p2p OK) where
	 * nothing speaks against it; 0 when a copy, a measurement or NVLink shows it. */
	bool works_weak;
	int ga, gb; /* their indices in the evidence's GPUs, -1 */
	/* works == 1 from copies the paste shows completing: a checked test (simpleP2P,
	 * nccl-tests rows with no wrong value) or P2P measured faster than host copies (not
	 * NCCL's choice of transport or NVLink in the topology alone). */
	bool works_copied;
	/* nvidia-smi topo -p2p per path the paste printed (p2p_ab/p2p_ba hold the first). */
	struct p2ps_paste_p2p_code p2p_codes[P2PS_PASTE_P2P_PATHS];
	size_t n_p2p_codes;
};

/* A blocking cause, from the analysis or from a finding; or a note (a blocker of the
 * analysis the paste's evidence contradicts). */
struct p2ps_paste_cause {
	char code[40]; /* reason or finding code */
	char text[P2PS_PASTE_TEXT_MAX];
	char fix[P2PS_REASON_FIX_MAX];
	/* A note's subject in the analysis: a pair's index into a->pairs, or a GPU's into
	 * a->gpus, -1 (both -1: the host's). */
	int pair, gpu;
};

/* What to send next: the command whose output settles an unknown. */
struct p2ps_paste_ask {
	char what[256];
	char command[200];
};

#define P2PS_PASTE_MAX_ASKS   24
#define P2PS_PASTE_MAX_CAUSES 24

struct p2ps_paste_report {
	enum p2ps_verdict verdict; /* not ready: a cause; unknown: a needed fact is missing */
	char verdict_why[256];
	struct p2ps_reasons findings; /* P2PS_PF_* codes, in the order found */
	struct p2ps_paste_cause causes[P2PS_PASTE_MAX_CAUSES];
	size_t n_causes;
	/* Blockers of the analysis that the paste's own evidence contradicts (a pair it
	 * shows copying peer to peer correctly): kept as the model's doubt, not as causes. */
	struct p2ps_paste_cause notes[P2PS_PASTE_MAX_CAUSES];
	size_t n_notes;
	struct p2ps_paste_pair *pairs;
	size_t n_pairs;
	struct p2ps_paste_ask asks[P2PS_PASTE_MAX_ASKS];
	size_t n_asks;
};

/* Builds the report for an analysis of a paste (a->host->evidence). Returns 0, P2PS_EINVAL
 * when the host did not come from a paste, or P2PS_ENOMEM. Always safe to
 * p2ps_paste_report_free() afterwards. */
int p2ps_paste_observe(const struct p2ps_analysis *a, struct p2ps_paste_report *out,
                       struct p2ps_error *err);

void p2ps_paste_report_free(struct p2ps_paste_report *r);

#ifdef __cplusplus
}
#endif

#endif
