/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the page-directory walk. The input is a header and a
 * memory image; the image is placed at PA 0x100000 both in video and in system
 * memory, and the walk starts from a root inside it. Whatever the entries say
 * (cycles, shared tables, PDEs into nowhere, PTE bits where no pages live), the
 * walk must end — reading each table once bounds it by the image size — and
 * never read outside the image. Found PTEs go through summary and verify. */
// fuzz-links: gmmu_dump
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

#define BASE 0x100000ull

struct ctx {
	struct gmmu_summary s;
	uint64_t found, limit;
};

static int on_pte(void *vctx, const struct gmmu_mapping *m, struct p2ps_error *err)
{
	struct ctx *c = vctx;
	if (++c->found > c->limit)
		__builtin_trap(); /* more PTEs than the image holds: a table was read twice */
	return gmmu_summary_add(&c->s, m, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	const struct gmmu_format *f = gmmu_format_at(data[0] % gmmu_format_count());
	struct gmmu_walk_opts o = {
	        .fmt = f,
	        .pdb_space = (data[1] & 1) ? P2PS_MEM_SYS : P2PS_MEM_VID,
	        .pdb = BASE + ((uint64_t)data[2] << 8),
	        .big_page_shift = (data[1] & 2) ? 17 : 16,
	        .report_invalid = (data[1] & 4) != 0,
	};
	const uint8_t *img = data + 8;
	size_t len = size - 8;
	struct p2ps_error err = {0};
	struct p2ps_mem_set mem;
	p2ps_mem_set_init(&mem);
	if (len && (p2ps_mem_set_add_buffer(&mem, P2PS_MEM_VID, BASE, img, len, "vid", &err) ||
	            p2ps_mem_set_add_buffer(&mem, P2PS_MEM_SYS, BASE, img, len, "sys", &err)))
		__builtin_trap();
	struct ctx c = {.limit = 2 * (len / 8) + 1};
	struct gmmu_range_list list = {0};
	gmmu_summary_init(&c.s, f, gmmu_verify_collect, &list);
	struct gmmu_walk_stats st;
	int rc = gmmu_walk(&mem, &o, on_pte, &c, &st, &err);
	if (!rc)
		rc = gmmu_summary_finish(&c.s, &err);
	if (!rc && list.n) {
		/* verify the found ranges against a SPEC naming the first of them */
		char spec_text[512];
		const struct gmmu_range *r = &list.v[0];
		snprintf(spec_text, sizeof(spec_text),
		         "{\"mappings\": [{\"va\": \"0x%llx\", \"size\": \"0x%llx\", \"aperture\": "
		         "\"%s\", \"target\": \"0x%llx\"}]}",
		         (unsigned long long)r->va, (unsigned long long)gmmu_range_bytes(r),
		         gmmu_aperture_name(r->v.aperture), (unsigned long long)r->v.addr);
		struct gmmu_spec spec;
		if (!gmmu_spec_parse(spec_text, strlen(spec_text), "s", f, &spec, &err)) {
			struct gmmu_verify_stats vs;
			gmmu_verify(&spec, &list, NULL, NULL, &vs, &err);
			if (vs.matched_bytes != gmmu_range_bytes(r) && list.n == 1)
				__builtin_trap();
			gmmu_spec_cleanup(&spec);
		}
	}
	gmmu_range_list_cleanup(&list);
	p2ps_mem_set_cleanup(&mem);
	return 0;
}
