/* SPDX-License-Identifier: MIT */
/* The NVIDIA driver table (src/gmmu/nvidia_drivers.c): every row complete and its tags well
 * formed and derived (each has its RM facts file, which scripts/rm-derive-offsets.sh only
 * writes for a tag the mirror has), each series with an RM layout or a reason, the fallback
 * rule, the version parser (table-driven, bad inputs rejected), the P2P vocabulary and the
 * known defects. Cases are written against the table (its newest row, its oldest), so a new
 * row needs no change here (ctest driver_new_series).
 *
 * With --markdown it prints the series x flavor table of docs/bar-inspect.md
 * (tests/drivers/doc_table.sh compares them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2ps_test.h"
#include "p2pscope/nvidia_drivers.h"

static const struct p2ps_nv_driver *table(size_t *n)
{
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(n);
	assert_true(*n >= 10);
	return t;
}

/* Whether the facts file of tag exists and says it was derived from that tag. */
static bool derived(const char *tag)
{
	char rel[96], want[160], line[256] = "";
	snprintf(rel, sizeof(rel), "tests/rm/fixtures/ctrl-offsets/%s.txt", tag);
	FILE *f = fopen(p2ps_test_src_path(rel), "r");
	if (!f)
		return false;
	bool ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	snprintf(want, sizeof(want), "from NVIDIA/open-gpu-kernel-modules tag %s:", tag);
	return ok && strstr(line, want);
}

static void row_tags(const struct p2ps_nv_driver *r)
{
	size_t k = 0;
	for (; k < P2PS_NV_MAX_TAGS && r->tags[k]; k++) {
		struct p2ps_nv_version v;
		if (p2ps_nv_version_parse(r->tags[k], &v) != P2PS_NV_VERSION_OK || v.parts < 2 ||
		    v.has_flavor || v.series != r->series)
			fail_msg("%u: tag '%s' is no release of its series", r->series, r->tags[k]);
		if (!derived(r->tags[k]))
			fail_msg("%u: tag %s has no facts file derived from it", r->series,
			         r->tags[k]);
	}
	if (r->flavor == P2PS_NV_FLAVOR_STOCK && (k || r->rm)) {
		assert_true(k >= 1);
		assert_string_equal(r->ref, r->tags[0]);
	} else if (r->flavor == P2PS_NV_FLAVOR_STOCK) {
		/* A series with no stored tree: its release, no RM layout, and the row says
		 * which columns it assumed. */
		struct p2ps_nv_version v;
		assert_int_equal(p2ps_nv_version_parse(r->ref, &v), P2PS_NV_VERSION_OK);
		assert_true(v.parts == 3 && v.series == r->series && !v.has_flavor);
		assert_non_null(r->rm_why);
		assert_non_null(r->assumed);
	} else {
		/* A fork's ref is its branch (VERSION-p2p, VERSION-p2p-48g: naming the row's
		 * flavor), or a port named by its PRs or commit. */
		struct p2ps_nv_version v;
		assert_true((p2ps_nv_version_parse(r->ref, &v) == P2PS_NV_VERSION_OK &&
		             v.has_flavor && v.series == r->series && v.flavor == r->flavor) ||
		            strstr(r->ref, "PR") || strstr(r->ref, "commit"));
	}
}

static void row_sources(const struct p2ps_nv_driver *r)
{
	assert_non_null(r->sources);
	for (int g = 0; g < P2PS_NV_SRC_COUNT; g++) {
		const struct p2ps_nv_source *s = &r->sources[g];
		bool needed = g <= P2PS_NV_SRC_BAR1_HAL ||
		              (g == P2PS_NV_SRC_PATCH && r->patch_override >= 0) ||
		              (g == P2PS_NV_SRC_RM && r->rm) ||
		              (g == P2PS_NV_SRC_BAR1_ENTRY && r->bar1 != P2PS_NV_BAR1_NONE);
		if (needed && (!s->file || !s->file[0] || !s->function || !s->function[0]))
			fail_msg("%u %s: no source for its %s columns", r->series,
			         p2ps_nv_flavor_name(r->flavor),
			         p2ps_nv_column_group_name((enum p2ps_nv_column_group)g));
	}
}

