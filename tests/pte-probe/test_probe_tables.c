/* SPDX-License-Identifier: MIT */
/* pte-probe's judgement of a directory entry by where its table lives, on a run synthesized
 * here (AD102, v2): a PD1 entry over one 2 MiB page whose table GET_PDE_INFO places in
 * system memory. Every committed capture has its tables in video memory; this is the other
 * address space. The words are written by hand from pascal/gp100 dev_mmu.h (580.142):
 * NV_MMU_VER2_PDE APERTURE 2:1 (1 VIDEO_MEMORY, 2 SYSTEM_COHERENT_MEMORY,
 * 3 SYSTEM_NON_COHERENT_MEMORY), VOL 3:3, ADDRESS_SYS 53:8 and ADDRESS_VID (35-3):8 holding
 * the address >> 12 (NV_MMU_VER2_PDE_ADDRESS_SHIFT); GET_PDE_INFO's pteAddrSpace is
 * ctrl0080dma.h's NV0080_CTRL_DMA_GET_PDE_INFO_PARAMS_PTE_ADDR_SPACE_* (0 video, 1 system
 * coherent, 2 system non-coherent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/probe.h"

#define VA 0x200000000ull  /* 512 MiB-aligned: one PD1 entry covers it */
#define PT 0x7f00000000ull /* the 2 MiB-page table, in system memory */

static const struct probe_alloc alloc = {
        .name = "sys-2m", .mem = PROBE_VID, .page_shift = 21, .size = 2u << 20};
static const struct probe_spec spec = {
        .name = "sys-2m", .alloc = "sys-2m", .page_shift = 21, .what = "2 MiB pages"};

/* The run after the walk: the page, GET_PDE_INFO's table for 2 MiB pages in address
 * space aspace, and the PD1 entry read, raw. */
static struct probe_run *synth(uint32_t aspace, uint64_t raw, bool followed_sys)
{
	struct probe_run *run = calloc(1, sizeof(*run));
	assert_non_null(run);
	run->fmt = gmmu_chip_find("AD102")->format;
	run->walked = true;
	run->n_maps = 1;
	struct probe_map *m = &run->maps[0];
	*m = (struct probe_map){.spec = &spec,
	                        .alloc = &alloc,
	                        .state = PROBE_MAPPED,
	                        .va = VA,
	                        .size = alloc.size,
	                        .n_pages = 1};
	m->pages[0] = (struct probe_page){.va = VA, .pte = -1, .n_tables = 1};
	m->pages[0].tables[0] = (struct probe_table){
	        .page_size = 2u << 20, .pa = PT, .entry_size = 16, .aspace = aspace};
	struct probe_entry *e;
	assert_int_equal(probe_entry_add(run, &e, NULL), 0);
	e->level = &run->fmt->levels[2]; /* PD1 */
	assert_string_equal(e->level->name, "PD1");
	e->va = VA;
	e->raw[0] = raw;
	e->ef = run->fmt->entry[GMMU_ENTRY_PDE];
	e->half_seen[GMMU_HALF_NONE] = true;
	e->half_space[GMMU_HALF_NONE] = followed_sys ? P2PS_MEM_SYS : P2PS_MEM_VID;
	e->half_pa[GMMU_HALF_NONE] = PT;
	assert_int_equal(probe_compare(run, NULL), 0);
	return run;
}

static void done(struct probe_run *run)
{
	probe_run_cleanup(run);
	free(run);
}

/* ADDRESS_SYS = 0x7f00000000 >> 12 = 0x7f00000, << 8 = 0x7f0000000; VOL 0 (the PDE of a
 * cached table); APERTURE 2 << 1 = 0x4 (coherent) or 3 << 1 = 0x6 (non-coherent). */
#define PDE_SYS_COH    0x7f0000004ull
#define PDE_SYS_NONCOH 0x7f0000006ull

static void sysmem_tables(void **state)
{
	(void)state;
	struct probe_run *run = synth(1, PDE_SYS_COH, false);
	assert_int_equal(run->agree, 1);
	assert_int_equal(run->differ, 0);
	assert_string_equal(run->entries[0].addr_source, "GET_PDE_INFO");
	done(run);
	run = synth(2, PDE_SYS_NONCOH, false);
	assert_int_equal(run->agree, 1);
	done(run);
	/* The coherent entry where GET_PDE_INFO says non-coherent: APERTURE differs. */
	run = synth(2, PDE_SYS_COH, false);
	assert_int_equal(run->differ, 1);
	assert_string_equal(run->entries[0].diffs[0].field->name, "APERTURE");
	done(run);
}

/* A table in video memory at the same address does not fit ADDRESS_VID (25 bits of
 * 4 KiB pages): GET_PDE_INFO saying video makes the model refuse, so a sysmem entry is
 * never taken for a video one. */
static void video_tables(void **state)
{
	(void)state;
	struct probe_run *run = synth(0, PDE_SYS_COH, false);
	assert_int_equal(run->agree, 0);
	assert_false(run->entries[0].modelled && run->entries[0].n_diffs == 0);
	done(run);
}

/* An address space GET_PDE_INFO does not define (7): the table is taken where the walk
 * followed the entry to, system memory read as coherent. */
static void followed(void **state)
{
	(void)state;
	struct probe_run *run = synth(7, PDE_SYS_COH, true);
	assert_int_equal(run->agree, 1);
	assert_string_equal(run->entries[0].addr_source, "followed");
	done(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sysmem_tables),
	        cmocka_unit_test(video_tables),
	        cmocka_unit_test(followed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
