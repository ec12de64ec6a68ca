/* SPDX-License-Identifier: MIT */
/* Private interfaces of the paste reader (not installed): the line iterator over the
 * normalised text, the line classes the block finder uses, the per-syntax parsers and
 * the small scanning helpers they share. */
#ifndef P2PS_PASTE_INTERNAL_H
#define P2PS_PASTE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "p2pscope/paste.h"

/* ---- lines ---------------------------------------------------------------------- */

/* One line of the normalised paste: NUL-terminated, no trailing CR, ANSI escapes and
 * a leading markdown quote ("> ") removed. no is 1-based. */
struct pl_line {
	char *s;
	size_t n;
	int no;
};

/* Lines first..last, starting at start (the text of line `first`). */
struct pl_span {
	char *start;
	int first;
	int last;
};

/* Iterates a span; returns false after its last line. */
struct pl_iter {
	char *p;
	int no;
	int last;
};

static inline void pl_iter_init(struct pl_iter *it, const struct pl_span *sp)
{
	it->p = sp->start;
	it->no = sp->first;
	it->last = sp->last;
}

bool pl_next(struct pl_iter *it, struct pl_line *out);

/* Bytes from the span's first line to the end of its last (lines separated by NULs). */
size_t pt_span_len(const struct pl_span *sp);

/* Normalises buf (len bytes plus a NUL the caller reserved) in place into NUL-separated
 * lines; returns how many. */
int pt_normalize(char *buf, size_t len);

/* Whether the bytes look like binary data rather than text (NUL, many control bytes). */
bool pt_is_binary(const char *s, size_t len);

/* Whether the bytes start a gzip stream (an nvidia-bug-report.log.gz). */
bool pt_is_gzip(const char *s, size_t len);
/* Inflates every gzip member of in into *out (malloc'd, *out_len bytes, room for a NUL
 * after them), at most P2PS_PASTE_MAX_BYTES. Returns 0, or P2PS_EINVAL for damaged or
 * cut-off data and output past the limit, P2PS_ENOMEM; err names source. */
int pt_gunzip(const char *in, size_t in_len, const char *source, char **out, size_t *out_len,
              struct p2ps_error *err);
/* The same with the limit given (tests). */
int pt_gunzip_max(const char *in, size_t in_len, const char *source, size_t max, char **out,
                  size_t *out_len, struct p2ps_error *err);

/* ---- scanning helpers ------------------------------------------------------------- */

const char *pt_skip_ws(const char *s);
static inline bool pt_starts(const char *s, const char *prefix)
{
	/* The first byte first: most lines are read against many prefixes. */
	return !prefix[0] || (s[0] == prefix[0] && !strncmp(s, prefix, strlen(prefix)));
}
/* Leading whitespace width (a tab counts 8). */
int pt_indent(const char *s);
/* Hex number at s (optional 0x); *end after it. false if no digit or more than 16. */
bool pt_hex(const char *s, uint64_t *v, const char **end);
/* Decimal number; false if none. */
bool pt_dec(const char *s, long *v, const char **end);
/* A PCI address "[DDDD:]BB:DD.F" at s, followed by a non-address character. */
bool pt_bdf(const char *s, struct p2ps_bdf *b, bool *has_domain, const char **end);
/* lspci's sizes: "16M", "512K", "32G", "128" (bytes), "256MB", "1GB", "2TB". */
bool pt_size(const char *s, uint64_t *bytes, const char **end);
/* A decimal fraction after blanks ("  23.45 GB/s" -> 23.45); 0 if none. */
double pt_number(const char *s);
/* Link speed "2.5GT/s", "32 GT/s", "16.0 GT/s" -> LnkCap code (1..6); 0 if none. */
uint8_t pt_speed(const char *s);
/* The shell command of a prompt line ("$ lspci -vvv", "root@h:~# dmesg", a bare
 * "nvidia-smi topo -m"), or NULL. */
const char *pt_command(const char *s);
/* Value of option opt ("-s") in a command, copied into buf; false if absent. */
bool pt_command_opt(const char *cmd, const char *opt, char *buf, size_t size);

/* ---- line classes (the block finder's alphabet) ----------------------------------- */

