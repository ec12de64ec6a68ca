/* SPDX-License-Identifier: MIT */
/* Driver version -> struct layout.
 *
 * Each row was checked by compiling offsetof()/sizeof() of every struct this library uses
 * against the headers of the tags in `verified` (NVIDIA/open-gpu-kernel-modules). Between
 * those tags only the fields in struct p2ps_rm_layout moved:
 *   - NVOS46_PARAMETERS gained flags2 and kindOverride in 580 (56 -> 64 bytes);
 *   - NV_VASPACE_ALLOCATION_PARAMETERS gained pasid in 580 (48 -> 56 bytes);
 *   - NV503B_ALLOC_PARAMETERS gained l2p/p2lFabricP2PInfo in 590 (72 -> 88 bytes).
 * A series without a row is refused: a wrong size makes the driver reject the call at best
 * and read the wrong bytes at worst.
 */
#include "rm_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* One row per series: series, major, the tags verified, then NVOS46_PARAMETERS' size and the
 * offsets of dmaOffset and status, NV_VASPACE_ALLOCATION_PARAMETERS' size,
 * NV503B_ALLOC_PARAMETERS' size and whether it has the fabric P2P info. */
/* clang-format off */
static const struct p2ps_rm_layout layouts[] = {
	{"550", 550, "550.40.07, 550.163.01", 56, 40, 48, 48, 72, false},
	{"570", 570, "570.86.15, 570.211.01", 56, 40, 48, 48, 72, false},
	{"575", 575, "575.51.02, 575.64.05",  56, 40, 48, 48, 72, false},
	{"580", 580, "580.65.06, 580.142",    64, 48, 56, 56, 72, false},
	{"590", 590, "590.48.01",             64, 48, 56, 56, 88, true},
	{"595", 595, "595.45.04",             64, 48, 56, 56, 88, true},
};
/* clang-format on */

size_t p2ps_rm_layout_count(void)
{
	return RM_ARRAY_SIZE(layouts);
}

const struct p2ps_rm_layout *p2ps_rm_layout_at(size_t i)
{
	return i < RM_ARRAY_SIZE(layouts) ? &layouts[i] : NULL;
}

/* "580.159.04" or "550.54": digits '.' digits ['.' digits], standing alone. */
static bool parse_version(const char *s, struct p2ps_rm_driver *d, size_t *len)
{
	const char *p = s;
	unsigned v[3] = {0, 0, 0};
	int parts = 0;
	while (parts < 3 && isdigit((unsigned char)*p)) {
		char *end;
		unsigned long x = strtoul(p, &end, 10);
		if (end - p > 4 || x > 9999)
			return false;
		v[parts++] = (unsigned)x;
		p = end;
		if (*p != '.' || !isdigit((unsigned char)p[1]))
			break;
		p++;
	}
	if (parts < 2 || (*p && !isspace((unsigned char)*p)) || v[0] < 100)
		return false;
	d->major = v[0];
	d->minor = v[1];
	d->patch = v[2];
	*len = (size_t)(p - s);
	return true;
}

static void layout_list(char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < RM_ARRAY_SIZE(layouts) && o < len; i++) {
		int n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", layouts[i].series);
		if (n < 0)
			break;
		o += (size_t)n;
	}
}

int p2ps_rm_driver_parse(const char *text, struct p2ps_rm_driver *out, struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *line = text ? text : "";
	const char *nl = strchr(line, '\n');
	size_t line_len = nl ? (size_t)(nl - line) : strlen(line);
	/* The version is the first word of the first line that looks like one. */
	size_t vlen = 0;
	const char *found = NULL;
	for (size_t i = 0; i < line_len && !found; i++) {
		if ((i == 0 || isspace((unsigned char)line[i - 1])) &&
		    parse_version(line + i, out, &vlen))
			found = line + i;
	}
	if (!found || vlen >= sizeof(out->version))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "no driver version in the NVIDIA version file (first line: "
		                      "\"%.80s\")",
		                      line);
	memcpy(out->version, found, vlen);
	out->version[vlen] = '\0';
	out->open_module = strstr(line, "Open Kernel Module") != NULL;
	for (size_t i = 0; i < RM_ARRAY_SIZE(layouts); i++)
		if (layouts[i].major == out->major)
			out->layout = &layouts[i];
	if (!out->layout) {
		char list[128];
		layout_list(list, sizeof(list));
		return p2ps_error_set(
		        err, P2PS_ENOTSUP,
		        "NVIDIA driver %s: the RM API struct layouts of series %u are "
		        "not known to p2pscope (verified series: %s)",
		        out->version, out->major, list);
	}
	return 0;
}
