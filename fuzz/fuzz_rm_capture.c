/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the RM capture parser (pte-probe --replay) and the replay backend.
 * A capture that parses is replayed through the start of a probe session (driver version,
 * control descriptor, root client, card list, GPU objects, one video-memory page), so the
 * replay's request comparison and response copies meet arbitrary recorded bytes. Any
 * crash, sanitizer report or leak is a finding; parse and replay errors are not. */
// fuzz-links: p2psrm
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/rm.h"

static void session(const struct p2ps_rm_sys *sys)
{
	struct p2ps_rm *rm;
	struct p2ps_error err;
	struct p2ps_rm_card cards[P2PS_RM_MAX_CARDS];
	size_t n = 0;
	if (p2ps_rm_open(&rm, sys, &err))
		return;
	if (p2ps_rm_cards(rm, cards, P2PS_RM_MAX_CARDS, &n, &err) == 0 && n > 0) {
		struct p2ps_rm_gpu g;
		uint8_t page[4096];
		if (p2ps_rm_gpu_open(rm, &cards[0], &g, &err) == 0)
			p2ps_rm_read_vidmem(rm, &g, 0, page, &err);
	}
	p2ps_rm_close(rm, NULL, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p2ps_rm_capture cap;
	struct p2ps_error err;
	if (p2ps_rm_capture_parse((const char *)data, size, "fuzz", &cap, &err))
		return 0;
	struct p2ps_rm_sys sys;
	struct p2ps_rm_replay *rp;
	if (p2ps_rm_replay_start(&rp, &cap, &sys, &err) == 0) {
		session(&sys);
		p2ps_rm_replay_finish(rp, &err);
	}
	p2ps_rm_capture_cleanup(&cap);
	return 0;
}
