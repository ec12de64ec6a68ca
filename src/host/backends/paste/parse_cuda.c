/* SPDX-License-Identifier: MIT */
/* CUDA sample output: p2pBandwidthLatencyTest (device list with PCI addresses, "Device=i
 * CAN Access Peer Device=j", the connectivity, bandwidth and latency matrices), simpleP2P
 * ("> Peer access from ... (GPU0) -> ... (GPU1) : Yes", the memcpy bandwidth, verification
 * errors, "Test passed"/"failed", "waiving test") and nccl-tests (the rank lines with
 * bus ids, "# Avg bus bandwidth"). */
#include <limits.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"
#include "p2pscope/parse.h"

/* A matrix whose title the paste lost: its rows wait for the next title, which says what
 * they were (the sample prints its matrices in a fixed order, print_order[]). */
struct untitled {
	int cols, rows, header_line;
	char cell[P2PS_PASTE_MAX_GPUS][P2PS_PASTE_MAX_GPUS][P2PS_PASTE_CELL];
	int row_line[P2PS_PASTE_MAX_GPUS];
};

struct cuda_state {
	int tf_rows;
	/* A Python peer-access query awaiting its answer, and how many more non-empty lines
	 * it may come in (blank lines between them are a forum's double spacing). */
	int query_a, query_b, query_line, query_left;
	enum p2ps_paste_matrix_kind mat; /* matrix whose rows follow, P2PS_PM_COUNT none */
	int cols;
	int header_line;
	bool cpu_part; /* past the "CPU" half of a latency matrix */
	struct untitled pending;
	int access[P2PS_PASTE_MAX_GPUS][P2PS_PASTE_MAX_GPUS]; /* -1 unknown, 0, 1 */
	int access_n, access_line;
	int devices, matrices, lines;
};

static void access_set(struct cuda_state *st, int i, int j, int v, int line)
{
	if (i < 0 || j < 0 || i >= P2PS_PASTE_MAX_GPUS || j >= P2PS_PASTE_MAX_GPUS)
		return;
	st->access[i][j] = v;
	if (i + 1 > st->access_n)
		st->access_n = i + 1;
	if (j + 1 > st->access_n)
		st->access_n = j + 1;
	if (!st->access_line)
		st->access_line = line;
}

/* "Device: 0, NVIDIA GeForce RTX 5090, pciBusID: 16, pciDeviceID: 0, pciDomainID:0" */
static void device_line(struct pctx *c, struct cuda_state *st, const char *t)
{
	long idx;
	const char *p;
	if (!pt_dec(t + 8, &idx, &p) || *p != ',' || idx >= P2PS_PASTE_MAX_GPUS)
		return;
	const char *bus = strstr(p, "pciBusID:"), *dev = strstr(p, "pciDeviceID:"),
	           *dom = strstr(p, "pciDomainID:");
	uint64_t b = 0, d = 0, m = 0;
	bool addr = bus && dev && dom && pt_hex(pt_skip_ws(bus + 9), &b, NULL) &&
	            pt_hex(pt_skip_ws(dev + 12), &d, NULL) &&
	            pt_hex(pt_skip_ws(dom + 12), &m, NULL) && b <= 0xff && d <= 0x1f;
	struct p2ps_bdf bdf = {(uint32_t)m, (uint8_t)b, (uint8_t)d, 0};
	struct p2ps_paste_gpu *g = addr ? pt_gpu_bdf(c, &bdf) : pt_gpu_cuda(c, (int)idx);
	if (!g)
		return;
	g->cuda = (int)idx;
	const char *name = pt_skip_ws(p + 1);
	size_t n = bus ? (size_t)(bus - name) : strlen(name);
	while (n && (name[n - 1] == ' ' || name[n - 1] == ','))
		n--;
	snprintf(g->name, sizeof(g->name), "%.*s", (int)n, name);
	st->devices++;
}

/* The order p2pBandwidthLatencyTest prints its matrices in (p2pBandwidthLatencyTest.cu:
 * main(): connectivity, unidirectional off/on, bidirectional off/on, latency off/on). */
static const enum p2ps_paste_matrix_kind print_order[] = {
        P2PS_PM_CUDA_CONNECT, P2PS_PM_BW_UNI_OFF, P2PS_PM_BW_UNI_ON, P2PS_PM_BW_BI_OFF,
        P2PS_PM_BW_BI_ON,     P2PS_PM_LAT_OFF,    P2PS_PM_LAT_ON};