static void row_columns(const struct p2ps_nv_driver *r)
{
	assert_true(r->series >= 100 && r->series <= 9999);
	assert_true((unsigned)r->flavor < P2PS_NV_FLAVOR_COUNT);
	assert_true(r->ref && r->ref[0]);
	assert_int_equal(r->gates & ~(unsigned)P2PS_NV_OPTIONAL_GATES, 0);
	assert_true(r->sb_default <= P2PS_NV_SB_NONE);
	assert_true((unsigned)r->sb_auto < P2PS_NV_AUTO_COUNT);
	assert_true(r->bar1_hal_min >= P2PS_NV_GEN_TURING && r->bar1_hal_min < P2PS_NV_GEN_COUNT);
	assert_true(r->patch_override >= -1 && r->patch_force >= -1 && r->patch_pcie_type >= -1);
	/* RMForceP2PType's values are distinct where the series has them. */
	const uint8_t ft[] = {r->ft_bar1, r->ft_pcie, r->ft_nvlink, r->ft_c2c};
	for (size_t i = 0; i < sizeof(ft); i++)
		for (size_t j = i + 1; j < sizeof(ft); j++)
			assert_true(!ft[i] || ft[i] != ft[j]);
	/* Which RMForceP2PType values a check compares with (nvrm_registry.h): BAR1P2P where
	 * the BAR1 path needs it (550.54.15 .. 570.86.15, which have no PCIEP2P), PCIEP2P where
	 * it takes that instead (575.51.02+, which have no BAR1P2P); C2C's where the series
	 * checks C2C (_kgetP2PCapsStatusOverC2C, 580.65.06+); NVLink's in every series. */
	assert_int_equal(r->ft_bar1 != 0, r->bar1_needs_force);
	assert_int_equal(r->ft_pcie != 0, !r->bar1_needs_force);
	assert_int_equal(r->ft_c2c != 0, (r->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_NO_C2C)) != 0);
	assert_true(r->ft_nvlink != 0);
	/* RMForceStaticBar1 and its default come together (565.57.01); the BAR1-by-default
	 * gate reads RMPcieP2PType, which exists from 575.51.02. */
	assert_int_equal(r->static_bar1_key, r->sb_default != P2PS_NV_SB_NONE);
	if (r->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_BY_DEFAULT))
		assert_true(r->pcie_type_key);
	/* RMPcieP2PType (and pcieP2PType, which a patch can set) came with the BAR1 path that
	 * reads it instead of forceP2PType (575.51.02). */
	assert_int_equal(r->pcie_type_key, !r->bar1_needs_force);
	if (r->patch_pcie_type >= 0)
		assert_true(r->pcie_type_key);
	/* The BAR1-P2P era is the row's flavor's, or none. */
	assert_true(r->bar1 == P2PS_NV_BAR1_NONE || p2ps_nv_bar1_era_flavor(r->bar1) == r->flavor);
}

static void rows_complete(void **state)
{
	(void)state;
	size_t n;
	const struct p2ps_nv_driver *t = table(&n);
	for (size_t i = 0; i < n; i++) {
		row_columns(&t[i]);
		row_tags(&t[i]);
		row_sources(&t[i]);
		for (size_t j = i + 1; j < n; j++)
			assert_false(t[i].series == t[j].series && t[i].flavor == t[j].flavor);
		assert_ptr_equal(p2ps_nv_driver_exact(t[i].series, t[i].flavor), &t[i]);
	}
}

/* Each series has an RM layout or says why not: a stock row holds one, a fork's row points
 * at the stock row of its series, which must hold one. */
