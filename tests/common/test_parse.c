/* SPDX-License-Identifier: MIT */
/* The shared parsers (p2pscope/parse.h, p2pscope/pci_addr.h), one table per syntax.
 * Each row is an input and what the parser must make of it; the rows include the inputs
 * the separate parsers used to disagree on (leading 0, blanks, signs, '_' groups). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/error.h"
#include "p2pscope/parse.h"
#include "p2pscope/pci_addr.h"

struct uint_case {
	const char *in;
	uint64_t max;
	int rc;
	uint64_t want;
};

static void unsigned_numbers(void **state)
{
	(void)state;
	static const struct uint_case cases[] = {
	        {"0", UINT64_MAX, 0, 0},
	        {"16", UINT64_MAX, 0, 16},
	        {"010", UINT64_MAX, 0, 10}, /* not octal */
	        {"0x10", UINT64_MAX, 0, 16},
	        {"0X1f", UINT64_MAX, 0, 31},
	        {"0xFFFFFFFFFFFFFFFF", UINT64_MAX, 0, UINT64_MAX},
	        {"18446744073709551615", UINT64_MAX, 0, UINT64_MAX},
	        {"18446744073709551616", UINT64_MAX, P2PS_ERANGE, 0},
	        {"0x10000000000000000", UINT64_MAX, P2PS_ERANGE, 0},
	        {"5", 5, 0, 5},
	        {"6", 5, P2PS_ERANGE, 0},
	        {"0x6", 5, P2PS_ERANGE, 0},
	        {"", UINT64_MAX, P2PS_EINVAL, 0},
	        {" 16", UINT64_MAX, P2PS_EINVAL, 0},
	        {"16 ", UINT64_MAX, P2PS_EINVAL, 0},
	        {"+16", UINT64_MAX, P2PS_EINVAL, 0},
	        {"-1", UINT64_MAX, P2PS_EINVAL, 0},
	        {"0x", UINT64_MAX, P2PS_EINVAL, 0},
	        {"0x-1", UINT64_MAX, P2PS_EINVAL, 0},
	        {"1f", UINT64_MAX, P2PS_EINVAL, 0},
	        {"0x1_0", UINT64_MAX, P2PS_EINVAL, 0}, /* groups only in entry values */
	        {"1K", UINT64_MAX, P2PS_EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0xdead;
		int rc = p2ps_parse_uint(cases[i].in, cases[i].max, &v);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc, cases[i].rc);
		assert_int_equal(v, rc ? 0xdead : cases[i].want);
	}
	uint64_t v;
	assert_int_equal(p2ps_parse_uint(NULL, 1, &v), P2PS_EINVAL);
}

/* The scanners: a number at the start of text that goes on. used is how many bytes the
 * number took (-1: no number there, *out untouched). */
struct num_scan_case {
	const char *in;
	unsigned base;
	uint64_t max;
	int used;
	uint64_t want;
};

