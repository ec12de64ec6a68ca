/* SPDX-License-Identifier: MIT */
/* p2pscope: what a paste adds to the analysis — the triage of a bug report.
 *
 * The analysis (analysis.h) runs unchanged on the host model the paste backend filled.
 * p2ps_paste_observe() then reads what only a paste shows and a live host cannot:
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
#include "p2pscope/paste.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stable identifiers of paste findings (JSON "code"). */
enum p2ps_paste_finding_code {
	P2PS_PF_DRIVER = 0,         /* driver version and kind (open / proprietary) */
	P2PS_PF_BAR1_P2P_PATH,      /* the driver set up static BAR1 / BAR1-P2P mappings */
	P2PS_PF_PEER_DMA_UNALIGNED, /* static BAR1 peer mapping refused: address not aligned */
	P2PS_PF_DRIVER_ASSERT,      /* NVRM nvAssertFailed */
	P2PS_PF_MMU_FAULT,          /* Xid 31 MMU fault (decoded with libgmmu where it can be) */
	P2PS_PF_XID,                /* another Xid */
	P2PS_PF_IOMMU_FAULT,        /* AMD-Vi / DMAR faults on a GPU's DMA */
	P2PS_PF_BAR_UNASSIGNABLE,   /* the kernel or driver found no space for BAR1 */
	P2PS_PF_REBAR_CEILING,      /* a Resizable BAR capability offers less than 2 GiB */
	P2PS_PF_BAR1_VS_VRAM,       /* nvidia-smi BAR1 against VRAM of a GPU without address */
	P2PS_PF_CUDA_NO_PEER,       /* CUDA: CANNOT access peer / waived */
	P2PS_PF_P2P_NO_GAIN,        /* CUDA: P2P on is not faster than off (host-memory copies) */
	P2PS_PF_DATA_MISMATCH,      /* CUDA: verification errors, test failed */
	P2PS_PF_NVIDIA_P2P_STATUS,  /* nvidia-smi topo -p2p: CNS / GNS / TNS / NS / DR */
	P2PS_PF_NVIDIA_TOPOLOGY,    /* nvidia-smi topo -m: crosses sockets (SYS/SOC) */
	P2PS_PF_DISAGREEMENT,       /* the analysis and an observation say different things */
	P2PS_PF_CAPS_DENIED,        /* lspci ran without root */
	P2PS_PF_MALFORMED,          /* a block was cut or had mismatched columns */
	P2PS_PF_NO_GPU,             /* the paste names no NVIDIA GPU */
	P2PS_PF_CODE_COUNT
};
const char *p2ps_paste_finding_name(enum p2ps_paste_finding_code c); /* "iommu_fault", ... */

#define P2PS_PASTE_TEXT_MAX 512

struct p2ps_paste_finding {
	enum p2ps_paste_finding_code code;
	enum p2ps_severity sev;
	char text[P2PS_PASTE_TEXT_MAX];
	char fix[P2PS_REASON_FIX_MAX];
	struct p2ps_paste_where from; /* the paste line it rests on */
};

/* One GPU pair as every source in the paste sees it. GPUs are numbered as nvidia-smi
 * numbers them where the paste allows (else by CUDA ordinal, else by address order). */
struct p2ps_paste_pair {
	char a[40], b[40];            /* "GPU0 0000:01:00.0", "GPU3 (no address)" */
	const struct p2ps_pair *ours; /* the analysis' pair, NULL when an address is missing */
	char topo[P2PS_PASTE_CELL];   /* nvidia-smi topo -m, "" */
	char p2p_ab[P2PS_PASTE_CELL]; /* nvidia-smi topo -p2p, a->b and b->a, "" */
	char p2p_ba[P2PS_PASTE_CELL];
	int cuda_ab, cuda_ba; /* CUDA peer access: 1 CAN, 0 CANNOT, -1 not in the paste */
	double bw_off, bw_on; /* unidirectional GB/s a->b, P2P off / on; 0 not in the paste */
	char note[P2PS_PASTE_TEXT_MAX]; /* disagreement, "" */
};

/* A blocking cause, from the analysis or from a finding. */
struct p2ps_paste_cause {
	char code[40]; /* reason or finding code */
	char text[P2PS_PASTE_TEXT_MAX];
	char fix[P2PS_REASON_FIX_MAX];
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
	struct p2ps_paste_finding *findings; /* blockers first */
	size_t n_findings;
	struct p2ps_paste_cause causes[P2PS_PASTE_MAX_CAUSES];
	size_t n_causes;
	struct p2ps_paste_pair *pairs;
	size_t n_pairs;
	struct p2ps_paste_ask asks[P2PS_PASTE_MAX_ASKS];
	size_t n_asks;
};

/* Builds the report for an analysis of a paste (a->host->paste). Returns 0, P2PS_EINVAL
 * when the host did not come from a paste, or P2PS_ENOMEM. Always safe to
 * p2ps_paste_report_free() afterwards. */
int p2ps_paste_observe(const struct p2ps_analysis *a, struct p2ps_paste_report *out,
                       struct p2ps_error *err);

void p2ps_paste_report_free(struct p2ps_paste_report *r);

#ifdef __cplusplus
}
#endif

#endif
