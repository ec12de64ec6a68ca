/* bar-inspect --fleet: many reports, capture tarballs or snapshot folders into one
 * summary (src/fleet, include/p2pscope/fleet.h). main.c forwards --fleet, --csv and
 * --expect here and, when bi_fleet_wanted(), hands the run to bi_fleet_run() with the
 * non-option arguments as inputs. */
#ifndef BAR_INSPECT_FLEET_CLI_H
#define BAR_INSPECT_FLEET_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/analysis.h"
#include "p2pscope/host.h"

struct bi_fleet_cli {
	bool fleet;         /* --fleet */
	bool csv;           /* --csv */
	const char *expect; /* --expect FILE */
};

/* Option handlers: 0, or -1 with a one-line message in err. */
int bi_fleet_opt_fleet(struct bi_fleet_cli *f, const char *arg, char *err, size_t err_size);
int bi_fleet_opt_csv(struct bi_fleet_cli *f, const char *arg, char *err, size_t err_size);
int bi_fleet_opt_expect(struct bi_fleet_cli *f, const char *arg, char *err, size_t err_size);

bool bi_fleet_wanted(const struct bi_fleet_cli *f);

/* The whole --fleet run. inputs are the non-option arguments; json picks JSON output;
 * flags (P2PS_HOST_F_*) and ao apply to the snapshots it analyses. Returns the exit
 * status: 0 every input was a host and no expected host is missing, 1 the summary lists
 * skipped inputs or missing hosts, 2 after one error line on stderr. */
int bi_fleet_run(const struct bi_fleet_cli *f, char *const *inputs, size_t n_inputs, bool json,
                 unsigned flags, const struct p2ps_analysis_opts *ao, const char *version);

#endif
