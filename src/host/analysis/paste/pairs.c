/* SPDX-License-Identifier: MIT */
/* The per-pair table: for every GPU pair, the analysis' verdict beside what nvidia-smi
 * (topo -m class, topo -p2p status) and CUDA (peer access, P2P off/on bandwidth) said,
 * and a note where they disagree. GPUs with an address are the analysis' GPUs (its
 * numbering); GPUs the paste knows only by nvidia-smi index or CUDA ordinal follow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"

struct ugpu {
	int gi; /* analysis GPU index, -1 */
	int smi, cuda;
	char label[40];
};

static int unified(const struct octx *c, struct ugpu *u, int max)
{
	int n = 0;
	for (size_t gi = 0; gi < c->a->n_gpus && n < max; gi++) {
		if (!c->a->gpus[gi].is_gpu)
			continue;
		const struct p2ps_dev *d = &c->h->devs[c->a->gpus[gi].dev_idx];
		struct ugpu *x = &u[n++];
		*x = (struct ugpu){(int)gi, -1, -1, ""};
		for (size_t k = 0; k < c->ev->n_gpus; k++)
			if (c->ev->gpus[k].bdf_known &&
			    p2ps_bdf_equal(&c->ev->gpus[k].bdf, &d->bdf)) {
				x->smi = c->ev->gpus[k].smi;
				x->cuda = c->ev->gpus[k].cuda;
			}
		snprintf(x->label, sizeof(x->label), "GPU%zu %s", gi, d->bdf_str);
	}
	for (size_t k = 0; k < c->ev->n_gpus && n < max; k++) {
		const struct p2ps_paste_gpu *g = &c->ev->gpus[k];
		if (g->bdf_known)
			continue;
		u[n] = (struct ugpu){-1, g->smi, g->cuda, ""};
		snprintf(u[n].label, sizeof(u[n].label), "%s%d (no address)",
		         g->smi >= 0 ? "GPU" : "CUDA", g->smi >= 0 ? g->smi : g->cuda);
		n++;
	}
	return n;
}

static void cell(const struct octx *c, enum p2ps_paste_matrix_kind k, int i, int j, char *out)
{
	const char *s = po_cell(c, k, i, j);
	snprintf(out, P2PS_PASTE_CELL, "%s", s ? s : "");
}

static int access(const struct octx *c, int i, int j)
{
	const char *s = po_cell(c, P2PS_PM_CUDA_ACCESS, i, j);
	return s ? s[0] == '1' : -1;
}

/* The note for a pair whose sources disagree, "" when they do not. */
static void disagreement(struct p2ps_paste_pair *x)
{
	bool cannot = x->cuda_ab == 0 || x->cuda_ba == 0, can = x->cuda_ab == 1 && x->cuda_ba == 1;
	bool ok = !strcmp(x->p2p_ab, "OK") && (!x->p2p_ba[0] || !strcmp(x->p2p_ba, "OK"));
	bool not_ok = (x->p2p_ab[0] && strcmp(x->p2p_ab, "OK") && strcmp(x->p2p_ab, "X")) ||
	              (x->p2p_ba[0] && strcmp(x->p2p_ba, "OK") && strcmp(x->p2p_ba, "X"));
	enum p2ps_verdict v = x->ours ? x->ours->verdict : P2PS_VERDICT_UNKNOWN;
	if (x->ours && v == P2PS_VERDICT_READY && (cannot || not_ok))
		snprintf(x->note, sizeof(x->note),
		         "the analysis finds nothing blocking, but %s: the paste shows a cause the "
		         "analysis cannot see (driver policy, GPU model, a fault)",
		         cannot ? "CUDA cannot access the peer" : "nvidia-smi does not allow P2P");
	else if (x->ours && v == P2PS_VERDICT_NOT_READY && can && x->bw_on > 1.15 * x->bw_off &&
	         x->bw_off > 0)
		snprintf(x->note, sizeof(x->note),
		         "CUDA copies peer-to-peer faster than through host memory although the "
		         "analysis names blockers: the pasted facts may not be from the run that "
		         "measured it");
	else if (ok && cannot)
		snprintf(x->note, sizeof(x->note),
		         "nvidia-smi reports OK but CUDA cannot access the peer: topo -p2p checks "
		         "the "
		         "chipset and the GPU, not whether the driver maps this pair");
	else if (not_ok && can)
		snprintf(x->note, sizeof(x->note),
		         "CUDA accesses the peer although nvidia-smi reports %s", x->p2p_ab);
}

/* Positive evidence that P2P works on the pair (peer access enabled both ways, a copy
 * that checked its data, P2P faster than host copies, NCCL's P2P transport), unless a
 * blocker of the analysis or a failure in the paste speaks against it. */
