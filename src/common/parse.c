/* SPDX-License-Identifier: MIT */
/* The shared number parsers (include/p2pscope/parse.h). Each reads digits by hand:
 * strtoull would skip blanks, take signs and read a leading 0 as octal. */
#include "p2pscope/parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/error.h"

/* How far a run of hex digits went (hex_run). */
struct hex_run {
	const char *stop; /* the first byte not taken */
	unsigned sig;     /* significant digits (0 for the value 0) */
	unsigned digits;  /* digits taken */
	bool trailing_us; /* the last byte taken is a '_' */
	bool over;        /* stopped at a digit that would pass 128 bits */
};

/* Hex digits of [s, end) into the 128-bit w[1]:w[0]; with groups a single '_' may follow a
 * digit. Stops at the first byte it cannot take, or at the digit that would pass 128 bits,
 * so that the first fault of a word, from the left, is the one reported. */
static struct hex_run hex_digits(const char *s, const char *end, bool groups, uint64_t w[2])
{
	struct hex_run r = {0};
	uint64_t lo = 0, hi = 0;
	bool prev_digit = false;
	for (; s < end; s++) {
		if (*s == '_' && groups && prev_digit) {
			prev_digit = false;
			continue;
		}
		int d = p2ps_hex_digit(*s);
		if (d < 0)
			break;
		if (hi >> 60) {
			r.over = true;
			break;
		}
		/* lo and hi start at 0 and only take shifts of themselves and digits 0..15; the
		 * clang 14 analyzer calls lo >> 60 undefined on a loop's second pass regardless. */
		// NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): see above
		hi = hi << 4 | lo >> 60;
		lo = lo << 4 | (uint64_t)d;
		prev_digit = true;
		r.digits++;
		if (r.sig || d)
			r.sig++;
	}
	w[0] = lo;
	w[1] = hi;
	r.stop = s;
	r.trailing_us = r.digits && !prev_digit;
	return r;
}

/* Decimal digits at s into w[0]; *over on passing 64 bits. */
static const char *dec_digits(const char *s, uint64_t w[2], bool *over)
{
	uint64_t v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');
		*over |= v > (UINT64_MAX - d) / 10;
		v = v * 10 + d;
	}
	w[0] = v;
	w[1] = 0;
	return s;
}

/* The number at *p (0x hex or decimal) as 128 bits (w[1]:w[0]), advancing *p past it. Hex
 * digits may be grouped by single '_' when groups is set. P2PS_EINVAL when no digit
 * starts it; P2PS_ERANGE when the value exceeds 128 bits (64 for decimal). */
static int scan_number(const char **p, bool groups, uint64_t w[2])
{
	const char *s = *p;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	bool over = false;
	if (hex)
		s += 2;
	if (p2ps_hex_digit(*s) < 0 || (!hex && (*s < '0' || *s > '9')))
		return P2PS_EINVAL;
	if (hex) {
		struct hex_run r = hex_digits(s, s + strlen(s), groups, w);
		/* "0x1_" is no number: step back onto the '_' so that it is what follows. */
		s = r.stop - r.trailing_us;
		over = r.over;
	} else {
		s = dec_digits(s, w, &over);
	}
	*p = s;
	return over ? P2PS_ERANGE : 0;
}

/* The whole of s as one number: nothing may follow it. */
static int scan_whole(const char *s, bool groups, uint64_t w[2])
{
	if (!s)
		return P2PS_EINVAL;
	int rc = scan_number(&s, groups, w);
	return rc ? rc : *s ? P2PS_EINVAL : 0;
}

int p2ps_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t w[2];
	int rc = scan_whole(s, false, w);
	if (rc)
		return rc;
	if (w[1] || w[0] > max)
		return P2PS_ERANGE;
	*out = w[0];
	return 0;
}

/* The binary unit a size ends with: its shift, advancing *p past "K", "MiB", "GB"... */
static int size_unit(const char **p, unsigned *shift)
{
	static const char units[] = "KMGT";
	const char *s = *p;
	*shift = 0;
	for (unsigned i = 0; units[i]; i++)
		if ((*s & ~0x20) == units[i]) {
			*shift = 10 * (i + 1);
			s++;
			break;
		}
	if (*shift && s[0] == 'i' && s[1] == 'B')
		s += 2;
	else if (*s == 'B')
		s++;
	*p = s;
	return *s ? P2PS_EINVAL : 0;
}

