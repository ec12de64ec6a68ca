/* SPDX-License-Identifier: MIT */
/* The bookkeeping the paste parsers share while they read: devices by address (through
 * an index, so that reading stays linear), GPUs by nvidia-smi index / CUDA ordinal /
 * address, matrices, kernel events, block summaries and provenance. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"
#include "grow.h"

struct p2ps_paste_where pt_where(const struct pctx *c, int line)
{
	return (struct p2ps_paste_where){c->block, line};
}

void pt_summary(struct pctx *c, const char *fmt, ...)
{
	if (c->block < 0)
		return;
	struct p2ps_paste_block *b = &c->p->blocks[c->block];
	size_t n = strlen(b->summary);
	if (n && n + 2 < sizeof(b->summary)) {
		memcpy(b->summary + n, "; ", 3);
		n += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->summary + n, sizeof(b->summary) - n, fmt, ap);
	va_end(ap);
}

/* Slot of b in the parse's address index (open addressing over P2PS_PASTE_MAX_DEVS * 2
 * slots holding devs index + 1), so that finding a device costs the same for the first
 * and the thousandth. */
static size_t *dev_slot(struct pctx *c, const struct p2ps_bdf *b)
{
	uint32_t h =
	        (b->domain * 2654435761u) ^ ((uint32_t)b->bus << 8 | (uint32_t)b->dev << 3 | b->fn);
	h *= 2246822519u;
	for (size_t i = 0, k = h % PT_DEV_SLOTS;; i++, k = (k + 1) % PT_DEV_SLOTS) {
		size_t v = c->dev_index[k];
		if (!v || p2ps_bdf_equal(&c->p->devs[v - 1].d.bdf, b) || i == PT_DEV_SLOTS)
			return &c->dev_index[k];
	}
}

struct p2ps_paste_dev *pt_dev(struct pctx *c, const struct p2ps_bdf *b)
{
	struct p2ps_paste *p = c->p;
	size_t *slot = dev_slot(c, b);
	if (*slot)
		return &p->devs[*slot - 1];
	if (p->n_devs >= P2PS_PASTE_MAX_DEVS) /* more than any machine has: a paste of noise */
		return NULL;
	if (!p2ps_grow((void **)&p->devs, &c->devs_cap, p->n_devs + 1, sizeof(*p->devs))) {
		c->oom = true;
		return NULL;
	}
	struct p2ps_paste_dev *pd = &p->devs[p->n_devs++];
	*slot = p->n_devs;
	memset(pd, 0, sizeof(*pd));
	pd->d.bdf = *b;
	p2ps_bdf_format(b, pd->d.bdf_str, sizeof(pd->d.bdf_str));
	pd->d.parent_idx = -1;
	pd->d.numa_node = -1;
	pd->d.iommu_group = -1;
	pd->d.boot_vga = -1;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		pd->d.bars[i].index = (uint8_t)i;
	for (int f = 0; f < P2PS_PD_COUNT; f++)
		pd->from[f].block = -1;
	return pd;
}

static struct p2ps_paste_gpu *new_gpu(struct pctx *c)
{
	struct p2ps_paste *p = c->p;
	if (p->n_gpus == P2PS_PASTE_MAX_GPUS)
		return NULL;
	struct p2ps_paste_gpu *g = &p->gpus[p->n_gpus++];
	memset(g, 0, sizeof(*g));
	g->smi = g->cuda = g->display = g->listed = -1;
	g->bar1_from.block = g->vram_from.block = g->link_from.block = g->named_from.block = -1;
	return g;
}

/* The int member at off of g: its nvidia-smi index or its CUDA ordinal. */
static int *gpu_index(struct p2ps_paste_gpu *g, size_t off)
{
	return (int *)((char *)g + off);
}

/* The GPU whose index at off (smi, cuda) is v, or a new one with that index. */
static struct p2ps_paste_gpu *gpu_by_index(struct pctx *c, size_t off, int v)
{
	for (size_t i = 0; i < c->p->n_gpus; i++)
		if (*gpu_index(&c->p->gpus[i], off) == v)
			return &c->p->gpus[i];
	struct p2ps_paste_gpu *g = new_gpu(c);
	if (g)
		*gpu_index(g, off) = v;
	return g;
}

