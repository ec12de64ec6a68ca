/* SPDX-License-Identifier: MIT */
/* The P2P mapping model: which PTE each path writes for one page of a peer GPU's memory.
 *
 * Stock PCIe peer (dmaUpdateVASpace_GM107, nvGpuOpsBuildExternalAllocPtes): VALID, APERTURE =
 * PEER, the bus peer id in the peer-index field (nvFieldSet32), KIND and the access flags,
 * and the FB offset in the peer address field (gmmuFmtPtePhysAddrFld(PEER): v2 ADDRESS_VID,
 * v3 ADDRESS). NVLink: the same with the fabric base added by _kgmmuEncodePeerAddrs.
 * BAR1-P2P: the sysmem address field (v2 ADDRESS_SYS, v3 ADDRESS) = peer BAR1 base + FB
 * offset, in one of four forms (enum gmmu_bar1_form): the kernel patch (SYSTEM_NON_COHERENT,
 * fabricBaseAddress reused for the BAR1 base, gmmuFmtPtePhysAddrFld(PEER) returning
 * fldAddrSysmem, no peer index), the patch as published compiled for v3 (the aperture
 * rewrite only in the v2 branch: PEER), tinygrad's userspace driver (SYSTEM_COHERENT, access
 * counting enabled) and the stock Hopper/Blackwell BAR1-P2P (SYS_NONCOH, or SYS_COH with
 * BAR1-P2P atomics).
 */
#include "gmmu_internal.h"
#include "p2pscope/nvidia_drivers.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const mode_names[] = {"stock", "nvlink", "bar1"};
static const char *const form_names[] = {"patch", "patch-as-published", "tinygrad", "stock"};

/* The index of s in names (case-insensitive) into *out, or a message naming what was
 * asked for and every name. */
static int name_parse(const char *const *names, size_t n, const char *s, const char *what, int *out,
                      struct p2ps_error *err)
{
	char known[128] = "";
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		if (s && !strcasecmp(s, names[i])) {
			*out = (int)i;
			return 0;
		}
		int k = snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "", names[i]);
		len += k > 0 && (size_t)k < sizeof(known) - len ? (size_t)k : 0;
	}
	return p2ps_error_set(err, P2PS_EINVAL, "unknown %s '%s' (%s)", what, s ? s : "", known);
}

const char *gmmu_p2p_mode_name(enum gmmu_p2p_mode m)
{
	return (unsigned)m < GMMU_ARRAY_SIZE(mode_names) ? mode_names[m] : "unknown";
}

int gmmu_p2p_mode_parse(const char *s, enum gmmu_p2p_mode *out, struct p2ps_error *err)
{
	int i = 0;
	int rc = name_parse(mode_names, GMMU_ARRAY_SIZE(mode_names), s, "P2P mode", &i, err);
	*out = rc ? *out : (enum gmmu_p2p_mode)i;
	return rc;
}

const char *gmmu_bar1_form_name(enum gmmu_bar1_form f)
{
	return (unsigned)f < GMMU_ARRAY_SIZE(form_names) ? form_names[f] : "unknown";
}

int gmmu_bar1_form_parse(const char *s, enum gmmu_bar1_form *out, struct p2ps_error *err)
{
	int i = 0;
	int rc = name_parse(form_names, GMMU_ARRAY_SIZE(form_names), s, "BAR1-P2P form", &i, err);
	*out = rc ? *out : (enum gmmu_bar1_form)i;
	return rc;
}

/* The KIND a peer entry gets when the request names none: the format's generic kind. */
uint32_t gmmu_p2p_default_kind(const struct gmmu_format *f)
{
	const struct gmmu_field *kf = gmmu_field_find(f->entry[GMMU_ENTRY_PTE], "KIND");
	uint64_t kind = 0;
	/* GENERIC_MEMORY where the format names it (TU10x and later); PITCH (0) before. */
	if (kf && gmmu_field_value_parse(kf, "GENERIC_MEMORY", &kind, NULL) &&
	    gmmu_field_value_parse(kf, "PITCH", &kind, NULL))
		kind = 0;
	return (uint32_t)kind;
}

