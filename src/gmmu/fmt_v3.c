/* SPDX-License-Identifier: MIT */
/* MMU format version 3: Hopper (GH100), Blackwell (GB10x, GB20x). Bits from NV_MMU_VER3_* in
 * hopper/gh100/dev_mmu.h (the only header with v3 entries: swref, and the same defines in the
 * hwref copy); Blackwell's KIND names from blackwell/gb202/dev_mmu.h (gb20b lists the same).
 *
 * 57-bit virtual address, six levels (kgmmuFmtInitLevels_GH10X):
 *
 *   VA bit  56|55      47|46      38|37      29|28     21|20   16|15    12|11        0
 *          [PD4][   PD3  ][   PD2   ][   PD1   ][  PD0   ][       PT        ][ offset ]
 *   PD4 (root) 56:56   8 B PDE
 *   PD3        55:47   8 B PDE
 *   PD2        46:38   8 B PDE              GB10x/GB20x: or a 256 GB PTE (GB10X levels)
 *   PD1        37:29   8 B PDE or a 512 MB PTE
 *   PD0        28:21  16 B dual PDE or a 2 MB PTE
 *   PT_BIG     20:16   8 B PTE, 64 KB pages
 *   PT_SMALL   20:12   8 B PTE, 4 KB pages
 *
 * Compared with v2: the address sits in place (51:12 holds PA bits 51:12) and is the same
 * field for every aperture; the peer index moved to 63:61; VOL, PRIVILEGE, READ_ONLY,
 * ATOMIC_DISABLE and access counting are folded into the 5-bit PCF; no comptag line.
 */
#include "gmmu_internal.h"

/* NV_MMU_VER3_PTE_* (gh100) */
#define V3_PTE_VALID         0, 0
#define V3_PTE_APERTURE      2, 1
#define V3_PTE_PCF           7, 3
#define V3_PTE_KIND          11, 8
#define V3_PTE_ADDRESS       51, 12
#define V3_PTE_PEER_ID       63, 61 /* 63:(64-3) */
#define V3_PTE_ADDRESS_SHIFT 12
/* NV_MMU_VER3_PDE_* (gh100) */
#define V3_PDE_IS_PTE        0, 0
#define V3_PDE_APERTURE      2, 1
#define V3_PDE_PCF           5, 3
#define V3_PDE_ADDRESS       51, 12
#define V3_PDE_ADDRESS_SHIFT 12
/* NV_MMU_VER3_DUAL_PDE_* (gh100) */
#define V3_DUAL_IS_PTE              0, 0
#define V3_DUAL_BIG_APERTURE        2, 1
#define V3_DUAL_BIG_PCF             5, 3
#define V3_DUAL_BIG_ADDRESS         51, 8
#define V3_DUAL_SMALL_APERTURE      66, 65
#define V3_DUAL_SMALL_PCF           69, 67
#define V3_DUAL_SMALL_ADDRESS       115, 76
#define V3_DUAL_BIG_ADDRESS_SHIFT   8
#define V3_DUAL_SMALL_ADDRESS_SHIFT 12

/* NV_MMU_VER3_PTE_PCF_* for a valid PTE. The names spell the bits: bit 0 UNCACHED,
 * bit 1 PRIVILEGE, bit 2 RO, bit 3 NO_ATOMIC, bit 4 ACD (access counting disabled). */
