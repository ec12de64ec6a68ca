/* SPDX-License-Identifier: MIT */
/* NCCL's log (NCCL_DEBUG=INFO: "host:pid:tid [dev] NCCL INFO ...", "... NCCL WARN ...")
 * and the error lines of CUDA, NCCL and PyTorch. From the log: NCCL's version, the
 * transport each channel connection used ("via P2P/IPC", "via SHM/direct/direct", "via
 * NET/Socket/0") per GPU pair, whether NCCL found intra-node P2P, the NCCL_* variables it
 * says were set, and its warnings. From error lines: the symptom (a refused peer mapping,
 * peer access not supported, an illegal access, a timed-out collective, shared memory). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"

/* Error texts and the symptom each shows; the first row whose text the line holds wins,
 * so the specific rows come before the general ones. */
static const struct {
	const char *needle;
	enum p2ps_paste_symptom sym;
} error_rows[] = {
        {"mapping of buffer object failed", P2PS_PS_MAP_FAILED},
        {"cudaErrorMapBufferObjectFailed", P2PS_PS_MAP_FAILED},
        {"CUDA_ERROR_MAP_FAILED", P2PS_PS_MAP_FAILED},
        {"peer access is not supported between these two devices", P2PS_PS_PEER_UNSUPPORTED},
        {"peer mapping resources exhausted", P2PS_PS_TOO_MANY_PEERS},
        /* Applications that checked CUDA's peer access and report it missing: vLLM's custom
         * all-reduce, LMDeploy's TurboMind. */
        {"platform lacks GPU P2P capability", P2PS_PS_PEER_UNSUPPORTED},
        {"peer access Device ", P2PS_PS_PEER_UNSUPPORTED},
        {"cudaErrorTooManyPeers", P2PS_PS_TOO_MANY_PEERS},
        {"CUDA_ERROR_TOO_MANY_PEERS", P2PS_PS_TOO_MANY_PEERS},
        {"cudaErrorPeerAccessUnsupported", P2PS_PS_PEER_UNSUPPORTED},
        {"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", P2PS_PS_PEER_UNSUPPORTED},
        {"illegal memory access", P2PS_PS_ILLEGAL_ACCESS},
        {"cudaErrorIllegalAddress", P2PS_PS_ILLEGAL_ACCESS},
        {"CUDA_ERROR_ILLEGAL_ADDRESS", P2PS_PS_ILLEGAL_ACCESS},
        {"Watchdog caught collective operation timeout", P2PS_PS_HANG},
        {"collective operation timeout", P2PS_PS_HANG},
        {"P2P is disabled between", P2PS_PS_P2P_DISABLED},
        {"Could not enable P2P between", P2PS_PS_P2P_DISABLED},
        {"failed to extend /dev/shm", P2PS_PS_SHM},
        {"Error while creating shared memory segment", P2PS_PS_SHM},
        {"unable to allocate shared memory", P2PS_PS_SHM},
        {"Call to posix_fallocate failed", P2PS_PS_SHM},
        {"peer access has not been enabled", P2PS_PS_PEER_UNSUPPORTED},
        {"cudaErrorPeerAccessNotEnabled", P2PS_PS_PEER_UNSUPPORTED},
        {"Got completion from peer", P2PS_PS_NET_ERROR},
        {"Got completion with error", P2PS_PS_NET_ERROR},
        {"got completion with error", P2PS_PS_NET_ERROR}, /* the mlx5 provider */
        {"Completion with error at ", P2PS_PS_NET_ERROR}, /* perftest */
        {"Couldn't allocate MR", P2PS_PS_GDR_REG},        /* perftest --use_cuda */
        {"ibv_reg_dmabuf_mr failed", P2PS_PS_GDR_REG},    /* NCCL: dma-buf refused */
        {"gdr_pin_buffer(", P2PS_PS_GDR_PIN},             /* gdrcopy's tests: an assertion on it */
        {"Invalid value when checking the pattern", P2PS_PS_WRONG_DATA}, /* nvbandwidth */
        {"RuntimeError: CUDA error", P2PS_PS_CUDA_ERROR},
        {"CUDA error:", P2PS_PS_CUDA_ERROR},
        {"Cuda failure", P2PS_PS_CUDA_ERROR},
        {"unhandled cuda error", P2PS_PS_CUDA_ERROR},
        {"ncclUnhandledCudaError", P2PS_PS_CUDA_ERROR},
        {"cudaErrorPeerAccess", P2PS_PS_CUDA_ERROR},
};

