/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the raw-dump reader and the summary's tight path.
 * The input is written to a memory file and read back through
 * p2ps_dump_file_open (odd sizes must be refused, never read past), then its
 * entries are summarized twice — through gmmu_summary_add_ptes in uneven slices
 * and entry by entry through gmmu_summary_add — and the two results must agree:
 * the tight path's raw-value prediction may never join entries the generic path
 * keeps apart. */
// fuzz-links: gmmu_dump
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

#define MAX_RANGES 4096

struct acc {
	uint64_t va[MAX_RANGES], count[MAX_RANGES], raw[MAX_RANGES];
	size_t n;
};

static int on_range(void *ctx, const struct gmmu_range *r, struct p2ps_error *err)
{
	(void)err;
	struct acc *a = ctx;
	if (a->n < MAX_RANGES) {
		a->va[a->n] = r->va;
		a->count[a->n] = r->count;
		a->raw[a->n] = r->raw;
	}
	a->n++;
	return 0;
}

static struct acc fast, slow;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	const struct gmmu_format *f = gmmu_format_at(data[0] % gmmu_format_count());
	unsigned page_shift = (unsigned[]){12, 16, 17, 21, 29, 38}[data[1] % 6];
	unsigned entry = (data[1] & 0x80) ? 16 : 8;
	struct p2ps_error err = {0};

	int fd = memfd_create("fuzz-dump", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct p2ps_dump_file df;
	int rc = p2ps_dump_file_open(&df, path, entry, &err);
	close(fd);
	if (rc) {
		if (size % entry == 0)
			__builtin_trap(); /* whole entries must be accepted */
		return 0;
	}
	const uint8_t *d;
	size_t len;
	uint64_t off;
	rc = p2ps_dump_file_next(&df, &d, &len, &off, &err);
	if (rc != 1 || len != size || memcmp(d, data, size))
		__builtin_trap();
	size_t n = len / 8;
	uint64_t va0 = (uint64_t)data[1] << 40;

	struct gmmu_summary s;
	fast.n = slow.n = 0;
	gmmu_summary_init(&s, f, on_range, &fast);
	size_t pos = 0, slice = 1 + data[0] % 7;
	rc = 0;
	while (pos < n && !rc) {
		size_t k = n - pos < slice ? n - pos : slice;
		rc = gmmu_summary_add_ptes(&s, d + 8 * pos, k, va0 + ((uint64_t)pos << page_shift),
		                           page_shift, NULL, &err);
		pos += k;
		slice = slice * 5 % 13 + 1;
	}
	gmmu_summary_finish(&s, &err);
	struct gmmu_summary_stats a = s.st;
	gmmu_summary_init(&s, f, on_range, &slow);
	for (size_t i = 0; i < n; i++) {
		struct gmmu_mapping m = {.va = va0 + ((uint64_t)i << page_shift),
		                         .raw = p2ps_le64(d + 8 * i),
		                         .page_shift = (uint8_t)page_shift};
		gmmu_summary_add(&s, &m, &err);
	}
	gmmu_summary_finish(&s, &err);
	if (fast.n != slow.n || a.entries != s.st.entries || a.valid != s.st.valid)
		__builtin_trap();
	for (size_t i = 0; i < fast.n && i < MAX_RANGES; i++)
		if (fast.va[i] != slow.va[i] || fast.count[i] != slow.count[i] ||
		    fast.raw[i] != slow.raw[i])
			__builtin_trap();
	p2ps_dump_file_close(&df);
	return 0;
}
