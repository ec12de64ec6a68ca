/* SPDX-License-Identifier: MIT */
/* MMU format version 2: Pascal (GP10x), Volta (GV100), Turing (TU10x), Ampere (GA10x),
 * Ada (AD10x). Each layout class takes its bits from its own generation's header:
 *   v2-gp (GP10x, GV100)        pascal/gp100/dev_mmu.h (swref), the complete v2 of Pascal;
 *   v2-tu, v2-ga (TU10x..AD10x) hwref/turing/tu102/dev_mmu.h (kernel-open/nvidia-uvm/hwref),
 *                               the complete v2 of Turing: IS_PTE, NO_ATS and the PDE peer
 *                               fields that Pascal's header does not have.
 * Volta's, Ampere's and the swref Turing header repeat only a few of these defines; no Ada
 * header exists. scripts/gmmu-golden.py compares every one of them with these rows.
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
 * Sparse directory entries: the driver marks a PDE sparse with VOL set under aperture INVALID
 * (kgmmuFmtFamiliesInit_GM200; a dual PDE through its big half), as nouveau does
 * (gp100_vmm_pd0_sparse); the VOL rows name that value SPARSE when the aperture is INVALID.
 */
#include "gmmu_internal.h"

/* ---- bit ranges, one per hwref define (the same in gp100 and tu102 unless said) ---- */
/* NV_MMU_VER2_PTE_* */
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
/* NV_MMU_VER2_PDE_* */
#define V2_PDE_IS_PTE           0, 0 /* tu102 only, also spelled VALID and (inverted) IS_PDE */
#define V2_PDE_APERTURE         2, 1
#define V2_PDE_VOL              3, 3
#define V2_PDE_NO_ATS           5, 5 /* tu102 only */
#define V2_PDE_ADDRESS_SYS      53, 8
#define V2_PDE_ADDRESS_VID      32, 8  /* (35-3):8 */
#define V2_PDE_ADDRESS_VID_PEER 35, 33 /* 35:(36-3), tu102 only */
#define V2_PDE_ADDRESS_SHIFT    12
/* NV_MMU_VER2_DUAL_PDE_* */
#define V2_DUAL_IS_PTE                 0, 0 /* tu102 only */
#define V2_DUAL_APERTURE_BIG           2, 1
#define V2_DUAL_VOL_BIG                3, 3
#define V2_DUAL_NO_ATS                 5, 5   /* tu102 only; inside ADDRESS_BIG_* */
#define V2_DUAL_ADDRESS_BIG_VID        32, 4  /* (35-3):(8-4) */
#define V2_DUAL_ADDRESS_BIG_VID_PEER   35, 33 /* 35:(36-3), tu102 only */
#define V2_DUAL_ADDRESS_BIG_SYS        53, 4  /* 53:(8-4) */
#define V2_DUAL_APERTURE_SMALL         66, 65
#define V2_DUAL_VOL_SMALL              67, 67
#define V2_DUAL_ADDRESS_SMALL_VID      96, 72 /* (99-3):72 */
#define V2_DUAL_ADDRESS_SMALL_VID_PEER 99, 97 /* 99:(100-3), tu102 only */
#define V2_DUAL_ADDRESS_SMALL_SYS      117, 72
#define V2_DUAL_ADDRESS_BIG_SHIFT      8
#define V2_DUAL_ADDRESS_SHIFT          12

#define SRC_GP "pascal/gp100"
#define SRC_TU "hwref/turing/tu102"

/* NV_MMU_PTE_KIND_* of pascal/gp100: the header names only these 8-bit kinds. */
static const struct gmmu_value kind_values_gp[] = {
        {"PITCH", 0x00},
        {"C32_MS4_4CBRA", 0x2c},
        {"C64_MS4_4CBRA", 0x2d},
        {"INVALID", 0xff},
};

