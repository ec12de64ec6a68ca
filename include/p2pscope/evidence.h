/* SPDX-License-Identifier: MIT */
/* p2pscope: the evidence a bug report's paste holds, as the paste reader hands it to the
 * analysis.
 *
 * The paste reader (paste.h) finds the blocks of a text, reads each with the parser for
 * its syntax and joins what they say: one identity per GPU from every source that names
 * it (nvidia-smi index, CUDA ordinal, PCI address, model name), and each thing a tool
 * printed about a GPU pair as one observation (nvidia-smi's topology class and its P2P
 * code per path, CUDA's peer access, bandwidth and latency, NCCL's transport). Every
 * item carries the line it came from. The host model keeps this evidence
 * (host->evidence); the paste findings (paste_report.h), the driver model and the
 * renderers read it, never the text or the reader's working state.
 *
 * Items are added to these structs, never renamed or removed. A fact the paste does not
 * carry stays unknown: -1, "", or line 0.
 */
#ifndef P2PSCOPE_EVIDENCE_H
#define P2PSCOPE_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- where an item came from ------------------------------------------------------ */

/* The syntaxes a block of a paste can have. */
enum p2ps_paste_kind {
	P2PS_PASTE_LSPCI = 0,    /* lspci text (-v..-vvvv, listings) and hex rows (-x..-xxxx) */
	P2PS_PASTE_LSPCI_TREE,   /* lspci -t / -tv */
	P2PS_PASTE_NVSMI_Q,      /* nvidia-smi -q (whole or grep'd) */
	P2PS_PASTE_NVSMI_TOPO,   /* nvidia-smi topo -m */
	P2PS_PASTE_NVSMI_P2P,    /* nvidia-smi topo -p2p r|w|rw|n|a|p */
	P2PS_PASTE_KERNEL,       /* dmesg / journalctl -k / syslog kernel lines */
	P2PS_PASTE_CMDLINE,      /* /proc/cmdline */
	P2PS_PASTE_IOMMU_GROUPS, /* find /sys/kernel/iommu_groups, "IOMMU Group N" listings */
	P2PS_PASTE_CUDA,         /* CUDA samples and nccl-tests output */
	P2PS_PASTE_NVSMI_TABLE,  /* plain nvidia-smi: the table and its header */
	P2PS_PASTE_NCCL,         /* NCCL_DEBUG=INFO log lines (NCCL INFO / NCCL WARN) */
	P2PS_PASTE_ERRORS,       /* CUDA error lines, PyTorch RuntimeError, watchdog timeouts */
	P2PS_PASTE_SETPCI,       /* raw setpci reads (ECAP_ACS+6.w -> 001d) */
	P2PS_PASTE_COLLECT_ENV,  /* python -m torch.utils.collect_env */
	P2PS_PASTE_NCCL_TOPO,    /* NCCL's XML topology (NCCL_TOPO_DUMP_FILE) */
	P2PS_PASTE_TEXT,         /* not recognised: skipped */
	/* What a report says about its environment: a list ("- GPU: 2x RTX 4090", "Driver:
	 * 550.54"), nvidia-smi --version, lscpu, /proc/cpuinfo, /proc/driver/nvidia's version
	 * and gpus/BDF/information, ggml's device lines. */
	P2PS_PASTE_ENVIRONMENT,
	P2PS_PASTE_MODULES, /* loaded kernel modules (lsmod, /proc/modules) */
	P2PS_PASTE_KIND_COUNT
};
const char *p2ps_paste_kind_name(enum p2ps_paste_kind k); /* "lspci", "nvidia-smi -q", ... */

/* Where an item came from: block index into the evidence's blocks and the 1-based line
 * of the paste. block -1 / line 0: nowhere (unknown). */
struct p2ps_paste_where {
	int block;
	int line;
};

/* A block: a run of lines of one syntax, read with its parser or skipped. */
struct p2ps_paste_block {
	enum p2ps_paste_kind kind;
	int first_line; /* 1-based, inclusive */
	int last_line;
	char command[128]; /* the shell command written before it, or the bug-report section
	                    * header it sits under ("/usr/bin/lspci -t"); "" if none */
	char summary[192]; /* what was read ("2 devices, 6 BARs") or why it was skipped */
	bool cut;          /* ends early: an excerpt, "[...]", a line cut mid-way */
	int facts;         /* facts taken from it */
};

/* ---- GPUs --------------------------------------------------------------------------- */