/* The rows that came before the first title belong to the matrix printed before it. */
static void place_untitled(struct pctx *c, struct cuda_state *st, enum p2ps_paste_matrix_kind k)
{
	struct untitled *u = &st->pending;
	enum p2ps_paste_matrix_kind before = P2PS_PM_COUNT;
	for (size_t i = 1; i < sizeof(print_order) / sizeof(print_order[0]); i++)
		if (print_order[i] == k)
			before = print_order[i - 1];
	int rows = u->rows;
	u->rows = 0;
	if (!rows || before == P2PS_PM_COUNT || c->p->m[before].present ||
	    !pt_matrix(c, before, u->cols, u->header_line))
		return;
	struct p2ps_paste_matrix *m = &c->p->m[before];
	for (int i = 0; i < u->cols; i++) {
		for (int j = 0; j < u->cols; j++)
			pt_cell_set(m, i, j, u->cell[i][j], strlen(u->cell[i][j]));
		pt_row_line(m, i, u->row_line[i]);
	}
	m->rows = rows;
	st->matrices++;
}

/* "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)" and the others. */
static bool matrix_title(struct cuda_state *st, const char *t)
{
	static const struct {
		const char *prefix;
		enum p2ps_paste_matrix_kind k;
	} titles[] = {
	        {"P2P Connectivity Matrix", P2PS_PM_CUDA_CONNECT},
	        {"Unidirectional P2P=Disabled Bandwidth", P2PS_PM_BW_UNI_OFF},
	        {"Unidirectional P2P=Enabled Bandwidth", P2PS_PM_BW_UNI_ON},
	        {"Bidirectional P2P=Disabled Bandwidth", P2PS_PM_BW_BI_OFF},
	        {"Bidirectional P2P=Enabled Bandwidth", P2PS_PM_BW_BI_ON},
	        {"P2P=Disabled Latency", P2PS_PM_LAT_OFF},
	        {"P2P=Enabled Latency (P2P Writes)", P2PS_PM_LAT_ON},
	        {"P2P=Enabled Latency", P2PS_PM_LAT_ON},
	};
	/* A title may be run into the text before it ("... results Unidirectional P2P=...")
	 * or lose its start ("directional P2P=Disabled Bandwidth Matrix"): the part from
	 * "P2P=" on decides, with "Bidirectional" before it. */
	const char *p2p = strstr(t, "P2P=");
	bool bi = p2p && strstr(t, "Bidirectional") && strstr(t, "Bidirectional") < p2p;
	for (size_t i = 0; p2p && i < sizeof(titles) / sizeof(titles[0]); i++) {
		const char *k = strstr(titles[i].prefix, "P2P=");
		if (!k || !pt_starts(p2p, k) ||
		    (k != titles[i].prefix && bi != (titles[i].prefix[0] == 'B')))
			continue;
		st->mat = titles[i].k;
		st->cols = 0;
		st->cpu_part = false;
		return true;
	}
	for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
		if (pt_starts(t, titles[i].prefix)) {
			st->mat = titles[i].k;
			st->cols = 0;
			st->cpu_part = false;
			return true;
		}
	return false;
}

/* A matrix header ("D\D 0 1 2", "GPU 0 1 2") or row ("0 673.20 13.15"). */
static void untitled_line(struct cuda_state *st, char **tok, int n, int line)
{
	struct untitled *u = &st->pending;
	long row;
	if (n >= 2 && !strcmp(tok[0], "D\\D")) {
		u->cols = n - 1 < P2PS_PASTE_MAX_GPUS ? n - 1 : P2PS_PASTE_MAX_GPUS;
		u->header_line = line;
		u->rows = 0;
		memset(u->cell, 0, sizeof(u->cell));
		return;
	}
	/* Rows without their header (the excerpt starts inside a matrix): as many columns
	 * as the row has figures. */
	if (!u->cols && n >= 3 && strchr(tok[1], '.')) {
		u->cols = n - 1 < P2PS_PASTE_MAX_GPUS ? n - 1 : P2PS_PASTE_MAX_GPUS;
		u->header_line = line;
	}
	if (!u->cols || !pt_dec(tok[0], &row, NULL) || row >= u->cols)
		return;
	for (int j = 0; j + 1 < n && j < u->cols; j++)
		snprintf(u->cell[row][j], P2PS_PASTE_CELL, "%s", tok[j + 1]);
	u->row_line[row] = line;
	u->rows++;
}

