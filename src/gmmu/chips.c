/* SPDX-License-Identifier: MIT */
/* libgmmu's table access: the formats, and the chips as the chip table
 * (nvidia_chips.c) lists them — only rows with a GMMU format, in the table's order. */
#include "gmmu_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "p2pscope/nvidia_chips.h"

/* Every format, oldest first (pte-decode formats lists them in this order). */
static const struct gmmu_format *const formats[] = {
        &gmmu_format_v2_gp, &gmmu_format_v2_tu, &gmmu_format_v2_ga,
        &gmmu_format_v3_gh, &gmmu_format_v3_gb,
};

/* The bare versions name the newest layout of each version. */
static const struct {
	const char *name;
	const struct gmmu_format *format;
} aliases[] = {
        {"v2", &gmmu_format_v2_ga},
        {"v3", &gmmu_format_v3_gb},
};

size_t gmmu_format_count(void)
{
	return GMMU_ARRAY_SIZE(formats);
}

const struct gmmu_format *gmmu_format_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(formats) ? formats[i] : NULL;
}

const struct gmmu_format *gmmu_format_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(aliases); i++)
		if (!strcasecmp(name, aliases[i].name))
			return aliases[i].format;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(formats); i++)
		if (!strcasecmp(name, formats[i]->name))
			return formats[i];
	return NULL;
}

const char *gmmu_format_alias(size_t i, const struct gmmu_format **format)
{
	if (i >= GMMU_ARRAY_SIZE(aliases))
		return NULL;
	*format = aliases[i].format;
	return aliases[i].name;
}

size_t gmmu_chip_count(void)
{
	size_t n, count = 0;
	const struct p2ps_nvidia_chip *t = p2ps_nvidia_chip_table(&n);
	for (size_t i = 0; i < n; i++)
		count += t[i].gmmu.format != NULL;
	return count;
}

const struct gmmu_chip *gmmu_chip_at(size_t i)
{
	size_t n;
	const struct p2ps_nvidia_chip *t = p2ps_nvidia_chip_table(&n);
	for (size_t k = 0; k < n; k++)
		if (t[k].gmmu.format && i-- == 0)
			return &t[k].gmmu;
	return NULL;
}

const struct gmmu_chip *gmmu_chip_find(const char *name)
{
	const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_find(name);
	return c && c->gmmu.format ? &c->gmmu : NULL;
}

/* Appends ", name" (or "name" first) to buf holding *len bytes; stops quietly when full. */
static void add_name(char *buf, size_t cap, size_t *len, const char *name)
{
	if (*len >= cap)
		return;
	int n = snprintf(buf + *len, cap - *len, "%s%s", *len ? ", " : "", name);
	*len += n > 0 ? (size_t)n : 0;
}

int gmmu_format_lookup(const char *name, const struct gmmu_format **out, struct p2ps_error *err)
{
	const struct gmmu_format *f = gmmu_format_find(name);
	if (f) {
		*out = f;
		return 0;
	}
	char known[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(aliases); i++)
		add_name(known, sizeof(known), &len, aliases[i].name);
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(formats); i++)
		add_name(known, sizeof(known), &len, formats[i]->name);
	return p2ps_error_set(err, P2PS_ENOENT, "unknown format '%s' (known: %s)", name ? name : "",
	                      known);
}

/* The chip whose example boards name the board `name` ("GB300" is a GB110 board), or NULL. */
static const struct gmmu_chip *chip_of_board(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	for (size_t i = 0; n && i < gmmu_chip_count(); i++) {
		const struct gmmu_chip *c = gmmu_chip_at(i);
		for (const char *b = c->examples; *b; b += strspn(b, ", ")) {
			size_t k = strcspn(b, ",");
			if (k == n && !strncasecmp(b, name, n))
				return c;
			b += k;
		}
	}
	return NULL;
}

int gmmu_chip_lookup(const char *name, const struct gmmu_format **out, struct p2ps_error *err)
{
	const struct gmmu_chip *c = gmmu_chip_find(name);
	if (c) {
		*out = c->format;
		return 0;
	}
	const struct gmmu_chip *board = chip_of_board(name);
	if (board)
		return p2ps_error_set(err, P2PS_ENOENT,
		                      "unknown chip '%s': that is a board, its chip is %s", name,
		                      board->name);
	char known[P2PS_ERROR_MSG_MAX - 96] = "";
	size_t len = 0;
	for (size_t i = 0; i < gmmu_chip_count(); i++)
		add_name(known, sizeof(known), &len, gmmu_chip_at(i)->name);
	return p2ps_error_set(err, P2PS_ENOENT, "unknown chip '%s' (known: %s)", name ? name : "",
	                      known);
}

static const char *const entry_type_names[GMMU_ENTRY_TYPE_COUNT] = {"pte", "pde", "dual-pde"};

const char *gmmu_entry_type_name(enum gmmu_entry_type t)
{
	return (unsigned)t < GMMU_ENTRY_TYPE_COUNT ? entry_type_names[t] : "unknown";
}

int gmmu_entry_type_parse(const char *s, enum gmmu_entry_type *out, struct p2ps_error *err)
{
	for (unsigned i = 0; i < GMMU_ENTRY_TYPE_COUNT; i++)
		if (s && !strcasecmp(s, entry_type_names[i])) {
			*out = (enum gmmu_entry_type)i;
			return 0;
		}
	return p2ps_error_set(err, P2PS_EINVAL, "unknown entry type '%s' (pte, pde, dual-pde)",
	                      s ? s : "");
}

const char *gmmu_aperture_name(enum gmmu_aperture a)
{
	switch (a) {
	case GMMU_APERTURE_INVALID: return "INVALID";
	case GMMU_APERTURE_VIDEO: return "VIDEO";
	case GMMU_APERTURE_PEER: return "PEER";
	case GMMU_APERTURE_SYS_COH: return "SYS_COH";
	case GMMU_APERTURE_SYS_NONCOH: return "SYS_NONCOH";
	}
	return "unknown";
}

const struct gmmu_level *gmmu_level_find(const struct gmmu_format *f, const char *name)
{
	for (size_t i = 0; name && i < f->n_levels; i++) {
		const char *a = f->levels[i].name, *b = name;
		while (*a && *b &&
		       (tolower((unsigned char)*a) == tolower((unsigned char)*b) ||
		        (*a == '_' && *b == '-')))
			a++, b++;
		if (!*a && !*b)
			return &f->levels[i];
	}
	return NULL;
}

const char *gmmu_level_names(const struct gmmu_format *f, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < f->n_levels && n < len; i++) {
		int k = snprintf(buf + n, len - n, "%s%s", i ? ", " : "", f->levels[i].name);
		n += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

const struct gmmu_level *gmmu_level_for_page(const struct gmmu_format *f, unsigned page_shift)
{
	for (size_t i = 0; i < f->n_levels; i++)
		if (f->levels[i].page_shift && f->levels[i].page_shift == page_shift)
			return &f->levels[i];
	/* 128 KB big pages live in PT_BIG when the driver runs with bigPageShift 17. */
	for (size_t i = 0; i < f->n_levels; i++)
		if (f->levels[i].alt_va_lo && f->levels[i].alt_va_lo == page_shift)
			return &f->levels[i];
	return NULL;
}