/* A GPU, joined from every source that names it. */
struct p2ps_paste_gpu {
	int smi;        /* nvidia-smi index (topo GPUn, n-th -q section), -1 unknown */
	int cuda;       /* CUDA device ordinal, -1 unknown */
	bool bdf_known; /* address known (CUDA gives domain:bus:device; function 0) */
	struct p2ps_bdf bdf;
	char name[96];   /* product name ("NVIDIA GeForce RTX 5090") */
	bool bar1_known; /* nvidia-smi -q BAR1 Memory Usage Total */
	uint64_t bar1;
	struct p2ps_paste_where bar1_from;
	bool vram_known; /* nvidia-smi -q FB Memory Usage Total */
	uint64_t vram;
	struct p2ps_paste_where vram_from;
	struct p2ps_link link_max; /* nvidia-smi -q PCIe generation / link width (0 unknown) */
	struct p2ps_link link_cur;
	struct p2ps_paste_where link_from;
	int display; /* display attached/active per nvidia-smi: 1, 0, -1 unknown */
	const struct p2ps_nvidia_chip *chip; /* its chip-table row by its name, NULL */
	/* Known only by its model in a list ("- GPU: 2x RTX 4090"): the n-th of them, from
	 * 0; -1 for a GPU some tool numbers or addresses. */
	int listed;
	struct p2ps_paste_where named_from; /* the first line that names it, nowhere */
};

/* ---- what a tool printed about a GPU pair -------------------------------------------- */

/* The matrices and per-pair lines the paste can hold; each cell is one observation. */
enum p2ps_paste_matrix_kind {
	P2PS_PM_TOPO = 0,     /* nvidia-smi topo -m (GPU columns only) */
	P2PS_PM_P2P,          /* nvidia-smi topo -p2p MODE */
	P2PS_PM_CUDA_ACCESS,  /* "Device=i CAN/CANNOT Access Peer Device=j": "1"/"0" */
	P2PS_PM_CUDA_CONNECT, /* P2P Connectivity Matrix */
	P2PS_PM_BW_UNI_OFF,   /* Unidirectional P2P=Disabled Bandwidth (GB/s) */
	P2PS_PM_BW_UNI_ON,
	P2PS_PM_BW_BI_OFF,
	P2PS_PM_BW_BI_ON,
	P2PS_PM_LAT_OFF, /* P2P=Disabled Latency (us), GPU part */
	P2PS_PM_LAT_ON,
	P2PS_PM_NCCL, /* NCCL's transport per CUDA device pair: "P2P", "SHM", "NET" */
	/* nvbandwidth's copies between GPUs (its device_to_device tests, GB/s; "N/A" where it
	 * copied nothing): it runs them only between GPUs with peer access. */
	P2PS_PM_D2D,
	P2PS_PM_COUNT
};
const char *p2ps_paste_matrix_name(enum p2ps_paste_matrix_kind k);

#define P2PS_PASTE_CELL 12

/* One cell: what one source printed for the directed pair a -> b (row a, column b). */
struct p2ps_pair_obs {
	enum p2ps_paste_matrix_kind kind;
	int a, b; /* indices into evidence->gpus */
	/* nvidia-smi topo -p2p: the path the code is for, as the mode letter the command
	 * took ('r' read, 'w' write, 'n' NVLink, 'a' atomics, 'p' prop); 0 when the paste
	 * does not say or for other kinds. One observation per path. */
	char path;
	char text[P2PS_PASTE_CELL]; /* as printed: "OK", "CNS", "NV4", "24.85", "1", "P2P" */
	struct p2ps_paste_where from;
};

/* A matrix as a whole: whether the paste holds one, its size and where it starts. */
struct p2ps_paste_matrix_info {
	bool present;
	char mode[8]; /* topo -p2p: r, w, rw, n, a, p ("" unknown) */
	int n;        /* GPUs: columns of the header */
	bool ragged;  /* a row did not match the header's column count */
	struct p2ps_paste_where from;
};

/* ---- what the kernel logged --------------------------------------------------------- */

