/* SPDX-License-Identifier: MIT */
/* Config-space decoders over a byte buffer (struct p2ps_dev.config). They need no
 * libpci, so every backend — including VFIO, which reads config through a device fd —
 * shares them. Offsets come from libpci's capability list where a backend has one,
 * and from the bounded walks here otherwise. */
#ifndef P2PS_HOST_DECODE_H
#define P2PS_HOST_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "p2pscope/host.h"

/* How a capability walk ended. */
enum p2ps_walk_end {
	P2PS_WALK_OK = 0, /* reached next == 0 */
	P2PS_WALK_NONE,   /* the list is empty */
	P2PS_WALK_LOOPED, /* an offset was visited twice */
	P2PS_WALK_BROKEN, /* a pointer or header is invalid (all-ones, below the list start) */
	P2PS_WALK_DENIED, /* the list continues beyond the readable config bytes */
};

const char *p2ps_walk_end_name(enum p2ps_walk_end end);

/* Offset of the first standard capability with id, or 0. *end says how the walk ended
 * (may be NULL). Bounded: at most 48 entries (the 192 bytes after the header). */
uint16_t p2ps_cfg_find_cap(const uint8_t *cfg, size_t len, uint8_t id, enum p2ps_walk_end *end);

/* Offset of the first extended capability with id, or 0. Entries with id 0 (hidden by
 * a hypervisor or firmware) are walked past, not taken as the end: only a header of 0
 * or a next pointer of 0 ends the list. Bounded by a visited set over 0x100..0xffc. */
uint16_t p2ps_cfg_find_ext_cap(const uint8_t *cfg, size_t len, uint16_t id,
                               enum p2ps_walk_end *end);

/* Header fields from the first 64 bytes: ids, class, revision, header type, BAR
 * register types and addresses, ROM, bridge bus numbers and windows. */
void p2ps_cfg_decode_header(struct p2ps_dev *dev);

/* Whether a BAR holds no usable address: a memory BAR at 0, or an I/O BAR at 0 while
 * I/O decoding is off (legacy IDE-style functions decode I/O port 0 legitimately). */
bool p2ps_bar_unassigned(const struct p2ps_dev *dev, const struct p2ps_bar *bar);

/* Capability decoders: each reads its registers at off and fills one struct. */
void p2ps_cap_pcie(struct p2ps_dev *dev, uint16_t off);
void p2ps_ecap_acs(struct p2ps_dev *dev, uint16_t off);
void p2ps_ecap_rebar(struct p2ps_dev *dev, uint16_t off);

/* The capabilities the model keeps: one decoder per capability id, used by every
 * backend (libpci's list gives the offset where a backend has one). */
struct p2ps_cap_decoder {
	uint16_t id;   /* capability id */
	bool extended; /* extended (0x100+) list */
	uint16_t size; /* bytes from off that decode reads first (the whole body, unless:) */
	/* with those bytes read, how many decode reads in all; NULL: size */
	unsigned (*body_len)(const uint8_t *cfg, unsigned off);
	enum p2ps_fact fact;                                /* unknown when unreadable */
	void (*decode)(struct p2ps_dev *dev, uint16_t off); /* fills one struct */
	bool (*present)(const struct p2ps_dev *dev);        /* already decoded? */
};

/* The table (PCIe, ACS, Resizable BAR); *count receives its length. */
const struct p2ps_cap_decoder *p2ps_cap_decoders(size_t *count);

/* Runs the walks over dev->config for the PCIe, ACS and ReBAR capabilities, fills the
 * structs that were not yet present and sets ext_cap_walk and the unknown[] reasons
 * for what the readable bytes could not tell. Backends with their own cap offsets
 * call the p2ps_cap_* decoders first and this afterwards. */
void p2ps_cfg_decode_caps(struct p2ps_dev *dev);

#endif