enum pt_class {
	PT_BLANK = 0,
	PT_FENCE,    /* ``` */
	PT_SEP,      /* ----, --, *** */
	PT_ELLIPSIS, /* [...], "[excerpt truncated ...]" */
	PT_COMMAND,
	PT_LSPCI_DEV,    /* "01:00.0 VGA compatible controller: ..." */
	PT_LSPCI_DETAIL, /* indented lspci line, or a capability line on its own */
	PT_HEX,          /* "00: 86 80 ..." */
	PT_TREE,
	PT_SMI_Q,
	PT_TOPO_HEADER,
	PT_TOPO_ROW,
	PT_LEGEND,
	PT_KERNEL,
	PT_CMDLINE,
	PT_IOMMU,
	PT_CUDA,
	PT_SMI_TABLE, /* plain nvidia-smi */
	PT_NCCL,      /* "... NCCL INFO ...", "... NCCL WARN ..." */
	PT_ERROR,     /* a CUDA / NCCL / PyTorch error line */
	PT_SETPCI,    /* a value a setpci read printed (decided by the block finder) */
	PT_GPU_LIST,  /* collect_env, nvidia-smi -L */
	PT_TEXT,
	PT_NCCL_TOPO, /* "<system version=...>" and the elements after it */
	PT_ENV,       /* "- GPU: 2x RTX 4090", lscpu, nvidia-smi --version, ggml's devices */
	PT_MODULES,   /* lsmod / /proc/modules lines */
	PT_META,      /* a bug report's "*** ls: ..." line about the file after it: skipped */
};

/* The class of one line. prev is the class of the block being read (PT_BLANK if none):
 * indented and numeric lines depend on it. */
enum pt_class pt_classify(const char *s, enum pt_class prev);

/* ---- parsers (one per syntax) --------------------------------------------------------- */

/* Shared state while parsing: the paste being filled and the block being read. */
struct pctx {
	struct p2ps_paste *p;
	int block;
	struct p2ps_error *err;
	bool oom;
	bool at_eof;                /* the block being parsed ends the paste */
	int lspci_cut_dev;          /* devs index of the device a "[...]" interrupted, -1 */
	int release[P2PS_SW_COUNT]; /* p->releases index of the latest release per software, -1 */
	size_t *dev_index;          /* address index of p->devs (PT_DEV_SLOTS entries, pt_dev) */
	size_t devs_cap;            /* room in p->devs */
	size_t blocks_cap;          /* room in p->blocks */
};

#define PT_DEV_SLOTS (2 * P2PS_PASTE_MAX_DEVS)

struct p2ps_paste_where pt_where(const struct pctx *c, int line);

/* Device for an address (created when absent, with the host model's defaults); NULL when
 * out of memory. Pointers returned earlier may move. */
struct p2ps_paste_dev *pt_dev(struct pctx *c, const struct p2ps_bdf *b);

/* GPU slot for a CUDA ordinal / nvidia-smi index / address (created when absent). */
struct p2ps_paste_gpu *pt_gpu_cuda(struct pctx *c, int cuda);
struct p2ps_paste_gpu *pt_gpu_smi(struct pctx *c, int smi);
struct p2ps_paste_gpu *pt_gpu_bdf(struct pctx *c, const struct p2ps_bdf *b);

/* Allocates matrix k with n x n empty cells (keeps an existing one of that size);
 * false when out of memory or n is out of range. */
bool pt_matrix(struct pctx *c, enum p2ps_paste_matrix_kind k, int n, int line);
void pt_cell_set(struct p2ps_paste_matrix *m, int i, int j, const char *s, size_t len);
/* Notes the line row i came from (the first one that set it). */
void pt_row_line(struct p2ps_paste_matrix *m, int i, int line);

/* Records a kernel event (stored while there is room; always counted). */
struct p2ps_paste_event *pt_event(struct pctx *c, enum p2ps_paste_event_kind k, int line);

/* A release of the driver or NCCL named at line: the latest of its software from here on
 * (a new entry when the version differs from the latest). */
void pt_release(struct pctx *c, enum p2ps_paste_software sw, const char *version, int line);
/* What the lines after the latest releases show: a run that worked or one that failed. */
void pt_outcome(struct pctx *c, bool worked, int line);
/* NCCL's version as a line names it ("2.18.3+cuda12.1"). */
void pt_nccl_version(struct pctx *c, const char *version, int line);

