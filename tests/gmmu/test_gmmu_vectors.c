/* SPDX-License-Identifier: MIT */
/* Hand-computed entries. Each expected value below is worked out from the header facts in
 * the comment next to it (bit positions of NV_MMU_VER2_* / NV_MMU_VER3_* in dev_mmu.h,
 * 595.45.04), not produced by libgmmu's encoder; the test encodes and decodes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "gmmu_test_util.h"

struct vec {
	const char *chip;
	enum gmmu_entry_type t;
	const char *fields[8]; /* FIELD=VALUE, NULL-terminated */
	uint64_t w[2];
};

/* clang-format off */
static const struct vec vecs[] = {
	/* v2 video PTE: VALID 0:0, APERTURE 2:1 = VIDEO_MEMORY 0, ADDRESS_VID 32:8 = 0x1000 >> 12
	 * = 1 -> bit 8, KIND 63:56 = GENERIC_MEMORY 6. */
	{"AD102", GMMU_ENTRY_PTE, {"VALID=TRUE", "APERTURE=VIDEO_MEMORY", "ADDRESS_VID=0x1000",
	  "KIND=GENERIC_MEMORY"}, {0x0600000000000101ull, 0}},
	/* v2 peer PTE: APERTURE = PEER_MEMORY 1 -> 0x2, ADDRESS_VID_PEER 35:33 = 1 -> 2^33,
	 * ADDRESS_VID 0x1000 -> 0x100, VALID 1, KIND 6. */
	{"AD102", GMMU_ENTRY_PTE, {"VALID=TRUE", "APERTURE=PEER_MEMORY", "ADDRESS_VID=0x1000",
	  "ADDRESS_VID_PEER=1", "KIND=GENERIC_MEMORY"}, {0x0600000200000103ull, 0}},
	/* v2 sysmem PTE holding a BAR1 address: APERTURE SYSTEM_NON_COHERENT 3 -> 0x6,
	 * ADDRESS_SYS 53:8 = 0x28800001000 >> 12 = 0x28800001 -> 0x2880000100. */
	{"AD102", GMMU_ENTRY_PTE, {"VALID=TRUE", "APERTURE=SYSTEM_NON_COHERENT_MEMORY",
	  "ADDRESS_SYS=0x28800001000", "KIND=GENERIC_MEMORY"}, {0x0600002880000107ull, 0}},
	/* v2 flags: VOL 3, ENCRYPTED 4, PRIVILEGE 5, READ_ONLY 6, ATOMIC_DISABLE 7 -> 0xf8;
	 * COMPTAGLINE 55:36 (TU102) = 0xfffff -> 0x00fffff000000000. */
	{"TU102", GMMU_ENTRY_PTE, {"VOL=1", "ENCRYPTED=1", "PRIVILEGE=1", "READ_ONLY=1",
	  "ATOMIC_DISABLE=1", "COMPTAGLINE=0xfffff"}, {0x00fffff0000000f8ull, 0}},
	/* GP100: COMPTAGLINE 53:36, so 0x3ffff -> 0x003ffff000000000; Pascal KIND INVALID 0xff. */
	{"GP100", GMMU_ENTRY_PTE, {"COMPTAGLINE=0x3ffff", "KIND=INVALID"},
	 {0xff3ffff000000000ull, 0}},
	/* v2 PDE: APERTURE 2:1 = VIDEO_MEMORY 1 (PDE numbering) -> 0x2, VOL 3 -> 0x8,
	 * ADDRESS_VID 32:8 = 0x1654321000 >> 12 = 0x1654321 (25 bits) -> 0x165432100. */
	{"GA102", GMMU_ENTRY_PDE, {"APERTURE=VIDEO_MEMORY", "VOL=TRUE",
	  "ADDRESS_VID=0x1654321000"}, {0x000000016543210aull, 0}},
	/* v2 dual PDE: APERTURE_BIG = VIDEO 1 -> 0x2, ADDRESS_BIG_VID 32:4 = 0x12300 >> 8 =
	 * 0x123 -> 0x1230; APERTURE_SMALL 66:65 = SYSTEM_COHERENT 2 -> word 1 0x4,
	 * ADDRESS_SMALL_SYS 117:72 = 0x45678000 >> 12 = 0x45678 -> word 1 bit 8: 0x4567800. */
	{"AD102", GMMU_ENTRY_DUAL_PDE, {"APERTURE_BIG=VIDEO_MEMORY", "ADDRESS_BIG_VID=0x12300",
	  "APERTURE_SMALL=SYSTEM_COHERENT_MEMORY", "ADDRESS_SMALL_SYS=0x45678000"},
	 {0x0000000000001232ull, 0x0000000004567804ull}},
	/* v3 peer PTE: VALID, APERTURE PEER 1 -> 0x3, PCF 7:3 = REGULAR_RW_ATOMIC_CACHED_ACD 0x10
	 * -> 0x80, KIND 11:8 = 6 -> 0x600, ADDRESS 51:12 = 0x200000 in place, PEER_ID 63:61 = 1. */
	{"GB202", GMMU_ENTRY_PTE, {"VALID=TRUE", "APERTURE=PEER_MEMORY",
	  "PCF=REGULAR_RW_ATOMIC_CACHED_ACD", "KIND=GENERIC_MEMORY", "ADDRESS=0x200000",
	  "PEER_ID=1"}, {0x2000000000200683ull, 0}},
	/* v3 invalid PTE marked sparse: VALID 0, PCF SPARSE 1 -> 0x8. */
	{"GH100", GMMU_ENTRY_PTE, {"VALID=FALSE", "PCF=SPARSE"}, {0x8ull, 0}},
	/* v3 PDE: APERTURE VIDEO 1 -> 0x2, PCF 5:3 = VALID_UNCACHED_ATS_NOT_ALLOWED 3 -> 0x18,
	 * ADDRESS 51:12 = 0xabc000 in place. */
	{"GH100", GMMU_ENTRY_PDE, {"APERTURE=VIDEO_MEMORY", "PCF=VALID_UNCACHED_ATS_NOT_ALLOWED",
	  "ADDRESS=0xabc000"}, {0x0000000000abc01aull, 0}},
	/* v3 dual PDE: ADDRESS_BIG 51:8 = 0x1234500 >> 8 = 0x12345 -> 0x1234500 (in place),
	 * APERTURE_BIG SYS_NONCOH 3 -> 0x6; APERTURE_SMALL 66:65 VIDEO 1 -> word 1 0x2,
	 * PCF_SMALL 69:67 = 1 -> word 1 0x8, ADDRESS_SMALL 115:76 = 0x5000 >> 12 = 5 -> word 1
	 * bit 12: 0x5000. */
	{"GB100", GMMU_ENTRY_DUAL_PDE, {"APERTURE_BIG=SYSTEM_NON_COHERENT_MEMORY",
	  "ADDRESS_BIG=0x1234500", "APERTURE_SMALL=VIDEO_MEMORY",
	  "PCF_SMALL=VALID_UNCACHED_ATS_ALLOWED", "ADDRESS_SMALL=0x5000"},
	 {0x0000000001234506ull, 0x000000000000500aull}},
};
/* clang-format on */

