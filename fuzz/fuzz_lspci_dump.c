/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost
/* libFuzzer target for the lspci dump backend: the input is written to a memfd and
 * loaded through libpci's dump method (with our error hook, so a malformed row
 * returns instead of ending the process), then the model's own invariants are
 * checked: config length within bounds, BARs and ReBAR entries in range, parent
 * pointers pointing into the device array, error messages one line. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_dump_input.h"
#include "p2pscope/host.h"

static void check_dev(const struct p2ps_host *h, const struct p2ps_dev *d)
{
	if (d->config_len > P2PS_HOST_CONFIG_MAX || d->config_len < 64)
		abort();
	if (d->rebar.count > P2PS_HOST_MAX_REBAR)
		abort();
	for (int i = 0; i < d->rebar.count; i++)
		if (d->rebar.e[i].current > 63)
			abort();
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		if (d->bars[i].present && d->bars[i].index != i)
			abort();
	if (d->parent && (d->parent < h->devs || d->parent >= h->devs + h->n_devs ||
	                  d->parent == d || d->parent_idx != d->parent - h->devs))
		abort();
	if (d->acs.present && (d->acs.offset < 0x100 || d->acs.offset > 0xffc))
		abort();
	for (int f = 0; f < P2PS_FACT_COUNT; f++)
		if (strchr(d->unknown[f], '\n'))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p2ps_host h;
	struct p2ps_error err = {0};
	int rc = fuzz_load_dump(data, size, &h, &err);
	if (rc == 0) {
		for (size_t i = 0; i < h.n_devs; i++)
			check_dev(&h, &h.devs[i]);
	} else if (rc < 0 && (err.code >= 0 || !err.msg[0] || strchr(err.msg, '\n'))) {
		abort();
	}
	p2ps_host_free(&h);
	return 0;
}
