/* SPDX-License-Identifier: MIT */
/* Phase 1: everything pte-probe asks the driver, in one fixed order (a capture replays only
 * if the order is the same): open, GPU, VA space, allocations, mappings, per page
 * GET_SURFACE_PHYS_ATTR / GET_PDE_INFO / GET_PTE_INFO, then (root) the tables. The client is
 * closed on every path, which frees every object this run made. */
#include "p2pscope/probe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int open_gpu(struct probe_run *run, struct p2ps_rm *rm, struct p2ps_rm_card *cards,
                    struct p2ps_error *err)
{
	int rc = p2ps_rm_cards(rm, cards, P2PS_RM_MAX_CARDS, &run->n_cards, err);
	if (rc)
		return rc;
	if (run->gpu_index >= run->n_cards)
		return p2ps_error_set(err, P2PS_ENOENT,
		                      "--gpu %u: the driver lists %zu GPU%s (indices from 0)",
		                      run->gpu_index, run->n_cards, run->n_cards == 1 ? "" : "s");
	if (run->peer.asked &&
	    (run->peer.index >= run->n_cards || run->peer.index == run->gpu_index))
		return p2ps_error_set(
		        err, P2PS_ENOENT,
		        "--peer %u: needs a second GPU, and the driver lists %zu GPU%s "
		        "(this run uses GPU %u)",
		        run->peer.index, run->n_cards, run->n_cards == 1 ? "" : "s",
		        run->gpu_index);
	rc = p2ps_rm_gpu_open(rm, &cards[run->gpu_index], &run->gpu, err);
	if (rc)
		return rc;
	const char *chip = run->chip_override ? run->chip_override : run->gpu.chip;
	const struct gmmu_chip *c = gmmu_chip_find(chip);
	if (!c)
		return p2ps_error_set(
		        err, P2PS_ENOTSUP,
		        "GPU %u (architecture 0x%x, implementation 0x%x%s%s) is not a "
		        "chip libgmmu knows; --chip NAME names it",
		        run->gpu_index, run->gpu.arch, run->gpu.impl, *chip ? ", " : "", chip);
	run->chip = p2ps_nvidia_chip_find(chip);
	run->fmt = c->format;
	return 0;
}

/* Allocations the plan needs, each once; a mapping whose allocation failed says why. */
static int allocate(struct probe_run *run, struct p2ps_rm *rm, struct p2ps_error *err)
{
	for (unsigned i = 0; i < run->n_maps; i++) {
		struct probe_map *m = &run->maps[i];
		if (m->state == PROBE_SKIPPED)
			continue;
		const struct probe_alloc *a = m->alloc;
		bool earlier = false;
		for (unsigned k = 0; k < i; k++)
			earlier |= run->maps[k].alloc == a && run->maps[k].state != PROBE_SKIPPED;
		if (earlier)
			continue;
		const struct p2ps_rm_gpu *g = a->mem == PROBE_PEER ? &run->peer.gpu : &run->gpu;
		if (a->mem == PROBE_PEER && !run->peer.p2p) {
			probe_copy(m->why, sizeof(m->why), run->peer.note);
			continue;
		}
		struct p2ps_rm_mem_req req = {
		        .cls = a->mem == PROBE_SYS ? P2PS_RM_MEMORY_SYSTEM
		                                   : P2PS_RM_MEMORY_LOCAL_USER,
		        .flags = a->flags,
		        .attr = a->attr,
		        .attr2 = a->attr2,
		        .format = a->format,
		        .size = a->size,
		        .alignment = a->align,
		};
		struct p2ps_error e;
		uint32_t h = 0;
		int rc = p2ps_rm_mem_alloc(rm, g, &req, &h, NULL, &e);
		if (rc == P2PS_ENOMEM)
			return p2ps_error_set(err, rc, "%s", e.msg);
		/* Every mapping of this allocation shares the handle (or the failure). */
		for (unsigned k = i; k < run->n_maps; k++)
			if (run->maps[k].alloc == a && run->maps[k].state != PROBE_SKIPPED) {
				run->maps[k].hmem = h;
				if (rc)
					probe_copy(run->maps[k].why, sizeof(run->maps[k].why),
					           e.msg);
			}
	}
	return 0;
}

static void map_all(struct probe_run *run, struct p2ps_rm *rm, const struct p2ps_rm_vas *vas)
{
	for (unsigned i = 0; i < run->n_maps; i++) {
		struct probe_map *m = &run->maps[i];
		if (m->state == PROBE_SKIPPED || !m->hmem)
			continue;
		uint32_t page_flag = m->spec->page_shift == 12   ? P2PS_RM_MAP_PAGE_4KB
		                     : m->spec->page_shift == 21 ? P2PS_RM_MAP_PAGE_HUGE
		                     : m->spec->page_shift == 29 ? P2PS_RM_MAP_PAGE_512M
		                                                 : P2PS_RM_MAP_PAGE_BIG;
		uint32_t flags = m->spec->map_flags | P2PS_RM_MAP_PAGE_SIZE(page_flag);
		struct p2ps_error e;
		int rc = p2ps_rm_map_dma(rm, run->gpu.device, vas->virt, m->hmem, 0, m->alloc->size,
		                         flags, &m->va, NULL, &e);
		if (rc) {
			probe_copy(m->why, sizeof(m->why), e.msg);
			continue;
		}
		m->state = PROBE_MAPPED;
		m->size = m->alloc->size;
		uint64_t pages = m->size >> m->spec->page_shift;
		m->n_pages = pages < PROBE_MAX_PAGES ? (unsigned)pages : PROBE_MAX_PAGES;
		for (unsigned k = 0; k < m->n_pages; k++) {
			m->pages[k].offset = (uint64_t)k << m->spec->page_shift;
			m->pages[k].va = m->va + m->pages[k].offset;
			m->pages[k].pte = -1;
		}
	}
}