static void encode_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		const struct gmmu_entry_format *ef =
		        gmmu_format_entry(gt_chip(vecs[i].chip), vecs[i].t);
		uint64_t w[2] = {0, 0};
		for (size_t k = 0; vecs[i].fields[k]; k++) {
			char field[64];
			const char *eq = strchr(vecs[i].fields[k], '=');
			memcpy(field, vecs[i].fields[k], (size_t)(eq - vecs[i].fields[k]));
			field[eq - vecs[i].fields[k]] = '\0';
			struct p2ps_error err;
			if (gmmu_entry_set(ef, field, eq + 1, GMMU_WRITE_CHECKED, w, &err))
				fail_msg("vector %zu: %s", i, err.msg);
		}
		if (w[0] != vecs[i].w[0] || w[1] != vecs[i].w[1])
			fail_msg("vector %zu (%s): got %016llx %016llx want %016llx %016llx", i,
			         vecs[i].chip, (unsigned long long)w[1], (unsigned long long)w[0],
			         (unsigned long long)vecs[i].w[1],
			         (unsigned long long)vecs[i].w[0]);
	}
}

/* Decoding the vectors shows each field given, with the value given. */
static void decode_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		const struct gmmu_entry_format *ef =
		        gmmu_format_entry(gt_chip(vecs[i].chip), vecs[i].t);
		struct gmmu_decoded d;
		gmmu_entry_decode(ef, vecs[i].w, &d);
		assert_int_equal(d.unexplained[0], 0);
		assert_int_equal(d.unexplained[1], 0);
		for (size_t k = 0; vecs[i].fields[k]; k++) {
			const char *eq = strchr(vecs[i].fields[k], '=');
			size_t n = (size_t)(eq - vecs[i].fields[k]);
			size_t f;
			for (f = 0; f < ef->n_fields; f++)
				if (strlen(ef->fields[f].name) == n &&
				    !strncmp(ef->fields[f].name, vecs[i].fields[k], n))
					break;
			assert_true(f < ef->n_fields);
			assert_true(d.shown[f]);
			char buf[96];
			const char *got = gmmu_decoded_value_str(&d, f, buf, sizeof(buf));
			const char *want = eq + 1;
			/* Booleans were given as 1/TRUE; numbers as the decoder prints them. */
			if (!strcmp(want, "1") && ef->fields[f].kind == GMMU_FIELD_BOOL)
				want = "TRUE";
			if (strcmp(got, want))
				fail_msg("vector %zu %s: decoded %s, encoded %s", i,
				         ef->fields[f].name, got, want);
		}
	}
}