/* NV_MMU_VER2_PDE_IS_PDE_*: the inverse spelling of IS_PTE. */
static const struct gmmu_value is_pde_values[2] = {
        {"TRUE", 0},
        {"FALSE", 1},
};

/* VOL of a directory entry whose aperture is INVALID: set, it marks the entry sparse. */
static const struct gmmu_value vol_invalid_values[2] = {
        {"FALSE", 0},
        {"SPARSE", 1},
};

#define BOOL_ROW(src, nm, r, aper, ...)                                                            \
	GMMU_ROW(nm, __VA_ARGS__, .kind = GMMU_FIELD_BOOL, .role = (r), .apertures = (aper),       \
	         GMMU_VALUES(gmmu_bool_values), .source = (src))
#define ADDR_ROW(src, nm, r, sh, aper, hf, ...)                                                    \
	GMMU_ROW(nm, __VA_ARGS__, .kind = GMMU_FIELD_ADDR, .role = (r),                            \
	         .setter = GMMU_SETTER_DESC64, .addr_shift = (sh), .apertures = (aper),            \
	         .half = (hf), .source = (src))
/* A directory entry's VOL: shown for every aperture, SPARSE under INVALID. */
#define VOL_ROW(src, nm, hf, ...)                                                                  \
	GMMU_ROW(nm, __VA_ARGS__, .kind = GMMU_FIELD_BOOL, .role = GMMU_ROLE_VOL, .half = (hf),    \
	         .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_bool_values),                        \
	         GMMU_VALUES_INVALID(vol_invalid_values), .source = (src))
/* IS_PTE and its two other spellings (tu102). */
#define IS_PTE_ROWS(...)                                                                           \
	BOOL_ROW(SRC_TU, "IS_PTE", GMMU_ROLE_NONE, GMMU_APER_ALL, __VA_ARGS__),                    \
	        GMMU_ROW("VALID", __VA_ARGS__, .kind = GMMU_FIELD_BOOL,                            \
	                 .apertures = GMMU_APER_ALL, .flags = GMMU_FIELD_F_ALIAS,                  \
	                 GMMU_VALUES(gmmu_bool_values), .source = SRC_TU),                         \
	        GMMU_ROW("IS_PDE", __VA_ARGS__, .kind = GMMU_FIELD_BOOL,                           \
	                 .apertures = GMMU_APER_ALL, .flags = GMMU_FIELD_F_ALIAS,                  \
	                 GMMU_VALUES(is_pde_values), .source = SRC_TU)
/* A directory entry's peer index (tu102): no driver writes it; shown when set. */
#define VID_PEER_ROW(nm, hf, aper, ...)                                                            \
	GMMU_ROW(nm, __VA_ARGS__, .kind = GMMU_FIELD_INT, .half = (hf), .apertures = (aper),       \
	         .flags = GMMU_FIELD_F_IF_SET, .source = SRC_TU)

