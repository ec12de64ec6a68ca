/* SPDX-License-Identifier: MIT */
/* Where a check's cells go in each region, and judging a window of them in host memory. */
#include "check_internal.h"

#include <string.h>

#define MIB (1ull << 20)

void p2ps_chk_opts_default(struct p2ps_chk_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->payload = 2 * MIB;
	o->guard = 64 << 10;
	/* A static BAR1 mapping through a window smaller than the memory wraps at the window's
	 * size: 256 MiB is the classic BAR1 without Resizable BAR; 512 MiB and 1 GiB are the
	 * next steps of the ReBAR ladder. */
	o->alias[0] = 256 * MIB;
	o->alias[1] = 512 * MIB;
	o->alias[2] = 1024 * MIB;
	o->n_alias = 3;
	o->paths = P2PS_CHK_PATHS_DEFAULT;
	o->nccl = true;
	o->step_ms = 2000;
	o->open_ms = 20000;
}

static void add(struct p2ps_chk_layout *l, uint64_t off, uint64_t bytes, enum p2ps_chk_role role,
                int64_t alias)
{
	l->w[l->n++] = (struct p2ps_chk_window){off, bytes, role, alias};
}

/* The slot sits max(alias) + guard into the region, so that the lowest alias probe starts at
 * 0; the probes at +-d cover the slot's guards too, so that a write that moved by d plus a
 * little still lands in a probe. The scratch window comes last. */
int p2ps_chk_layout_make(uint64_t payload, uint64_t guard, const uint64_t *alias, size_t n_alias,
                         struct p2ps_chk_layout *l, struct p2ps_error *err)
{
	uint64_t top = 0;
	memset(l, 0, sizeof(*l));
	if (!payload || payload % P2PS_CELL_BYTES || guard % P2PS_CELL_BYTES ||
	    n_alias > P2PS_CHK_MAX_ALIAS || payload > (1ull << 34))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "check layout: payload %llu and guard %llu must be multiples "
		                      "of 16 bytes, at most %d alias probes",
		                      (unsigned long long)payload, (unsigned long long)guard,
		                      P2PS_CHK_MAX_ALIAS);
	for (size_t k = 0; k < n_alias; k++) {
		if (alias[k] < payload + 2 * guard || alias[k] % P2PS_CELL_BYTES ||
		    alias[k] > (1ull << 36))
			return p2ps_error_set(
			        err, P2PS_EINVAL,
			        "check layout: alias probe %llu must be a multiple of 16 "
			        "of at least the payload and two guards",
			        (unsigned long long)alias[k]);
		for (size_t j = 0; j < k; j++)
			if (alias[j] == alias[k])
				return p2ps_error_set(err, P2PS_EINVAL,
				                      "check layout: alias probe %llu twice",
				                      (unsigned long long)alias[k]);
		top = alias[k] > top ? alias[k] : top;
	}
	uint64_t span = guard + payload + guard; /* a probe: the slot and its guards */
	uint64_t slot = top + guard;
	l->payload = payload;
	l->guard = guard;
	l->slot = l->n;
	add(l, slot, payload, P2PS_CHK_W_SLOT, 0);
	if (guard) {
		add(l, slot - guard, guard, P2PS_CHK_W_GUARD, 0);
		add(l, slot + payload, guard, P2PS_CHK_W_GUARD, 0);
	}
	for (size_t k = 0; k < n_alias; k++) {
		add(l, slot - guard - alias[k], span, P2PS_CHK_W_ALIAS, -(int64_t)alias[k]);
		add(l, slot - guard + alias[k], span, P2PS_CHK_W_ALIAS, (int64_t)alias[k]);
	}
	uint64_t end = slot + payload + guard + top;
	l->scratch = l->n;
	add(l, end, payload, P2PS_CHK_W_SCRATCH, 0);
	/* Whole 2 MiB pages: the granularity GPUs map memory in. */
	l->bytes = (end + payload + 2 * MIB - 1) / (2 * MIB) * (2 * MIB);
	if (l->bytes / P2PS_CELL_BYTES > UINT32_MAX)
		return p2ps_error_set(err, P2PS_EINVAL, "check layout: region beyond 64 GiB");
	return 0;
}

void p2ps_cell_scan(const uint32_t *cells, uint64_t n, const struct p2ps_cell_win *win,
                    struct p2ps_cell_tally *t)
{
	p2ps_cell_tally_init(t);
	t->cells = n;
	for (uint64_t i = 0; i < n; i++) {
		const uint32_t *w = cells + 4 * i;
		uint32_t who = 0, path = 0;
		long long disp = 0;
		int place = p2ps_cell_place(w, win, (uint32_t)i, &who, &path, &disp);
		t->n[place]++;
		if (place == P2PS_CP_IS_OK)
			continue;
		if (t->first_bad == ~0ull) {
			t->first_bad = i;
			memcpy(t->first_bad_cell, w, sizeof(t->first_bad_cell));
		}
		if (place < P2PS_CP_IS_DISPLACED)
			continue;
		bool canary = place == P2PS_CP_IS_CANARY || (place == P2PS_CP_IS_DISPLACED &&
		                                             win->expect.kind == P2PS_CELL_CANARY);
		if (who < P2PS_CHK_MAX_GPUS)
			(canary ? t->canary_of : t->payload_of)[who]++;
		if (!canary)
			t->path_mask |= 1ull << (path & 31);
		t->disp_min = disp < t->disp_min ? disp : t->disp_min;
		t->disp_max = disp > t->disp_max ? disp : t->disp_max;
	}
}