/* A printed tensor of zeros on a GPU: "tensor([0., 0., 0.], device='cuda:1')". */
static bool zero_tensor(const char *t)
{
	const char *p = strstr(t, "tensor([");
	if (!p || !strstr(p, "device='cuda"))
		return false;
	p += 8;
	int zeros = 0;
	for (; *p && *p != ']'; p++) {
		if (*p == '0' && (p[1] == '.' || p[1] == ',' || p[1] == ']'))
			zeros++;
		else if (isdigit((unsigned char)*p) && *p != '0')
			return false;
	}
	return zeros >= 1;
}

#define N_ERROR_ROWS (sizeof(error_rows) / sizeof(error_rows[0]))

/* The first bytes of the rows' texts: every line of a paste is read against the rows, so
 * the line is walked once, stopping only where a row's text may start (pt_error_rows_ok
 * checks the set against the rows). */
static const char error_firsts[] = "mcCpiWPfEuGRngI";

bool pt_error_rows_ok(void)
{
	for (size_t i = 0; i < N_ERROR_ROWS; i++)
		if (!strchr(error_firsts, error_rows[i].needle[0]))
			return false;
	return true;
}

int pt_error_symptom(const char *t)
{
	size_t best = N_ERROR_ROWS;
	for (const char *p = strpbrk(t, error_firsts); p; p = strpbrk(p + 1, error_firsts))
		for (size_t i = 0; i < best; i++) {
			const char *n = error_rows[i].needle;
			if (n[0] == p[0] && n[1] == p[1] && !strncmp(p, n, strlen(n))) {
				best = i;
				break;
			}
		}
	if (best < N_ERROR_ROWS)
		return (int)error_rows[best].sym;
	return zero_tensor(t) ? (int)P2PS_PS_WRONG_DATA : -1;
}

bool pt_error_line(struct pctx *c, const char *t, int line)
{
	int s = pt_error_symptom(t);
	if (s < 0)
		return false;
	struct p2ps_paste_symptoms *sy = &c->p->sym;
	pt_outcome(c, false, line);
	if (!sy->count[s]++) {
		sy->first[s] = pt_where(c, line);
		const char *m = t;
		for (size_t i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++)
			if (error_rows[i].sym == (enum p2ps_paste_symptom)s &&
			    (m = strstr(t, error_rows[i].needle)) != NULL)
				break;
		/* From the start of its message where the line has a prefix of its own. */
		const char *w = strstr(t, "NCCL WARN ");
		m = w ? w + 10 : (m && m - t > 60 ? m : t);
		snprintf(sy->text[s], sizeof(sy->text[s]), "%s", pt_skip_ws(m));
	}
	return true;
}

void pt_parse_errors(struct pctx *c, const struct pl_span *sp)
{
	struct pl_iter it;
	struct pl_line l;
	int n = 0, lines = 0;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l)) {
		lines++;
		n += pt_error_line(c, pt_skip_ws(l.s), l.no);
	}
	int kinds = 0;
	for (int s = 0; s < P2PS_PS_COUNT; s++)
		kinds += c->p->sym.count[s] > 0;
	pt_summary(c, "%d error line%s of %d (%d kind%s of symptom so far)", n, n == 1 ? "" : "s",
	           lines, kinds, kinds == 1 ? "" : "s");
}

/* ---- NCCL ------------------------------------------------------------------------- */

#define NCCL_DEVS 64

struct nccl_state {
	char tr[NCCL_DEVS][NCCL_DEVS]; /* 'P', 'S', 'N' or 0 per CUDA device pair */
	int n, line;
	int infos, warns, facts;
	char host[64];   /* the host of the first line ("node1" of "node1:123:456 [0] NCCL") */
	bool multi_host; /* lines from several hosts: device numbers repeat, no pair cells */
};

/* Notes the host a line comes from. */
static void nccl_host(struct nccl_state *st, const char *t)
{
	const char *m = strstr(t, " NCCL ");
	if (t[0] == '[') /* a timestamp prefix */
		t = strchr(t, ']') ? pt_skip_ws(strchr(t, ']') + 1) : t;
	size_t n = strcspn(t, ": ");
	if (!m || t[n] != ':' || !n || n >= sizeof(st->host))
		return;
	if (!st->host[0])
		snprintf(st->host, sizeof(st->host), "%.*s", (int)n, t);
	else if (strncmp(st->host, t, n) || st->host[n])
		st->multi_host = true;
}