enum p2ps_paste_event_kind {
	P2PS_PE_DRIVER_LOAD = 0,  /* NVRM: loading NVIDIA UNIX [Open] Kernel Module ... VERSION */
	P2PS_PE_STATIC_BAR1,      /* NVRM: ... Static bar1 mapped offset 0x0 size 0x... */
	P2PS_PE_BAR1_P2P_MAPPING, /* NVRM: ... added PCIe BAR1 P2P mapping between GPUa and GPUb */
	P2PS_PE_PEER_DMA_UNALIGNED, /* NVRM: The peer DMA address 0x.. is not aligned at 0x.. */
	P2PS_PE_IOMMU_MAP_FAILED,   /* NVRM: IOMMU mapping failed from GPUa to GPUb */
	P2PS_PE_ASSERT,             /* NVRM: nvAssertFailed: ... */
	P2PS_PE_XID,                /* NVRM: Xid (PCI:...): N, ... [MMU Fault ... type ...] */
	P2PS_PE_IOMMU_FAULT,        /* AMD-Vi IO_PAGE_FAULT, DMAR fault */
	P2PS_PE_IOMMU_ON,           /* DMAR: IOMMU enabled, AMD-Vi: ... IOMMU ... */
	P2PS_PE_DEFAULT_DOMAIN,     /* iommu: Default domain type: Translated|Passthrough */
	P2PS_PE_BAR1_INVALID,       /* NVRM: BAR1 is 0M @ 0x0, or BAR n: no space / can't assign */
	P2PS_PE_HYPERVISOR,         /* Hypervisor detected: KVM */
	P2PS_PE_COUNT
};

#define P2PS_PASTE_MAX_EVENTS 256 /* stored; counts go on */

struct p2ps_paste_event {
	enum p2ps_paste_event_kind kind;
	struct p2ps_paste_where from;
	bool bdf_known;
	struct p2ps_bdf bdf;
	uint64_t a, b;    /* per kind: address and alignment, offset and size, Xid number */
	int gpu_a, gpu_b; /* NVRM's GPU instance numbers, -1 */
	char detail[96];  /* fault type, IOMMU kind, domain type, module version */
	char text[256];   /* the message from its tag on ("NVRM: ...") */
};

/* ---- what the tests and applications printed --------------------------------------- */

struct p2ps_paste_cuda {
	char test[48]; /* "p2pBandwidthLatencyTest", "simpleP2P", "nccl-tests" */
	int result;    /* 1 passed, 0 failed, -1 not in the paste */
	bool waived;   /* simpleP2P: "waiving test" (no peer access) */
	int verify_errors;
	struct p2ps_paste_where first_error;
	char first_error_text[128];
	double memcpy_gbps; /* simpleP2P "cudaMemcpyPeer / cudaMemcpy between ...: X GB/s", 0 */
	double nccl_busbw;  /* nccl-tests "# Avg bus bandwidth", 0 */
	struct p2ps_paste_where nccl_header; /* nccl-tests' result table header, nowhere */
	int nccl_rows;                       /* result rows after it */
	/* Wrong values nccl-tests counted in its rows (the #wrong or res columns); -1 when no
	 * row says (validation off: "N/A"). */
	int nccl_wrong;
	struct p2ps_paste_where from;
	/* simpleP2P: the pair "Enabling peer access between GPUa and GPUb" names (CUDA
	 * ordinals; -1 not in the paste) and where; simpleP2P only gets there once both
	 * directions allow peer access. */
	int enabled_a, enabled_b;
	struct p2ps_paste_where enabled_from;
	struct p2ps_paste_where result_from; /* the "Test passed" / "Test failed" line */
};

/* What went wrong, as error lines, NCCL's log and the tests printed it. */
enum p2ps_paste_symptom {
	P2PS_PS_MAP_FAILED = 0,   /* 'mapping of buffer object failed' (CUDA error 205) */
	P2PS_PS_PEER_UNSUPPORTED, /* 'peer access is not supported between these two devices' */
	P2PS_PS_ILLEGAL_ACCESS,   /* 'an illegal memory access was encountered' (700) */
	P2PS_PS_WRONG_DATA,       /* verification errors, tensors that arrive as zeros */
	P2PS_PS_HANG,             /* a collective that timed out (watchdog, NCCL timeout) */
	P2PS_PS_P2P_DISABLED,     /* NCCL: "P2P is disabled between connected GPUs" */
	P2PS_PS_SHM,              /* NCCL: a shared-memory segment could not be created */
	P2PS_PS_CUDA_ERROR,       /* another CUDA or NCCL error */
	P2PS_PS_NET_ERROR,        /* NCCL: the NIC completed a transfer with an error */
	P2PS_PS_GDR_PIN,          /* gdrcopy: GPU memory could not be pinned for a device */
	P2PS_PS_TOO_MANY_PEERS,   /* 'peer mapping resources exhausted' (CUDA error 711) */
	P2PS_PS_GDR_REG,          /* a NIC could not register GPU memory (perftest --use_cuda) */
	P2PS_PS_COUNT
};
const char *p2ps_paste_symptom_name(enum p2ps_paste_symptom s); /* "map_failed", ... */

struct p2ps_paste_symptoms {
	int count[P2PS_PS_COUNT];
	struct p2ps_paste_where first[P2PS_PS_COUNT];
	char text[P2PS_PS_COUNT][160]; /* the first line, from its message on */
};