/* Whether tok[0..n) reads 0 1 2 ... n-1. */
static bool counts_up(char *const *tok, int n)
{
	for (int i = 0; i < n; i++) {
		long v;
		const char *e;
		if (!pt_dec(tok[i], &v, &e) || *e || v != i)
			return false;
	}
	return n >= 2;
}

static void matrix_line(struct pctx *c, struct cuda_state *st, const char *t, int line)
{
	if (st->cpu_part)
		return;
	if (pt_starts(t, "CPU")) {
		st->cpu_part = true;
		return;
	}
	char buf[1024], *tok[P2PS_PASTE_MAX_GPUS + 2], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", t);
	int n = 0;
	for (char *s = strtok_r(buf, " \t", &save); s && n < P2PS_PASTE_MAX_GPUS + 2;
	     s = strtok_r(NULL, " \t", &save))
		tok[n++] = s;
	if (st->mat == P2PS_PM_COUNT) {
		if (n)
			untitled_line(st, tok, n, line);
		return;
	}
	if (n >= 2 && (!strcmp(tok[0], "D\\D") || !strcmp(tok[0], "GPU"))) {
		st->cols = n - 1;
		st->header_line = line;
		return;
	}
	if (st->mat == P2PS_PM_D2D && !st->cols && counts_up(tok, n)) {
		st->cols = n; /* nvbandwidth's header: the column numbers alone */
		st->header_line = line;
		return;
	}
	long row;
	if (!st->cols || !n || !pt_dec(tok[0], &row, NULL))
		return;
	struct p2ps_paste_matrix *m = &c->p->m[st->mat];
	if (!m->present) {
		if (!pt_matrix(c, st->mat, st->cols, st->header_line))
			return;
		st->matrices++;
	}
	if (row >= m->n || n - 1 != m->n) {
		m->ragged = true;
		if (row >= m->n)
			return;
	}
	for (int j = 0; j + 1 < n && j < m->n; j++)
		pt_cell_set(m, (int)row, j, tok[j + 1], strlen(tok[j + 1]));
	pt_row_line(m, (int)row, line);
	m->rows++;
}

/* simpleP2P: "> Peer access from NAME (GPU0) -> NAME (GPU1) : Yes" (the "> " may be
 * gone with a markdown quote). The GPUs are CUDA ordinals; their names are kept. */
static void simple_access(struct pctx *c, struct cuda_state *st, const char *t, int line)
{
	const char *a = strstr(t, "(GPU"), *b = a ? strstr(a + 4, "(GPU") : NULL;
	const char *v = strrchr(t, ':');
	const char *from = strstr(t, " from ");
	if (!a || !b || !v || !from)
		return;
	long i, j;
	if (!pt_dec(a + 4, &i, NULL) || !pt_dec(b + 4, &j, NULL) || i > INT_MAX || j > INT_MAX)
		return;
	access_set(st, (int)i, (int)j, strstr(v, "Yes") != NULL, line);
	struct p2ps_paste_gpu *g = i < P2PS_PASTE_MAX_GPUS ? pt_gpu_cuda(c, (int)i) : NULL;
	if (g && !g->name[0] && a > from + 6)
		snprintf(g->name, sizeof(g->name), "%.*s", (int)(a - from - 7), from + 6);
	const char *arrow = strstr(a, "-> ");
	g = j < P2PS_PASTE_MAX_GPUS ? pt_gpu_cuda(c, (int)j) : NULL;
	if (g && !g->name[0] && arrow && b > arrow + 4)
		snprintf(g->name, sizeof(g->name), "%.*s", (int)(b - arrow - 4), arrow + 3);
}

/* simpleP2P by its own lines where its banner is not in the paste. */
static void simple_p2p(struct pctx *c)
{
	if (!c->p->cuda.test[0])
		snprintf(c->p->cuda.test, sizeof(c->p->cuda.test), "simpleP2P");
}

/* simpleP2P: "Enabling peer access between GPU0 and GPU1..." names the pair it tests; it
 * gets there only when CUDA allows peer access both ways (else it waives the test). */
