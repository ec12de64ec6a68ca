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

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s OUT BYTES [SEED [WRITE_BYTES]]\n", argv[0]);
		return 2;
	}
	size_t chunk = argc > 4 ? (size_t)strtoull(argv[4], NULL, 0) / 8 : (4u << 20) / 8;
	uint8_t *buf = malloc(chunk ? chunk * 8 : 8);
	if (!buf || !chunk) {
		fprintf(stderr, "%s: bad write size\n", argv[0]);
		return 2;
	}
	uint64_t bytes = strtoull(argv[2], NULL, 0);
	rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x4090;
	if (!rng_state)
		rng_state = 1;
	FILE *f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	uint64_t n = bytes / 8, i = 0;
	size_t b = 0; /* entries in buf */
	uint64_t counts[6] = {0};
	const uint64_t vram = 24ull << 30, bar1 = 0x38000000000ull; /* 24 GiB peer, BAR1 base */
	while (i < n) {
		unsigned type = (unsigned)rnd_below(1000); /* per mille */
		uint64_t pages = 16 + rnd_below(8192);     /* 64 KiB .. 32 MiB allocations */
		uint64_t flags = PTE_VALID | PTE_KIND(KIND_GENERIC);
		if (rnd_below(8) == 0)
			flags |= PTE_READ_ONLY;
		int cls;
		if (type < 500)
			cls = 0; /* vidmem, 2M chunks */
		else if (type < 550)
			cls = 1; /* vidmem, 64K chunks */
		else if (type < 555)
			cls = 2; /* sysmem scattered 4K */
		else if (type < 755)
			cls = 3; /* BAR1-P2P peer */
		else if (type < 855)
			cls = 4; /* stock PCIe peer */
		else
			cls = 5; /* hole */
		uint64_t pa = 0;
		for (uint64_t k = 0; k < pages && i < n; k++, i++) {
			uint64_t e = 0;
			switch (cls) {
			case 0:
				if (k % 512 == 0)
					pa = rnd_below(vram >> 21) << 21;
				e = flags | PTE_APERTURE(APER_VIDEO) |
				    PTE_ADDR(pa + (k % 512) * 4096);
				break;
			case 1:
				if (k % 16 == 0)
					pa = rnd_below(vram >> 16) << 16;
				e = flags | PTE_APERTURE(APER_VIDEO) |
				    PTE_ADDR(pa + (k % 16) * 4096);
				break;
			case 2:
				e = PTE_VALID | PTE_VOL | PTE_KIND(KIND_PITCH) |
				    PTE_APERTURE(APER_SYS_NONCOH) |
				    PTE_ADDR(rnd_below(64ull << 18) << 12);
				break;
			case 3:
				if (k == 0)
					pa = bar1 + (rnd_below(vram >> 21) << 21);
				e = flags | PTE_VOL | PTE_APERTURE(APER_SYS_NONCOH) |
				    PTE_ADDR(pa + k * 4096);
				break;
			case 4:
				if (k == 0)
					pa = rnd_below(vram >> 21) << 21;
				e = flags | PTE_VOL | PTE_APERTURE(APER_PEER) | PTE_PEER(1) |
				    PTE_ADDR(pa + k * 4096);
				break;
			default: e = 0; break;
			}
			counts[cls]++;
			p2ps_put_le64(buf + 8 * b++, e);
			if (b == chunk) {
				if (fwrite(buf, 8, b, f) != b) {
					perror(argv[1]);
					return 2;
				}
				b = 0;
			}
		}
	}
	if ((b && fwrite(buf, 8, b, f) != b) || fclose(f)) {
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
