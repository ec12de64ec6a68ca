/* Private helpers shared by the renderers (not installed). */
#ifndef P2PS_RENDER_INTERNAL_H
#define P2PS_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/render.h"

/* lspci's compact size spelling ("16M", "256G"). */
char *p2ps_size_short(uint64_t bytes, char *buf, size_t size);

/* Whether the device at host->devs[idx] is shown under o (filter, --all). */
bool p2ps_dev_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o, int idx);

/* Whether a pair is shown under o's filter (either GPU matches). */
bool p2ps_pair_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     const struct p2ps_pair *p);

#endif