/* Rows every v2 PTE shares; COMPTAGLINE and KIND follow per layout class. */
#define V2_PTE_SHARED_ROWS(src)                                                                    \
	BOOL_ROW(src, "VALID", GMMU_ROLE_VALID, GMMU_APER_ALL, V2_PTE_VALID),                      \
	        GMMU_ROW("APERTURE", V2_PTE_APERTURE, .kind = GMMU_FIELD_ENUM,                     \
	                 .role = GMMU_ROLE_APERTURE, .apertures = GMMU_APER_ALL,                   \
	                 GMMU_VALUES(gmmu_pte_aperture_values), .source = (src)),                  \
	        BOOL_ROW(src, "VOL", GMMU_ROLE_VOL, GMMU_APER_ALL, V2_PTE_VOL),                    \
	        GMMU_ROW("ENCRYPTED", V2_PTE_ENCRYPTED, .kind = GMMU_FIELD_BOOL,                   \
	                 .role = GMMU_ROLE_ENCRYPTED, .apertures = GMMU_APER_ALL,                  \
	                 .flags = GMMU_FIELD_F_READ_ONLY, GMMU_VALUES(gmmu_bool_values),           \
	                 .source = (src)),                                                         \
	        BOOL_ROW(src, "PRIVILEGE", GMMU_ROLE_PRIVILEGE, GMMU_APER_ALL, V2_PTE_PRIVILEGE),  \
	        BOOL_ROW(src, "READ_ONLY", GMMU_ROLE_READ_ONLY, GMMU_APER_ALL, V2_PTE_READ_ONLY),  \
	        BOOL_ROW(src, "ATOMIC_DISABLE", GMMU_ROLE_ATOMIC_DISABLE, GMMU_APER_ALL,           \
	                 V2_PTE_ATOMIC_DISABLE),                                                   \
	        ADDR_ROW(src, "ADDRESS_SYS", GMMU_ROLE_ADDR_SYS, V2_PTE_ADDRESS_SHIFT,             \
	                 GMMU_APER_PTE_SYS, GMMU_HALF_NONE, V2_PTE_ADDRESS_SYS),                   \
	        ADDR_ROW(src, "ADDRESS_VID", GMMU_ROLE_ADDR_VID, V2_PTE_ADDRESS_SHIFT,             \
	                 GMMU_APER_PTE_VIDEO | GMMU_APER_PTE_PEER, GMMU_HALF_NONE,                 \
	                 V2_PTE_ADDRESS_VID),                                                      \
	        GMMU_ROW("ADDRESS_VID_PEER", V2_PTE_ADDRESS_VID_PEER, .kind = GMMU_FIELD_INT,      \
	                 .role = GMMU_ROLE_PEER_INDEX, .apertures = GMMU_APER_PTE_PEER,            \
	                 .source = (src))

/* Comptag lines exist for video memory (and a peer's video memory); in a sysmem PTE the
 * same bits belong to ADDRESS_SYS. */
#define COMPTAGLINE_APER (GMMU_APER_PTE_VIDEO | GMMU_APER_PTE_PEER)

static const struct gmmu_field v2_pte_fields_gp[] = {
        V2_PTE_SHARED_ROWS(SRC_GP),
        GMMU_ROW("COMPTAGLINE", V2_PTE_COMPTAGLINE_GP, .kind = GMMU_FIELD_INT,
                 .role = GMMU_ROLE_COMPTAGLINE, .apertures = COMPTAGLINE_APER, .source = SRC_GP),
        GMMU_ROW("KIND", V2_PTE_KIND, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_KIND,
                 .apertures = GMMU_APER_ALL, GMMU_VALUES(kind_values_gp), .source = SRC_GP),
};

/* KIND: the 4-bit kinds of Turing and later. (The hwref copy of the Turing header also lists
 * the pre-Turing 8-bit kinds, 0x10..0xfe; the driver's swref tu102 header and nouveau's
 * tu102_mmu_kind know only these 16.) */
static const struct gmmu_field v2_pte_fields_tu[] = {
        V2_PTE_SHARED_ROWS(SRC_TU),
        GMMU_ROW("COMPTAGLINE", V2_PTE_COMPTAGLINE_TU, .kind = GMMU_FIELD_INT,
                 .role = GMMU_ROLE_COMPTAGLINE, .apertures = COMPTAGLINE_APER, .source = SRC_TU),
        GMMU_ROW("KIND", V2_PTE_KIND, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_KIND,
                 .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_kind_values_tu), .source = SRC_TU),
};

#define V2_PDE_HEAD_ROWS(src)                                                                      \
	GMMU_ROW("APERTURE", V2_PDE_APERTURE, .kind = GMMU_FIELD_ENUM, .role = GMMU_ROLE_APERTURE, \
	         .apertures = GMMU_APER_ALL, GMMU_VALUES(gmmu_pde_aperture_values),                \
	         .source = (src)),                                                                 \
	        VOL_ROW(src, "VOL", GMMU_HALF_NONE, V2_PDE_VOL)