/* The message of a NCCL line (after "NCCL INFO " / "NCCL WARN "), the line itself where
 * its prefix was taken off (pt_nccl_bare()), or NULL. */
static const char *nccl_msg(const char *t, bool *warn)
{
	const char *m = strstr(t, "NCCL INFO ");
	*warn = false;
	if (pt_starts(t, "NCCL version ")) /* rank 0 prints it bare */
		return t;
	if (!m && (m = strstr(t, "NCCL WARN ")) != NULL)
		*warn = true;
	if (!m && pt_nccl_bare(t))
		return t;
	return m ? pt_skip_ws(m + 10) : NULL;
}

/* A connection cut from its "Channel 00/0 : " start: "9[1a000] -> 2[6b000] [send] via
 * NET/IB/0/GDRDMA". */
static bool connection_start(const char *t)
{
	long v;
	const char *p;
	if (!pt_dec(t, &v, &p) || *p != '[')
		return false;
	const char *arrow = strstr(p, " -> "), *via = strstr(p, " via ");
	return arrow && via && arrow < via && arrow - p < 24;
}

/* "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", "Ring 00 : 1 -> 2 via SHM", "NET/IB : ...":
 * what NCCL logs, with the "host:pid:tid [dev] NCCL INFO" prefix a grep or a log
 * collector took off, or the connection alone. */
bool pt_nccl_bare(const char *t)
{
	if (connection_start(t))
		return true;
	if (pt_starts(t, "NET/"))
		return strstr(t, " : ") && strstr(t, " : ") - t < 40;
	const char *p = pt_starts(t, "Channel ") ? t + 8 : pt_starts(t, "Ring ") ? t + 5 : NULL;
	long v;
	if (!p || !pt_dec(p, &v, &p))
		return false;
	if (*p == '/' && !pt_dec(p + 1, &v, &p))
		return false;
	return pt_starts(p, " : ") && strstr(p, " -> ") && strstr(p, " via ");
}

/* NCCL's busId number ("1b000", "1901000": domain, bus, device and function as hex
 * digits run together) as an address. */
static bool nccl_busid(const char *s, size_t n, struct p2ps_bdf *b)
{
	char buf[20];
	if (n < 4 || n > 12)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	uint64_t v;
	if (!pt_hex(buf, &v, NULL))
		return false;
	*b = (struct p2ps_bdf){(uint32_t)(v >> 20), (uint8_t)(v >> 12), (uint8_t)((v >> 4) & 0x1f),
	                       (uint8_t)(v & 7)};
	return true;
}

/* The CUDA device of "rank[x]": x is a device number (short) or a busId (long). */
static int nccl_dev(struct pctx *c, const char *s, const char **end)
{
	long rank;
	const char *p;
	if (!pt_dec(s, &rank, &p) || *p != '[')
		return -1;
	const char *q = strchr(p, ']');
	if (!q || q - p > 14)
		return -1;
	*end = q + 1;
	size_t n = (size_t)(q - p - 1);
	struct p2ps_bdf b;
	long dev;
	if (n <= 2) {
		if (!pt_dec(p + 1, &dev, NULL) || dev >= NCCL_DEVS)
			return -1;
		pt_gpu_cuda(c, (int)dev); /* the pair table lists it */
		return (int)dev;
	}
	if (!nccl_busid(p + 1, n, &b))
		return -1;
	struct p2ps_paste_gpu *g = pt_gpu_bdf(c, &b);
	if (!g)
		return -1;
	if (g->cuda < 0 && rank < NCCL_DEVS && !p2ps_paste_gpu_cuda(c->p, (int)rank))
		g->cuda = (int)rank; /* one process per GPU on one host: ranks follow devices */
	return g->cuda < NCCL_DEVS ? g->cuda : -1;
}

