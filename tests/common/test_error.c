/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/bytes.h"
#include "p2pscope/error.h"

static void set_returns_code_and_formats(void **state)
{
	(void)state;
	struct p2ps_error err;
	p2ps_error_clear(&err);
	assert_int_equal(p2ps_error_set(&err, P2PS_ERANGE, "field %s: %d bits", "KIND", 8),
	                 P2PS_ERANGE);
	assert_string_equal(err.msg, "field KIND: 8 bits");
	assert_int_equal(p2ps_error_prefix(&err, "chip %s", "AD102"), P2PS_ERANGE);
	assert_string_equal(err.msg, "chip AD102: field KIND: 8 bits");
	assert_int_equal(p2ps_error_set(NULL, P2PS_EIO, "ignored"), P2PS_EIO);
}

static void long_messages_are_truncated_not_overrun(void **state)
{
	(void)state;
	struct p2ps_error err;
	char big[2 * P2PS_ERROR_MSG_MAX];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	p2ps_error_set(&err, P2PS_EINVAL, "%s", big);
	assert_int_equal(strlen(err.msg), P2PS_ERROR_MSG_MAX - 1);
	p2ps_error_prefix(&err, "%s", big);
	assert_int_equal(strlen(err.msg), P2PS_ERROR_MSG_MAX - 1);
}

static void little_endian_loads(void **state)
{
	(void)state;
	uint8_t b[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
	assert_int_equal(p2ps_le16(b), 0x0201);
	assert_int_equal(p2ps_le32(b), 0x04030201u);
	assert_true(p2ps_le64(b) == 0x8807060504030201ull);
	uint8_t out[8];
	p2ps_put_le64(out, 0x8807060504030201ull);
	assert_memory_equal(out, b, 8);
}

/* The branch-free hex digits against printf's, on edge values and a million others. */
static void hex_digits(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		static const uint64_t edges[] = {0,
		                                 9,
		                                 10,
		                                 15,
		                                 16,
		                                 0x9999999999999999ull,
		                                 0xaaaaaaaaaaaaaaaaull,
		                                 0x0123456789abcdefull,
		                                 ~0ull};
		uint64_t v = i < 9 ? edges[i] : x;
		char got[17], want[17];
		p2ps_hex16(got, v);
		got[16] = '\0';
		snprintf(want, sizeof(want), "%016llx", (unsigned long long)v);
		assert_string_equal(got, want);
		uint64_t w = p2ps_hex8((uint32_t)v);
		memcpy(got, &w, 8);
		got[8] = '\0';
		snprintf(want, sizeof(want), "%08x", (unsigned)(uint32_t)v);
		assert_string_equal(got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(set_returns_code_and_formats),
	        cmocka_unit_test(long_messages_are_truncated_not_overrun),
	        cmocka_unit_test(little_endian_loads),
	        cmocka_unit_test(hex_digits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
