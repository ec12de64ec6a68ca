/* SPDX-License-Identifier: MIT */
/* libgmmu's tables against the facts extracted from NVIDIA's headers
 * (tests/gmmu/golden/, written by scripts/gmmu-golden.py), plus the structural rules every
 * table must keep: fields inside the entry, no overlap among the fields one aperture uses,
 * every bit named or known unnamed, fast-path masks equal to the rows. */
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

#define GOLDEN    "tests/gmmu/golden/dev_mmu-595.45.04.txt"
#define MAX_FACTS 4096

struct fact {
	char kind[8];
	char a[32];
	char b[96];
	long long v1, v2;
	char impl[3][16];
};

static struct fact facts[MAX_FACTS];
static size_t n_facts;

static int load_golden(void **state)
{
	(void)state;
	FILE *f = fopen(p2ps_test_src_path(GOLDEN), "r");
	if (!f)
		return -1;
	char line[256];
	n_facts = 0;
	while (fgets(line, sizeof(line), f) && n_facts < MAX_FACTS) {
		struct fact *x = &facts[n_facts];
		memset(x, 0, sizeof(*x));
		if (line[0] == '#')
			continue;
		if (sscanf(line, "field %31s %95s %lld %lld", x->a, x->b, &x->v1, &x->v2) == 4)
			strcpy(x->kind, "field");
		else if (sscanf(line, "value %31s %95s %lld", x->a, x->b, &x->v1) == 3)
			strcpy(x->kind, "value");
		else if (sscanf(line, "const %31s %95s %lld", x->a, x->b, &x->v1) == 3)
			strcpy(x->kind, "const");
		else if (sscanf(line, "chip %31s %15s %15s %15s", x->a, x->impl[0], x->impl[1],
		                x->impl[2]) == 4)
			strcpy(x->kind, "chip");
		else
			continue;
		n_facts++;
	}
	fclose(f);
	return n_facts > 100 ? 0 : -1;
}

static const struct fact *find_fact(const char *kind, const char *a, const char *b)
{
	for (size_t i = 0; i < n_facts; i++)
		if (!strcmp(facts[i].kind, kind) && !strcmp(facts[i].a, a) &&
		    !strcmp(facts[i].b, b))
			return &facts[i];
	return NULL;
}

/* Every field row's hi:lo is the header's, read from the header the row cites. */
static void fields_match_headers(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++) {
			const struct gmmu_entry_format *ef = f->entry[t];
			char name[96];
			for (size_t k = 0; k < ef->n_fields; k++) {
				const struct gmmu_field *fd = &ef->fields[k];
				snprintf(name, sizeof(name), "%s%s", ef->prefix, fd->name);
				const struct fact *x = find_fact("field", fd->source, name);
				if (!x)
					fail_msg("%s: %s not in %s", f->name, name, fd->source);
				assert_int_equal(fd->hi, x->v1);
				assert_int_equal(fd->lo, x->v2);
				checked++;
			}
			snprintf(name, sizeof(name), "%s_SIZE", ef->prefix); /* prefix ends in _ */
			const char *src = ef->fields[0].source;
			const struct fact *sz = find_fact("const", src, name);
			if (!sz)
				fail_msg("%s: %s not in %s", f->name, name, src);
			assert_int_equal(ef->size, sz->v1);
			snprintf(name, sizeof(name), "%sADDRESS_SHIFT", ef->prefix);
			const struct fact *sh = find_fact("const", src, name);
			assert_non_null(sh);
			assert_int_equal(ef->addr_shift, sh->v1);
			if (ef->type == GMMU_ENTRY_DUAL_PDE) {
				snprintf(name, sizeof(name), "%sADDRESS_BIG_SHIFT", ef->prefix);
				const struct fact *bs = find_fact("const", src, name);
				assert_non_null(bs);
				assert_int_equal(ef->addr_big_shift, bs->v1);
			}
		}
	}
	assert_true(checked > 60);
}

/* The partial headers of GV100 and TU102 repeat v2 PTE fields; they agree with the class the
 * chip maps to (COMPTAGLINE 53:36 on GV100, 55:36 on TU102). */