static void rm_layouts(void **state)
{
	(void)state;
	size_t n;
	const struct p2ps_nv_driver *t = table(&n);
	for (size_t i = 0; i < n; i++) {
		const struct p2ps_nv_driver *r = &t[i];
		if (!r->rm) {
			assert_true(r->rm_why && r->rm_why[0]);
			const struct p2ps_nv_driver *s =
			        p2ps_nv_driver_exact(r->series, P2PS_NV_FLAVOR_STOCK);
			/* (a fork of a series without a stock row, or whose stock row says why it
			 * has no layout: the RM client refuses the series, as it refuses stock's)
			 */
			if (r->flavor != P2PS_NV_FLAVOR_STOCK && s && !s->rm &&
			    !(s->rm_why && s->rm_why[0]))
				fail_msg("%u %s: no stock row with a layout for the RM client",
				         r->series, p2ps_nv_flavor_name(r->flavor));
			continue;
		}
		assert_int_equal(r->flavor, P2PS_NV_FLAVOR_STOCK);
		assert_true(r->rm->era < P2PS_NV_RM_ERA_COUNT);
		assert_true(r->rm->nvos46_dma_offset < r->rm->nvos46_status &&
		            r->rm->nvos46_status < r->rm->nvos46_size);
		assert_true(r->rm->vaspace_size && r->rm->p2p_size);
	}
	/* Eras run with the series: a newer series never has an older era. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (t[i].rm && t[j].rm && t[i].series < t[j].series)
				assert_true(t[i].rm->era <= t[j].rm->era);
}

/* The newest and oldest row of a flavor, from the table itself. */
static const struct p2ps_nv_driver *edge(enum p2ps_nv_flavor f, bool newest)
{
	size_t n;
	const struct p2ps_nv_driver *t = table(&n), *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (t[i].flavor == f &&
		    (!best || (newest ? t[i].series > best->series : t[i].series < best->series)))
			best = &t[i];
	assert_non_null(best);
	return best;
}

static void fallback_rule(void **state)
{
	(void)state;
	bool exact;
	char buf[224];
	for (int f = 0; f < P2PS_NV_FLAVOR_COUNT; f++) {
		const struct p2ps_nv_driver *hi = edge((enum p2ps_nv_flavor)f, true);
		const struct p2ps_nv_driver *lo = edge((enum p2ps_nv_flavor)f, false);
		/* Its own row: exact. */
		assert_ptr_equal(p2ps_nv_driver_find(hi->series, hi->flavor, &exact), hi);
		assert_true(exact);
		/* Newer than every row: the newest, assumed, said so. */
		assert_ptr_equal(p2ps_nv_driver_find(hi->series + 7, hi->flavor, &exact), hi);
		assert_false(exact);
		p2ps_nv_driver_assumed(hi->series + 7, hi->flavor, hi, buf, sizeof(buf));
		assert_non_null(strstr(buf, "(assumed)"));
		assert_non_null(strstr(buf, hi->ref));
		assert_non_null(strstr(buf, "the newest"));
		assert_non_null(strstr(buf, "not newer than it"));
		/* Older than every row: the oldest, assumed. */
		assert_ptr_equal(p2ps_nv_driver_find(lo->series - 1, lo->flavor, &exact), lo);
		assert_false(exact);
		p2ps_nv_driver_assumed(lo->series - 1, lo->flavor, lo, buf, sizeof(buf));
		assert_non_null(strstr(buf, "the oldest"));
		assert_non_null(strstr(buf, "(assumed)"));
		/* No series known: the newest. */
		assert_ptr_equal(p2ps_nv_driver_find(P2PS_NV_SERIES_NONE, lo->flavor, &exact), hi);
		assert_false(exact);
	}
	/* Between two rows: the one not newer (565 tinygrad for 570; 595 for 596). */
	const struct p2ps_nv_driver *r = p2ps_nv_driver_find(570, P2PS_NV_FLAVOR_TINYGRAD, &exact);
	assert_int_equal(r->series, 565);
	assert_int_equal(r->flavor, P2PS_NV_FLAVOR_TINYGRAD);
	assert_false(exact);
	assert_int_equal(p2ps_nv_driver_find(596, P2PS_NV_FLAVOR_STOCK, &exact)->series, 595);
	/* A flavor without rows takes its parent's (stock). */
	r = p2ps_nv_driver_find(580, P2PS_NV_FLAVOR_COUNT, &exact);
	assert_int_equal(r->flavor, P2PS_NV_FLAVOR_STOCK);
	assert_int_equal(r->series, 580);
	assert_false(exact);
	/* The reference row and the patch flavors exist. */
	assert_non_null(p2ps_nv_driver_reference());
	assert_int_not_equal(p2ps_nv_patch_flavor(570), P2PS_NV_FLAVOR_STOCK);
}

static void version_parser(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		enum p2ps_nv_version_error rc;
		unsigned series, minor, patch;
		int parts;
		const char *text;
		int flavor; /* -1: none */
	} cases[] = {
	        {"580.159.04", P2PS_NV_VERSION_OK, 580, 159, 4, 3, "580.159.04", -1},
	        {"550.54", P2PS_NV_VERSION_OK, 550, 54, 0, 2, "550.54", -1},
	        {"580", P2PS_NV_VERSION_OK, 580, 0, 0, 1, "580", -1},
	        /* "-p2p" is tinygrad's branch naming up to its last branch (565.57.01-p2p),
	         * aikitoria's after (570.86.16-p2p .. 615.71.09-p2p); Method 3 branches end
	         * in -p2p-48g (Duanyll 595.71.05-p2p-48g, LingzheZhao 610.57.04-p2p-48g) or
	         * -p2p-3080-20g; aikitoria's 610.57.04-p2p-v3. */
	        {"595.71.05-p2p", P2PS_NV_VERSION_OK, 595, 71, 5, 3, "595.71.05",
	         P2PS_NV_FLAVOR_AIKITORIA},
	        {"565.57.01-p2p", P2PS_NV_VERSION_OK, 565, 57, 1, 3, "565.57.01",
	         P2PS_NV_FLAVOR_TINYGRAD},
	        {"610.57.04-p2p-48g", P2PS_NV_VERSION_OK, 610, 57, 4, 3, "610.57.04",
	         P2PS_NV_FLAVOR_DUANYLL},
	        {"615.71.09-p2p-3080-20g", P2PS_NV_VERSION_OK, 615, 71, 9, 3, "615.71.09",
	         P2PS_NV_FLAVOR_DUANYLL},
	        {"610.57.04-P2P-V3", P2PS_NV_VERSION_OK, 610, 57, 4, 3, "610.57.04",
	         P2PS_NV_FLAVOR_AIKITORIA},
	        {"610-duanyll", P2PS_NV_VERSION_OK, 610, 0, 0, 1, "610", P2PS_NV_FLAVOR_DUANYLL},
	        {"610.57.04-p2p-49g", P2PS_NV_VERSION_FLAVOR, 0, 0, 0, 0, "", -1},
	        {"565-tinygrad", P2PS_NV_VERSION_OK, 565, 0, 0, 1, "565", P2PS_NV_FLAVOR_TINYGRAD},
	        {"590.44.01-AIKITORIA", P2PS_NV_VERSION_OK, 590, 44, 1, 3, "590.44.01",
	         P2PS_NV_FLAVOR_AIKITORIA},
	        {"1000.1.1", P2PS_NV_VERSION_OK, 1000, 1, 1, 3, "1000.1.1", -1},
	        {"58", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"58x", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"099", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"58000", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"-580", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {" 580", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"580x", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"580.", P2PS_NV_VERSION_MALFORMED, 0, 0, 0, 0, "", -1},
	        {"580.1x", P2PS_NV_VERSION_MALFORMED, 0, 0, 0, 0, "", -1},
	        {"580.12345", P2PS_NV_VERSION_MALFORMED, 0, 0, 0, 0, "", -1},
	        {"580.1.2.3", P2PS_NV_VERSION_MALFORMED, 0, 0, 0, 0, "", -1},
	        {"580 ", P2PS_NV_VERSION_NO_SERIES, 0, 0, 0, 0, "", -1},
	        {"580.1 ", P2PS_NV_VERSION_MALFORMED, 0, 0, 0, 0, "", -1},
	        {"580-", P2PS_NV_VERSION_FLAVOR, 0, 0, 0, 0, "", -1},
	        {"580-nvidia", P2PS_NV_VERSION_FLAVOR, 0, 0, 0, 0, "", -1},
	        {"580-stock-p2p", P2PS_NV_VERSION_FLAVOR, 0, 0, 0, 0, "", -1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct p2ps_nv_version v;
		enum p2ps_nv_version_error rc = p2ps_nv_version_parse(cases[i].s, &v);
		if (rc != cases[i].rc)
			fail_msg("'%s': %d, wanted %d", cases[i].s, rc, cases[i].rc);
		if (rc)
			continue;
		assert_int_equal(v.series, cases[i].series);
		assert_int_equal(v.minor, cases[i].minor);
		assert_int_equal(v.patch, cases[i].patch);
		assert_int_equal(v.parts, cases[i].parts);
		assert_string_equal(v.text, cases[i].text);
		assert_int_equal(v.has_flavor, cases[i].flavor >= 0);
		if (cases[i].flavor >= 0)
			assert_int_equal(v.flavor, cases[i].flavor);
	}
	assert_int_equal(p2ps_nv_version_parse(NULL, &(struct p2ps_nv_version){0}),
	                 P2PS_NV_VERSION_NO_SERIES);
	/* The scanner takes the version at the start and leaves the rest. */
	struct p2ps_nv_version v;
	assert_int_equal(p2ps_nv_version_scan("580.159.04  Release Build", &v), 10);
	assert_int_equal(p2ps_nv_version_scan("570.86.16-p2p", &v), 9);
	assert_int_equal(p2ps_nv_version_scan("x580", &v), 0);
	assert_int_equal(p2ps_nv_version_scan(NULL, &v), 0);
}

static void vocabulary(void **state)
{
	(void)state;
	/* ctrl0000system.h (550.40.07 .. 595.45.04): 0..5; UNKNOWN is none of them. */
	static const char *const names[] = {"OK",
	                                    "CHIPSET_NOT_SUPPORTED",
	                                    "GPU_NOT_SUPPORTED",
	                                    "IOH_TOPOLOGY_NOT_SUPPORTED",
	                                    "DISABLED_BY_REGKEY",
	                                    "NOT_SUPPORTED"};
	static const char *const codes[] = {"OK", "CNS", "GNS", "TNS", "DR", "NS"};
	enum p2ps_nv_status st;
	for (unsigned v = 0; v < 6; v++) {
		assert_true(p2ps_nv_status_is_driver(v));
		assert_string_equal(p2ps_nv_status_name(v), names[v]);
		assert_string_equal(p2ps_nv_status_code(v), codes[v]);
		assert_int_equal(p2ps_nv_status_parse(names[v], &st), 0);
		assert_int_equal(st, v);
		assert_int_equal(p2ps_nv_status_from_code(codes[v], &st), 0);
		assert_int_equal(st, v);
	}
	assert_false(p2ps_nv_status_is_driver(P2PS_NV_ST_UNKNOWN));
	assert_string_equal(p2ps_nv_status_name(P2PS_NV_ST_UNKNOWN), "UNKNOWN");
	assert_string_equal(p2ps_nv_status_code(P2PS_NV_ST_UNKNOWN), "U");
	assert_string_equal(p2ps_nv_status_name(6), "?"); /* no driver value 6 */
	assert_string_equal(p2ps_nv_status_code(6), "U");
	assert_int_equal(p2ps_nv_status_parse("IOH", &st), 0);
	assert_int_equal(st, P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED);
	assert_int_equal(p2ps_nv_status_from_code("NOT_SUPPORTED", &st), -1);
	assert_int_equal(p2ps_nv_status_parse("maybe", &st), -1);
	assert_int_equal(p2ps_nv_status_parse(NULL, &st), -1);
	/* NV0000_CTRL_P2P_CAPS_INDEX_* and P2P_CONNECTIVITY_*. */
	assert_string_equal(p2ps_nv_caps_index_name(P2PS_NV_CAPS_PCI_BAR1), "pci_bar1");
	assert_string_equal(p2ps_nv_caps_index_name(P2PS_NV_CAPS_COUNT), "?");
	assert_string_equal(p2ps_nv_path_name(P2PS_NV_PATH_PCIE_BAR1), "pcie_bar1");
	assert_string_equal(p2ps_nv_path_name(P2PS_NV_PATH_NONE), "none");
	for (unsigned g = 0; g < P2PS_NV_GATE_COUNT; g++) {
		assert_true(p2ps_nv_gate_name(g)[0] && strcmp(p2ps_nv_gate_name(g), "?"));
		assert_true(g == P2PS_NV_GATE_NONE || p2ps_nv_gate_source(g)[0]);
	}
	/* Flavors: names parse back, a fork has a parent, props have names. */
	for (int f = 0; f < P2PS_NV_FLAVOR_COUNT; f++) {
		enum p2ps_nv_flavor got;
		const char *name = p2ps_nv_flavor_name((enum p2ps_nv_flavor)f);
		assert_int_equal(p2ps_nv_flavor_parse(name, strlen(name), &got, NULL), 0);
		assert_int_equal(got, f);
		assert_true(p2ps_nv_flavor_row((enum p2ps_nv_flavor)f)->parent <
		            P2PS_NV_FLAVOR_COUNT);
	}
	struct p2ps_error e = {0};
	enum p2ps_nv_flavor got;
	assert_int_equal(p2ps_nv_flavor_parse("nvidia", 6, &got, &e), P2PS_EINVAL);
	assert_string_equal(e.msg, "unknown flavor 'nvidia' (stock, tinygrad, aikitoria, duanyll)");
	for (unsigned b = 0; b < P2PS_NV_FP_COUNT; b++)
		assert_non_null(p2ps_nv_flavor_prop_name(b));
	assert_null(p2ps_nv_flavor_prop_name(P2PS_NV_FP_COUNT));
}

/* The bus HAL's chip lists by series, as NVIDIA/open-gpu-kernel-modules'
 * src/nvidia/generated/g_kern_bus_nvoc.c has them: the dispatch of
 * kbusIsPcieBar1P2PMappingSupported to _GH100 (__nvoc_init_funcTable_KernelBus), the
 * property PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT and the field bBar1Disabled
 * (__nvoc_init_dataField_KernelBus), at 595.45.04 and at 615.71.09 (commit
 * 61dcc93722ecb418bb5f2e00923f05b4b8051dd1: "ChipHal: GB202 | GB203 | GB205 | GB206 | GB207
 * | GB20B | GB20C | GR100 | GR102" and "ChipHal: GB10B | GB10C | GB20B | GB20C"). */
static void chip_lists(void **state)
{
	(void)state;
	enum { HAL = P2PS_NV_LIST_BAR1_HAL, DEF = P2PS_NV_LIST_BAR1_BY_DEFAULT };
	enum { DIS = P2PS_NV_LIST_BAR1_DISABLED };
	static const struct {
		int list;
		const char *chip;
		bool at595, at615;
	} cases[] = {
	        {HAL, "GH100", true, true},   {HAL, "GB100", true, true},
	        {HAL, "GB10B", true, true},   {HAL, "GB202", true, true},
	        {HAL, "GB20C", true, true},   {HAL, "GB10C", false, true},
	        {HAL, "GR100", false, true},  {HAL, "GR102", false, true},
	        {HAL, "AD102", false, false}, {HAL, "TU102", false, false},
	        {DEF, "GB202", true, true},   {DEF, "GB207", true, true},
	        {DEF, "GB20B", true, true},   {DEF, "GB20C", true, true},
	        {DEF, "GR100", false, true},  {DEF, "GR102", false, true},
	        {DEF, "GB10C", false, false}, {DEF, "GB100", false, false},
	        {DEF, "GH100", false, false}, {DEF, "GB10B", false, false},
	        {DIS, "GB10B", true, true},   {DIS, "GB20B", true, true},
	        {DIS, "GB20C", true, true},   {DIS, "GB10C", false, true},
	        {DIS, "GR100", false, false}, {DIS, "GB202", false, false},
	        {DIS, "GH100", false, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum p2ps_nv_chip_list l = (enum p2ps_nv_chip_list)cases[i].list;
		bool a = p2ps_nv_chip_listed(l, 595, cases[i].chip);
		bool b = p2ps_nv_chip_listed(l, 615, cases[i].chip);
		if (a != cases[i].at595 || b != cases[i].at615)
			fail_msg("%s %s: 595 %d, 615 %d", p2ps_nv_chip_list_name(l), cases[i].chip,
			         a, b);
	}
	/* A series without its own list takes the newest one not newer than it; none before
	 * the first (BAR1 P2P by default came with 590.44.01). */
	assert_true(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_BY_DEFAULT, 610, "GB202"));
	assert_false(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_BY_DEFAULT, 610, "GR100"));
	assert_true(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_BY_DEFAULT, 620, "GR102"));
	assert_null(p2ps_nv_chip_list_of(P2PS_NV_LIST_BAR1_BY_DEFAULT, 580));
	assert_false(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_BY_DEFAULT, 580, "GB202"));
	/* Names match whole and without case; nothing matches a prefix or NULL. */
	assert_true(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_HAL, 615, "gr100"));
	assert_false(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_HAL, 615, "GB10"));
	assert_false(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_HAL, 615, "GR1000"));
	assert_false(p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_HAL, 615, NULL));
	assert_string_equal(p2ps_nv_chip_list_name(P2PS_NV_LIST_BAR1_DISABLED), "bar1_disabled");
	assert_string_equal(p2ps_nv_chip_list_name(P2PS_NV_LIST_COUNT), "?");
	/* Every row: a source, and chips of the chip table, each followed by one space. */
	for (size_t i = 0; i < p2ps_nv_chip_list_count(); i++) {
		const struct p2ps_nv_chip_list_row *r = p2ps_nv_chip_list_at(i);
		assert_true(r->source && strstr(r->source, "g_kern_bus_nvoc.c"));
		size_t n = strlen(r->chips);
		assert_true(n > 0 && r->chips[n - 1] == ' ' && !strstr(r->chips, "  "));
		for (const char *c = r->chips; *c; c += strcspn(c, " ") + 1) {
			char name[16];
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(c, " "), c);
			if (!p2ps_nvidia_chip_find(name))
				fail_msg("%s list: %s is not in the chip table",
				         p2ps_nv_chip_list_name(r->list), name);
		}
	}
	assert_null(p2ps_nv_chip_list_at(p2ps_nv_chip_list_count()));
	/* The gate that reads bBar1Disabled is optional, named, and cites the field. */
	assert_true(P2PS_NV_OPTIONAL_GATES & P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_DISABLED));
	assert_string_equal(p2ps_nv_gate_name(P2PS_NV_GATE_BAR1_DISABLED), "bar1_disabled");
	assert_non_null(strstr(p2ps_nv_gate_source(P2PS_NV_GATE_BAR1_DISABLED), "bBar1Disabled"));
}

