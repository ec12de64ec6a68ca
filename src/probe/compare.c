/* SPDX-License-Identifier: MIT */
/* Phase 2: every entry the walk found against libgmmu's model of what the driver writes.
 *
 * Inputs to the model come from the driver's own answers, never from the entry itself where
 * another source exists: a page's address from GET_SURFACE_PHYS_ATTR, a table's address
 * and memory from GET_PDE_INFO. Where no answer covers a field (an upper directory's
 * address: GET_PDE_INFO names only the tables holding PTEs and the base), the model takes
 * the address the walk followed and says so ("followed"): the chain is still checked,
 * since the walk only reaches the reported tables through those entries. */
#include "p2pscope/probe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct probe_table *page_table(const struct probe_page *p, uint64_t page_size)
{
	for (unsigned i = 0; i < p->n_tables; i++)
		if (p->tables[i].page_size == page_size)
			return &p->tables[i];
	return NULL;
}

/* NV0080_CTRL_DMA_GET_PDE_INFO_PARAMS_PTE_ADDR_SPACE_*: 0 video, 1 sys coherent, 2 not. */
static enum gmmu_aperture aspace_aperture(uint32_t aspace)
{
	return aspace == 1   ? GMMU_APERTURE_SYS_COH
	       : aspace == 2 ? GMMU_APERTURE_SYS_NONCOH
	                     : GMMU_APERTURE_VIDEO;
}

/* GET_PDE_INFO's address spaces: 0 video, 1 and 2 system memory; any other value says
 * nothing the model can use, and the table is then taken as the entry names it. */
static bool aspace_known(uint32_t aspace)
{
	return aspace <= 2;
}

struct page_ref {
	struct probe_map *m;
	struct probe_page *p;
};

/* The first probed page in [va, va + span) whose PTEs are 2^shift bytes (shift 0: any). */
static struct page_ref page_in(struct probe_run *run, uint64_t va, uint64_t span, unsigned shift)
{
	for (unsigned i = 0; i < run->n_maps; i++) {
		struct probe_map *m = &run->maps[i];
		for (unsigned k = 0; m->state == PROBE_MAPPED && k < m->n_pages; k++) {
			struct probe_page *p = &m->pages[k];
			if (p->va >= va && p->va - va < span &&
			    (!shift || m->spec->page_shift == shift))
				return (struct page_ref){m, p};
		}
	}
	return (struct page_ref){NULL, NULL};
}

uint32_t probe_kind_generic(const struct gmmu_format *f)
{
	const struct gmmu_field *fd = gmmu_field_find(f->entry[GMMU_ENTRY_PTE], "KIND");
	uint64_t v = 0;
	/* memmgrChooseKind_TU102: an IMAGE allocation without compression is GENERIC_MEMORY. */
	if (fd && gmmu_field_value_parse(fd, "GENERIC_MEMORY", &v, NULL) == 0)
		return (uint32_t)v;
	return 0;
}

static int local_pte_model(struct probe_run *run, const struct probe_map *m,
                           const struct probe_page *p, struct probe_entry *e,
                           struct gmmu_drvmap_request *out, struct gmmu_drvmap_result *res,
                           struct p2ps_error *err)
{
	uint32_t fl = m->spec->map_flags;
	unsigned cache = p2ps_rm_map_gpu_cacheable(fl);
	struct gmmu_drvmap_request rq = {
	        .mem = m->alloc->mem == PROBE_SYS ? GMMU_DRVMAP_SYSTEM : GMMU_DRVMAP_VIDEO,
	        .page_size = 1ull << m->spec->page_shift,
	        .kind = m->alloc->mem == PROBE_SYS ? m->alloc->format
	                                           : probe_kind_generic(run->fmt),
	        .alloc_gpu_cached = m->alloc->gpu_cached,
	        .read_only = fl & P2PS_RM_MAP_ACCESS_READ_ONLY,
	        .gpu_cacheable = cache == P2PS_RM_MAP_CACHEABLE_YES  ? GMMU_DRVMAP_CACHE_YES
	                         : cache == P2PS_RM_MAP_CACHEABLE_NO ? GMMU_DRVMAP_CACHE_NO
	                                                             : GMMU_DRVMAP_CACHE_DEFAULT,
	        .cache_snoop = fl & P2PS_RM_MAP_CACHE_SNOOP,
	};
	struct gmmu_pte_view v;
	gmmu_pte_view(run->fmt, e->raw[0], &v);
	rq.addr = p->phys_known ? p->phys : v.addr;
	e->addr_source = p->phys_known ? "GET_SURFACE_PHYS_ATTR" : "followed";
	*out = rq;
	return gmmu_drvmap_pte(run->fmt, &rq, res, err);
}

