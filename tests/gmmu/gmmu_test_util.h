/* SPDX-License-Identifier: MIT */
/* Helpers shared by the libgmmu tests. */
#ifndef GMMU_TEST_UTIL_H
#define GMMU_TEST_UTIL_H

#include <stdint.h>

#include "p2pscope/gmmu.h"

/* xorshift64*: deterministic pseudo-random numbers, seeded per test. */
static inline uint64_t gt_rand(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline const struct gmmu_format *gt_chip(const char *name)
{
	const struct gmmu_chip *c = gmmu_chip_find(name);
	return c ? c->format : NULL;
}

/* The bits of fd that lie in 64-bit word `word` of an entry, in place. */
static inline uint64_t gt_field_bits(const struct gmmu_field *fd, unsigned word)
{
	return fd->lo / 64 == word ? gmmu_field_mask(fd) << (fd->lo % 64) : 0;
}

/* Sets a field by name in checked mode; returns the status. */
static inline int gt_set(const struct gmmu_entry_format *ef, const char *field, const char *value,
                         uint64_t w[2])
{
	return gmmu_entry_set(ef, field, value, GMMU_WRITE_CHECKED, w, NULL);
}

#endif
