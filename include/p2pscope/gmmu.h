/* SPDX-License-Identifier: MIT */
/* libgmmu: NVIDIA GPU MMU (GMMU) page-table entry formats as data.
 *
 * The formats (MMU format version 2: Pascal..Ada, version 3: Hopper, Blackwell) are tables of
 * fields whose bit positions come from NVIDIA's published dev_mmu.h headers
 * (NVIDIA/open-gpu-kernel-modules, tag 595.45.04); the chip-to-format map comes from the same
 * driver's HAL dispatch (g_kern_gmmu_nvoc.c). See docs/gmmu.md.
 *
 * Three layers:
 *   1. tables  - gmmu_chip_find(), gmmu_format_find(), struct gmmu_format / gmmu_entry_format /
 *                gmmu_field / gmmu_level: everything the tables know, for tools and tests;
 *   2. values  - gmmu_field_get/set(), gmmu_entry_decode(): field-by-field access with the
 *                driver's two write behaviours (checked, as-written);
 *   3. views   - gmmu_pte_view(), gmmu_pde_view(), gmmu_dual_pde_view(): allocation-free,
 *                string-free, branch-light decode of one entry for loops over large dumps,
 *                driven by the precomputed masks in struct gmmu_fast.
 * Plus the P2P mapping model, gmmu_p2p_encode().
 *
 * Entries are little-endian in memory. A 64-bit entry is one uint64_t; a 128-bit dual PDE is
 * two, w[0] = bits 63:0 and w[1] = bits 127:64. Load them with p2ps_le64() (p2pscope/bytes.h).
 *
 * Every function that can fail returns 0 or a negative P2PS_E* code and fills the optional
 * struct p2ps_error. Nothing here allocates, prints or keeps state between calls.
 */
#ifndef P2PSCOPE_GMMU_H
#define P2PSCOPE_GMMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tag of NVIDIA/open-gpu-kernel-modules whose headers the tables were checked against. */
#define GMMU_DRIVER_TAG "595.45.04"

/* ------------------------------------------------------------------------------------------ */
/* Tables                                                                                      */

enum gmmu_entry_type {
	GMMU_ENTRY_PTE = 0,      /* 8-byte page-table entry */
	GMMU_ENTRY_PDE = 1,      /* 8-byte page-directory entry */
	GMMU_ENTRY_DUAL_PDE = 2, /* 16-byte PDE pointing at a big- and a small-page table */
	GMMU_ENTRY_TYPE_COUNT = 3,
};

/* Where an entry points, as software sees it (the driver's GMMU_APERTURE). The hardware
 * numbering differs between PTEs (0 video, 1 peer, 2 sys coherent, 3 sys non-coherent) and
 * PDEs (0 invalid, 1 video, 2 sys coherent, 3 sys non-coherent); the tables translate. */
enum gmmu_aperture {
	GMMU_APERTURE_INVALID = 0,
	GMMU_APERTURE_VIDEO = 1,
	GMMU_APERTURE_PEER = 2,
	GMMU_APERTURE_SYS_COH = 3,
	GMMU_APERTURE_SYS_NONCOH = 4,
};

enum gmmu_field_kind {
	GMMU_FIELD_BOOL, /* one bit, TRUE/FALSE */
	GMMU_FIELD_INT,  /* plain number (COMPTAGLINE, KIND without a known name ...) */
	GMMU_FIELD_ENUM, /* number with named values (APERTURE, PCF, KIND ...) */
	GMMU_FIELD_ADDR, /* frame number: byte address = value << addr_shift */
};

/* How the driver stores the field, which decides what a non-checked build writes when the
 * value does not fit (see gmmu_field_set()). */
enum gmmu_setter {
	GMMU_SETTER_DESC32, /* nvFieldSet32: 32-bit word, value shifted but not masked */
	GMMU_SETTER_DESC64, /* nvFieldSet64 (addresses): value masked to the field */
};

/* What a field means to the fast views. */
enum gmmu_role {
	GMMU_ROLE_NONE = 0,
	GMMU_ROLE_VALID,
	GMMU_ROLE_APERTURE,
	GMMU_ROLE_VOL,
	GMMU_ROLE_ENCRYPTED,
	GMMU_ROLE_PRIVILEGE,
	GMMU_ROLE_READ_ONLY,
	GMMU_ROLE_ATOMIC_DISABLE,
	GMMU_ROLE_ADDR_SYS,  /* address used for SYS_COH / SYS_NONCOH */
	GMMU_ROLE_ADDR_VID,  /* address used for VIDEO */
	GMMU_ROLE_ADDR_PEER, /* address used for PEER (v2: same bits as ADDR_VID) */
	GMMU_ROLE_ADDR,      /* one address for every aperture (v3) */
	GMMU_ROLE_PEER_INDEX,
	GMMU_ROLE_KIND,
	GMMU_ROLE_COMPTAGLINE,
	GMMU_ROLE_PCF,
};

