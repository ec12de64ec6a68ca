/* SPDX-License-Identifier: MIT */
/* VA-map summary: coalesces PTEs that continue one another into ranges (see
 * gmmu_walk.h).
 *
 * Two PTEs continue one another when every bit outside the address field is
 * the same and the address field advances by one page. So once a run is open
 * the next raw value is known in advance: raw + (pages-per-entry << field lo).
 * The tight path compares each entry with that prediction and decodes only the
 * entries that break a run; a dump of long runs is then one load and one
 * compare per entry, which is what lets a 1 GiB dump go at memory speed. The
 * prediction is only trusted while the address field has room to advance, so
 * a carry out of the field can never pass for a continuation. */
#include "p2pscope/gmmu_walk.h"

#include <string.h>

#include "p2pscope/bytes.h"

/* Mapped dumps are read across 4 KiB page boundaries where the hardware
 * prefetcher stops; asking half a KiB ahead keeps the loop fed (measured with
 * bench/pte-decode-vs-cat.sh: 512 beat 2048 and 8192). */
#define PREFETCH_AHEAD 512

/* The bits of field b within an 8-byte entry (0 for a field of another word). */
static uint64_t bits_of(const struct gmmu_bits *b)
{
	return b->word == 0 && b->lo < 64 ? b->mask << b->lo : 0;
}

void gmmu_summary_init(struct gmmu_summary *s, const struct gmmu_format *fmt, gmmu_range_fn fn,
                       void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->fmt = fmt;
	s->pte = &fmt->entry[GMMU_ENTRY_PTE]->fast[0];
	s->ctl = gmmu_field_find(fmt->entry[GMMU_ENTRY_PTE], "COMPTAGLINE");
	s->fn = fn;
	s->ctx = ctx;
	const struct gmmu_fast *x = s->pte;
	uint64_t others = bits_of(&x->valid) | bits_of(&x->aperture) | bits_of(&x->vol) |
	                  bits_of(&x->encrypted) | bits_of(&x->privilege) | bits_of(&x->read_only) |
	                  bits_of(&x->atomic_disable) | bits_of(&x->kind) | bits_of(&x->pcf);
	for (int ap = 0; ap < 4; ap++) {
		uint64_t a = bits_of(&x->addr[ap]);
		s->addr_bits[ap] = x->addr[ap].word == 0 && !(a & others) ? a : 0;
	}
}

static int run_close(struct gmmu_summary *s, struct p2ps_error *err)
{
	if (!s->open)
		return 0;
	s->open = false;
	const struct gmmu_pte_view *v = &s->cur.v;
	if (v->valid)
		s->st.valid += s->cur.count;
	else if (v->sparse)
		s->st.sparse += s->cur.count;
	else if (!s->cur.raw)
		s->st.zero += s->cur.count;
	else
		s->st.other += s->cur.count;
	if (!s->emit)
		return 0;
	s->st.ranges++;
	return s->fn ? s->fn(s->ctx, &s->cur, err) : 0;
}

/* How many more pages the address field of raw can advance by step. */
static uint64_t pages_left(const struct gmmu_bits *a, uint64_t raw, unsigned page_shift)
{
	uint64_t frame = (raw >> a->lo) & a->mask;
	return (a->mask - frame) >> (page_shift - a->shift);
}

/* The memo's decode for raw when raw differs from the memo's entry only in the address
 * field of its aperture (the fields sharing those bits are read again). */
static bool open_from_memo(struct gmmu_summary *s, uint64_t raw, unsigned page_shift)
{
	const struct gmmu_fast *x = s->pte;
	unsigned ap = (unsigned)((raw >> x->aperture.lo) & x->aperture.mask) & 3;
	uint64_t addr = s->addr_bits[ap];
	if (!s->memo.ok || !addr || s->memo.page_shift != page_shift ||
	    ((raw ^ s->memo.raw) & ~addr))
		return false;
	const uint64_t w[1] = {raw};
	const struct gmmu_bits *a = &x->addr[ap];
	s->cur.v = s->memo.v;
	s->cur.v.addr = gmmu_bits_get(a, w) << a->shift;
	s->cur.v.peer_index = (uint8_t)gmmu_bits_get(&x->peer_index, w);
	s->cur.v.comptagline = (uint32_t)gmmu_bits_get(&x->comptagline, w);
	s->emit = true;
	s->cmp_mask = s->memo.cmp_mask;
	s->step = s->memo.step;
	s->left = s->step ? pages_left(a, raw, page_shift) : 0;
	s->expect_raw = raw + s->step;
	return true;
}

/* Opens a run at one entry. Invalid entries form runs of identical raw values
 * (holes, sparse stretches) whose prediction is the value itself. */
