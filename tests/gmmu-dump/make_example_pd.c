/* Writes the page-directory images of the examples in docs/pte-dumps.md and
 * docs/readme/pte-dumps.md (checked by doc_examples_dump.sh):
 *
 *   pd.bin   an AD102 (v2) image at vid PA 0x100000 mapping all 24 GiB of peer 1's
 *            memory at VA 0x7f0000000000 with 2 MiB pages the BAR1-P2P way
 *            (SYSTEM_NON_COHERENT, peer BAR1 0x38000000000 + offset), with one PTE
 *            (the 1893rd) pointing one page too far;
 *   cyc.bin  PD3 -> PD2 -> PD1 whose entry 1 points back at PD2.
 *
 * Entries are computed here from NV_MMU_VER2_* (pascal/gp100/dev_mmu.h,
 * 595.45.04), not with libgmmu's encoder:
 *   PDE:  APERTURE 2:1 (VIDEO_MEMORY = 1), ADDRESS_VID 32:8 = PA >> 12
 *   PTE:  VALID 0, APERTURE 2:1 (SYSTEM_NON_COHERENT_MEMORY = 3), VOL 3,
 *         ADDRESS_SYS 53:8 = PA >> 12, KIND 63:56 (GENERIC_MEMORY = 6)
 *   PD0 entries are 16 bytes; a 2 MiB PTE is the low 8 (VALID set). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"

#define BASE 0x100000ull

static uint64_t pde_vid(uint64_t pa)
{
	return (pa >> 12) << 8 | 1u << 1;
}

static uint64_t pte_bar1(uint64_t pa)
{
	return 6ull << 56 | (pa >> 12) << 8 | 1u << 3 | 3u << 1 | 1u;
}

static int save(const char *path, const uint8_t *img, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(img, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(void)
{
	const uint64_t va = 0x7f0000000000ull, bar1 = 0x38000000000ull;
	const unsigned tables = 48; /* 24 GiB / 512 MiB per PD0 table */
	size_t len = 0x1000 * (3 + tables);
	uint8_t *img = calloc(1, len);
	if (!img)
		return 1;
	/* VA 0x7f0000000000: PD3 index (48:47) 0, PD2 index (46:38) 0x1fc, PD1 (37:29) 0 */
	p2ps_put_le64(img + 0x0000, pde_vid(BASE + 0x1000));
	p2ps_put_le64(img + 0x1000 + 8 * ((va >> 38) & 0x1ff), pde_vid(BASE + 0x2000));
	for (unsigned t = 0; t < tables; t++) {
		uint64_t pd0 = 0x3000 + 0x1000ull * t;
		p2ps_put_le64(img + 0x2000 + 8 * t, pde_vid(BASE + pd0));
		for (unsigned e = 0; e < 256; e++) {
			uint64_t page = 256ull * t + e;
			if (page == 1892)
				page++; /* the deliberately wrong entry */
			p2ps_put_le64(img + pd0 + 16 * e, pte_bar1(bar1 + (page << 21)));
		}
	}
	if (save("pd.bin", img, len))
		return 1;
	memset(img, 0, len);
	p2ps_put_le64(img + 0x0000, pde_vid(BASE + 0x1000));
	p2ps_put_le64(img + 0x1000, pde_vid(BASE + 0x2000));
	p2ps_put_le64(img + 0x2000, pde_vid(BASE + 0x3000));
	p2ps_put_le64(img + 0x2008, pde_vid(BASE + 0x1000)); /* back to PD2 */
	int rc = save("cyc.bin", img, 0x6000);
	free(img);
	return rc;
}