/* Block summary (appends "; " between parts). */
void pt_summary(struct pctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void pt_parse_lspci(struct pctx *c, const struct pl_span *sp);
void pt_parse_tree(struct pctx *c, const struct pl_span *sp);
void pt_parse_nvsmi_q(struct pctx *c, const struct pl_span *sp);
void pt_parse_topo(struct pctx *c, const struct pl_span *sp, bool p2p);
void pt_parse_kernel(struct pctx *c, const struct pl_span *sp);
void pt_parse_cmdline(struct pctx *c, const struct pl_span *sp);
void pt_parse_iommu(struct pctx *c, const struct pl_span *sp);
void pt_parse_cuda(struct pctx *c, const struct pl_span *sp);
void pt_parse_smi_table(struct pctx *c, const struct pl_span *sp);
void pt_parse_nccl(struct pctx *c, const struct pl_span *sp);
void pt_parse_errors(struct pctx *c, const struct pl_span *sp);
void pt_parse_setpci(struct pctx *c, const struct pl_span *sp);
void pt_parse_gpu_list(struct pctx *c, const struct pl_span *sp);
/* nvidia-smi --query-gpu=... --format=csv: its header, and a row without one. */
bool pt_is_query_header(const char *t);
bool pt_is_query_row(const char *t);

/* A NCCL log line whose "host:pid:tid [dev] NCCL INFO" prefix is gone ("Channel 00/0 : 0[0]
 * -> 1[1] via P2P/IPC", "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"). */
bool pt_nccl_bare(const char *t);

/* nccl-tests' result table: its header ("size count type redop ... busbw", "bytes N type
 * op ... busbw", '#' taken off) and a result row ("8  2  float  sum  -1  8.49 ..."). */
bool pt_nccl_tests_header(const char *t);
bool pt_nccl_tests_row(const char *t);

/* The NCCL_* variables a command line sets ("NCCL_P2P_LEVEL=SYS ./all_reduce_perf"). */
void pt_command_env(struct pctx *c, const char *cmd);

/* The symptom (enum p2ps_paste_symptom) an error line shows, -1 for none. */
int pt_error_symptom(const char *t);
/* Whether the error rows' first bytes are all in the set pt_error_symptom stops on. */
bool pt_error_rows_ok(void);
/* Records an error line's symptom; false when the line shows none. */
bool pt_error_line(struct pctx *c, const char *t, int line);
void pt_parse_nccl_topo(struct pctx *c, const struct pl_span *sp);
void pt_parse_env(struct pctx *c, const struct pl_span *sp);
/* The CPU lines (lscpu's keys) of a block another reader owns (collect_env's "CPU:"
 * section); true when they name the host's CPU. */
bool pt_parse_cpu_lines(struct pctx *c, const struct pl_span *sp);
void pt_parse_modules(struct pctx *c, const struct pl_span *sp);

/* "GPU 0: NAME", "GPU 0,1,2: NAME": the GPU indices (into idx, at most max; idx may be
 * NULL) and the name (name may be NULL); 0 when t is no such line. */
int pt_gpu_list_line(const char *t, int *idx, const char **name, int max);

/* parse_env.c: a line of an environment list (a known key), lscpu, nvidia-smi --version,
 * /proc/driver/nvidia, or ggml's device lines; prev as for pt_classify. */
bool pt_is_env(const char *s, enum pt_class prev);
/* A line of lsmod or /proc/modules, and lsmod's header. */
bool pt_is_module_line(const char *t);
bool pt_is_module_header(const char *t);

/* Device of an lspci device line ("BDF Class: names"), created when new; NULL if the
 * line is not one. Shared by the lspci and IOMMU-listing parsers. */
struct p2ps_paste_dev *pt_lspci_header(struct pctx *c, const struct pl_line *l);

/* Names and ids after a device's class ("NVIDIA Corporation AD102 [GeForce RTX 4090]
 * [10de:2684] (rev a1)"), also what lspci -tv prints after a device. */
void pt_lspci_names(struct pctx *c, struct p2ps_paste_dev *pd, const char *rest, int line);

/* lspci detail lines (caps, link, ACS, ReBAR, bridge windows) for one device; returns
 * true when the line was one of them. *ctx is the capability being read (0 at the
 * device line; the parser keeps it). */
bool pt_lspci_detail(struct pctx *c, struct p2ps_paste_dev *pd, const struct pl_line *l, int *ctx);
/* Hex rows of one lspci -x block: config bytes decoded through the dump backend. */
void pt_lspci_hex(struct pctx *c, const char *dump, size_t len, int first_line);

/* Whether a device is an NVIDIA GPU (its class, or the driver's word). */
bool pt_dev_is_gpu(const struct p2ps_paste_dev *pd);

/* Block finder: splits the normalised text into blocks and runs their parsers. */
int pt_find_blocks(struct pctx *c, char *text, int lines);

#endif