static void partial_headers_agree(void **state)
{
	(void)state;
	static const struct {
		const char *header, *chip;
	} pairs[] = {{"volta/gv100", "GV100"}, {"turing/tu102", "TU102"}};
	for (size_t p = 0; p < 2; p++) {
		const struct gmmu_entry_format *ef =
		        gmmu_format_entry(gt_chip(pairs[p].chip), GMMU_ENTRY_PTE);
		size_t seen = 0;
		for (size_t i = 0; i < n_facts; i++) {
			if (strcmp(facts[i].kind, "field") || strcmp(facts[i].a, pairs[p].header))
				continue;
			const char *nm = facts[i].b + strlen("NV_MMU_VER2_PTE_");
			const struct gmmu_field *fd = gmmu_field_find(ef, nm);
			assert_non_null(fd);
			assert_int_equal(fd->hi, facts[i].v1);
			assert_int_equal(fd->lo, facts[i].v2);
			seen++;
		}
		assert_int_equal(seen, 2); /* ADDRESS_VID and COMPTAGLINE */
	}
}

/* Named values: from the field's own defines, or for APERTURE and KIND (which the v2/v3
 * headers do not spell per version) the v1 names the driver encodes them with. */
static void values_match_headers(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++) {
			const struct gmmu_entry_format *ef = f->entry[t];
			for (size_t k = 0; k < ef->n_fields; k++) {
				const struct gmmu_field *fd = &ef->fields[k];
				if (fd->kind == GMMU_FIELD_BOOL)
					continue;
				const char *src =
				        fd->values_source ? fd->values_source : fd->source;
				const char *v1 = NULL;
				if (!strncmp(fd->name, "APERTURE", 8))
					v1 = t == GMMU_ENTRY_PTE ? "NV_MMU_PTE_APERTURE_"
					                         : "NV_MMU_PDE_APERTURE_BIG_";
				if (!strcmp(fd->name, "KIND"))
					v1 = "NV_MMU_PTE_KIND_";
				for (int inv = 0; inv < 2; inv++) {
					const struct gmmu_value *vals =
					        inv ? fd->values_invalid : fd->values;
					size_t n = inv ? fd->n_values_invalid : fd->n_values;
					for (size_t j = 0; j < n; j++) {
						char name[128];
						snprintf(name, sizeof(name), "%s%s_%s", ef->prefix,
						         fd->name, vals[j].name);
						const struct fact *x =
						        find_fact("value", src, name);
						if (!x && v1) {
							snprintf(name, sizeof(name), "%s%s", v1,
							         vals[j].name);
							x = find_fact("value", src, name);
						}
						if (!x)
							fail_msg("%s %s: value %s not in %s",
							         f->name, fd->name, vals[j].name,
							         src);
						assert_int_equal(vals[j].value, x->v1);
						checked++;
					}
				}
			}
		}
	}
	assert_true(checked > 100);
}

/* The HAL classes: PTE init, comptag-line init and level init together name the format. */
static const struct {
	const char *pte, *ctl, *levels, *format;
} classes[] = {
        {"GP10X", "TU10X", "GP10X", "v2-tu"},
        {"GP10X", "TU10X", "GA10X", "v2-ga"},
        {"GH10X", "none", "GH10X", "v3-gh"},
        {"GH10X", "none", "GB10X", "v3-gb"},
};

/* The chip map agrees with the HAL dispatch: PTE init, comptag-line init and level init
 * together name the class. */