/* GET_PTE_INFO's decoded fields (when the driver answers) against the model. */
static void pte_info_check(struct probe_page *p, unsigned shift,
                           const struct gmmu_drvmap_request *q, const struct gmmu_drvmap_result *r)
{
	for (unsigned i = 0; i < p->n_pte_info; i++) {
		if (p->pte_info[i].page_size != (1ull << shift))
			continue;
		struct p2ps_rm_pte_flags f;
		p2ps_rm_pte_flags_decode(p->pte_info[i].flags, &f);
		unsigned ap = f.aperture; /* 0 vid, 1 peer, 2 coh, 3 noncoh */
		unsigned want_ap = r->aperture == GMMU_APERTURE_VIDEO     ? 0
		                   : r->aperture == GMMU_APERTURE_PEER    ? 1
		                   : r->aperture == GMMU_APERTURE_SYS_COH ? 2
		                                                          : 3;
		bool cached = f.gpu_cached == 1;
		bool ro = f.read_only;
		p->pte_info_agrees = f.valid && ap == want_ap && cached == !r->vol &&
		                     ro == q->read_only && p->pte_info[i].kind == q->kind;
		snprintf(p->pte_info_diff, sizeof(p->pte_info_diff),
		         "valid %u, aperture %u (model %u), cached %d (model %d), read-only %d "
		         "(model %d), kind %u (model %u)",
		         (unsigned)f.valid, ap, want_ap, cached, !r->vol, ro, q->read_only,
		         p->pte_info[i].kind, q->kind);
		return;
	}
	p->pte_info_agrees = false;
	snprintf(p->pte_info_diff, sizeof(p->pte_info_diff), "no block of the page size");
}

static void model_pte(struct probe_run *run, struct probe_entry *e)
{
	struct page_ref r = page_in(run, e->va, 1, 0);
	struct p2ps_error err = {0};
	if (!r.p || (1ull << r.m->spec->page_shift) != (1ull << e->level->page_shift)) {
		snprintf(e->why, sizeof(e->why),
		         "a valid PTE at VA 0x%" PRIx64 " the probe did not map at this page size",
		         e->va);
		run->extra++;
		return;
	}
	e->owner = r.m->spec->name;
	r.p->pte = (int)(e - run->entries);
	int rc;
	if (r.m->alloc->mem == PROBE_PEER) {
		rc = probe_peer_model(run, r.m, r.p, e, &err);
	} else {
		struct gmmu_drvmap_request rq;
		struct gmmu_drvmap_result res;
		rc = local_pte_model(run, r.m, r.p, e, &rq, &res, &err);
		e->model[0] = res.pte;
		if (rc == 0 && r.p->pte_status == P2PS_RM_NV_OK) {
			pte_info_check(r.p, r.m->spec->page_shift, &rq, &res);
			run->pte_info_agree += r.p->pte_info_agrees;
			run->pte_info_differ += !r.p->pte_info_agrees;
		}
	}
	if (rc) {
		probe_copy(e->why, sizeof(e->why), err.msg);
		return;
	}
	e->modelled = true;
}

/* Where the model says a directory entry's sub-table is. */
static void table_for(struct probe_run *run, const struct probe_entry *e, enum gmmu_half h,
                      unsigned child_shift, struct gmmu_drvmap_table *t, const char **src)
{
	uint64_t span = 1ull << e->level->va_lo;
	struct page_ref r = page_in(run, e->va, span, child_shift);
	const struct probe_table *pt = r.p ? page_table(r.p, 1ull << child_shift) : NULL;
	if (pt && aspace_known(pt->aspace)) {
		*t = (struct gmmu_drvmap_table){
		        .present = true, .aperture = aspace_aperture(pt->aspace), .addr = pt->pa};
		*src = "GET_PDE_INFO";
	} else if (e->half_seen[h]) {
		*t = (struct gmmu_drvmap_table){.present = true,
		                                .aperture = e->half_space[h] == P2PS_MEM_SYS
		                                                    ? GMMU_APERTURE_SYS_COH
		                                                    : GMMU_APERTURE_VIDEO,
		                                .addr = e->half_pa[h]};
		if (!*src)
			*src = "followed";
	}
}

