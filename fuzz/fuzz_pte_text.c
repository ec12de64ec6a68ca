/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the text-dump parser and the SPEC parser (pte-decode --text,
 * verify --expect). The first byte picks which; text words are then decoded as
 * PTEs of a v2 and a v3 chip and coalesced, as `decode --text --summary` does.
 * Any crash, sanitizer report or leak is a finding; parse errors are not. */
// fuzz-links: gmmu_dump
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

struct ctx {
	struct gmmu_summary v2, v3;
	uint64_t index;
};

static int on_range(void *ctx, const struct gmmu_range *r, struct p2ps_error *err)
{
	(void)ctx;
	(void)err;
	/* a range is never empty and never wraps */
	if (!r->count || r->va + (gmmu_range_bytes(r) - 1) < r->va)
		__builtin_trap();
	return 0;
}

static int on_word(void *vctx, const struct p2ps_text_word *w, struct p2ps_error *err)
{
	struct ctx *c = vctx;
	if (w->has_offset && w->index == 0)
		c->index = w->line_offset / 8;
	struct gmmu_mapping m = {
	        .va = (c->index & 0xfffffffffull) << 12, .raw = w->lo, .page_shift = 12};
	c->index++;
	int rc = gmmu_summary_add(&c->v2, &m, err);
	if (!rc)
		rc = gmmu_summary_add(&c->v3, &m, err);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	struct p2ps_error err = {0};
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	if (data[0] & 1) {
		const struct gmmu_format *f = gmmu_format_at((data[0] >> 1) % gmmu_format_count());
		struct gmmu_spec spec;
		if (!gmmu_spec_parse(text, len, "fuzz.json", (data[0] & 2) ? f : NULL, &spec, &err))
			gmmu_spec_cleanup(&spec);
		return 0;
	}
	struct ctx c = {0};
	gmmu_summary_init(&c.v2, gmmu_format_find("v2"), on_range, NULL);
	gmmu_summary_init(&c.v3, gmmu_format_find("v3"), on_range, NULL);
	if (!p2ps_text_parse(text, len, "fuzz.txt", on_word, &c, &err)) {
		gmmu_summary_finish(&c.v2, &err);
		gmmu_summary_finish(&c.v3, &err);
	}
	/* an error message is one line */
	if (memchr(err.msg, '\n', strnlen(err.msg, sizeof(err.msg))))
		__builtin_trap();
	return 0;
}
