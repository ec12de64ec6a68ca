/* SPDX-License-Identifier: MIT */
/* p2pscope: what users paste into bug reports, read back into facts.
 *
 * A paste is one text with any mix of `lspci` output (-v .. -vvvv, -nn, -k, -D, -t, -x ..
 * -xxxx), `nvidia-smi -q`, `nvidia-smi topo -m` / `-p2p`, kernel log lines (dmesg,
 * journalctl -k), /proc/cmdline, IOMMU group listings and CUDA sample output
 * (p2pBandwidthLatencyTest, simpleP2P, nccl-tests), in any order, with shell prompts,
 * markdown fences, quotes and prose around them. p2ps_paste_parse() finds the blocks it
 * recognises, reads each with the parser for its syntax and keeps every fact with where
 * it came from (block and line). Nothing is guessed: a fact the paste does not carry stays
 * unknown with the reason ("lspci ran without root: capabilities denied").
 *
 * Three layers:
 *   1. facts     - struct p2ps_paste (this header): devices as the host model's own
 *                  struct p2ps_dev, GPUs as nvidia-smi and CUDA number them, matrices,
 *                  kernel events, host facts, each with its p2ps_paste_where;
 *   2. host      - the paste backend fills struct p2ps_host from these facts, so the
 *                  analysis runs unchanged on a pasted machine;
 *   3. findings  - p2ps_paste_observe() adds what only a paste shows (what the driver
 *                  logged, what CUDA measured, what nvidia-smi itself says per pair), says
 *                  where that disagrees with the analysis, and lists what to send next.
 *
 * Parsing is linear in the size of the text; any byte sequence gives either a clear
 * error (binary data) or a report of what was read.
 */
#ifndef P2PSCOPE_PASTE_H
#define P2PSCOPE_PASTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest paste read (bytes); longer input is refused with P2PS_EINVAL. */
#define P2PS_PASTE_MAX_BYTES (256u << 20)

/* The syntaxes a block can have. */
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
	P2PS_PASTE_KIND_COUNT
};
const char *p2ps_paste_kind_name(enum p2ps_paste_kind k); /* "lspci", "nvidia-smi -q", ... */

/* Where a fact came from: block index into paste->blocks and the 1-based line of the
 * paste. block -1 / line 0: nowhere (unknown). */
struct p2ps_paste_where {
	int block;
	int line;
};

struct p2ps_paste_block {
	enum p2ps_paste_kind kind;
	int first_line; /* 1-based, inclusive */
	int last_line;
	char command[128]; /* the shell command written before it ("" if none) */
	char summary[192]; /* what was read ("2 devices, 6 BARs") or why it was skipped */
	bool cut;          /* ends early: an excerpt, "[...]", a line cut mid-way */
	int facts;         /* facts taken from it */
};

/* Facts of a device and where each came from. */
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

/* A PCI function the paste names. d holds the facts in the host model's own form (so the
 * backend copies it); the flags say how much of the lspci block was there. */
struct p2ps_paste_dev {
	struct p2ps_dev d;
	struct p2ps_paste_where from[P2PS_PD_COUNT];
	bool ids_known;      /* numeric vendor and device ids read ([10de:2684], "Device 2684") */
	bool vendor_known;   /* vendor known (ids or a vendor name lspci prints) */
	bool class_known;    /* class known ([0302], or a class name lspci prints) */
	bool in_text;        /* described by an lspci text block (not only a tree or log) */
	int verbosity;       /* lspci text: 0 one-line listing, 1 -v, 2 -vv and more */
	bool caps_denied;    /* "Capabilities: <access denied>" */
	bool caps_seen;      /* some capability line was read */
	bool ext_caps_seen;  /* an extended capability ([100+]) was read */
	bool express_seen;   /* PCI Express capability line */
	bool cut;            /* its lspci block ends early */
	bool complete;       /* its lspci block ran to its natural end (driver line or next) */
	bool from_hex;       /* config bytes from an lspci -x block */
	bool driver_line;    /* "Kernel driver in use" read */
	bool link_down_seen; /* LnkSta Width x0 */
	bool windows_seen;   /* a bridge window line ("Memory behind bridge", a kernel log's) */
	bool gpu_named;      /* the driver's log, nvidia-smi or CUDA calls it a GPU */
	int iommu_faults;    /* IOMMU faults the kernel logged for it */
	char name[160];      /* "NVIDIA Corporation AD102 [GeForce RTX 4090]" as printed */
};