static const struct gmmu_value v3_pte_pcf_values[32] = {
        {"REGULAR_RW_ATOMIC_CACHED_ACE", 0x00},      {"REGULAR_RW_ATOMIC_UNCACHED_ACE", 0x01},
        {"PRIVILEGE_RW_ATOMIC_CACHED_ACE", 0x02},    {"PRIVILEGE_RW_ATOMIC_UNCACHED_ACE", 0x03},
        {"REGULAR_RO_ATOMIC_CACHED_ACE", 0x04},      {"REGULAR_RO_ATOMIC_UNCACHED_ACE", 0x05},
        {"PRIVILEGE_RO_ATOMIC_CACHED_ACE", 0x06},    {"PRIVILEGE_RO_ATOMIC_UNCACHED_ACE", 0x07},
        {"REGULAR_RW_NO_ATOMIC_CACHED_ACE", 0x08},   {"REGULAR_RW_NO_ATOMIC_UNCACHED_ACE", 0x09},
        {"PRIVILEGE_RW_NO_ATOMIC_CACHED_ACE", 0x0A}, {"PRIVILEGE_RW_NO_ATOMIC_UNCACHED_ACE", 0x0B},
        {"REGULAR_RO_NO_ATOMIC_CACHED_ACE", 0x0C},   {"REGULAR_RO_NO_ATOMIC_UNCACHED_ACE", 0x0D},
        {"PRIVILEGE_RO_NO_ATOMIC_CACHED_ACE", 0x0E}, {"PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACE", 0x0F},
        {"REGULAR_RW_ATOMIC_CACHED_ACD", 0x10},      {"REGULAR_RW_ATOMIC_UNCACHED_ACD", 0x11},
        {"PRIVILEGE_RW_ATOMIC_CACHED_ACD", 0x12},    {"PRIVILEGE_RW_ATOMIC_UNCACHED_ACD", 0x13},
        {"REGULAR_RO_ATOMIC_CACHED_ACD", 0x14},      {"REGULAR_RO_ATOMIC_UNCACHED_ACD", 0x15},
        {"PRIVILEGE_RO_ATOMIC_CACHED_ACD", 0x16},    {"PRIVILEGE_RO_ATOMIC_UNCACHED_ACD", 0x17},
        {"REGULAR_RW_NO_ATOMIC_CACHED_ACD", 0x18},   {"REGULAR_RW_NO_ATOMIC_UNCACHED_ACD", 0x19},
        {"PRIVILEGE_RW_NO_ATOMIC_CACHED_ACD", 0x1A}, {"PRIVILEGE_RW_NO_ATOMIC_UNCACHED_ACD", 0x1B},
        {"REGULAR_RO_NO_ATOMIC_CACHED_ACD", 0x1C},   {"REGULAR_RO_NO_ATOMIC_UNCACHED_ACD", 0x1D},
        {"PRIVILEGE_RO_NO_ATOMIC_CACHED_ACD", 0x1E}, {"PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD", 0x1F},
};

/* The same masks, used by the fast view to report the flags. */
#define V3_PCF_UNCACHED  0x01
#define V3_PCF_PRIVILEGE 0x02
#define V3_PCF_RO        0x04
#define V3_PCF_NO_ATOMIC 0x08
#define V3_PCF_ACD       0x10

/* NV_MMU_VER3_PTE_PCF_* for an invalid PTE (VALID=0). */
static const struct gmmu_value v3_pte_pcf_invalid_values[4] = {
        {"INVALID", 0},
        {"SPARSE", 1},
        {"MAPPING_NOWHERE", 2},
        {"NO_VALID_4KB_PAGE", 3},
};
#define V3_PCF_SPARSE 1

/* NV_MMU_VER3_PDE_PCF_* (also _DUAL_PDE_PCF_BIG/SMALL_*): one number, two meanings, chosen
 * by whether the aperture is INVALID. */
static const struct gmmu_value v3_pde_pcf_values[4] = {
        {"VALID_CACHED_ATS_ALLOWED", 0},
        {"VALID_UNCACHED_ATS_ALLOWED", 1},
        {"VALID_CACHED_ATS_NOT_ALLOWED", 2},
        {"VALID_UNCACHED_ATS_NOT_ALLOWED", 3},
};
static const struct gmmu_value v3_pde_pcf_invalid_values[4] = {
        {"INVALID_ATS_ALLOWED", 0},
        {"SPARSE_ATS_ALLOWED", 1},
        {"INVALID_ATS_NOT_ALLOWED", 2},
        {"SPARSE_ATS_NOT_ALLOWED", 3},
};
#define V3_PDE_PCF_UNCACHED 0x1

#define SRC .source = "hopper/gh100"