static void scanned_numbers(void **state)
{
	(void)state;
	static const struct num_scan_case cases[] = {
	        {"16 MiB", 10, UINT64_MAX, 2, 16},
	        {"010.0", 10, UINT64_MAX, 3, 10}, /* not octal */
	        {"0x10", 10, UINT64_MAX, 1, 0},   /* decimal: the 0, then "x10" follows */
	        {"0000:00/", 16, UINT32_MAX, 4, 0},
	        {"0x1f:", 16, UINT64_MAX, 4, 31},
	        {"ff]", 16, UINT16_MAX, 2, 255},
	        {"0xg", 16, UINT64_MAX, 1, 0}, /* "0", then "xg" */
	        {"10000", 16, UINT16_MAX, -1, 0},
	        {"18446744073709551616", 10, UINT64_MAX, -1, 0},
	        {"65", 10, 64, -1, 0},
	        {" 16", 10, UINT64_MAX, -1, 0},
	        {"-1", 10, UINT64_MAX, -1, 0},
	        {"+1", 16, UINT64_MAX, -1, 0},
	        {"", 16, UINT64_MAX, -1, 0},
	        {"1_0", 16, UINT64_MAX, 1, 1}, /* no groups */
	        {"12", 8, UINT64_MAX, -1, 0},  /* bases 10 and 16 only */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0xdead;
		const char *e = p2ps_scan_uint(cases[i].in, cases[i].base, cases[i].max, &v);
		int used = e ? (int)(e - cases[i].in) : -1;
		if (used != cases[i].used)
			fail_msg("'%s' base %u: took %d, want %d", cases[i].in, cases[i].base, used,
			         cases[i].used);
		assert_int_equal(v, e ? cases[i].want : 0xdead);
	}
	static const struct {
		const char *in;
		int used;
		double want;
	} dcases[] = {
	        {"63.02 GB/s", 5, 63.02},
	        {"-1.5e3x", 6, -1500.0},
	        {".5", 2, 0.5},
	        {"7.", 2, 7.0},
	        {"2e", 1, 2.0},
	        {"1e+2", 4, 100.0},
	        {"0x10", 1, 0.0},
	        {"-", -1, 0},
	        {".", -1, 0},
	        {" 1", -1, 0},
	        {"inf", -1, 0},
	        {"nan", -1, 0},
	        {"+1", -1, 0},
	        {"", -1, 0},
	};
	for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
		double v = 42.0;
		const char *e = p2ps_scan_double(dcases[i].in, &v);
		int used = e ? (int)(e - dcases[i].in) : -1;
		if (used != dcases[i].used)
			fail_msg("'%s': took %d, want %d", dcases[i].in, used, dcases[i].used);
		assert_true(v == (e ? dcases[i].want : 42.0));
	}
	uint64_t v;
	double d;
	assert_null(p2ps_scan_uint(NULL, 10, 1, &v));
	assert_null(p2ps_scan_double(NULL, &d));
}

struct size_case {
	const char *in;
	int rc;
	uint64_t want;
};

static void sizes(void **state)
{
	(void)state;
	static const struct size_case cases[] = {
	        {"4096", 0, 4096},
	        {"4K", 0, 4096},
	        {"4k", 0, 4096},
	        {"2M", 0, 2u << 20},
	        {"2MiB", 0, 2u << 20},
	        {"2MB", 0, 2u << 20},
	        {"24GiB", 0, 24ull << 30},
	        {"1T", 0, 1ull << 40},
	        {"0x200000", 0, 0x200000},
	        {"0x10M", 0, 16ull << 20},
	        {"0x1B", 0, 27}, /* B is a hex digit */
	        {"512B", 0, 512},
	        {"010K", 0, 10240}, /* not octal */
	        {"16777215T", 0, 16777215ull << 40},
	        {"16777216T", P2PS_ERANGE, 0},
	        {"", P2PS_EINVAL, 0},
	        {"K", P2PS_EINVAL, 0},
	        {"2iB", P2PS_EINVAL, 0},
	        {"2Ki", P2PS_EINVAL, 0},
	        {"2KiBs", P2PS_EINVAL, 0},
	        {"2P", P2PS_EINVAL, 0},
	        {"2 M", P2PS_EINVAL, 0},
	        {" 2M", P2PS_EINVAL, 0},
	        {"+2M", P2PS_EINVAL, 0},
	        {"-2M", P2PS_EINVAL, 0},
	        {"1.5G", P2PS_EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0xdead;
		int rc = p2ps_parse_size(cases[i].in, &v);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc, cases[i].rc);
		assert_int_equal(v, rc ? 0xdead : cases[i].want);
	}
}

struct wide_case {
	const char *in;
	unsigned bits;
	int rc;
	uint64_t lo, hi;
};