/* "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", "Ring 00 : 26[2] -> 24[0] via SHM". */
static void nccl_channel(struct pctx *c, struct nccl_state *st, const char *m, int line)
{
	const char *via = strstr(m, " via ");
	const char *colon = strstr(m, " : ");
	if (colon && via && colon > via)
		colon = NULL;
	const char *start = colon ? colon + 3 : connection_start(m) ? m : NULL;
	if (!via || !start)
		return;
	const char *t = via + 5;
	enum p2ps_paste_nccl_via k = pt_starts(t, "P2P") ? P2PS_NV_P2P
	                             : pt_starts(t, "SHM") || pt_starts(t, "direct shared memory")
	                                     ? P2PS_NV_SHM
	                             : pt_starts(t, "NET") || pt_starts(t, "Coll") ? P2PS_NV_NET
	                                                                           : P2PS_NV_COUNT;
	if (k == P2PS_NV_COUNT)
		return;
	struct p2ps_paste_nccl *nc = &c->p->nccl;
	if (k == P2PS_NV_NET && strstr(t, "/GDRDMA"))
		nc->via_gdr++;
	else if (k == P2PS_NV_NET && strstr(m, "[receive]") && !nc->recv_no_gdr++)
		nc->recv_no_gdr_from = pt_where(c, line);
	if (!nc->via[k]++)
		nc->via_from[k] = pt_where(c, line);
	if (k == P2PS_NV_P2P && !nc->p2p_how[0]) {
		size_t n = strcspn(t, " ");
		if (pt_starts(t, "P2P/direct pointer"))
			n = strlen("P2P/direct pointer");
		snprintf(nc->p2p_how, sizeof(nc->p2p_how), "%.*s", (int)n, t);
	}
	st->facts++;
	if (st->multi_host)
		return;
	const char *p = pt_skip_ws(start), *e;
	int a = nccl_dev(c, p, &e);
	if (a < 0 || !pt_starts(e, " -> "))
		return;
	int b = nccl_dev(c, e + 4, &e);
	if (b < 0 || a == b || k == P2PS_NV_NET)
		return;
	if (!st->tr[a][b])
		st->tr[a][b] = "PSN"[k];
	if (a + 1 > st->n)
		st->n = a + 1;
	if (b + 1 > st->n)
		st->n = b + 1;
	if (!st->line)
		st->line = line;
}

/* "ncclCommInitRank comm 0x.. rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1901000 ...". */
static void nccl_init(struct pctx *c, const char *m)
{
	const char *cd = strstr(m, "cudaDev "), *bi = strstr(m, "busId ");
	long dev;
	struct p2ps_bdf b;
	if (!cd || !bi || !pt_dec(cd + 8, &dev, NULL) || dev >= P2PS_PASTE_MAX_GPUS)
		return;
	const char *h = bi + 6;
	size_t n = strspn(h, "0123456789abcdefABCDEF");
	if (!nccl_busid(h, n, &b))
		return;
	struct p2ps_paste_gpu *g = pt_gpu_bdf(c, &b);
	if (g && g->cuda < 0)
		g->cuda = (int)dev;
}

void pt_nccl_version(struct pctx *c, const char *version, int line)
{
	struct p2ps_paste_nccl *nc = &c->p->nccl;
	if (!nc->version[0]) {
		snprintf(nc->version, sizeof(nc->version), "%s", version);
		nc->version_from = pt_where(c, line);
	}
	pt_release(c, P2PS_SW_NCCL, version, line);
}

/* "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)", "... Enabled for
 * HCA 0 'mlx5_0'", "NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'", and the
 * per-GPU form of older releases, "... Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)". */
static void gdr_line(struct p2ps_paste_nccl *nc, const char *m, struct p2ps_paste_where w)
{
	const char *g = strstr(m, "GPU Direct RDMA ");
	if (strstr(g, "Disabled for HCA") || strstr(g, "Disabled for GPU")) {
		if (!nc->gdr_disabled++) {
			nc->gdr_disabled_from = w;
			const char *net = strstr(m, "NET/");
			snprintf(nc->gdr_disabled_text, sizeof(nc->gdr_disabled_text), "%s",
			         net ? net : g);
		}
	} else if (strstr(g, "nabled for HCA") || strstr(g, "nabled for GPU")) {
		nc->gdr_enabled++;
		nc->gdr_dmabuf |= strstr(g, "(DMABUF)") != NULL;
	}
}

static void env_add(struct p2ps_paste_nccl *nc, const char *v)
{
	for (int i = 0; i < nc->n_env; i++)
		if (!strcmp(nc->env[i], v))
			return;
	if (nc->n_env < 8)
		snprintf(nc->env[nc->n_env++], sizeof(nc->env[0]), "%s", v);
}

