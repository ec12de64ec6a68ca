/* SPDX-License-Identifier: MIT */
/* What a report says about its environment, line by line wherever it stands:
 *  - a list of "key: value" lines as people write them in an issue ("- GPU: 2x RTX 4090",
 *    "**Driver version**: 550.54.14", "| NCCL | 2.18.3 |"), nvidia-smi --version, lscpu
 *    and /proc/cpuinfo, the files of /proc/driver/nvidia (version; gpus/BDF/information:
 *    "Model:", "Bus Location:");
 *  - llama.cpp / ggml's device lines ("Device 0: NVIDIA GeForce RTX 4090, compute
 *    capability 8.9");
 *  - loaded kernel modules (lsmod, /proc/modules): whether a peer-memory module is there.
 * A key is one of a known set (keys[]): prose with a colon is not a list. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostfacts.h"
#include "paste_internal.h"
#include "paste_names.h"

enum env_key {
	EK_GPU = 0,
	EK_DRIVER,
	EK_NVRM_VERSION, /* /proc/driver/nvidia/version */
	EK_NCCL,
	EK_CPU_ARCH,
	EK_CPU_VENDOR,
	EK_CPU_FAMILY,
	EK_CPU_MODEL, /* lscpu's CPU model number, or /proc/driver/nvidia's GPU model name */
	EK_CPU_MODEL_NAME,
	EK_BUS_LOCATION, /* /proc/driver/nvidia/gpus/BDF/information */
	EK_UNAME,        /* uname -a as a bug report's prologue prints it: the kernel release */
	EK_OTHER,        /* a key of such a list that decides nothing here (OS, CUDA) */
};

/* Keys as lists, nvidia-smi --version, lscpu, /proc/cpuinfo and /proc/driver/nvidia
 * spell them (compared without case). */
static const struct {
	const char *key;
	enum env_key k;
} keys[] = {
        {"GPU", EK_GPU},
        {"GPUs", EK_GPU},
        {"GPU(s)", EK_GPU},
        {"GPU model", EK_GPU},
        {"GPU models", EK_GPU},
        {"GPU type", EK_GPU},
        {"Graphics card", EK_GPU},
        {"Graphics cards", EK_GPU},
        {"Video card", EK_GPU},
        {"Driver", EK_DRIVER},
        {"Driver version", EK_DRIVER},
        {"NVIDIA driver", EK_DRIVER},
        {"NVIDIA driver version", EK_DRIVER},
        {"GPU driver", EK_DRIVER},
        {"GPU driver version", EK_DRIVER},
        {"NVIDIA-SMI version", EK_DRIVER},
        {"NVRM version", EK_NVRM_VERSION},
        {"NCCL", EK_NCCL},
        {"NCCL version", EK_NCCL},
        {"CUDA", EK_OTHER},
        {"CUDA version", EK_OTHER},
        {"NVML version", EK_OTHER},
        {"CUDA toolkit", EK_OTHER},
        {"OS", EK_OTHER},
        {"Kernel", EK_OTHER},
        {"Kernel version", EK_OTHER},
        {"PyTorch", EK_OTHER},
        {"PyTorch version", EK_OTHER},
        {"GCC version", EK_OTHER},
        {"Architecture", EK_CPU_ARCH},
        {"Vendor ID", EK_CPU_VENDOR},
        {"vendor_id", EK_CPU_VENDOR},
        {"CPU family", EK_CPU_FAMILY},
        {"Model", EK_CPU_MODEL},
        {"Model name", EK_CPU_MODEL_NAME},
        {"CPU", EK_CPU_MODEL_NAME},
        {"Bus Location", EK_BUS_LOCATION},
        {"GPU UUID", EK_OTHER},
        {"Video BIOS", EK_OTHER},
        {"Bus Type", EK_OTHER},
        {"DMA Size", EK_OTHER},
        {"DMA Mask", EK_OTHER},
        {"Device Minor", EK_OTHER},
        {"GPU Excluded", EK_OTHER},
        {"GPU Firmware", EK_OTHER},
        {"IRQ", EK_OTHER},
        {"uname", EK_UNAME},
};

