/* The chip-to-format map and name lookups.
 *
 * Turing and later: the HAL dispatch of NVIDIA/open-gpu-kernel-modules 595.45.04,
 * src/nvidia/generated/g_kern_gmmu_nvoc.c. kgmmuFmtInitPte_GP10X + kgmmuFmtInitPteComptagLine_TU10X
 * go to TU10x/GA10x/AD10x, kgmmuFmtInitPte_GH10X to every other chip; kgmmuFmtInitLevels picks
 * GP10X (TU10x), GA10X (GA10x, AD10x), GH10X (GH100) and GB10X (all Blackwell). The display-only
 * Tegra HALs T234D/T264D have no GMMU format and are left out.
 * Pascal and Volta left the open driver's chip list; their v2 layout with the 53:36 comptag line
 * is in pascal/gp100 and volta/gv100 dev_mmu.h and kgmmuFmtInitPteComptagLine_GP10X.
 */
#include "gmmu_internal.h"

#include <string.h>
#include <strings.h>

static const struct gmmu_format *const formats[] = {
        &gmmu_format_v2_gp, &gmmu_format_v2_tu, &gmmu_format_v2_ga,
        &gmmu_format_v3_gh, &gmmu_format_v3_gb,
};

#define HAL  "g_kern_gmmu_nvoc.c " GMMU_DRIVER_TAG
#define HIST "dev_mmu.h history (not in the " GMMU_DRIVER_TAG " HAL)"

static const struct gmmu_chip chips[] = {
        {"GP100", "Pascal", "Tesla P100", &gmmu_format_v2_gp, HIST},
        {"GP102", "Pascal", "TITAN Xp, GTX 1080 Ti", &gmmu_format_v2_gp, HIST},
        {"GP104", "Pascal", "GTX 1080, GTX 1070", &gmmu_format_v2_gp, HIST},
        {"GP106", "Pascal", "GTX 1060", &gmmu_format_v2_gp, HIST},
        {"GP107", "Pascal", "GTX 1050", &gmmu_format_v2_gp, HIST},
        {"GP108", "Pascal", "GT 1030", &gmmu_format_v2_gp, HIST},
        {"GV100", "Volta", "Tesla V100, TITAN V", &gmmu_format_v2_gp, HIST},
        {"TU102", "Turing", "RTX 2080 Ti, TITAN RTX", &gmmu_format_v2_tu, HAL},
        {"TU104", "Turing", "RTX 2080, Tesla T4", &gmmu_format_v2_tu, HAL},
        {"TU106", "Turing", "RTX 2070, RTX 2060", &gmmu_format_v2_tu, HAL},
        {"TU116", "Turing", "GTX 1660", &gmmu_format_v2_tu, HAL},
        {"TU117", "Turing", "GTX 1650", &gmmu_format_v2_tu, HAL},
        {"GA100", "Ampere", "A100", &gmmu_format_v2_ga, HAL},
        {"GA102", "Ampere", "RTX 3090, RTX 3080, RTX A6000", &gmmu_format_v2_ga, HAL},
        {"GA103", "Ampere", "", &gmmu_format_v2_ga, HAL},
        {"GA104", "Ampere", "RTX 3070, RTX A4000", &gmmu_format_v2_ga, HAL},
        {"GA106", "Ampere", "RTX 3060", &gmmu_format_v2_ga, HAL},
        {"GA107", "Ampere", "RTX 3050", &gmmu_format_v2_ga, HAL},
        {"AD102", "Ada", "RTX 4090, RTX 6000 Ada, L40", &gmmu_format_v2_ga, HAL},
        {"AD103", "Ada", "RTX 4080", &gmmu_format_v2_ga, HAL},
        {"AD104", "Ada", "RTX 4070 Ti, RTX 4070", &gmmu_format_v2_ga, HAL},
        {"AD106", "Ada", "RTX 4060 Ti", &gmmu_format_v2_ga, HAL},
        {"AD107", "Ada", "RTX 4060", &gmmu_format_v2_ga, HAL},
        {"GH100", "Hopper", "H100, H200", &gmmu_format_v3_gh, HAL},
        {"GB100", "Blackwell", "B200", &gmmu_format_v3_gb, HAL},
        {"GB102", "Blackwell", "", &gmmu_format_v3_gb, HAL},
        {"GB10B", "Blackwell", "", &gmmu_format_v3_gb, HAL},
        {"GB110", "Blackwell", "", &gmmu_format_v3_gb, HAL},
        {"GB112", "Blackwell", "", &gmmu_format_v3_gb, HAL},
        {"GB202", "Blackwell", "RTX 5090, RTX PRO 6000 Blackwell", &gmmu_format_v3_gb, HAL},
        {"GB203", "Blackwell", "RTX 5080, RTX 5070 Ti", &gmmu_format_v3_gb, HAL},
        {"GB205", "Blackwell", "RTX 5070", &gmmu_format_v3_gb, HAL},
        {"GB206", "Blackwell", "RTX 5060 Ti, RTX 5060", &gmmu_format_v3_gb, HAL},
        {"GB207", "Blackwell", "RTX 5050", &gmmu_format_v3_gb, HAL},
        {"GB20B", "Blackwell", "", &gmmu_format_v3_gb, HAL},
        {"GB20C", "Blackwell", "", &gmmu_format_v3_gb, HAL},
};

