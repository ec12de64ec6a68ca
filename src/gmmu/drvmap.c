/* SPDX-License-Identifier: MIT */
/* The driver's ordinary mappings (gmmu_drvmap.h), from RM's map path at 580.142/595.45.04:
 *
 * dmaAllocMapping_GM107 (virt_mem_allocator_gm107.c):
 *   aperture   video memory: VIDEO. System memory: on a fully coherent platform SYS_COH when
 *              the GPU cache is snooped, else SYS_NONCOH; elsewhere SYS_COH when the mapping
 *              (or allocation) asks the GPU to snoop CPU caches (NVOS46 CACHE_SNOOP), else
 *              SYS_NONCOH. (A memdesc's CPU snoop setting defaults to "defer to map".)
 *   volatile   dmaIsDefaultGpuUncached_GM107: video never; system memory when its GPU cache
 *              attribute is UNCACHED, which memSetSysmemCacheAttrib makes the default; then
 *              NVOS46 GPU_CACHEABLE YES/NO overrides.
 *   read-only  NVOS46 ACCESS_READ_ONLY. priv, TLB lock (atomics off) and encryption are not
 *              set for a client mapping.
 *   peer       BUS_INVALID_PEER, zeroed for non-peer apertures by dmaUpdateVASpace_GF100.
 * dmaUpdateVASpace_GF100 builds the PTE: v2 VALID, APERTURE, peer index, VOL, KIND, RO,
 * PRIVILEGE, ENCRYPTED, ATOMIC_DISABLE; v3 VALID, APERTURE, PEER_ID, KIND and a PCF from
 * the software flags (REGULAR, RW/RO, ATOMIC, CACHED/UNCACHED, ACD: access counting is
 * enabled only for multicast fabric memory) through kgmmuTranslatePtePcfFromSw_GH100. The per-page
 * loop then writes KIND (uncompressed), COMPTAGLINE 0 (v2) and the address, aligned down to the
 * page size, in gmmuFmtPtePhysAddrFld(aperture).
 *
 * _gmmuWalkCBUpdatePde (gmmu_walk.c) builds a directory entry per sub-level present:
 * APERTURE of the table's memory, its address, and VOL (v2) or a PCF VALID_{CACHED,UNCACHED}_
 * ATS_{ALLOWED,NOT_ALLOWED} (v3), uncached when a system-memory table is GPU-uncached.
 */
#include "p2pscope/gmmu_drvmap.h"

#include "gmmu_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Hardware aperture value of software aperture a in fast view x, or -1. */
static int aperture_hw(const struct gmmu_fast *x, enum gmmu_aperture a)
{
	for (int i = 0; i < 4; i++)
		if (x->aperture_sw[i] == a)
			return i;
	return -1;
}

/* The address field of half h a hardware aperture uses (gmmuFmtPtePhysAddrFld /
 * gmmuFmtPdePhysAddrFld). */
static const struct gmmu_field *addr_field(const struct gmmu_entry_format *ef, enum gmmu_half h,
                                           int ap)
{
	for (size_t i = 0; i < ef->n_fields; i++) {
		const struct gmmu_field *fd = &ef->fields[i];
		if (fd->kind == GMMU_FIELD_ADDR && fd->half == h &&
		    !(fd->flags & GMMU_FIELD_F_ALIAS) &&
		    (fd->apertures & GMMU_APER_HW((unsigned)ap)))
			return fd;
	}
	return NULL;
}

static int set_role(const struct gmmu_entry_format *ef, enum gmmu_role r, enum gmmu_half h,
                    uint64_t v, uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_field *fd = gmmu_field_by_role(ef, r, h);
	return fd ? gmmu_field_set(fd, v, GMMU_WRITE_CHECKED, w, err) : 0;
}

/* A named value of the field with role r (a PCF pattern) set into w. */
static int set_named(const struct gmmu_entry_format *ef, enum gmmu_role r, enum gmmu_half h,
                     const char *name, uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_field *fd = gmmu_field_by_role(ef, r, h);
	uint64_t v;
	if (!fd)
		return p2ps_error_set(err, P2PS_ENOTSUP, "%s has no PCF field", ef->prefix);
	int rc = gmmu_field_value_parse(fd, name, &v, err);
	return rc ? rc : gmmu_field_set(fd, v, GMMU_WRITE_CHECKED, w, err);
}

