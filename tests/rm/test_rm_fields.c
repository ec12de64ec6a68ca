/* SPDX-License-Identifier: MIT */
/* The RM client's layouts against the driver's headers. For every tag a stock row of the
 * driver table names (src/gmmu/nvidia_drivers.c), the facts offsetof()/sizeof() gave on that
 * tag's headers (tests/rm/fixtures/ctrl-offsets/TAG.txt, derived by
 * scripts/rm-derive-offsets.sh from NVIDIA/open-gpu-kernel-modules) must be:
 *   - the control fields of src/rm/fields.c for the RM era of the tag's row, each fact with
 *     its row and each row of the era with its fact;
 *   - the row's own RM layout (NVOS46, the VA space and NV50_P2P allocations);
 *   - the sizes src/rm/rm_internal.h fixes for every series.
 * The tags come from the table, so a new series' row and its facts file are all it takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/rm/rm_internal.h"
#include "p2ps_test.h"
#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/rm.h"
#include "p2pscope/rm_ctrl.h"

struct fact {
	char type[128], member[128];
	unsigned off, size;
};

/* The sizes rm_internal.h holds for every series. */
static const struct {
	const char *type;
	unsigned size;
} fixed[] = {
        {"NVOS00_PARAMETERS", NVOS00_SIZE},
        {"NVOS21_PARAMETERS", NVOS21_SIZE},
        {"NVOS54_PARAMETERS", NVOS54_SIZE},
        {"NVOS47_PARAMETERS", NVOS47_SIZE},
        {"NVOS34_PARAMETERS", NVOS34_SIZE},
        {"nv_ioctl_nvos33_parameters_with_fd", NVOS33_SIZE},
        {"nv_ioctl_card_info_t", CARD_SIZE},
        {"NV0080_ALLOC_PARAMETERS", NV0080_ALLOC_SIZE},
        {"NV2080_ALLOC_PARAMETERS", NV2080_ALLOC_SIZE},
        {"NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS", VIRTUAL_ALLOC_SIZE},
        {"NV_MEMORY_ALLOCATION_PARAMS", MEM_ALLOC_SIZE},
        {"NV_PHYSICAL_MEMORY_ALLOCATION_PARAMS", PHYS_ALLOC_SIZE},
};

static bool is(const struct fact *f, const char *type, const char *member)
{
	return !strcmp(f->type, type) && !strcmp(f->member, member);
}

/* A fact of the row's RM layout: true when it is one (and then it must match). */
static bool layout_fact(const char *tag, const struct fact *f, const struct p2ps_nv_rm_layout *l)
{
	static const char nvos46[] = "NVOS46_PARAMETERS";
	unsigned want;
	if (is(f, nvos46, "sizeof"))
		want = l->nvos46_size;
	else if (is(f, nvos46, "dmaOffset"))
		want = l->nvos46_dma_offset;
	else if (is(f, nvos46, "status"))
		want = l->nvos46_status;
	else if (is(f, "NV_VASPACE_ALLOCATION_PARAMETERS", "sizeof"))
		want = l->vaspace_size;
	else if (is(f, "NV503B_ALLOC_PARAMETERS", "sizeof"))
		want = l->p2p_size;
	else
		return false;
	unsigned got = strcmp(f->member, "sizeof") ? f->off : f->size; /* an offset, or a size */
	if (got != want)
		fail_msg("%s: %s.%s is %u in the headers, %u in the driver row's layout", tag,
		         f->type, f->member, got, want);
	return true;
}

static bool fixed_fact(const char *tag, const struct fact *f)
{
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (is(f, fixed[i].type, "sizeof")) {
			if (f->size != fixed[i].size)
				fail_msg("%s: sizeof(%s) is %u, rm_internal.h has %u", tag, f->type,
				         f->size, fixed[i].size);
			return true;
		}
	return false;
}