/* The PTE rows; kinds_source names the header of the KIND values (NULL: hopper/gh100). */
#define V3_PTE_ROWS(kinds_source)                                                                  \
	GMMU_ROW("VALID", V3_PTE_VALID, .kind = GMMU_FIELD_BOOL, .role = GMMU_ROLE_VALID,          \
	         .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_bool_values), SRC),                  \
	        GMMU_ROW("APERTURE", V3_PTE_APERTURE, .kind = GMMU_FIELD_ENUM,                     \
	                 .role = GMMU_ROLE_APERTURE, .apertures = GMMU_APER_ALL,                   \
	                 GMMU_VALUES(gmmu_pte_aperture_values), SRC),                              \
	        GMMU_ROW("PCF", V3_PTE_PCF, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_PCF,        \
	                 .apertures = GMMU_APER_ALL, GMMU_VALUES(v3_pte_pcf_values),               \
	                 GMMU_VALUES_INVALID(v3_pte_pcf_invalid_values), SRC),                     \
	        GMMU_ROW("KIND", V3_PTE_KIND, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_KIND,     \
	                 .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_kind_values_tu), SRC,        \
	                 .values_source = (kinds_source)),                                         \
	        GMMU_ROW("ADDRESS", V3_PTE_ADDRESS, .kind = GMMU_FIELD_ADDR,                       \
	                 .role = GMMU_ROLE_ADDR, .setter = GMMU_SETTER_DESC64,                     \
	                 .addr_shift = V3_PTE_ADDRESS_SHIFT, .apertures = GMMU_APER_ALL, SRC),     \
	        GMMU_ROW("PEER_ID", V3_PTE_PEER_ID, .kind = GMMU_FIELD_INT,                        \
	                 .role = GMMU_ROLE_PEER_INDEX, .apertures = GMMU_APER_PTE_PEER, SRC)

static const struct gmmu_field v3_pte_fields_gh[] = {V3_PTE_ROWS(NULL)};
static const struct gmmu_field v3_pte_fields_gb[] = {V3_PTE_ROWS("blackwell/gb202")};

static const struct gmmu_field v3_pde_fields[] = {
        GMMU_ROW("IS_PTE", V3_PDE_IS_PTE, .kind = GMMU_FIELD_BOOL, .apertures = GMMU_APER_ALL,
                 GMMU_VALUES(gmmu_bool_values), SRC),
        GMMU_ROW("VALID", V3_PDE_IS_PTE, .kind = GMMU_FIELD_BOOL, .apertures = GMMU_APER_ALL,
                 .flags = GMMU_FIELD_F_ALIAS, GMMU_VALUES(gmmu_bool_values), SRC),
        GMMU_ROW("APERTURE", V3_PDE_APERTURE, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_APERTURE,
                 .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_pde_aperture_values), SRC),
        GMMU_ROW("PCF", V3_PDE_PCF, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_PCF,
                 .apertures = GMMU_APER_ALL, GMMU_VALUES(v3_pde_pcf_values),
                 GMMU_VALUES_INVALID(v3_pde_pcf_invalid_values), SRC),
        GMMU_ROW("ADDRESS", V3_PDE_ADDRESS, .kind = GMMU_FIELD_ADDR, .role = GMMU_ROLE_ADDR,
                 .setter = GMMU_SETTER_DESC64, .addr_shift = V3_PDE_ADDRESS_SHIFT,
                 .apertures = GMMU_APER_PDE_VALID, SRC),
};

