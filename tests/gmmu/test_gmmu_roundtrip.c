/* SPDX-License-Identifier: MIT */
/* Round trips over random values: every field of every entry type of every format, in both
 * write modes, plus decode -> re-encode of random entries and the fast views against the
 * field-by-field decode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "gmmu_test_util.h"

#define ROUNDS 2000

/* set(v) then get() == v for v within the field; nothing outside the field changes. */
static void field_set_get(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t fields = 0;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++) {
			const struct gmmu_entry_format *ef = f->entry[t];
			for (size_t k = 0; k < ef->n_fields; k++) {
				const struct gmmu_field *fd = &ef->fields[k];
				fields++;
				for (int r = 0; r < ROUNDS; r++) {
					uint64_t bg[2] = {gt_rand(&seed),
					                  ef->size > 8 ? gt_rand(&seed) : 0};
					uint64_t v = gt_rand(&seed) & gmmu_field_mask(fd);
					if (r == 0)
						v = 0;
					if (r == 1)
						v = gmmu_field_mask(fd);
					uint64_t w[2] = {bg[0], bg[1]};
					for (int mode = 0; mode < 2; mode++) {
						w[0] = bg[0];
						w[1] = bg[1];
						assert_int_equal(
						        gmmu_field_set(fd, v,
						                       (enum gmmu_write_mode)mode,
						                       w, NULL),
						        0);
						assert_int_equal(gmmu_field_get(fd, w), v);
						for (unsigned q = 0; q < 2; q++)
							assert_int_equal(
							        w[q] & ~gt_field_bits(fd, q),
							        bg[q] & ~gt_field_bits(fd, q));
					}
					if (fd->kind == GMMU_FIELD_ADDR) {
						/* Byte addresses: set_addr(get_addr()) round-trips
						 * too. */
						uint64_t a = v << fd->addr_shift;
						w[0] = bg[0];
						w[1] = bg[1];
						assert_int_equal(
						        gmmu_field_set_addr(
						                fd, a, GMMU_WRITE_CHECKED, w, NULL),
						        0);
						assert_int_equal(gmmu_field_get_addr(fd, w), a);
						assert_true(a <= gmmu_field_addr_max(fd));
					}
				}
				/* One past the top is refused when checked (fields under 64 bits).
				 */
				if (gmmu_field_width(fd) < 64) {
					uint64_t w[2] = {0, 0};
					assert_int_equal(gmmu_field_set(fd, gmmu_field_mask(fd) + 1,
					                                GMMU_WRITE_CHECKED, w,
					                                NULL),
					                 P2PS_ERANGE);
					assert_int_equal(w[0] | w[1], 0);
				}
			}
		}
	}
	assert_true(fields > 70);
}

/* Named values parse back to themselves, and the decoder names them. */
static void named_values_round_trip(void **state)
{
	(void)state;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++) {
			const struct gmmu_entry_format *ef = f->entry[t];
			for (size_t k = 0; k < ef->n_fields; k++) {
				const struct gmmu_field *fd = &ef->fields[k];
				for (size_t j = 0; j < fd->n_values; j++) {
					uint64_t v = 99;
					assert_int_equal(gmmu_field_value_parse(
					                         fd, fd->values[j].name, &v, NULL),
					                 0);
					assert_int_equal(v, fd->values[j].value);
					assert_string_equal(gmmu_field_value_name(fd, v, true),
					                    fd->values[j].name);
				}
				for (size_t j = 0; j < fd->n_values_invalid; j++)
					assert_string_equal(
					        gmmu_field_value_name(
					                fd, fd->values_invalid[j].value, false),
					        fd->values_invalid[j].name);
			}
		}
	}
}

/* encode(decode(x)) == x: the shown fields plus the unexplained bits rebuild every entry. */
static void decode_reencode(void **state)
{
	(void)state;
	uint64_t seed = 42;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++) {
			const struct gmmu_entry_format *ef = f->entry[t];
			for (int r = 0; r < ROUNDS; r++) {
				uint64_t x[2] = {gt_rand(&seed), ef->size > 8 ? gt_rand(&seed) : 0};
				/* Sparse entries too: many real entries are mostly zero. */
				if (r % 3 == 0) {
					x[0] &= gt_rand(&seed);
					x[1] &= gt_rand(&seed);
				}
				struct gmmu_decoded d;
				gmmu_entry_decode(ef, x, &d);
				uint64_t y[2] = {d.unexplained[0], d.unexplained[1]};
				for (size_t k = 0; k < ef->n_fields; k++)
					if (d.shown[k])
						assert_int_equal(
						        gmmu_field_set(&ef->fields[k], d.value[k],
						                       GMMU_WRITE_CHECKED, y, NULL),
						        0);
				assert_int_equal(y[0], x[0]);
				assert_int_equal(y[1], x[1]);
				/* Unexplained bits are never inside a shown field. */
				for (size_t k = 0; k < ef->n_fields; k++)
					if (d.shown[k])
						for (unsigned q = 0; q < 2; q++)
							assert_int_equal(
							        d.unexplained[q] &
							                gt_field_bits(
							                        &ef->fields[k], q),
							        0);
			}
		}
	}
}