/* Which part of a dual PDE a field belongs to (GMMU_HALF_NONE for 8-byte entries and for the
 * dual PDE's IS_PTE bit). */
enum gmmu_half {
	GMMU_HALF_NONE = 0,
	GMMU_HALF_BIG = 1,
	GMMU_HALF_SMALL = 2,
};

struct gmmu_value {
	const char *name; /* hwref value name without the field prefix: "PEER_MEMORY" */
	uint32_t value;
};

/* Bit masks over the hardware aperture value (0..3) of the governing APERTURE field. */
#define GMMU_APER_HW(n) (1u << (n))
#define GMMU_APER_ALL   0xfu

/* Field flags. */
#define GMMU_FIELD_F_ALIAS     0x1u /* same bits as another field; accepted, not displayed */
#define GMMU_FIELD_F_READ_ONLY 0x2u /* header marks the values R---V (ENCRYPTED on v2) */
/* Shown only when non-zero: a field the header defines but no writer sets (the peer index
 * of a v2 PDE). */
#define GMMU_FIELD_F_IF_SET 0x4u

struct gmmu_field {
	const char *name; /* hwref name without NV_MMU_VERn_{PTE,PDE,DUAL_PDE}_ */
	uint8_t hi, lo;   /* bit numbers within the entry, 0..127 */
	enum gmmu_field_kind kind;
	enum gmmu_role role;
	enum gmmu_setter setter;
	enum gmmu_half half;
	uint8_t addr_shift;              /* ADDR: byte address = field value << addr_shift */
	uint8_t apertures;               /* GMMU_APER_HW() set of the apertures that use the field;
	                                  * GMMU_APER_ALL for fields that do not depend on it */
	uint8_t flags;                   /* GMMU_FIELD_F_* */
	const struct gmmu_value *values; /* named values (ENUM/BOOL), or NULL */
	size_t n_values;
	const struct gmmu_value *values_invalid; /* names used when the entry is not valid
	                                          * (v3 PCF), or NULL */
	size_t n_values_invalid;
	const char *source;        /* the dev_mmu.h the bits were taken from, e.g. "hopper/gh100" */
	const char *values_source; /* the dev_mmu.h of the named values when it differs, or NULL */
};

/* Precomputed extraction of one field from a 64-bit word: (w[word] >> lo) & mask.
 * A field a format lacks has mask 0, so extraction yields 0 without a branch. */
struct gmmu_bits {
	uint8_t word;  /* 0: bits 63:0, 1: bits 127:64 */
	uint8_t lo;    /* bit within that word */
	uint8_t shift; /* ADDR: byte address = extracted << shift */
	uint64_t mask; /* right-aligned mask of the field's width */
};

/* Fast-path description of a PTE or of one half (or the whole) of a PDE. */
struct gmmu_fast {
	struct gmmu_bits valid, aperture, vol, encrypted, privilege, read_only, atomic_disable;
	struct gmmu_bits peer_index, kind, comptagline, pcf;
	struct gmmu_bits addr[4];          /* address bits per hardware aperture value */
	enum gmmu_aperture aperture_sw[4]; /* hardware aperture value -> gmmu_aperture */
	/* v3 PTE: the access flags live in PCF. Masks over the PCF value of a valid PTE. */
	uint8_t pcf_uncached, pcf_privilege, pcf_read_only, pcf_no_atomic, pcf_acd;
	/* PCF values of an invalid v3 PTE that mean "sparse" (v2: VALID=0 and VOL=1). */
	uint8_t pcf_sparse;
};

struct gmmu_entry_format {
	enum gmmu_entry_type type;
	const char *prefix;     /* "NV_MMU_VER2_PTE_" */
	uint8_t size;           /* bytes: 8 or 16 */
	uint8_t addr_shift;     /* the header's ADDRESS_SHIFT */
	uint8_t addr_big_shift; /* dual PDE: ADDRESS_BIG_SHIFT, else 0 */
	const struct gmmu_field *fields;
	size_t n_fields;
	/* Fast paths: PTE and PDE use fast[0]; a dual PDE uses fast[0] for the big half and
	 * fast[1] for the small half. */
	struct gmmu_fast fast[2];
	/* The entry the driver writes to mark this entry sparse (the format family's sparsePte,
	 * sparsePde and sparsePdeMulti templates), w[1] for the upper half of a dual PDE. */
	uint64_t sparse[2];
};

