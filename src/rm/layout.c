/* SPDX-License-Identifier: MIT */
/* Driver version -> struct layout: the driver table's stock row of the loaded series
 * (src/gmmu/nvidia_drivers.c), whose RM layout was checked against the headers of every tag
 * the row names (tests/rm/fixtures/ctrl-offsets/TAG.txt, scripts/rm-derive-offsets.sh). A
 * series without such a row is refused: the model may assume a nearer series, the client
 * does not, as a wrong size makes the driver reject the call at best and read the wrong
 * bytes at worst.
 */
#include "rm_internal.h"

#include <ctype.h>
#include <stdio.h>

/* The series whose rows have a verified layout: "550, 565, ...". */
static void verified_list(char *buf, size_t len)
{
	size_t n, o = 0;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	buf[0] = '\0';
	for (size_t i = 0; i < n && o < len; i++) {
		if (t[i].flavor != P2PS_NV_FLAVOR_STOCK || !t[i].rm)
			continue;
		int k = snprintf(buf + o, len - o, "%s%u", o ? ", " : "", t[i].series);
		if (k < 0)
			break;
		o += (size_t)k;
	}
}

/* The first word of line (up to len) that is a version of at least two parts standing
 * alone ("580.159.04", "550.78"), or NULL. */
static const char *find_version(const char *line, size_t len, struct p2ps_nv_version *v,
                                size_t *vlen)
{
	for (size_t i = 0; i < len; i++) {
		if (i && !isspace((unsigned char)line[i - 1]))
			continue;
		size_t n = p2ps_nv_version_scan(line + i, v);
		if (n && v->parts >= 2 && i + n <= len &&
		    (i + n == len || isspace((unsigned char)line[i + n]))) {
			*vlen = n;
			return line + i;
		}
	}
	return NULL;
}

int p2ps_rm_driver_parse(const char *text, struct p2ps_rm_driver *out, struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *line = text ? text : "";
	const char *nl = strchr(line, '\n');
	size_t line_len = nl ? (size_t)(nl - line) : strlen(line);
	struct p2ps_nv_version v;
	size_t vlen = 0;
	const char *found = find_version(line, line_len, &v, &vlen);
	if (!found || vlen >= sizeof(out->version))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "no driver version in the NVIDIA version file (first line: "
		                      "\"%.80s\")",
		                      line);
	memcpy(out->version, found, vlen);
	out->version[vlen] = '\0';
	out->major = v.series;
	out->minor = v.minor;
	out->patch = v.patch;
	out->open_module = strstr(line, "Open Kernel Module") != NULL;
	out->row = p2ps_nv_driver_exact(v.series, P2PS_NV_FLAVOR_STOCK);
	out->layout = out->row ? out->row->rm : NULL;
	if (!out->layout) {
		char list[128];
		verified_list(list, sizeof(list));
		return p2ps_error_set(
		        err, P2PS_ENOTSUP,
		        "NVIDIA driver %s: the RM API struct layouts of series %u are "
		        "not known to p2pscope (verified series: %s)%s%s",
		        out->version, out->major, list, out->row ? ": " : "",
		        out->row ? out->row->rm_why : "");
	}
	return 0;
}