static void chips_match_hal(void **state)
{
	(void)state;
	size_t hal_chips = 0;
	for (size_t i = 0; i < n_facts; i++) {
		const struct fact *x = &facts[i];
		if (strcmp(x->kind, "chip"))
			continue;
		const char *want = NULL;
		/* A HAL stub has a hash name (d44104 ...): it means "no comptag-line init". */
		const char *ctl = strcmp(x->impl[1], "TU10X") && strcmp(x->impl[1], "GP10X")
		                          ? "none"
		                          : x->impl[1];
		for (size_t c = 0; c < 4; c++)
			if (!strcmp(x->impl[0], classes[c].pte) && !strcmp(ctl, classes[c].ctl) &&
			    !strcmp(x->impl[2], classes[c].levels))
				want = classes[c].format;
		if (!want) {
			/* Only the display-only Tegra HALs have stub GMMU formats. */
			assert_true(strcmp(x->impl[0], "GP10X") && strcmp(x->impl[0], "GH10X"));
			assert_null(gmmu_chip_find(x->a));
			continue;
		}
		const struct gmmu_chip *chip = gmmu_chip_find(x->a);
		if (!chip)
			fail_msg("chip %s of the HAL is missing", x->a);
		assert_string_equal(chip->format->name, want);
		hal_chips++;
	}
	assert_int_equal(hal_chips, 29);
	/* Pascal/Volta are outside the current HAL: the gp100/gv100 comptag line (53:36). */
	assert_string_equal(gt_chip("GP100")->name, "v2-gp");
	assert_string_equal(gt_chip("GV100")->name, "v2-gp");
	assert_int_equal(gmmu_chip_count(), 39);
}

/* The chips 615.71.09 added (NVIDIA/open-gpu-kernel-modules commit
 * 61dcc93722ecb418bb5f2e00923f05b4b8051dd1), from src/nvidia/generated/g_kern_gmmu_nvoc.c
 * there: kgmmuFmtInitLevels gives GH100 _GH10X, TU10x _GP10X, GA10x/AD10x _GA10X and every
 * other chip (GB10C, GR100, GR102 among them) _GB10X; kgmmuFmtInitPte/Pde/PdeMulti give
 * every chip after AD10x _GH10X, with no comptag-line init. No dev_mmu.h of GR100/GR102 is
 * published (src/common/inc/swref/published/rubin/ there has none): their bits are the ones
 * the driver builds their entries from, hopper/gh100's NV_MMU_VER3_*, checked here against
 * the facts of that header (golden/dev_mmu-595.45.04.txt). */
static void chips_of_615(void **state)
{
	(void)state;
	static const char *const chips[] = {"GB10C", "GR100", "GR102"};
	static const char *const pte_fields[] = {"VALID", "APERTURE", "PCF",
	                                         "KIND",  "ADDRESS",  "PEER_ID"};
	const char *want = NULL;
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++)
		if (!strcmp(classes[c].pte, "GH10X") && !strcmp(classes[c].ctl, "none") &&
		    !strcmp(classes[c].levels, "GB10X"))
			want = classes[c].format;
	assert_non_null(want);
	for (size_t i = 0; i < sizeof(chips) / sizeof(chips[0]); i++) {
		const struct gmmu_chip *chip = gmmu_chip_find(chips[i]);
		assert_non_null(chip);
		assert_string_equal(chip->format->name, want);
		/* kgmmuFmtInitLevels_GB10X: 57-bit VA, 256 GB pages at PD2, 512 MB at PD1, 2 MB
		 * at PD0, 64 KB and 4 KB page tables. */
		const struct gmmu_format *f = chip->format;
		assert_int_equal(f->va_bits, 57);
		assert_string_equal(gmmu_level_for_page(f, 38)->name, "PD2");
		assert_string_equal(gmmu_level_for_page(f, 29)->name, "PD1");
		assert_string_equal(gmmu_level_for_page(f, 21)->name, "PD0");
		assert_string_equal(gmmu_level_for_page(f, 16)->name, "PT_BIG");
		assert_string_equal(gmmu_level_for_page(f, 12)->name, "PT_SMALL");
		const struct gmmu_entry_format *pte = gmmu_format_entry(f, GMMU_ENTRY_PTE);
		for (size_t k = 0; k < sizeof(pte_fields) / sizeof(pte_fields[0]); k++) {
			char name[64];
			snprintf(name, sizeof(name), "NV_MMU_VER3_PTE_%s", pte_fields[k]);
			const struct fact *x = find_fact("field", "hopper/gh100", name);
			const struct gmmu_field *fd = gmmu_field_find(pte, pte_fields[k]);
			assert_non_null(x);
			assert_non_null(fd);
			assert_int_equal(fd->hi, x->v1);
			assert_int_equal(fd->lo, x->v2);
		}
		const struct fact *size =
		        find_fact("const", "hopper/gh100", "NV_MMU_VER3_PTE__SIZE");
		assert_non_null(size);
		assert_int_equal(pte->size, size->v1);
	}
	/* Rubin's rows say that its header is not public; Blackwell's GB10C has its family's. */
	assert_non_null(strstr(gmmu_chip_find("GR100")->source, "no dev_mmu.h"));
	assert_non_null(gmmu_chip_find("GR102")->note);
	assert_null(gmmu_chip_find("GB10C")->note);
	assert_null(gmmu_chip_find("GB202")->note);
}