struct gmmu_level {
	const char *name;     /* the driver's name: "PD3" (root) .. "PD0", "PT_BIG", "PT_SMALL" */
	uint8_t va_hi, va_lo; /* virtual-address bits this level indexes */
	uint8_t entry_size;   /* 8 or 16 (dual PDE) */
	uint8_t page_shift;   /* log2 of the page size a PTE at this level maps; 0: no PTEs here */
	bool dual;            /* entries are dual PDEs (big + small sub-tables) */
	bool pde;             /* entries may be PDEs (every level but the page tables) */
	uint8_t alt_va_lo; /* PT_BIG with 128 KB big pages: 17 (va_lo, page_shift are for 64 KB) */
};

struct gmmu_format {
	const char *name;    /* "v2-gp", "v2-tu", "v2-ga", "v3-gh", "v3-gb" */
	unsigned version;    /* MMU format version: 2 or 3 */
	const char *summary; /* one line for listings */
	const struct gmmu_entry_format *entry[GMMU_ENTRY_TYPE_COUNT];
	const struct gmmu_level *levels; /* root first */
	size_t n_levels;
	uint8_t va_bits; /* virtual address width: 49 (v2) or 57 (v3) */
	unsigned flags;  /* GMMU_FORMAT_F_* */
};

/* The format can continue a peer address from ADDRESS_VID into COMPTAGLINE (the NVSwitch
 * "47-bit peer addressing" of kgmmuFmtInitPeerPteFld_TU10X: TU10x, GA10x, AD10x). */
#define GMMU_FORMAT_F_NVSWITCH_PEER 0x1u
/* The stock driver has a BAR1-P2P path for these chips (kbusCreateP2PMappingForBar1P2P_GH100
 * in the HAL of GH100 and every Blackwell chip). */
#define GMMU_FORMAT_F_BAR1P2P 0x2u
/* ... and maps the peer's BAR1 SYSTEM_COHERENT, because BAR1-P2P atomics are enabled
 * (_nvGpuOpsIsBar1P2pAtomicEnabled: Blackwell and later); otherwise SYSTEM_NON_COHERENT. */
#define GMMU_FORMAT_F_BAR1P2P_COHERENT 0x4u

struct gmmu_chip {
	const char *name;     /* HAL name, "AD102" */
	const char *family;   /* "Ada" */
	const char *examples; /* boards, "RTX 4090, RTX 6000 Ada", or "" */
	const struct gmmu_format *format;
	const char *source; /* where the assignment comes from */
	/* A caveat tools print with the chip (the chip's own dev_mmu.h is not public, so the
	 * bits are those of the format the driver assigns it), or NULL. */
	const char *note;
};

/* Table access. Names are matched case-insensitively. *_find() return NULL when unknown. */
size_t gmmu_format_count(void);
const struct gmmu_format *gmmu_format_at(size_t i);
/* Accepts the format names above and the version aliases "v2" (= v2-ga, TU10x..AD10x layout)
 * and "v3" (= v3-gb). */
const struct gmmu_format *gmmu_format_find(const char *name);
/* The i-th version alias ("v2") and the format it names, or NULL past the last. */
const char *gmmu_format_alias(size_t i, const struct gmmu_format **format);
size_t gmmu_chip_count(void);
const struct gmmu_chip *gmmu_chip_at(size_t i);
const struct gmmu_chip *gmmu_chip_find(const char *name);

/* Like the *_find() functions but fill err with a one-line message listing the known names. */
int gmmu_format_lookup(const char *name, const struct gmmu_format **out, struct p2ps_error *err);
int gmmu_chip_lookup(const char *name, const struct gmmu_format **out, struct p2ps_error *err);

static inline const struct gmmu_entry_format *gmmu_format_entry(const struct gmmu_format *f,
                                                                enum gmmu_entry_type t)
{
	return (unsigned)t < GMMU_ENTRY_TYPE_COUNT ? f->entry[t] : NULL;
}