/* The fast views read the same vectors. */
static void views_of_vectors(void **state)
{
	(void)state;
	struct gmmu_pte_view v;
	gmmu_pte_view(gt_chip("AD102"), vecs[1].w[0], &v);
	assert_true(v.valid);
	assert_int_equal(v.aperture, GMMU_APERTURE_PEER);
	assert_int_equal(v.peer_index, 1);
	assert_int_equal(v.addr, 0x1000);
	assert_int_equal(v.kind, 6);

	gmmu_pte_view(gt_chip("AD102"), vecs[2].w[0], &v);
	assert_int_equal(v.aperture, GMMU_APERTURE_SYS_NONCOH);
	assert_int_equal(v.addr, 0x28800001000ull);
	/* In a sysmem PTE, bits 35:33 are address bits 39:37 (here 0b100), not a peer index:
	 * the view reports the raw bits, the aperture says they are not a peer. */
	assert_int_equal(v.peer_index, 4);

	gmmu_pte_view(gt_chip("TU102"), vecs[3].w[0], &v);
	assert_false(v.valid);
	assert_true(v.vol && v.encrypted && v.privilege && v.read_only && v.atomic_disable);
	assert_true(v.sparse); /* VALID=0 with VOL=1 */
	assert_int_equal(v.comptagline, 0xfffff);

	gmmu_pte_view(gt_chip("GB202"), vecs[7].w[0], &v);
	assert_true(v.valid);
	assert_int_equal(v.aperture, GMMU_APERTURE_PEER);
	assert_int_equal(v.peer_index, 1);
	assert_int_equal(v.addr, 0x200000);
	assert_int_equal(v.pcf, 0x10);
	assert_true(v.acd);
	assert_false(v.vol || v.privilege || v.read_only || v.atomic_disable);

	/* PCF 0x1f: every flag of a valid v3 PTE. */
	gmmu_pte_view(gt_chip("GB202"), 0x1ull | (0x1full << 3), &v);
	assert_true(v.vol && v.privilege && v.read_only && v.atomic_disable && v.acd);

	gmmu_pte_view(gt_chip("GH100"), vecs[8].w[0], &v);
	assert_false(v.valid);
	assert_true(v.sparse);
	assert_false(v.vol); /* PCF of an invalid PTE carries no access flags */

	struct gmmu_pde_view p, big, small;
	gmmu_pde_view(gt_chip("GA102"), vecs[5].w[0], &p);
	assert_true(p.valid && p.vol);
	assert_int_equal(p.aperture, GMMU_APERTURE_VIDEO);
	assert_int_equal(p.addr, 0x1654321000ull);
	gmmu_pde_view(gt_chip("GH100"), vecs[9].w[0], &p);
	assert_int_equal(p.addr, 0xabc000);
	assert_true(p.vol); /* PCF VALID_UNCACHED_* */
	gmmu_dual_pde_view(gt_chip("AD102"), vecs[6].w, &big, &small);
	assert_int_equal(big.aperture, GMMU_APERTURE_VIDEO);
	assert_int_equal(big.addr, 0x12300);
	assert_int_equal(small.aperture, GMMU_APERTURE_SYS_COH);
	assert_int_equal(small.addr, 0x45678000);
	gmmu_dual_pde_view(gt_chip("GB100"), vecs[10].w, &big, &small);
	assert_int_equal(big.aperture, GMMU_APERTURE_SYS_NONCOH);
	assert_int_equal(big.addr, 0x1234500);
	assert_int_equal(small.addr, 0x5000);
	assert_true(small.vol && !big.vol);

	/* An invalid PDE points nowhere. */
	gmmu_pde_view(gt_chip("AD102"), 0xffffffffffffff00ull, &p);
	assert_false(p.valid);
	assert_int_equal(p.addr, 0);

	/* Levels that hold either: bit 0 tells (gmmuFmtEntryIsPte). */
	assert_true(gmmu_entry_is_pte(gt_chip("AD102"), vecs[0].w[0]));
	assert_false(gmmu_entry_is_pte(gt_chip("AD102"), vecs[5].w[0]));
}