static void phys_attr(struct p2ps_rm *rm, const struct probe_map *m, struct probe_page *p)
{
	struct p2ps_rm_phys_attr a;
	struct p2ps_error e;
	if (p2ps_rm_ctrl_phys_attr(rm, m->hmem, p->offset, &a, &p->phys_status, &e) == 0) {
		p->phys_known = true;
		p->phys = a.address;
		p->phys_kind = a.format;
	}
}

static void pde_info(struct p2ps_rm *rm, const struct probe_run *run, uint32_t vaspace,
                     struct probe_page *p)
{
	struct p2ps_rm_pde_info in;
	struct p2ps_error e;
	if (p2ps_rm_ctrl_pde_info(rm, run->gpu.device, vaspace, p->va, &in, &p->pde_status, &e))
		return;
	p->pdb = in.pdb;
	for (unsigned i = 0; i < PROBE_MAX_TABLES && i < P2PS_RM_PTE_BLOCKS; i++) {
		const struct p2ps_rm_pde_block *t = &in.blocks[i];
		if (!t->page_size)
			continue;
		p->tables[p->n_tables++] = (struct probe_table){.page_size = t->page_size,
		                                                .pa = t->phys,
		                                                .entry_size = t->entry_size,
		                                                .aspace = t->aperture};
	}
}

static void pte_info(struct p2ps_rm *rm, const struct probe_run *run, uint32_t vaspace,
                     struct probe_page *p)
{
	struct p2ps_rm_pte_info in;
	struct p2ps_error e;
	if (p2ps_rm_ctrl_pte_info(rm, run->gpu.device, vaspace, p->va, &in, &p->pte_status, &e))
		return;
	for (unsigned i = 0; i < PROBE_MAX_TABLES && i < P2PS_RM_PTE_BLOCKS; i++) {
		const struct p2ps_rm_pte_block *t = &in.blocks[i];
		if (!t->page_size)
			continue;
		p->pte_info[p->n_pte_info].page_size = t->page_size;
		p->pte_info[p->n_pte_info].kind = t->kind;
		p->pte_info[p->n_pte_info++].flags = t->flags;
	}
}

static void ask_pages(struct probe_run *run, struct p2ps_rm *rm, const struct p2ps_rm_vas *vas)
{
	for (unsigned i = 0; i < run->n_maps; i++) {
		struct probe_map *m = &run->maps[i];
		for (unsigned k = 0; m->state == PROBE_MAPPED && k < m->n_pages; k++) {
			struct probe_page *p = &m->pages[k];
			phys_attr(rm, m, p);
			pde_info(rm, run, vas->vaspace, p);
			pte_info(rm, run, vas->vaspace, p);
			if (p->pde_status == P2PS_RM_NV_OK && !run->pdb_known) {
				run->pdb = p->pdb;
				run->pdb_known = true;
			}
		}
	}
}

static int collect(struct probe_run *run, struct p2ps_rm *rm, struct p2ps_error *err)
{
	struct p2ps_rm_card cards[P2PS_RM_MAX_CARDS];
	int rc = open_gpu(run, rm, cards, err);
	if (rc)
		return rc;
	probe_plan(run);
	struct p2ps_rm_vas vas;
	uint64_t limit = (run->fmt->va_bits >= 64 ? 0 : (1ull << run->fmt->va_bits)) - 1;
	if ((rc = p2ps_rm_vas_new(rm, &run->gpu, limit, &vas, err)))
		return rc;
	if (run->peer.asked)
		probe_peer_collect(run, rm, &cards[run->peer.index], err);
	if ((rc = allocate(run, rm, err)))
		return rc;
	map_all(run, rm, &vas);
	ask_pages(run, rm, &vas);
	if (!run->root) {
		snprintf(run->walk_note, sizeof(run->walk_note),
		         "reading page-table entries needs root: run pte-probe as root to compare "
		         "them (the table locations above come from GET_PDE_INFO)");
		return 0;
	}
	struct p2ps_error e;
	if (probe_walk(run, rm, &e))
		probe_copy(run->walk_note, sizeof(run->walk_note), e.msg);
	return 0;
}

int probe_collect(struct probe_run *run, const struct p2ps_rm_sys *sys, struct p2ps_error *err)
{
	struct p2ps_rm *rm;
	p2ps_mem_set_init(&run->mem);
	int rc = p2ps_rm_open(&rm, sys, err);
	if (rc)
		return rc;
	run->driver = *p2ps_rm_driver(rm);
	run->root = p2ps_rm_is_root(rm);
	rc = collect(run, rm, err);
	struct p2ps_error e2;
	int rc2 = p2ps_rm_close(rm, &run->rm_stats, rc ? &e2 : err);
	return rc ? rc : rc2;
}