bool gmmu_p2p_default_vol(const struct gmmu_p2p_request *rq)
{
	/* Every driver path takes VOL from the peer memory's P2P cacheability, "not cacheable"
	 * unless the allocation asked otherwise (the 580 driver's NVLink peer entries on two
	 * H200s are PCF UNCACHED, tests/fixtures/pte-probe/h200-*-peer*.json); tinygrad's
	 * userspace driver maps peer buffers cached. */
	return !(rq->mode == GMMU_P2P_BAR1 && rq->bar1_form == GMMU_BAR1_TINYGRAD);
}

/* Hardware aperture value of a software aperture in a PTE, or -1. */
static int pte_aperture_hw(const struct gmmu_entry_format *ef, enum gmmu_aperture a)
{
	for (int i = 0; i < 4; i++)
		if (ef->fast[0].aperture_sw[i] == a)
			return i;
	return -1;
}

/* The address field a PTE of hardware aperture `ap` uses (gmmuFmtPtePhysAddrFld). */
static const struct gmmu_field *pte_addr_field(const struct gmmu_entry_format *ef, int ap)
{
	for (size_t i = 0; i < ef->n_fields; i++) {
		const struct gmmu_field *fd = &ef->fields[i];
		if (fd->kind == GMMU_FIELD_ADDR && !(fd->flags & GMMU_FIELD_F_ALIAS) &&
		    (fd->apertures & GMMU_APER_HW((unsigned)ap)))
			return fd;
	}
	return NULL;
}

static int set_role(const struct gmmu_entry_format *ef, enum gmmu_role r, uint64_t v,
                    enum gmmu_write_mode mode, uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_field *fd = gmmu_field_by_role(ef, r, GMMU_HALF_NONE);
	if (!fd)
		return 0; /* the format has no such field (v3 has no VOL bit) */
	return gmmu_field_set(fd, v, mode, w, err);
}

/* nvFieldSet64 over the two regions of kgmmuFmtInitPeerPteFld_TU10X: the low bits of
 * address >> 12 go to ADDRESS_VID, the rest to COMPTAGLINE, each masked; the driver then
 * asserts nothing is left over (checked mode). */
static int set_nvswitch_peer_addr(const struct gmmu_entry_format *ef, uint64_t addr,
                                  enum gmmu_write_mode m, uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_field *lo = gmmu_field_by_role(ef, GMMU_ROLE_ADDR_VID, GMMU_HALF_NONE);
	const struct gmmu_field *hi = gmmu_field_by_role(ef, GMMU_ROLE_COMPTAGLINE, GMMU_HALF_NONE);
	unsigned shift = lo->addr_shift;
	unsigned wl = gmmu_field_width(lo), wh = gmmu_field_width(hi);
	uint64_t v = addr >> shift;
	if (m == GMMU_WRITE_CHECKED) {
		if (addr & ((1ull << shift) - 1))
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "address 0x%" PRIx64 " is not aligned to %u bits",
			                      addr, shift);
		if (v >> wl >> wh)
			return p2ps_error_set(err, P2PS_ERANGE,
			                      "address 0x%" PRIx64
			                      " does not fit %s + %s (%u:%u + %u:%u, "
			                      "%u bits of address >> %u)",
			                      addr, lo->name, hi->name, lo->hi, lo->lo, hi->hi,
			                      hi->lo, wl + wh, shift);
	}
	int rc = gmmu_field_set(lo, v & gmmu_field_mask(lo), m, w, err);
	if (rc == 0)
		rc = gmmu_field_set(hi, (v >> wl) & gmmu_field_mask(hi), m, w, err);
	return rc;
}

static int page_check(const struct gmmu_format *f, const struct gmmu_p2p_request *rq,
                      struct gmmu_p2p_result *out, struct p2ps_error *err)
{
	uint64_t ps = rq->page_size ? rq->page_size : 4096;
	unsigned shift = 0;
	while (shift < 63 && (1ull << shift) < ps)
		shift++;
	out->level = (1ull << shift) == ps ? gmmu_level_for_page(f, shift) : NULL;
	out->page_size = ps;
	if (!out->level)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "page size 0x%" PRIx64 " is not a PTE page size of format %s",
		                      ps, f->name);
	/* A PTE maps a whole page: its entry is the same for every offset inside the page, so
	 * the request names the page by its first byte. */
	if (rq->offset & (ps - 1))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "offset 0x%" PRIx64
		                      " is not aligned to the page size 0x%" PRIx64
		                      ": a PTE maps a whole page; the page that contains it starts "
		                      "at offset 0x%" PRIx64,
		                      rq->offset, ps, rq->offset & ~(ps - 1));
	return 0;
}