/* Past a list's decoration: a bullet ("- ", "* ", "+ ", "• ", "1. "), a table's "| ". */
static const char *past_bullet(const char *t)
{
	if ((t[0] == '-' || t[0] == '*' || t[0] == '+' || t[0] == '|') && t[1] == ' ')
		return pt_skip_ws(t + 2);
	if (!strncmp(t, "\xe2\x80\xa2 ", 4))
		return pt_skip_ws(t + 4);
	size_t n = strspn(t, "0123456789");
	if (n && n < 3 && (t[n] == '.' || t[n] == ')') && t[n + 1] == ' ')
		return pt_skip_ws(t + n + 2);
	return t;
}

/* The key a line starts with and its value (after ':' or a table's '|'), or -1. */
static int env_line(const char *t, const char **value)
{
	t = past_bullet(t);
	bool bold = t[0] == '*' && t[1] == '*';
	if (bold)
		t += 2;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t n = strlen(keys[i].key);
		if (strncasecmp(t, keys[i].key, n) || isalnum((unsigned char)t[n]) || t[n] == '(' ||
		    t[n] == '_' || t[n] == '-')
			continue;
		const char *p = t + n;
		if (bold && p[0] == ':' && p[1] == '*' && p[2] == '*') /* "**GPU:**" */
			p += 1;
		else if (bold && p[0] == '*' && p[1] == '*')
			p += 2;
		p = pt_skip_ws(p);
		if (*p != ':' && *p != '|')
			continue;
		if (*p == ':' && bold && p[1] == '*' && p[2] == '*')
			p += 2;
		p = pt_skip_ws(p + 1);
		if (!*p)
			continue;
		*value = p;
		return (int)keys[i].k;
	}
	return -1;
}

/* llama.cpp / ggml: "Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes",
 * and the line that announces them ("ggml_cuda_init: found 2 CUDA devices:"). */
static bool ggml_device(const char *t, long *idx, const char **name)
{
	const char *p;
	if (!pt_starts(t, "Device ") || !pt_dec(t + 7, idx, &p) || p[0] != ':' || p[1] != ' ')
		return false;
	*name = pt_skip_ws(p + 1);
	return strstr(*name, ", compute capability ") != NULL;
}

bool pt_is_env(const char *s, enum pt_class prev)
{
	const char *t = pt_skip_ws(s), *v;
	long idx;
	if (pt_starts(t, "ggml_cuda_init:") || ggml_device(t, &idx, &v))
		return true;
	if (t != s && prev != PT_ENV)
		return false;
	return env_line(t, &v) >= 0;
}

/* A module list's line: "nvidia_peermem   16384  0" (lsmod) or "nvidia_peermem 16384 0 -
 * Live 0x0 (OE)" (/proc/modules). */
bool pt_is_module_line(const char *t)
{
	size_t n = strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (!n || !isalpha((unsigned char)t[0]) || (t[n] != ' ' && t[n] != '\t'))
		return false;
	const char *p = pt_skip_ws(t + n);
	size_t d = strspn(p, "0123456789");
	if (!d || (p[d] != ' ' && p[d] != '\t'))
		return false;
	p = pt_skip_ws(p + d);
	return isdigit((unsigned char)p[0]) || p[0] == '-';
}

bool pt_is_module_header(const char *t)
{
	return pt_starts(t, "Module ") && strstr(t, "Size") && strstr(t, "Used by");
}

/* ---- values ---------------------------------------------------------------------------- */

/* The first version-like token of v ("550.54.14", "2.18.3+cuda12.1") into buf. */
static bool version_token(const char *v, char *buf, size_t size)
{
	for (const char *p = v; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p != v && isalnum((unsigned char)p[-1])))
			continue;
		size_t n = strspn(p, "0123456789");
		if (p[n] != '.' || !isdigit((unsigned char)p[n + 1]))
			continue;
		n += strcspn(p + n, " \t,;()|*");
		if (n >= size)
			return false;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return true;
	}
	return false;
}

static void set_driver_version(struct pctx *c, const char *version, int line)
{
	struct p2ps_paste_host *h = &c->p->host;
	if (!h->driver_version[0]) {
		snprintf(h->driver_version, sizeof(h->driver_version), "%s", version);
		h->driver_from = pt_where(c, line);
	}
	pt_release(c, P2PS_SW_DRIVER, version, line);
}

