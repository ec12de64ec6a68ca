/* SPDX-License-Identifier: MIT */
/* Private to the check's library (src/host/check): the plan of one round, the scans it
 * collects, and the helpers the run, the report and the renderers share. */
#ifndef P2PS_CHECK_INTERNAL_H
#define P2PS_CHECK_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "p2pscope/check.h"

/* The scans of one GPU in one round: its windows, what each had to hold, what each held. */
struct chk_gpu_scan {
	bool done; /* scanned (the GPU is usable and its scan returned) */
	enum p2ps_chk_region region;
	size_t n;
	struct p2ps_chk_span span[P2PS_CHK_MAX_WINDOWS + 1];
	enum p2ps_chk_role role[P2PS_CHK_MAX_WINDOWS + 1];
	int64_t alias[P2PS_CHK_MAX_WINDOWS + 1];
	struct p2ps_cell_tally t[P2PS_CHK_MAX_WINDOWS + 1];
	int target_of; /* the step (its GPU a) whose result lands in this GPU's target, or -1 */
	size_t target; /* index of that window */
};

/* One round of one path: every GPU a accesses GPU peer[a] (-1: no step for a). */
struct chk_round {
	enum p2ps_chk_path path;
	bool load; /* the data flow from b to a (the target is a's scratch window) */
	int n;
	int peer[P2PS_CHK_MAX_GPUS];
	struct chk_gpu_scan scan[P2PS_CHK_MAX_GPUS];
};

/* Classifies step a -> r->peer[a] of a round whose scans are done into o (its form, detail,
 * displacement, cells). names[g] names GPU g in the detail ("GPU 1 (0000:00:07.0)"). */
void p2ps_chk_classify(const struct chk_round *r, int a, const char *const *names,
                       struct p2ps_chk_obs *o);

/* Appends printf text to a fixed buffer (cut at its end). */
void p2ps_chk_catf(char *buf, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The same into an emptied buffer (the text is cut at its end, never overflows). */
void p2ps_chk_setf(char *buf, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* "256 MiB", "64 KiB", "48 bytes": a byte distance as a reader wants it. */
char *p2ps_chk_bytes(int64_t v, char *buf, size_t size);

/* The key of GPU g's canaries, and of step a -> b's payload on path p. */
struct p2ps_cell_key p2ps_chk_canary_key(int g, uint32_t nonce);
struct p2ps_cell_key p2ps_chk_payload_key(int a, int b, enum p2ps_chk_path p, uint32_t nonce);

#endif
