/* SPDX-License-Identifier: MIT */
/* p2pscope: the 16-byte cells of the functional P2P check (p2p-bench check), shared by the
 * host code (C) and the GPU kernels (CUDA), so that both write and judge memory the same way.
 *
 * Every cell names itself: what it is (a canary a GPU wrote into its own memory, or the
 * payload of one step), the GPUs involved, the path, its own position and the run it
 * belongs to, under a check word. Whatever is found in a cell therefore says where it came
 * from: a payload cell at the wrong place gives the distance it moved, one on the wrong GPU
 * names the step it belongs to, a canary still in place says nothing arrived, and zeros,
 * all-ones and garbage are told apart from each other.
 *
 *   w[0]  tag: kind (bits 0-3), GPU a (4-8), GPU b (9-13), path (14-18), 0x2a5 (19-31)
 *   w[1]  the cell's index in its region (byte offset / 16) where it belongs
 *   w[2]  the run's nonce
 *   w[3]  check: a hash of w[0..2]
 */
#ifndef P2PSCOPE_CHECK_CELL_H
#define P2PSCOPE_CHECK_CELL_H

#include <stdint.h>

#ifdef __CUDACC__
#define P2PS_HD static __host__ __device__ __forceinline__
#else
#define P2PS_HD static inline
#endif

#define P2PS_CELL_BYTES 16
#define P2PS_CELL_MAGIC 0x2a5u

/* What a cell is. */
enum p2ps_cell_kind {
	P2PS_CELL_CANARY = 1,  /* written by GPU a into its own memory (b == a) */
	P2PS_CELL_PAYLOAD = 2, /* the data of the step in which GPU a accesses GPU b's memory */
};

/* The identity shared by the cells of one canary fill or one step's payload. */
struct p2ps_cell_key {
	uint32_t kind; /* enum p2ps_cell_kind */
	uint32_t a, b; /* GPU indices in the check, 0..31 */
	uint32_t path; /* enum p2ps_chk_path (check.h), 0..31 */
	uint32_t nonce;
};

/* MurmurHash3's finaliser: a bijective mixer, neighbouring inputs give unrelated outputs. */
P2PS_HD uint32_t p2ps_cell_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

P2PS_HD uint32_t p2ps_cell_tag(const struct p2ps_cell_key *k)
{
	return (k->kind & 0xfu) | (k->a & 0x1fu) << 4 | (k->b & 0x1fu) << 9 |
	       (k->path & 0x1fu) << 14 | P2PS_CELL_MAGIC << 19;
}

P2PS_HD uint32_t p2ps_cell_check(uint32_t w0, uint32_t w1, uint32_t w2)
{
	return p2ps_cell_mix(w0 ^ p2ps_cell_mix(w1 ^ p2ps_cell_mix(w2 ^ 0x9e3779b9u)));
}

/* The cell of key k that belongs at index (byte offset / 16 in its region). */
P2PS_HD void p2ps_cell_make(const struct p2ps_cell_key *k, uint32_t index, uint32_t w[4])
{
	w[0] = p2ps_cell_tag(k);
	w[1] = index;
	w[2] = k->nonce;
	w[3] = p2ps_cell_check(w[0], w[1], w[2]);
}

/* What a cell found in memory is, judged against the cell expected there. */
enum p2ps_cell_judgement {
	P2PS_CJ_OK = 0,    /* the expected cell */
	P2PS_CJ_ZERO,      /* all zero bytes */
	P2PS_CJ_ONES,      /* all one bits (a read nobody answered) */
	P2PS_CJ_CORRUPT,   /* not a cell: the check word does not match */
	P2PS_CJ_OTHER_RUN, /* a cell of another run (memory left over) */
	P2PS_CJ_VALID,     /* a cell of this run, but not the expected one: decode it */
};

P2PS_HD int p2ps_cell_judge(const uint32_t w[4], const struct p2ps_cell_key *expect,
                            uint32_t expect_index)
{
	uint32_t all = w[0] | w[1] | w[2] | w[3], none = w[0] & w[1] & w[2] & w[3];
	if (all == 0)
		return P2PS_CJ_ZERO;
	if (none == 0xffffffffu)
		return P2PS_CJ_ONES;
	if (w[3] != p2ps_cell_check(w[0], w[1], w[2]) || w[0] >> 19 != P2PS_CELL_MAGIC)
		return P2PS_CJ_CORRUPT;
	if (w[2] != expect->nonce)
		return P2PS_CJ_OTHER_RUN;
	if (w[0] == p2ps_cell_tag(expect) && w[1] == expect_index)
		return P2PS_CJ_OK;
	return P2PS_CJ_VALID;
}

