/* SPDX-License-Identifier: MIT */
/* Reading the tables: libgmmu's walker runs from the page directory base GET_PDE_INFO gave
 * and asks for each table it needs; the fetch hook reads the table's 4 KiB page of video
 * memory through the driver's read-only framebuffer window, once. Every PTE and every
 * directory entry the walk meets becomes a probe_entry for compare.c. */
#include "p2pscope/probe.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "p2pscope/bytes.h"

#define PAGE 4096u

struct walk_ctx {
	struct probe_run *run;
	struct p2ps_rm *rm;
};

int probe_entry_add(struct probe_run *run, struct probe_entry **out, struct p2ps_error *err)
{
	void *v = run->entries;
	if (!p2ps_grow(&v, &run->cap_entries, run->n_entries + 1, sizeof(*run->entries)))
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	run->entries = v;
	*out = &run->entries[run->n_entries++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

static int keep_page(struct probe_run *run, uint8_t *page, struct p2ps_error *err)
{
	void *v = run->pages;
	if (!p2ps_grow(&v, &run->cap_pages, run->n_pages + 1, sizeof(*run->pages)))
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	run->pages = v;
	run->pages[run->n_pages++] = page;
	return 0;
}

static int fetch(void *ctx, enum p2ps_mem_space space, uint64_t pa, uint64_t len,
                 struct p2ps_error *err)
{
	struct walk_ctx *w = ctx;
	if (space != P2PS_MEM_VID)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "a table lives in system memory at 0x%" PRIx64
		                      ": pte-probe reads tables in video memory only",
		                      pa);
	uint64_t first = pa & ~(uint64_t)(PAGE - 1);
	if (((pa + len - 1) & ~(uint64_t)(PAGE - 1)) != first)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "table at 0x%" PRIx64 " (%" PRIu64 " bytes) crosses a page",
		                      pa, len);
	uint8_t *page = malloc(PAGE);
	if (!page)
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	int rc = p2ps_rm_read_vidmem(w->rm, &w->run->gpu, first, page, err);
	if (rc == 0)
		rc = keep_page(w->run, page, err);
	if (rc) {
		free(page);
		return rc;
	}
	return p2ps_mem_set_add_buffer(&w->run->mem, P2PS_MEM_VID, first, page, PAGE, "vidmem",
	                               err);
}

static int on_pte(void *ctx, const struct gmmu_mapping *m, struct p2ps_error *err)
{
	struct walk_ctx *w = ctx;
	struct probe_entry *e = NULL;
	int rc = probe_entry_add(w->run, &e, err);
	if (rc)
		return rc;
	e->pte = true;
	e->level = m->level;
	e->index = m->index;
	e->space = m->space;
	e->entry_pa = m->entry_pa;
	e->va = m->va;
	e->raw[0] = m->raw;
	e->ef = w->run->fmt->entry[GMMU_ENTRY_PTE];
	/* A PTE in a dual level fills 16 bytes; the upper 8 must stay zero. */
	if (m->level && m->level->entry_size > 8) {
		const uint8_t *hi = p2ps_mem_set_at(&w->run->mem, m->space, m->entry_pa + 8, 8);
		e->raw[1] = hi ? p2ps_le64(hi) : 0;
	}
	return 0;
}

static int on_dir(void *ctx, const struct gmmu_dir_entry *d, struct p2ps_error *err)
{
	struct walk_ctx *w = ctx;
	struct probe_entry *e = NULL;
	/* The two halves of a dual PDE are one entry. */
	for (size_t i = 0; i < w->run->n_entries && !e; i++) {
		struct probe_entry *x = &w->run->entries[i];
		if (!x->pte && x->entry_pa == d->entry_pa && x->space == d->space)
			e = x;
	}
	if (!e) {
		int rc = probe_entry_add(w->run, &e, err);
		if (rc)
			return rc;
		e->level = d->level;
		e->index = d->index;
		e->space = d->space;
		e->entry_pa = d->entry_pa;
		e->va = d->va;
		e->raw[0] = d->w[0];
		e->raw[1] = d->w[1];
		e->ef = w->run->fmt->entry[d->level->dual ? GMMU_ENTRY_DUAL_PDE : GMMU_ENTRY_PDE];
	}
	e->half_seen[d->half] = true;
	e->half_space[d->half] = d->next_space;
	e->half_pa[d->half] = d->next_pa;
	return 0;
}

/* The big page size of the VA space, from the page sizes GET_PDE_INFO reported. */
static unsigned big_page_shift(const struct probe_run *run)
{
	for (unsigned i = 0; i < run->n_maps; i++)
		for (unsigned k = 0; k < run->maps[i].n_pages; k++)
			for (unsigned t = 0; t < run->maps[i].pages[k].n_tables; t++)
				if (run->maps[i].pages[k].tables[t].page_size == 128 * 1024)
					return 17;
	return 16;
}

int probe_walk(struct probe_run *run, struct p2ps_rm *rm, struct p2ps_error *err)
{
	if (!run->pdb_known)
		return p2ps_error_set(err, P2PS_ENOENT,
		                      "GET_PDE_INFO gave no page directory base: nothing to walk");
	struct walk_ctx w = {.run = run, .rm = rm};
	struct gmmu_walk_opts o = {
	        .fmt = run->fmt,
	        .pdb_space = P2PS_MEM_VID,
	        .pdb = run->pdb,
	        .big_page_shift = big_page_shift(run),
	        .fetch = fetch,
	        .fetch_ctx = &w,
	        .dir_fn = on_dir,
	};
	int rc = gmmu_walk(&run->mem, &o, on_pte, &w, &run->walk_stats, err);
	run->walked = rc == 0;
	return rc;
}

void probe_run_cleanup(struct probe_run *run)
{
	p2ps_mem_set_cleanup(&run->mem);
	for (size_t i = 0; i < run->n_pages; i++)
		free(run->pages[i]);
	free(run->pages);
	free(run->entries);
	run->pages = NULL;
	run->entries = NULL;
	run->n_pages = run->n_entries = 0;
}