/* Fields fit the entry, never straddle a 64-bit word, DESC32 fields sit in one 32-bit word
 * (the driver's NV_FIELD_DESC32 rule) and address fields carry the entry's shift. */
static void fields_are_well_formed(void **state)
{
	(void)state;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++) {
			const struct gmmu_entry_format *ef = f->entry[t];
			assert_true(ef->n_fields <= GMMU_MAX_FIELDS);
			for (size_t k = 0; k < ef->n_fields; k++) {
				const struct gmmu_field *fd = &ef->fields[k];
				assert_true(fd->hi >= fd->lo);
				assert_true(fd->hi < ef->size * 8u);
				assert_int_equal(fd->hi / 64, fd->lo / 64);
				if (fd->setter == GMMU_SETTER_DESC32)
					assert_int_equal(fd->hi / 32, fd->lo / 32);
				if (fd->kind == GMMU_FIELD_ADDR) {
					assert_int_equal(fd->setter, GMMU_SETTER_DESC64);
					bool big = strstr(fd->name, "_BIG") != NULL;
					assert_int_equal(fd->addr_shift,
					                 big ? ef->addr_big_shift : ef->addr_shift);
				}
				assert_ptr_equal(gmmu_field_find(ef, fd->name), fd);
			}
		}
	}
}

/* For every aperture value, the fields in use do not overlap, and the bits nobody uses are
 * exactly the ones the headers leave unnamed (hand-listed from the headers). */
static void no_overlap_and_unnamed_bits(void **state)
{
	(void)state;
	static const struct {
		const char *format;
		enum gmmu_entry_type t;
		uint64_t unnamed[2]; /* bits no field of any aperture names */
	} expect[] = {
	        /* v2 PTE: 55:54 unnamed on GP (COMPTAGLINE ends at 53), none on TU+. */
	        {"v2-gp", GMMU_ENTRY_PTE, {0x00c0000000000000ull, 0}},
	        {"v2-tu", GMMU_ENTRY_PTE, {0, 0}},
	        /* v2 PDE of Pascal's header: bit 0, 7:4 and 63:54. */
	        {"v2-gp", GMMU_ENTRY_PDE, {0xffc00000000000f1ull, 0}},
	        /* v2 dual PDE of Pascal's header: bit 0, 63:54; second word bit 64, 71:68,
	         * 127:118. */
	        {"v2-gp", GMMU_ENTRY_DUAL_PDE, {0xffc0000000000001ull, 0xffc00000000000f1ull}},
	        /* Turing's header adds IS_PTE (0) and NO_ATS (5): 7:6, 4 and 63:54 remain. */
	        {"v2-tu", GMMU_ENTRY_PDE, {0xffc00000000000d0ull, 0}},
	        {"v2-ga", GMMU_ENTRY_PDE, {0xffc00000000000d0ull, 0}},
	        /* ... and in the dual PDE only 63:54 of the first word (4 is ADDRESS_BIG). */
	        {"v2-tu", GMMU_ENTRY_DUAL_PDE, {0xffc0000000000000ull, 0xffc00000000000f1ull}},
	        /* v3 PTE: 60:52. */
	        {"v3-gh", GMMU_ENTRY_PTE, {0x1ff0000000000000ull, 0}},
	        /* v3 PDE: 11:6 and 63:52. */
	        {"v3-gb", GMMU_ENTRY_PDE, {0xfff0000000000fc0ull, 0}},
	        /* v3 dual PDE: 7:6, 63:52; second word bit 64, 75:70, 127:116. */
	        {"v3-gb", GMMU_ENTRY_DUAL_PDE, {0xfff00000000000c0ull, 0xfff0000000000fc1ull}},
	};
	for (size_t e = 0; e < sizeof(expect) / sizeof(expect[0]); e++) {
		const struct gmmu_entry_format *ef =
		        gmmu_format_entry(gmmu_format_find(expect[e].format), expect[e].t);
		uint64_t named[2] = {0, 0};
		for (size_t k = 0; k < ef->n_fields; k++)
			for (unsigned w = 0; w < 2; w++)
				named[w] |= gt_field_bits(&ef->fields[k], w);
		uint64_t size_mask[2] = {~0ull, ef->size > 8 ? ~0ull : 0};
		for (unsigned w = 0; w < 2; w++)
			assert_int_equal(~named[w] & size_mask[w], expect[e].unnamed[w]);

		/* Per aperture value of each part, the fields in use are disjoint. */
		for (unsigned ap = 0; ap < 4; ap++) {
			uint64_t used[2] = {0, 0};
			for (size_t k = 0; k < ef->n_fields; k++) {
				const struct gmmu_field *fd = &ef->fields[k];
				if ((fd->flags & GMMU_FIELD_F_ALIAS) ||
				    !(fd->apertures & GMMU_APER_HW(ap)))
					continue;
				for (unsigned w = 0; w < 2; w++) {
					uint64_t b = gt_field_bits(fd, w);
					if (used[w] & b)
						fail_msg("%s %s aperture %u: %s overlaps",
						         expect[e].format,
						         gmmu_entry_type_name(expect[e].t), ap,
						         fd->name);
					used[w] |= b;
				}
			}
		}
	}
}

