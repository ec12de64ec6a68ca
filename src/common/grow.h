/* SPDX-License-Identifier: MIT */
/* Growable arrays: the one growth rule of the lists the libraries and tools keep (RM
 * objects and DMA mappings, pte-probe's entries, the host model's devices, a paste's blocks
 * and devices, the analysis' reasons, the fleet's hosts and groups, memory images' chunks,
 * verify's ranges).
 * Header-only on purpose: p2ps_common's objects go into libgmmu's core, which never
 * allocates; only the code that includes this header does. */
#ifndef P2PS_GROW_H
#define P2PS_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes room for need elements of elem bytes in *v, whose room is *cap elements,
 * doubling (from 16). Returns false, with *v and *cap unchanged, when out of memory or
 * when the size would overflow. */
static inline bool p2ps_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 16;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return false;
		c *= 2;
	}
	if (c > SIZE_MAX / elem)
		return false;
	void *p = realloc(*v, c * elem);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

#endif
