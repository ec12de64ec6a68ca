/* SPDX-License-Identifier: MIT */
/* --peer on a BAR1-P2P pair: which driver row the peer entries are judged by, and the
 * static BAR1 they point into.
 *
 * pte-probe maps the peer's memory through RM (NVOS46 through NV50_P2P), so the row is the
 * RM path's (libgmmu's gmmu_bar1_row, path rm) for the series (--series, else the loaded
 * driver's), the flavor (--flavor) and the chip's generation. Its entries hold the peer's
 * static BAR1 as the mapping GPU reaches it (bus address + start offset, or an IOVA) plus
 * the FB offset. The driver reports that base in NV503B's l2pBar1P2PDmaInfo for kernel
 * clients only (p2papiConstruct); from userspace it is taken from the first peer entry
 * less its page's FB offset, held to the alignment the series gives the region (512 MiB
 * from 580: kbusInitBar1_GM107, _kbusCreateStaticBar1IOMMUMapping; the 2 MiB pages of the
 * static mapping before), and every other peer entry is checked against it, the way the
 * NVLink fabric base is (peer.c). */
#include "p2pscope/probe.h"

#include <inttypes.h>
#include <stdio.h>

const char *probe_bar1_src_name(enum probe_bar1_src s)
{
	switch (s) {
	case PROBE_BAR1_NONE: return "none";
	case PROBE_BAR1_NV503B: return "NV503B";
	case PROBE_BAR1_INFERRED: return "inferred";
	case PROBE_BAR1_UNKNOWN: return "unknown";
	case PROBE_BAR1_PER_ENTRY: return "per-entry";
	case PROBE_BAR1_NO_ROW: return "no-row";
	}
	return "?";
}

unsigned probe_series(const struct probe_run *run)
{
	return run->series ? run->series : run->driver.major;
}

/* The address an entry holds in the sysmem address field (where every BAR1-P2P row puts
 * it, whatever the aperture), or false when the entry is not a valid PTE. */
static bool sysmem_addr(const struct gmmu_format *f, uint64_t raw, uint64_t *addr)
{
	const struct gmmu_fast *x = &f->entry[GMMU_ENTRY_PTE]->fast[0];
	const uint64_t w[1] = {raw};
	for (unsigned ap = 0; ap < 4; ap++)
		if (x->aperture_sw[ap] == GMMU_APERTURE_SYS_NONCOH) {
			*addr = gmmu_bits_get(&x->addr[ap], w) << x->addr[ap].shift;
			return gmmu_bits_get(&x->valid, w) != 0;
		}
	return false;
}

/* base - bus as the start offset, when base lies in the peer's BAR1 (else an IOVA). */
static void split_start(struct probe_bar1 *b, uint64_t bar1_size)
{
	b->start_known = b->base >= b->bus && (!bar1_size || b->base - b->bus < bar1_size);
	b->start = b->start_known ? b->base - b->bus : 0;
}

static void bar1_unknown(struct probe_bar1 *b, const char *why)
{
	b->src = PROBE_BAR1_UNKNOWN;
	b->base = b->bus;
	b->start = 0;
	b->start_known = true;
	probe_copy(b->note, sizeof(b->note), why);
}

/* From the first peer entry: its address less its page's FB offset, held to the series. */
static void bar1_infer(struct probe_run *run, struct probe_bar1 *b)
{
	const struct probe_map *m = NULL;
	const struct probe_page *p = NULL;
	int j = probe_first_peer_pte(run, &m, &p);
	char why[240], series[16];
	uint64_t addr = 0;
	if (j < 0) {
		bar1_unknown(b, "no peer entry was read");
		return;
	}
	if (!sysmem_addr(run->fmt, run->entries[j].raw[0], &addr) || addr < p->phys) {
		snprintf(why, sizeof(why),
		         "%s's entry holds no address at or above FB offset 0x%" PRIx64,
		         m->spec->name, p->phys);
		bar1_unknown(b, why);
		return;
	}
	b->base = addr - p->phys;
	if (b->base & ((1ull << b->align) - 1)) {
		snprintf(why, sizeof(why),
		         "%s's entry implies 0x%" PRIx64 ", not aligned to 2^%u as series %u "
		         "places the static BAR1",
		         m->spec->name, b->base, b->align, probe_series(run));
		bar1_unknown(b, why);
		return;
	}
	split_start(b, run->peer.gpu.card.fb_size);
	if (b->start_known && b->start && !b->row->start_align) {
		snprintf(why, sizeof(why),
		         "%s's entry implies start 0x%" PRIx64 ", but series %s places the static "
		         "BAR1 at offset 0 (%s)",
		         m->spec->name, b->start,
		         gmmu_bar1_row_series(b->row, series, sizeof(series)), b->row->source);
		bar1_unknown(b, why);
		return;
	}
	b->src = PROBE_BAR1_INFERRED;
	b->entry = j;
	b->from = m->spec->name;
}

