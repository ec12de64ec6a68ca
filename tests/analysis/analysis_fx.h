/* SPDX-License-Identifier: MIT */
/* The fixture of the analysis unit tests: a host model built by hand (model.h), its
 * analysis, and the usual shape: a root port, a switch and two RTX 4090s behind it. */
#ifndef P2PS_TEST_ANALYSIS_FX_H
#define P2PS_TEST_ANALYSIS_FX_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"

#define AD102 0x2684 /* RTX 4090 */
#define GA102 0x2204 /* RTX 3090 */
#define GP102 0x1b06 /* GTX 1080 Ti */

struct fx {
	struct p2ps_host h;
	struct p2ps_analysis a;
	int rp, usp, dsp0, dsp1, g0, g1;
};

/* Root port 00:01.0 -> switch (upstream 01:00.0, downstream 02:00.0 / 02:01.0) ->
 * GPUs 03:00.0 and 04:00.0, both RTX 4090. */
static inline void build_switch(struct fx *f)
{
	struct p2ps_host *h = &f->h;
	tm_init(h);
	f->rp = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	f->usp = tm_bridge(h, "0000:01:00.0", P2PS_PCIE_SWITCH_UPSTREAM, f->rp);
	f->dsp0 = tm_bridge(h, "0000:02:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, f->usp);
	f->dsp1 = tm_bridge(h, "0000:02:01.0", P2PS_PCIE_SWITCH_DOWNSTREAM, f->usp);
	f->g0 = tm_gpu(h, "0000:03:00.0", AD102, f->dsp0);
	f->g1 = tm_gpu(h, "0000:04:00.0", AD102, f->dsp1);
}

static inline void run(struct fx *f)
{
	struct p2ps_error err = {0};
	tm_finish(&f->h);
	assert_int_equal(p2ps_analysis_run(&f->h, &f->a, &err), 0);
}

static inline void done(struct fx *f)
{
	p2ps_analysis_free(&f->a);
	p2ps_host_free(&f->h);
}

static inline const struct p2ps_pair *pair01(const struct fx *f)
{
	const struct p2ps_pair *p = p2ps_analysis_pair(&f->a, 0, 1);
	assert_non_null(p);
	return p;
}

static inline int setup(void **state)
{
	*state = calloc(1, sizeof(struct fx));
	return *state ? 0 : -1;
}

static inline int teardown(void **state)
{
	done(*state);
	free(*state);
	return 0;
}

#endif