/* A GPU as nvidia-smi and CUDA number it. */
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
};

/* A GPU-by-GPU matrix as printed. Cells are kept as text ("NV18", "PIX", "OK", "CNS",
 * "1", "24.85"); "" where the paste has no cell. */
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
	P2PS_PM_COUNT
};
const char *p2ps_paste_matrix_name(enum p2ps_paste_matrix_kind k);

#define P2PS_PASTE_MAX_GPUS 64   /* GPUs a paste may name (more: the rest not used) */
#define P2PS_PASTE_MAX_DEVS 1024 /* PCI functions a paste may name */
#define P2PS_PASTE_CELL     12

struct p2ps_paste_matrix {
	bool present;
	char mode[8]; /* topo -p2p: r, w, rw, n, a, p ("" unknown); latency: "writes"/"reads" */
	int n;        /* GPUs: columns of the header */
	char (*cell)[P2PS_PASTE_CELL]; /* n*n, row-major, owned */
	int rows;                      /* rows read */
	bool ragged;                   /* a row did not match the header's column count */
	struct p2ps_paste_where from;
};

/* Lines of the kernel log that decide something. */
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

/* What CUDA's samples said. */
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
	struct p2ps_paste_where from;
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
	int driver_open; /* 1 open kernel modules, 0 proprietary, -1 unknown */
	bool vm;         /* the log names a hypervisor */
	char hypervisor[32];
	struct p2ps_host_cpu cpu; /* an NCCL topology's <cpu> (arch, vendor, family, model) */
};

struct p2ps_paste {
	char source[256]; /* file name or "-" */
	int lines;        /* lines read */
	struct p2ps_paste_block *blocks;
	size_t n_blocks;
	size_t blocks_dropped; /* blocks past the storage limit (counted, not kept) */

	struct p2ps_paste_dev *devs;
	size_t n_devs;
	size_t gpus_dropped; /* NVIDIA GPUs beyond P2PS_PASTE_MAX_GPUS, not used */
	struct p2ps_paste_gpu gpus[P2PS_PASTE_MAX_GPUS];
	size_t n_gpus;
	struct p2ps_paste_matrix m[P2PS_PM_COUNT];

	struct p2ps_paste_event *events;
	size_t n_events;
	int event_count[P2PS_PE_COUNT];

	struct p2ps_paste_cuda cuda;
	struct p2ps_paste_host host;
	struct p2ps_paste_nccl nccl;
	struct p2ps_paste_symptoms sym;
	struct p2ps_paste_acs_loose acs_loose;
	int unread_blocks; /* blocks recognised but not understood (their summary says why) */
};

/* Reads text (len bytes, need not be NUL-terminated) into *out (zeroed first). source
 * names it in messages. Returns 0 with every recognised block read (an empty or
 * unrecognised paste is not an error: its blocks say why they were skipped), or
 * P2PS_EINVAL for binary data or input over P2PS_PASTE_MAX_BYTES, P2PS_ENOMEM; err says
 * which. Always safe to p2ps_paste_free() afterwards. */
int p2ps_paste_parse(const char *text, size_t len, const char *source, struct p2ps_paste *out,
                     struct p2ps_error *err);

/* Reads a file ("-" for stdin) and parses it. Errors as above, plus P2PS_ENOENT /
 * P2PS_EACCES / P2PS_EIO for the file. */
int p2ps_paste_load(const char *path, struct p2ps_paste *out, struct p2ps_error *err);

void p2ps_paste_free(struct p2ps_paste *p);

/* Device by address, or NULL. */
struct p2ps_paste_dev *p2ps_paste_find_dev(const struct p2ps_paste *p, const struct p2ps_bdf *b);

/* The GPU with nvidia-smi index / CUDA ordinal i, or NULL. */
const struct p2ps_paste_gpu *p2ps_paste_gpu_smi(const struct p2ps_paste *p, int i);
const struct p2ps_paste_gpu *p2ps_paste_gpu_cuda(const struct p2ps_paste *p, int i);

/* Cell (row i, column j) of a matrix, or NULL when the paste has none. */
const char *p2ps_paste_cell(const struct p2ps_paste *p, enum p2ps_paste_matrix_kind k, int i,
                            int j);

/* "block 3 (lspci), line 12" into buf; "" when w names nothing. */
char *p2ps_paste_where_format(const struct p2ps_paste *p, struct p2ps_paste_where w, char *buf,
                              size_t size);

#ifdef __cplusplus
}
#endif

#endif
