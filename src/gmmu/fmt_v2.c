/* MMU format version 2: Pascal (GP10x), Volta (GV100), Turing (TU10x), Ampere (GA10x),
 * Ada (AD10x). Bits from NV_MMU_VER2_* in pascal/gp100/dev_mmu.h, the only header with the
 * complete v2 set; COMPTAGLINE of TU10x+ from turing/tu102/dev_mmu.h.
 *
 * 49-bit virtual address, five levels (kgmmuFmtInitLevels_GP10X):
 *
 *   VA bit  48 47|46      38|37      29|28     21|20   16|15    12|11        0
 *          [ PD3 ][   PD2   ][   PD1   ][  PD0   ][       PT        ][ offset ]
 *   PD3 (root) 48:47   8 B PDE
 *   PD2        46:38   8 B PDE
 *   PD1        37:29   8 B PDE              GA10x/AD10x: or a 512 MB PTE
 *   PD0        28:21  16 B dual PDE         or a 2 MB PTE
 *   PT_BIG     20:16   8 B PTE, 64 KB pages (20:17 with 128 KB big pages)
 *   PT_SMALL   20:12   8 B PTE, 4 KB pages
 *
 * The layout classes differ only in COMPTAGLINE (GP/GV 53:36, TU+ 55:36), the KIND values
 * (Pascal 8-bit kinds, TU+ 4-bit) and whether PD1 may hold a PTE (GA10x and later).
 */
#include "gmmu_internal.h"

/* ---- bit ranges, one per hwref define ---- */
/* NV_MMU_VER2_PTE_* (gp100) */
#define V2_PTE_VALID            0, 0
#define V2_PTE_APERTURE         2, 1
#define V2_PTE_VOL              3, 3
#define V2_PTE_ENCRYPTED        4, 4
#define V2_PTE_PRIVILEGE        5, 5
#define V2_PTE_READ_ONLY        6, 6
#define V2_PTE_ATOMIC_DISABLE   7, 7
#define V2_PTE_ADDRESS_SYS      53, 8
#define V2_PTE_ADDRESS_VID      32, 8  /* (35-3):8 */
#define V2_PTE_ADDRESS_VID_PEER 35, 33 /* 35:(36-3) */
#define V2_PTE_COMPTAGLINE_GP   53, 36 /* (18+35):36, gp100 and gv100 */
#define V2_PTE_COMPTAGLINE_TU   55, 36 /* (20+35):36, tu102 */
#define V2_PTE_KIND             63, 56
#define V2_PTE_ADDRESS_SHIFT    12
/* NV_MMU_VER2_PDE_* (gp100) */
#define V2_PDE_APERTURE      2, 1
#define V2_PDE_VOL           3, 3
#define V2_PDE_ADDRESS_SYS   53, 8
#define V2_PDE_ADDRESS_VID   32, 8 /* (35-3):8 */
#define V2_PDE_ADDRESS_SHIFT 12
/* NV_MMU_VER2_DUAL_PDE_* (gp100) */
#define V2_DUAL_APERTURE_BIG      2, 1
#define V2_DUAL_VOL_BIG           3, 3
#define V2_DUAL_ADDRESS_BIG_VID   32, 4 /* (35-3):(8-4) */
#define V2_DUAL_ADDRESS_BIG_SYS   53, 4 /* 53:(8-4) */
#define V2_DUAL_APERTURE_SMALL    66, 65
#define V2_DUAL_VOL_SMALL         67, 67
#define V2_DUAL_ADDRESS_SMALL_VID 96, 72 /* (99-3):72 */
#define V2_DUAL_ADDRESS_SMALL_SYS 117, 72
#define V2_DUAL_ADDRESS_BIG_SHIFT 8
#define V2_DUAL_ADDRESS_SHIFT     12

/* NV_MMU_PTE_KIND_* of pascal/gp100: the header names only these 8-bit kinds. */
static const struct gmmu_value kind_values_gp[] = {
        {"PITCH", 0x00},
        {"C32_MS4_4CBRA", 0x2c},
        {"C64_MS4_4CBRA", 0x2d},
        {"INVALID", 0xff},
};