static const struct gmmu_field v3_dual_pde_fields[] = {
        GMMU_ROW("IS_PTE", V3_DUAL_IS_PTE, .kind = GMMU_FIELD_BOOL, .apertures = GMMU_APER_ALL,
                 GMMU_VALUES(gmmu_bool_values), SRC),
        GMMU_ROW("VALID", V3_DUAL_IS_PTE, .kind = GMMU_FIELD_BOOL, .apertures = GMMU_APER_ALL,
                 .flags = GMMU_FIELD_F_ALIAS, GMMU_VALUES(gmmu_bool_values), SRC),
        GMMU_ROW("APERTURE_BIG", V3_DUAL_BIG_APERTURE, .kind = GMMU_FIELD_ENUM,
                 .role = GMMU_ROLE_APERTURE, .half = GMMU_HALF_BIG, .apertures = GMMU_APER_ALL,
                 GMMU_VALUES(gmmu_pde_aperture_values), SRC),
        GMMU_ROW("PCF_BIG", V3_DUAL_BIG_PCF, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_PCF,
                 .half = GMMU_HALF_BIG, .apertures = GMMU_APER_ALL, GMMU_VALUES(v3_pde_pcf_values),
                 GMMU_VALUES_INVALID(v3_pde_pcf_invalid_values), SRC),
        GMMU_ROW("ADDRESS_BIG", V3_DUAL_BIG_ADDRESS, .kind = GMMU_FIELD_ADDR,
                 .role = GMMU_ROLE_ADDR, .setter = GMMU_SETTER_DESC64, .half = GMMU_HALF_BIG,
                 .addr_shift = V3_DUAL_BIG_ADDRESS_SHIFT, .apertures = GMMU_APER_PDE_VALID, SRC),
        GMMU_ROW("APERTURE_SMALL", V3_DUAL_SMALL_APERTURE, .kind = GMMU_FIELD_ENUM,
                 .role = GMMU_ROLE_APERTURE, .half = GMMU_HALF_SMALL, .apertures = GMMU_APER_ALL,
                 GMMU_VALUES(gmmu_pde_aperture_values), SRC),
        GMMU_ROW("PCF_SMALL", V3_DUAL_SMALL_PCF, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_PCF,
                 .half = GMMU_HALF_SMALL, .apertures = GMMU_APER_ALL,
                 GMMU_VALUES(v3_pde_pcf_values), GMMU_VALUES_INVALID(v3_pde_pcf_invalid_values),
                 SRC),
        GMMU_ROW("ADDRESS_SMALL", V3_DUAL_SMALL_ADDRESS, .kind = GMMU_FIELD_ADDR,
                 .role = GMMU_ROLE_ADDR, .setter = GMMU_SETTER_DESC64, .half = GMMU_HALF_SMALL,
                 .addr_shift = V3_DUAL_SMALL_ADDRESS_SHIFT, .apertures = GMMU_APER_PDE_VALID, SRC),
};