static void enabling(struct pctx *c, const char *t, int line)
{
	struct p2ps_paste_cuda *cu = &c->p->cuda;
	long a, b;
	const char *p;
	if (!pt_dec(t + 32, &a, &p) || !pt_starts(p, " and GPU") || !pt_dec(p + 8, &b, NULL) ||
	    a >= P2PS_PASTE_MAX_GPUS || b >= P2PS_PASTE_MAX_GPUS || a == b)
		return;
	cu->enabled_a = (int)a;
	cu->enabled_b = (int)b;
	cu->enabled_from = pt_where(c, line);
	pt_gpu_cuda(c, (int)a);
	pt_gpu_cuda(c, (int)b);
	simple_p2p(c);
}

static void result_line(struct pctx *c, const char *t, int line)
{
	struct p2ps_paste_cuda *cu = &c->p->cuda;
	const char *p;
	if (pt_starts(t, "Verification error @")) {
		if (!cu->verify_errors++) {
			cu->first_error = pt_where(c, line);
			snprintf(cu->first_error_text, sizeof(cu->first_error_text), "%s", t);
			pt_outcome(c, false, line);
		}
	} else if (pt_starts(t, "Test passed")) {
		cu->result = 1;
		cu->result_from = pt_where(c, line);
		pt_outcome(c, true, line);
	} else if (pt_starts(t, "Test failed") || pt_starts(t, "Test FAILED")) {
		cu->result = 0;
		cu->result_from = pt_where(c, line);
		pt_outcome(c, false, line);
	} else if (pt_starts(t, "Enabling peer access between GPU")) {
		enabling(c, t, line);
	} else if (strstr(t, "waiving test")) {
		cu->waived = true;
	} else if (pt_starts(t, "cudaMemcpyPeer / cudaMemcpy") && (p = strrchr(t, ':'))) {
		cu->memcpy_gbps = pt_number(p + 1);
		simple_p2p(c);
	} else if (pt_starts(t, "Out of bounds values") && (p = strchr(t, ':'))) {
		/* nccl-tests' own summary: "Out of bounds values : 0 OK", "... : 50 FAILED". */
		long bad = 0;
		if (!pt_dec(pt_skip_ws(p + 1), &bad, NULL))
			return;
		if (cu->nccl_wrong < 0)
			cu->nccl_wrong = 0;
		cu->nccl_wrong += bad > 0 ? (int)(bad > 1000000 ? 1000000 : bad) : 0;
		snprintf(cu->test, sizeof(cu->test), "nccl-tests");
		pt_outcome(c, bad == 0, line);
	} else if (pt_starts(t, "Avg bus bandwidth") && (p = strchr(t, ':'))) {
		cu->nccl_busbw = pt_number(p + 1);
		snprintf(cu->test, sizeof(cu->test), "nccl-tests");
		if (cu->nccl_busbw > 0)
			pt_outcome(c, true, line);
	}
}

/* nccl-tests: "#  Rank  0 Group  0 Pid 123 on host device  0 [0x01] NVIDIA GeForce ...". */
static void nccl_rank(struct pctx *c, struct cuda_state *st, const char *t)
{
	const char *d = strstr(t, " device "), *br = d ? strchr(d, '[') : NULL;
	long idx;
	uint64_t bus;
	struct p2ps_bdf b = {0};
	if (!br || !pt_dec(pt_skip_ws(d + 8), &idx, NULL) || idx >= P2PS_PASTE_MAX_GPUS)
		return;
	/* "[0x01]" (a bus number) or "[0000:01:00]" (domain, bus, device). */
	char tok[16];
	const char *close = strchr(br, ']');
	if (!close)
		return; /* cut inside the brackets */
	size_t n = (size_t)(close - br - 1);
	if (pt_starts(br + 1, "0x") && pt_hex(br + 1, &bus, NULL) && bus <= 0xff) {
		b.bus = (uint8_t)bus;
	} else if (n >= 5 && n + 3 < sizeof(tok)) {
		snprintf(tok, sizeof(tok), "%.*s.0", (int)n, br + 1);
		if (p2ps_bdf_parse(tok, &b) < 0)
			return;
	} else {
		return;
	}
	/* Ranks that each see one GPU (one per process, CUDA_VISIBLE_DEVICES) may all print
	 * the same address: then it is no GPU's address, and the ranks' devices stand alone. */
	struct p2ps_paste_gpu *same = NULL;
	for (size_t i = 0; i < c->p->n_gpus && !same; i++)
		if (p2ps_bdf_equal(&c->p->gpus[i].bdf, &b) && c->p->gpus[i].cuda >= 0 &&
		    c->p->gpus[i].cuda != idx)
			same = &c->p->gpus[i];
	if (same)
		same->bdf_known = false;
	struct p2ps_paste_gpu *g = same ? pt_gpu_cuda(c, (int)idx) : pt_gpu_bdf(c, &b);
	if (g) {
		g->cuda = (int)idx;
		snprintf(g->name, sizeof(g->name), "%s", pt_skip_ws(close + 1));
		st->devices++;
	}
	snprintf(c->p->cuda.test, sizeof(c->p->cuda.test), "nccl-tests");
}

