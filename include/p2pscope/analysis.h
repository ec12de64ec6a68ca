/* SPDX-License-Identifier: MIT */
/* p2pscope: what bar-inspect concludes from a host model.
 *
 * Pure functions over struct p2ps_host (include/p2pscope/host.h): nothing here reads
 * files, touches hardware or prints. p2ps_analysis_run() computes, for the NVIDIA GPUs
 * of the model,
 *  - per GPU: the BAR that is NVIDIA's "BAR1" (frame-buffer aperture), its size against
 *    VRAM, the chain of bridges up to the host bridge, the IOMMU mode that applies to
 *    it, link bandwidth, and per-GPU findings (unassigned BAR, window too small, driver,
 *    boot display, link trained below capability);
 *  - the GPU-by-GPU topology matrix with nvidia-smi topo -m's classes (X, NV#, PIX,
 *    PXB, PHB, NODE, SYS), from the PCI tree and NUMA nodes;
 *  - per GPU pair: whether static-BAR1 P2P (peer PTEs pointing at the peer's BAR1 bus
 *    address, as the patched open kernel modules do) can work, with every reason and
 *    the fix a user would apply — bar-inspect prints fixes, it never applies them;
 *  - host-wide findings (IOMMU state and the command-line flags behind it, driver
 *    version mismatch, VM, NCCL_P2P_* variables, facts that need root).
 *
 * The analysis keeps a pointer to the host; the host must outlive it.
 */
#ifndef P2PSCOPE_ANALYSIS_H
#define P2PSCOPE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/host.h"
#include "p2pscope/evidence.h"

struct p2ps_paste_report;