/* The GPUDirect RDMA guide, 4.2 ("Changes in CUDA 12.2"): R515 up to R535 race, except R525
 * from 525.105.17 and R535 from 535.14. */
static void defects(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		bool affected;
	} cases[] = {{"515.43.04", true},   {"525.105.16", true}, {"525.105.17", false},
	             {"530.30.02", true},   {"535.13.99", true},  {"535.14", false},
	             {"535.104.05", false}, {"510.47.03", false}, {"550.54.15", false}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct p2ps_nv_version v;
		assert_true(p2ps_nv_version_scan(cases[i].v, &v) > 0);
		bool hit = false;
		for (size_t k = 0; k < p2ps_nv_defect_count(); k++) {
			const struct p2ps_nv_defect *d = p2ps_nv_defect_at(k);
			assert_true(d->what && d->fix && d->source && d->first <= d->last);
			hit |= d->id == P2PS_NV_DEFECT_GDR_PUT_PAGES_RACE &&
			       p2ps_nv_defect_affects(d, &v);
		}
		if (hit != cases[i].affected)
			fail_msg("%s: affected %d, wanted %d", cases[i].v, hit, cases[i].affected);
	}
	assert_null(p2ps_nv_defect_at(p2ps_nv_defect_count()));
}

/* A row's props are its flavor's or an ancestor's; each flavor's props are some row's. */
static void row_props(void **state)
{
	(void)state;
	size_t n;
	const struct p2ps_nv_driver *t = table(&n);
	unsigned used[P2PS_NV_FLAVOR_COUNT] = {0};
	for (size_t i = 0; i < n; i++) {
		unsigned allowed = 0;
		enum p2ps_nv_flavor f = t[i].flavor;
		for (int depth = 0; depth < P2PS_NV_FLAVOR_COUNT; depth++) {
			allowed |= p2ps_nv_flavor_row(f)->props;
			f = p2ps_nv_flavor_row(f)->parent;
		}
		if (t[i].props & ~allowed)
			fail_msg("%u %s: props 0x%x beyond its flavors' 0x%x", t[i].series,
			         p2ps_nv_flavor_name(t[i].flavor), t[i].props, allowed);
		used[t[i].flavor] |= t[i].props;
		/* an assumed column names the row it came from */
		assert_true(!t[i].assumed || strstr(t[i].assumed, "taken from"));
	}
	for (int f = 0; f < P2PS_NV_FLAVOR_COUNT; f++)
		assert_int_equal(p2ps_nv_flavor_row((enum p2ps_nv_flavor)f)->props & ~used[f], 0);
	assert_int_equal(p2ps_nv_flavor_row(P2PS_NV_FLAVOR_DUANYLL)->parent,
	                 P2PS_NV_FLAVOR_AIKITORIA);
}