/* Splits t (copied into buf) into at most max blank-separated tokens. */
static int tokens(const char *t, char *buf, size_t size, char **tok, int max)
{
	char *save = NULL;
	int n = 0;
	snprintf(buf, size, "%s", t);
	for (char *s = strtok_r(buf, " \t", &save); s && n < max; s = strtok_r(NULL, " \t", &save))
		tok[n++] = s;
	return n;
}

/* The wrong values a result row counts: the last column of its out-of-place group and of
 * its in-place group (each is time, algbw, busbw, then the count), read from the row's end,
 * so that rows with or without the redop and root columns, or with a column the copy lost,
 * read the same. nccl-tests 2.x prints an integer count ("0"; "N/A" where it did not
 * check); older releases the largest error ("0e+00", "2e-07" is rounding, not a wrong
 * value). */
static void wrong_values(struct pctx *c, const char *t, int line)
{
	char buf[512], *tok[32];
	int n = tokens(t, buf, sizeof(buf), tok, 32);
	struct p2ps_paste_cuda *cu = &c->p->cuda;
	if (n < 11)
		return;
	for (int i = n - 5; i < n; i += 4) {
		double v = 0;
		if (!p2ps_scan_double(tok[i], &v))
			continue;
		if (cu->nccl_wrong < 0)
			cu->nccl_wrong = 0;
		bool count = strspn(tok[i], "0123456789") == strlen(tok[i]);
		if (count ? v > 0 : v >= 1e-2) {
			cu->nccl_wrong++;
			pt_outcome(c, false, line);
		}
	}
}

bool pt_nccl_tests_header(const char *t)
{
	return (pt_starts(t, "size") || pt_starts(t, "bytes")) && strstr(t, "busbw");
}

bool pt_nccl_tests_row(const char *t)
{
	static const char *const types[] = {"float",    "double",   "half",   "bfloat16", "int8",
	                                    "uint8",    "int32",    "uint32", "int64",    "uint64",
	                                    "fp8_e4m3", "fp8_e5m2", "char",   "int"};
	long v;
	const char *p;
	if (!pt_dec(t, &v, &p) || (*p != ' ' && *p != '\t'))
		return false;
	p = pt_skip_ws(p);
	if (!pt_dec(p, &v, &p)) /* count */
		return false;
	p = pt_skip_ws(p);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = strlen(types[i]);
		if (!strncmp(p, types[i], n) && (p[n] == ' ' || p[n] == '\t'))
			return true;
	}
	return false;
}

/* "Device=I CAN Access Peer Device=J": 1, "... CANNOT ...": 0, another line: -1. */
static int access_line(const char *t, int *i, int *j)
{
	const char *p;
	long a, b;
	if (!pt_starts(t, "Device=") || !pt_dec(t + 7, &a, &p))
		return -1;
	int can = pt_starts(p, " CAN Access Peer Device=")      ? 1
	          : pt_starts(p, " CANNOT Access Peer Device=") ? 0
	                                                        : -1;
	if (can < 0 || !pt_dec(strchr(p, '=') + 1, &b, NULL) || a > INT_MAX || b > INT_MAX)
		return -1;
	*i = (int)a;
	*j = (int)b;
	return can;
}

/* A run's summary of the CUDA samples ("  simpleP2P : Failed (code 1)"): the P2P samples'
 * own result. */
