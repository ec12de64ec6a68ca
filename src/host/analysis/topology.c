/* SPDX-License-Identifier: MIT */
/* Topology: the bridge chain above a device, the nvidia-smi topo -m class of a pair from
 * the PCI tree and NUMA nodes, and NVLink counts. */
#include "analysis_internal.h"

#include <string.h>

/* Ancestors of dev idx, nearest first. Returns the count; *looped when the chain is
 * longer than max (a parent cycle in a malformed dump). */
int p2ps_an_ancestors(const struct p2ps_host *h, int idx, int *out, int max, bool *looped)
{
	int n = 0;
	*looped = false;
	const struct p2ps_dev *d = &h->devs[idx];
	while (d->parent_idx >= 0 && (size_t)d->parent_idx < h->n_devs) {
		if (n == max) {
			*looped = true;
			break;
		}
		out[n++] = d->parent_idx;
		d = &h->devs[d->parent_idx];
	}
	return n;
}

/* Whether the chain above a device is complete: a topmost device must really sit on a
 * root bus, not below a bridge the model lacks (has_parent without a parent) or in a
 * place the backend could not determine (a reason in unknown[PARENT]). */
static bool top_known(const struct p2ps_dev *d)
{
	return !(d->parent_idx < 0 && (d->has_parent || p2ps_dev_unknown(d, P2PS_FACT_PARENT)));
}

enum p2ps_topo p2ps_topo_classify(const struct p2ps_host *h, int a, int b, int *lca, int turn[2])
{
	int pa[P2PS_PATH_MAX], pb[P2PS_PATH_MAX];
	bool la, lb;
	*lca = -1;
	turn[0] = turn[1] = -1;
	if (a == b)
		return P2PS_TOPO_X;
	const struct p2ps_dev *da = &h->devs[a], *db = &h->devs[b];
	int na = p2ps_an_ancestors(h, a, pa, P2PS_PATH_MAX, &la);
	int nb = p2ps_an_ancestors(h, b, pb, P2PS_PATH_MAX, &lb);
	if (la || lb || !top_known(na ? &h->devs[pa[na - 1]] : da) ||
	    !top_known(nb ? &h->devs[pb[nb - 1]] : db))
		return P2PS_TOPO_UNKNOWN;

	/* One device above the other (a peer that is a bridge, e.g. a switch port's own
	 * BAR): they meet at the upper one. */
	for (int k = 0; k < 2; k++) {
		const int *up = k ? pb : pa;
		int nu = k ? nb : na, other = k ? a : b;
		for (int i = 0; i < nu; i++)
			if (up[i] == other) {
				*lca = other;
				turn[k] = i > 0 ? up[i - 1] : -1;
				return i + 1 <= 3 ? P2PS_TOPO_PIX : P2PS_TOPO_PXB;
			}
	}

	/* Lowest common ancestor: the first of a's ancestors that is also b's. */
	int ia = -1, ib = -1;
	for (int i = 0; i < na && ia < 0; i++)
		for (int j = 0; j < nb; j++)
			if (pa[i] == pb[j]) {
				ia = i;
				ib = j;
				break;
			}
	if (ia >= 0) {
		*lca = pa[ia];
		turn[0] = ia > 0 ? pa[ia - 1] : -1;
		turn[1] = ib > 0 ? pb[ib - 1] : -1;
		/* Bridges the traffic passes: the ones below the LCA on both sides, plus the LCA.
		 * One switch (downstream port, upstream port, downstream port) is 3 and counts as
		 * a single bridge in nvidia-smi's and NCCL's sense; a lone root port is 1. */
		int bridges = ia + ib + 1;
		return bridges <= 3 ? P2PS_TOPO_PIX : P2PS_TOPO_PXB;
	}
	turn[0] = na > 0 ? pa[na - 1] : -1;
	turn[1] = nb > 0 ? pb[nb - 1] : -1;
	const struct p2ps_dev *ta = na > 0 ? &h->devs[pa[na - 1]] : da;
	const struct p2ps_dev *tb = nb > 0 ? &h->devs[pb[nb - 1]] : db;
	if (!strcmp(ta->root_bus, tb->root_bus) && ta->root_bus[0])
		return P2PS_TOPO_PHB;
	if (!ta->root_bus[0] || !tb->root_bus[0])
		return P2PS_TOPO_UNKNOWN;
	/* Different host bridges: NUMA nodes tell NODE from SYS. A kernel without NUMA
	 * reports -1 for every device; then everything is one node. */
	if (da->numa_node >= 0 && db->numa_node >= 0)
		return da->numa_node == db->numa_node ? P2PS_TOPO_NODE : P2PS_TOPO_SYS;
	if (da->numa_node < 0 && db->numa_node < 0)
		return P2PS_TOPO_NODE;
	return P2PS_TOPO_UNKNOWN;
}