#define V2_PDE_ADDR_ROWS(src)                                                                      \
	ADDR_ROW(src, "ADDRESS_SYS", GMMU_ROLE_ADDR_SYS, V2_PDE_ADDRESS_SHIFT, GMMU_APER_PDE_SYS,  \
	         GMMU_HALF_NONE, V2_PDE_ADDRESS_SYS),                                              \
	        ADDR_ROW(src, "ADDRESS_VID", GMMU_ROLE_ADDR_VID, V2_PDE_ADDRESS_SHIFT,             \
	                 GMMU_APER_PDE_VIDEO, GMMU_HALF_NONE, V2_PDE_ADDRESS_VID)

static const struct gmmu_field v2_pde_fields_gp[] = {V2_PDE_HEAD_ROWS(SRC_GP),
                                                     V2_PDE_ADDR_ROWS(SRC_GP)};

static const struct gmmu_field v2_pde_fields_tu[] = {
        IS_PTE_ROWS(V2_PDE_IS_PTE),
        V2_PDE_HEAD_ROWS(SRC_TU),
        BOOL_ROW(SRC_TU, "NO_ATS", GMMU_ROLE_NONE, GMMU_APER_ALL, V2_PDE_NO_ATS),
        V2_PDE_ADDR_ROWS(SRC_TU),
        VID_PEER_ROW("ADDRESS_VID_PEER", GMMU_HALF_NONE, GMMU_APER_PDE_VIDEO,
                     V2_PDE_ADDRESS_VID_PEER),
};

#define V2_DUAL_BIG_HEAD_ROWS(src)                                                                 \
	GMMU_ROW("APERTURE_BIG", V2_DUAL_APERTURE_BIG, .kind = GMMU_FIELD_ENUM,                    \
	         .role = GMMU_ROLE_APERTURE, .half = GMMU_HALF_BIG, .apertures = GMMU_APER_ALL,    \
	         GMMU_VALUES(gmmu_pde_aperture_values), .source = (src)),                          \
	        VOL_ROW(src, "VOL_BIG", GMMU_HALF_BIG, V2_DUAL_VOL_BIG)
#define V2_DUAL_BIG_ADDR_ROWS(src)                                                                 \
	ADDR_ROW(src, "ADDRESS_BIG_VID", GMMU_ROLE_ADDR_VID, V2_DUAL_ADDRESS_BIG_SHIFT,            \
	         GMMU_APER_PDE_VIDEO, GMMU_HALF_BIG, V2_DUAL_ADDRESS_BIG_VID),                     \
	        ADDR_ROW(src, "ADDRESS_BIG_SYS", GMMU_ROLE_ADDR_SYS, V2_DUAL_ADDRESS_BIG_SHIFT,    \
	                 GMMU_APER_PDE_SYS, GMMU_HALF_BIG, V2_DUAL_ADDRESS_BIG_SYS)
#define V2_DUAL_SMALL_ROWS(src)                                                                    \
	GMMU_ROW("APERTURE_SMALL", V2_DUAL_APERTURE_SMALL, .kind = GMMU_FIELD_ENUM,                \
	         .role = GMMU_ROLE_APERTURE, .half = GMMU_HALF_SMALL, .apertures = GMMU_APER_ALL,  \
	         GMMU_VALUES(gmmu_pde_aperture_values), .source = (src)),                          \
	        VOL_ROW(src, "VOL_SMALL", GMMU_HALF_SMALL, V2_DUAL_VOL_SMALL),                     \
	        ADDR_ROW(src, "ADDRESS_SMALL_VID", GMMU_ROLE_ADDR_VID, V2_DUAL_ADDRESS_SHIFT,      \
	                 GMMU_APER_PDE_VIDEO, GMMU_HALF_SMALL, V2_DUAL_ADDRESS_SMALL_VID),         \
	        ADDR_ROW(src, "ADDRESS_SMALL_SYS", GMMU_ROLE_ADDR_SYS, V2_DUAL_ADDRESS_SHIFT,      \
	                 GMMU_APER_PDE_SYS, GMMU_HALF_SMALL, V2_DUAL_ADDRESS_SMALL_SYS)