/* The fork rows' columns from their branches. aikitoria 610.43.03-p2p: the display-aware
 * window (kern_bus_tu102.c at d682adc5, bar1_p2p_policy_test.c at 26e1ff53), iommu=pt and
 * cross-model P2P (README at 26e1ff53), RMP2PFbTailReserveMb (mem_mgr_gsp_client.c
 * _p2pApplyFbTailReserve at 3228cfd8), NVreg_ExperimentalDmaBufP2P (its validation note
 * nccl-same-host-gdr-transport-2026-08-06.md). LingzheZhao 610.57.04-p2p-48g: Method 3
 * (kern_bus_gh100.c), uvm_bar1_p2p_managed (kernel-open/nvidia-uvm/uvm_gpu.c at 29eae1b6).
 * Duanyll 595.71.05-p2p-48g: Method 3 without a module parameter (method3-impl-notes.md at
 * 12870848). */
static void fork_rows(void **state)
{
	(void)state;
	const struct p2ps_nv_driver *a = p2ps_nv_driver_exact(610, P2PS_NV_FLAVOR_AIKITORIA);
	assert_non_null(a);
	assert_string_equal(a->ref, "610.43.03-p2p");
	assert_true(a->props & P2PS_NV_FP_DISPLAY_PARTIAL_BAR1);
	assert_true(a->props & P2PS_NV_FP_NEEDS_IOMMU_PT);
	assert_true(a->props & P2PS_NV_FP_LIBCUDA_MIXED_GEN);
	assert_false(a->props & P2PS_NV_FP_BAR1_ON_DEMAND);
	assert_true(a->tail_reserve);
	assert_int_equal(a->patch_pcie_type, 1);
	assert_int_equal(a->bar1_hal_min, P2PS_NV_GEN_TURING);
	assert_string_equal(a->dmabuf_key, "ExperimentalDmaBufP2P");
	assert_null(a->uvm_managed_param);
	const struct p2ps_nv_driver *l = p2ps_nv_driver_exact(610, P2PS_NV_FLAVOR_DUANYLL);
	assert_non_null(l);
	assert_string_equal(l->ref, "610.57.04-p2p-48g");
	assert_true(l->props & P2PS_NV_FP_BAR1_ON_DEMAND);
	assert_string_equal(l->uvm_managed_param, "uvm_bar1_p2p_managed");
	const struct p2ps_nv_driver *d = p2ps_nv_driver_exact(595, P2PS_NV_FLAVOR_DUANYLL);
	assert_non_null(d);
	assert_true(d->props & P2PS_NV_FP_BAR1_ON_DEMAND);
	assert_null(d->uvm_managed_param);
	/* the 590 and 615 branches were not stored: every row taken from another says so */
	for (unsigned series = 590; series <= 615; series += 25) {
		const struct p2ps_nv_driver *r =
		        p2ps_nv_driver_exact(series, P2PS_NV_FLAVOR_AIKITORIA);
		assert_non_null(r);
		assert_non_null(r->assumed);
	}
	/* a Method 3 series without a row of its own: the newest not newer, then aikitoria */
	bool exact;
	assert_ptr_equal(p2ps_nv_driver_find(612, P2PS_NV_FLAVOR_DUANYLL, &exact), l);
	assert_false(exact);
	assert_int_equal(p2ps_nv_driver_find(590, P2PS_NV_FLAVOR_DUANYLL, &exact)->flavor,
	                 P2PS_NV_FLAVOR_DUANYLL); /* older than every row: its oldest */
}

