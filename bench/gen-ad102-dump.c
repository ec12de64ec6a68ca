/* SPDX-License-Identifier: MIT */
/* Writes a synthetic raw dump of AD102 (MMU format v2) 4 KiB page-table
 * entries for bench/pte-decode-vs-cat.sh: what a VA space of a busy CUDA
 * process looks like when its small-page PTEs are dumped back to back.
 *
 * usage: gen-ad102-dump OUT BYTES [SEED [WRITE_BYTES]]
 *
 * The file is written WRITE_BYTES at a time (default 4 MiB). How a file was written
 * shapes its page cache: Linux keeps pieces of up to one write together (folios), and a
 * mapping of 2 MiB folios needs no 4 KiB page-table entries; a dump read back from disk
 * gets such folios from readahead. 512 KiB writes leave small ones, which a reader that
 * maps the file pays for in faults and TLB misses.
 *
 * The address space is cut into allocations; each is one of
 *   - video memory backed by 2 MiB-contiguous chunks (runs of 512 PTEs),
 *   - video memory backed by 64 KiB-contiguous chunks (runs of 16 PTEs),
 *   - pinned system memory, 4 KiB pages scattered (every PTE its own run),
 *   - a BAR1-P2P peer mapping: SYSTEM_NON_COHERENT, peer BAR1 address,
 *     contiguous (what the tinygrad patch writes),
 *   - a stock PCIe peer mapping: PEER aperture with a peer index,
 *   - a hole (zero PTEs),
 * with read-only, volatile and kind varying per allocation.
 *
 * Bit positions: NV_MMU_VER2_PTE_* of pascal/gp100/dev_mmu.h (595.45.04):
 * VALID 0, APERTURE 2:1, VOL 3, READ_ONLY 6, ADDRESS_SYS 53:8, ADDRESS_VID
 * 32:8, ADDRESS_VID_PEER 35:33, KIND 63:56; address shift 12. Written out here
 * on purpose: the generator must not depend on the library it measures. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "p2pscope/bytes.h"

#define PTE_VALID       (1ull << 0)
#define PTE_APERTURE(a) ((uint64_t)(a) << 1)
#define PTE_VOL         (1ull << 3)
#define PTE_READ_ONLY   (1ull << 6)
#define PTE_ADDR(pa)    (((uint64_t)(pa) >> 12) << 8)
#define PTE_PEER(p)     ((uint64_t)(p) << 33)
#define PTE_KIND(k)     ((uint64_t)(k) << 56)
#define APER_VIDEO      0
#define APER_PEER       1
#define APER_SYS_NONCOH 3
#define KIND_GENERIC    6
#define KIND_PITCH      0

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible across runs for a given seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_below(uint64_t n)
{
	return rnd() % n;
}

/* Allocation classes, in the order of the summary line, and the share of each (per mille
 * of allocations, cumulative). */
enum alloc_class { VID_2M, VID_64K, SYS_4K, BAR1_PEER, PCIE_PEER, HOLE, N_CLASSES };
static const unsigned class_below[N_CLASSES] = {500, 550, 555, 755, 855, 1000};

static enum alloc_class class_of(unsigned per_mille)
{
	int c = 0;
	while (per_mille >= class_below[c])
		c++;
	return (enum alloc_class)c;
}

#define VRAM      (24ull << 30)    /* the peer's and our VRAM: 24 GiB */
#define BAR1_BASE 0x38000000000ull /* the peer's BAR1 bus address */

/* Entry k of an allocation of class cls; *pa carries the chunk's base from entry to
 * entry (each class draws a new one where its contiguity ends). */