static const struct gmmu_field v2_dual_pde_fields_gp[] = {
        V2_DUAL_BIG_HEAD_ROWS(SRC_GP),
        V2_DUAL_BIG_ADDR_ROWS(SRC_GP),
        V2_DUAL_SMALL_ROWS(SRC_GP),
};

static const struct gmmu_field v2_dual_pde_fields_tu[] = {
        IS_PTE_ROWS(V2_DUAL_IS_PTE),
        V2_DUAL_BIG_HEAD_ROWS(SRC_TU),
        /* The header puts NO_ATS inside ADDRESS_BIG_* (32:4, 53:4): with a valid big half
         * bit 5 is bit 9 of the big page table's address. It is shown as NO_ATS where no
         * address claims it, under an INVALID big half, which is where writers set it
         * (tinygrad's userspace driver maps small page tables only). */
        GMMU_ROW("NO_ATS", V2_DUAL_NO_ATS, .kind = GMMU_FIELD_BOOL, .half = GMMU_HALF_BIG,
                 .apertures = GMMU_APER_HW(0), GMMU_VALUES(gmmu_bool_values), .source = SRC_TU),
        V2_DUAL_BIG_ADDR_ROWS(SRC_TU),
        VID_PEER_ROW("ADDRESS_BIG_VID_PEER", GMMU_HALF_BIG, GMMU_APER_PDE_VIDEO,
                     V2_DUAL_ADDRESS_BIG_VID_PEER),
        V2_DUAL_SMALL_ROWS(SRC_TU),
        VID_PEER_ROW("ADDRESS_SMALL_VID_PEER", GMMU_HALF_SMALL, GMMU_APER_PDE_VIDEO,
                     V2_DUAL_ADDRESS_SMALL_VID_PEER),
};

/* What the driver writes for a sparse entry (kgmmuFmtFamiliesInit_GM200): a PTE VALID 0 with
 * VOL 1, a PDE APERTURE INVALID with VOL 1, a dual PDE both halves INVALID with VOL_BIG 1. */
#define V2_SPARSE_VOL (1ull << 3)

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
        .sparse = {V2_SPARSE_VOL, 0},
};

static const struct gmmu_entry_format v2_pte_tu = {
        .type = GMMU_ENTRY_PTE,
        .prefix = "NV_MMU_VER2_PTE_",
        .size = 8,
        .addr_shift = V2_PTE_ADDRESS_SHIFT,
        .fields = v2_pte_fields_tu,
        .n_fields = GMMU_ARRAY_SIZE(v2_pte_fields_tu),
        .fast = {V2_PTE_FAST(V2_PTE_COMPTAGLINE_TU)},
        .sparse = {V2_SPARSE_VOL, 0},
};

/* The fast paths of the directory entries are the same in both layout classes (the rows
 * Turing adds are not needed to follow a walk). */
#define V2_PDE_FAST                                                                                \
	{                                                                                          \
		.aperture = GMMU_BITS(0, V2_PDE_APERTURE), .vol = GMMU_BITS(0, V2_PDE_VOL),        \
		.addr = {GMMU_NO_ADDR, GMMU_BITS(V2_PDE_ADDRESS_SHIFT, V2_PDE_ADDRESS_VID),        \
		         GMMU_BITS(V2_PDE_ADDRESS_SHIFT, V2_PDE_ADDRESS_SYS),                      \
		         GMMU_BITS(V2_PDE_ADDRESS_SHIFT, V2_PDE_ADDRESS_SYS)},                     \
		.aperture_sw = GMMU_PDE_APERTURE_SW,                                               \
	}