static enum gmmu_aperture pte_aperture(const struct gmmu_drvmap_request *rq)
{
	if (rq->mem == GMMU_DRVMAP_VIDEO)
		return GMMU_APERTURE_VIDEO;
	bool snoop = rq->platform_coherent ? rq->gpu_cache_snoop : rq->cache_snoop;
	return snoop ? GMMU_APERTURE_SYS_COH : GMMU_APERTURE_SYS_NONCOH;
}

static bool pte_volatile(const struct gmmu_drvmap_request *rq)
{
	bool vol = rq->mem == GMMU_DRVMAP_SYSTEM && !rq->alloc_gpu_cached;
	if (rq->gpu_cacheable == GMMU_DRVMAP_CACHE_YES)
		vol = false;
	else if (rq->gpu_cacheable == GMMU_DRVMAP_CACHE_NO)
		vol = true;
	return vol;
}

/* The v3 PCF by its driver name. A client mapping is REGULAR (not privileged), ATOMIC (no
 * TLB lock) and ACD; the four patterns left (RW/RO x CACHED/UNCACHED) are all in the
 * PTE_PCF_VALID_LIST kgmmuTranslatePtePcfFromSw_GH100 translates. */
static int v3_pte_pcf(const struct gmmu_entry_format *ef, bool ro, bool vol, uint64_t w[2],
                      const char **name, struct p2ps_error *err)
{
	static const char *const names[2][2] = {
	        {"REGULAR_RW_ATOMIC_CACHED_ACD", "REGULAR_RW_ATOMIC_UNCACHED_ACD"},
	        {"REGULAR_RO_ATOMIC_CACHED_ACD", "REGULAR_RO_ATOMIC_UNCACHED_ACD"},
	};
	*name = names[ro][vol];
	return set_named(ef, GMMU_ROLE_PCF, GMMU_HALF_NONE, *name, w, err);
}

static int pte_fields(const struct gmmu_format *f, const struct gmmu_drvmap_request *rq, int ap,
                      struct gmmu_drvmap_result *out, uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_entry_format *ef = f->entry[GMMU_ENTRY_PTE];
	const enum gmmu_half n = GMMU_HALF_NONE;
	int rc;
	/* The template of dmaUpdateVASpace_GF100, then the per-page KIND, COMPTAGLINE. */
	if ((rc = set_role(ef, GMMU_ROLE_VALID, n, 1, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_APERTURE, n, (uint64_t)ap, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_PEER_INDEX, n, 0, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_VOL, n, out->vol, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_READ_ONLY, n, rq->read_only, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_PRIVILEGE, n, 0, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_ENCRYPTED, n, 0, w, err)) ||
	    (rc = set_role(ef, GMMU_ROLE_ATOMIC_DISABLE, n, 0, w, err)))
		return rc;
	if (set_role(ef, GMMU_ROLE_KIND, n, rq->kind, w, err))
		return p2ps_error_prefix(err, "kind");
	if ((rc = set_role(ef, GMMU_ROLE_COMPTAGLINE, n, 0, w, err)))
		return rc;
	if (ef->fast[0].pcf.mask)
		return v3_pte_pcf(ef, rq->read_only, out->vol, w, &out->pcf, err);
	return 0;
}

