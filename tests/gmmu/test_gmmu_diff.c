/* SPDX-License-Identifier: MIT */
/* libgmmu against independent encoders: the entries nouveau, tinygrad and NVIDIA's RM and
 * UVM write (tests/gmmu/diff/vectors.txt, computed by tests/gmmu/diff/gen_vectors.py from
 * what each writer's source does, never from libgmmu), checked in both directions:
 *   encode  the listed fields, written by name in checked mode, give the entry;
 *   decode  the entry gives every listed field back, no other field is set, no bit is
 *           unexplained (unless the vector records a deliberate departure), every shown
 *           value prints as text that parses back, and the fast views agree on validity
 *           and the sparse marking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmmu_test_util.h"
#include "p2ps_test.h"

#define VECTORS   "tests/gmmu/diff/vectors.txt"
#define MAX_TOKS  24
#define MAX_CHIPS 16

/* Vectors seen per chip and entry type, to show (and require) the coverage. */
struct coverage {
	const char *chip[MAX_CHIPS];
	unsigned n[MAX_CHIPS][GMMU_ENTRY_TYPE_COUNT];
	unsigned chips, total, sparse, departures;
};

/* "0x" + up to 32 hex digits into w[0] (bits 63:0) and w[1]. */
static int parse_raw(const char *s, uint64_t w[2])
{
	if (strncmp(s, "0x", 2) || strlen(s + 2) == 0 || strlen(s + 2) > 32)
		return -1;
	w[0] = w[1] = 0;
	for (const char *p = s + 2; *p; p++) {
		char c = *p;
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
		             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		                                    : 16;
		if (d > 15)
			return -1;
		w[1] = w[1] << 4 | w[0] >> 60;
		w[0] = w[0] << 4 | d;
	}
	return 0;
}

static size_t field_index(const struct gmmu_entry_format *ef, const char *name, size_t lineno)
{
	const struct gmmu_field *fd = gmmu_field_find(ef, name);
	if (!fd)
		fail_msg("vectors.txt:%zu: %s has no field %s", lineno, ef->prefix, name);
	return (size_t)(fd - ef->fields);
}

/* Decode: each listed field shown with its value; every other shown field zero; the shown
 * values print and parse back. */
static void check_decode(const struct gmmu_entry_format *ef, const struct gmmu_decoded *d,
                         char **toks, size_t n, size_t lineno)
{
	bool listed[GMMU_MAX_FIELDS] = {false};
	for (size_t t = 0; t < n; t++) {
		char *eq = strchr(toks[t], '=');
		*eq = '\0';
		size_t i = field_index(ef, toks[t], lineno);
		const struct gmmu_field *fd = &ef->fields[i];
		uint64_t v = 0;
		assert_int_equal(gmmu_field_value_parse(fd, eq + 1, &v, NULL), 0);
		if (fd->kind == GMMU_FIELD_ADDR)
			v >>= fd->addr_shift;
		if (!d->shown[i] || d->value[i] != v)
			fail_msg("vectors.txt:%zu: %s decodes %s as 0x%llx (shown %d), want %s",
			         lineno, toks[t], toks[t], (unsigned long long)d->value[i],
			         d->shown[i], eq + 1);
		listed[i] = true;
		*eq = '=';
	}
	for (size_t i = 0; i < ef->n_fields; i++) {
		if (!d->shown[i])
			continue;
		if (!listed[i] && d->value[i])
			fail_msg("vectors.txt:%zu: %s is 0x%llx but not listed", lineno,
			         ef->fields[i].name, (unsigned long long)d->value[i]);
		char buf[96];
		uint64_t back = ~0ull;
		gmmu_decoded_value_str(d, i, buf, sizeof(buf));
		assert_int_equal(gmmu_field_value_parse(&ef->fields[i], buf, &back, NULL), 0);
		if (ef->fields[i].kind == GMMU_FIELD_ADDR)
			back >>= ef->fields[i].addr_shift;
		assert_int_equal(back, d->value[i]);
	}
}

/* The fast views: validity as decode says, the sparse marking as the vector says. */
static void check_views(const struct gmmu_format *f, enum gmmu_entry_type t, const uint64_t w[2],
                        const struct gmmu_decoded *d, bool sparse, size_t lineno)
{
	bool valid, sp;
	if (t == GMMU_ENTRY_PTE) {
		struct gmmu_pte_view v;
		gmmu_pte_view(f, w[0], &v);
		valid = v.valid;
		sp = v.sparse;
	} else if (t == GMMU_ENTRY_PDE) {
		struct gmmu_pde_view v;
		gmmu_pde_view(f, w[0], &v);
		valid = v.valid;
		sp = v.sparse;
	} else {
		struct gmmu_pde_view big, small;
		gmmu_dual_pde_view(f, w, &big, &small);
		valid = big.valid || small.valid;
		sp = big.sparse || small.sparse;
	}
	if (valid != d->valid || sp != sparse)
		fail_msg("vectors.txt:%zu: view valid %d sparse %d, want valid %d sparse %d",
		         lineno, valid, sp, d->valid, sparse);
}

