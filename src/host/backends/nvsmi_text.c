/* SPDX-License-Identifier: MIT */
/* nvidia-smi's text, read into records (see nvsmi_text.h). One reader per syntax: the
 * nested "Key : value" report of -q, and the GPU matrix of topo -m / topo -p2p. */
#include "nvsmi_text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/error.h"
#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/parse.h"

#define LINE_MAX_COPY 512

/* Lines of text separated by '\n' or '\0', copied (ANSI escapes and CR removed,
 * truncated to LINE_MAX_COPY) into buf. */
struct lines {
	const char *p, *end;
	int no;
};

static bool next_line(struct lines *ls, char *buf)
{
	if (ls->p >= ls->end)
		return false;
	size_t w = 0;
	const char *p = ls->p;
	for (; p < ls->end && *p != '\n' && *p != '\0'; p++) {
		if (*p == '\x1b') { /* ESC [ ... letter */
			while (p + 1 < ls->end && !isalpha((unsigned char)p[1]) && p[1] != '\n')
				p++;
			if (p + 1 < ls->end && p[1] != '\n')
				p++;
			continue;
		}
		if (*p != '\r' && w < LINE_MAX_COPY - 1)
			buf[w++] = *p;
	}
	buf[w] = '\0';
	ls->p = p + 1;
	ls->no++;
	return true;
}

/* ---- nvidia-smi -q ------------------------------------------------------------ */

struct q_state {
	struct p2ps_nvsmi_rec r;
	bool open;
	int index;
	/* The open sections, outermost first: name, indentation, and whether their lines
	 * stand deeper than they do (fresh: the last line was a section's name). */
	char sect[8][40];
	int sect_indent[8];
	bool nested[8];
	int depth;
	bool fresh;
	p2ps_nvsmi_rec_fn fn;
	void *arg;
};

static void flush(struct q_state *q)
{
	if (q->open)
		q->fn(q->arg, &q->r);
	q->open = false;
}

static void start(struct q_state *q, int line)
{
	flush(q);
	memset(&q->r, 0, sizeof(q->r));
	q->r.index = q->index++;
	q->r.line = line;
	q->r.display_active = -1;
	q->r.fabric = -1;
	q->open = true;
}

static bool mib(const char *v, uint64_t *bytes)
{
	uint64_t x;
	const char *e = p2ps_scan_uint(v, 10, UINT64_MAX >> 20, &x);
	if (!e || strncmp(e, " MiB", 4))
		return false;
	*bytes = (uint64_t)x << 20;
	return true;
}

static void q_value(struct q_state *q, const char *parent, const char *key, const char *v, int no)
{
	struct p2ps_nvsmi_rec *r = &q->r;
	if (!strcmp(key, "Product Name")) {
		snprintf(r->product, sizeof(r->product), "%s", v);
	} else if (!strcmp(key, "Total") && !strcmp(parent, "FB Memory Usage")) {
		r->fb_known = mib(v, &r->fb);
		r->fb_line = no;
	} else if (!strcmp(key, "Total") && !strcmp(parent, "BAR1 Memory Usage")) {
		r->bar1_known = mib(v, &r->bar1);
		r->bar1_line = no;
	} else if (!strcmp(parent, "PCIe Generation") && isdigit((unsigned char)v[0])) {
		uint8_t g = (uint8_t)(v[0] - '0'); /* generation N is LnkCap speed code N */
		if (!strcmp(key, "Max"))
			r->link_max.speed = g;
		else if (!strcmp(key, "Current"))
			r->link_cur.speed = g;
		r->link_line = no;
	} else if (!strcmp(parent, "Link Width") && isdigit((unsigned char)v[0])) {
		uint64_t x = 0; /* a PCIe link is x1 to x32; anything else is not a width */
		uint8_t w = p2ps_scan_uint(v, 10, 32, &x) ? (uint8_t)x : 0;
		if (!strcmp(key, "Max"))
			r->link_max.width = w;
		else if (!strcmp(key, "Current"))
			r->link_cur.width = w;
		r->link_line = no;
	} else if (!strcmp(key, "Bus Id") && !r->bdf_known) {
		r->bdf_known = p2ps_bdf_parse(v, &r->bdf) == 0;
	} else if (!strcmp(key, "State") && !strcmp(parent, "Fabric")) {
		r->fabric = !strcmp(v, "Completed");
	} else if (!strcmp(key, "Display Active")) {
		r->display_active = !strcmp(v, "Enabled") ? 1 : !strcmp(v, "Disabled") ? 0 : -1;
	}
}

/* Closes the sections a line at indent stands outside of and returns the name of the
 * one it belongs to: the innermost open section indented less than it. Where the paste
 * lost the indentation (a web page collapses it), a section's lines stand at its own
 * indentation: a section whose first line came at its indentation stays open for them. */
static const char *q_enter(struct q_state *q, int indent)
{
	if (q->depth && q->fresh)
		q->nested[q->depth - 1] = indent > q->sect_indent[q->depth - 1];
	q->fresh = false;
	while (q->depth && (q->sect_indent[q->depth - 1] > indent ||
	                    (q->sect_indent[q->depth - 1] == indent && q->nested[q->depth - 1])))
		q->depth--;
	return q->depth ? q->sect[q->depth - 1] : "";
}

/* A section name: grep'd output ("BAR1 Memory Usage" runs without a GPU line) starts a
 * record per run. */