int gmmu_drvmap_pte(const struct gmmu_format *f, const struct gmmu_drvmap_request *rq,
                    struct gmmu_drvmap_result *out, struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	unsigned shift = 0;
	while (shift < 63 && (1ull << shift) < rq->page_size)
		shift++;
	out->level = (1ull << shift) == rq->page_size ? gmmu_level_for_page(f, shift) : NULL;
	if (!out->level)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "page size 0x%" PRIx64 " is not a PTE page size of format %s",
		                      rq->page_size, f->name);
	if (rq->addr & (rq->page_size - 1))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "address 0x%" PRIx64
		                      " is not aligned to the page size 0x%" PRIx64,
		                      rq->addr, rq->page_size);
	const struct gmmu_entry_format *ef = f->entry[GMMU_ENTRY_PTE];
	out->aperture = pte_aperture(rq);
	out->vol = pte_volatile(rq);
	int ap = aperture_hw(&ef->fast[0], out->aperture);
	const struct gmmu_field *af = ap < 0 ? NULL : addr_field(ef, GMMU_HALF_NONE, ap);
	if (!af)
		return p2ps_error_set(err, P2PS_ENOTSUP, "format %s has no address field for %s",
		                      f->name, gmmu_aperture_name(out->aperture));
	uint64_t w[2] = {0, 0};
	int rc = pte_fields(f, rq, ap, out, w, err);
	if (rc == 0)
		rc = gmmu_field_set_addr(af, rq->addr, GMMU_WRITE_CHECKED, w, err);
	if (rc)
		return p2ps_error_prefix(err, "%s mapping on %s",
		                         rq->mem == GMMU_DRVMAP_VIDEO ? "video" : "system",
		                         f->name);
	out->pte = w[0];
	return 0;
}

int gmmu_drvmap_peer_pte(const struct gmmu_format *f, const struct gmmu_drvmap_peer *rq,
                         uint64_t *pte, struct p2ps_error *err)
{
	bool bar1 = rq->mode == GMMU_P2P_BAR1;
	struct gmmu_p2p_request p = {
	        .mode = rq->mode,
	        .peer_index = rq->peer_id,
	        .fabric_base = rq->fabric_base,
	        .offset = rq->fb_offset,
	        .page_size = rq->page_size,
	        .kind = rq->kind,
	        .vol = rq->gpu_cacheable != GMMU_DRVMAP_CACHE_YES,
	        .read_only = rq->read_only,
	        /* v2 NVSwitch peers: the widened peer address (kgmmuFmtInitPeerPteFld_TU10X). */
	        .nvswitch = rq->mode == GMMU_P2P_NVLINK && rq->fabric_base &&
	                    (f->flags & GMMU_FORMAT_F_NVSWITCH_PEER),
	        .peer_addr_sysmem = !bar1 && rq->peer_field_patched,
	        .bar1_row = bar1 ? rq->bar1_row : NULL,
	        .bar1_base = rq->bar1_base,
	};
	*pte = 0;
	if (bar1 && !rq->bar1_row)
		return p2ps_error_set(err, P2PS_EINVAL, "a BAR1-P2P peer needs its driver row");
	struct gmmu_p2p_result res;
	int rc = gmmu_p2p_encode(f, &p, &res, err);
	*pte = res.pte;
	return rc;
}

/* One directory entry (or one half of a dual one) pointing at t. */
static int pde_half(const struct gmmu_format *f, const struct gmmu_entry_format *ef,
                    enum gmmu_half h, const struct gmmu_drvmap_table *t, bool ats, uint64_t w[2],
                    struct p2ps_error *err)
{
	if (!t || !t->present)
		return 0;
	const struct gmmu_fast *x = &ef->fast[h == GMMU_HALF_SMALL ? 1 : 0];
	int ap = aperture_hw(x, t->aperture);
	const struct gmmu_field *af = ap <= 0 ? NULL : addr_field(ef, h, ap);
	if (!af)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "a %s table cannot be pointed at by %s on %s",
		                      gmmu_aperture_name(t->aperture), ef->prefix, f->name);
	int rc = set_role(ef, GMMU_ROLE_APERTURE, h, (uint64_t)ap, w, err);
	if (rc == 0 && x->pcf.mask) {
		char name[48];
		snprintf(name, sizeof(name), "VALID_%s_ATS_%s", t->uncached ? "UNCACHED" : "CACHED",
		         ats ? "ALLOWED" : "NOT_ALLOWED");
		rc = set_named(ef, GMMU_ROLE_PCF, h, name, w, err);
	} else if (rc == 0) {
		rc = set_role(ef, GMMU_ROLE_VOL, h, t->uncached, w, err);
	}
	if (rc == 0)
		rc = gmmu_field_set_addr(af, t->addr, GMMU_WRITE_CHECKED, w, err);
	return rc;
}