#define BOOL_ROW(nm, r, aper, ...)                                                                 \
	GMMU_ROW(nm, __VA_ARGS__, .kind = GMMU_FIELD_BOOL, .role = (r), .apertures = (aper),       \
	         GMMU_VALUES(gmmu_bool_values), .source = "pascal/gp100")
#define ADDR_ROW(nm, r, sh, aper, hf, ...)                                                         \
	GMMU_ROW(nm, __VA_ARGS__, .kind = GMMU_FIELD_ADDR, .role = (r),                            \
	         .setter = GMMU_SETTER_DESC64, .addr_shift = (sh), .apertures = (aper),            \
	         .half = (hf), .source = "pascal/gp100")

/* Rows every v2 PTE shares; COMPTAGLINE and KIND follow per layout class. */
#define V2_PTE_SHARED_ROWS                                                                         \
	BOOL_ROW("VALID", GMMU_ROLE_VALID, GMMU_APER_ALL, V2_PTE_VALID),                           \
	        GMMU_ROW("APERTURE", V2_PTE_APERTURE, .kind = GMMU_FIELD_ENUM,                     \
	                 .role = GMMU_ROLE_APERTURE, .apertures = GMMU_APER_ALL,                   \
	                 GMMU_VALUES(gmmu_pte_aperture_values), .source = "pascal/gp100"),         \
	        BOOL_ROW("VOL", GMMU_ROLE_VOL, GMMU_APER_ALL, V2_PTE_VOL),                         \
	        GMMU_ROW("ENCRYPTED", V2_PTE_ENCRYPTED, .kind = GMMU_FIELD_BOOL,                   \
	                 .role = GMMU_ROLE_ENCRYPTED, .apertures = GMMU_APER_ALL,                  \
	                 .flags = GMMU_FIELD_F_READ_ONLY, GMMU_VALUES(gmmu_bool_values),           \
	                 .source = "pascal/gp100"),                                                \
	        BOOL_ROW("PRIVILEGE", GMMU_ROLE_PRIVILEGE, GMMU_APER_ALL, V2_PTE_PRIVILEGE),       \
	        BOOL_ROW("READ_ONLY", GMMU_ROLE_READ_ONLY, GMMU_APER_ALL, V2_PTE_READ_ONLY),       \
	        BOOL_ROW("ATOMIC_DISABLE", GMMU_ROLE_ATOMIC_DISABLE, GMMU_APER_ALL,                \
	                 V2_PTE_ATOMIC_DISABLE),                                                   \
	        ADDR_ROW("ADDRESS_SYS", GMMU_ROLE_ADDR_SYS, V2_PTE_ADDRESS_SHIFT,                  \
	                 GMMU_APER_PTE_SYS, GMMU_HALF_NONE, V2_PTE_ADDRESS_SYS),                   \
	        ADDR_ROW("ADDRESS_VID", GMMU_ROLE_ADDR_VID, V2_PTE_ADDRESS_SHIFT,                  \
	                 GMMU_APER_PTE_VIDEO | GMMU_APER_PTE_PEER, GMMU_HALF_NONE,                 \
	                 V2_PTE_ADDRESS_VID),                                                      \
	        GMMU_ROW("ADDRESS_VID_PEER", V2_PTE_ADDRESS_VID_PEER, .kind = GMMU_FIELD_INT,      \
	                 .role = GMMU_ROLE_PEER_INDEX, .apertures = GMMU_APER_PTE_PEER,            \
	                 .source = "pascal/gp100")

/* Comptag lines exist for video memory (and a peer's video memory); in a sysmem PTE the
 * same bits belong to ADDRESS_SYS. */
#define COMPTAGLINE_APER (GMMU_APER_PTE_VIDEO | GMMU_APER_PTE_PEER)

static const struct gmmu_field v2_pte_fields_gp[] = {
        V2_PTE_SHARED_ROWS,
        GMMU_ROW("COMPTAGLINE", V2_PTE_COMPTAGLINE_GP, .kind = GMMU_FIELD_INT,
                 .role = GMMU_ROLE_COMPTAGLINE, .apertures = COMPTAGLINE_APER,
                 .source = "pascal/gp100"),
        GMMU_ROW("KIND", V2_PTE_KIND, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_KIND,
                 .apertures = GMMU_APER_ALL, GMMU_VALUES(kind_values_gp), .source = "pascal/gp100"),
};