size_t gmmu_format_count(void)
{
	return GMMU_ARRAY_SIZE(formats);
}

const struct gmmu_format *gmmu_format_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(formats) ? formats[i] : NULL;
}

const struct gmmu_format *gmmu_format_find(const char *name)
{
	if (!name)
		return NULL;
	/* The bare versions name the newest layout class of each version. */
	if (!strcasecmp(name, "v2"))
		return &gmmu_format_v2_ga;
	if (!strcasecmp(name, "v3"))
		return &gmmu_format_v3_gb;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(formats); i++)
		if (!strcasecmp(name, formats[i]->name))
			return formats[i];
	return NULL;
}

size_t gmmu_chip_count(void)
{
	return GMMU_ARRAY_SIZE(chips);
}

const struct gmmu_chip *gmmu_chip_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(chips) ? &chips[i] : NULL;
}

const struct gmmu_chip *gmmu_chip_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(chips); i++)
		if (!strcasecmp(name, chips[i].name))
			return &chips[i];
	return NULL;
}

int gmmu_format_lookup(const char *name, const struct gmmu_format **out, struct p2ps_error *err)
{
	const struct gmmu_format *f = gmmu_format_find(name);
	if (!f)
		return p2ps_error_set(
		        err, P2PS_ENOENT,
		        "unknown format '%s' (known: v2, v3, v2-gp, v2-tu, v2-ga, v3-gh, "
		        "v3-gb)",
		        name ? name : "");
	*out = f;
	return 0;
}

int gmmu_chip_lookup(const char *name, const struct gmmu_format **out, struct p2ps_error *err)
{
	const struct gmmu_chip *c = gmmu_chip_find(name);
	if (!c)
		return p2ps_error_set(
		        err, P2PS_ENOENT,
		        "unknown chip '%s' (known: GP10x, GV100, TU10x, GA10x, AD10x, "
		        "GH100, GB10x, GB20x; see 'pte-decode formats')",
		        name ? name : "");
	*out = c->format;
	return 0;
}

static const char *const entry_type_names[GMMU_ENTRY_TYPE_COUNT] = {"pte", "pde", "dual-pde"};

const char *gmmu_entry_type_name(enum gmmu_entry_type t)
{
	return (unsigned)t < GMMU_ENTRY_TYPE_COUNT ? entry_type_names[t] : "unknown";
}

int gmmu_entry_type_parse(const char *s, enum gmmu_entry_type *out, struct p2ps_error *err)
{
	for (unsigned i = 0; i < GMMU_ENTRY_TYPE_COUNT; i++)
		if (s && !strcasecmp(s, entry_type_names[i])) {
			*out = (enum gmmu_entry_type)i;
			return 0;
		}
	return p2ps_error_set(err, P2PS_EINVAL, "unknown entry type '%s' (pte, pde, dual-pde)",
	                      s ? s : "");
}

const char *gmmu_aperture_name(enum gmmu_aperture a)
{
	switch (a) {
	case GMMU_APERTURE_INVALID: return "INVALID";
	case GMMU_APERTURE_VIDEO: return "VIDEO";
	case GMMU_APERTURE_PEER: return "PEER";
	case GMMU_APERTURE_SYS_COH: return "SYS_COH";
	case GMMU_APERTURE_SYS_NONCOH: return "SYS_NONCOH";
	}
	return "unknown";
}

const struct gmmu_level *gmmu_level_for_page(const struct gmmu_format *f, unsigned page_shift)
{
	for (size_t i = 0; i < f->n_levels; i++)
		if (f->levels[i].page_shift && f->levels[i].page_shift == page_shift)
			return &f->levels[i];
	/* 128 KB big pages live in PT_BIG when the driver runs with bigPageShift 17. */
	for (size_t i = 0; i < f->n_levels; i++)
		if (f->levels[i].alt_va_lo && f->levels[i].alt_va_lo == page_shift)
			return &f->levels[i];
	return NULL;
}
