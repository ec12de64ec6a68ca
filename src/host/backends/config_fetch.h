/* SPDX-License-Identifier: MIT */
/* Config space read on demand (config_fetch.c): only the dwords the model's decoders
 * and libpci's capability scan look at are read, each at most once. */
#ifndef P2PS_HOST_CONFIG_FETCH_H
#define P2PS_HOST_CONFIG_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"

struct p2ps_cfg_fetch {
	/* Reads n bytes at off into buf; false when the source refuses (past its end). */
	bool (*read)(void *ctx, unsigned off, uint8_t *buf, unsigned n);
	void *ctx;
	/* How many bytes the source holds, when known without reading (a sysfs or
	 * snapshot file's size, capped by what this process may read); -1: find out by
	 * reading the last dword of 256 and of 4096 bytes. */
	long long size;
	uint8_t buf[P2PS_HOST_CONFIG_MAX];      /* 0xff where not read */
	size_t len;                             /* readable: 0, 64, 256 or 4096 */
	uint8_t done[P2PS_HOST_CONFIG_MAX / 4]; /* per dword: read */
};

/* Starts a device: everything unread, nothing readable yet. */
void p2ps_cfg_fetch_reset(struct p2ps_cfg_fetch *f);

/* The dwords of [off, off + n) inside the readable space not read yet, one read per
 * run of them. */
void p2ps_cfg_fetch(struct p2ps_cfg_fetch *f, unsigned off, unsigned n);

/* The 64-byte header and the readable length. Header dwords in skip (bit i: dword i)
 * are left unread when the header is a type 0 one; the caller passes those it has from
 * elsewhere (the kernel's class and subsystem ids). */
void p2ps_cfg_fetch_header(struct p2ps_cfg_fetch *f, unsigned skip);

/* What libpci's capability scan reads (both lists, step by step as it walks them, so
 * that its list built from this copy is the one a full read gives) and the registers
 * of the capabilities the model decodes. The bounded walks of config_decode.c visit a
 * subset of the same dwords. */
void p2ps_cfg_fetch_caps(struct p2ps_cfg_fetch *f);

#endif