static const struct gmmu_field v2_pte_fields_tu[] = {
        V2_PTE_SHARED_ROWS,
        GMMU_ROW("COMPTAGLINE", V2_PTE_COMPTAGLINE_TU, .kind = GMMU_FIELD_INT,
                 .role = GMMU_ROLE_COMPTAGLINE, .apertures = COMPTAGLINE_APER,
                 .source = "turing/tu102"),
        GMMU_ROW("KIND", V2_PTE_KIND, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_KIND,
                 .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_kind_values_tu),
                 .source = "pascal/gp100", .values_source = "turing/tu102"),
};

static const struct gmmu_field v2_pde_fields[] = {
        GMMU_ROW("APERTURE", V2_PDE_APERTURE, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_APERTURE,
                 .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_pde_aperture_values),
                 .source = "pascal/gp100"),
        BOOL_ROW("VOL", GMMU_ROLE_VOL, GMMU_APER_PDE_VALID, V2_PDE_VOL),
        ADDR_ROW("ADDRESS_SYS", GMMU_ROLE_ADDR_SYS, V2_PDE_ADDRESS_SHIFT, GMMU_APER_PDE_SYS,
                 GMMU_HALF_NONE, V2_PDE_ADDRESS_SYS),
        ADDR_ROW("ADDRESS_VID", GMMU_ROLE_ADDR_VID, V2_PDE_ADDRESS_SHIFT, GMMU_APER_PDE_VIDEO,
                 GMMU_HALF_NONE, V2_PDE_ADDRESS_VID),
};

static const struct gmmu_field v2_dual_pde_fields[] = {
        GMMU_ROW("APERTURE_BIG", V2_DUAL_APERTURE_BIG, .kind = GMMU_FIELD_ENUM,
                 .role = GMMU_ROLE_APERTURE, .half = GMMU_HALF_BIG, .apertures = GMMU_APER_ALL,
                 GMMU_VALUES(gmmu_pde_aperture_values), .source = "pascal/gp100"),
        GMMU_ROW("VOL_BIG", V2_DUAL_VOL_BIG, .kind = GMMU_FIELD_BOOL, .role = GMMU_ROLE_VOL,
                 .half = GMMU_HALF_BIG, .apertures = GMMU_APER_PDE_VALID,
                 GMMU_VALUES(gmmu_bool_values), .source = "pascal/gp100"),
        ADDR_ROW("ADDRESS_BIG_VID", GMMU_ROLE_ADDR_VID, V2_DUAL_ADDRESS_BIG_SHIFT,
                 GMMU_APER_PDE_VIDEO, GMMU_HALF_BIG, V2_DUAL_ADDRESS_BIG_VID),
        ADDR_ROW("ADDRESS_BIG_SYS", GMMU_ROLE_ADDR_SYS, V2_DUAL_ADDRESS_BIG_SHIFT,
                 GMMU_APER_PDE_SYS, GMMU_HALF_BIG, V2_DUAL_ADDRESS_BIG_SYS),
        GMMU_ROW("APERTURE_SMALL", V2_DUAL_APERTURE_SMALL, .kind = GMMU_FIELD_ENUM,
                 .role = GMMU_ROLE_APERTURE, .half = GMMU_HALF_SMALL, .apertures = GMMU_APER_ALL,
                 GMMU_VALUES(gmmu_pde_aperture_values), .source = "pascal/gp100"),
        GMMU_ROW("VOL_SMALL", V2_DUAL_VOL_SMALL, .kind = GMMU_FIELD_BOOL, .role = GMMU_ROLE_VOL,
                 .half = GMMU_HALF_SMALL, .apertures = GMMU_APER_PDE_VALID,
                 GMMU_VALUES(gmmu_bool_values), .source = "pascal/gp100"),
        ADDR_ROW("ADDRESS_SMALL_VID", GMMU_ROLE_ADDR_VID, V2_DUAL_ADDRESS_SHIFT,
                 GMMU_APER_PDE_VIDEO, GMMU_HALF_SMALL, V2_DUAL_ADDRESS_SMALL_VID),
        ADDR_ROW("ADDRESS_SMALL_SYS", GMMU_ROLE_ADDR_SYS, V2_DUAL_ADDRESS_SHIFT, GMMU_APER_PDE_SYS,
                 GMMU_HALF_SMALL, V2_DUAL_ADDRESS_SMALL_SYS),
};