static int run_open(struct gmmu_summary *s, uint64_t raw, uint64_t va, unsigned page_shift,
                    const struct gmmu_level *level, struct p2ps_error *err)
{
	int rc = run_close(s, err);
	if (rc)
		return rc;
	s->cur.va = va;
	s->cur.count = 1;
	s->cur.page_shift = (uint8_t)page_shift;
	s->cur.raw = raw;
	s->cur.level = level;
	s->open = true;
	s->next_va = va + (1ull << page_shift);
	s->st.entries++;
	if (open_from_memo(s, raw, page_shift))
		return 0;
	gmmu_pte_view(s->fmt, raw, &s->cur.v);
	s->cmp_mask = ~0ull;
	if (!s->cur.v.valid) {
		s->emit = s->cur.v.sparse;
		s->step = 0;
		s->left = UINT64_MAX;
		s->expect_raw = raw;
		return 0;
	}
	s->emit = true;
	/* COMPTAGLINE is compared only where it is not part of the address (v2
	 * video and peer PTEs; in a sysmem PTE the same bits are ADDRESS_SYS). */
	if (s->ctl && s->pte->comptagline.mask && s->pte->comptagline.word == 0 &&
	    (s->ctl->apertures & GMMU_APER_HW(s->cur.v.aperture_hw & 3)))
		s->cmp_mask = ~(s->pte->comptagline.mask << s->pte->comptagline.lo);
	const struct gmmu_bits *a = &s->pte->addr[s->cur.v.aperture_hw & 3];
	s->step = 0;
	s->left = 0;
	if (a->mask && a->word == 0 && page_shift >= a->shift &&
	    a->lo + (page_shift - a->shift) < 64) {
		s->left = pages_left(a, raw, page_shift);
		s->step = (1ull << (page_shift - a->shift)) << a->lo;
	}
	s->expect_raw = raw + s->step;
	s->memo.ok = true;
	s->memo.page_shift = (uint8_t)page_shift;
	s->memo.raw = raw;
	s->memo.v = s->cur.v;
	s->memo.cmp_mask = s->cmp_mask;
	s->memo.step = s->step;
	return 0;
}

/* Opens a run at a sparse directory entry: its view is given, not decoded as a PTE. */
static int run_open_dir(struct gmmu_summary *s, const struct gmmu_mapping *m,
                        struct p2ps_error *err)
{
	int rc = run_open(s, m->raw, m->va, m->page_shift, m->level, err);
	s->cur.v = m->v;
	s->emit = m->v.sparse;
	s->step = 0;
	s->left = UINT64_MAX;
	s->expect_raw = m->raw;
	return rc;
}

int gmmu_summary_add(struct gmmu_summary *s, const struct gmmu_mapping *m, struct p2ps_error *err)
{
	if (s->open && s->left && !((m->raw ^ s->expect_raw) & s->cmp_mask) &&
	    m->va == s->next_va && m->page_shift == s->cur.page_shift && s->next_va != 0) {
		s->cur.count++;
		s->st.entries++;
		s->expect_raw += s->step;
		s->left--;
		s->next_va += 1ull << m->page_shift;
		return 0;
	}
	if (m->entry != GMMU_ENTRY_PTE)
		return run_open_dir(s, m, err);
	return run_open(s, m->raw, m->va, m->page_shift, m->level, err);
}

int gmmu_summary_add_ptes(struct gmmu_summary *s, const uint8_t *data, size_t n, uint64_t va0,
                          unsigned page_shift, const struct gmmu_level *level,
                          struct p2ps_error *err)
{
	if (page_shift >= 64 || (n && ((uint64_t)(n - 1) >> (64 - page_shift) ||
	                               va0 + ((uint64_t)(n - 1) << page_shift) < va0)))
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "%zu entries of %u-bit pages from VA 0x%llx pass the end of "
		                      "the 64-bit address space",
		                      n, page_shift, (unsigned long long)va0);
	size_t i = 0;
	while (i < n) {
		uint64_t va = va0 + ((uint64_t)i << page_shift);
		if (s->open && s->next_va == va && s->cur.page_shift == page_shift && va) {
			uint64_t expect = s->expect_raw, step = s->step, left = s->left;
			uint64_t mask = s->cmp_mask;
			size_t j = i;
			size_t stop = n - i > left ? i + (size_t)left : n;
			/* Four entries per test: the XORs of a continuing block are
			 * all zero, so one branch covers 32 bytes. */
			while (stop - j >= 4) {
				const uint8_t *p = data + 8 * j;
				__builtin_prefetch(p + PREFETCH_AHEAD);
				uint64_t d = ((p2ps_le64(p) ^ expect) |
				              (p2ps_le64(p + 8) ^ (expect + step)) |
				              (p2ps_le64(p + 16) ^ (expect + 2 * step)) |
				              (p2ps_le64(p + 24) ^ (expect + 3 * step))) &
				             mask;
				if (d)
					break;
				expect += 4 * step;
				j += 4;
			}
			while (j < stop && !((p2ps_le64(data + 8 * j) ^ expect) & mask)) {
				expect += step;
				j++;
			}
			uint64_t got = j - i;
			s->cur.count += got;
			s->st.entries += got;
			s->left -= got;
			s->expect_raw = expect;
			s->next_va += got << page_shift;
			i = j;
			if (i == n)
				break;
			va = va0 + ((uint64_t)i << page_shift);
		}
		int rc = run_open(s, p2ps_le64(data + 8 * i), va, page_shift, level, err);
		if (rc)
			return rc;
		i++;
	}
	return 0;
}

int gmmu_summary_finish(struct gmmu_summary *s, struct p2ps_error *err)
{
	return run_close(s, err);
}
