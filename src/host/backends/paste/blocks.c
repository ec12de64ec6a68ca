/* SPDX-License-Identifier: MIT */
/* The block finder: one pass over the lines, each classified (classify.c), grouping runs
 * of lines of one syntax into blocks. A block ends where a line of another syntax, a
 * shell command, a markdown fence or a separator starts; blank lines inside a block are
 * kept when the block goes on after them (lspci separates devices with them). Each block
 * is handed to its parser as soon as it ends. Prose becomes "skipped" blocks so the report
 * can say what was not read.
 *
 * An nvidia-bug-report.log is one run of sections, each after a line of underscores and
 * headed by the file or command it holds ("*** /proc/cmdline", "/usr/bin/lspci -t",
 * "dmesg:"): the header is the command of the blocks under it, so /proc/cmdline and
 * /proc/modules are read as such, and every other section goes to the parser its lines
 * call for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"
#include "grow.h"

#define MAX_STORED_BLOCKS 4096

struct finder {
	struct pctx *c;
	int kind; /* open block's enum p2ps_paste_kind, -1 none */
	struct pl_span span;
	enum pt_class prev; /* class of the open block's last non-blank line */
	char command[128];  /* pending command for the next block */
	bool want_cmdline;  /* the pending command was `cat /proc/cmdline` */
	bool want_setpci;   /* the pending command reads registers with setpci */
	bool want_modules;  /* the pending command lists kernel modules (lsmod, /proc/modules) */
	bool after_sep;     /* a bug report's section separator came last: a header follows */
	bool cut;           /* the open block was ended by "[...]" */
	size_t prev_len;    /* length of the last non-blank line */
	bool blank_gap;     /* a blank line came since */
};

static int kind_of(enum pt_class cls)
{
	switch (cls) {
	case PT_LSPCI_DEV:
	case PT_LSPCI_DETAIL:
	case PT_HEX: return P2PS_PASTE_LSPCI;
	case PT_TREE: return P2PS_PASTE_LSPCI_TREE;
	case PT_SMI_Q: return P2PS_PASTE_NVSMI_Q;
	case PT_TOPO_HEADER:
	case PT_TOPO_ROW:
	case PT_LEGEND: return P2PS_PASTE_NVSMI_TOPO;
	case PT_KERNEL: return P2PS_PASTE_KERNEL;
	case PT_CMDLINE: return P2PS_PASTE_CMDLINE;
	case PT_IOMMU: return P2PS_PASTE_IOMMU_GROUPS;
	case PT_CUDA: return P2PS_PASTE_CUDA;
	case PT_SMI_TABLE: return P2PS_PASTE_NVSMI_TABLE;
	case PT_NCCL: return P2PS_PASTE_NCCL;
	case PT_ERROR: return P2PS_PASTE_ERRORS;
	case PT_SETPCI: return P2PS_PASTE_SETPCI;
	case PT_GPU_LIST: return P2PS_PASTE_COLLECT_ENV;
	case PT_NCCL_TOPO: return P2PS_PASTE_NCCL_TOPO;
	case PT_ENV: return P2PS_PASTE_ENVIRONMENT;
	case PT_MODULES: return P2PS_PASTE_MODULES;
	case PT_TEXT: return P2PS_PASTE_TEXT;
	default: return -1;
	}
}

static void parse_block(struct pctx *c, int kind, const struct pl_span *sp)
{
	switch (kind) {
	case P2PS_PASTE_LSPCI: pt_parse_lspci(c, sp); break;
	case P2PS_PASTE_LSPCI_TREE: pt_parse_tree(c, sp); break;
	case P2PS_PASTE_NVSMI_Q: pt_parse_nvsmi_q(c, sp); break;
	case P2PS_PASTE_NVSMI_TOPO: pt_parse_topo(c, sp, false); break;
	case P2PS_PASTE_NVSMI_P2P: pt_parse_topo(c, sp, true); break;
	case P2PS_PASTE_KERNEL: pt_parse_kernel(c, sp); break;
	case P2PS_PASTE_CMDLINE: pt_parse_cmdline(c, sp); break;
	case P2PS_PASTE_IOMMU_GROUPS: pt_parse_iommu(c, sp); break;
	case P2PS_PASTE_CUDA: pt_parse_cuda(c, sp); break;
	case P2PS_PASTE_NVSMI_TABLE: pt_parse_smi_table(c, sp); break;
	case P2PS_PASTE_NCCL: pt_parse_nccl(c, sp); break;
	case P2PS_PASTE_ERRORS: pt_parse_errors(c, sp); break;
	case P2PS_PASTE_SETPCI: pt_parse_setpci(c, sp); break;
	case P2PS_PASTE_COLLECT_ENV: pt_parse_gpu_list(c, sp); break;
	case P2PS_PASTE_NCCL_TOPO: pt_parse_nccl_topo(c, sp); break;
	case P2PS_PASTE_ENVIRONMENT: pt_parse_env(c, sp); break;
	case P2PS_PASTE_MODULES: pt_parse_modules(c, sp); break;
	default: break;
	}
}

