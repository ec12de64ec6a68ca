/* SPDX-License-Identifier: MIT */
/* The evidence of a parsed paste (include/p2pscope/evidence.h): the reader's facts joined
 * into what the analysis reads. Each GPU the paste names is one entry (read.c has tied
 * together the names each tool gives it); a GPU a matrix numbers but no other line names
 * gets an entry of its own, so that no printed cell is lost; every cell of every matrix
 * becomes an observation of the directed GPU pair it is about, with its path (topo -p2p's
 * mode letter) and its line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"
#include "paste_names.h"

/* Whether matrix k numbers GPUs as nvidia-smi does (else by CUDA ordinal). */
static bool by_smi(enum p2ps_paste_matrix_kind k)
{
	return k == P2PS_PM_TOPO || k == P2PS_PM_P2P;
}

struct build {
	struct p2ps_evidence *ev;
	size_t gpu_cap, obs_cap;
	bool oom;
};

static int add_gpu(struct build *b, const struct p2ps_paste_gpu *g)
{
	struct p2ps_evidence *ev = b->ev;
	if (ev->n_gpus == b->gpu_cap) {
		size_t cap = b->gpu_cap ? 2 * b->gpu_cap : 16;
		struct p2ps_paste_gpu *n = realloc(ev->gpus, cap * sizeof(*n));
		if (!n) {
			b->oom = true;
			return -1;
		}
		ev->gpus = n;
		b->gpu_cap = cap;
	}
	ev->gpus[ev->n_gpus] = *g;
	return (int)ev->n_gpus++;
}

/* The evidence GPU that index i of matrix k names, created when no line names it. */
static int gpu_of(struct build *b, enum p2ps_paste_matrix_kind k, int i)
{
	int g = by_smi(k) ? p2ps_evidence_gpu_smi(b->ev, i) : p2ps_evidence_gpu_cuda(b->ev, i);
	if (g >= 0)
		return g;
	struct p2ps_paste_gpu n = {.smi = -1, .cuda = -1, .display = -1, .listed = -1};
	n.bar1_from = n.vram_from = n.link_from = n.named_from = (struct p2ps_paste_where){-1, 0};
	*(by_smi(k) ? &n.smi : &n.cuda) = i;
	return add_gpu(b, &n);
}

/* GPUs only an lspci block (or the kernel log) names, with the name lspci prints. */
static void lspci_gpus(struct build *b, const struct p2ps_paste *p)
{
	for (size_t i = 0; i < p->n_devs && !b->oom; i++) {
		const struct p2ps_paste_dev *pd = &p->devs[i];
		if (!pt_dev_is_gpu(pd) || p2ps_evidence_gpu_bdf(b->ev, &pd->d.bdf) >= 0 ||
		    b->ev->n_gpus >= P2PS_PASTE_MAX_GPUS)
			continue;
		struct p2ps_paste_gpu g = {.smi = -1, .cuda = -1, .display = -1, .listed = -1};
		g.bar1_from = g.vram_from = g.link_from = (struct p2ps_paste_where){-1, 0};
		g.bdf_known = true;
		g.bdf = pd->d.bdf;
		g.named_from = pd->from[P2PS_PD_IDENT];
		snprintf(g.name, sizeof(g.name), "%.*s", (int)sizeof(g.name) - 1, pd->name);
		add_gpu(b, &g);
	}
}

static void add_obs(struct build *b, const struct p2ps_pair_obs *o)
{
	struct p2ps_evidence *ev = b->ev;
	if (ev->n_obs == b->obs_cap) {
		size_t cap = b->obs_cap ? 2 * b->obs_cap : 64;
		struct p2ps_pair_obs *n = realloc(ev->obs, cap * sizeof(*n));
		if (!n) {
			b->oom = true;
			return;
		}
		ev->obs = n;
		b->obs_cap = cap;
	}
	ev->obs[ev->n_obs++] = *o;
}

/* One observation per cell (one per path of a topo -p2p matrix). */
static void matrix_obs(struct build *b, const struct p2ps_paste_matrix *m,
                       enum p2ps_paste_matrix_kind k)
{
	int map[P2PS_PASTE_MAX_GPUS];
	for (int i = 0; i < m->n && !b->oom; i++)
		map[i] = gpu_of(b, k, i);
	const char *paths = k == P2PS_PM_P2P && m->mode[0] ? m->mode : "";
	for (int i = 0; i < m->n && !b->oom; i++)
		for (int j = 0; j < m->n && !b->oom; j++) {
			const char *t = m->cell[i * m->n + j];
			if (i == j || !t[0])
				continue;
			struct p2ps_pair_obs o = {
			        .kind = k, .a = map[i], .b = map[j], .from = m->from};
			memcpy(o.text, t, sizeof(o.text));
			if (m->row_line && m->row_line[i])
				o.from.line = m->row_line[i];
			const char *p = paths;
			do {
				o.path = *p;
				add_obs(b, &o);
			} while (*p && *++p);
		}
}

