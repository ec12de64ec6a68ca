/* SPDX-License-Identifier: MIT */
/* bar-inspect --fleet: many reports, capture tarballs or snapshot folders into one
 * summary (src/fleet, include/p2pscope/fleet.h; docs/fleet.md). --fleet and --csv are
 * plain flags in main.c's option table; --expect has its handler here. With --fleet the
 * non-option arguments are the inputs and bi_fleet_run() does the whole run. */
#ifndef BAR_INSPECT_FLEET_OPTS_H
#define BAR_INSPECT_FLEET_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/analysis.h"

struct bi_fleet_opts {
	bool fleet;         /* --fleet */
	bool csv;           /* --csv */
	const char *expect; /* --expect FILE */
	bool check;         /* --check: the worst host's readiness decides the exit status */
};

/* --expect FILE: 0, or -1 with a one-line message in err. */
int bi_fleet_opt_expect(struct bi_fleet_opts *f, const char *arg, char *err, size_t err_size);

/* The whole --fleet run over inputs (the non-option arguments). json picks JSON; flags
 * (P2PS_HOST_F_*) and ao apply to the snapshots it analyses. Returns the exit status: 0
 * every input was a host and no expected host is missing, 1 the summary lists skipped
 * inputs or missing hosts, 2 after one error line on stderr. */
int bi_fleet_run(const struct bi_fleet_opts *f, char *const *inputs, size_t n_inputs, bool json,
                 unsigned flags, const struct p2ps_analysis_opts *ao);

#endif