static void model_dir(struct probe_run *run, struct probe_entry *e)
{
	struct page_ref below = page_in(run, e->va, 1ull << e->level->va_lo, 0);
	struct p2ps_error err = {0};
	int rc;
	/* A directory entry over VA the probe did not map (the driver keeps the levels of
	 * ranges it reserved): still a directory entry of this VA space, so the same model
	 * applies with the address followed; a valid PTE below it would be reported on its
	 * own as unexplained. */
	e->owner = below.m ? below.m->spec->name : NULL;
	if (!below.m)
		snprintf(e->why, sizeof(e->why),
		         "over VA 0x%" PRIx64 ", where the probe mapped nothing", e->va);
	if (e->level->dual) {
		unsigned va_lo = 0;
		const struct gmmu_level *bl = gmmu_walk_sub_level(run->fmt, 1, 16, &va_lo);
		struct gmmu_drvmap_table big = {0}, small = {0};
		table_for(run, e, GMMU_HALF_BIG, bl ? bl->page_shift : 16, &big, &e->addr_source);
		table_for(run, e, GMMU_HALF_SMALL, 12, &small, &e->addr_source);
		rc = gmmu_drvmap_dual_pde(run->fmt, &big, &small, false, e->model, &err);
	} else {
		const struct gmmu_level *next = e->level + 1;
		struct gmmu_drvmap_table t = {0};
		table_for(run, e, GMMU_HALF_NONE, next->page_shift, &t, &e->addr_source);
		rc = gmmu_drvmap_pde(run->fmt, &t, false, &e->model[0], &err);
	}
	if (rc) {
		probe_copy(e->why, sizeof(e->why), err.msg);
		return;
	}
	e->modelled = true;
}

int probe_compare(struct probe_run *run, struct p2ps_error *err)
{
	(void)err;
	run->agree = run->differ = run->unmodelled = run->missing = run->extra = 0;
	run->pte_info_agree = run->pte_info_differ = 0;
	if (run->peer.asked) {
		probe_peer_fabric(run);
		probe_peer_bar1(run);
	}
	for (size_t i = 0; i < run->n_entries; i++) {
		struct probe_entry *e = &run->entries[i];
		if (e->pte)
			model_pte(run, e);
		else
			model_dir(run, e);
		if (!e->modelled) {
			run->unmodelled += e->owner != NULL;
			continue;
		}
		e->n_diffs = (unsigned)gmmu_entry_diff(e->ef, e->raw, e->model, e->diffs,
		                                       PROBE_MAX_DIFFS);
		if (e->n_diffs)
			run->differ++;
		else
			run->agree++;
	}
	for (unsigned i = 0; i < run->n_maps; i++) {
		struct probe_map *m = &run->maps[i];
		m->agrees = m->state == PROBE_MAPPED && run->walked;
		for (unsigned k = 0; m->state == PROBE_MAPPED && k < m->n_pages; k++) {
			const struct probe_page *p = &m->pages[k];
			if (run->walked && p->pte < 0)
				run->missing++;
			m->agrees &= p->pte >= 0 &&
			             (p->pte_status != P2PS_RM_NV_OK || p->pte_info_agrees);
		}
	}
	/* A mapping agrees when every entry on its pages' paths agrees. */
	for (size_t i = 0; i < run->n_entries; i++) {
		const struct probe_entry *e = &run->entries[i];
		bool ok = e->modelled && !e->n_diffs;
		for (unsigned k = 0; !ok && k < run->n_maps; k++) {
			struct probe_map *m = &run->maps[k];
			uint64_t span = e->pte ? 1 : 1ull << e->level->va_lo;
			for (unsigned j = 0; m->state == PROBE_MAPPED && j < m->n_pages; j++)
				if (m->pages[j].va >= e->va && m->pages[j].va - e->va < span)
					m->agrees = false;
		}
	}
	return 0;
}