/* A count written before or after a model: "2x", "2 x", "2*", "x2", "(x2)", "X 4" ('×' is
 * read as 'x'). Returns the count and sets *len to the characters it takes, 0 when none. */
static long count_prefix(const char *s, size_t *len)
{
	long n;
	const char *e;
	if (!pt_dec(s, &n, &e))
		return 0;
	const char *p = pt_skip_ws(e);
	if ((*p != 'x' && *p != 'X' && *p != '*') || (p[1] != ' ' && !isalpha((unsigned char)p[1])))
		return 0;
	*len = (size_t)(pt_skip_ws(p + 1) - s);
	return n;
}

static long count_suffix(char *s)
{
	long n;
	const char *e;
	char *x = strrchr(s, ' ');
	const char *p = x ? x + 1 + (x[1] == '(') : NULL;
	if (p && (*p == 'x' || *p == 'X') && pt_dec(p + 1, &n, &e) && (!*e || !strcmp(e, ")"))) {
		*x = '\0';
		return n;
	}
	/* "A100-PCIE-40GB X 4": the sign and the number apart. */
	if (!x || x - s < 3 || !pt_dec(x + 1, &n, &e) || *e || x[-2] != ' ' ||
	    (x[-1] != 'x' && x[-1] != 'X' && x[-1] != '*'))
		return 0;
	x[-2] = '\0';
	return n;
}

/* "2x RTX 4090", "RTX 4090 x2", "2 x NVIDIA GeForce RTX 4090", "NVIDIA A100 (x8)": the
 * count (1 without one) and the model, as a list names GPUs; 0 when it is no count. */
static int gpu_count(const char *part, size_t len, char *name, size_t size)
{
	char buf[128];
	size_t w = 0;
	for (size_t r = 0; r < len && w + 1 < sizeof(buf); r++) {
		if ((unsigned char)part[r] == 0xc3 && r + 1 < len &&
		    (unsigned char)part[r + 1] == 0x97)
			buf[w++] = 'x', r++;
		else
			buf[w++] = part[r];
	}
	buf[w] = '\0';
	size_t skip = 0;
	long count = count_prefix(buf, &skip);
	char *s = buf + skip;
	if (!count)
		count = count_suffix(s);
	if (!count)
		count = 1;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '.' || s[n - 1] == '*'))
		s[--n] = '\0';
	if (!n || count < 1 || count > 16)
		return 0;
	pt_gpu_model_name(s, name, size);
	return (int)count;
}

/* A list's GPU value: one or more models, with counts, split by ",", "+" or " and ". */
static void listed_gpus(struct pctx *c, const char *v, int line)
{
	struct p2ps_paste *p = c->p;
	while (*v) {
		size_t n = strcspn(v, ",+;");
		const char *and = strstr(v, " and ");
		if (and&&(size_t)(and-v) < n)
			n = (size_t)(and-v);
		char name[96];
		int count = gpu_count(v, n, name, sizeof(name));
		if (count && pt_nvidia_gpu_name(name) && p->n_listed < P2PS_PASTE_MAX_LISTED) {
			struct p2ps_paste_listed *l = &p->listed[p->n_listed++];
			snprintf(l->name, sizeof(l->name), "%s", name);
			l->count = count;
			l->from = pt_where(c, line);
		}
		v += n;
		v += strspn(v, ",+; ");
		if (pt_starts(v, "and "))
			v += 4;
	}
}

struct env_state {
	char model[96]; /* /proc/driver/nvidia's "Model:" awaiting its "Bus Location:" */
	int model_line;
	int facts;
	struct p2ps_host_cpu cpu;
	bool cpu_seen;
	bool driver; /* a driver version read here */
};