static int obs_cmp(const void *x, const void *y)
{
	const struct p2ps_pair_obs *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return (a->path > b->path) - (a->path < b->path);
}

static void devices(struct build *b, const struct p2ps_paste *p)
{
	struct p2ps_evidence *ev = b->ev;
	ev->devs = p->n_devs ? calloc(p->n_devs, sizeof(*ev->devs)) : NULL;
	if (p->n_devs && !ev->devs) {
		b->oom = true;
		return;
	}
	for (size_t i = 0; i < p->n_devs; i++) {
		const struct p2ps_paste_dev *pd = &p->devs[i];
		struct p2ps_paste_dev_facts *f = &ev->devs[ev->n_devs++];
		f->bdf = pd->d.bdf;
		memcpy(f->bdf_str, pd->d.bdf_str, sizeof(f->bdf_str));
		memcpy(f->from, pd->from, sizeof(f->from));
		f->vendor_known = pd->vendor_known;
		f->caps_denied = pd->caps_denied;
		f->iommu_faults = pd->iommu_faults;
		f->rebar = pd->d.rebar;
	}
}

static void *dup(const void *src, size_t n, size_t size, bool *oom)
{
	if (!n)
		return NULL;
	void *d = malloc(n * size);
	if (!d)
		*oom = true;
	else
		memcpy(d, src, n * size);
	return d;
}

int p2ps_paste_evidence(const struct p2ps_paste *p, struct p2ps_evidence *ev,
                        struct p2ps_error *err)
{
	memset(ev, 0, sizeof(*ev));
	struct build b = {.ev = ev};
	memcpy(ev->source, p->source, sizeof(ev->source));
	ev->lines = p->lines;
	ev->blocks = dup(p->blocks, p->n_blocks, sizeof(*p->blocks), &b.oom);
	ev->n_blocks = b.oom ? 0 : p->n_blocks;
	ev->blocks_dropped = p->blocks_dropped;
	ev->unread_blocks = p->unread_blocks;
	ev->bug_report = p->bug_report;
	ev->several_hosts = p->several_hosts;
	ev->gpus_dropped = p->gpus_dropped;
	for (size_t i = 0; i < p->n_gpus && !b.oom; i++)
		add_gpu(&b, &p->gpus[i]);
	lspci_gpus(&b, p);
	for (int k = 0; k < P2PS_PM_COUNT && !b.oom; k++) {
		const struct p2ps_paste_matrix *m = &p->m[k];
		struct p2ps_paste_matrix_info *mi = &ev->matrix[k];
		mi->present = m->present;
		memcpy(mi->mode, m->mode, sizeof(mi->mode));
		mi->n = m->n;
		mi->ragged = m->ragged;
		mi->from = m->from;
		if (m->present)
			matrix_obs(&b, m, (enum p2ps_paste_matrix_kind)k);
	}
	for (size_t k = 0; k < p->n_p2p_more && !b.oom; k++)
		matrix_obs(&b, &p->p2p_more[k], P2PS_PM_P2P);
	if (ev->n_obs)
		qsort(ev->obs, ev->n_obs, sizeof(*ev->obs), obs_cmp);
	for (size_t i = 0; i < ev->n_gpus; i++)
		ev->gpus[i].chip = ev->gpus[i].name[0] ? pt_chip_by_name(ev->gpus[i].name) : NULL;
	if (!b.oom)
		devices(&b, p);
	ev->events = dup(p->events, p->n_events, sizeof(*p->events), &b.oom);
	ev->n_events = ev->events ? p->n_events : 0;
	memcpy(ev->event_count, p->event_count, sizeof(ev->event_count));
	ev->cuda = p->cuda;
	ev->host = p->host;
	ev->nccl = p->nccl;
	ev->sym = p->sym;
	ev->acs_loose = p->acs_loose;
	memcpy(ev->releases, p->releases, sizeof(ev->releases));
	ev->n_releases = p->n_releases;
	if (!b.oom)
		return 0;
	p2ps_evidence_free(ev);
	return p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory", p->source);
}
