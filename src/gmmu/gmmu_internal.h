/* SPDX-License-Identifier: MIT */
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

/* Extractor for an address field that no aperture selects (PDE aperture INVALID). */
#define GMMU_NO_ADDR                                                                               \
	{                                                                                          \
		.mask = 0                                                                          \
	}

/* PDE hardware aperture value -> software aperture (v2 and v3 number PDEs alike). */
#define GMMU_PDE_APERTURE_SW                                                                       \
	{                                                                                          \
		GMMU_APERTURE_INVALID, GMMU_APERTURE_VIDEO, GMMU_APERTURE_SYS_COH,                 \
		        GMMU_APERTURE_SYS_NONCOH                                                   \
	}

/* The four lowest levels, the same in v2 (kgmmuFmtInitLevels_GP10X) and v3
 * (kgmmuFmtInitLevels_GH10X): PD1 (VA 37:29, a 512 MB PTE where pd1_page_shift is 29),
 * PD0 (28:21, dual PDE or a 2 MB PTE), PT_BIG (20:16, 64 KB; 20:17 with 128 KB big pages)
 * and PT_SMALL (20:12, 4 KB). */
/* clang-format off */
#define GMMU_LOWER_LEVELS(pd1_page_shift)                                                          \
	{.name = "PD1", .va_hi = 37, .va_lo = 29, .entry_size = 8, .pde = true,                    \
	 .page_shift = (pd1_page_shift)},                                                          \
	{.name = "PD0", .va_hi = 28, .va_lo = 21, .entry_size = 16, .pde = true, .dual = true,     \
	 .page_shift = 21},                                                                        \
	{.name = "PT_BIG", .va_hi = 20, .va_lo = 16, .entry_size = 8, .page_shift = 16,            \
	 .alt_va_lo = 17},                                                                         \
	{.name = "PT_SMALL", .va_hi = 20, .va_lo = 12, .entry_size = 8, .page_shift = 12}
/* clang-format on */

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

/* ORs the bits of fd into the mask m over an entry's two 64-bit words (a field lies in one
 * word). */
static inline void gmmu_field_bits(const struct gmmu_field *fd, uint64_t m[2])
{
	m[fd->lo / 64u] |= gmmu_field_mask(fd) << (fd->lo % 64u);
}

#endif