/* The fast-path extractors are the rows with the matching role. */
static void check_bits(const struct gmmu_bits *b, const struct gmmu_field *fd, bool addr)
{
	if (!fd) {
		assert_int_equal(b->mask, 0);
		return;
	}
	assert_int_equal(b->word, fd->lo / 64);
	assert_int_equal(b->lo, fd->lo % 64);
	assert_int_equal(b->mask, gmmu_field_mask(fd));
	assert_int_equal(b->shift, addr ? fd->addr_shift : 0);
}

static const struct gmmu_field *by_role(const struct gmmu_entry_format *ef, enum gmmu_role r,
                                        enum gmmu_half h)
{
	for (size_t k = 0; k < ef->n_fields; k++)
		if (ef->fields[k].role == r && ef->fields[k].half == h &&
		    !(ef->fields[k].flags & GMMU_FIELD_F_ALIAS))
			return &ef->fields[k];
	return NULL;
}

static void fast_paths_match_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		for (unsigned t = 0; t < GMMU_ENTRY_TYPE_COUNT; t++) {
			const struct gmmu_entry_format *ef = f->entry[t];
			unsigned parts = t == GMMU_ENTRY_DUAL_PDE ? 2 : 1;
			for (unsigned p = 0; p < parts; p++) {
				enum gmmu_half h =
				        parts == 2 ? (enum gmmu_half)(p + 1) : GMMU_HALF_NONE;
				const struct gmmu_fast *x = &ef->fast[p];
				check_bits(&x->aperture, by_role(ef, GMMU_ROLE_APERTURE, h), false);
				check_bits(&x->vol, by_role(ef, GMMU_ROLE_VOL, h), false);
				check_bits(&x->pcf, by_role(ef, GMMU_ROLE_PCF, h), false);
				if (t == GMMU_ENTRY_PTE) {
					check_bits(&x->valid, by_role(ef, GMMU_ROLE_VALID, h),
					           false);
					check_bits(&x->kind, by_role(ef, GMMU_ROLE_KIND, h), false);
					check_bits(&x->peer_index,
					           by_role(ef, GMMU_ROLE_PEER_INDEX, h), false);
					check_bits(&x->comptagline,
					           by_role(ef, GMMU_ROLE_COMPTAGLINE, h), false);
					check_bits(&x->encrypted,
					           by_role(ef, GMMU_ROLE_ENCRYPTED, h), false);
					check_bits(&x->privilege,
					           by_role(ef, GMMU_ROLE_PRIVILEGE, h), false);
					check_bits(&x->read_only,
					           by_role(ef, GMMU_ROLE_READ_ONLY, h), false);
					check_bits(&x->atomic_disable,
					           by_role(ef, GMMU_ROLE_ATOMIC_DISABLE, h), false);
				}
				/* Address per aperture: the ADDR row that lists that aperture. */
				for (unsigned ap = 0; ap < 4; ap++) {
					const struct gmmu_field *af = NULL;
					for (size_t k = 0; k < ef->n_fields; k++) {
						const struct gmmu_field *fd = &ef->fields[k];
						if (fd->kind == GMMU_FIELD_ADDR && fd->half == h &&
						    (fd->apertures & GMMU_APER_HW(ap)))
							af = fd;
					}
					check_bits(&x->addr[ap], af, true);
				}
			}
		}
	}
}

