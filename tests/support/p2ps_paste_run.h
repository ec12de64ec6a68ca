/* SPDX-License-Identifier: MIT */
/* The whole paste pipeline on a text, for the paste tests: the evidence (host load), the
 * analysis and the paste findings. Include after <cmocka.h>. */
#ifndef P2PS_PASTE_RUN_H
#define P2PS_PASTE_RUN_H

#include <string.h>

#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/paste_report.h"

struct p2ps_paste_run {
	struct p2ps_host h;
	struct p2ps_analysis a;
	struct p2ps_paste_report r;
};

static inline void p2ps_paste_run_text(struct p2ps_paste_run *x, const char *text)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_PASTE, .path = "test", .text = text, .text_len = strlen(text)};
	assert_int_equal(p2ps_host_load(&x->h, &src, &err), 0);
	assert_non_null(x->h.evidence);
	assert_int_equal(p2ps_analysis_run(&x->h, &x->a, &err), 0);
	assert_int_equal(p2ps_paste_observe(&x->a, &x->r, &err), 0);
}

/* Whether the verdict names cause `code`. */
static inline bool p2ps_paste_run_has_cause(const struct p2ps_paste_run *x, const char *code)
{
	for (size_t i = 0; i < x->r.n_causes; i++)
		if (!strcmp(x->r.causes[i].code, code))
			return true;
	return false;
}

static inline void p2ps_paste_run_free(struct p2ps_paste_run *x)
{
	p2ps_paste_report_free(&x->r);
	p2ps_analysis_free(&x->a);
	p2ps_host_free(&x->h);
}

#endif