#ifdef __cplusplus
extern "C" {
#endif

/* nvidia-smi topo -m classes, ordered from closest to farthest PCIe path. NV (NVLink)
 * and X (self) sit outside that order. */
enum p2ps_topo {
	P2PS_TOPO_UNKNOWN = 0, /* the tree or NUMA facts needed are missing */
	P2PS_TOPO_X,           /* the GPU itself */
	P2PS_TOPO_NV,          /* NVLink: see nvlinks for the count (NV#) */
	P2PS_TOPO_PIX,         /* at most one PCIe bridge (one switch, or one root port) */
	P2PS_TOPO_PXB,         /* several PCIe bridges, no host bridge */
	P2PS_TOPO_PHB,         /* through a PCIe host bridge (the CPU's root complex) */
	P2PS_TOPO_NODE,        /* between host bridges of one NUMA node */
	P2PS_TOPO_SYS,         /* across the SMP interconnect between NUMA nodes */
};

/* "X", "NV", "PIX", ... ("?" for unknown). */
const char *p2ps_topo_name(enum p2ps_topo t);
/* nvidia-smi's legend line for a class (without the "NAME = " prefix). */
const char *p2ps_topo_legend(enum p2ps_topo t);

/* NCCL's path types in its own order (src/graph/topo.h; their names are topoPathTypeStr in
 * src/graph/topo.cc, NCCL 2.19 and later): a level such as NCCL_P2P_LEVEL admits every
 * path type at or below it (ncclTopoCheckP2p in src/graph/paths.cc: path->type <= level). */
enum p2ps_nccl_path {
	P2PS_NCCL_LOC = 0,
	P2PS_NCCL_NVL, /* NVLink, NVSwitch included */
	P2PS_NCCL_NVB, /* NVLink through an intermediate GPU */
	P2PS_NCCL_C2C,
	P2PS_NCCL_PIX,
	P2PS_NCCL_PXB,
	P2PS_NCCL_P2C,
	P2PS_NCCL_PXN,
	P2PS_NCCL_PHB,
	P2PS_NCCL_SYS,
	P2PS_NCCL_NET,
	P2PS_NCCL_DIS,
	P2PS_NCCL_PATH_COUNT
};
/* "LOC", "NVL", ..., "DIS"; "?" outside the enum. */
const char *p2ps_nccl_path_name(int t);
/* The path type NCCL gives two GPUs of one host of this class (-1 for UNKNOWN). */
int p2ps_nccl_path_of(enum p2ps_topo t);

/* How much a reason weighs in a verdict. */
enum p2ps_severity {
	P2PS_SEV_BLOCKER = 0, /* BAR1 P2P cannot work until fixed */
	P2PS_SEV_UNKNOWN,     /* a fact the verdict needs is unknown; the text says why */
	P2PS_SEV_WARNING,     /* works, but slower or fragile */
	P2PS_SEV_INFO,        /* worth knowing; does not change the verdict */
};
const char *p2ps_severity_name(enum p2ps_severity s); /* "blocker", "unknown", ... */

/* Stable identifiers of findings (JSON "code"). */
enum p2ps_reason_code {
	P2PS_R_BAR1_SMALLER_THAN_VRAM = 0,
	P2PS_R_BAR1_NOT_MAXIMAL, /* VRAM unknown; BAR1 below the largest ReBAR size */
	P2PS_R_BAR1_UNKNOWN,     /* BAR1 size unknown */
	P2PS_R_VRAM_UNKNOWN,
	P2PS_R_BAR_UNASSIGNED,     /* a GPU BAR holds no address */
	P2PS_R_BAR_EXCEEDS_WINDOW, /* GPU BAR larger than the parent bridge's window */
	P2PS_R_IOMMU_TRANSLATING,
	P2PS_R_IOMMU_BLOCKED,
	P2PS_R_IOMMU_UNMANAGED, /* group owned by a VFIO user */
	P2PS_R_IOMMU_UNKNOWN,
	P2PS_R_ACS_REDIRECT,      /* a switch port redirects peer requests upstream */
	P2PS_R_ACS_REDIRECT_ROOT, /* a root port redirects (path crosses the host bridge anyway) */
	P2PS_R_ACS_UNKNOWN,
	P2PS_R_PATH_HOST_BRIDGE,      /* PHB/NODE: through the root complex */
	P2PS_R_PATH_CPU_INTERCONNECT, /* SYS */
	P2PS_R_TOPOLOGY_UNKNOWN,
	P2PS_R_LINK_WIDTH_DOWN,
	P2PS_R_LINK_SPEED_DOWN,
	P2PS_R_LINK_SLOT_LIMIT, /* the upstream port supports less than the GPU */
	P2PS_R_LINK_UNKNOWN,
	P2PS_R_MIXED_GENERATIONS,
	P2PS_R_MIXED_CHIPS,
	P2PS_R_MIXED_MODELS,
	P2PS_R_GENERATION_UNSUPPORTED, /* older than Turing: no open kernel modules */
	P2PS_R_CHIP_UNKNOWN,
	P2PS_R_NVLINK, /* peers already share NVLink: the BAR1 path is moot */
	P2PS_R_DRIVER, /* GPU not bound to nvidia */
	P2PS_R_DRIVER_UNKNOWN,
	P2PS_R_BOOT_VGA,
	P2PS_R_DRIVER_VERSION_MISMATCH,
	P2PS_R_VM,
	P2PS_R_VM_P2P_CLIQUE, /* the hypervisor's GPUDirect P2P clique of each GPU (in a VM) */
	P2PS_R_NCCL_ENV,
	P2PS_R_NEEDS_ROOT,
	P2PS_R_IOMMU_STATE,     /* host summary: IOMMU off / pass-through / translating */
	P2PS_R_NCCL_LEVEL,      /* whether NCCL's P2P level admits this pair's path */
	P2PS_R_LINK_DOWN,       /* the GPU's link, or a bridge's on its path, is down (Width x0) */
	P2PS_R_GDR_PATH,        /* GPUDirect RDMA: what lies between the GPU and the device */
	P2PS_R_GDR_PEER_MEMORY, /* GPUDirect RDMA: nvidia-peermem loaded, or dma-buf usable */
	P2PS_R_GDR_DRIVER_RACE, /* GPUDirect RDMA: a driver with the invalidation-callback race */
	P2PS_R_GDR_BAR1,        /* GPUDirect RDMA: the BAR1 the mappings are pinned in */
	P2PS_R_GDR_NCCL,        /* whether NCCL uses GPUDirect RDMA for a GPU-NIC pair */
	P2PS_R_STATIC_BAR1, /* BAR1 covers VRAM but not what the driver's static BAR1 rule asks */
	P2PS_R_CODE_COUNT,  /* the analysis' own codes end here */

	/* What only a paste shows (paste_report.h: p2ps_paste_observe()). */
	P2PS_PF_DRIVER = P2PS_R_CODE_COUNT, /* driver version and kind (open / proprietary) */
	P2PS_PF_BAR1_P2P_PATH,              /* the driver set up static BAR1 / BAR1-P2P mappings */
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
	P2PS_PF_SYMPTOM,        /* an error or failure the paste shows (error 205, a hang ...) */
	P2PS_PF_NCCL,           /* what NCCL's log says: version, transports, P2P disabled */
	P2PS_PF_SHM,            /* NCCL could not create its shared-memory segment */
	P2PS_PF_ACS_UNPLACED,   /* ACS control values of ports the paste does not name */
	P2PS_PF_UNREAD,         /* blocks recognised but not understood */
	P2PS_PF_P2P_WORKS,      /* positive evidence: P2P works on a pair */
	P2PS_PF_GEFORCE_STOCK,  /* GeForce RTX 40/50 without the P2P-patched driver */
	P2PS_PF_P2P_LATENCY,    /* CUDA: P2P write latency far above the P2P-off one (a stall) */
	P2PS_PF_GDR,            /* NCCL: GPUDirect RDMA on or off per NIC, GDR channels */
	P2PS_PF_PEER_MEMORY,    /* the peer-memory module (nvidia-peermem, nv_peer_mem) */
	P2PS_PF_RELEASE_DEFECT, /* a driver or NCCL release with a known P2P or GDR defect */
	P2PS_PF_RELEASE_AB,     /* two releases in the paste, one works: the release decides */
	P2PS_PF_CODE_END        /* every code, the analysis' and a paste's, is below this */
};
const char *p2ps_reason_code_name(enum p2ps_reason_code c); /* "bar1_smaller_than_vram", ... */
/* The short title of an analysis reason ("IOMMU translates peer DMA"); NULL for a code
 * outside the analysis' own. p2ps_reason_title() looks it up by the JSON "code" (NULL
 * for an unknown name): what bar-inspect --fleet groups its hosts' reasons under. */
const char *p2ps_reason_code_title(enum p2ps_reason_code c);
const char *p2ps_reason_title(const char *code);

#define P2PS_REASON_TEXT_MAX 512
#define P2PS_REASON_FIX_MAX  320

/* One finding: of the analysis (a GPU's, a pair's or the host's reasons) or of a paste's
 * observations (paste_report.h). */
struct p2ps_reason {
	enum p2ps_reason_code code;
	enum p2ps_severity sev;
	int dev_idx; /* host->devs index of the device it is about (GPU or bridge), -1 = host */
	struct p2ps_paste_where from;    /* the paste line it rests on; line 0: none */
	char text[P2PS_REASON_TEXT_MAX]; /* one line, no trailing newline */
	char fix[P2PS_REASON_FIX_MAX];   /* what to do, "" if nothing */
};

/* A growable list of reasons owned by the analysis. */
struct p2ps_reasons {
	size_t n;
	size_t cap;
	struct p2ps_reason *v;
};

/* The IOMMU mode one GPU's DMA goes through. */
enum p2ps_iommu_mode {
	P2PS_IOMMU_UNKNOWN = 0,
	P2PS_IOMMU_OFF,         /* no IOMMU unit registered */
	P2PS_IOMMU_IDENTITY,    /* present, pass-through (identity default domain) */
	P2PS_IOMMU_TRANSLATING, /* DMA or DMA-FQ default domain */
	P2PS_IOMMU_BLOCKED,     /* blocked domain: no DMA at all */
	P2PS_IOMMU_UNMANAGED,   /* owned by a VFIO user (its mappings decide) */
};
const char *p2ps_iommu_mode_name(enum p2ps_iommu_mode m); /* "off", "identity", ... */

#define P2PS_PATH_MAX 32 /* bridge levels followed before declaring a loop */

/* An endpoint of the matrix and the pairs: every NVIDIA GPU, plus the devices named as
 * extra peers (struct p2ps_analysis_opts) — NICs or NVMe for GPUDirect, or stand-ins in
 * test VMs, which cannot emulate an NVIDIA GPU. For a non-NVIDIA peer "BAR1" is its
 * largest prefetchable memory BAR and the GPU-only checks (VRAM, chip, driver) are
 * skipped. The struct keeps its historical name. */
struct p2ps_gpu_report {
	int dev_idx;    /* host->devs index */
	bool is_gpu;    /* an NVIDIA GPU (otherwise an extra peer) */
	int bar1_index; /* BAR register index of the frame-buffer aperture, -1 if none */
	bool bar1_size_known;
	uint64_t bar1_size;
	const char *bar1_size_source; /* "sysfs resource", "ReBAR control", "driver", "" */
	bool bar1_covers_vram;        /* valid when bar1_size_known and VRAM known */
	int rebar_entry;              /* index into dev->rebar.e[] for BAR1, -1 if none */
	uint64_t rebar_max;           /* largest size that entry supports, bytes (0 if none) */

	/* Bridges from the GPU's parent up to the topmost one (a root port, normally). */
	int path[P2PS_PATH_MAX];
	int path_len;
	bool path_looped; /* the parent chain was longer than P2PS_PATH_MAX */

	enum p2ps_iommu_mode iommu;
	double link_cap_gbps; /* per direction; 0 if unknown */
	double link_sta_gbps;
	double port_cap_gbps; /* the GPU's upstream port's capability; 0 if none/unknown */

	struct p2ps_reasons reasons; /* per-GPU findings (these also feed each pair's verdict) */
};

enum p2ps_verdict {
	P2PS_VERDICT_READY = 0,
	P2PS_VERDICT_NOT_READY,
	P2PS_VERDICT_UNKNOWN,
};
const char *p2ps_verdict_name(enum p2ps_verdict v); /* "ready", "not ready", "unknown" */

struct p2ps_pair {
	int a, b; /* indices into analysis->gpus (a < b) */
	enum p2ps_topo topo;
	enum p2ps_topo pcie_topo; /* the PCIe class even when NVLink connects the pair */
	int nvlinks;              /* NVLink count (NV#), 0 if none/unknown */
	int lca_idx;      /* host->devs index of the lowest common bridge, -1: host bridge/none */
	int turn[2];      /* the ports where peer traffic turns (children of the LCA on each
	                   * side), host->devs indices or -1 */
	double pcie_gbps; /* narrowest trained link of the two GPUs, per direction; 0 unknown */
	enum p2ps_verdict verdict;
	bool moot; /* NVLink connects the pair */
	/* What NCCL decides for the pair from the host's facts (ncclTopoCheckP2p): nccl_p2p
	 * 1 when the path lies within NCCL's P2P level (its P2P transport, provided the
	 * driver and CUDA grant peer access), 0 when NCCL copies through host memory (its SHM
	 * transport), -1 unknown; nccl_level the level (enum p2ps_nccl_path, -1 unknown) and
	 * nccl_level_from what set it: "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "default" or
	 * "default on AMD hosts with two GPUs" (NULL when unknown). */
	int nccl_p2p;
	int nccl_level;
	const char *nccl_level_from;
	struct p2ps_reasons reasons;
};

/* GPUDirect RDMA: a GPU and a third-party device that DMAs into its BAR1 — an RDMA NIC
 * found in the model (InfiniBand class, an RDMA vendor's network function, or an RDMA
 * device the kernel lists) or a non-NVIDIA device named as an extra peer (NVMe, FPGA). */
struct p2ps_gdr_pair {
	int gpu;               /* index into analysis->gpus */
	int dev_idx;           /* host->devs index of the device */
	const char *rdma_name; /* the kernel's RDMA device name ("mlx5_0"), or NULL */
	enum p2ps_topo topo;   /* PCIe class of the path between them */
	int lca_idx;           /* lowest common bridge, -1 if they meet at a host bridge */
	int turn[2];           /* ports where the traffic turns (GPU side, device side) */
	enum p2ps_verdict verdict;
	int nccl_gdr; /* 1: NCCL uses GPUDirect RDMA for this pair, 0: not, -1: unknown */
	struct p2ps_reasons reasons;
};
struct p2ps_drv_report; /* include/p2pscope/driver_model.h */
struct p2ps_drv_config;

struct p2ps_analysis {
	const struct p2ps_host *host;
	size_t n_gpus;
	struct p2ps_gpu_report *gpus;
	size_t n_pairs;
	struct p2ps_pair *pairs;
	enum p2ps_topo *matrix;  /* n_gpus * n_gpus, row-major */
	int *nvlink_matrix;      /* n_gpus * n_gpus NVLink counts */
	char iommu_summary[512]; /* "off", "on (intel: dmar0 dmar1), default domain DMA-FQ" */
	char iommu_flags[256];   /* command-line flags that decide the mode, "" if none */
	struct p2ps_reasons host_reasons;
	/* For a host read from a paste (host->evidence): what only the paste shows, its verdict
	 * and what to send next (paste_report.h), computed once here; NULL otherwise. */
	struct p2ps_paste_report *paste;
	size_t n_rdma_devs; /* RDMA-capable devices found (NICs), besides --peers */
	size_t n_gdr;       /* GPU x device pairs for GPUDirect RDMA */
	struct p2ps_gdr_pair *gdr;
	/* The driver model's report (bar-inspect --driver), set by the caller after
	 * p2ps_drv_model_run(); the renderers print it when not NULL. Not owned. */
	const struct p2ps_drv_report *driver;
};

struct p2ps_analysis_opts {
	/* Devices to treat as P2P endpoints besides the NVIDIA GPUs (may repeat a GPU). */
	const struct p2ps_bdf *peers;
	size_t n_peers;
	/* The driver whose static BAR1 rule judges BAR1 (NULL: the host's driver, else the
	 * P2P-patched modules' rule). */
	const struct p2ps_drv_config *driver;
};

/* Analyses host into *out (zeroed first) with options (NULL: defaults). Returns 0, or
 * P2PS_ENOENT when a peer is not in the model, P2PS_ENOMEM; err says which. Always safe
 * to p2ps_analysis_free() afterwards. */
int p2ps_analysis_run_opts(const struct p2ps_host *host, const struct p2ps_analysis_opts *opts,
                           struct p2ps_analysis *out, struct p2ps_error *err);

/* "GPU" for an NVIDIA GPU, "DEV" for an extra peer: the prefix of its matrix label. */
const char *p2ps_endpoint_prefix(const struct p2ps_analysis *a, size_t gi);

/* Analyses host into *out (zeroed first). Returns 0, or a negative P2PS_E* code with err
 * filled (only P2PS_ENOMEM in practice). Always safe to p2ps_analysis_free() afterwards. */
int p2ps_analysis_run(const struct p2ps_host *host, struct p2ps_analysis *out,
                      struct p2ps_error *err);

/* Releases what p2ps_analysis_run allocated and zeroes *a. NULL is fine. */
void p2ps_analysis_free(struct p2ps_analysis *a);

/* The pair for GPUs i and j (either order), or NULL. */
const struct p2ps_pair *p2ps_analysis_pair(const struct p2ps_analysis *a, size_t i, size_t j);

/* Index into a->gpus of the GPU at host->devs[dev_idx], or -1. */
int p2ps_analysis_gpu_of_dev(const struct p2ps_analysis *a, int dev_idx);

/* Pure helpers, exposed for the renderers and tests. */

/* The BAR register index NVIDIA calls BAR1 (frame-buffer aperture): the second memory
 * BAR the device implements (index 1 when BAR0 is 32-bit, 2 when it is 64-bit). -1 if
 * the device has fewer than two memory BARs. */
int p2ps_gpu_bar1_index(const struct p2ps_dev *dev);

/* The ACS control bits that send peer requests or completions up to the root complex
 * (P2P Request Redirect, Completion Redirect, Egress Control) enabled in ctl. */
uint16_t p2ps_acs_redirect_bits(uint16_t ctl);

/* The value to write to ACS Control to stop redirecting: ctl with RR, CR and EC cleared. */
uint16_t p2ps_acs_ctl_without_redirect(uint16_t ctl);

/* Formats the seven ACS bits of reg as "SV+ TB- RR+ CR+ UF+ EC- DT-" into buf. */
char *p2ps_acs_format(uint16_t reg, char *buf, size_t size);

/* Formats a byte count as "256 MiB", "32 GiB", "1.5 GiB" into buf. */
char *p2ps_size_format(uint64_t bytes, char *buf, size_t size);

/* Classifies the path between two devices of the same host (pure tree/NUMA rule; no
 * NVLink). Sets *lca to the lowest common bridge (-1 if they meet only at a host
 * bridge) and turn[0..1] to the ports where traffic turns. */
enum p2ps_topo p2ps_topo_classify(const struct p2ps_host *host, int a, int b, int *lca,
                                  int turn[2]);

#ifdef __cplusplus
}
#endif

#endif