/* names[0..n) into buf as "A, B and C" (last_sep " and ") or "A, B, C" (", "). */
static const char *join_names(const char *const *names, size_t n, const char *last_sep, char *buf,
                              size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? last_sep : ", ";
		int k = snprintf(buf + used, len - used, "%s%s", sep, names[i]);
		used += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* "Hopper and Blackwell (v3-gh, v3-gb)": the generations whose chips have a format with
 * flag, and those formats, from the tables (the messages of the flags' checks). */
static const char *with_flag(unsigned flag, char *buf, size_t len)
{
	const char *gens[16], *fmts[16];
	size_t ng = 0, nf = 0;
	for (size_t i = 0; i < gmmu_chip_count() && ng < GMMU_ARRAY_SIZE(gens); i++) {
		const struct gmmu_chip *c = gmmu_chip_at(i); /* by generation: a new one differs */
		if (c->format && (c->format->flags & flag) &&
		    (!ng || strcmp(gens[ng - 1], c->family)))
			gens[ng++] = c->family;
	}
	for (size_t i = 0; i < gmmu_format_count() && nf < GMMU_ARRAY_SIZE(fmts); i++)
		if (gmmu_format_at(i)->flags & flag)
			fmts[nf++] = gmmu_format_at(i)->name;
	char g[96], fm[64];
	snprintf(buf, len, "%s (%s)", join_names(gens, ng, " and ", g, sizeof(g)),
	         join_names(fmts, nf, ", ", fm, sizeof(fm)));
	return buf;
}

/* The aperture a driver row writes, and whether the row can be used at all (the row's name
 * is formatted only for an error: pte-probe encodes once per peer entry). */
static int row_aperture(const struct gmmu_format *f, const struct gmmu_p2p_request *rq,
                        enum gmmu_aperture *out, struct p2ps_error *err)
{
	const struct gmmu_bar1_row *r = rq->bar1_row;
	enum gmmu_bar1_gen g = gmmu_bar1_gen_of(f);
	char name[96], series[16];
	if (!(r->gens & GMMU_BAR1_GEN_BIT(g)))
		return p2ps_error_set(err, P2PS_EINVAL, "row %s does not cover %s",
		                      gmmu_bar1_row_str(r, g, name, sizeof(name)), f->name);
	if (r->refused)
		return p2ps_error_set(err, P2PS_ENOTSUP, "row %s: %s",
		                      gmmu_bar1_row_str(r, g, name, sizeof(name)), r->refused);
	uint64_t align = r->start_align ? (1ull << r->start_align) - 1 : 0;
	if (r->adds_start && (rq->bar1_start & align))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "static-BAR1 start 0x%" PRIx64 " is not aligned to 0x%" PRIx64
		                      " as series %s places it (%s)",
		                      rq->bar1_start, align + 1,
		                      gmmu_bar1_row_series(r, series, sizeof(series)), r->source);
	*out = r->aperture;
	return 0;
}

static int bar1_aperture(const struct gmmu_format *f, const struct gmmu_p2p_request *rq,
                         enum gmmu_aperture *out, struct p2ps_error *err)
{
	char which[160];
	if (rq->bar1_row) {
		int rc = row_aperture(f, rq, out, err);
		if (rc == 0 && rq->bar1_peer_index)
			return p2ps_error_set(err, P2PS_ENOTSUP,
			                      "the driver rows write no peer index");
		return rc;
	}
	switch (rq->bar1_form) {
	case GMMU_BAR1_PATCH: *out = GMMU_APERTURE_SYS_NONCOH; break;
	case GMMU_BAR1_PATCH_AS_PUBLISHED:
		*out = f->version >= 3 ? GMMU_APERTURE_PEER : GMMU_APERTURE_SYS_NONCOH;
		break;
	case GMMU_BAR1_TINYGRAD: *out = GMMU_APERTURE_SYS_COH; break;
	case GMMU_BAR1_STOCK:
		if (!(f->flags & GMMU_FORMAT_F_BAR1P2P))
			return p2ps_error_set(
			        err, P2PS_ENOTSUP,
			        "the stock driver has a BAR1-P2P path on %s only "
			        "(kbusCreateP2PMappingForBar1P2P_GH100)",
			        with_flag(GMMU_FORMAT_F_BAR1P2P, which, sizeof(which)));
		*out = f->flags & GMMU_FORMAT_F_BAR1P2P_COHERENT ? GMMU_APERTURE_SYS_COH
		                                                 : GMMU_APERTURE_SYS_NONCOH;
		break;
	default:
		return p2ps_error_set(err, P2PS_EINVAL, "unknown BAR1-P2P form %d",
		                      (int)rq->bar1_form);
	}
	bool patch =
	        rq->bar1_form == GMMU_BAR1_PATCH || rq->bar1_form == GMMU_BAR1_PATCH_AS_PUBLISHED;
	if (rq->bar1_peer_index && !patch)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "the %s BAR1-P2P form writes no peer index",
		                      gmmu_bar1_form_name(rq->bar1_form));
	return 0;
}