/* NCCL's log. */
enum p2ps_paste_nccl_via { P2PS_NV_P2P = 0, P2PS_NV_SHM, P2PS_NV_NET, P2PS_NV_COUNT };

struct p2ps_paste_nccl {
	char version[32]; /* "2.18.3+cuda12.1", "" */
	struct p2ps_paste_where version_from;
	int via[P2PS_NV_COUNT]; /* channel connections per transport */
	struct p2ps_paste_where via_from[P2PS_NV_COUNT];
	char p2p_how[24]; /* "P2P/IPC", "P2P/CUMEM", "P2P/direct pointer", "" */
	int intra_p2p;    /* "intraNodeP2pSupport 0|1", -1 not logged */
	int n_env;        /* NCCL_* variables NCCL logged as set */
	char env[8][128]; /* "NCCL_P2P_DISABLE=1" */
	/* GPUDirect RDMA: network channels NCCL ran with GPU memory registered on the NIC
	 * ("via NET/IB/0/GDRDMA"), and the NICs it names with GPUDirect RDMA on or off
	 * ("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"). */
	int via_gdr;
	int gdr_enabled, gdr_disabled;
	struct p2ps_paste_where gdr_disabled_from;
	char gdr_disabled_text[128]; /* the first such line, from "NET/" on */
	bool gdr_dmabuf;             /* "GPU Direct RDMA (DMABUF) enabled" */
	/* Network connections that receive without GPUDirect RDMA ("[receive] via NET/IB/1"):
	 * where others use it, the host they end on lacks it (NCCL writes into GPU memory
	 * over GPUDirect RDMA by default; only its reads from GPU memory may be off). */
	int recv_no_gdr;
	struct p2ps_paste_where recv_no_gdr_from;
	/* "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856": this NCCL build
	 * needs more shared memory per block than the GPU has (it cannot run its kernels). */
	int shared_mem_short;
	struct p2ps_paste_where shared_mem_from;
};

/* ACS lines (lspci's ACSCtl, grep'd) and raw ACS control reads the paste ties to no
 * device. */
struct p2ps_paste_acs_loose {
	int lines;    /* ACS control values read */
	int redirect; /* of them with request or completion redirect on */
	struct p2ps_paste_where first;
	char first_text[128];
};

/* Facts about the whole host. */
struct p2ps_paste_host {
	bool cmdline_known;
	char cmdline[1024];
	struct p2ps_paste_where cmdline_from;
	bool iommu_known;    /* whether an IOMMU translates is known (groups listed or logged) */
	bool iommu_present;  /* valid when iommu_known */
	char iommu_kind[16]; /* "intel", "amd", "" */
	struct p2ps_paste_where iommu_from;
	int iommu_groups;        /* distinct groups listed, -1 no listing */
	char default_domain[16]; /* "DMA", "identity" from the kernel log, "" */
	char driver_version[64]; /* NVIDIA driver version (NVRM load line, nvidia-smi -q) */
	struct p2ps_paste_where driver_from;
	int driver_open;  /* 1 open kernel modules, 0 proprietary, -1 unknown */
	char kernel[128]; /* the kernel release (uname -a, a bug report's prologue), "" */
	bool vm;          /* a guest: the log names a hypervisor, WSL2, GPUs on bus 0 */
	char hypervisor[32];
	char vm_from[32];         /* what says so: "kernel log", "WSL2 in the paste", ... */
	struct p2ps_host_cpu cpu; /* an NCCL topology's <cpu>, lscpu, /proc/cpuinfo */
	/* Loaded kernel modules, where the paste lists them (lsmod, /proc/modules, a
	 * bug report): 1 loaded, 0 listed without it, -1 no module list. */
	int modules_listed;
	struct p2ps_paste_where modules_from;
	int nvidia_peermem, nv_peer_mem;
};

/* A release of a piece of software the paste names (the driver, NCCL), and what the
 * lines after it, up to the next release of the same software, show. */
enum p2ps_paste_software { P2PS_SW_DRIVER = 0, P2PS_SW_NCCL, P2PS_SW_COUNT };
const char *p2ps_paste_software_name(enum p2ps_paste_software s); /* "driver", "NCCL" */

#define P2PS_PASTE_MAX_RELEASES 8

struct p2ps_paste_release {
	enum p2ps_paste_software sw;
	char version[32];
	struct p2ps_paste_where from;
	int worked; /* lines after it: a test passed, P2P beat host copies, a result table */
	int failed; /* lines after it: an error, a hang, wrong data, a failed test */
	struct p2ps_paste_where failed_from;
};

/* A device's facts as the paste states them: where each came from, and what the analysis
 * cannot use from it. */