#define V2_DUAL_FAST(H, SH)                                                                        \
	{                                                                                          \
		.aperture = GMMU_BITS(0, V2_DUAL_APERTURE_##H),                                    \
		.vol = GMMU_BITS(0, V2_DUAL_VOL_##H),                                              \
		.addr = {GMMU_NO_ADDR, GMMU_BITS(SH, V2_DUAL_ADDRESS_##H##_VID),                   \
		         GMMU_BITS(SH, V2_DUAL_ADDRESS_##H##_SYS),                                 \
		         GMMU_BITS(SH, V2_DUAL_ADDRESS_##H##_SYS)},                                \
		.aperture_sw = GMMU_PDE_APERTURE_SW,                                               \
	}

#define V2_PDE(fields_)                                                                            \
	{                                                                                          \
		.type = GMMU_ENTRY_PDE, .prefix = "NV_MMU_VER2_PDE_", .size = 8,                   \
		.addr_shift = V2_PDE_ADDRESS_SHIFT, .fields = (fields_),                           \
		.n_fields = GMMU_ARRAY_SIZE(fields_), .fast = {V2_PDE_FAST},                       \
		.sparse = {V2_SPARSE_VOL, 0},                                                      \
	}
#define V2_DUAL_PDE(fields_)                                                                       \
	{                                                                                          \
		.type = GMMU_ENTRY_DUAL_PDE, .prefix = "NV_MMU_VER2_DUAL_PDE_", .size = 16,        \
		.addr_shift = V2_DUAL_ADDRESS_SHIFT, .addr_big_shift = V2_DUAL_ADDRESS_BIG_SHIFT,  \
		.fields = (fields_), .n_fields = GMMU_ARRAY_SIZE(fields_),                         \
		.fast = {V2_DUAL_FAST(BIG, V2_DUAL_ADDRESS_BIG_SHIFT),                             \
		         V2_DUAL_FAST(SMALL, V2_DUAL_ADDRESS_SHIFT)},                              \
		.sparse = {V2_SPARSE_VOL, 0},                                                      \
	}

static const struct gmmu_entry_format v2_pde_gp = V2_PDE(v2_pde_fields_gp);
static const struct gmmu_entry_format v2_pde_tu = V2_PDE(v2_pde_fields_tu);
static const struct gmmu_entry_format v2_dual_pde_gp = V2_DUAL_PDE(v2_dual_pde_fields_gp);
static const struct gmmu_entry_format v2_dual_pde_tu = V2_DUAL_PDE(v2_dual_pde_fields_tu);

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
        .entry = {&v2_pte_gp, &v2_pde_gp, &v2_dual_pde_gp},
        .levels = v2_levels_gp,
        .n_levels = GMMU_ARRAY_SIZE(v2_levels_gp),
        .va_bits = 49,
};

const struct gmmu_format gmmu_format_v2_tu = {
        .name = "v2-tu",
        .version = 2,
        .summary = "v2, COMPTAGLINE 55:36, 4-bit kinds (TU10x)",
        .entry = {&v2_pte_tu, &v2_pde_tu, &v2_dual_pde_tu},
        .levels = v2_levels_gp,
        .n_levels = GMMU_ARRAY_SIZE(v2_levels_gp),
        .va_bits = 49,
        .flags = GMMU_FORMAT_F_NVSWITCH_PEER,
};

const struct gmmu_format gmmu_format_v2_ga = {
        .name = "v2-ga",
        .version = 2,
        .summary = "v2, COMPTAGLINE 55:36, 4-bit kinds, 512 MB pages at PD1 (GA10x, AD10x)",
        .entry = {&v2_pte_tu, &v2_pde_tu, &v2_dual_pde_tu},
        .levels = v2_levels_ga,
        .n_levels = GMMU_ARRAY_SIZE(v2_levels_ga),
        .va_bits = 49,
        .flags = GMMU_FORMAT_F_NVSWITCH_PEER,
};