/* Branch names in a build line: the longest suffix, at a word's end; nothing else. */
static void branch_names(void **state)
{
	(void)state;
	enum p2ps_nv_flavor f = P2PS_NV_FLAVOR_STOCK;
	const struct p2ps_nv_branch *b = p2ps_nv_branch_find(
	        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.57.04  Release Build "
	        " (root@n6:/src/open-gpu-kernel-modules-610.57.04-p2p-48g)",
	        610, &f);
	assert_non_null(b);
	assert_string_equal(b->suffix, "p2p-48g");
	assert_int_equal(f, P2PS_NV_FLAVOR_DUANYLL);
	assert_non_null(p2ps_nv_branch_find("/usr/src/nvidia-615.71.09-p2p/", 615, &f));
	assert_int_equal(f, P2PS_NV_FLAVOR_AIKITORIA);
	assert_non_null(p2ps_nv_branch_find("/usr/src/nvidia-565.57.01-p2p/", 565, &f));
	assert_int_equal(f, P2PS_NV_FLAVOR_TINYGRAD);
	assert_null(p2ps_nv_branch_find("NVIDIA UNIX Open Kernel Module  610.57.04  Release Build",
	                                610, &f));
	assert_null(p2ps_nv_branch_find("kernel-p2pmem 610.57.04", 610, &f));
	assert_null(p2ps_nv_branch_find("610.57.04-p2p-48gb", 610, &f));
	assert_null(p2ps_nv_branch_find(NULL, 610, &f));
	for (size_t i = 0; i < p2ps_nv_branch_count(); i++) {
		const struct p2ps_nv_branch *r = p2ps_nv_branch_at(i);
		assert_true(r->first <= r->last && r->suffix[0] && r->example[0]);
		assert_true((unsigned)r->flavor < P2PS_NV_FLAVOR_COUNT);
	}
	assert_null(p2ps_nv_branch_at(p2ps_nv_branch_count()));
}

