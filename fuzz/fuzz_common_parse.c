/* SPDX-License-Identifier: MIT */
// fuzz-links: p2ps_common
/* The shared parsers of p2pscope/parse.h and p2pscope/pci_addr.h on any text: no crash,
 * no read past the input, and what they accept survives a round trip (an address formats
 * back to one that parses to the same value; a number is within the asked range).
 *
 * Input: the first byte picks the bit width for the entry-value and hex-word parsers
 * (1..128); the rest is the text, up to the first NUL. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/error.h"
#include "p2pscope/parse.h"
#include "p2pscope/pci_addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	unsigned bits = 1 + data[0] % 128;
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';

	uint64_t v, w[2];
	if (p2ps_parse_uint(s, 4096, &v) == 0 && v > 4096)
		abort();
	(void)p2ps_parse_size(s, &v);
	if (p2ps_parse_wide(s, bits, w) == 0 && bits < 64 && w[0] >> bits)
		abort();
	/* Hex words: the tokenizer's form and the whole-string form agree, and a fault is
	 * located inside the word. */
	uint64_t h[2], x[2];
	unsigned digits;
	size_t bad = SIZE_MAX, n = strlen(s);
	int rc = p2ps_scan_hex(s, n, h, &digits, &bad);
	if (rc != p2ps_parse_hex(s, 128, x) || (rc == 0 && (h[0] != x[0] || h[1] != x[1])))
		abort();
	if ((rc == 0 && digits > 32) || (rc == P2PS_EINVAL && bad > n))
		abort();
	if (p2ps_parse_hex(s, bits, w) == 0 && bits < 64 && w[0] >> bits)
		abort();
	/* The scanners stay inside the text, honour max, and agree with the whole-string
	 * parser where the number is all of it. */
	const char *e = p2ps_scan_uint(s, 10 + 6 * (bits & 1), 4096, &v);
	if (e && (e <= s || e > s + n || v > 4096))
		abort();
	e = p2ps_scan_uint(s, 10, UINT64_MAX, &v);
	uint64_t whole;
	if (e && !*e && (p2ps_parse_uint(s, UINT64_MAX, &whole) != 0 || whole != v))
		abort();
	double d;
	e = p2ps_scan_double(s, &d);
	if (e && (e <= s || e > s + n))
		abort();
	struct p2ps_bdf b, again;
	if (p2ps_bdf_parse(s, &b) == 0) {
		char text[P2PS_BDF_STR_MAX];
		if (p2ps_bdf_parse(p2ps_bdf_format(&b, text, sizeof(text)), &again) != 0 ||
		    !p2ps_bdf_equal(&b, &again))
			abort();
	}
	free(s);
	return 0;
}