/* P names a range set: P##_APERTURE, P##_PCF, P##_ADDRESS, P##_ADDRESS_SHIFT. */
#define V3_PDE_FAST(P)                                                                             \
	{                                                                                          \
		.aperture = GMMU_BITS(0, P##_APERTURE), .pcf = GMMU_BITS(0, P##_PCF),              \
		.addr = {GMMU_NO_ADDR, GMMU_BITS(P##_ADDRESS_SHIFT, P##_ADDRESS),                  \
		         GMMU_BITS(P##_ADDRESS_SHIFT, P##_ADDRESS),                                \
		         GMMU_BITS(P##_ADDRESS_SHIFT, P##_ADDRESS)},                               \
		.aperture_sw = GMMU_PDE_APERTURE_SW, .pcf_uncached = V3_PDE_PCF_UNCACHED,          \
	}

/* What the driver writes for a sparse entry (kgmmuFmtFamiliesInit_GH100): a PTE VALID 0 with
 * PCF SPARSE, a PDE APERTURE INVALID with PCF SPARSE_ATS_ALLOWED, a dual PDE both halves
 * INVALID with PCF_BIG SPARSE_ATS_ALLOWED (only sub-level 0 gets the PCF). */
#define V3_SPARSE_PCF (1ull << 3)

#define V3_PTE(fields_)                                                                            \
	{                                                                                          \
		.type = GMMU_ENTRY_PTE, .prefix = "NV_MMU_VER3_PTE_", .size = 8,                   \
		.addr_shift = V3_PTE_ADDRESS_SHIFT, .fields = (fields_),                           \
		.n_fields = GMMU_ARRAY_SIZE(fields_), .sparse = {V3_SPARSE_PCF, 0},                \
		.fast = {{                                                                         \
		        .valid = GMMU_BITS(0, V3_PTE_VALID),                                       \
		        .aperture = GMMU_BITS(0, V3_PTE_APERTURE),                                 \
		        .peer_index = GMMU_BITS(0, V3_PTE_PEER_ID),                                \
		        .kind = GMMU_BITS(0, V3_PTE_KIND),                                         \
		        .pcf = GMMU_BITS(0, V3_PTE_PCF),                                           \
		        .addr = {GMMU_BITS(V3_PTE_ADDRESS_SHIFT, V3_PTE_ADDRESS),                  \
		                 GMMU_BITS(V3_PTE_ADDRESS_SHIFT, V3_PTE_ADDRESS),                  \
		                 GMMU_BITS(V3_PTE_ADDRESS_SHIFT, V3_PTE_ADDRESS),                  \
		                 GMMU_BITS(V3_PTE_ADDRESS_SHIFT, V3_PTE_ADDRESS)},                 \
		        .aperture_sw = {GMMU_APERTURE_VIDEO, GMMU_APERTURE_PEER,                   \
		                        GMMU_APERTURE_SYS_COH, GMMU_APERTURE_SYS_NONCOH},          \
		        .pcf_uncached = V3_PCF_UNCACHED,                                           \
		        .pcf_privilege = V3_PCF_PRIVILEGE,                                         \
		        .pcf_read_only = V3_PCF_RO,                                                \
		        .pcf_no_atomic = V3_PCF_NO_ATOMIC,                                         \
		        .pcf_acd = V3_PCF_ACD,                                                     \
		        .pcf_sparse = V3_PCF_SPARSE,                                               \
		}},                                                                                \
	}

static const struct gmmu_entry_format v3_pte_gh = V3_PTE(v3_pte_fields_gh);
static const struct gmmu_entry_format v3_pte_gb = V3_PTE(v3_pte_fields_gb);

static const struct gmmu_entry_format v3_pde = {
        .type = GMMU_ENTRY_PDE,
        .prefix = "NV_MMU_VER3_PDE_",
        .size = 8,
        .addr_shift = V3_PDE_ADDRESS_SHIFT,
        .fields = v3_pde_fields,
        .n_fields = GMMU_ARRAY_SIZE(v3_pde_fields),
        .fast = {V3_PDE_FAST(V3_PDE)},
        .sparse = {V3_SPARSE_PCF, 0},
};

static const struct gmmu_entry_format v3_dual_pde = {
        .type = GMMU_ENTRY_DUAL_PDE,
        .prefix = "NV_MMU_VER3_DUAL_PDE_",
        .size = 16,
        .addr_shift = V3_DUAL_SMALL_ADDRESS_SHIFT,
        .addr_big_shift = V3_DUAL_BIG_ADDRESS_SHIFT,
        .fields = v3_dual_pde_fields,
        .n_fields = GMMU_ARRAY_SIZE(v3_dual_pde_fields),
        .fast = {V3_PDE_FAST(V3_DUAL_BIG), V3_PDE_FAST(V3_DUAL_SMALL)},
        .sparse = {V3_SPARSE_PCF, 0},
};

/* kgmmuFmtInitLevels_GH10X; GB10X sets bPageTable on PD2 (256 GB pages). */
#define V3_LEVELS(pd2_page_shift)                                                                  \
	{                                                                                          \
		{.name = "PD4", .va_hi = 56, .va_lo = 56, .entry_size = 8, .pde = true},           \
		        {.name = "PD3", .va_hi = 55, .va_lo = 47, .entry_size = 8, .pde = true},   \
		        {.name = "PD2",                                                            \
		         .va_hi = 46,                                                              \
		         .va_lo = 38,                                                              \
		         .entry_size = 8,                                                          \
		         .pde = true,                                                              \
		         .page_shift = (pd2_page_shift)},                                          \
		        GMMU_LOWER_LEVELS(29),                                                     \
	}

static const struct gmmu_level v3_levels_gh[] = V3_LEVELS(0);
static const struct gmmu_level v3_levels_gb[] = V3_LEVELS(38);

const struct gmmu_format gmmu_format_v3_gh = {
        .name = "v3-gh",
        .version = 3,
        .summary = "v3 (GH100)",
        .entry = {&v3_pte_gh, &v3_pde, &v3_dual_pde},
        .levels = v3_levels_gh,
        .n_levels = GMMU_ARRAY_SIZE(v3_levels_gh),
        .va_bits = 57,
        .flags = GMMU_FORMAT_F_BAR1P2P,
};

const struct gmmu_format gmmu_format_v3_gb = {
        .name = "v3-gb",
        .version = 3,
        .summary = "v3, 256 GB pages at PD2 (GB10x, GB20x)",
        .entry = {&v3_pte_gb, &v3_pde, &v3_dual_pde},
        .levels = v3_levels_gb,
        .n_levels = GMMU_ARRAY_SIZE(v3_levels_gb),
        .va_bits = 57,
        .flags = GMMU_FORMAT_F_BAR1P2P | GMMU_FORMAT_F_BAR1P2P_COHERENT,
};
