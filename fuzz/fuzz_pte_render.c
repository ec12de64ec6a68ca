/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pte-decode's pipeline and renderings (gmmu_dump_run), on arbitrary raw
 * entries: every chip's format, every entry type and level, entries, summary and verify,
 * text and JSON. Nothing may crash, read out of bounds or leak; the output must be whole
 * lines and the run must end in 0 or one error line.
 *
 * Input: byte 0 picks the format, byte 1 the entry type, the level and the output, byte 2
 * the VA of entry 0; the rest are the entries, written to a memory file. */
// fuzz-links: gmmu_dump
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p2pscope/gmmu_render.h"

static int discard(void *ctx, const char *s, size_t n)
{
	size_t *total = ctx;
	*total += n;
	(void)s;
	return 0;
}

/* A SPEC for verify: one mapping of the first 16 pages of the level's size. */
static int write_spec(char *path, size_t len)
{
	static const char spec[] = "{\"mappings\": [{\"va\": \"0\", \"size\": \"64K\", "
	                           "\"aperture\": \"VIDEO\", \"target\": \"0\"}]}";
	int fd = memfd_create("fuzz-spec", 0);
	if (fd < 0 || write(fd, spec, sizeof(spec) - 1) != (ssize_t)(sizeof(spec) - 1))
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size > (1u << 20))
		return 0;
	const struct gmmu_format *f = gmmu_format_at(data[0] % gmmu_format_count());
	unsigned sel = data[1];
	struct gmmu_dump_request rq = {.fmt = f,
	                               .input = GMMU_DUMP_RAW,
	                               .entry = (enum gmmu_entry_type)(sel % 3),
	                               .output = (enum gmmu_dump_output)(sel / 3 % 3),
	                               .json = sel & 0x40,
	                               .va0 = (uint64_t)data[2] << 40,
	                               .max_diffs = sel & 0x80 ? 0 : 3};
	const struct gmmu_level *lv = &f->levels[(sel >> 3) % f->n_levels];
	if (rq.entry == GMMU_ENTRY_PTE || rq.output != GMMU_DUMP_ENTRIES) {
		rq.entry = GMMU_ENTRY_PTE;
		if (gmmu_dump_pte_level(f, lv->page_shift ? lv : NULL, 0, &rq.level,
		                        &rq.page_shift))
			return 0;
	} else if (rq.entry == GMMU_ENTRY_DUAL_PDE || lv->pde) {
		rq.level = rq.entry == GMMU_ENTRY_DUAL_PDE && !lv->dual ? NULL : lv;
	}
	int fd = memfd_create("fuzz-dump", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data + 3, size - 3) != (ssize_t)(size - 3))
		abort();
	char path[64], spec[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int sfd = write_spec(spec, sizeof(spec));
	rq.path = path;
	rq.expect = spec;
	char block[GMMU_OUT_MIN_BLOCK];
	size_t total = 0;
	struct gmmu_out o;
	gmmu_out_init(&o, block, sizeof(block), discard, &total);
	struct gmmu_dump_result res;
	struct p2ps_error err = {0};
	int rc = gmmu_dump_run(&rq, &o, &res, &err);
	if (gmmu_out_flush(&o) || (rc && (!err.msg[0] || strchr(err.msg, '\n'))))
		abort();
	close(fd);
	close(sfd);
	return 0;
}