static void works(const struct octx *c, struct p2ps_paste_pair *x)
{
	const struct p2ps_evidence *ev = c->ev;
	char why[160] = "";
	size_t n;
	if (x->cuda_ab == 1 && x->cuda_ba == 1)
		snprintf(why, sizeof(why), "CUDA enables peer access both ways");
	if (x->cuda_ab == 1 && x->cuda_ba == 1 && ev->cuda.result == 1 && !ev->cuda.verify_errors &&
	    !strcmp(ev->cuda.test, "simpleP2P"))
		snprintf(why, sizeof(why),
		         "simpleP2P: peer access both ways and its copy checked "
		         "(Test passed)");
	if (x->bw_off > 0 && x->bw_on > 1.15 * x->bw_off && (n = strlen(why)) < sizeof(why))
		snprintf(why + n, sizeof(why) - n,
		         "%sP2P copies %.1f GB/s against %.1f through "
		         "host memory",
		         n ? "; " : "", x->bw_on, x->bw_off);
	/* NCCL_P2P_LEVEL set by hand makes NCCL use P2P where it would not: no evidence. */
	bool forced = false;
	for (int i = 0; i < ev->nccl.n_env; i++)
		forced |= !strncmp(ev->nccl.env[i], "NCCL_P2P_LEVEL=", 15);
	if (!strcmp(x->nccl, "P2P") && !forced && (n = strlen(why)) < sizeof(why))
		snprintf(why + n, sizeof(why) - n, "%sNCCL connects the pair via %s", n ? "; " : "",
		         ev->nccl.p2p_how[0] ? ev->nccl.p2p_how : "P2P");
	/* Peer access enabled alone is no evidence: CUDA enables it where copies then crawl
	 * through the root complex or deliver wrong data. */
	if (!strcmp(why, "CUDA enables peer access both ways"))
		return;
	bool slow = x->bw_on > 0 && x->bw_off > 0 && x->bw_on <= 1.15 * x->bw_off;
	bool against = slow || po_failure_seen(c) ||
	               (x->ours && x->ours->verdict == P2PS_VERDICT_NOT_READY) || x->cuda_ab == 0 ||
	               x->cuda_ba == 0;
	if (!why[0] || against)
		return;
	x->works = 1;
	snprintf(x->works_why, sizeof(x->works_why), "%s", why);
}

static void fill(const struct octx *c, struct p2ps_paste_pair *x, const struct ugpu *u,
                 const struct ugpu *v)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->a, sizeof(x->a), "%s", u->label);
	snprintf(x->b, sizeof(x->b), "%s", v->label);
	if (u->gi >= 0 && v->gi >= 0)
		x->ours = p2ps_analysis_pair(c->a, (size_t)u->gi, (size_t)v->gi);
	cell(c, P2PS_PM_TOPO, u->smi, v->smi, x->topo);
	cell(c, P2PS_PM_P2P, u->smi, v->smi, x->p2p_ab);
	cell(c, P2PS_PM_P2P, v->smi, u->smi, x->p2p_ba);
	x->cuda_ab = access(c, u->cuda, v->cuda);
	x->cuda_ba = access(c, v->cuda, u->cuda);
	x->bw_off = po_cell_num(c, P2PS_PM_BW_UNI_OFF, u->cuda, v->cuda);
	x->bw_on = po_cell_num(c, P2PS_PM_BW_UNI_ON, u->cuda, v->cuda);
	cell(c, P2PS_PM_NCCL, u->cuda, v->cuda, x->nccl);
	if (!x->nccl[0])
		cell(c, P2PS_PM_NCCL, v->cuda, u->cuda, x->nccl);
	disagreement(x);
	works(c, x);
}

int po_pairs(struct octx *c)
{
	struct ugpu u[P2PS_PASTE_MAX_GPUS];
	int n = unified(c, u, P2PS_PASTE_MAX_GPUS);
	if (n < 2)
		return 0;
	c->r->pairs = calloc((size_t)n * (size_t)(n - 1) / 2, sizeof(*c->r->pairs));
	if (!c->r->pairs)
		return P2PS_ENOMEM;
	int notes = 0;
	struct p2ps_paste_where at = {-1, 0};
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			struct p2ps_paste_pair *x = &c->r->pairs[c->r->n_pairs];
			fill(c, x, &u[i], &u[j]);
			/* A pair only the analysis speaks about is in its own pair list already. */
			bool any = x->topo[0] || x->p2p_ab[0] || x->cuda_ab >= 0 ||
			           x->cuda_ba >= 0 || x->bw_on > 0 || x->bw_off > 0 || x->nccl[0];
			if (!any)
				continue;
			c->r->n_pairs++;
			notes += x->note[0] != 0;
			if (x->note[0] && !at.line)
				at = c->ev->matrix[P2PS_PM_CUDA_ACCESS].from;
		}
	int ok = 0;
	const struct p2ps_paste_pair *first = NULL;
	for (size_t i = 0; i < c->r->n_pairs; i++)
		if (c->r->pairs[i].works && !ok++)
			first = &c->r->pairs[i];
	if (ok)
		po_add(c, P2PS_PF_P2P_WORKS, P2PS_SEV_INFO, c->ev->cuda.from,
		       "P2P works on %d pair%s (first: %s <-> %s: %s)", ok, ok == 1 ? "" : "s",
		       first->a, first->b, first->works_why);
	if (notes)
		po_add(c, P2PS_PF_DISAGREEMENT, P2PS_SEV_WARNING, at,
		       "%d pair%s where the sources disagree (see the pair table)", notes,
		       notes == 1 ? "" : "s");
	return 0;
}