static bool samples_summary(struct pctx *c, const char *t, int line)
{
	static const char *const p2p[] = {"simpleP2P", "p2pBandwidthLatencyTest"};
	for (size_t i = 0; i < sizeof(p2p) / sizeof(p2p[0]); i++) {
		size_t n = strlen(p2p[i]);
		if (strncmp(t, p2p[i], n))
			continue;
		const char *p = pt_skip_ws(t + n);
		if (*p != ':')
			continue;
		p = pt_skip_ws(p + 1);
		int r = pt_starts(p, "Passed") ? 1 : pt_starts(p, "Failed") ? 0 : -1;
		if (r < 0)
			return false;
		struct p2ps_paste_cuda *cu = &c->p->cuda;
		snprintf(cu->test, sizeof(cu->test), "%s", p2p[i]);
		cu->result = r;
		cu->result_from = pt_where(c, line);
		pt_outcome(c, r == 1, line);
		return true;
	}
	return false;
}

/* nvbandwidth ("nvbandwidth Version: v0.2"): its device list ("Device 0: NVIDIA GeForce
 * RTX 2080 Ti") and a device-to-device test it waives, which it does where the devices
 * have no peer access. */
static bool nvbandwidth(struct pctx *c, struct cuda_state *st, const char *t, int line)
{
	struct p2ps_paste_cuda *cu = &c->p->cuda;
	long idx;
	const char *p;
	/* A matrix title: "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)" (or SM, or
	 * "<-"); between GPUs its rows follow, between CPU and GPU they are not P2P. */
	if (pt_starts(t, "memcpy CE ") || pt_starts(t, "memcpy SM ")) {
		bool gpus = pt_starts(t + 10, "GPU(row)") && strstr(t, "GPU(column)") &&
		            strstr(t, "bandwidth");
		st->mat = gpus ? P2PS_PM_D2D : P2PS_PM_COUNT;
		st->cols = 0;
		st->cpu_part = false;
		if (!cu->test[0])
			snprintf(cu->test, sizeof(cu->test), "nvbandwidth");
		return true;
	}
	if (pt_starts(t, "nvbandwidth Version")) {
		snprintf(cu->test, sizeof(cu->test), "nvbandwidth");
	} else if (pt_starts(t, "Waiving device_to_device")) {
		cu->waived = true;
		pt_outcome(c, false, line);
	} else if (!strcmp(cu->test, "nvbandwidth") && pt_starts(t, "Device ") &&
	           pt_dec(t + 7, &idx, &p) && p[0] == ':' && idx < P2PS_PASTE_MAX_GPUS) {
		/* "Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)": the bus id, where given
		 * (domain, bus and device; the function is 0). */
		const char *name = pt_skip_ws(p + 1), *open = strrchr(name, '(');
		struct p2ps_bdf bdf;
		bool dom;
		char id[24] = "";
		if (open && strcspn(open + 1, ")") < 16)
			snprintf(id, sizeof(id), "%.*s%s", (int)strcspn(open + 1, ")"), open + 1,
			         strchr(open, '.') ? "" : ".0");
		bool addr = id[0] && pt_bdf(id, &bdf, &dom, NULL);
		struct p2ps_paste_gpu *g = addr ? pt_gpu_bdf(c, &bdf) : pt_gpu_cuda(c, (int)idx);
		if (g)
			g->cuda = (int)idx;
		st->devices++;
		size_t n = addr ? (size_t)(open - name) : strlen(name);
		while (n && name[n - 1] == ' ')
			n--;
		if (g && !g->name[0])
			snprintf(g->name, sizeof(g->name), "%.*s", (int)n, name);
	} else {
		return false;
	}
	return true;
}

/* TensorFlow's device line: "Created TensorFlow device (/job:...:GPU:0 with 9854 MB
 * memory) -> physical GPU (device: 0, name: GeForce RTX 2080 Ti, pci bus id: 0000:05:00.0,
 * compute capability: 7.5)". */
static bool tensorflow_device(struct pctx *c, const char *t)
{
	const char *p = strstr(t, "physical GPU (device: ");
	long idx;
	if (!p || !pt_dec(p + 22, &idx, &p) || idx < 0 || idx >= P2PS_PASTE_MAX_GPUS)
		return false;
	const char *name = strstr(p, "name: "), *bus = strstr(p, "pci bus id: ");
	struct p2ps_bdf bdf;
	bool dom;
	struct p2ps_paste_gpu *g = bus && pt_bdf(bus + 12, &bdf, &dom, NULL)
	                                   ? pt_gpu_bdf(c, &bdf)
	                                   : pt_gpu_cuda(c, (int)idx);
	if (!g)
		return true;
	g->cuda = (int)idx;
	if (name && !g->name[0]) {
		size_t n = strcspn(name + 6, ",)");
		snprintf(g->name, sizeof(g->name), "%.*s", (int)n, name + 6);
	}
	return true;
}

