/* SPDX-License-Identifier: MIT */
/* Private interfaces of the paste findings. The files call one way only:
 *
 *   observe.c (entry) -> the checks -> asks.c -> record.c, query.c
 *
 * record.c (appending findings, asks, causes) and query.c (questions about the evidence)
 * call nothing here; asks.c (what to send next, per fact and per symptom) calls only
 * them; each check (kernel.c with gmmu.c, devices.c, cuda.c, symptoms.c, releases.c,
 * pairs.c) adds its findings through them; verdict.c turns the findings and the
 * analysis into causes and asks; observe.c runs them in order. ctest
 * paste_no_call_circle fails on a call back up. */
#ifndef P2PS_PASTE_OBSERVE_INTERNAL_H
#define P2PS_PASTE_OBSERVE_INTERNAL_H

#include <stdbool.h>

#include "analysis_internal.h"
#include "p2pscope/evidence.h"
#include "p2pscope/paste_report.h"

struct octx {
	const struct p2ps_analysis *a;
	const struct p2ps_host *h;
	const struct p2ps_evidence *ev;
	struct p2ps_paste_report *r;
	bool oom;
	/* An A/B of releases on this host shows the platform is not the cause (releases.c):
	 * the analysis' blockers are doubts, not causes. */
	bool platform_cleared;
	/* The evidence GPU a matrix index names: by nvidia-smi index, by CUDA ordinal. */
	int by_smi[P2PS_PASTE_MAX_GPUS];
	int by_cuda[P2PS_PASTE_MAX_GPUS];
};

/* ---- record.c: what the report collects ---------------------------------------------- */

/* Appends a finding (text printf-style; the analysis' own appender); NULL when out of
 * memory. Its fix is set with p2ps_an_fix(). */