const char *gmmu_entry_type_name(enum gmmu_entry_type t); /* "pte", "pde", "dual-pde" */
int gmmu_entry_type_parse(const char *s, enum gmmu_entry_type *out, struct p2ps_error *err);
const char *gmmu_aperture_name(enum gmmu_aperture a); /* "VIDEO", "PEER", "SYS_COH" ... */

/* Field of an entry format by name (case-insensitive), or NULL. */
const struct gmmu_field *gmmu_field_find(const struct gmmu_entry_format *ef, const char *name);
/* Width in bits and the right-aligned mask of a field. */
static inline unsigned gmmu_field_width(const struct gmmu_field *fd)
{
	return (unsigned)(fd->hi - fd->lo) + 1u;
}
static inline uint64_t gmmu_field_mask(const struct gmmu_field *fd)
{
	return gmmu_field_width(fd) >= 64 ? ~0ull : (1ull << gmmu_field_width(fd)) - 1;
}
/* Largest byte address an ADDR field can hold (0 for other kinds). */
uint64_t gmmu_field_addr_max(const struct gmmu_field *fd);

/* Named value of a field (NULL when the value has no name). entry_valid selects the
 * values_invalid table for fields that have one. */
const char *gmmu_field_value_name(const struct gmmu_field *fd, uint64_t value, bool entry_valid);
/* Parses an unsigned number: decimal or 0x hex, whole string, no sign, no octal: the
 * shared p2ps_parse_uint() of p2pscope/parse.h with the whole 64-bit range. 0, P2PS_EINVAL
 * or P2PS_ERANGE (more than 64 bits). */
int gmmu_parse_u64(const char *s, uint64_t *out);
/* Parses a value: a name of the field (case-insensitive, either table) or a number
 * (decimal, 0x hex). For ADDR fields the number is a byte address. Does not range-check. */
