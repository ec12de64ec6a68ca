/* SPDX-License-Identifier: MIT */
/* Names lspci, nvidia-smi and CUDA print, turned back into ids: vendor names (old or
 * numeric-less lspci output), class names, and NVIDIA chips from the chip code pci.ids
 * puts first ("GA102 [GeForce RTX 3090]") or from a product name ("NVIDIA GeForce RTX
 * 5090"), the latter through the example boards of the one chip table. Data, not code. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"
#include "paste_names.h"

/* Vendor names as pci.ids spells them (the prefix is enough). */
static const struct {
	const char *name;
	uint16_t id;
} vendors[] = {
        {"NVIDIA Corporation", 0x10de},
        {"Intel Corporation", 0x8086},
        {"Advanced Micro Devices, Inc. [AMD/ATI]", 0x1002},
        {"Advanced Micro Devices, Inc. [AMD]", 0x1022},
        {"PLX Technology", 0x10b5},
        {"Broadcom / LSI", 0x1000},
        {"PMC-Sierra", 0x11f8},
        {"Microsemi", 0x11f8},
        {"Pericom Semiconductor", 0x12d8},
        {"Mellanox Technologies", 0x15b3},
        {"ASMedia Technology", 0x1b21},
        {"Red Hat, Inc.", 0x1af4},
        {"Samsung Electronics", 0x144d},
};

bool pt_vendor_by_name(const char *s, uint16_t *id, size_t *len)
{
	for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++) {
		size_t n = strlen(vendors[i].name);
		if (!strncmp(s, vendors[i].name, n)) {
			*id = vendors[i].id;
			*len = n;
			return true;
		}
	}
	return false;
}

/* Class names lspci prints (base class << 8 | subclass). */
static const struct {
	const char *name;
	uint16_t code;
} classes[] = {
        {"VGA compatible controller", 0x0300},
        {"3D controller", 0x0302},
        {"Display controller", 0x0380},
        {"Host bridge", 0x0600},
        {"ISA bridge", 0x0601},
        {"PCI bridge", 0x0604},
        {"Bridge", 0x0680},
        {"Non-Volatile memory controller", 0x0108},
        {"SATA controller", 0x0106},
        {"RAID bus controller", 0x0104},
        {"Ethernet controller", 0x0200},
        {"Network controller", 0x0280},
        {"Infiniband controller", 0x0207},
        {"Audio device", 0x0403},
        {"USB controller", 0x0c03},
        {"System peripheral", 0x0880},
        {"Serial bus controller", 0x0c80},
};

bool pt_class_by_name(const char *s, size_t len, uint16_t *code)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strlen(classes[i].name) == len && !strncmp(s, classes[i].name, len)) {
			*code = classes[i].code;
			return true;
		}
	return false;
}

/* Whether needle occurs in s as whole words (bounded by start/end, space, brackets or
 * punctuation). */
static bool has_words(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = s; n && (p = strstr(p, needle)) != NULL; p++) {
		bool left = p == s || !isalnum((unsigned char)p[-1]);
		bool right = !isalnum((unsigned char)p[n]);
		if (left && right)
			return true;
	}
	return false;
}

/* The longest board name of the chip table's examples found in s. */
static const struct p2ps_nvidia_chip *chip_by_board(const char *s)
{
	const struct p2ps_nvidia_chip *best = NULL;
	size_t best_len = 0, n;
	const struct p2ps_nvidia_chip *t = p2ps_nvidia_chip_table(&n);
	for (size_t i = 0; i < n; i++) {
		const char *e = t[i].gmmu.examples ? t[i].gmmu.examples : "";
		while (*e) {
			char board[64];
			size_t k = strcspn(e, ",");
			if (k < sizeof(board)) {
				memcpy(board, e, k);
				board[k] = '\0';
				if (k > best_len && has_words(s, board)) {
					best = &t[i];
					best_len = k;
				}
			}
			e += k;
			while (*e == ',' || *e == ' ')
				e++;
		}
	}
	return best;
}

const struct p2ps_nvidia_chip *pt_chip_by_name(const char *s)
{
	size_t n;
	const struct p2ps_nvidia_chip *t = p2ps_nvidia_chip_table(&n);
	for (size_t i = 0; i < n; i++)
		if (has_words(s, p2ps_nvidia_chip_name(&t[i])))
			return &t[i];
	return chip_by_board(s);
}

/* GeForce numbers as people write them without the brand ("4090", "RTX 3090 Ti"): the
 * first two digits of a generation and its prefix. A number of such a generation ends in
 * a tier of 3 to 9 and a 0 (4060 .. 4090); RTX 4000, 5000 and 6000 (tier 0) are
 * workstation boards, not GeForce. */
static const struct {
	const char *gen;
	const char *prefix;
} geforce_numbers[] = {
        {"10", "GTX"}, {"16", "GTX"}, {"20", "RTX"}, {"30", "RTX"}, {"40", "RTX"}, {"50", "RTX"},
};

/* Whether s starts with a GeForce number; its prefix then. */
static const char *geforce_number(const char *s)
{
	if (strspn(s, "0123456789") != 4 || s[3] != '0' || s[2] < '3')
		return NULL;
	for (size_t i = 0; i < sizeof(geforce_numbers) / sizeof(geforce_numbers[0]); i++)
		if (!strncmp(s, geforce_numbers[i].gen, 2))
			return geforce_numbers[i].prefix;
	return NULL;
}

static bool has_brand(const char *s)
{
	static const char *const brands[] = {"NVIDIA", "Nvidia", "GeForce", "Tesla",
	                                     "Quadro", "TITAN",  "Titan"};
	for (size_t i = 0; i < sizeof(brands) / sizeof(brands[0]); i++)
		if (strstr(s, brands[i]))
			return true;
	return false;
}

void pt_gpu_model_name(const char *in, char *out, size_t size)
{
	const char *num = in, *pfx = NULL;
	if ((!strncmp(in, "RTX ", 4) || !strncmp(in, "GTX ", 4)) && !has_brand(in))
		num = in + 4;
	if (!has_brand(in))
		pfx = geforce_number(num);
	if (!pfx)
		snprintf(out, size, "%s", in);
	else if (num == in)
		snprintf(out, size, "NVIDIA GeForce %s %s", pfx, in);
	else
		snprintf(out, size, "NVIDIA GeForce %s", in);
}

bool pt_nvidia_gpu_name(const char *s)
{
	return has_brand(s) || has_words(s, "RTX") || has_words(s, "GTX") ||
	       pt_chip_by_name(s) != NULL;
}
