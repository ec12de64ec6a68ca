/* SPDX-License-Identifier: MIT */
/* From what the scans of one round found to the form of each step: where its cells are,
 * where they should be, and what is in their place instead. */
#include "check_internal.h"

#include <stdio.h>
#include <string.h>

void p2ps_chk_catf(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n + 1 >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

void p2ps_chk_setf(char *buf, size_t size, const char *fmt, ...)
{
	if (!size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

char *p2ps_chk_bytes(int64_t v, char *buf, size_t size)
{
	static const struct {
		int64_t unit;
		const char *name;
	} units[] = {{1ll << 30, "GiB"}, {1ll << 20, "MiB"}, {1ll << 10, "KiB"}};
	uint64_t m = v < 0 ? (uint64_t) - (v + 1) + 1 : (uint64_t)v;
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (m >= (uint64_t)units[k].unit && m % (uint64_t)units[k].unit == 0) {
			snprintf(buf, size, "%llu %s",
			         (unsigned long long)(m / (uint64_t)units[k].unit), units[k].name);
			return buf;
		}
	snprintf(buf, size, "%llu bytes", (unsigned long long)m);
	return buf;
}

struct p2ps_cell_key p2ps_chk_canary_key(int g, uint32_t nonce)
{
	return (struct p2ps_cell_key){P2PS_CELL_CANARY, (uint32_t)g, (uint32_t)g, 0, nonce};
}

struct p2ps_cell_key p2ps_chk_payload_key(int a, int b, enum p2ps_chk_path p, uint32_t nonce)
{
	return (struct p2ps_cell_key){P2PS_CELL_PAYLOAD, (uint32_t)a, (uint32_t)b, (uint32_t)p,
	                              nonce};
}

/* Where a step's cells were found outside their place. */
struct misplaced {
	uint64_t other[P2PS_CHK_MAX_GPUS]; /* on (or read from) another GPU */
	uint64_t same;                     /* on the right GPU, at the wrong place */
	long long dmin, dmax;              /* that place minus the right one, in cells */
};

static void note_disp(struct misplaced *m, uint64_t cells, long long lo, long long hi)
{
	if (!cells)
		return;
	m->same += cells;
	m->dmin = lo < m->dmin ? lo : m->dmin;
	m->dmax = hi > m->dmax ? hi : m->dmax;
}

/* A write's cells (payload of GPU a) anywhere but in their place: a window's displacement is
 * the found place minus the cell's own index, the negative of what the scan records. */
static void write_misplaced(const struct chk_round *r, int a, struct misplaced *m)
{
	int b = r->peer[a];
	for (int k = 0; k < r->n; k++) {
		const struct chk_gpu_scan *s = &r->scan[k];
		for (size_t w = 0; s->done && w < s->n; w++) {
			const struct p2ps_cell_tally *t = &s->t[w];
			uint64_t c = t->payload_of[a]; /* misplaced ones only: a's source is OK */
			if (!c)
				continue;
			if (k != b)
				m->other[k] += c;
			else
				note_disp(m, c, -t->disp_max, -t->disp_min);
		}
	}
}

/* A load's target (a's scratch) holds what the load read: b's cells from the wrong place, or
 * another GPU's. The displacement recorded is where the read came from minus where it
 * should. */
static void load_misplaced(const struct chk_round *r, int a, const struct p2ps_cell_tally *t,
                           struct misplaced *m)
{
	int b = r->peer[a];
	note_disp(m, t->n[P2PS_CP_IS_DISPLACED] + t->canary_of[b], t->disp_min, t->disp_max);
	for (int k = 0; k < r->n && k < P2PS_CHK_MAX_GPUS; k++) {
		if (k != b && k != a)
			m->other[k] += t->canary_of[k];
		/* GPU k's step read GPU peer[k]'s slot: those cells live on peer[k]. */
		int home = r->peer[k];
		if (k != a && home >= 0 && home != b)
			m->other[home] += t->payload_of[k];
	}
}

/* Cells beside the target on the target's GPU that changed (not attributed to a step). */
static uint64_t damage(const struct chk_gpu_scan *s)
{
	uint64_t d = 0;
	for (size_t w = 0; w < s->n; w++)
		if (w != s->target)
			d += s->t[w].n[P2PS_CP_IS_ZERO] + s->t[w].n[P2PS_CP_IS_ONES] +
			     s->t[w].n[P2PS_CP_IS_CORRUPT] + s->t[w].n[P2PS_CP_IS_OTHER_RUN];
	return d;
}

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The largest kind of wrong content in the target, as a form. */
static enum p2ps_chk_form content_form(const struct p2ps_cell_tally *t, uint64_t *count,
                                       const char **what)
{
	static const struct {
		int place;
		enum p2ps_chk_form form;
		const char *what;
	} kinds[] = {
	        {P2PS_CP_IS_ZERO, P2PS_CF_ZEROS, "zero"},
	        {P2PS_CP_IS_ONES, P2PS_CF_ONES, "all ones"},
	        {P2PS_CP_IS_STALE, P2PS_CF_LOST, "still the canary"},
	        {P2PS_CP_IS_CORRUPT, P2PS_CF_CORRUPT, "garbage"},
	        {P2PS_CP_IS_OTHER_RUN, P2PS_CF_CORRUPT, "of another run"},
	        {P2PS_CP_IS_PAYLOAD, P2PS_CF_LOST, "another step's data"},
	        {P2PS_CP_IS_CANARY, P2PS_CF_LOST, "another GPU's canary"},
	};
	size_t best = 0;
	for (size_t k = 1; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (t->n[kinds[k].place] > t->n[kinds[best].place])
			best = k;
	*count = t->n[kinds[best].place];
	*what = kinds[best].what;
	return kinds[best].form;
}

static void moved(struct p2ps_chk_obs *o, const struct misplaced *m, bool load)
{
	char d[32], e[32];
	o->bad_cells = m->same;
	if (m->dmin != m->dmax) {
		o->form = P2PS_CF_SHIFTED;
		snprintf(o->detail, sizeof(o->detail),
		         "%llu cells %s between %s and %s away from their place",
		         (unsigned long long)m->same, load ? "were read" : "landed",
		         p2ps_chk_bytes(m->dmin * P2PS_CELL_BYTES, d, sizeof(d)),
		         p2ps_chk_bytes(m->dmax * P2PS_CELL_BYTES, e, sizeof(e)));
		o->displacement = m->dmin * P2PS_CELL_BYTES;
		return;
	}
	int64_t bytes = m->dmin * P2PS_CELL_BYTES;
	uint64_t mag = bytes < 0 ? (uint64_t)-bytes : (uint64_t)bytes;
	o->displacement = bytes;
	/* An address bit lost or a window that wraps moves data by a power of two; a wrong base
	 * by anything. Below 1 MiB a power of two is as likely a wrong offset. */
	o->form = power_of_two(mag) && mag >= (1u << 20) ? P2PS_CF_ALIASED : P2PS_CF_SHIFTED;
	p2ps_chk_setf(o->detail, sizeof(o->detail), "%llu cells %s %s %s their place",
	              (unsigned long long)m->same, load ? "were read from" : "landed",
	              p2ps_chk_bytes(bytes, d, sizeof(d)), bytes < 0 ? "below" : "above");
}

void p2ps_chk_classify(const struct chk_round *r, int a, const char *const *names,
                       struct p2ps_chk_obs *o)
{
	int b = r->peer[a], tg = r->load ? a : b;
	const struct chk_gpu_scan *s = &r->scan[tg];
	struct misplaced m = {.dmin = INT64_MAX, .dmax = INT64_MIN};
	o->other_gpu = -1;
	o->displacement = 0;
	if (!s->done) {
		o->form = P2PS_CF_NOT_RUN;
		p2ps_chk_setf(o->detail, sizeof(o->detail), "%s's memory could not be read back",
		              names[tg]);
		return;
	}
	const struct p2ps_cell_tally *t = &s->t[s->target];
	o->cells = t->cells;
	o->bad_cells = t->cells - t->n[P2PS_CP_IS_OK];
	if (r->load)
		load_misplaced(r, a, t, &m);
	else
		write_misplaced(r, a, &m);
	int other = -1;
	for (int k = 0; k < r->n; k++)
		if (m.other[k] && (other < 0 || m.other[k] > m.other[other]))
			other = k;
	uint64_t dmg = damage(s);
	o->detail[0] = 0;
	if (other >= 0) {
		o->form = P2PS_CF_WRONG_GPU;
		o->other_gpu = other;
		o->bad_cells = m.other[other];
		p2ps_chk_setf(o->detail, sizeof(o->detail), "%llu of %llu cells %s %s",
		              (unsigned long long)m.other[other], (unsigned long long)t->cells,
		              r->load ? "were read from" : "landed on", names[other]);
	} else if (m.same) {
		moved(o, &m, r->load);
	} else if (o->bad_cells) {
		uint64_t count;
		const char *what;
		o->form = content_form(t, &count, &what);
		p2ps_chk_setf(o->detail, sizeof(o->detail), "%llu of %llu cells %s",
		              (unsigned long long)count, (unsigned long long)t->cells, what);
		if (t->first_bad != ~0ull)
			p2ps_chk_catf(o->detail, sizeof(o->detail), ", the first at +%llu bytes",
			              t->first_bad * P2PS_CELL_BYTES);
	} else if (dmg) {
		o->form = P2PS_CF_CANARY;
		o->bad_cells = dmg;
		p2ps_chk_setf(o->detail, sizeof(o->detail),
		              "%llu canary cells beside the data changed on %s",
		              (unsigned long long)dmg, names[tg]);
	} else {
		o->form = P2PS_CF_OK;
	}
}