/* Summary of a skipped block: its first line, shortened. */
static void text_summary(struct pctx *c, const struct pl_span *sp)
{
	const char *t = pt_skip_ws(sp->start);
	int lines = sp->last - sp->first + 1;
	pt_summary(c, "not recognised (%d line%s): \"%.60s%s\"", lines, lines == 1 ? "" : "s", t,
	           strlen(t) > 60 ? "..." : "");
}

static void close_block(struct finder *f)
{
	if (f->kind < 0)
		return;
	f->want_setpci = false;
	if (f->kind != P2PS_PASTE_TEXT)
		f->want_modules = false;
	struct pctx *c = f->c;
	struct p2ps_paste *p = c->p;
	int idx = -1;
	if (p->n_blocks < MAX_STORED_BLOCKS)
		c->oom |= !p2ps_grow((void **)&p->blocks, &c->blocks_cap, p->n_blocks + 1,
		                     sizeof(*p->blocks));
	if (p->n_blocks < MAX_STORED_BLOCKS) {
		if (!c->oom) {
			idx = (int)p->n_blocks++;
			struct p2ps_paste_block *b = &p->blocks[idx];
			memset(b, 0, sizeof(*b));
			b->kind = (enum p2ps_paste_kind)f->kind;
			b->first_line = f->span.first;
			b->last_line = f->span.last;
			b->cut = f->cut;
			snprintf(b->command, sizeof(b->command), "%s", f->command);
		}
	} else {
		p->blocks_dropped++;
	}
	c->block = idx;
	/* Lines after "[...]" continue the interrupted lspci device only right after it. */
	if (f->kind != P2PS_PASTE_LSPCI)
		c->lspci_cut_dev = -1;
	if (f->kind == P2PS_PASTE_TEXT)
		text_summary(c, &f->span);
	else
		parse_block(c, f->kind, &f->span);
	c->block = -1;
	f->kind = -1;
	f->command[0] = '\0';
	f->cut = false;
}

static void open_block(struct finder *f, int kind, const struct pl_line *l, enum pt_class cls)
{
	close_block(f);
	f->kind = kind;
	f->span = (struct pl_span){l->s, l->no, l->no};
	f->prev = cls;
}

/* Whether a line of class cls (kind k) goes on with the open block. */
static bool continues(const struct finder *f, enum pt_class cls, int k, const struct pl_line *l)
{
	if (f->kind < 0)
		return false;
	if (f->kind == P2PS_PASTE_IOMMU_GROUPS && (cls == PT_LSPCI_DEV || cls == PT_LSPCI_DETAIL))
		return cls != PT_LSPCI_DEV || l->s[0] == ' ' || l->s[0] == '\t';
	if (f->kind == P2PS_PASTE_CUDA && (cls == PT_TOPO_ROW || cls == PT_TOPO_HEADER))
		return false;
	return k == f->kind;
}

static void on_command(struct finder *f, const struct pl_line *l, const char *cmd)
{
	close_block(f);
	snprintf(f->command, sizeof(f->command), "%s", cmd);
	pt_command_env(f->c, cmd);
	f->want_cmdline = strstr(cmd, "/proc/cmdline") != NULL;
	f->want_setpci = strstr(cmd, "setpci ") != NULL;
	f->want_modules = strstr(cmd, "lsmod") != NULL || strstr(cmd, "/proc/modules") != NULL;
	/* "nvidia-smi topo -m      GPU0    GPU1 ..." carries the matrix header itself. */
	const char *g = strstr(cmd, "GPU0");
	if (pt_starts(cmd, "nvidia-smi topo") && g && (g[-1] == ' ' || g[-1] == '\t'))
		open_block(f, P2PS_PASTE_NVSMI_TOPO, l, PT_TOPO_HEADER);
}

static bool setpci_value(const char *s)
{
	const char *t = pt_skip_ws(s), *p = t;
	struct p2ps_bdf b;
	if (pt_bdf(t, &b, NULL, &p))
		p = pt_skip_ws(p + (*p == ':'));
	size_t n = strspn(p, "0123456789abcdefABCDEF");
	return (n == 2 || n == 4 || n == 8) && !*pt_skip_ws(p + n);
}

/* A bug report's section header as a command: "*** /proc/cmdline" -> "cat /proc/cmdline",
 * "/usr/bin/lspci -t" -> "lspci -t", "dmesg:" -> "dmesg"; NULL when the line is not one
 * (the prologue's prose, a file that "does not exist"). */
static const char *section_header(const char *s, char *buf, size_t size)
{
	const char *t = pt_skip_ws(s);
	bool file = pt_starts(t, "*** ");
	if (file)
		t += 4;
	size_t n = strlen(t);
	if (!n || (!file && t[0] != '/' && t[n - 1] != ':' && !pt_command(t)) ||
	    strstr(t, " does not exist") || strstr(t, " is not readable"))
		return NULL;
	static const char *const bins[] = {"/usr/local/bin/", "/usr/bin/", "/usr/sbin/", "/sbin/",
	                                   "/bin/"};
	for (size_t i = 0; !file && i < sizeof(bins) / sizeof(bins[0]); i++)
		if (pt_starts(t, bins[i]))
			t += strlen(bins[i]);
	n = strlen(t);
	if (t[n - 1] == ':')
		n--;
	snprintf(buf, size, "%s%.*s", file ? "cat " : "", (int)n, t);
	return buf;
}