/* Target address: offset plus the base of the path, aligned to the page. */
static int p2p_target(const struct gmmu_p2p_request *rq, const struct gmmu_p2p_result *out,
                      uint64_t *addr, struct p2ps_error *err)
{
	/* The base added to the offset: none for a PCIe peer, the fabric base for NVLink, the
	 * peer's BAR1 address for BAR1-P2P. */
	const struct gmmu_bar1_row *r = rq->bar1_row;
	uint64_t start = rq->mode == GMMU_P2P_BAR1 && r && r->adds_start ? rq->bar1_start : 0;
	uint64_t base = rq->mode == GMMU_P2P_NVLINK ? rq->fabric_base
	                : rq->mode == GMMU_P2P_BAR1 ? rq->bar1_base + start
	                                            : 0;
	*addr = base + rq->offset;
	if (*addr < base || base < start)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "base 0x%" PRIx64 " + offset 0x%" PRIx64 " overflows 64 bits",
		                      base, rq->offset);
	/* A PTE maps a whole page: the target must be aligned to it as well (a BAR1 placed at
	 * an odd boundary cannot back large pages). */
	uint64_t ps = out->page_size;
	if (*addr & (ps - 1))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "target 0x%" PRIx64 " (base 0x%" PRIx64 " + offset 0x%" PRIx64
		                      ") is not aligned to the page size 0x%" PRIx64,
		                      *addr, base, rq->offset, ps);
	return 0;
}

/* Flags, aperture, KIND, COMPTAGLINE (v2) or PCF (v3), in the order of
 * nvGpuOpsBuildExternalAllocPtes (the CUDA/UVM path the patch edits). */
static int p2p_flags(const struct gmmu_entry_format *ef, const struct gmmu_p2p_request *rq, int ap,
                     uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_fast *x = &ef->fast[0];
	enum gmmu_write_mode m = rq->write_mode;
	int rc;
	if ((rc = set_role(ef, GMMU_ROLE_VALID, 1, m, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_VOL, rq->vol, m, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_PRIVILEGE, rq->privilege, m, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_READ_ONLY, rq->read_only, m, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_ATOMIC_DISABLE, rq->atomic_disable, m, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_APERTURE, (uint64_t)ap, m, w, err)))
		return rc;
	if (set_role(ef, GMMU_ROLE_KIND, rq->kind, m, w, err))
		return p2ps_error_prefix(err, "kind");
	if ((rc = set_role(ef, GMMU_ROLE_COMPTAGLINE, 0, m, w, err)))
		return rc;
	if (!x->pcf.mask)
		return 0;
	/* v3: the driver's default is ACD (access counting disabled) unless asked; tinygrad's
	 * userspace driver leaves access counting enabled. */
	bool ace = rq->access_counting ||
	           (rq->mode == GMMU_P2P_BAR1 && rq->bar1_form == GMMU_BAR1_TINYGRAD);
	uint64_t pcf = (rq->vol ? x->pcf_uncached : 0u) | (rq->privilege ? x->pcf_privilege : 0u) |
	               (rq->read_only ? x->pcf_read_only : 0u) |
	               (rq->atomic_disable ? x->pcf_no_atomic : 0u) | (ace ? 0u : x->pcf_acd);
	return set_role(ef, GMMU_ROLE_PCF, pcf, m, w, err);
}