/* A control field's fact: its row for the era must match; marks it seen. */
static bool field_fact(const char *tag, const struct fact *f, enum p2ps_nv_rm_era era, bool *seen)
{
	for (size_t i = 0; i < p2ps_rm_field_count(); i++) {
		const struct p2ps_rm_field *r = p2ps_rm_field_at(i);
		if (strcmp(r->type, f->type) || strcmp(r->field, f->member) || era < r->first ||
		    era > r->last)
			continue;
		if (r->offset != f->off || r->size != f->size)
			fail_msg("%s: %s.%s at %u size %u in the headers, %u/%u in fields.c", tag,
			         f->type, f->member, f->off, f->size, r->offset, r->size);
		seen[i] = true;
		return true;
	}
	return false;
}

static void check_tag(const char *tag, const struct p2ps_nv_driver *row)
{
	char rel[128], line[512];
	snprintf(rel, sizeof(rel), "tests/rm/fixtures/ctrl-offsets/%s.txt", tag);
	FILE *file = fopen(p2ps_test_src_path(rel), "r");
	if (!file)
		fail_msg("%s (row %u): no facts file %s (scripts/rm-derive-offsets.sh)", tag,
		         row->series, rel);
	bool seen[256] = {false}, fabric = false;
	assert_true(p2ps_rm_field_count() <= 256);
	unsigned facts = 0;
	struct fact f;
	while (fgets(line, sizeof(line), file)) {
		if (line[0] == '#' ||
		    sscanf(line, "%127s %127s %u %u", f.type, f.member, &f.off, &f.size) != 4)
			continue;
		facts++;
		fabric |= is(&f, "NV503B_ALLOC_PARAMETERS", "p2lFabricP2PInfo.gpa");
		if (!field_fact(tag, &f, row->rm->era, seen) && !layout_fact(tag, &f, row->rm) &&
		    !fixed_fact(tag, &f))
			fail_msg("%s: %s.%s has no row for RM era %s", tag, f.type, f.member,
			         p2ps_nv_rm_era_name(row->rm->era));
	}
	fclose(file);
	assert_true(facts > 80);
	assert_int_equal(fabric, row->rm->p2p_fabric_info);
	/* Every field of the era was derived for this tag. */
	for (size_t i = 0; i < p2ps_rm_field_count(); i++) {
		const struct p2ps_rm_field *r = p2ps_rm_field_at(i);
		if (r->first <= row->rm->era && row->rm->era <= r->last && !seen[i])
			fail_msg("%s: row %s.%s (eras %s-%s) is not in the derived facts", tag,
			         r->type, r->field, p2ps_nv_rm_era_name(r->first),
			         p2ps_nv_rm_era_name(r->last));
	}
}

static void test_tags(void **state)
{
	(void)state;
	size_t n, tags = 0;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; t[i].rm && k < P2PS_NV_MAX_TAGS && t[i].tags[k]; k++, tags++)
			check_tag(t[i].tags[k], &t[i]);
	assert_true(tags >= 7);
}

/* The era of the row naming tag, or -1. */
static int era_of_tag(const char *tag)
{
	size_t n;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; t[i].rm && k < P2PS_NV_MAX_TAGS && t[i].tags[k]; k++)
			if (!strcmp(t[i].tags[k], tag))
				return (int)t[i].rm->era;
	return -1;
}

/* Rows of one field never overlap, and each cites a tag of a row in its eras. */
static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < p2ps_rm_field_count(); i++) {
		const struct p2ps_rm_field *a = p2ps_rm_field_at(i);
		int era = era_of_tag(a->tag);
		if (era < (int)a->first || era > (int)a->last)
			fail_msg("fields.c %s.%s cites %s, no tag of its eras", a->type, a->field,
			         a->tag);
		assert_true(a->first <= a->last && a->last < P2PS_NV_RM_ERA_COUNT);
		for (size_t j = i + 1; j < p2ps_rm_field_count(); j++) {
			const struct p2ps_rm_field *b = p2ps_rm_field_at(j);
			if (a->id == b->id)
				assert_true(a->last < b->first || b->last < a->first);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_tags),
	        cmocka_unit_test(test_rows),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