/* TensorFlow: "cannot enable peer access from device ordinal 0 to device ordinal 2", and
 * its matrix of peer access ("DMA: 0 1 2 3", or from TensorFlow 1.13 "Device interconnect
 * StreamExecutor with strength 1 edge matrix:" and a header "0 1 2 3"; then rows "0:   Y Y
 * N N"). */
static bool tensorflow(struct cuda_state *st, const char *t, int line)
{
	const char *p = strstr(t, "peer access from device ordinal ");
	long a, b;
	if (p && pt_dec(p + 32, &a, &p) && pt_starts(p, " to device ordinal ") &&
	    pt_dec(p + 19, &b, NULL)) {
		access_set(st, (int)a, (int)b, strstr(t, "cannot enable") == NULL, line);
		return true;
	}
	const char *m = strstr(t, "] DMA: ");
	if (m || (t[0] == 'D' && pt_starts(t, "DMA: ")) || strstr(t, " edge matrix:")) {
		st->tf_rows = 0;
		return true;
	}
	const char *r = strstr(t, "] ");
	r = r ? r + 2 : t;
	if (!pt_dec(r, &a, &p) || p[0] != ':' || !strchr("YN", pt_skip_ws(p + 1)[0]))
		return false;
	p = pt_skip_ws(p + 1);
	for (int j = 0; (*p == 'Y' || *p == 'N') && j < P2PS_PASTE_MAX_GPUS; j++) {
		if (j != a)
			access_set(st, (int)a, j, *p == 'Y', line);
		p = pt_skip_ws(p + 1);
	}
	return true;
}

/* Python asking CUDA: "cudart.cudaDeviceCanAccessPeer(0, 1)" or
 * "torch.cuda.can_device_access_peer(0, 1)", and the answer a few lines below ("0",
 * "1", "True", "False"). */
static bool python_query(struct cuda_state *st, const char *t, int line)
{
	const char *q = strstr(t, "DeviceCanAccessPeer(");
	q = q ? q + 20 : strstr(t, "can_device_access_peer(");
	if (q && q[-1] != '(')
		q += 23;
	long a, b;
	const char *p;
	if (q && pt_dec(pt_skip_ws(q), &a, &p) && *p == ',' &&
	    pt_dec(pt_skip_ws(p + 1), &b, NULL)) {
		st->query_a = (int)a;
		st->query_b = (int)b;
		st->query_line = line;
		st->query_left = 4;
		return true;
	}
	bool yes = !strcmp(t, "1") || !strcmp(t, "True"),
	     no = !strcmp(t, "0") || !strcmp(t, "False");
	if (st->query_line && st->query_left-- > 0 && (yes || no)) {
		access_set(st, st->query_a, st->query_b, yes, line);
		st->query_line = 0;
		return true;
	}
	return false;
}