/* NVLink count between two GPUs: direct links, or (NVSwitch systems, where every
 * link ends at a switch) the links both GPUs have into the switch fabric. */
static int nvlinks_between(const struct p2ps_host *h, const struct p2ps_dev *x,
                           const struct p2ps_dev *y)
{
	int direct = 0, xs = 0, ys = 0;
	const struct p2ps_dev *pair[2] = {x, y};
	int *sw[2] = {&xs, &ys};
	for (int k = 0; k < 2; k++) {
		const struct p2ps_gpu_facts *g = &pair[k]->gpu;
		if (!g->nvlink_known)
			continue;
		for (int i = 0; i < g->n_nvlink_peers && i < P2PS_HOST_MAX_NVLINK; i++) {
			const struct p2ps_nvlink_peer *p = &g->nvlink_peers[i];
			const struct p2ps_dev *other = pair[1 - k];
			if (p2ps_bdf_equal(&p->bdf, &other->bdf)) {
				if (p->links > direct)
					direct = p->links;
				continue;
			}
			const struct p2ps_dev *rem = p2ps_host_find(h, &p->bdf);
			if (!rem || !p2ps_dev_is_nvidia_gpu(rem))
				*sw[k] += p->links;
		}
	}
	if (direct)
		return direct;
	return xs && ys ? (xs < ys ? xs : ys) : 0;
}

/* The pair of endpoints i < j with its class, NVLink count and the ports where its
 * traffic turns. */
static void pair_init(struct p2ps_pair *p, const struct p2ps_analysis *a, size_t i, size_t j,
                      enum p2ps_topo t, int nv, int lca, const int turn[2])
{
	p->a = (int)i;
	p->b = (int)j;
	p->pcie_topo = t;
	p->topo = nv ? P2PS_TOPO_NV : t;
	p->nvlinks = nv;
	p->moot = nv > 0;
	p->lca_idx = lca;
	p->turn[0] = turn[0];
	p->turn[1] = turn[1];
	double ga = a->gpus[i].link_sta_gbps, gb = a->gpus[j].link_sta_gbps;
	p->pcie_gbps = ga > 0 && gb > 0 ? (ga < gb ? ga : gb) : 0;
}

void p2ps_an_pairs(struct p2ps_an_ctx *c)
{
	const struct p2ps_host *host = c->host;
	struct p2ps_analysis *out = c->a;
	size_t n = out->n_gpus;
	/* The classes and NVLink counts are symmetric (test_topology_is_symmetric): each
	 * pair is classified once and mirrored into the matrix. */
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i; j < n; j++) {
			int lca, turn[2];
			int di = out->gpus[i].dev_idx, dj = out->gpus[j].dev_idx;
			enum p2ps_topo t = p2ps_topo_classify(host, di, dj, &lca, turn);
			int nv = i == j ? 0
			                : nvlinks_between(host, &host->devs[di], &host->devs[dj]);
			out->nvlink_matrix[i * n + j] = out->nvlink_matrix[j * n + i] = nv;
			out->matrix[i * n + j] = out->matrix[j * n + i] = nv ? P2PS_TOPO_NV : t;
			if (j == i)
				continue;
			struct p2ps_pair *p = &out->pairs[out->n_pairs++];
			pair_init(p, out, i, j, t, nv, lca, turn);
			p2ps_an_pair(c, p);
		}
	}
}