/* ---- --markdown: docs/bar-inspect.md's table --------------------------------------------- */

static const char *const policies[] = {"DISABLE", "ENABLE", "AUTO", "ONLY_GPU", "no key"};
static const char *const autos[] = {"2 x FB", "FB + reserves", "FB + reserves, 512 MiB",
                                    "client FB + 512 MiB"};
static const char *const bar1_eras[] = {"not read",      "stock 550",      "stock 570",
                                        "stock 580",     "tinygrad 550",   "tinygrad 565",
                                        "aikitoria 570", "aikitoria port", "duanyll method 3"};
_Static_assert(sizeof(bar1_eras) / sizeof(bar1_eras[0]) == P2PS_NV_BAR1_ERA_COUNT,
               "one name per BAR1-P2P era");

/* The row's fork props ("display_partial_bar1, needs_iommu_pt") and the module parameters
 * it adds, into buf; "-" for none. */
static const char *props_text(const struct p2ps_nv_driver *r, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned b = 0; b < P2PS_NV_FP_COUNT; b++)
		if (r->props & (1u << b))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
			         p2ps_nv_flavor_prop_name(b));
	const char *keys[] = {r->tail_reserve ? "RMP2PFbTailReserveMb" : NULL, r->dmabuf_key,
	                      r->pcie_p2p_key, r->uvm_managed_param};
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (keys[k])
			snprintf(buf + strlen(buf), len - strlen(buf), "%s`%s`", buf[0] ? ", " : "",
			         keys[k]);
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

/* The stock rows after 595.45.04, from the driver's code:
 *   - p2p_caps.c _kp2pCapsGetStatusOverPcie: 595.45.04 asks GSP per pair
 *     (NV2080_CTRL_CMD_INTERNAL_GET_PCIE_P2P_CAPS); the 610.57.04 forks (LingzheZhao
 *     12c62bb6) check the chipset on the CPU (bPciePeerReadCapable/WriteCapable, common
 *     switch) and have no self-hosted gate; 615.71.09 (61dcc937) adds gpuIsSelfHosted after
 *     the ForceP2P override and gpuGetPcieP2PSkipChipsetCheck to the chipset check;
 *   - ctrl0000system.h NV0000_CTRL_SYSTEM_GET_CHIPSET_INFO_PARAMS: chipsetId after flags at
 *     615.71.09 (a new RM era); nvos.h and cl503b.h as 590's;
 *   - no NVIDIA 610 tree is stored: the 610 row has no RM layout and says what it assumed,
 *     as the 595 row does for 595.58.03 and 595.71.05. */