/* Overflow in checked mode names field, bits, width and value (the driver's assertion). */
static void checked_overflow(void **state)
{
	(void)state;
	const struct gmmu_entry_format *ef = gmmu_format_entry(gt_chip("AD102"), GMMU_ENTRY_PTE);
	uint64_t w[2] = {0x1234, 0};
	struct p2ps_error err;
	assert_int_equal(
	        gmmu_entry_set(ef, "ADDRESS_VID_PEER", "0xffffffff", GMMU_WRITE_CHECKED, w, &err),
	        P2PS_ERANGE);
	assert_string_equal(
	        err.msg, "value 0xffffffff does not fit ADDRESS_VID_PEER (35:33, 3 bits, max 0x7)");
	assert_int_equal(w[0], 0x1234); /* untouched */
	assert_int_equal(gmmu_entry_set(ef, "KIND", "256", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_ERANGE);
	/* 0x28800000000 >> 12 = 0x28800000 needs 30 bits; ADDRESS_VID has 25. */
	assert_int_equal(
	        gmmu_entry_set(ef, "ADDRESS_VID", "0x28800000000", GMMU_WRITE_CHECKED, w, &err),
	        P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "ADDRESS_VID (32:8, 25 bits"));
	assert_non_null(strstr(err.msg, "max 0x1ffffff000"));
	/* Not aligned to the 4 KiB the shift drops. */
	assert_int_equal(gmmu_entry_set(ef, "ADDRESS_SYS", "0x1234", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_EINVAL);
	/* Unknown field and value. */
	assert_int_equal(gmmu_entry_set(ef, "PEER_ID", "1", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_ENOENT);
	assert_non_null(strstr(err.msg, "ADDRESS_VID_PEER"));
	assert_int_equal(gmmu_entry_set(ef, "APERTURE", "PEER", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "PEER_MEMORY"));
	assert_int_equal(gmmu_entry_set(ef, "KIND", "-1", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_EINVAL);
	assert_int_equal(gmmu_entry_set(ef, "KIND", "0x", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_EINVAL);
	/* strtoull would take these as UINT64_MAX and 5: a number starts with a digit. */
	assert_int_equal(gmmu_entry_set(ef, "KIND", " -1", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_EINVAL);
	assert_int_equal(gmmu_entry_set(ef, "KIND", "0x 5", GMMU_WRITE_CHECKED, w, &err),
	                 P2PS_EINVAL);
	assert_int_equal(w[0], 0x1234);
	/* The largest value that fits is accepted. */
	assert_int_equal(
	        gmmu_entry_set(ef, "ADDRESS_VID", "0x1ffffff000", GMMU_WRITE_CHECKED, w, &err), 0);
}

/* The smear: a release build's nvFieldSet32 ORs (NvU32)(value << shift) into the word.
 * BUS_INVALID_PEER 0xffffffff into ADDRESS_VID_PEER (35:33: byte offset 4, shift 1):
 * 0xffffffff << 1 = 0xfffffffe is ORed into bits 63:32, so bits 63:33 are all set:
 * KIND 63:56 becomes 0xFF (no such kind on TU+: UNSUPPORTED_KIND), COMPTAGLINE all ones,
 * peer index 7. Bit 32 (ADDRESS_VID's top) survives. */
static void smear_invalid_peer_v2(void **state)
{
	(void)state;
	const struct gmmu_format *f = gt_chip("AD102");
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, GMMU_ENTRY_PTE);
	uint64_t w[2] = {0, 0};
	assert_int_equal(gt_set(ef, "VALID", "TRUE", w), 0);
	assert_int_equal(gt_set(ef, "APERTURE", "PEER_MEMORY", w), 0);
	assert_int_equal(gt_set(ef, "KIND", "GENERIC_MEMORY", w), 0);
	assert_int_equal(gmmu_entry_set(ef, "ADDRESS_VID_PEER", "0xffffffff", GMMU_WRITE_AS_WRITTEN,
	                                w, NULL),
	                 0);
	assert_int_equal(w[0], 0xfffffffe00000003ull);
	struct gmmu_pte_view v;
	gmmu_pte_view(f, w[0], &v);
	assert_int_equal(v.kind, 0xff);
	assert_int_equal(v.peer_index, 7);
	assert_int_equal(v.comptagline, 0xfffff);
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, w, &d);
	const struct gmmu_field *kf = gmmu_field_find(ef, "KIND");
	char buf[64];
	/* A kind without a name prints as its number, so that the text parses back. */
	assert_string_equal(gmmu_decoded_value_str(&d, (size_t)(kf - ef->fields), buf, sizeof(buf)),
	                    "0xff");
	uint64_t back = 0;
	assert_int_equal(gmmu_field_value_parse(kf, buf, &back, NULL), 0);
	assert_int_equal(back, 0xff);
}

/* The same write on v3: PEER_ID 63:61 is shift 29 of the top word, so 0xffffffff << 29 keeps
 * only 0xe0000000: the field is all ones and nothing smears. */
static void no_smear_invalid_peer_v3(void **state)
{
	(void)state;
	const struct gmmu_entry_format *ef = gmmu_format_entry(gt_chip("GB202"), GMMU_ENTRY_PTE);
	uint64_t w[2] = {0x0000000000000683ull, 0};
	assert_int_equal(
	        gmmu_entry_set(ef, "PEER_ID", "0xffffffff", GMMU_WRITE_AS_WRITTEN, w, NULL), 0);
	assert_int_equal(w[0], 0xe000000000000683ull);
	/* KIND 0x16 into 11:8 (shift 8): 0x1600 sets bit 12, the lowest address bit. */
	uint64_t k[2] = {0, 0};
	assert_int_equal(gmmu_entry_set(ef, "KIND", "0x16", GMMU_WRITE_AS_WRITTEN, k, NULL), 0);
	assert_int_equal(k[0], 0x1600);
	/* Bits shifted past bit 31 of the 32-bit word are lost, not carried: KIND 0x1000006
	 * << 8 = 0x00000600 in 32 bits (bit 32 dropped). */
	uint64_t c[2] = {0, 0};
	assert_int_equal(gmmu_entry_set(ef, "KIND", "0x1000006", GMMU_WRITE_AS_WRITTEN, c, NULL),
	                 0);
	assert_int_equal(c[0], 0x600);
}

/* Addresses go through nvFieldSet64, which masks: 0x28800000000 >> 12 = 0x28800000 keeps
 * its low 25 bits 0x0800000 in ADDRESS_VID, i.e. address 0x800000000 (wrong, but confined to
 * the field); unaligned low bits are dropped by the shift. */
static void as_written_address_is_masked(void **state)
{
	(void)state;
	const struct gmmu_entry_format *ef = gmmu_format_entry(gt_chip("AD102"), GMMU_ENTRY_PTE);
	uint64_t w[2] = {0, 0};
	assert_int_equal(
	        gmmu_entry_set(ef, "ADDRESS_VID", "0x28800000000", GMMU_WRITE_AS_WRITTEN, w, NULL),
	        0);
	assert_int_equal(w[0], 0x0000000080000000ull);
	assert_int_equal(gmmu_field_get_addr(gmmu_field_find(ef, "ADDRESS_VID"), w),
	                 0x800000000ull);
	uint64_t u[2] = {0, 0};
	assert_int_equal(
	        gmmu_entry_set(ef, "ADDRESS_SYS", "0x1fff", GMMU_WRITE_AS_WRITTEN, u, NULL), 0);
	assert_int_equal(u[0], 0x100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(encode_vectors),
	        cmocka_unit_test(decode_vectors),
	        cmocka_unit_test(views_of_vectors),
	        cmocka_unit_test(checked_overflow),
	        cmocka_unit_test(smear_invalid_peer_v2),
	        cmocka_unit_test(no_smear_invalid_peer_v3),
	        cmocka_unit_test(as_written_address_is_masked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
