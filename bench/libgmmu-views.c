/* SPDX-License-Identifier: MIT */
/* Benchmark (not a test): decode throughput of the fast views over a buffer of PTEs, the
 * path page-table dump tools take for every entry. Prints GB/s of entries decoded per
 * format and, for comparison, the field-by-field gmmu_entry_decode() rate.
 * usage: libgmmu-views [MiB]   (default 256) — run by bench/libgmmu-views.sh */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/parse.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	uint64_t mib = 256;
	if (argc > 1 && p2ps_parse_uint(argv[1], 1u << 20, &mib) < 0) {
		fprintf(stderr, "libgmmu-views: MIB: a number up to 1048576 expected, not '%s'\n",
		        argv[1]);
		return 2;
	}
	size_t n = (size_t)mib * 1024 * 1024 / 8;
	uint8_t *buf = malloc(n * 8);
	if (!buf || n == 0) {
		fprintf(stderr, "libgmmu-views: cannot allocate %zu MiB\n", (size_t)mib);
		return 2;
	}
	/* Mostly valid PTEs of mixed apertures, like a real page table. */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p2ps_put_le64(buf + 8 * i, x | 1);
	}
	for (size_t fi = 0; fi < gmmu_format_count(); fi++) {
		const struct gmmu_format *f = gmmu_format_at(fi);
		uint64_t sum = 0;
		double t0 = now();
		for (size_t i = 0; i < n; i++) {
			struct gmmu_pte_view v;
			gmmu_pte_view(f, p2ps_le64(buf + 8 * i), &v);
			sum += v.addr + v.kind + v.peer_index + (uint64_t)v.valid +
			       (uint64_t)v.aperture;
		}
		double t = now() - t0;
		printf("%-6s gmmu_pte_view:     %8.2f GB/s  %7.1f M entries/s  (checksum %llx)\n",
		       f->name, (double)n * 8 / t / 1e9, (double)n / t / 1e6,
		       (unsigned long long)sum);
	}
	const struct gmmu_format *f = gmmu_format_find("v2");
	size_t m = n / 16;
	uint64_t sum = 0;
	double t0 = now();
	for (size_t i = 0; i < m; i++) {
		uint64_t w[2] = {p2ps_le64(buf + 8 * i), 0};
		struct gmmu_decoded d;
		gmmu_entry_decode(f->entry[GMMU_ENTRY_PTE], w, &d);
		sum += d.value[0] + d.unexplained[0];
	}
	double t = now() - t0;
	printf("%-6s gmmu_entry_decode: %8.2f GB/s  %7.1f M entries/s  (checksum %llx)\n", f->name,
	       (double)m * 8 / t / 1e9, (double)m / t / 1e6, (unsigned long long)sum);
	free(buf);
	return 0;
}
