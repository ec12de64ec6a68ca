/* SPDX-License-Identifier: MIT */
/* What every renderer shares: which devices and pairs a report shows, and lspci's size
 * spelling. */
#include "render_internal.h"

#include <stdio.h>

/* lspci's compact size spelling: 16M, 256G, 512K, 1.5G is never needed because BAR
 * and window sizes are powers of two, except bridge windows which lspci rounds too. */
char *p2ps_size_short(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = {'\0', 'K', 'M', 'G', 'T', 'P'};
	int u = 0;
	while (bytes >= 1024 && !(bytes % 1024) && u < 5) {
		bytes /= 1024;
		u++;
	}
	if (units[u])
		snprintf(buf, size, "%llu%c", (unsigned long long)bytes, units[u]);
	else
		snprintf(buf, size, "%llu", (unsigned long long)bytes);
	return buf;
}

bool p2ps_dev_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o, int idx)
{
	const struct p2ps_dev *d = &a->host->devs[idx];
	if (o && o->filter && !p2ps_slot_match(o->filter, &d->bdf))
		return false;
	return (o && o->all) || p2ps_analysis_gpu_of_dev(a, idx) >= 0;
}

bool p2ps_pair_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     const struct p2ps_pair *p)
{
	if (!o || !o->filter)
		return true;
	const struct p2ps_host *h = a->host;
	return p2ps_slot_match(o->filter, &h->devs[a->gpus[p->a].dev_idx].bdf) ||
	       p2ps_slot_match(o->filter, &h->devs[a->gpus[p->b].dev_idx].bdf);
}

bool p2ps_endpoint_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o, size_t gi)
{
	return !o || !o->filter ||
	       p2ps_slot_match(o->filter, &a->host->devs[a->gpus[gi].dev_idx].bdf);
}