void probe_peer_bar1(struct probe_run *run)
{
	struct probe_peer *pe = &run->peer;
	struct probe_bar1 *b = &pe->bar1;
	unsigned series = probe_series(run);
	*b = (struct probe_bar1){.entry = -1, .bus = pe->gpu.card.fb_address};
	bool exact;
	b->drv = p2ps_nv_driver_find(series, run->flavor, &exact);
	if (!exact)
		p2ps_nv_driver_assumed(series, run->flavor, b->drv, b->assumed, sizeof(b->assumed));
	b->peer_field_patched = gmmu_bar1_peer_field_patched(b->drv);
	if (pe->mode != GMMU_P2P_BAR1 || !run->fmt)
		return;
	struct p2ps_error e = {0};
	b->src = PROBE_BAR1_NO_ROW;
	if (gmmu_bar1_row_find(b->drv, GMMU_BAR1_PATH_RM, run->fmt, &b->row, &e)) {
		probe_copy(b->note, sizeof(b->note), e.msg);
		return;
	}
	gmmu_bar1_row_str(b->row, gmmu_bar1_gen_of(run->fmt), b->row_name, sizeof(b->row_name));
	if (b->row->refused) {
		probe_copy(b->note, sizeof(b->note), b->row->refused);
		return;
	}
	b->align = b->row->start_align ? b->row->start_align : 21;
	if (b->row->dynamic_offset) {
		b->src = PROBE_BAR1_PER_ENTRY;
		return;
	}
	if (pe->bar1_dma_size && pe->bar1_dma_address != UINT64_MAX) {
		b->src = PROBE_BAR1_NV503B;
		b->base = pe->bar1_dma_address;
		split_start(b, pe->gpu.card.fb_size);
		return;
	}
	bar1_infer(run, b);
}

int probe_bar1_request(const struct probe_run *run, const struct probe_entry *e,
                       struct gmmu_drvmap_peer *rq, struct p2ps_error *err)
{
	const struct probe_bar1 *b = &run->peer.bar1;
	if (b->src == PROBE_BAR1_NO_ROW || !b->row)
		return p2ps_error_set(err, P2PS_ENOTSUP, "no BAR1-P2P model: %s", b->note);
	rq->bar1_row = b->row;
	rq->bar1_base = b->base; /* the start included */
	uint64_t addr = 0;
	if (b->src == PROBE_BAR1_PER_ENTRY)
		rq->bar1_base = sysmem_addr(run->fmt, e->raw[0], &addr) && addr >= rq->fb_offset
		                        ? addr - rq->fb_offset
		                        : 0;
	return 0;
}

const char *probe_bar1_addr_source(const struct probe_run *run, const struct probe_entry *e)
{
	const struct probe_bar1 *b = &run->peer.bar1;
	switch (b->src) {
	case PROBE_BAR1_NV503B:
		return "NV503B BAR1-P2P window + GET_SURFACE_PHYS_ATTR (peer FB offset)";
	case PROBE_BAR1_INFERRED:
		return e == &run->entries[b->entry]
		               ? "static BAR1 taken from this entry, FB offset checked"
		               : "static BAR1 from the first peer entry + GET_SURFACE_PHYS_ATTR";
	case PROBE_BAR1_PER_ENTRY: return "followed (a BAR1 offset allocated per mapping)";
	default: return "CARD_INFO peer BAR1 + GET_SURFACE_PHYS_ATTR";
	}
}
