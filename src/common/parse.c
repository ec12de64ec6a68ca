/* The shared number parsers (include/p2pscope/parse.h). Each reads digits by hand:
 * strtoull would skip blanks, take signs and read a leading 0 as octal. */
#include "p2pscope/parse.h"

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/error.h"

static int digit_value(char c, unsigned base)
{
	int d = -1;
	if (c >= '0' && c <= '9')
		d = c - '0';
	else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		d = (c | 0x20) - 'a' + 10;
	return d >= 0 && (unsigned)d < base ? d : -1;
}

/* The number at *p as 128 bits (w[1]:w[0]), advancing *p past it. Hex digits may be
 * grouped by single '_' when groups is set. Stops at the first character that cannot
 * continue the number; P2PS_ERANGE when the value exceeds 128 bits (64 for decimal). */
static int scan_number(const char **p, bool groups, uint64_t w[2])
{
	const char *s = *p;
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	uint64_t lo = 0, hi = 0;
	int d = digit_value(*s, base);
	if (d < 0)
		return P2PS_EINVAL;
	bool over = false;
	for (;; s++) {
		if (*s == '_' && groups && base == 16 && digit_value(s[1], base) >= 0)
			continue;
		if ((d = digit_value(*s, base)) < 0)
			break;
		if (base == 16) {
			over |= (hi >> 60) != 0;
			hi = hi << 4 | lo >> 60;
			lo = lo << 4 | (uint64_t)d;
		} else {
			over |= lo > (UINT64_MAX - (uint64_t)d) / 10;
			lo = lo * 10 + (uint64_t)d;
		}
	}
	*p = s;
	if (over)
		return P2PS_ERANGE;
	w[0] = lo;
	w[1] = hi;
	return 0;
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

int p2ps_parse_wide(const char *s, unsigned bits, uint64_t w[2])
{
	uint64_t v[2];
	if (bits == 0 || bits > 128)
		return P2PS_EINVAL;
	int rc = scan_whole(s, true, v);
	if (rc)
		return rc;
	bool fits = bits >= 128  ? true
	            : bits >= 64 ? v[1] >> (bits - 64) == 0
	                         : !v[1] && v[0] >> bits == 0;
	if (!fits)
		return P2PS_ERANGE;
	w[0] = v[0];
	w[1] = v[1];
	return 0;
}