static void cpu_value(struct env_state *st, enum env_key k, const char *v)
{
	struct p2ps_host_cpu *cpu = &st->cpu;
	long n;
	const char *e;
	switch (k) {
	case EK_CPU_ARCH:
		snprintf(cpu->arch, sizeof(cpu->arch), "%.*s", (int)strcspn(v, " "), v);
		break;
	case EK_CPU_VENDOR: snprintf(cpu->vendor, sizeof(cpu->vendor), "%s", v); break;
	case EK_CPU_FAMILY:
		if (pt_dec(v, &n, &e) && !*e)
			cpu->family = (int)n;
		break;
	case EK_CPU_MODEL:
		if (pt_dec(v, &n, &e) && !*e)
			cpu->model = (int)n;
		break;
	case EK_CPU_MODEL_NAME: snprintf(cpu->model_name, sizeof(cpu->model_name), "%s", v); break;
	default: return;
	}
	st->cpu_seen = true;
}

/* /proc/driver/nvidia/version: "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64
 * 550.54.14  Release Build ..." (the proprietary module: "... x86_64 Kernel Module 384.59"). */
static void nvrm_version(struct pctx *c, const char *v, int line)
{
	const char *m = strstr(v, "Kernel Module");
	char version[32];
	if (!m || !version_token(m, version, sizeof(version)))
		return;
	set_driver_version(c, version, line);
	if (c->p->host.driver_open < 0)
		c->p->host.driver_open = strstr(v, "Open Kernel Module") != NULL;
}

static void gpu_at(struct pctx *c, struct env_state *st, const char *v, int line)
{
	struct p2ps_bdf b;
	if (!pt_bdf(v, &b, NULL, NULL))
		return;
	struct p2ps_paste_gpu *g = pt_gpu_bdf(c, &b);
	if (g && st->model[0] && !g->name[0])
		snprintf(g->name, sizeof(g->name), "%s", st->model);
	if (g && !g->named_from.line)
		g->named_from = pt_where(c, st->model_line ? st->model_line : line);
	st->model[0] = '\0';
	st->facts++;
}

/* "Linux host 4.4.0-87-generic #110-Ubuntu SMP ...": the kernel release, the third word. */
static void uname(struct pctx *c, const char *v)
{
	struct p2ps_paste_host *h = &c->p->host;
	const char *p = v;
	for (int w = 0; w < 2 && *p; w++)
		p = pt_skip_ws(p + strcspn(p, " \t"));
	size_t n = strcspn(p, " \t");
	if (pt_starts(v, "Linux ") && n && !h->kernel[0])
		snprintf(h->kernel, sizeof(h->kernel), "%.*s", (int)n, p);
}

static void env_value(struct pctx *c, struct env_state *st, enum env_key k, const char *v, int line)
{
	char version[32];
	switch (k) {
	case EK_GPU: listed_gpus(c, v, line); break;
	case EK_DRIVER:
		if (version_token(v, version, sizeof(version)))
			set_driver_version(c, version, line);
		st->driver = true;
		break;
	case EK_NVRM_VERSION:
		nvrm_version(c, v, line);
		st->driver = true;
		break;
	case EK_NCCL:
		if (version_token(v, version, sizeof(version)))
			pt_nccl_version(c, version, line);
		break;
	case EK_CPU_MODEL:
		/* lscpu's model number, or the GPU model of
		 * /proc/driver/nvidia/gpus/.../information */
		if (!isdigit((unsigned char)v[0])) {
			pt_gpu_model_name(v, st->model, sizeof(st->model));
			st->model_line = line;
			return;
		}
		cpu_value(st, k, v);
		return;
	case EK_BUS_LOCATION: gpu_at(c, st, v, line); return;
	case EK_UNAME: uname(c, v); break;
	case EK_OTHER: return;
	default: cpu_value(st, k, v); return;
	}
	st->facts++;
}

/* The host's CPU from lscpu or /proc/cpuinfo lines (the first CPU they describe). */
static void cpu_facts(struct pctx *c, struct env_state *st, const struct pl_span *sp)
{
	struct p2ps_host_cpu *cpu = &c->p->host.cpu;
	if (!st->cpu_seen || cpu->known)
		return;
	/* /proc/cpuinfo itself: its own reader decides the architecture. */
	if (pt_starts(pt_skip_ws(sp->start), "processor")) {
		size_t n = pt_span_len(sp);
		char *text = malloc(n + 1);
		if (!text) {
			c->oom = true;
			return;
		}
		memcpy(text, sp->start, n);
		for (size_t i = 0; i < n; i++)
			text[i] = text[i] ? text[i] : '\n';
		text[n] = '\0';
		p2ps_cpuinfo_parse(cpu, text);
		free(text);
		return;
	}
	*cpu = st->cpu;
	cpu->known = cpu->arch[0] != '\0';
}

