/* SPDX-License-Identifier: MIT */
/* p2p-bench: the result's matrices (bench.h), shared by the CUDA measurement and the
 * IPC orchestration, which is built without CUDA so that its tests run everywhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct pb_matrix *pb_add_matrix(struct pb_result *r, const char *key, const char *title,
                                const char *metric, const char *engine, bool bidir, bool p2p)
{
	struct pb_matrix *m;
	if (r->nmat >= PB_MAX_MATRICES)
		return NULL;
	m = &r->mat[r->nmat];
	m->v = malloc(sizeof(double) * (size_t)r->n * (size_t)r->n);
	if (!m->v)
		return NULL;
	for (int k = 0; k < r->n * r->n; k++)
		m->v[k] = NAN;
	m->key = key;
	m->title = title;
	m->metric = metric;
	m->engine = engine;
	m->bidirectional = bidir;
	m->p2p = p2p;
	m->sharing = m->base = NULL;
	r->nmat++;
	return m;
}

const struct pb_matrix *pb_find_matrix(const struct pb_result *r, const char *key)
{
	for (int k = 0; k < r->nmat; k++)
		if (!r->mat[k].sharing && !strcmp(r->mat[k].key, key))
			return &r->mat[k];
	return NULL;
}

void pb_result_cleanup(struct pb_result *r)
{
	for (int k = 0; k < r->nmat; k++)
		free(r->mat[k].v);
	r->nmat = 0;
}