struct p2ps_reason *po_add(struct octx *c, enum p2ps_reason_code code, enum p2ps_severity sev,
                           struct p2ps_paste_where from, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

/* Appends a "send next" item unless the same command is listed already. */
void po_ask(struct octx *c, const char *command, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Appends a blocking cause unless the same text is listed already. */
void po_cause(struct octx *c, const char *code, const char *text, const char *fix);

/* Appends a note: a blocker of the analysis (of pair `pair`, GPU `gpu` or the host: -1)
 * that the paste's own evidence contradicts, kept as a doubt. */
void po_note(struct octx *c, const char *code, const char *text, int pair, int gpu);

/* Label of the GPU at an address: "GPU0 0000:01:00.0" as the analysis numbers it, or the
 * address alone. */
const char *po_gpu_label(const struct octx *c, const struct p2ps_bdf *b, char *buf, size_t size);

/* ---- query.c: questions about the evidence ------------------------------------------- */

/* The evidence GPU that index i of matrix k names (nvidia-smi index for topo -m and
 * topo -p2p, CUDA ordinal for the rest), -1. */
int po_gpu_of(const struct octx *c, enum p2ps_paste_matrix_kind k, int i);
/* Cell (row i, column j) of matrix k by its own numbering, NULL when the paste has none;
 * as a number (0 when none). */
const char *po_cell(const struct octx *c, enum p2ps_paste_matrix_kind k, int i, int j);
double po_cell_num(const struct octx *c, enum p2ps_paste_matrix_kind k, int i, int j);
/* The first stored kernel event of a kind, or NULL. */
const struct p2ps_paste_event *po_first_event(const struct octx *c, enum p2ps_paste_event_kind k);
/* Whether a block of kind k was read. */
bool po_block_read(const struct octx *c, enum p2ps_paste_kind k);
/* Whether a GPU the paste names has a model name. */
bool po_any_gpu_named(const struct octx *c);
/* Whether something in the paste speaks against P2P working (a symptom of failure). */
bool po_failure_seen(const struct octx *c);
/* A GeForce family whose P2P over PCIe depends on the driver (query.c's table). */
struct po_geforce {
	const char *name;   /* as model names carry it: "GeForce RTX 40" */
	const char *family; /* "Ada GeForce (RTX 40)" */
	bool stock_refuses; /* no stock release gives it P2P over PCIe */
};
const struct po_geforce *po_geforce(const char *model);
/* The family of a GeForce whose stock driver gives no P2P over PCIe, or NULL. */
const char *po_geforce_family(const char *name);
/* Whether a model is a board whose GPUs are joined by NVLink or NVSwitch (SXM modules). */
bool po_nvlink_board(const char *model);
/* Whether every GPU the paste names is such a board (and it names one): their peer traffic
 * runs over NVLink, which ACS and the IOMMU do not reach. */
bool po_nvlink_boards_only(const struct octx *c);
/* Whether the paste shows a P2P-patched driver (its version or its BAR1-P2P log lines). */
bool po_patched_driver(const struct octx *c);
/* Whether the paste shows peer access refused: CUDA's CANNOT or 0, "peer access is not
 * supported", NCCL's "P2P is disabled" or "Could not enable P2P", simpleP2P waived,
 * intraNodeP2pSupport 0, or NCCL on host memory between local GPUs unasked. */
bool po_refused(const struct octx *c);
/* Whether the paste shows peer access granted (CAN, connectivity 1, NCCL's P2P transport,
 * simpleP2P enabling it). */
bool po_granted(const struct octx *c);
/* Whether the paste holds a measurement of the copies (bandwidth matrices, a test's
 * verdict, nccl-tests' checked results). */
bool po_measured(const struct octx *c);
/* Whether two GPUs share a PCIe switch: nvidia-smi topo -m says PIX or PXB, or they sit on
 * bus numbers within 4 of each other (a switch's downstream ports take consecutive
 * buses). */
bool po_switch_pairs(const struct octx *c);
/* Whether a GPU the paste names is a GeForce whose P2P depends on the driver. */
bool po_driver_dependent(const struct octx *c);
/* Whether the paste names the driver (its version or its kind). */
bool po_driver_known(const struct octx *c);
/* Whether a blocker is about the driver's decision which GPUs may peer (generation,
 * mixed models, the path class), which CUDA granting peer access contradicts. */
bool po_driver_decision(enum p2ps_reason_code code);
/* Whether the paste is about GPUDirect RDMA: a peer-memory module listed, or NCCL's
 * GPUDirect RDMA lines. */
bool po_gdr_paste(const struct octx *c);
/* Whether the paste shows P2P refused explicitly (CUDA, NCCL's "could not enable", a
 * waived test), as against NCCL quietly picking host memory. */
bool po_refused_explicitly(const struct octx *c);
/* Whether NCCL variables that change its choices are set (beyond debug and interfaces). */
bool po_nccl_tuned(const struct octx *c);

/* ---- asks.c: what to send next ------------------------------------------------------- */

/* The facts a symptom's causes turn on. */
enum po_fact {
	PO_F_BAR1 = 0,   /* BAR1 and VRAM per GPU */
	PO_F_CMDLINE,    /* the IOMMU flags the kernel booted with */
	PO_F_IOMMU,      /* whether an IOMMU is on and translating */
	PO_F_ACS,        /* ACS control of the ports between the GPUs */
	PO_F_DRIVER,     /* which driver: stock or P2P-patched open modules */
	PO_F_MODELS,     /* GPU models and addresses */
	PO_F_P2P_MATRIX, /* the driver's own P2P status per pair */
	PO_F_TREE,       /* the PCIe tree */
	PO_F_DATA,       /* a copy test that checks the data */
	PO_F_NVRM,       /* the driver's log (static BAR1, Xid) */
	PO_F_SHM,        /* /dev/shm */
	PO_F_NCCL_LOG,   /* NCCL's log */
	PO_F_PEERMEM,    /* the peer-memory module (nvidia-peermem, nv_peer_mem) */
	PO_F_NONE
};

/* Whether the paste already holds a fact. */
bool po_held(const struct octx *c, enum po_fact f);
/* Asks for a fact (its command and why). */
void po_ask_fact(struct octx *c, enum po_fact f);
/* What a symptom means, as a clause. */
const char *po_symptom_meaning(enum p2ps_paste_symptom s);
/* Per symptom the paste shows, the facts that separate its causes, in that order,
 * skipping those the paste holds. */
void po_symptom_asks(struct octx *c);
/* Whether the IOMMU translates the GPUs' DMA: the command that says so. */
void po_iommu_asks(struct octx *c);

/* ---- the checks ------------------------------------------------------------------------ */

void po_kernel(struct octx *c);                                        /* kernel.c */
void po_gmmu_fault(struct octx *c, const struct p2ps_paste_event *ev); /* gmmu.c: Xid 31 */
void po_devices(struct octx *c);    /* devices.c: denied capabilities, ReBAR ceilings */
void po_nvidia_smi(struct octx *c); /* devices.c: topo -m and topo -p2p */
void po_cuda(struct octx *c);       /* cuda.c: peer access, bandwidth, latency, data */
void po_symptoms(struct octx *c);   /* symptoms.c: symptoms, NCCL, ACS, GeForce, unread */
void po_releases(struct octx *c);   /* releases.c: versions with defects, an A/B */
int po_pairs(struct octx *c);       /* pairs.c: the per-pair table, disagreements */
void po_verdict(struct octx *c);    /* verdict.c: causes, verdict, what to send next */

#endif