/* Fast paths. PTE aperture numbering: the peer address is ADDRESS_VID (fldAddrPeer =
 * fldAddrVidmem in kgmmuFmtInitPte_GP10X), sysmem uses ADDRESS_SYS. */
#define V2_PTE_FAST(...)                                                                           \
	{                                                                                          \
		.valid = GMMU_BITS(0, V2_PTE_VALID), .aperture = GMMU_BITS(0, V2_PTE_APERTURE),    \
		.vol = GMMU_BITS(0, V2_PTE_VOL), .encrypted = GMMU_BITS(0, V2_PTE_ENCRYPTED),      \
		.privilege = GMMU_BITS(0, V2_PTE_PRIVILEGE),                                       \
		.read_only = GMMU_BITS(0, V2_PTE_READ_ONLY),                                       \
		.atomic_disable = GMMU_BITS(0, V2_PTE_ATOMIC_DISABLE),                             \
		.peer_index = GMMU_BITS(0, V2_PTE_ADDRESS_VID_PEER),                               \
		.kind = GMMU_BITS(0, V2_PTE_KIND), .comptagline = GMMU_BITS(0, __VA_ARGS__),       \
		.addr = {GMMU_BITS(V2_PTE_ADDRESS_SHIFT, V2_PTE_ADDRESS_VID),                      \
		         GMMU_BITS(V2_PTE_ADDRESS_SHIFT, V2_PTE_ADDRESS_VID),                      \
		         GMMU_BITS(V2_PTE_ADDRESS_SHIFT, V2_PTE_ADDRESS_SYS),                      \
		         GMMU_BITS(V2_PTE_ADDRESS_SHIFT, V2_PTE_ADDRESS_SYS)},                     \
		.aperture_sw = {GMMU_APERTURE_VIDEO, GMMU_APERTURE_PEER, GMMU_APERTURE_SYS_COH,    \
		                GMMU_APERTURE_SYS_NONCOH},                                         \
	}

static const struct gmmu_entry_format v2_pte_gp = {
        .type = GMMU_ENTRY_PTE,
        .prefix = "NV_MMU_VER2_PTE_",
        .size = 8,
        .addr_shift = V2_PTE_ADDRESS_SHIFT,
        .fields = v2_pte_fields_gp,
        .n_fields = GMMU_ARRAY_SIZE(v2_pte_fields_gp),
        .fast = {V2_PTE_FAST(V2_PTE_COMPTAGLINE_GP)},
};

static const struct gmmu_entry_format v2_pte_tu = {
        .type = GMMU_ENTRY_PTE,
        .prefix = "NV_MMU_VER2_PTE_",
        .size = 8,
        .addr_shift = V2_PTE_ADDRESS_SHIFT,
        .fields = v2_pte_fields_tu,
        .n_fields = GMMU_ARRAY_SIZE(v2_pte_fields_tu),
        .fast = {V2_PTE_FAST(V2_PTE_COMPTAGLINE_TU)},
};

static const struct gmmu_entry_format v2_pde = {
        .type = GMMU_ENTRY_PDE,
        .prefix = "NV_MMU_VER2_PDE_",
        .size = 8,
        .addr_shift = V2_PDE_ADDRESS_SHIFT,
        .fields = v2_pde_fields,
        .n_fields = GMMU_ARRAY_SIZE(v2_pde_fields),
        .fast = {{
                .aperture = GMMU_BITS(0, V2_PDE_APERTURE),
                .vol = GMMU_BITS(0, V2_PDE_VOL),
                .addr = {GMMU_NO_ADDR, GMMU_BITS(V2_PDE_ADDRESS_SHIFT, V2_PDE_ADDRESS_VID),
                         GMMU_BITS(V2_PDE_ADDRESS_SHIFT, V2_PDE_ADDRESS_SYS),
                         GMMU_BITS(V2_PDE_ADDRESS_SHIFT, V2_PDE_ADDRESS_SYS)},
                .aperture_sw = GMMU_PDE_APERTURE_SW,
        }},
};

