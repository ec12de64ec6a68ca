/* SPDX-License-Identifier: MIT */
/* bar-inspect's RM API options: --nvidia-facts, --record and --replay (rm_opts.c). */
#ifndef BAR_INSPECT_RM_OPTS_H
#define BAR_INSPECT_RM_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/host_load.h"
#include "p2pscope/rm.h"

struct bi_rm_opts {
	const char *facts;  /* --nvidia-facts: "rm", "nvml", "none"; NULL: RM, then NVML */
	const char *record; /* --record FILE */
	const char *replay; /* --replay FILE */
	/* The session (bi_rm_begin .. bi_rm_end). */
	struct p2ps_rm_sys inner, sys;
	struct p2ps_rm_linux linux_ctx;
	struct p2ps_rm_recorder *rec;
	struct p2ps_rm_capture cap;
	struct p2ps_rm_replay *rep;
};

/* --nvidia-facts's argument into src; -1 with err set when it is none of rm, nvml, none. */
int bi_rm_opt_facts(struct bi_rm_opts *o, const char *arg, char *err, size_t err_size);

/* Checks the combination (a replay needs --root; --record reads the live driver) and
 * starts the recorder or the replay, pointing src->rm_sys at it. -1 with err set. */
int bi_rm_begin(struct bi_rm_opts *o, struct p2ps_host_source *src, const char *note, char *err,
                size_t err_size);

/* Finishes the recorder (the file is then complete) or the replay (every call of the
 * capture was used, in order, and every GPU it lists is one of host's: NULL when the load
 * failed). Returns 0, or -1 with err set. */
struct p2ps_host;
int bi_rm_end(struct bi_rm_opts *o, const struct p2ps_host *host, char *err, size_t err_size);

#endif