bool pt_parse_cpu_lines(struct pctx *c, const struct pl_span *sp)
{
	struct env_state st = {.cpu = {.family = -1, .model = -1}};
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l)) {
		const char *v;
		int k = env_line(pt_skip_ws(l.s), &v);
		if (k == EK_CPU_ARCH || k == EK_CPU_VENDOR || k == EK_CPU_FAMILY ||
		    (k == EK_CPU_MODEL && isdigit((unsigned char)v[0])) || k == EK_CPU_MODEL_NAME)
			cpu_value(&st, (enum env_key)k, v);
	}
	cpu_facts(c, &st, sp);
	return st.cpu_seen && c->p->host.cpu.known;
}

void pt_parse_env(struct pctx *c, const struct pl_span *sp)
{
	struct env_state st = {.cpu = {.family = -1, .model = -1}};
	struct pl_iter it;
	struct pl_line l;
	int gpus_before = c->p->n_listed, lines = 0;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom) {
		const char *t = pt_skip_ws(l.s), *v, *name;
		long idx;
		int k;
		lines++;
		if (ggml_device(t, &idx, &name) && idx < P2PS_PASTE_MAX_GPUS) {
			struct p2ps_paste_gpu *g = pt_gpu_cuda(c, (int)idx);
			if (g && !g->name[0])
				snprintf(g->name, sizeof(g->name), "%.*s", (int)strcspn(name, ","),
				         name);
			if (g && !g->named_from.line)
				g->named_from = pt_where(c, l.no);
			st.facts++;
		} else if ((k = env_line(t, &v)) >= 0) {
			env_value(c, &st, (enum env_key)k, v, l.no);
		}
	}
	cpu_facts(c, &st, sp);
	int listed = c->p->n_listed - gpus_before;
	if (!st.facts && !st.cpu_seen) {
		pt_summary(c,
		           "%d line%s of an environment list, none about the GPUs, driver, NCCL "
		           "or CPU",
		           lines, lines == 1 ? "" : "s");
		return;
	}
	pt_summary(c, "environment: %d fact%s%s%s%s", st.facts, st.facts == 1 ? "" : "s",
	           listed ? ", GPUs listed by model" : "", st.cpu_seen ? ", the CPU" : "",
	           st.driver ? ", a driver version" : "");
}

void pt_parse_modules(struct pctx *c, const struct pl_span *sp)
{
	struct p2ps_paste_host *h = &c->p->host;
	struct pl_iter it;
	struct pl_line l;
	int modules = 0;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l)) {
		const char *t = pt_skip_ws(l.s);
		if (!pt_is_module_line(t))
			continue;
		modules++;
		size_t n = strcspn(t, " \t");
		if (n == 14 && !strncmp(t, "nvidia_peermem", n))
			h->nvidia_peermem = 1;
		else if (n == 11 && !strncmp(t, "nv_peer_mem", n))
			h->nv_peer_mem = 1;
	}
	if (!modules) {
		c->p->unread_blocks++;
		pt_summary(c, "recognised, not understood: a module list header with no module");
		return;
	}
	/* A list grep'd for something else says nothing about the modules it leaves out. */
	const char *cmd = c->block >= 0 ? c->p->blocks[c->block].command : "";
	const char *g = strstr(cmd, "grep");
	if (!g || strstr(g, "peer") || strstr(g, "nvidia") || strstr(g, "mem"))
		h->modules_listed = 1;
	if (!h->modules_from.line)
		h->modules_from = pt_where(c, sp->first);
	pt_summary(c, "%d loaded module%s%s%s", modules, modules == 1 ? "" : "s",
	           h->nvidia_peermem == 1 ? ", nvidia_peermem among them" : "",
	           h->nv_peer_mem == 1 ? ", nv_peer_mem among them" : "");
}