static uint64_t pte_of(enum alloc_class cls, uint64_t k, uint64_t flags, uint64_t *pa)
{
	switch (cls) {
	case VID_2M:
		if (k % 512 == 0)
			*pa = rnd_below(VRAM >> 21) << 21;
		return flags | PTE_APERTURE(APER_VIDEO) | PTE_ADDR(*pa + (k % 512) * 4096);
	case VID_64K:
		if (k % 16 == 0)
			*pa = rnd_below(VRAM >> 16) << 16;
		return flags | PTE_APERTURE(APER_VIDEO) | PTE_ADDR(*pa + (k % 16) * 4096);
	case SYS_4K:
		return PTE_VALID | PTE_VOL | PTE_KIND(KIND_PITCH) | PTE_APERTURE(APER_SYS_NONCOH) |
		       PTE_ADDR(rnd_below(64ull << 18) << 12);
	case BAR1_PEER:
		if (k == 0)
			*pa = BAR1_BASE + (rnd_below(VRAM >> 21) << 21);
		return flags | PTE_VOL | PTE_APERTURE(APER_SYS_NONCOH) | PTE_ADDR(*pa + k * 4096);
	case PCIE_PEER:
		if (k == 0)
			*pa = rnd_below(VRAM >> 21) << 21;
		return flags | PTE_VOL | PTE_APERTURE(APER_PEER) | PTE_PEER(1) |
		       PTE_ADDR(*pa + k * 4096);
	default: return 0;
	}
}

/* The output file, written `chunk` entries at a time. */
struct out {
	FILE *f;
	const char *path;
	uint8_t *buf;
	size_t n, chunk; /* entries in buf, and its capacity */
};

static int flush(struct out *o)
{
	if (o->n && fwrite(o->buf, 8, o->n, o->f) != o->n) {
		perror(o->path);
		return -1;
	}
	o->n = 0;
	return 0;
}

static int put_entry(struct out *o, uint64_t e)
{
	p2ps_put_le64(o->buf + 8 * o->n++, e);
	return o->n == o->chunk ? flush(o) : 0;
}

/* Writes n entries of allocations drawn one after the other; counts entries per class. */
static int generate(struct out *o, uint64_t n, uint64_t counts[N_CLASSES])
{
	uint64_t i = 0;
	while (i < n) {
		unsigned type = (unsigned)rnd_below(1000); /* per mille */
		uint64_t pages = 16 + rnd_below(8192);     /* 64 KiB .. 32 MiB allocations */
		uint64_t flags = PTE_VALID | PTE_KIND(KIND_GENERIC);
		if (rnd_below(8) == 0)
			flags |= PTE_READ_ONLY;
		enum alloc_class cls = class_of(type);
		uint64_t pa = 0;
		for (uint64_t k = 0; k < pages && i < n; k++, i++) {
			counts[cls]++;
			if (put_entry(o, pte_of(cls, k, flags, &pa)))
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s OUT BYTES [SEED [WRITE_BYTES]]\n", argv[0]);
		return 2;
	}
	struct out o = {.path = argv[1]};
	o.chunk = argc > 4 ? (size_t)strtoull(argv[4], NULL, 0) / 8 : (4u << 20) / 8;
	if (!o.chunk) {
		fprintf(stderr, "%s: bad write size\n", argv[0]);
		return 2;
	}
	o.buf = malloc(o.chunk * 8);
	if (!o.buf) {
		fprintf(stderr, "%s: cannot allocate %zu bytes\n", argv[0], o.chunk * 8);
		return 2;
	}
	uint64_t bytes = strtoull(argv[2], NULL, 0);
	rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x4090;
	if (!rng_state)
		rng_state = 1;
	o.f = fopen(argv[1], "wb");
	if (!o.f) {
		perror(argv[1]);
		free(o.buf);
		return 2;
	}
	uint64_t n = bytes / 8, counts[N_CLASSES] = {0};
	int rc = generate(&o, n, counts);
	if (rc) {
		fclose(o.f);
		free(o.buf);
		return 2;
	}
	bool written = !o.n || fwrite(o.buf, 8, o.n, o.f) == o.n; /* reported below */
	free(o.buf);
	if (fclose(o.f) || !written) {
		perror(argv[1]);
		return 2;
	}
	fprintf(stderr,
	        "gen-ad102-dump: %llu PTEs: vid-2M %llu, vid-64K %llu, sys-4K %llu, bar1-peer "
	        "%llu, "
	        "pcie-peer %llu, holes %llu\n",
	        (unsigned long long)n, (unsigned long long)counts[0], (unsigned long long)counts[1],
	        (unsigned long long)counts[2], (unsigned long long)counts[3],
	        (unsigned long long)counts[4], (unsigned long long)counts[5]);
	return 0;
}