static void count(struct coverage *c, const char *chip, enum gmmu_entry_type t)
{
	unsigned k = 0;
	while (k < c->chips && strcmp(c->chip[k], chip))
		k++;
	if (k == c->chips) {
		assert_true(c->chips < MAX_CHIPS);
		c->chip[c->chips++] = strdup(chip);
	}
	c->n[k][t]++;
	c->total++;
}

static void check_line(char *line, size_t lineno, struct coverage *cov)
{
	char *toks[MAX_TOKS];
	size_t n = 0;
	for (char *s = strtok(line, " \n"); s && n < MAX_TOKS; s = strtok(NULL, " \n"))
		toks[n++] = s;
	assert_true(n >= 4);
	const struct gmmu_format *f = gt_chip(toks[1]);
	enum gmmu_entry_type t = GMMU_ENTRY_PTE;
	uint64_t raw[2], unexplained[2] = {0, 0};
	if (!f || gmmu_entry_type_parse(toks[2], &t, NULL) || parse_raw(toks[3], raw)) {
		fail_msg("vectors.txt:%zu: bad chip, entry type or value", lineno);
		return;
	}
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, t);
	bool sparse = false, noview = false;
	size_t nf = 0;
	for (size_t i = 4; i < n; i++) {
		if (!strcmp(toks[i], "@sparse"))
			sparse = true;
		else if (!strcmp(toks[i], "@noview"))
			noview = true;
		else if (!strncmp(toks[i], "!UNEXPLAINED=", 13))
			assert_int_equal(parse_raw(toks[i] + 13, unexplained), 0);
		else
			toks[4 + nf++] = toks[i];
	}
	/* Encode: the fields give the entry, less the bits of a recorded departure. */
	uint64_t w[2] = {0, 0};
	for (size_t i = 0; i < nf; i++) {
		char *eq = strchr(toks[4 + i], '=');
		assert_non_null(eq);
		*eq = '\0';
		struct p2ps_error err = {0};
		if (gmmu_entry_set(ef, toks[4 + i], eq + 1, GMMU_WRITE_CHECKED, w, &err))
			fail_msg("vectors.txt:%zu: %s", lineno, err.msg);
		*eq = '=';
	}
	if ((w[0] | unexplained[0]) != raw[0] || (w[1] | unexplained[1]) != raw[1])
		fail_msg("vectors.txt:%zu: encode gives 0x%016llx%016llx, want %s", lineno,
		         (unsigned long long)w[1], (unsigned long long)w[0], toks[3]);
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, raw, &d);
	if (d.unexplained[0] != unexplained[0] || d.unexplained[1] != unexplained[1])
		fail_msg("vectors.txt:%zu: unexplained bits 0x%016llx%016llx", lineno,
		         (unsigned long long)d.unexplained[1],
		         (unsigned long long)d.unexplained[0]);
	check_decode(ef, &d, toks + 4, nf, lineno);
	if (!noview)
		check_views(f, t, raw, &d, sparse, lineno);
	count(cov, toks[1], t);
	cov->sparse += sparse;
	cov->departures += (unexplained[0] | unexplained[1]) != 0;
}

static void differential_vectors(void **state)
{
	(void)state;
	FILE *fp = fopen(p2ps_test_src_path(VECTORS), "r");
	if (!fp) {
		fail_msg("cannot open %s", p2ps_test_src_path(VECTORS));
		return;
	}
	struct coverage cov = {0};
	char line[1024];
	size_t lineno = 0;
	while (fgets(line, sizeof(line), fp)) {
		lineno++;
		if (line[0] != '#' && line[0] != '\n')
			check_line(line, lineno, &cov);
	}
	fclose(fp);
	printf("differential vectors: %u (%u sparse, %u recorded departures)\n", cov.total,
	       cov.sparse, cov.departures);
	for (unsigned k = 0; k < cov.chips; k++) {
		printf("  %-6s pte %4u  pde %3u  dual-pde %3u\n", cov.chip[k], cov.n[k][0],
		       cov.n[k][1], cov.n[k][2]);
		/* Every generation, every entry type, each with a fair number of vectors. */
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++)
			assert_true(cov.n[k][t] >= 8);
		free((void *)cov.chip[k]);
	}
	assert_int_equal(cov.chips, 8); /* GP100 GV100 TU102 GA102 AD102 GH100 GB100 GB202 */
	assert_true(cov.total >= 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(differential_vectors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
