/* SPDX-License-Identifier: MIT */
/* nvidia-smi blocks of a paste: the records and matrices come from the shared readers
 * (nvsmi_text.c); this file files them under the paste's GPUs with their lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvsmi_text.h"
#include "paste_internal.h"

struct q_glue {
	struct pctx *c;
	int first;
	int gpus, facts;
};

static void on_record(void *arg, const struct p2ps_nvsmi_rec *r)
{
	struct q_glue *g = arg;
	struct pctx *c = g->c;
	struct p2ps_paste_gpu *gpu =
	        r->bdf_known ? pt_gpu_bdf(c, &r->bdf) : pt_gpu_smi(c, r->index);
	if (!gpu)
		return;
	/* nvidia-smi numbers GPUs in the order -q prints them. */
	if (gpu->smi < 0)
		gpu->smi = r->index;
	g->gpus++;
	if (r->product[0])
		snprintf(gpu->name, sizeof(gpu->name), "%s", r->product);
	if (r->fb_known) {
		gpu->vram_known = true;
		gpu->vram = r->fb;
		gpu->vram_from = pt_where(c, g->first + r->fb_line);
		g->facts++;
	}
	if (r->bar1_known) {
		gpu->bar1_known = true;
		gpu->bar1 = r->bar1;
		gpu->bar1_from = pt_where(c, g->first + r->bar1_line);
		g->facts++;
	}
	if (r->link_max.speed || r->link_max.width) {
		gpu->link_max = r->link_max;
		gpu->link_cur = r->link_cur;
		gpu->link_from = pt_where(c, g->first + r->link_line);
		g->facts++;
	}
	if (r->display_active >= 0)
		gpu->display = r->display_active;
}

void pt_parse_nvsmi_q(struct pctx *c, const struct pl_span *sp)
{
	struct q_glue g = {.c = c, .first = sp->first};
	char driver[64] = "";
	p2ps_nvsmi_q_read(sp->start, pt_span_len(sp), on_record, &g, driver, sizeof(driver));
	if (driver[0])
		pt_release(c, P2PS_SW_DRIVER, driver, sp->first);
	if (driver[0] && !c->p->host.driver_version[0]) {
		snprintf(c->p->host.driver_version, sizeof(c->p->host.driver_version), "%s",
		         driver);
		c->p->host.driver_from = pt_where(c, sp->first);
	}
	pt_summary(c, "%d GPU section%s, %d facts (BAR1, FB memory, PCIe)", g.gpus,
	           g.gpus == 1 ? "" : "s", g.facts);
}

/* "nvidia-smi topo -p2p rw" -> "rw". */
static void p2p_mode(const char *cmd, char *mode, size_t size)
{
	const char *p = strstr(cmd, "-p2p");
	if (!p)
		return;
	p += 4;
	p += strspn(p, " ");
	size_t n = strspn(p, "rwnap");
	if (n && n < size) {
		memcpy(mode, p, n);
		mode[n] = '\0';
	}
}

/* A topo -p2p matrix of another path than the ones read so far (same GPUs): kept beside
 * them. Returns false when m is not one (then the caller treats it as the first). */
static bool p2p_more(struct pctx *c, const struct p2ps_nvsmi_matrix *m, const char *cmd, int line)
{
	struct p2ps_paste *p = c->p;
	const struct p2ps_paste_matrix *first = &p->m[P2PS_PM_P2P];
	char mode[8] = "";
	p2p_mode(cmd, mode, sizeof(mode));
	if (!first->present || first->n != m->n || !mode[0] || strpbrk(first->mode, mode) ||
	    !first->mode[0])
		return false;
	for (size_t k = 0; k < p->n_p2p_more; k++)
		if (strpbrk(p->p2p_more[k].mode, mode))
			return false;
	if (p->n_p2p_more == sizeof(p->p2p_more) / sizeof(p->p2p_more[0]))
		return false;
	struct p2ps_paste_matrix *pm = &p->p2p_more[p->n_p2p_more];
	size_t n = (size_t)m->n;
	pm->cell = calloc(n * n, sizeof(*pm->cell));
	pm->row_line = calloc(n, sizeof(*pm->row_line));
	if (!pm->cell || !pm->row_line) {
		free(pm->cell);
		free(pm->row_line);
		memset(pm, 0, sizeof(*pm));
		c->oom = true;
		return true;
	}
	p->n_p2p_more++;
	memcpy(pm->cell, m->cell, n * n * sizeof(*m->cell));
	memcpy(pm->mode, mode, sizeof(pm->mode));
	pm->present = true;
	pm->n = m->n;
	pm->rows = m->rows;
	pm->ragged = m->ragged;
	pm->from = pt_where(c, line);
	pt_summary(c, "%dx%d P2P status matrix (path %s), %d row%s", m->n, m->n, mode, m->rows,
	           m->rows == 1 ? "" : "s");
	return true;
}

void pt_parse_topo(struct pctx *c, const struct pl_span *sp, bool p2p)
{
	struct p2ps_nvsmi_matrix m;
	if (p2ps_nvsmi_matrix_read(sp->start, pt_span_len(sp), &m) < 0) {
		c->oom = true;
		return;
	}
	struct p2ps_paste_block *b = c->block >= 0 ? &c->p->blocks[c->block] : NULL;
	p2p |= m.p2p || (b && strstr(b->command, "-p2p"));
	if (b)
		b->kind = p2p ? P2PS_PASTE_NVSMI_P2P : P2PS_PASTE_NVSMI_TOPO;
	enum p2ps_paste_matrix_kind k = p2p ? P2PS_PM_P2P : P2PS_PM_TOPO;
	struct p2ps_paste_matrix *pm = &c->p->m[k];
	if (!m.n) {
		pt_summary(c, "legend only (no GPU matrix)");
	} else if (p2p && b && p2p_more(c, &m, b->command, sp->first + m.header_line)) {
		/* kept beside the first */
	} else if (pm->present && pm->n != m.n) {
		c->p->several_hosts = true;
		pt_summary(c, "a second %s matrix (%d GPUs, the first has %d): not used",
		           p2p ? "topo -p2p" : "topo -m", m.n, pm->n);
	} else if (pt_matrix(c, k, m.n, sp->first + m.header_line)) {
		memcpy(pm->cell, m.cell, (size_t)m.n * (size_t)m.n * sizeof(*m.cell));
		pm->rows = m.rows;
		pm->ragged = m.ragged;
		if (b && p2p)
			p2p_mode(b->command, pm->mode, sizeof(pm->mode));
		for (int i = 0; i < m.n; i++)
			pt_gpu_smi(c, i);
		pt_summary(c, "%dx%d %s matrix, %d row%s%s%s", m.n, m.n,
		           p2p ? "P2P status" : "topology", m.rows, m.rows == 1 ? "" : "s",
		           m.ragged ? "; " : "", m.why);
	}
	free(m.cell);
}