static void stock_after_595(void **state)
{
	(void)state;
	const unsigned sh = P2PS_NV_GATE_BIT(P2PS_NV_GATE_SELF_HOSTED),
	               cs = P2PS_NV_GATE_BIT(P2PS_NV_GATE_CHIPSET),
	               skip = P2PS_NV_GATE_BIT(P2PS_NV_GATE_CHIPSET_SKIP);
	const struct p2ps_nv_driver *r595 = p2ps_nv_driver_exact(595, P2PS_NV_FLAVOR_STOCK),
	                            *r610 = p2ps_nv_driver_exact(610, P2PS_NV_FLAVOR_STOCK),
	                            *r615 = p2ps_nv_driver_exact(615, P2PS_NV_FLAVOR_STOCK);
	assert_non_null(r595);
	assert_non_null(r610);
	assert_non_null(r615);
	assert_int_equal(r595->gates & (sh | cs | skip), 0);
	assert_int_equal(r610->gates & (sh | cs | skip), cs);
	assert_int_equal(r615->gates & (sh | cs | skip), sh | cs | skip);
	assert_non_null(strstr(r595->assumed, "595.71.05"));
	assert_null(r610->rm);
	assert_non_null(r610->assumed);
	assert_string_equal(r615->tags[0], "615.71.09");
	assert_int_equal(r615->rm->era, P2PS_NV_RM_615);
	assert_string_equal(p2ps_nv_rm_era_name(P2PS_NV_RM_615), "615");
	assert_int_equal(r615->rm->p2p_size, 88);
	assert_true(r615->rm->p2p_fabric_info);
	/* What did not change: the BAR1 path and static BAR1 rule of 595.45.04. */
	assert_int_equal(r615->sb_auto, P2PS_NV_AUTO_RESERVES_512M);
	assert_int_equal(r610->sb_auto, P2PS_NV_AUTO_RESERVES_512M);
	assert_true(r615->sb_start_512m && r615->iommu_512m && r615->bar1_map_first);
	assert_true(r610->sb_start_512m && r610->iommu_512m && r610->bar1_map_first);
	assert_int_equal(r615->bar1_hal_min, P2PS_NV_GEN_HOPPER);
	/* The gates' names and their sources' tags. */
	assert_string_equal(p2ps_nv_gate_name(P2PS_NV_GATE_SELF_HOSTED), "self_hosted");
	assert_non_null(strstr(p2ps_nv_gate_source(P2PS_NV_GATE_SELF_HOSTED), "615.71.09"));
	assert_non_null(strstr(p2ps_nv_gate_source(P2PS_NV_GATE_CHIPSET), "610.57.04"));
	assert_non_null(strstr(p2ps_nv_gate_source(P2PS_NV_GATE_CHIPSET_SKIP), "615.71.09"));
	/* Between 610 and 615 the rule picks 610's row, assumed. */
	bool exact;
	assert_ptr_equal(p2ps_nv_driver_find(612, P2PS_NV_FLAVOR_STOCK, &exact), r610);
	assert_false(exact);
	assert_ptr_equal(p2ps_nv_driver_find(610, P2PS_NV_FLAVOR_STOCK, &exact), r610);
	assert_true(exact);
}

static void markdown_row(const struct p2ps_nv_driver *r, int set)
{
	char tags[96] = "", props[192];
	for (size_t k = 0; k < P2PS_NV_MAX_TAGS && r->tags[k]; k++)
		snprintf(tags + strlen(tags), sizeof(tags) - strlen(tags), "%s%s", k ? ", " : "",
		         r->tags[k]);
	printf("| %u | %s | %s | %s | %s | %s | %s | %s | %s | %s | %c |\n", r->series,
	       p2ps_nv_flavor_name(r->flavor), r->ref, r->rm ? tags : "-",
	       r->rm ? p2ps_nv_rm_era_name(r->rm->era) : "stock's", policies[r->sb_default],
	       r->sb_default == P2PS_NV_SB_NONE ? "-" : autos[r->sb_auto], bar1_eras[r->bar1],
	       props_text(r, props, sizeof(props)), r->assumed ? r->assumed : "-", 'A' + set);
}

/* The distinct source lists, in the order rows first use them. */
static int source_set(const struct p2ps_nv_source **sets, int *n, const struct p2ps_nv_source *s)
{
	for (int i = 0; i < *n; i++)
		if (sets[i] == s)
			return i;
	sets[*n] = s;
	return (*n)++;
}

static void markdown_sources(const struct p2ps_nv_source *const *sets, int n)
{
	for (int i = 0; i < n; i++) {
		printf("\n**Sources %c** (paths in the flavor's repository):\n\n", 'A' + i);
		for (int g = 0; g < P2PS_NV_SRC_COUNT; g++)
			if (sets[i][g].file)
				printf("- %s: `%s`: %s\n",
				       p2ps_nv_column_group_name((enum p2ps_nv_column_group)g),
				       sets[i][g].file, sets[i][g].function);
	}
}

static int markdown(void)
{
	size_t n;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	const struct p2ps_nv_source *sets[16];
	int n_sets = 0;
	printf("| series | flavor | read at | RM layout verified at | RM era | static BAR1 "
	       "default | AUTO rule | BAR1-P2P era | fork props, parameters | assumed | "
	       "sources |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < n && n_sets < 16; i++)
		markdown_row(&t[i], source_set(sets, &n_sets, t[i].sources));
	markdown_sources(sets, n_sets);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--markdown"))
		return markdown();
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(rows_complete),   cmocka_unit_test(rm_layouts),
	        cmocka_unit_test(fallback_rule),   cmocka_unit_test(version_parser),
	        cmocka_unit_test(vocabulary),      cmocka_unit_test(defects),
	        cmocka_unit_test(chip_lists),      cmocka_unit_test(row_props),
	        cmocka_unit_test(fork_rows),       cmocka_unit_test(branch_names),
	        cmocka_unit_test(stock_after_595),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