static void cuda_line(struct pctx *c, struct cuda_state *st, const char *t, int line)
{
	int i, j, can;
	/* A quote's "> " and nccl-tests' "#" (present, doubled or taken away by markdown). */
	while (*t == '>' || *t == '#')
		t = pt_skip_ws(t + 1);
	if (samples_summary(c, t, line) || nvbandwidth(c, st, t, line) || tensorflow(st, t, line) ||
	    tensorflow_device(c, t) || python_query(st, t, line))
		return;
	if (pt_starts(t, "[P2P (Peer-to-Peer)") || pt_starts(t, "[p2pBandwidthLatencyTest]"))
		snprintf(c->p->cuda.test, sizeof(c->p->cuda.test), "p2pBandwidthLatencyTest");
	else if (strstr(t, "simpleP2P]"))
		snprintf(c->p->cuda.test, sizeof(c->p->cuda.test), "simpleP2P");
	if (pt_nccl_tests_header(t)) {
		if (!c->p->cuda.nccl_header.line)
			c->p->cuda.nccl_header = pt_where(c, line);
		snprintf(c->p->cuda.test, sizeof(c->p->cuda.test), "nccl-tests");
	} else if (pt_nccl_tests_row(t)) {
		if (!c->p->cuda.nccl_rows++)
			pt_outcome(c, true, line);
		wrong_values(c, t, line);
	} else if (pt_starts(t, "Device: ")) {
		device_line(c, st, t);
	} else if ((can = access_line(t, &i, &j)) >= 0) {
		access_set(st, i, j, can, line);
	} else if (pt_starts(t, "Peer access from") || pt_starts(t, "Peer-to-Peer (P2P) access")) {
		simple_access(c, st, t, line);
		simple_p2p(c);
	} else if (pt_starts(t, "Rank ") && strstr(t, " device ")) {
		nccl_rank(c, st, t);
	} else if (matrix_title(st, t)) {
		place_untitled(c, st, st->mat);
		if (!c->p->cuda.test[0])
			snprintf(c->p->cuda.test, sizeof(c->p->cuda.test),
			         "p2pBandwidthLatencyTest");
		const char *h = strstr(t, "D\\D");
		if (h) /* the header run into the title */
			matrix_line(c, st, h, line);
	} else {
		if (isdigit((unsigned char)t[0]) || pt_starts(t, "D\\D") || pt_starts(t, "GPU") ||
		    pt_starts(t, "CPU"))
			matrix_line(c, st, t, line);
		else
			result_line(c, t, line);
	}
}

/* Whether a block added anything to the run's CUDA facts (field by field: the struct has
 * padding, so its bytes say nothing). */
static bool cuda_changed(const struct p2ps_paste_cuda *a, const struct p2ps_paste_cuda *b)
{
	return strcmp(a->test, b->test) || a->result != b->result || a->waived != b->waived ||
	       a->verify_errors != b->verify_errors || a->first_error.line != b->first_error.line ||
	       strcmp(a->first_error_text, b->first_error_text) ||
	       a->memcpy_gbps != b->memcpy_gbps || a->nccl_busbw != b->nccl_busbw ||
	       a->nccl_header.line != b->nccl_header.line || a->nccl_rows != b->nccl_rows ||
	       a->enabled_from.line != b->enabled_from.line;
}

static void store_access(struct pctx *c, struct cuda_state *st)
{
	if (!st->access_n)
		return;
	struct p2ps_paste_matrix *m = &c->p->m[P2PS_PM_CUDA_ACCESS];
	if (m->present || !pt_matrix(c, P2PS_PM_CUDA_ACCESS, st->access_n, st->access_line))
		return;
	for (int i = 0; i < st->access_n; i++)
		for (int j = 0; j < st->access_n; j++)
			if (st->access[i][j] >= 0)
				pt_cell_set(m, i, j, st->access[i][j] ? "1" : "0", 1);
	m->rows = st->access_n;
	st->matrices++;
}

void pt_parse_cuda(struct pctx *c, const struct pl_span *sp)
{
	struct cuda_state *st = malloc(sizeof(*st));
	if (!st) {
		c->oom = true;
		return;
	}
	memset(st, 0, sizeof(*st));
	memset(st->access, 0xff, sizeof(st->access)); /* -1: unknown */
	st->mat = P2PS_PM_COUNT;
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	if (!c->p->cuda.from.line)
		c->p->cuda.from = pt_where(c, sp->first);
	struct p2ps_paste_cuda before = c->p->cuda;
	while (pl_next(&it, &l) && !c->oom) {
		const char *t = pt_skip_ws(l.s);
		if (*t)
			cuda_line(c, st, t, l.no);
		st->lines++;
	}
	store_access(c, st);
	if (!st->devices && !st->matrices && !cuda_changed(&before, &c->p->cuda)) {
		c->p->unread_blocks++;
		pt_summary(c,
		           "recognised, not understood: %d line%s of %s output with no device, "
		           "peer access, matrix or result",
		           st->lines, st->lines == 1 ? "" : "s",
		           c->p->cuda.test[0] ? c->p->cuda.test : "CUDA sample");
		free(st);
		return;
	}
	pt_summary(c, "%s: %d device%s, %d matri%s",
	           c->p->cuda.test[0] ? c->p->cuda.test : "CUDA sample output", st->devices,
	           st->devices == 1 ? "" : "s", st->matrices, st->matrices == 1 ? "x" : "ces");
	free(st);
}