void pt_command_env(struct pctx *c, const char *cmd)
{
	for (const char *p = cmd; *p;) {
		while (*p == '*')
			p++;
		size_t n = strcspn(p, " *");
		if (pt_starts(p, "NCCL_") && memchr(p, '=', n) && n < 128) {
			char buf[128];
			snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
			env_add(&c->p->nccl, buf);
		}
		p += n;
		p += strspn(p, " *");
	}
}

static void nccl_env(struct pctx *c, const char *m)
{
	/* "NCCL_P2P_DISABLE set by environment to 1" */
	const char *s = strstr(m, " set by environment to ");
	struct p2ps_paste_nccl *nc = &c->p->nccl;
	if (!s || !pt_starts(m, "NCCL_") || nc->n_env == 8)
		return;
	char buf[128];
	snprintf(buf, sizeof(buf), "%.*s=%s", (int)(s - m), m, pt_skip_ws(s + 23));
	buf[strcspn(buf, " \t")] = '\0';
	size_t n = strlen(buf);
	if (n && buf[n - 1] == '.') /* "set by environment to 1." */
		buf[n - 1] = '\0';
	env_add(nc, buf);
}

static void nccl_line(struct pctx *c, struct nccl_state *st, const char *t, int line)
{
	bool warn;
	const char *m = nccl_msg(t, &warn);
	nccl_host(st, t);
	st->warns += warn;
	st->infos += m && !warn;
	if (pt_error_line(c, t, line))
		st->facts++;
	if (!m)
		return;
	struct p2ps_paste_nccl *nc = &c->p->nccl;
	const char *p;
	if (pt_starts(m, "NCCL version ")) {
		char v[32];
		snprintf(v, sizeof(v), "%.*s", (int)strcspn(m + 13, " "), m + 13);
		pt_nccl_version(c, v, line);
		st->facts++;
	} else if (pt_starts(m, "ncclMaxSharedMem ") && strstr(m, " exceeds ")) {
		if (!nc->shared_mem_short++)
			nc->shared_mem_from = pt_where(c, line);
		pt_outcome(c, false, line);
		st->facts++;
	} else if (strstr(m, "GPU Direct RDMA ")) {
		gdr_line(nc, m, pt_where(c, line));
		st->facts++;
	} else if (((pt_starts(m, "Channel ") || pt_starts(m, "Ring ")) && strstr(m, " via ")) ||
	           connection_start(m)) {
		nccl_channel(c, st, m, line);
	} else if (strstr(m, "cudaDev ") && strstr(m, "busId ")) {
		nccl_init(c, m);
	} else if ((p = strstr(m, "intraNodeP2pSupport ")) != NULL) {
		nc->intra_p2p = p[20] == '1';
		st->facts++;
	} else if (strstr(m, " set by environment to ")) {
		nccl_env(c, m);
	}
}

void pt_parse_nccl(struct pctx *c, const struct pl_span *sp)
{
	struct nccl_state *st = calloc(1, sizeof(*st));
	if (!st) {
		c->oom = true;
		return;
	}
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom)
		nccl_line(c, st, pt_skip_ws(l.s), l.no);
	c->p->several_hosts |= st->multi_host;
	struct p2ps_paste_matrix *m = &c->p->m[P2PS_PM_NCCL];
	if (st->n && !st->multi_host && !m->present &&
	    pt_matrix(c, P2PS_PM_NCCL, st->n, st->line)) {
		static const char *const names[] = {"P2P", "SHM", "NET"};
		for (int i = 0; i < st->n; i++)
			for (int j = 0; j < st->n; j++) {
				const char *k = strchr("PSN", st->tr[i][j] ? st->tr[i][j] : '-');
				if (k)
					pt_cell_set(m, i, j, names[k - "PSN"], 3);
			}
		m->rows = st->n;
	}
	const struct p2ps_paste_nccl *nc = &c->p->nccl;
	if (!st->facts && !nc->n_env) {
		c->p->unread_blocks++;
		pt_summary(c,
		           "recognised, not understood: %d NCCL line%s with no version, transport "
		           "or error",
		           st->infos + st->warns, st->infos + st->warns == 1 ? "" : "s");
	} else {
		pt_summary(c, "NCCL%s%s: %d INFO, %d WARN; channels via P2P %d, SHM %d, NET %d",
		           nc->version[0] ? " " : "", nc->version, st->infos, st->warns,
		           nc->via[P2PS_NV_P2P], nc->via[P2PS_NV_SHM], nc->via[P2PS_NV_NET]);
	}
	free(st);
}