/* Levels: contiguous VA bits from the top of the VA down to the page tables. */
static void levels_are_consistent(void **state)
{
	(void)state;
	for (size_t i = 0; i < gmmu_format_count(); i++) {
		const struct gmmu_format *f = gmmu_format_at(i);
		assert_int_equal(f->levels[0].va_hi + 1, f->va_bits);
		for (size_t l = 0; l + 1 < f->n_levels; l++) {
			const struct gmmu_level *a = &f->levels[l], *b = &f->levels[l + 1];
			if (a->pde && b->pde)
				assert_int_equal(a->va_lo, b->va_hi + 1);
			if (a->page_shift)
				assert_int_equal(a->page_shift, a->va_lo);
			assert_int_equal(a->entry_size, a->dual ? 16 : 8);
		}
	}
	/* 512 MB pages from GA10x, 256 GB pages on GB10x/GB20x only. */
	assert_null(gmmu_level_for_page(gt_chip("TU102"), 29));
	assert_non_null(gmmu_level_for_page(gt_chip("AD102"), 29));
	assert_null(gmmu_level_for_page(gt_chip("GH100"), 38));
	assert_string_equal(gmmu_level_for_page(gt_chip("GB202"), 38)->name, "PD2");
	assert_string_equal(gmmu_level_for_page(gt_chip("GB202"), 17)->name, "PT_BIG");
}

static void lookups(void **state)
{
	(void)state;
	assert_ptr_equal(gmmu_chip_find("ad102"), gmmu_chip_find("AD102"));
	assert_null(gmmu_chip_find("AD999"));
	assert_string_equal(gmmu_format_find("V2")->name, "v2-ga");
	assert_string_equal(gmmu_format_find("v3")->name, "v3-gb");
	struct p2ps_error err;
	const struct gmmu_format *f;
	assert_int_equal(gmmu_chip_lookup("RTX4090", &f, &err), P2PS_ENOENT);
	assert_non_null(strstr(err.msg, "RTX4090"));
	assert_int_equal(gmmu_format_lookup("v4", &f, &err), P2PS_ENOENT);
	enum gmmu_entry_type t;
	assert_int_equal(gmmu_entry_type_parse("Dual-PDE", &t, NULL), 0);
	assert_int_equal(t, GMMU_ENTRY_DUAL_PDE);
	assert_int_equal(gmmu_entry_type_parse("ptex", &t, &err), P2PS_EINVAL);
	const struct gmmu_entry_format *ef = gmmu_format_entry(gt_chip("AD102"), GMMU_ENTRY_PTE);
	assert_non_null(gmmu_field_find(ef, "address_vid_peer"));
	assert_null(gmmu_field_find(ef, "PEER_ID"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(fields_match_headers),
	        cmocka_unit_test(partial_headers_agree),
	        cmocka_unit_test(values_match_headers),
	        cmocka_unit_test(chips_match_hal),
	        cmocka_unit_test(chips_of_615),
	        cmocka_unit_test(fields_are_well_formed),
	        cmocka_unit_test(no_overlap_and_unnamed_bits),
	        cmocka_unit_test(fast_paths_match_rows),
	        cmocka_unit_test(levels_are_consistent),
	        cmocka_unit_test(lookups),
	};
	return cmocka_run_group_tests(tests, load_golden, NULL);
}
