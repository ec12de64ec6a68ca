/* SPDX-License-Identifier: MIT */
/* make_example_pd --out DIR: writes the inputs of the page-table dump examples in
 * docs/pte-dumps.md and the README (whose commands tests/docs runs):
 *
 *   pd.bin     an AD102 (v2) image at vid PA 0x100000 mapping all 24 GiB of peer 1's
 *              memory at VA 0x7f0000000000 with 2 MiB pages the BAR1-P2P way
 *              (SYSTEM_NON_COHERENT, peer BAR1 0x38000000000 + offset), with one PTE
 *              (the 1893rd) pointing one page too far;
 *   cyc.bin    PD3 -> PD2 -> PD1 whose entry 1 points back at PD2;
 *   log.txt    four PT_SMALL entries as hex words from a debug log, one of them wrong;
 *   spec.json  the intended mapping of pd.bin (the SPEC shown in docs/pte-dumps.md).
 *
 * Entries are computed here from NV_MMU_VER2_* (pascal/gp100/dev_mmu.h, 595.45.04), not
 * with libgmmu's encoder:
 *   PDE:  APERTURE 2:1 (VIDEO_MEMORY = 1), ADDRESS_VID 32:8 = PA >> 12
 *   PTE:  VALID 0, APERTURE 2:1 (SYSTEM_NON_COHERENT_MEMORY = 3), VOL 3,
 *         ADDRESS_SYS 53:8 = PA >> 12, KIND 63:56 (GENERIC_MEMORY = 6)
 *   PD0 entries are 16 bytes; a 2 MiB PTE is the low 8 (VALID set). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
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

/* Writes len bytes into DIR/name. */
static int save(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

static int write_pd(const char *dir, uint8_t *img, size_t len)
{
	const uint64_t va = 0x7f0000000000ull, bar1 = 0x38000000000ull;
	const unsigned tables = 48; /* 24 GiB / 512 MiB per PD0 table */
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
	return save(dir, "pd.bin", img, len);
}

static int write_cycle(const char *dir, uint8_t *img)
{
	memset(img, 0, 0x6000);
	p2ps_put_le64(img + 0x0000, pde_vid(BASE + 0x1000));
	p2ps_put_le64(img + 0x1000, pde_vid(BASE + 0x2000));
	p2ps_put_le64(img + 0x2000, pde_vid(BASE + 0x3000));
	p2ps_put_le64(img + 0x2008, pde_vid(BASE + 0x1000)); /* back to PD2 */
	return save(dir, "cyc.bin", img, 0x6000);
}

static const char log_txt[] =
        "# PT_SMALL of VA 0x7f2000000000, copied from a debug log\n"
        "0x06000038_0000000f 0x06000038_0000010f\n"
        "00000010: 0x0600_0038_0000_020f 0x0600003800000f0f   # entry 3 points 0xc pages too "
        "far\n";

static const char spec_json[] =
        "{\n"
        "  \"chip\": \"AD102\",\n"
        "  \"peers\": [ { \"index\": 1, \"bar1_base\": \"0x38000000000\" } ],\n"
        "  \"mappings\": [\n"
        "    {\n"
        "      \"name\": \"peer1-vram\",\n"
        "      \"va\": \"0x7f0000000000\",\n"
        "      \"size\": \"24GiB\",\n"
        "      \"page_size\": \"2M\",\n"
        "      \"aperture\": \"SYS_NONCOH\",\n"
        "      \"peer\": 1,\n"
        "      \"offset\": \"0\",\n"
        "      \"kind\": \"GENERIC_MEMORY\",\n"
        "      \"flags\": { \"vol\": true, \"read_only\": false, "
        "\"atomic_disable\": false }\n"
        "    }\n"
        "  ]\n"
        "}\n";

struct opts {
	const char *out;
	bool help;
};

static const struct p2ps_opt rows[] = {
        {"out", 'o', "DIR", "the folder to write pd.bin, cyc.bin, log.txt and spec.json into",
         P2PS_OPT_STRING(struct opts, out)},
        {"help", 'h', NULL, "this help", P2PS_OPT_FLAG(struct opts, help)},
};
static const struct p2ps_opts table = {P2PS_OPTS_ROWS(rows), .help_width = 16, .no_operands = true};

int main(int argc, char **argv)
{
	struct opts o = {0};
	char err[256] = "--out DIR is required (see --help)";
	int first = p2ps_opt_parse(&table, argc, argv, &o, err, sizeof(err));
	if (first == P2PS_OPT_TABLE)
		return p2ps_opt_print_table(&table);
	if (first < 0 || (!o.help && !o.out)) {
		fprintf(stderr, "make_example_pd: %s\n", err);
		return 2;
	}
	if (o.help) {
		printf("usage: make_example_pd --out DIR\n"
		       "Writes the inputs of the page-table dump examples (docs/pte-dumps.md).\n");
		char help[P2PS_OPTS_HELP_MAX];
		p2ps_opt_help(&table, help, sizeof(help));
		fputs(help, stdout);
		return 0;
	}
	size_t len = 0x1000 * (3 + 48);
	uint8_t *img = calloc(1, len);
	if (!img)
		return 1;
	int rc = write_pd(o.out, img, len) || write_cycle(o.out, img) ||
	         save(o.out, "log.txt", log_txt, strlen(log_txt)) ||
	         save(o.out, "spec.json", spec_json, strlen(spec_json));
	free(img);
	if (!rc)
		printf("make_example_pd: wrote pd.bin, cyc.bin, log.txt and spec.json into %s\n",
		       o.out);
	return rc;
}
