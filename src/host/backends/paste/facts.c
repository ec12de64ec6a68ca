/* SPDX-License-Identifier: MIT */
/* The reader's working facts (include/p2pscope/paste.h): lookups and freeing. */
#include <stdlib.h>
#include <string.h>

#include "p2pscope/paste.h"

struct p2ps_paste_dev *p2ps_paste_find_dev(const struct p2ps_paste *p, const struct p2ps_bdf *b)
{
	for (size_t i = 0; i < p->n_devs; i++)
		if (p2ps_bdf_equal(&p->devs[i].d.bdf, b))
			return &p->devs[i];
	return NULL;
}

const struct p2ps_paste_gpu *p2ps_paste_gpu_smi(const struct p2ps_paste *p, int i)
{
	for (size_t k = 0; k < p->n_gpus; k++)
		if (p->gpus[k].smi == i)
			return &p->gpus[k];
	return NULL;
}

const struct p2ps_paste_gpu *p2ps_paste_gpu_cuda(const struct p2ps_paste *p, int i)
{
	for (size_t k = 0; k < p->n_gpus; k++)
		if (p->gpus[k].cuda == i)
			return &p->gpus[k];
	return NULL;
}

const char *p2ps_paste_cell(const struct p2ps_paste *p, enum p2ps_paste_matrix_kind k, int i, int j)
{
	const struct p2ps_paste_matrix *m = (unsigned)k < P2PS_PM_COUNT ? &p->m[k] : NULL;
	if (!m || !m->present || i < 0 || j < 0 || i >= m->n || j >= m->n ||
	    !m->cell[i * m->n + j][0])
		return NULL;
	return m->cell[i * m->n + j];
}

void p2ps_paste_free(struct p2ps_paste *p)
{
	if (!p)
		return;
	free(p->blocks);
	free(p->devs);
	free(p->events);
	for (int k = 0; k < P2PS_PM_COUNT; k++) {
		free(p->m[k].cell);
		free(p->m[k].row_line);
	}
	for (size_t k = 0; k < p->n_p2p_more; k++) {
		free(p->p2p_more[k].cell);
		free(p->p2p_more[k].row_line);
	}
	memset(p, 0, sizeof(*p));
}
