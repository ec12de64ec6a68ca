/* SPDX-License-Identifier: MIT */
/* bar-inspect's VFIO options: --vfio, --vfio-flow, --read-reg, --map-peer. Their
 * handlers fill one struct bi_vfio_opts; bi_vfio_request() turns it into the request the
 * VFIO backend carries out while it loads the host (p2pscope/host_load.h), and
 * bi_vfio_status() says afterwards whether a register read or the peer mapping failed.
 * Everything that opens a VFIO device or maps a BAR happens only behind these options. */
#ifndef BAR_INSPECT_VFIO_OPTS_H
#define BAR_INSPECT_VFIO_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"
#include "p2pscope/host_load.h"

#define BI_MAX_VFIO_TARGETS 64

struct bi_vfio_opts {
	struct p2ps_vfio_target targets[BI_MAX_VFIO_TARGETS]; /* --vfio (and --map-peer's) */
	size_t n_targets;
	bool vfio;                    /* --vfio given */
	enum p2ps_vfio_flow flow;     /* --vfio-flow */
	struct p2ps_vfio_asked asked; /* --read-reg, --map-peer */
};

/* Option handlers: 0, or -1 with a one-line message in err. */
int bi_vfio_opt_vfio(struct bi_vfio_opts *v, const char *arg, char *err, size_t err_size);
int bi_vfio_opt_flow(struct bi_vfio_opts *v, const char *arg, char *err, size_t err_size);
int bi_vfio_opt_read_reg(struct bi_vfio_opts *v, const char *arg, char *err, size_t err_size);
int bi_vfio_opt_map_peer(struct bi_vfio_opts *v, const char *arg, char *err, size_t err_size);

/* Checks the VFIO options against the rest of the command line (the source kind src
 * names, the output format, the -s filter) and fills req and src (kind VFIO when
 * devices are opened, src->vfio). Returns 0 when no VFIO option was given or all is
 * well, or -1 with a message in err. */
int bi_vfio_request(struct bi_vfio_opts *v, struct p2ps_host_source *src, bool dot,
                    const struct p2ps_slot_filter *filter, struct p2ps_vfio_request *req, char *err,
                    size_t err_size);

/* After the report is written: the exit status the VFIO facts call for (0, or 2 after
 * one line on stderr naming the register read or peer mapping that failed). */
int bi_vfio_status(const struct p2ps_host *host);

#endif