/* The key of a valid cell (its nonce is the run's). */
P2PS_HD void p2ps_cell_decode(const uint32_t w[4], struct p2ps_cell_key *k)
{
	k->kind = w[0] & 0xfu;
	k->a = w[0] >> 4 & 0x1fu;
	k->b = w[0] >> 9 & 0x1fu;
	k->path = w[0] >> 14 & 0x1fu;
	k->nonce = w[2];
}

/* The most GPUs one check covers (five bits in a cell's tag would allow 32). */
#define P2PS_CHK_MAX_GPUS 16

/* A window as a scan sees it: what belongs in it and whose memory it is. */
struct p2ps_cell_win {
	struct p2ps_cell_key expect; /* the key of the cells that belong here */
	uint32_t expect_base;        /* the index the first cell must carry */
	uint32_t own_base;           /* the window's own first index (offset / 16) */
	uint32_t own_gpu;            /* the GPU whose memory it is */
};

/* Where one cell found in a window falls (p2ps_cell_place). */
enum p2ps_cell_place {
	P2PS_CP_IS_OK = 0,
	P2PS_CP_IS_ZERO,
	P2PS_CP_IS_ONES,
	P2PS_CP_IS_CORRUPT,
	P2PS_CP_IS_OTHER_RUN,
	P2PS_CP_IS_STALE,     /* the GPU's own canary, in its own place: nothing arrived */
	P2PS_CP_IS_DISPLACED, /* the expected key, carrying another index */
	P2PS_CP_IS_PAYLOAD,   /* another payload (*who: its GPU a; its path in *path) */
	P2PS_CP_IS_CANARY,    /* a canary that does not belong here (*who: its owner) */
	P2PS_CP_PLACES
};

/* Judges cell w found at cell i of window win. For a cell of this run that does not belong
 * here, *who is its GPU (a payload's a, a canary's owner), *path its path and *disp its index
 * minus the index expected at i: how far (in cells) from the intended one the address it was
 * made for lies. */
P2PS_HD int p2ps_cell_place(const uint32_t w[4], const struct p2ps_cell_win *win, uint32_t i,
                            uint32_t *who, uint32_t *path, long long *disp)
{
	uint32_t want = win->expect_base + i;
	struct p2ps_cell_key k;
	switch (p2ps_cell_judge(w, &win->expect, want)) {
	case P2PS_CJ_OK: return P2PS_CP_IS_OK;
	case P2PS_CJ_ZERO: return P2PS_CP_IS_ZERO;
	case P2PS_CJ_ONES: return P2PS_CP_IS_ONES;
	case P2PS_CJ_CORRUPT: return P2PS_CP_IS_CORRUPT;
	case P2PS_CJ_OTHER_RUN: return P2PS_CP_IS_OTHER_RUN;
	default: break;
	}
	p2ps_cell_decode(w, &k);
	*who = k.a;
	*path = k.path;
	*disp = (long long)w[1] - (long long)want;
	if (k.kind == P2PS_CELL_CANARY && k.a == win->own_gpu && w[1] == win->own_base + i)
		return P2PS_CP_IS_STALE;
	if (w[0] == p2ps_cell_tag(&win->expect))
		return P2PS_CP_IS_DISPLACED;
	return k.kind == P2PS_CELL_PAYLOAD ? P2PS_CP_IS_PAYLOAD : P2PS_CP_IS_CANARY;
}

/* What one scan of a window found. The kernel and p2ps_cell_scan fill the same fields. */
struct p2ps_cell_tally {
	unsigned long long cells;
	unsigned long long n[P2PS_CP_PLACES]; /* cells per enum p2ps_cell_place */
	/* Misplaced cells of this run (displaced, payload, canary) by their GPU and path. */
	unsigned long long payload_of[P2PS_CHK_MAX_GPUS]; /* payload cells by GPU a */
	unsigned long long canary_of[P2PS_CHK_MAX_GPUS];  /* canary cells by owner */
	unsigned long long path_mask;                     /* bit per path of payload cells */
	long long disp_min, disp_max;                     /* over the misplaced cells */
	unsigned long long first_bad; /* cell index in the window of the first one not OK; ~0 */
	uint32_t first_bad_cell[4];   /* that cell (filled by whoever reads it back) */
};

P2PS_HD void p2ps_cell_tally_init(struct p2ps_cell_tally *t)
{
	unsigned char *p = (unsigned char *)t;
	for (unsigned long k = 0; k < sizeof(*t); k++)
		p[k] = 0;
	t->disp_min = 0x7fffffffffffffffll;
	t->disp_max = -0x7fffffffffffffffll - 1;
	t->first_bad = ~0ull;
}

#endif