enum p2ps_paste_dfact {
	P2PS_PD_IDENT = 0, /* vendor/device ids or names */
	P2PS_PD_CLASS,
	P2PS_PD_BARS,
	P2PS_PD_LINK,
	P2PS_PD_ACS,
	P2PS_PD_REBAR,
	P2PS_PD_BRIDGE, /* bus numbers, windows */
	P2PS_PD_DRIVER,
	P2PS_PD_NUMA,
	P2PS_PD_IOMMU_GROUP,
	P2PS_PD_PARENT,
	P2PS_PD_CAPS, /* capability list (or "access denied") */
	P2PS_PD_COUNT
};
const char *p2ps_paste_dfact_name(enum p2ps_paste_dfact f); /* "bars", "link", ... */

struct p2ps_paste_dev_facts {
	struct p2ps_bdf bdf;
	char bdf_str[16];
	struct p2ps_paste_where from[P2PS_PD_COUNT];
	bool vendor_known; /* vendor known (ids or a vendor name lspci prints) */
	bool caps_denied;  /* "Capabilities: <access denied>" */
	int iommu_faults;  /* IOMMU faults the kernel logged for it */
	struct p2ps_rebar rebar;
};

/* ---- the evidence -------------------------------------------------------------------- */

#define P2PS_PASTE_MAX_GPUS 64 /* GPUs a paste may name (more: the rest not used) */

struct p2ps_evidence {
	char source[256]; /* file name or "-" */
	int lines;        /* lines read */
	struct p2ps_paste_block *blocks;
	size_t n_blocks;
	size_t blocks_dropped; /* blocks past the storage limit (counted, not kept) */
	int unread_blocks;     /* blocks recognised but not understood (their summary says why) */
	bool bug_report;       /* the text is an nvidia-bug-report.log */
	/* The paste holds more than one host's output (two topology matrices of different
	 * sizes, NCCL lines from several hosts). */
	bool several_hosts;

	struct p2ps_paste_gpu *gpus; /* one per GPU the paste names, joined */
	size_t n_gpus;
	size_t gpus_dropped; /* NVIDIA GPUs beyond P2PS_PASTE_MAX_GPUS, not used */

	struct p2ps_pair_obs *obs; /* sorted by kind, a, b, path */
	size_t n_obs;
	struct p2ps_paste_matrix_info matrix[P2PS_PM_COUNT];

	struct p2ps_paste_dev_facts *devs; /* the PCI functions the paste names, by address */
	size_t n_devs;

	struct p2ps_paste_event *events;
	size_t n_events;
	int event_count[P2PS_PE_COUNT];

	struct p2ps_paste_cuda cuda;
	struct p2ps_paste_host host;
	struct p2ps_paste_nccl nccl;
	struct p2ps_paste_symptoms sym;
	struct p2ps_paste_acs_loose acs_loose;
	struct p2ps_paste_release releases[P2PS_PASTE_MAX_RELEASES];
	size_t n_releases;
};

/* Frees what the evidence owns and zeroes it. */
void p2ps_evidence_free(struct p2ps_evidence *ev);

/* The first observation of kind k for the directed pair a -> b (any path), or NULL. */
const struct p2ps_pair_obs *p2ps_evidence_obs(const struct p2ps_evidence *ev,
                                              enum p2ps_paste_matrix_kind k, int a, int b);
/* The topo -p2p observation of a -> b for one path ('r', 'w', ...), or NULL. */
const struct p2ps_pair_obs *p2ps_evidence_obs_path(const struct p2ps_evidence *ev, int a, int b,
                                                   char path);
/* Its text, or NULL (a cell the paste does not have). */
const char *p2ps_evidence_cell(const struct p2ps_evidence *ev, enum p2ps_paste_matrix_kind k, int a,
                               int b);

/* Index of the GPU with nvidia-smi index / CUDA ordinal / address i, or -1. */
int p2ps_evidence_gpu_smi(const struct p2ps_evidence *ev, int smi);
int p2ps_evidence_gpu_cuda(const struct p2ps_evidence *ev, int cuda);
int p2ps_evidence_gpu_bdf(const struct p2ps_evidence *ev, const struct p2ps_bdf *b);

/* The device facts of an address, or NULL. */
const struct p2ps_paste_dev_facts *p2ps_evidence_dev(const struct p2ps_evidence *ev,
                                                     const struct p2ps_bdf *b);

/* "line 12 (block 3, lspci)" into buf; "" when w names nothing. */
char *p2ps_evidence_where_format(const struct p2ps_evidence *ev, struct p2ps_paste_where w,
                                 char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
