/* SPDX-License-Identifier: MIT */
/* The driver-model fixture the row and fork tests share: a host with two GPUs under one
 * switch (analysis_fx.h build_switch), the driver config the case picks, and the model's
 * report, freed after each case. */
#ifndef P2PS_TEST_DRIVER_DM_H
#define P2PS_TEST_DRIVER_DM_H

#include <stdlib.h>

#include "analysis_fx.h"
#include "p2pscope/driver_model.h"

struct dm {
	struct fx f;
	struct p2ps_drv_config cfg;
	struct p2ps_drv_report r;
};

static int dm_setup(void **state)
{
	struct dm *m = calloc(1, sizeof(struct dm));
	if (!m)
		return -1;
	build_switch(&m->f);
	*state = m;
	return 0;
}

static int dm_teardown(void **state)
{
	struct dm *m = *state;
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	p2ps_host_free(&m->f.h);
	free(m);
	return 0;
}

#define CASE(t) cmocka_unit_test_setup_teardown(t, dm_setup, dm_teardown)

#endif