static void q_section(struct q_state *q, int indent, const char *t, int no)
{
	if (q->depth == 8)
		q->depth--;
	int d = q->depth++;
	snprintf(q->sect[d], sizeof(q->sect[d]), "%s", t);
	q->sect_indent[d] = indent;
	q->nested[d] = false;
	q->fresh = true;
	bool fb = !strcmp(t, "FB Memory Usage"), bar1 = !strcmp(t, "BAR1 Memory Usage");
	if ((fb || bar1) && (!q->open || (fb && q->r.fb_known) || (bar1 && q->r.bar1_known)))
		start(q, no);
}

void p2ps_nvsmi_q_read(const char *text, size_t len, p2ps_nvsmi_rec_fn fn, void *arg, char *driver,
                       size_t size)
{
	struct q_state *q = calloc(1, sizeof(*q));
	if (!q)
		return;
	q->fn = fn;
	q->arg = arg;
	struct lines ls = {text, text + len, 0};
	char buf[LINE_MAX_COPY];
	while (next_line(&ls, buf)) {
		int no = ls.no - 1, indent = 0;
		for (const char *s = buf; *s == ' ' || *s == '\t'; s++)
			indent = *s == '\t' ? (indent / 8 + 1) * 8 : indent + 1;
		char *t = buf + strspn(buf, " \t");
		struct p2ps_bdf b;
		if (!*t || !strcmp(t, "--"))
			continue;
		if (!indent && !strncmp(t, "GPU ", 4) && p2ps_bdf_parse(t + 4, &b) == 0) {
			start(q, no);
			q->depth = 0;
			q->fresh = false;
			q->r.bdf = b;
			q->r.bdf_known = true;
			continue;
		}
		const char *parent = q_enter(q, indent);
		char *colon = strstr(t, " : ");
		if (!colon) {
			q_section(q, indent, t, no);
			continue;
		}
		char *k_end = colon;
		while (k_end > t && k_end[-1] == ' ')
			k_end--;
		*k_end = '\0';
		const char *v = colon + 3;
		v += strspn(v, " ");
		/* The report's own line, outside any section but its banner. */
		if ((!*parent || parent[0] == '=') && !strcmp(t, "Driver Version") && driver)
			snprintf(driver, size, "%s", v);
		if (q->open)
			q_value(q, parent, t, v, no);
	}
	flush(q);
	free(q);
}

/* ---- topo -m / topo -p2p matrices ------------------------------------------------ */

/* Index of a "GPUn" token of n characters, -1 if it is not one. */
static int gpu_label(const char *s, size_t n)
{
	if (n < 4 || n > 6 || strncmp(s, "GPU", 3))
		return -1;
	int v = 0;
	for (size_t i = 3; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Splits a line into up to max white-space separated tokens. */
static int tokens(char *s, char **tok, int max)
{
	int n = 0;
	for (char *p = s; *p && n < max;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		tok[n++] = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static bool p2p_status(const char *s)
{
	enum p2ps_nv_status st;
	return p2ps_nv_status_from_code(s, &st) == 0;
}

/* "GPU0 GPU1 ... [CPU Affinity ...]": the number of GPU columns, 0 if not a header. */
static int header_columns(char **tok, int n)
{
	int cols = 0;
	while (cols < n && gpu_label(tok[cols], strlen(tok[cols])) == cols)
		cols++;
	if (!cols || cols > P2PS_NVSMI_MAX_GPUS)
		return 0;
	/* "GPU0 X PIX": a row of a matrix, not a header. */
	if (cols == 1 && n > 1 && strcmp(tok[1], "CPU") && strncmp(tok[1], "NIC", 3) &&
	    strcmp(tok[1], "NUMA"))
		return 0;
	return cols;
}

static void row(struct p2ps_nvsmi_matrix *m, char **tok, int n, int i)
{
	if (i < 0 || i >= m->n) {
		if (!m->ragged)
			snprintf(m->why, sizeof(m->why), "row GPU%d outside the %d columns", i,
			         m->n);
		m->ragged = true;
		return;
	}
	int cells = n - 1 < m->n ? n - 1 : m->n;
	if (cells < m->n && !m->ragged) {
		snprintf(m->why, sizeof(m->why),
		         "row GPU%d has %d cells, the header %d GPU columns", i, cells, m->n);
		m->ragged = true;
	}
	for (int j = 0; j < cells; j++) {
		snprintf(m->cell[i * m->n + j], P2PS_NVSMI_CELL, "%s", tok[j + 1]);
		m->p2p |= p2p_status(tok[j + 1]);
	}
	m->rows++;
}

int p2ps_nvsmi_matrix_read(const char *text, size_t len, struct p2ps_nvsmi_matrix *m)
{
	memset(m, 0, sizeof(*m));
	m->header_line = -1;
	struct lines ls = {text, text + len, 0};
	char buf[LINE_MAX_COPY];
	char *tok[P2PS_NVSMI_MAX_GPUS + 8];
	while (next_line(&ls, buf)) {
		/* A command line may carry the header: "nvidia-smi topo -m    GPU0   GPU1 ...". */
		char *s = buf, *g = strstr(buf, "GPU0");
		if (m->n == 0 && g && !strncmp(buf, "nvidia-smi", 10))
			s = g;
		int n = tokens(s, tok, (int)(sizeof(tok) / sizeof(tok[0])));
		if (!n)
			continue;
		if (m->n == 0) {
			int cols = header_columns(tok, n);
			if (!cols)
				continue;
			m->cell = calloc((size_t)cols * (size_t)cols, sizeof(*m->cell));
			if (!m->cell)
				return P2PS_ENOMEM;
			m->n = cols;
			m->header_line = ls.no - 1;
			continue;
		}
		int i = gpu_label(tok[0], strlen(tok[0]));
		if (i < 0)
			continue;
		if (header_columns(tok, n) > 1)
			break; /* a second matrix */
		row(m, tok, n, i);
	}
	return 0;
}
