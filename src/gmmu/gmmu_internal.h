/* libgmmu internals: helpers for writing the format tables.
 *
 * A field's bit range is written once, as a two-token macro "hi, lo" named after the hwref
 * define it comes from; both the field row (GMMU_ROW) and the fast-path extractor (GMMU_BITS)
 * expand the same macro, so the two cannot drift apart. The unit tests also compare them.
 */
#ifndef GMMU_INTERNAL_H
#define GMMU_INTERNAL_H

#include "p2pscope/gmmu.h"

#define GMMU_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Right-aligned mask of bits hi..lo. 2ull << 63 wraps to 0, so a 64-bit field gives ~0. */
#define GMMU_MASK_(hi, lo) ((2ull << ((hi) - (lo))) - 1)

/* GMMU_BITS(shift, RANGE): fast extractor for a field whose RANGE macro expands to "hi, lo".
 * The range comes last, through __VA_ARGS__, so that the macro works whether a preprocessor
 * (or cppcheck's) splits arguments before or after expanding RANGE. */
#define GMMU_BITS(shift, ...) GMMU_BITS_(shift, __VA_ARGS__)
#define GMMU_BITS_(sh_, h_, l_)                                                                    \
	{                                                                                          \
		.word = (l_) / 64, .lo = (l_) % 64, .shift = (sh_), .mask = GMMU_MASK_(h_, l_)     \
	}

/* GMMU_ROW(name, RANGE, designated-initializers...): one field row. */
#define GMMU_ROW(nm, ...) GMMU_ROW_(nm, __VA_ARGS__)
#define GMMU_ROW_(nm, h, l, ...)                                                                   \
	{                                                                                          \
		.name = (nm), .hi = (h), .lo = (l), __VA_ARGS__                                    \
	}

/* Named-value table reference for a row. */
#define GMMU_VALUES(t)         .values = (t), .n_values = GMMU_ARRAY_SIZE(t)
#define GMMU_VALUES_INVALID(t) .values_invalid = (t), .n_values_invalid = GMMU_ARRAY_SIZE(t)

/* Hardware aperture sets (PTE numbering: 0 video, 1 peer, 2 sys coh, 3 sys noncoh;
 * PDE numbering: 0 invalid, 1 video, 2 sys coh, 3 sys noncoh). */
#define GMMU_APER_PTE_VIDEO GMMU_APER_HW(0)
#define GMMU_APER_PTE_PEER  GMMU_APER_HW(1)
#define GMMU_APER_PTE_SYS   (GMMU_APER_HW(2) | GMMU_APER_HW(3))
#define GMMU_APER_PDE_VIDEO GMMU_APER_HW(1)
#define GMMU_APER_PDE_SYS   (GMMU_APER_HW(2) | GMMU_APER_HW(3))
#define GMMU_APER_PDE_VALID (GMMU_APER_PDE_VIDEO | GMMU_APER_PDE_SYS)

/* Value tables shared by both versions (defined in fmt_common.c). */
extern const struct gmmu_value gmmu_bool_values[2];
extern const struct gmmu_value gmmu_pte_aperture_values[4];
extern const struct gmmu_value gmmu_pde_aperture_values[4];
extern const struct gmmu_value gmmu_kind_values_tu[16];

/* The formats (fmt_v2.c, fmt_v3.c). */
extern const struct gmmu_format gmmu_format_v2_gp;
extern const struct gmmu_format gmmu_format_v2_tu;
extern const struct gmmu_format gmmu_format_v2_ga;
extern const struct gmmu_format gmmu_format_v3_gh;
extern const struct gmmu_format gmmu_format_v3_gb;

/* The field row of ef with role r and half h, or NULL. */
const struct gmmu_field *gmmu_field_by_role(const struct gmmu_entry_format *ef, enum gmmu_role r,
                                            enum gmmu_half h);
/* The APERTURE field governing fd (same half), or NULL when fd does not depend on one. */
const struct gmmu_field *gmmu_field_governor(const struct gmmu_entry_format *ef,
                                             const struct gmmu_field *fd);

#endif
