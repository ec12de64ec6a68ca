/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the driver table's version parser (p2ps_nv_version_scan, _parse: a
 * /proc/driver/nvidia/version word, an NVML version, a --driver spec) and the RM client's
 * reading of a version file (p2ps_rm_driver_parse). What parses must stay within the
 * grammar: a series of 3-4 digits (at least 100), at most three parts, the text a prefix of
 * the input, a row found for the series by the fallback rule. Any crash or sanitizer report
 * is a finding; a rejected input is not. */
// fuzz-links: p2psrm
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/rm.h"

static void check(const char *text, const struct p2ps_nv_version *v)
{
	if (v->series < 100 || v->series > 9999 || v->parts < 1 || v->parts > 3 ||
	    strncmp(v->text, text, strlen(v->text)))
		abort();
	bool exact;
	const struct p2ps_nv_driver *d = p2ps_nv_driver_find(v->series, v->flavor, &exact);
	if (!d || (exact && d->series != v->series))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct p2ps_nv_version v;
	size_t n = p2ps_nv_version_scan(text, &v);
	if (n > strlen(text))
		abort();
	if (n)
		check(text, &v);
	if (p2ps_nv_version_parse(text, &v) == P2PS_NV_VERSION_OK)
		check(text, &v);
	/* a branch suffix found is one the text holds, of a flavor that exists */
	enum p2ps_nv_flavor f;
	const struct p2ps_nv_branch *b = p2ps_nv_branch_find(text, 0, &f);
	if (b && (!strcasestr(text, b->suffix) || (unsigned)f >= P2PS_NV_FLAVOR_COUNT))
		abort();
	struct p2ps_rm_driver drv;
	struct p2ps_error err;
	int rc = p2ps_rm_driver_parse(text, &drv, &err);
	if (rc == 0 && (!drv.layout || !drv.row || drv.row->series != drv.major))
		abort();
	free(text);
	return 0;
}