/* Feeds one line. blank_end is the last line before a run of blank lines. */
static void feed(struct finder *f, const struct pl_line *l, int *blank_end)
{
	enum pt_class cls = pt_classify(l->s, f->kind < 0 ? PT_BLANK : f->prev);
	if (cls == PT_BLANK) {
		f->blank_gap = true;
		return;
	}
	if (cls == PT_META)
		return;
	char hdr[128];
	bool header = f->after_sep && f->c->p->bug_report && cls != PT_SEP;
	f->after_sep = cls == PT_SEP;
	if (header && section_header(l->s, hdr, sizeof(hdr))) {
		on_command(f, l, hdr);
		return;
	}
	/* A kernel or lspci line the mail client or terminal wrapped goes on on the next line;
	 * lspci's own warnings ("pcilib: ...") sit between its lines. */
	bool wrapped =
	        cls == PT_TEXT && !f->blank_gap && f->prev_len + 1 + strcspn(l->s, " ") >= 66;
	if (wrapped && f->kind == P2PS_PASTE_KERNEL)
		cls = PT_KERNEL;
	if (cls == PT_TEXT && f->kind == P2PS_PASTE_LSPCI &&
	    (wrapped || pt_starts(l->s, "pcilib: ") || pt_starts(l->s, "lspci: ")))
		cls = PT_LSPCI_DETAIL;
	/* What setpci prints: a hex word, or "BDF: word" from a loop. */
	if ((f->want_setpci || f->kind == P2PS_PASTE_SETPCI) && (cls == PT_TEXT || cls == PT_HEX) &&
	    setpci_value(l->s)) {
		cls = PT_SETPCI;
		f->want_setpci = false;
	}
	/* What lsmod or /proc/modules printed, without lsmod's header (grep'd). */
	if (f->want_modules && cls == PT_TEXT && pt_is_module_line(pt_skip_ws(l->s)))
		cls = PT_MODULES;
	f->blank_gap = false;
	f->prev_len = l->n;
	*blank_end = l->no;
	if (f->want_cmdline && cls != PT_COMMAND && cls != PT_FENCE) {
		f->want_cmdline = false;
		open_block(f, P2PS_PASTE_CMDLINE, l, PT_CMDLINE);
		close_block(f);
		return;
	}
	switch (cls) {
	case PT_COMMAND: on_command(f, l, pt_command(l->s)); return;
	case PT_ELLIPSIS: f->cut = f->kind >= 0; /* fall through */
	case PT_FENCE:
	case PT_SEP: close_block(f); return;
	default: break;
	}
	int k = kind_of(cls);
	if (continues(f, cls, k, l)) {
		f->span.last = l->no;
		f->prev = cls;
	} else {
		open_block(f, k, l, cls);
	}
}

/* Windows' Linux (WSL2) wherever the paste shows it (a kernel release, a prompt under
 * /mnt/c): the GPUs are the Windows driver's, which decides P2P as a hypervisor would. */
static void wsl(struct p2ps_paste *p, const char *s)
{
	if (p->host.vm ||
	    (!strstr(s, "WSL2") && !strstr(s, "microsoft-standard") && !strstr(s, ":/mnt/c/")))
		return;
	p->host.vm = true;
	snprintf(p->host.hypervisor, sizeof(p->host.hypervisor), "%s", "WSL2 (Windows)");
	snprintf(p->host.vm_from, sizeof(p->host.vm_from), "WSL2 in the paste");
}

/* Whether the text is an nvidia-bug-report.log: its prologue within the first lines. */
static bool bug_report(const char *text, int lines)
{
	const char *p = text;
	for (int i = 0; i < lines && i < 24; i++) {
		if (strstr(p, "nvidia-bug-report.sh Version:") ||
		    strstr(p, "Start of NVIDIA bug report log file"))
			return true;
		p += strlen(p) + 1;
	}
	return false;
}

int pt_find_blocks(struct pctx *c, char *text, int lines)
{
	struct finder f = {.c = c, .kind = -1};
	c->p->bug_report = bug_report(text, lines);
	struct pl_iter it = {.p = text, .no = 1, .last = lines};
	struct pl_line l;
	int last_nonblank = 0;
	while (pl_next(&it, &l)) {
		wsl(c->p, l.s);
		feed(&f, &l, &last_nonblank);
		/* A block never ends on blank lines: its span stops at its last real line. */
		if (f.kind >= 0 && f.span.last > last_nonblank)
			f.span.last = last_nonblank;
		if (c->oom)
			break;
	}
	c->at_eof = true;
	close_block(&f);
	c->at_eof = false;
	return c->oom ? P2PS_ENOMEM : 0;
}