static void entry_values(void **state)
{
	(void)state;
	static const struct wide_case cases[] = {
	        {"0x0600000200000103", 64, 0, 0x0600000200000103ull, 0},
	        {"0x0600_0002_0000_0103", 64, 0, 0x0600000200000103ull, 0},
	        {"0x1_0000000000000000", 128, 0, 0, 1},
	        {"0x1_0000000000000000", 64, P2PS_ERANGE, 0, 0},
	        {"0xffffffffffffffffffffffffffffffff", 128, 0, UINT64_MAX, UINT64_MAX},
	        {"0x1_0000_0000_0000_0000_0000_0000_0000_0000", 128, P2PS_ERANGE, 0, 0},
	        {"0x00000000000000000000000000000000001", 128, 0, 1, 0}, /* leading zeros */
	        {"4096", 64, 0, 4096, 0},
	        {"010", 64, 0, 10, 0},
	        {"0xff", 8, 0, 0xff, 0},
	        {"0x100", 8, P2PS_ERANGE, 0, 0},
	        {"0x_1", 64, P2PS_EINVAL, 0, 0},
	        {"0x1_", 64, P2PS_EINVAL, 0, 0},
	        {"0x1__2", 64, P2PS_EINVAL, 0, 0},
	        {"1_000", 64, P2PS_EINVAL, 0, 0}, /* groups are for hex digits */
	        {"", 64, P2PS_EINVAL, 0, 0},
	        {" 0x1", 64, P2PS_EINVAL, 0, 0},
	        {"+1", 64, P2PS_EINVAL, 0, 0},
	        {"0x1g", 64, P2PS_EINVAL, 0, 0},
	        {"0x1", 0, P2PS_EINVAL, 0, 0},
	        {"0x1", 129, P2PS_EINVAL, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t w[2] = {0xdead, 0xbeef};
		int rc = p2ps_parse_wide(cases[i].in, cases[i].bits, w);
		if (rc != cases[i].rc)
			fail_msg("'%s' (%u bits): rc %d, want %d", cases[i].in, cases[i].bits, rc,
			         cases[i].rc);
		assert_int_equal(w[0], rc ? 0xdead : cases[i].lo);
		assert_int_equal(w[1], rc ? 0xbeef : cases[i].hi);
	}
}

struct hex_case {
	const char *in;
	unsigned bits;
	int rc;
	uint64_t lo, hi;
};

/* Hex words: the syntax of page-table dumps and of --pdb, --va and --mem addresses. */
static void hex_words(void **state)
{
	(void)state;
	static const struct hex_case cases[] = {
	        {"0xffff_ffff_ffff_ffff", 64, 0, UINT64_MAX, 0},
	        {"1_0000_0000_0000_0000", 64, P2PS_ERANGE, 0, 0},
	        {"1_0000_0000_0000_0000", 128, 0, 0, 1},
	        {"10", 64, 0, 16, 0}, /* hex whether or not it says so */
	        {"0x10", 64, 0, 16, 0},
	        {"7F97_94000001", 64, 0, 0x7f9794000001ull, 0},
	        {"ffffffffffffffffffffffffffffffff", 128, 0, UINT64_MAX, UINT64_MAX},
	        {"1ffffffffffffffffffffffffffffffff", 128, P2PS_ERANGE, 0, 0},
	        {"", 64, P2PS_EINVAL, 0, 0},
	        {"0x", 64, P2PS_EINVAL, 0, 0},
	        {"12z", 64, P2PS_EINVAL, 0, 0},
	        {"_1", 64, P2PS_EINVAL, 0, 0},
	        {"1_", 64, P2PS_EINVAL, 0, 0},
	        {"1__2", 64, P2PS_EINVAL, 0, 0},
	        {" 1", 64, P2PS_EINVAL, 0, 0},
	        {"+1", 64, P2PS_EINVAL, 0, 0},
	        {"0x1", 0, P2PS_EINVAL, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t w[2] = {0xdead, 0xbeef};
		int rc = p2ps_parse_hex(cases[i].in, cases[i].bits, w);
		if (rc != cases[i].rc)
			fail_msg("'%s' (%u bits): rc %d, want %d", cases[i].in, cases[i].bits, rc,
			         cases[i].rc);
		assert_int_equal(w[0], rc ? 0xdead : cases[i].lo);
		assert_int_equal(w[1], rc ? 0xbeef : cases[i].hi);
	}
}

struct scan_case {
	const char *in;
	int rc;
	size_t bad;      /* P2PS_EINVAL: where (the length: a shape error) */
	unsigned digits; /* 0: significant digits */
};

/* The tokenizer's form: where a bad word goes wrong, the first fault from the left. */
static void hex_word_faults(void **state)
{
	(void)state;
	static const struct scan_case cases[] = {
	        {"0x0600_0038_0000_020f", 0, 0, 15},
	        {"0000", 0, 0, 0},
	        {"0x3g", P2PS_EINVAL, 3, 0},
	        {"zz", P2PS_EINVAL, 0, 0},
	        {"1__2", P2PS_EINVAL, 2, 0}, /* the second '_' */
	        {"_1", P2PS_EINVAL, 0, 0},
	        {"1_", P2PS_EINVAL, 2, 0}, /* shape: ends in '_' */
	        {"0x", P2PS_EINVAL, 2, 0},
	        {"111111111111111111111111111111111g", P2PS_ERANGE, 0, 0}, /* 33 digits first */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = cases[i].in;
		uint64_t w[2];
		unsigned digits = 99;
		size_t bad = 99;
		int rc = p2ps_scan_hex(s, strlen(s), w, &digits, &bad);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", s, rc, cases[i].rc);
		if (rc == P2PS_EINVAL)
			assert_int_equal(bad, cases[i].bad);
		if (!rc)
			assert_int_equal(digits, cases[i].digits);
	}
}

struct bdf_case {
	const char *in;
	int rc;
	const char *norm; /* p2ps_bdf_format of the result */
};

static void pci_addresses(void **state)
{
	(void)state;
	static const struct bdf_case cases[] = {
	        {"0000:41:00.0", 0, "0000:41:00.0"},
	        {"41:00.1", 0, "0000:41:00.1"},
	        {"00000000:3B:00.0", 0, "0000:3b:00.0"}, /* NVML's 8-digit domain */
	        {"10000:01:00.0", 0, "10000:01:00.0"},   /* VMD domain */
	        {"0:0:1f.7", 0, "0000:00:1f.7"},
	        {"ffffffff:ff:1f.7", 0, "ffffffff:ff:1f.7"},
	        {"0000:00:20.0", P2PS_EINVAL, NULL}, /* device > 31 */
	        {"0000:00:06.8", P2PS_EINVAL, NULL}, /* function > 7 */
	        {"0000:00:06.10", P2PS_EINVAL, NULL},
	        {"0000:100:00.0", P2PS_EINVAL, NULL},
	        {"100000000:00:00.0", P2PS_EINVAL, NULL},
	        {"0000:00:06.0x", P2PS_EINVAL, NULL},
	        {"0000:00:06.", P2PS_EINVAL, NULL},
	        {"0000::06.0", P2PS_EINVAL, NULL},
	        {"0:0:0:0.1", P2PS_EINVAL, NULL},
	        {"0x00:06.0", P2PS_EINVAL, NULL},
	        {" 00:06.0", P2PS_EINVAL, NULL},
	        {"+0:06.0", P2PS_EINVAL, NULL},
	        {"00:06", P2PS_EINVAL, NULL},
	        {"gpu0", P2PS_EINVAL, NULL},
	        {"", P2PS_EINVAL, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct p2ps_bdf b = {0xabcd, 1, 2, 3};
		char s[P2PS_BDF_STR_MAX];
		int rc = p2ps_bdf_parse(cases[i].in, &b);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc, cases[i].rc);
		if (!rc)
			assert_string_equal(p2ps_bdf_format(&b, s, sizeof(s)), cases[i].norm);
		else
			assert_int_equal(b.domain, 0xabcd);
	}
	struct p2ps_bdf b;
	assert_int_equal(p2ps_bdf_parse(NULL, &b), P2PS_EINVAL);
}

static void pci_address_order(void **state)
{
	(void)state;
	static const struct p2ps_bdf sorted[] = {
	        {0, 0, 0, 0}, {0, 0, 0, 7}, {0, 0, 1, 0},
	        {0, 1, 0, 0}, {1, 0, 0, 0}, {0x10000, 0, 0, 0},
	};
	size_t n = sizeof(sorted) / sizeof(sorted[0]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int c = p2ps_bdf_compare(&sorted[i], &sorted[j]);
			assert_true(i < j ? c < 0 : i > j ? c > 0 : c == 0);
			assert_int_equal(p2ps_bdf_equal(&sorted[i], &sorted[j]), i == j);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(unsigned_numbers),  cmocka_unit_test(sizes),
	        cmocka_unit_test(entry_values),      cmocka_unit_test(hex_words),
	        cmocka_unit_test(hex_word_faults),   cmocka_unit_test(pci_addresses),
	        cmocka_unit_test(pci_address_order), cmocka_unit_test(scanned_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