static int p2p_encode(const struct gmmu_format *f, const struct gmmu_p2p_request *rq,
                      struct gmmu_p2p_result *out, struct p2ps_error *err)
{
	const struct gmmu_entry_format *ef = f->entry[GMMU_ENTRY_PTE];
	enum gmmu_write_mode m = rq->write_mode;
	uint64_t w[2] = {0, 0};
	int rc;

	if ((unsigned)rq->mode >= GMMU_ARRAY_SIZE(mode_names))
		return p2ps_error_set(err, P2PS_EINVAL, "unknown P2P mode %d", (int)rq->mode);
	if (rq->nvswitch &&
	    (rq->mode != GMMU_P2P_NVLINK || !(f->flags & GMMU_FORMAT_F_NVSWITCH_PEER))) {
		char which[160];
		return p2ps_error_set(
		        err, P2PS_ENOTSUP,
		        "NVSwitch peer addressing applies to nvlink mappings on %s only",
		        with_flag(GMMU_FORMAT_F_NVSWITCH_PEER, which, sizeof(which)));
	}
	bool bar1 = rq->mode == GMMU_P2P_BAR1;
	out->aperture = GMMU_APERTURE_PEER;
	if ((bar1 && (rc = bar1_aperture(f, rq, &out->aperture, err))) ||
	    (rc = page_check(f, rq, out, err)))
		return rc;

	/* The patch makes gmmuFmtPtePhysAddrFld(PEER) return the sysmem field, so every BAR1
	 * form writes the address there, whatever its aperture. */
	int ap = pte_aperture_hw(ef, out->aperture);
	bool sysmem_field = bar1 || (rq->peer_addr_sysmem && out->aperture == GMMU_APERTURE_PEER);
	int ap_addr = sysmem_field ? pte_aperture_hw(ef, GMMU_APERTURE_SYS_NONCOH) : ap;
	const struct gmmu_field *af = ap_addr < 0 ? NULL : pte_addr_field(ef, ap_addr);
	if (ap < 0 || !af)
		return p2ps_error_set(err, P2PS_ENOTSUP, "format %s has no address field for %s",
		                      f->name, gmmu_aperture_name(out->aperture));
	uint64_t addr;
	if ((rc = p2p_target(rq, out, &addr, err)) || (rc = p2p_flags(ef, rq, ap, w, err)))
		return rc;
	/* Then the peer index (stock paths; a BAR1 port that kept the peer write), then the
	 * address. Order matters in as-written mode: an oversized peer index ORed in after KIND
	 * smears into it, and on v2 the address write then overwrites 35:33 of a sysmem
	 * entry. (The RM path, dmaUpdateVASpace_GM107, writes the peer index before KIND, whose
	 * write then clears 63:56 again.) */
	bool peer_write = !bar1 || rq->bar1_peer_index;
	if (peer_write && set_role(ef, GMMU_ROLE_PEER_INDEX, rq->peer_index, m, w, err))
		return p2ps_error_prefix(err, "peer index %" PRIu32, rq->peer_index);
	if (rq->nvswitch)
		rc = set_nvswitch_peer_addr(ef, addr, m, w, err);
	else
		rc = gmmu_field_set_addr(af, addr, m, w, err);
	if (rc)
		return p2ps_error_prefix(err, "%s address (%s aperture)",
		                         bar1                          ? "BAR1 base + offset"
		                         : rq->mode == GMMU_P2P_NVLINK ? "fabric base + offset"
		                                                       : "peer FB offset",
		                         gmmu_aperture_name(out->aperture));
	out->pte = w[0];
	out->addr_field = af;
	out->addr = addr;
	return 0;
}

int gmmu_p2p_encode(const struct gmmu_format *f, const struct gmmu_p2p_request *rq,
                    struct gmmu_p2p_result *out, struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	int rc = p2p_encode(f, rq, out, err);
	if (rc)
		return p2ps_error_prefix(err, "%s mapping on %s", gmmu_p2p_mode_name(rq->mode),
		                         f->name);
	return 0;
}