int gmmu_drvmap_pde(const struct gmmu_format *f, const struct gmmu_drvmap_table *t, bool ats,
                    uint64_t *pde, struct p2ps_error *err)
{
	uint64_t w[2] = {0, 0};
	int rc = pde_half(f, f->entry[GMMU_ENTRY_PDE], GMMU_HALF_NONE, t, ats, w, err);
	*pde = w[0];
	return rc;
}

int gmmu_drvmap_dual_pde(const struct gmmu_format *f, const struct gmmu_drvmap_table *big,
                         const struct gmmu_drvmap_table *small, bool ats, uint64_t w[2],
                         struct p2ps_error *err)
{
	const struct gmmu_entry_format *ef = f->entry[GMMU_ENTRY_DUAL_PDE];
	w[0] = w[1] = 0;
	int rc = pde_half(f, ef, GMMU_HALF_BIG, big, ats, w, err);
	if (rc)
		return p2ps_error_prefix(err, "big-page half");
	rc = pde_half(f, ef, GMMU_HALF_SMALL, small, ats, w, err);
	return rc ? p2ps_error_prefix(err, "small-page half") : 0;
}

static void field_str(const struct gmmu_decoded *d, size_t i, char *buf, size_t len)
{
	if (d->shown[i])
		gmmu_decoded_value_str(d, i, buf, len);
	else
		snprintf(buf, len, "(unused)");
}

/* A field's raw value as the diff shows it for an aperture that does not use the field:
 * its name where it has one, else the number. */
static void raw_str(const struct gmmu_field *fd, uint64_t v, char *buf, size_t len)
{
	const char *name = gmmu_field_value_name(fd, v, true);
	if (name)
		snprintf(buf, len, "%s (unused here)", name);
	else
		snprintf(buf, len, "0x%" PRIx64 " (unused here)", v);
}

size_t gmmu_entry_diff(const struct gmmu_entry_format *ef, const uint64_t got[2],
                       const uint64_t want[2], struct gmmu_field_diff *d, size_t max)
{
	struct gmmu_decoded g, m;
	gmmu_entry_decode(ef, got, &g);
	gmmu_entry_decode(ef, want, &m);
	size_t n = 0;
	for (size_t i = 0; i < ef->n_fields; i++) {
		if (ef->fields[i].flags & GMMU_FIELD_F_ALIAS || !(g.shown[i] || m.shown[i]))
			continue;
		if (g.shown[i] == m.shown[i] && g.value[i] == m.value[i])
			continue;
		if (n < max) {
			d[n].field = &ef->fields[i];
			field_str(&g, i, d[n].got, sizeof(d[n].got));
			field_str(&m, i, d[n].want, sizeof(d[n].want));
		}
		n++;
	}
	/* Differing bits no shown field covers: name the field they belong to where the format
	 * has one (PEER_ID set in a v3 sysmem entry), then what is left. */
	uint64_t x[2] = {g.unexplained[0] ^ m.unexplained[0], g.unexplained[1] ^ m.unexplained[1]};
	for (size_t i = 0; i < ef->n_fields && (x[0] | x[1]); i++) {
		const struct gmmu_field *fd = &ef->fields[i];
		uint64_t fm[2] = {0, 0};
		gmmu_field_bits(fd, fm);
		if (fd->flags & GMMU_FIELD_F_ALIAS || !((fm[0] & x[0]) | (fm[1] & x[1])))
			continue;
		if (n < max) {
			d[n].field = fd;
			raw_str(fd, gmmu_field_get(fd, got), d[n].got, sizeof(d[n].got));
			raw_str(fd, gmmu_field_get(fd, want), d[n].want, sizeof(d[n].want));
		}
		n++;
		x[0] &= ~fm[0];
		x[1] &= ~fm[1];
	}
	if (x[0] | x[1]) {
		if (n < max) {
			d[n].field = NULL;
			snprintf(d[n].got, sizeof(d[n].got), "0x%" PRIx64 ":%016" PRIx64,
			         g.unexplained[1], g.unexplained[0]);
			snprintf(d[n].want, sizeof(d[n].want), "0x%" PRIx64 ":%016" PRIx64,
			         m.unexplained[1], m.unexplained[0]);
		}
		n++;
	}
	return n;
}
