/* SPDX-License-Identifier: MIT */
/* p2pscope: phase timings, to find where a run's wall time goes (bar-inspect
 * --timings). Library code records; only a tool prints.
 *
 * A caller that wants timings hands a struct p2ps_timings to the code it runs (for the
 * host loader through struct p2ps_host_source); code that is handed NULL records
 * nothing. Phases keep the order in which they first ran; a phase that runs again (once
 * per device, say) adds to its total and counts the runs. */
#ifndef P2PSCOPE_TIMINGS_H
#define P2PSCOPE_TIMINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define P2PS_TIMINGS_MAX 48

struct p2ps_timing {
	const char *phase; /* a string with static storage ("libpci: config reads") */
	uint64_t ns;       /* total wall time */
	unsigned runs;     /* how many laps added to it */
	bool beside;       /* timed on another thread, beside the caller's phases */
};

struct p2ps_timings {
	size_t n;
	struct p2ps_timing t[P2PS_TIMINGS_MAX];
};

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t p2ps_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Adds the time since *since to phase and sets *since to now, so that consecutive laps
 * cover a run without gaps. Nothing when t is NULL; phases past P2PS_TIMINGS_MAX are
 * dropped. (Inline, so that every layer can time itself without a link dependency.) */
static inline void p2ps_timings_lap(struct p2ps_timings *t, const char *phase, uint64_t *since)
{
	if (!t)
		return;
	uint64_t now = p2ps_clock_ns();
	size_t i = 0;
	while (i < t->n && strcmp(t->t[i].phase, phase))
		i++;
	if (i == t->n && t->n < P2PS_TIMINGS_MAX)
		t->t[t->n++] = (struct p2ps_timing){phase, 0, 0, false};
	if (i < t->n) {
		t->t[i].ns += now - *since;
		t->t[i].runs++;
	}
	*since = now;
}

/* Adds a phase timed on another thread (into its own struct) to t, marked beside: it
 * overlapped t's own phases, so a total of t's phases leaves it out. */
static inline void p2ps_timings_add(struct p2ps_timings *t, const struct p2ps_timing *x)
{
	size_t i = 0;
	while (i < t->n && strcmp(t->t[i].phase, x->phase))
		i++;
	if (i == t->n && t->n < P2PS_TIMINGS_MAX)
		t->t[t->n++] = (struct p2ps_timing){x->phase, 0, 0, true};
	if (i < t->n) {
		t->t[i].ns += x->ns;
		t->t[i].runs += x->runs;
	}
}

#ifdef __cplusplus
}
#endif

#endif