static const struct gmmu_entry_format v2_dual_pde = {
        .type = GMMU_ENTRY_DUAL_PDE,
        .prefix = "NV_MMU_VER2_DUAL_PDE_",
        .size = 16,
        .addr_shift = V2_DUAL_ADDRESS_SHIFT,
        .addr_big_shift = V2_DUAL_ADDRESS_BIG_SHIFT,
        .fields = v2_dual_pde_fields,
        .n_fields = GMMU_ARRAY_SIZE(v2_dual_pde_fields),
        .fast = {{
                         .aperture = GMMU_BITS(0, V2_DUAL_APERTURE_BIG),
                         .vol = GMMU_BITS(0, V2_DUAL_VOL_BIG),
                         .addr = {GMMU_NO_ADDR,
                                  GMMU_BITS(V2_DUAL_ADDRESS_BIG_SHIFT, V2_DUAL_ADDRESS_BIG_VID),
                                  GMMU_BITS(V2_DUAL_ADDRESS_BIG_SHIFT, V2_DUAL_ADDRESS_BIG_SYS),
                                  GMMU_BITS(V2_DUAL_ADDRESS_BIG_SHIFT, V2_DUAL_ADDRESS_BIG_SYS)},
                         .aperture_sw = GMMU_PDE_APERTURE_SW,
                 },
                 {
                         .aperture = GMMU_BITS(0, V2_DUAL_APERTURE_SMALL),
                         .vol = GMMU_BITS(0, V2_DUAL_VOL_SMALL),
                         .addr = {GMMU_NO_ADDR,
                                  GMMU_BITS(V2_DUAL_ADDRESS_SHIFT, V2_DUAL_ADDRESS_SMALL_VID),
                                  GMMU_BITS(V2_DUAL_ADDRESS_SHIFT, V2_DUAL_ADDRESS_SMALL_SYS),
                                  GMMU_BITS(V2_DUAL_ADDRESS_SHIFT, V2_DUAL_ADDRESS_SMALL_SYS)},
                         .aperture_sw = GMMU_PDE_APERTURE_SW,
                 }},
};

/* kgmmuFmtInitLevels_GP10X; GA10X sets bPageTable on PD1 (512 MB pages). */
#define V2_LEVELS(pd1_page_shift)                                                                  \
	{                                                                                          \
		{.name = "PD3", .va_hi = 48, .va_lo = 47, .entry_size = 8, .pde = true},           \
		        {.name = "PD2", .va_hi = 46, .va_lo = 38, .entry_size = 8, .pde = true},   \
		        GMMU_LOWER_LEVELS(pd1_page_shift),                                         \
	}

static const struct gmmu_level v2_levels_gp[] = V2_LEVELS(0);
static const struct gmmu_level v2_levels_ga[] = V2_LEVELS(29);

const struct gmmu_format gmmu_format_v2_gp = {
        .name = "v2-gp",
        .version = 2,
        .summary = "v2, COMPTAGLINE 53:36, 8-bit kinds (GP10x, GV100)",
        .entry = {&v2_pte_gp, &v2_pde, &v2_dual_pde},
        .levels = v2_levels_gp,
        .n_levels = GMMU_ARRAY_SIZE(v2_levels_gp),
        .va_bits = 49,
};

const struct gmmu_format gmmu_format_v2_tu = {
        .name = "v2-tu",
        .version = 2,
        .summary = "v2, COMPTAGLINE 55:36, 4-bit kinds (TU10x)",
        .entry = {&v2_pte_tu, &v2_pde, &v2_dual_pde},
        .levels = v2_levels_gp,
        .n_levels = GMMU_ARRAY_SIZE(v2_levels_gp),
        .va_bits = 49,
        .flags = GMMU_FORMAT_F_NVSWITCH_PEER,
};

const struct gmmu_format gmmu_format_v2_ga = {
        .name = "v2-ga",
        .version = 2,
        .summary = "v2, COMPTAGLINE 55:36, 4-bit kinds, 512 MB pages at PD1 (GA10x, AD10x)",
        .entry = {&v2_pte_tu, &v2_pde, &v2_dual_pde},
        .levels = v2_levels_ga,
        .n_levels = GMMU_ARRAY_SIZE(v2_levels_ga),
        .va_bits = 49,
        .flags = GMMU_FORMAT_F_NVSWITCH_PEER,
};