static uint64_t shown_value(const struct gmmu_decoded *d, const char *name, bool *shown)
{
	for (size_t k = 0; k < d->ef->n_fields; k++)
		if (!strcmp(d->ef->fields[k].name, name)) {
			*shown = d->shown[k];
			return d->value[k];
		}
	*shown = false;
	return 0;
}

/* The fast PTE/PDE views agree with the field-by-field decode on random entries. */
static void views_agree_with_decode(void **state)
{
	(void)state;
	uint64_t seed = 7;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		const struct gmmu_entry_format *pte = f->entry[GMMU_ENTRY_PTE];
		for (int r = 0; r < ROUNDS; r++) {
			uint64_t x[2] = {gt_rand(&seed), 0};
			struct gmmu_decoded d;
			struct gmmu_pte_view v;
			gmmu_entry_decode(pte, x, &d);
			gmmu_pte_view(f, x[0], &v);
			bool shown;
			assert_int_equal(v.valid, d.valid);
			assert_int_equal(v.aperture_hw, shown_value(&d, "APERTURE", &shown));
			assert_int_equal(v.kind, shown_value(&d, "KIND", &shown));
			/* The address the view reports is the one of the shown address field. */
			uint64_t addr = 0;
			size_t n_addr = 0;
			for (size_t k = 0; k < pte->n_fields; k++)
				if (d.shown[k] && pte->fields[k].kind == GMMU_FIELD_ADDR) {
					addr = d.value[k] << pte->fields[k].addr_shift;
					n_addr++;
				}
			assert_int_equal(n_addr, 1);
			assert_int_equal(v.addr, addr);
			if (v.aperture == GMMU_APERTURE_PEER) {
				uint64_t p = shown_value(
				        &d, f->version == 2 ? "ADDRESS_VID_PEER" : "PEER_ID",
				        &shown);
				assert_true(shown);
				assert_int_equal(v.peer_index, p);
			}
			if (f->version == 2) {
				assert_int_equal(v.vol, shown_value(&d, "VOL", &shown));
				assert_int_equal(v.read_only, shown_value(&d, "READ_ONLY", &shown));
				assert_int_equal(v.privilege, shown_value(&d, "PRIVILEGE", &shown));
				assert_int_equal(v.atomic_disable,
				                 shown_value(&d, "ATOMIC_DISABLE", &shown));
			} else {
				assert_int_equal(v.pcf, shown_value(&d, "PCF", &shown));
			}
		}
		const struct gmmu_entry_format *dual = f->entry[GMMU_ENTRY_DUAL_PDE];
		for (int r = 0; r < ROUNDS; r++) {
			uint64_t x[2] = {gt_rand(&seed), gt_rand(&seed)};
			struct gmmu_decoded d;
			struct gmmu_pde_view big, small;
			gmmu_entry_decode(dual, x, &d);
			gmmu_dual_pde_view(f, x, &big, &small);
			assert_int_equal(big.valid, d.half_valid[GMMU_HALF_BIG]);
			assert_int_equal(small.valid, d.half_valid[GMMU_HALF_SMALL]);
			uint64_t ab = 0, as = 0;
			for (size_t k = 0; k < dual->n_fields; k++) {
				const struct gmmu_field *fd = &dual->fields[k];
				if (!d.shown[k] || fd->kind != GMMU_FIELD_ADDR)
					continue;
				if (fd->half == GMMU_HALF_BIG)
					ab = d.value[k] << fd->addr_shift;
				else
					as = d.value[k] << fd->addr_shift;
			}
			assert_int_equal(big.addr, ab);
			assert_int_equal(small.addr, as);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(field_set_get),
	        cmocka_unit_test(named_values_round_trip),
	        cmocka_unit_test(decode_reencode),
	        cmocka_unit_test(views_agree_with_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