struct p2ps_paste_gpu *pt_gpu_cuda(struct pctx *c, int cuda)
{
	return gpu_by_index(c, offsetof(struct p2ps_paste_gpu, cuda), cuda);
}

struct p2ps_paste_gpu *pt_gpu_smi(struct pctx *c, int smi)
{
	return gpu_by_index(c, offsetof(struct p2ps_paste_gpu, smi), smi);
}

struct p2ps_paste_gpu *pt_gpu_bdf(struct pctx *c, const struct p2ps_bdf *b)
{
	for (size_t i = 0; i < c->p->n_gpus; i++)
		if (c->p->gpus[i].bdf_known && p2ps_bdf_equal(&c->p->gpus[i].bdf, b))
			return &c->p->gpus[i];
	struct p2ps_paste_gpu *g = new_gpu(c);
	if (g) {
		g->bdf_known = true;
		g->bdf = *b;
	}
	return g;
}

bool pt_matrix(struct pctx *c, enum p2ps_paste_matrix_kind k, int n, int line)
{
	struct p2ps_paste_matrix *m = &c->p->m[k];
	if (n < 1 || n > P2PS_PASTE_MAX_GPUS)
		return false;
	if (m->present)
		return m->n == n;
	m->cell = calloc((size_t)n * (size_t)n, sizeof(*m->cell));
	m->row_line = calloc((size_t)n, sizeof(*m->row_line));
	if (!m->cell || !m->row_line) {
		c->oom = true;
		return false;
	}
	m->present = true;
	m->n = n;
	m->from = pt_where(c, line);
	return true;
}

void pt_row_line(struct p2ps_paste_matrix *m, int i, int line)
{
	if (i >= 0 && i < m->n && !m->row_line[i])
		m->row_line[i] = line;
}

void pt_cell_set(struct p2ps_paste_matrix *m, int i, int j, const char *s, size_t len)
{
	if (i < 0 || j < 0 || i >= m->n || j >= m->n)
		return;
	if (len >= P2PS_PASTE_CELL)
		len = P2PS_PASTE_CELL - 1;
	memcpy(m->cell[i * m->n + j], s, len);
	m->cell[i * m->n + j][len] = '\0';
}

struct p2ps_paste_event *pt_event(struct pctx *c, enum p2ps_paste_event_kind k, int line)
{
	struct p2ps_paste *p = c->p;
	p->event_count[k]++;
	if (p->n_events == P2PS_PASTE_MAX_EVENTS)
		return NULL;
	if (!p->events) {
		p->events = calloc(P2PS_PASTE_MAX_EVENTS, sizeof(*p->events));
		if (!p->events) {
			c->oom = true;
			return NULL;
		}
	}
	struct p2ps_paste_event *ev = &p->events[p->n_events++];
	memset(ev, 0, sizeof(*ev));
	ev->kind = k;
	ev->from = pt_where(c, line);
	ev->gpu_a = ev->gpu_b = -1;
	return ev;
}

void pt_release(struct pctx *c, enum p2ps_paste_software sw, const char *version, int line)
{
	struct p2ps_paste *p = c->p;
	int cur = c->release[sw];
	if (!version[0] || (cur >= 0 && !strcmp(p->releases[cur].version, version)))
		return;
	for (size_t i = 0; i < p->n_releases; i++) /* back to one named before */
		if (p->releases[i].sw == sw && !strcmp(p->releases[i].version, version)) {
			c->release[sw] = (int)i;
			return;
		}
	if (p->n_releases == P2PS_PASTE_MAX_RELEASES)
		return;
	struct p2ps_paste_release *r = &p->releases[p->n_releases];
	memset(r, 0, sizeof(*r));
	r->sw = sw;
	snprintf(r->version, sizeof(r->version), "%s", version);
	r->from = pt_where(c, line);
	r->failed_from.block = -1;
	c->release[sw] = (int)p->n_releases++;
}

void pt_outcome(struct pctx *c, bool worked, int line)
{
	for (int sw = 0; sw < P2PS_SW_COUNT; sw++) {
		if (c->release[sw] < 0)
			continue;
		struct p2ps_paste_release *r = &c->p->releases[c->release[sw]];
		if (worked) {
			r->worked++;
		} else if (!r->failed++) {
			r->failed_from = pt_where(c, line);
		}
	}
}
