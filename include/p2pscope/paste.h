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
 *   1. reading   - struct p2ps_paste (this header): the reader's working facts, block by
 *                  block: devices as the host model's own struct p2ps_dev, GPUs as each
 *                  tool numbers them, matrices as printed, kernel events, host facts;
 *   2. evidence  - p2ps_paste_evidence() joins them (one identity per GPU from every
 *                  source, a matrix cell as an observation of a GPU pair) into struct
 *                  p2ps_evidence (evidence.h), which the host model keeps; the paste
 *                  backend also fills struct p2ps_host from the facts, so the analysis
 *                  runs unchanged on a pasted machine;
 *   3. findings  - p2ps_paste_observe() (paste_report.h) reads the evidence only.
 *
 * An nvidia-bug-report.log (plain or gzip-compressed, as nvidia-bug-report.sh writes it)
 * is a paste too: its sections go to the same parsers.
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
#include "p2pscope/evidence.h"
#include "p2pscope/host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest paste read (bytes); longer input is refused with P2PS_EINVAL. */
#define P2PS_PASTE_MAX_BYTES (256u << 20)

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

#define P2PS_PASTE_MAX_DEVS 1024 /* PCI functions a paste may name */

struct p2ps_paste_matrix {
	bool present;
	char mode[8]; /* topo -p2p: r, w, rw, n, a, p ("" unknown); latency: "writes"/"reads" */
	int n;        /* GPUs: columns of the header */
	char (*cell)[P2PS_PASTE_CELL]; /* n*n, row-major, owned */
	int rows;                      /* rows read */
	bool ragged;                   /* a row did not match the header's column count */
	struct p2ps_paste_where from;
	int *row_line; /* n: the line each row came from, 0 unknown; owned */
};

/* GPUs a list names by model only ("- GPU: 2x RTX 4090"); read.c joins them with the
 * GPUs other lines name, or adds them. */
#define P2PS_PASTE_MAX_LISTED 16

struct p2ps_paste_listed {
	char name[96];
	int count;
	struct p2ps_paste_where from;
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
	/* Further topo -p2p matrices, one per path the first (m[P2PS_PM_P2P]) does not
	 * print: a paste with "topo -p2p r" then "topo -p2p p" keeps both. */
	struct p2ps_paste_matrix p2p_more[5]; /* r, w, n, a, p */
	size_t n_p2p_more;

	struct p2ps_paste_event *events;
	size_t n_events;
	int event_count[P2PS_PE_COUNT];

	struct p2ps_paste_cuda cuda;
	struct p2ps_paste_host host;
	struct p2ps_paste_nccl nccl;
	struct p2ps_paste_symptoms sym;
	struct p2ps_paste_acs_loose acs_loose;
	int unread_blocks; /* blocks recognised but not understood (their summary says why) */
	struct p2ps_paste_release releases[P2PS_PASTE_MAX_RELEASES];
	size_t n_releases;
	bool bug_report;    /* the text is an nvidia-bug-report.log */
	bool several_hosts; /* output of more than one host (evidence.h) */
	struct p2ps_paste_listed listed[P2PS_PASTE_MAX_LISTED];
	int n_listed;
};

/* Reads text (len bytes, need not be NUL-terminated) into *out (zeroed first). source
 * names it in messages. Returns 0 with every recognised block read (an empty or
 * unrecognised paste is not an error: its blocks say why they were skipped), or
 * P2PS_EINVAL for binary data or input over P2PS_PASTE_MAX_BYTES, P2PS_ENOMEM; err says
 * which. Always safe to p2ps_paste_free() afterwards. */
int p2ps_paste_parse(const char *text, size_t len, const char *source, struct p2ps_paste *out,
                     struct p2ps_error *err);

/* Reads a file ("-" for stdin) and parses it; gzip-compressed input (an
 * nvidia-bug-report.log.gz) is inflated first, up to P2PS_PASTE_MAX_BYTES. Errors as
 * above, plus P2PS_ENOENT / P2PS_EACCES / P2PS_EIO for the file, P2PS_EINVAL for a
 * damaged gzip stream. */
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

/* The evidence of a parsed paste (evidence.h): its blocks, the GPUs joined, every matrix
 * cell as a pair observation, the device provenance, events, symptoms and host facts.
 * Returns 0 or P2PS_ENOMEM (err says so); *out is always safe to p2ps_evidence_free(). */
int p2ps_paste_evidence(const struct p2ps_paste *p, struct p2ps_evidence *out,
                        struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
