/* SPDX-License-Identifier: MIT */
/* The PCI-address parser and formatter (include/p2pscope/pci_addr.h). */
#include "p2pscope/pci_addr.h"

#include <stdio.h>
#include <string.h>

#include "p2pscope/error.h"
#include "p2pscope/parse.h"

/* Reads 1..max hex digits followed by delim (consumed unless it is the NUL), or -1. */
static long hex_field(const char **p, int max, char delim)
{
	long v = 0;
	int n = 0;
	for (int d; (d = p2ps_hex_digit(**p)) >= 0; (*p)++) {
		if (++n > max)
			return -1;
		v = v * 16 + d;
	}
	if (!n || **p != delim)
		return -1;
	if (delim)
		(*p)++;
	return v;
}

int p2ps_bdf_parse(const char *s, struct p2ps_bdf *out)
{
	if (!s || !out)
		return P2PS_EINVAL;
	/* "DDDD:BB:DD.F" has two colons, "BB:DD.F" one. */
	const char *c1 = strchr(s, ':');
	bool has_domain = c1 && strchr(c1 + 1, ':');
	const char *p = s;
	long dom = has_domain ? hex_field(&p, 8, ':') : 0;
	long bus = dom < 0 ? -1 : hex_field(&p, 2, ':');
	long dev = bus < 0 ? -1 : hex_field(&p, 2, '.');
	long fn = dev < 0 ? -1 : hex_field(&p, 1, '\0');
	if (fn < 0 || dev > 0x1f || fn > 7)
		return P2PS_EINVAL;
	out->domain = (uint32_t)dom;
	out->bus = (uint8_t)bus;
	out->dev = (uint8_t)dev;
	out->fn = (uint8_t)fn;
	return 0;
}

char *p2ps_bdf_format(const struct p2ps_bdf *bdf, char *buf, size_t size)
{
	snprintf(buf, size, "%04x:%02x:%02x.%x", (unsigned)bdf->domain, bdf->bus, bdf->dev,
	         bdf->fn);
	return buf;
}

int p2ps_bdf_compare(const struct p2ps_bdf *a, const struct p2ps_bdf *b)
{
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	int d = (int)a->bus - b->bus;
	if (!d)
		d = (int)a->dev - b->dev;
	if (!d)
		d = (int)a->fn - b->fn;
	return d;
}

bool p2ps_bdf_equal(const struct p2ps_bdf *a, const struct p2ps_bdf *b)
{
	return !p2ps_bdf_compare(a, b);
}