int gmmu_field_value_parse(const struct gmmu_field *fd, const char *s, uint64_t *out,
                           struct p2ps_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Values                                                                                      */

enum gmmu_write_mode {
	/* What a checked driver build asserts: a value that does not fit its field, or an address
	 * not aligned to the field's shift, is refused (P2PS_ERANGE / P2PS_EINVAL), naming the
	 * field, its bits, its width and the value. */
	GMMU_WRITE_CHECKED = 0,
	/* What a release build stores when that assertion fails: DESC32 fields
	 * (flags, KIND, peer index, PCF, COMPTAGLINE) are written as
	 * word = (word & ~mask) | (uint32_t)(value << shift), so high bits smear into the
	 * neighbouring fields of the same 32-bit word; DESC64 fields (addresses) are masked,
	 * and an address's low bits below its shift are dropped. Never fails on range. */
	GMMU_WRITE_AS_WRITTEN = 1,
};

/* Raw field value (for ADDR fields: the frame number, not the byte address). */
uint64_t gmmu_field_get(const struct gmmu_field *fd, const uint64_t w[2]);
/* Byte address of an ADDR field: gmmu_field_get() << addr_shift. */
uint64_t gmmu_field_get_addr(const struct gmmu_field *fd, const uint64_t w[2]);
/* Writes a raw field value into w (w[1] is touched only for fields above bit 63). */
int gmmu_field_set(const struct gmmu_field *fd, uint64_t value, enum gmmu_write_mode mode,
                   uint64_t w[2], struct p2ps_error *err);
/* Writes a byte address into an ADDR field (the driver's gmmuFieldSetAddress). */
int gmmu_field_set_addr(const struct gmmu_field *fd, uint64_t addr, enum gmmu_write_mode mode,
                        uint64_t w[2], struct p2ps_error *err);
/* Field by name, value parsed by gmmu_field_value_parse(), then gmmu_field_set[_addr](). */
int gmmu_entry_set(const struct gmmu_entry_format *ef, const char *field, const char *value,
                   enum gmmu_write_mode mode, uint64_t w[2], struct p2ps_error *err);

/* Field-by-field decode: which fields apply to this entry and their values. */
#define GMMU_MAX_FIELDS 32
struct gmmu_decoded {
	const struct gmmu_entry_format *ef;
	uint64_t w[2];
	bool valid;                      /* PTE: VALID; PDE: aperture != INVALID;
	                                  * dual PDE: either half's aperture != INVALID */
	bool half_valid[3];              /* by enum gmmu_half: validity of each part */
	unsigned aperture_hw[3];         /* by enum gmmu_half: raw aperture of each part */
	uint64_t value[GMMU_MAX_FIELDS]; /* raw value of ef->fields[i] */
	bool shown[GMMU_MAX_FIELDS];     /* field applies to the entry's aperture(s) */
	/* Set bits that no shown field covers: unnamed bits (v3 PTE 60:52), or bits of a field
	 * the entry's aperture does not use (PEER_ID set in a v3 sysmem PTE). */
	uint64_t unexplained[2];
};
void gmmu_entry_decode(const struct gmmu_entry_format *ef, const uint64_t w[2],
                       struct gmmu_decoded *out);
/* The value of a shown field as pte-decode prints it, written into buf; returns buf.
 * ADDR fields print the byte address (0x..); BOOL and ENUM their name, or the number (0x..)
 * when the value has no name, so that the text parses back (gmmu_field_value_parse). */
const char *gmmu_decoded_value_str(const struct gmmu_decoded *d, size_t i, char *buf, size_t len);
/* The entry as pte-decode prints it: "0x" + 16 hex digits, or 32 for a dual PDE (bit 127
 * first), written into buf (40 bytes hold either); returns buf. */
const char *gmmu_entry_hex_str(const struct gmmu_entry_format *ef, const uint64_t w[2], char *buf,
                               size_t len);

/* ------------------------------------------------------------------------------------------ */
/* Views: allocation-free, string-free decode for tight loops                                  */

struct gmmu_pte_view {
	bool valid;
	bool sparse; /* VALID=0 with v2 VOL=1 / v3 PCF SPARSE */
	enum gmmu_aperture aperture;
	uint8_t aperture_hw; /* raw APERTURE bits */
	uint64_t addr;       /* byte address from the aperture's address field */
	uint8_t peer_index;  /* raw peer-index bits (meaningful for PEER) */
	uint8_t kind;
	uint8_t pcf; /* v3 only, else 0 */
	bool vol, privilege, read_only, atomic_disable, encrypted;
	bool acd;             /* v3: access counting disabled */
	uint32_t comptagline; /* v2 only */
};
/* sparse: v2 VALID=0 with VOL=1 (the view does not tell the "no valid 4 KB page" marking of
 * a big-page PTE, VALID=0 VOL=1 PRIVILEGE=1 in kgmmuFmtFamiliesInit_GV100, from it); v3
 * VALID=0 with PCF SPARSE. */

struct gmmu_pde_view {
	bool valid; /* aperture != INVALID */
	enum gmmu_aperture aperture;
	uint8_t aperture_hw;
	uint64_t addr; /* byte address of the next-level table */
	bool vol;      /* v2 VOL; v3: PCF says uncached */
	uint8_t pcf;   /* v3 only */
	/* Aperture INVALID with the bit that means "uncached" in a valid entry set: v2 VOL,
	 * v3 PCF SPARSE_ATS_*. The driver's sparse directory entry: no table below, every
	 * address in its range reads as sparse. */
	bool sparse;
};

static inline uint64_t gmmu_bits_get(const struct gmmu_bits *b, const uint64_t *w)
{
	return (w[b->word] >> b->lo) & b->mask;
}

/* Decodes one 8-byte PTE of format f. Results are computed into locals and stored once at
 * the end: the view has uint8_t members, and stores through them would otherwise force the
 * compiler to reload the masks after every store (character types alias everything). */
static inline void gmmu_pte_view(const struct gmmu_format *f, uint64_t pte, struct gmmu_pte_view *v)
{
	const struct gmmu_fast *x = &f->entry[GMMU_ENTRY_PTE]->fast[0];
	const uint64_t w[1] = {pte};
	unsigned ap = (unsigned)gmmu_bits_get(&x->aperture, w);
	bool valid = gmmu_bits_get(&x->valid, w) != 0;
	unsigned pcf = (unsigned)gmmu_bits_get(&x->pcf, w);
	/* v2 keeps the flags in their own bits; v3 folds them into PCF (the PCF masks are 0 on
	 * v2, and the v2 bit fields have mask 0 on v3, so both terms can be OR-ed). */
	unsigned pcf_valid = valid ? pcf : 0u;
	bool vol_bit = gmmu_bits_get(&x->vol, w) != 0;
	*v = (struct gmmu_pte_view){
	        .valid = valid,
	        .sparse = !valid && (x->pcf_sparse ? pcf == x->pcf_sparse : vol_bit),
	        .aperture = x->aperture_sw[ap],
	        .aperture_hw = (uint8_t)ap,
	        .addr = gmmu_bits_get(&x->addr[ap], w) << x->addr[ap].shift,
	        .peer_index = (uint8_t)gmmu_bits_get(&x->peer_index, w),
	        .kind = (uint8_t)gmmu_bits_get(&x->kind, w),
	        .pcf = (uint8_t)pcf,
	        .vol = vol_bit || (pcf_valid & x->pcf_uncached),
	        .privilege = gmmu_bits_get(&x->privilege, w) || (pcf_valid & x->pcf_privilege),
	        .read_only = gmmu_bits_get(&x->read_only, w) || (pcf_valid & x->pcf_read_only),
	        .atomic_disable =
	                gmmu_bits_get(&x->atomic_disable, w) || (pcf_valid & x->pcf_no_atomic),
	        .encrypted = gmmu_bits_get(&x->encrypted, w) != 0,
	        .acd = (pcf_valid & x->pcf_acd) != 0,
	        .comptagline = (uint32_t)gmmu_bits_get(&x->comptagline, w),
	};
}

/* Decodes one 8-byte PDE of format f (also a level that may hold PTEs: check the PTE VALID
 * bit first with gmmu_entry_is_pte()). */
static inline void gmmu_pde_view_fast(const struct gmmu_fast *x, const uint64_t *w,
                                      struct gmmu_pde_view *v)
{
	unsigned ap = (unsigned)gmmu_bits_get(&x->aperture, w);
	unsigned pcf = (unsigned)gmmu_bits_get(&x->pcf, w);
	bool valid = x->aperture_sw[ap] != GMMU_APERTURE_INVALID;
	bool vol = gmmu_bits_get(&x->vol, w) || (pcf & x->pcf_uncached);
	*v = (struct gmmu_pde_view){
	        .valid = valid,
	        .aperture = x->aperture_sw[ap],
	        .aperture_hw = (uint8_t)ap,
	        .addr = gmmu_bits_get(&x->addr[ap], w) << x->addr[ap].shift,
	        .vol = vol,
	        .pcf = (uint8_t)pcf,
	        .sparse = !valid && vol,
	};
}

static inline void gmmu_pde_view(const struct gmmu_format *f, uint64_t pde, struct gmmu_pde_view *v)
{
	gmmu_pde_view_fast(&f->entry[GMMU_ENTRY_PDE]->fast[0], &pde, v);
}

/* Decodes a 16-byte dual PDE: w[0] = bits 63:0, w[1] = bits 127:64. */
static inline void gmmu_dual_pde_view(const struct gmmu_format *f, const uint64_t w[2],
                                      struct gmmu_pde_view *big, struct gmmu_pde_view *small)
{
	gmmu_pde_view_fast(&f->entry[GMMU_ENTRY_DUAL_PDE]->fast[0], w, big);
	gmmu_pde_view_fast(&f->entry[GMMU_ENTRY_DUAL_PDE]->fast[1], w, small);
}

/* At a level that may hold either (gmmu_level.page_shift != 0 and .pde), an entry is a PTE
 * when the PTE VALID bit (bit 0) is set: the driver's gmmuFmtEntryIsPte(). */
static inline bool gmmu_entry_is_pte(const struct gmmu_format *f, uint64_t w0)
{
	const uint64_t w[1] = {w0};
	return gmmu_bits_get(&f->entry[GMMU_ENTRY_PTE]->fast[0].valid, w) != 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The P2P mapping model                                                                       */

enum gmmu_p2p_mode {
	/* Stock driver, PCIe peer: APERTURE=PEER, peer index, FB offset in the peer address
	 * field, no fabric base (dmaUpdateVASpace_GM107 / nvGpuOpsBuildExternalAllocPtes). */
	GMMU_P2P_STOCK = 0,
	/* Stock driver, NVLink peer: as STOCK with the fabric base (direct-connect vidmem base or
	 * NVSwitch unique fabric base) added to the address (_kgmmuEncodePeerAddrs). */
	GMMU_P2P_NVLINK = 1,
	/* A sysmem-shaped entry holding the peer's BAR1 address + FB offset; which of its forms
	 * is set by gmmu_p2p_request.bar1_form (default: the kernel patch's). */
	GMMU_P2P_BAR1 = 2,
};

/* The forms of a BAR1-P2P entry (see docs/gmmu.md, "The BAR1-P2P entry, form by form"). */
enum gmmu_bar1_form {
	/* The kernel patch (tinygrad/open-gpu-kernel-modules, nvGpuOpsBuildExternalAllocPtes):
	 * APERTURE=SYSTEM_NON_COHERENT_MEMORY, the sysmem address field = peer BAR1 bus base +
	 * FB offset, no peer index. The patch's intent on every format. */
	GMMU_BAR1_PATCH = 0,
	/* The patch as published (550.54.15-p2p .. 565.57.01-p2p) compiled for v3: the aperture
	 * rewrite sits in the v2 branch only, so a v3 entry keeps APERTURE=PEER_MEMORY (with the
	 * BAR1 address and PEER_ID 0, the peer write being commented out). v2: as PATCH. */
	GMMU_BAR1_PATCH_AS_PUBLISHED = 1,
	/* tinygrad's userspace driver (runtime/support/nv/nvdev.py): SYSTEM_COHERENT_MEMORY,
	 * KIND GENERIC_MEMORY, v3 PCF with access counting enabled (ACE), no peer index. */
	GMMU_BAR1_TINYGRAD = 2,
	/* The stock driver's own BAR1-P2P (GH100 and Blackwell only, GMMU_FORMAT_F_BAR1P2P):
	 * SYSTEM_NON_COHERENT_MEMORY, or SYSTEM_COHERENT_MEMORY where BAR1-P2P atomics are on
	 * (Blackwell, GMMU_FORMAT_F_BAR1P2P_COHERENT); the address is the peer BAR1's DMA address
	 * as the mapping GPU sees it (kbusGetBar1P2PDmaInfo: the IOMMU address when there is
	 * one) + FB offset. */
	GMMU_BAR1_STOCK = 3,
};

/* Which of the driver's encoders wrote the entry. */
enum gmmu_bar1_path {
	/* UVM's external mappings (CUDA's peer memory): nvGpuOpsBuildExternalAllocPtes, the
	 * function the patches edit. */
	GMMU_BAR1_PATH_UVM = 0,
	/* RM's own map call (NVOS46 MAP_MEMORY_DMA of a peer allocation through NV50_P2P, what
	 * pte-probe reads): dmaAllocBar1P2PMapping_GH100, then dmaAllocMapping_GM107. */
	GMMU_BAR1_PATH_RM = 1,
};
/* The generations the rows tell apart (from the format: v2 = Turing..Ada, v3 without
 * GMMU_FORMAT_F_BAR1P2P_COHERENT = Hopper, with it = Blackwell). */
enum gmmu_bar1_gen {
	GMMU_BAR1_GEN_V2 = 0,
	GMMU_BAR1_GEN_HOPPER = 1,
	GMMU_BAR1_GEN_BLACKWELL = 2,
};
#define GMMU_BAR1_GEN_BIT(g) (1u << (unsigned)(g))

/* A driver's BAR1-P2P entry rows (their type and functions are in nvidia_drivers.h). */
struct gmmu_bar1_row;

struct gmmu_p2p_request {
	enum gmmu_p2p_mode mode;
	uint32_t peer_index;  /* STOCK/NVLINK: the bus peer id (0..7 fit; 0xffffffff is the
	                       * driver's BUS_INVALID_PEER) */
	uint64_t bar1_base;   /* BAR1: the peer's BAR1 bus address */
	uint64_t fabric_base; /* NVLINK: fabric base address added to the offset */
	uint64_t offset;      /* offset in the peer's framebuffer (bytes) */
	uint64_t page_size;   /* bytes; 0 = 4 KiB. Must be a page size of the format */
	uint32_t kind;        /* KIND value written (e.g. GENERIC_MEMORY 6 on TU+, 0 PITCH) */
	/* Uncached in GPU L2 (v3: PCF UNCACHED). The driver sets it for peer and BAR1-P2P
	 * mappings unless the peer allocation is P2P-cacheable (memdescGetGpuP2PCacheAttrib;
	 * NVOS32_ATTR2_P2P_GPU_CACHEABLE defaults to NO): set it to model a default allocation,
	 * as pte-decode p2p --mode bar1 does. tinygrad's userspace driver leaves it clear. */
	bool vol;
	bool read_only;
	bool privilege;
	bool atomic_disable;
	bool access_counting; /* v3: ACE instead of the driver's default ACD */
	enum gmmu_write_mode write_mode;
	/* NVLINK on a format with GMMU_FORMAT_F_NVSWITCH_PEER: the peer address field the driver
	 * switches to when it finds NVSwitches (kgmmuEnableNvlinkComputePeerAddressing_GV100):
	 * address >> 12 fills ADDRESS_VID (low 25 bits) and then COMPTAGLINE (next 20 bits).
	 * Refused (P2PS_ENOTSUP) on other formats; v3's ADDRESS needs no such mode. */
	bool nvswitch;
	/* BAR1: which form (default GMMU_BAR1_PATCH). */
	enum gmmu_bar1_form bar1_form;
	/* BAR1, PATCH forms: also write peer_index into the peer-index field, in the stock
	 * order (before the address), as a port that kept the stock peer write does. On v2 the
	 * address write then overwrites 35:33 (only an oversized id's spill into KIND stays); on
	 * v3 PEER_ID 63:61 stays. Default false: the patch writes no peer index. */
	bool bar1_peer_index;
	/* BAR1: the driver row (gmmu_bar1_row_find); when set it decides the aperture and the
	 * address instead of bar1_form, and bar1_base is the row's base (the bus address, or
	 * the IOVA for rows with iova). */
	const struct gmmu_bar1_row *bar1_row;
	uint64_t bar1_start; /* the static-BAR1 start offset, added where the row adds it */
	/* STOCK/NVLINK: the address goes to the sysmem address field, as a driver with the
	 * patched gmmuFmtPtePhysAddrFld(PEER) writes it (gmmu_bar1_row.peer_field_patched): on
	 * v2 it overwrites the peer index at 35:33. */
	bool peer_addr_sysmem;
	/* Non-NULL when the driver row used is another series' (the driver table's fallback
	 * rule): its line, which the renderings show ("... (assumed)"). */
	const char *driver_assumed;
};

struct gmmu_p2p_result {
	uint64_t pte;                        /* the entry */
	const struct gmmu_field *addr_field; /* field holding the address */
	uint64_t addr;                       /* byte address written (offset + base) */
	const struct gmmu_level *level;      /* level a PTE of this page size lives in */
	uint64_t page_size;                  /* bytes (the request's, 0 made 4096) */
	enum gmmu_aperture aperture;         /* the aperture written */
};

/* Builds the PTE the chosen path writes for a page at `offset` in the peer. Errors
 * (checked mode, or request not representable): P2PS_ERANGE with the field, its bits and
 * width (e.g. "address 0x28800000000 does not fit ADDRESS_VID (32:8, 25 bits ...)"),
 * P2PS_EINVAL for a misaligned offset or an unsupported page size. */
int gmmu_p2p_encode(const struct gmmu_format *f, const struct gmmu_p2p_request *rq,
                    struct gmmu_p2p_result *out, struct p2ps_error *err);
/* The request's defaults, as the driver (and `pte-decode p2p`) has them. The request itself
 * writes .kind and .vol as given (a zeroed request: KIND 0 = PITCH, cached); set them from
 * these to model what the driver writes:
 *  - the KIND the driver maps peer memory with: the memory's uncompressed kind,
 *    GENERIC_MEMORY where the format names it (TU10x and later), PITCH (0) before;
 *  - VOL (v3: PCF UNCACHED): true for every mode but the tinygrad BAR1 form (peer memory
 *    is not P2P-cacheable unless its allocation asked; tinygrad maps peer buffers cached). */
uint32_t gmmu_p2p_default_kind(const struct gmmu_format *f);
bool gmmu_p2p_default_vol(const struct gmmu_p2p_request *rq);
const char *gmmu_p2p_mode_name(enum gmmu_p2p_mode m); /* "stock", "nvlink", "bar1" */
int gmmu_p2p_mode_parse(const char *s, enum gmmu_p2p_mode *out, struct p2ps_error *err);
/* "patch", "patch-as-published", "tinygrad", "stock" */
const char *gmmu_bar1_form_name(enum gmmu_bar1_form f);
int gmmu_bar1_form_parse(const char *s, enum gmmu_bar1_form *out, struct p2ps_error *err);

/* Level of format f whose PTEs map pages of 2^page_shift bytes, or NULL. Takes the page
 * shift (12 for 4 KiB, 21 for 2 MiB), not the size. */
const struct gmmu_level *gmmu_level_for_page(const struct gmmu_format *f, unsigned page_shift);
/* Level of format f by name ("PD0", "pt_big", "PT-SMALL": any case, '-' for '_'), or NULL. */
const struct gmmu_level *gmmu_level_find(const struct gmmu_format *f, const char *name);
/* "PD3, PD2, PD1, PD0, PT_BIG, PT_SMALL": the levels of f, root first, into buf. */
const char *gmmu_level_names(const struct gmmu_format *f, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
