/* SPDX-License-Identifier: MIT */
/* The layout table of the typed RM controls (src/rm/fields.c) against the driver's headers:
 * for each of the ten supported tags, every row whose series range holds the tag's series
 * has the offset and size that offsetof()/sizeof() gave on that tag's headers
 * (tests/rm/fixtures/ctrl-offsets/TAG.txt, derived by scripts/rm-derive-offsets.sh from
 * NVIDIA/open-gpu-kernel-modules), and every fact of the file has its row. Each series of
 * the driver-version table (layout.c) has every field except those a series lacks by
 * design, and each row cites a tag of its own series range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2ps_test.h"
#include "p2pscope/rm.h"
#include "p2pscope/rm_ctrl.h"

static const char *const tags[] = {"550.40.07", "550.163.01", "570.86.15", "570.211.01",
                                   "575.51.02", "575.64.05",  "580.65.06", "580.142",
                                   "590.48.01", "595.45.04"};

static void check_tag(const char *tag)
{
	char rel[128], line[512];
	snprintf(rel, sizeof(rel), "tests/rm/fixtures/ctrl-offsets/%s.txt", tag);
	FILE *f = fopen(p2ps_test_src_path(rel), "r");
	assert_non_null(f);
	unsigned major = (unsigned)strtoul(tag, NULL, 10);
	bool seen[256] = {false};
	assert_true(p2ps_rm_field_count() <= 256);
	unsigned facts = 0;
	while (fgets(line, sizeof(line), f)) {
		char type[128], member[128];
		unsigned off, size;
		if (line[0] == '#' ||
		    sscanf(line, "%127s %127s %u %u", type, member, &off, &size) != 4)
			continue;
		facts++;
		bool found = false;
		for (size_t i = 0; i < p2ps_rm_field_count(); i++) {
			const struct p2ps_rm_field *r = p2ps_rm_field_at(i);
			if (strcmp(r->type, type) || strcmp(r->field, member) || major < r->first ||
			    major > r->last)
				continue;
			if (r->offset != off || r->size != size)
				fail_msg(
				        "%s: %s.%s at %u size %u in the headers, %u/%u in fields.c",
				        tag, type, member, off, size, r->offset, r->size);
			found = seen[i] = true;
		}
		if (!found)
			fail_msg("%s: %s.%s has no row for series %u", tag, type, member, major);
	}
	fclose(f);
	assert_true(facts > 80);
	/* Every row of this series was derived for this tag. */
	for (size_t i = 0; i < p2ps_rm_field_count(); i++) {
		const struct p2ps_rm_field *r = p2ps_rm_field_at(i);
		if (r->first <= major && major <= r->last && !seen[i])
			fail_msg("%s: row %s.%s (series %u-%u) is not in the derived facts", tag,
			         r->type, r->field, r->first, r->last);
	}
}

static void test_tags(void **state)
{
	(void)state;
	for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++)
		check_tag(tags[t]);
}

/* Fields a series may lack: STATIC_BAR1_INFO before 570, NV503B's fabric info before 590. */
static bool optional(enum p2ps_rm_fid id, unsigned major)
{
	if (id >= P2PS_RMF_SBAR1_SIZE && id <= P2PS_RMF_SBAR1_BYTES)
		return major < 570;
	return id == P2PS_RMF_P2POBJ_P2L_FABRIC && major < 590;
}

static void test_series_complete(void **state)
{
	(void)state;
	for (size_t s = 0; s < p2ps_rm_layout_count(); s++) {
		unsigned major = p2ps_rm_layout_at(s)->major;
		for (int id = 0; id < P2PS_RMF_COUNT; id++) {
			const struct p2ps_rm_field *r =
			        p2ps_rm_field_find(major, (enum p2ps_rm_fid)id);
			if (!r && !optional((enum p2ps_rm_fid)id, major))
				fail_msg("series %u has no row for field %d", major, id);
			if (r && optional((enum p2ps_rm_fid)id, major))
				fail_msg("series %u has field %d, which it lacks", major, id);
		}
	}
	/* Rows of one field never overlap, and each cites a tag of its own range. */
	for (size_t i = 0; i < p2ps_rm_field_count(); i++) {
		const struct p2ps_rm_field *a = p2ps_rm_field_at(i);
		unsigned tag_major = (unsigned)strtoul(a->tag, NULL, 10);
		assert_true(a->first <= tag_major && tag_major <= a->last);
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
	        cmocka_unit_test(test_series_complete),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