int p2ps_parse_size(const char *s, uint64_t *out)
{
	uint64_t w[2];
	unsigned shift;
	if (!s)
		return P2PS_EINVAL;
	int rc = scan_number(&s, false, w);
	if (!rc)
		rc = size_unit(&s, &shift);
	if (rc)
		return rc;
	if (w[1] || w[0] > (UINT64_MAX >> shift))
		return P2PS_ERANGE;
	*out = w[0] << shift;
	return 0;
}

/* Whether w[1]:w[0] fits bits (1..128) bits. */
static bool fits(const uint64_t w[2], unsigned bits)
{
	return bits >= 128  ? true
	       : bits >= 64 ? w[1] >> (bits - 64) == 0
	                    : !w[1] && w[0] >> bits == 0;
}

/* v into w when the parse (rc) went well and v fits bits bits: the common end of the
 * 128-bit parsers, which write their output only on success. */
static int store_wide(int rc, const uint64_t v[2], unsigned bits, uint64_t w[2])
{
	if (rc)
		return rc;
	if (!fits(v, bits))
		return P2PS_ERANGE;
	w[0] = v[0];
	w[1] = v[1];
	return 0;
}

int p2ps_parse_wide(const char *s, unsigned bits, uint64_t w[2])
{
	uint64_t v[2];
	if (bits == 0 || bits > 128)
		return P2PS_EINVAL;
	return store_wide(scan_whole(s, true, v), v, bits, w);
}

int p2ps_scan_hex(const char *s, size_t n, uint64_t w[2], unsigned *digits, size_t *bad)
{
	size_t i = n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0;
	uint64_t v[2];
	struct hex_run r = hex_digits(s + i, s + n, true, v);
	if (r.over)
		return P2PS_ERANGE;
	size_t at = (size_t)(r.stop - s);
	if (at < n || !r.digits || r.trailing_us) {
		*bad = at < n ? at : n;
		return P2PS_EINVAL;
	}
	*digits = r.sig;
	return store_wide(0, v, 128, w);
}

int p2ps_parse_hex(const char *s, unsigned bits, uint64_t w[2])
{
	uint64_t v[2];
	unsigned digits;
	size_t bad;
	if (!s || bits == 0 || bits > 128)
		return P2PS_EINVAL;
	return store_wide(p2ps_scan_hex(s, strlen(s), v, &digits, &bad), v, bits, w);
}

const char *p2ps_scan_uint(const char *s, unsigned base, uint64_t max, uint64_t *out)
{
	uint64_t w[2];
	bool over = false;
	if (!s || (base != 10 && base != 16))
		return NULL;
	if (base == 10) {
		if (*s < '0' || *s > '9')
			return NULL;
		s = dec_digits(s, w, &over);
	} else {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && p2ps_hex_digit(s[2]) >= 0)
			s += 2;
		struct hex_run r = hex_digits(s, s + strlen(s), false, w);
		if (!r.digits)
			return NULL;
		s = r.stop;
		over = r.over;
	}
	if (over || w[1] || w[0] > max)
		return NULL;
	*out = w[0];
	return s;
}

static const char *digit_run(const char *s)
{
	while (*s >= '0' && *s <= '9')
		s++;
	return s;
}

const char *p2ps_scan_double(const char *s, double *out)
{
	if (!s)
		return NULL;
	const char *p = s + (*s == '-');
	const char *int_end = digit_run(p), *e = int_end;
	if (*e == '.')
		e = digit_run(e + 1);
	if (e - p - (*int_end == '.') < 1) /* no digit at all: "-", ".", "-." */
		return NULL;
	if (*e == 'e' || *e == 'E') {
		const char *x = e + 1 + (e[1] == '-' || e[1] == '+');
		const char *xe = digit_run(x);
		if (xe > x)
			e = xe;
	}
	char buf[64]; /* strtod on exactly the text checked above, in the C locale's syntax */
	size_t n = (size_t)(e - s);
	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, NULL);
	return e;
}
