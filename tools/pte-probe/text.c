/* SPDX-License-Identifier: MIT */
/* The text rendering: a header (GPU, driver, layout, root), one block per mapping with what
 * the driver said about each page and every entry on the page's path with its verdict, the
 * entries no mapping explains, and a summary line. */
#include "p2pscope/probe.h"
#include "p2pscope/rm_ctrl.h"

#include <inttypes.h>
#include <string.h>

#include "p2pscope/gmmu_render.h"

const char *probe_mem_name(enum probe_mem m)
{
	return m == PROBE_SYS ? "system" : m == PROBE_PEER ? "peer video" : "video";
}

const char *probe_state_name(enum probe_state s)
{
	return s == PROBE_MAPPED ? "mapped" : s == PROBE_FAILED ? "failed" : "skipped";
}

/* NV0080_CTRL_DMA_GET_PDE_INFO_PARAMS_PTE_ADDR_SPACE_*: 0 video, 1 system coherent, 2 system
 * non-coherent; any other value is shown as the number the driver answered. */
static const char *aspace_name(uint32_t a, char *buf, size_t len)
{
	static const char *const names[] = {"vid", "sys-coh", "sys-noncoh"};
	if (a < sizeof(names) / sizeof(names[0]))
		return names[a];
	snprintf(buf, len, "aperture %" PRIu32, a);
	return buf;
}

static void print_page(const struct probe_run *run, const struct probe_map *m,
                       const struct probe_page *p, unsigned k, FILE *out)
{
	char b1[24], b2[24], st[40];
	fprintf(out, "  page %u: VA 0x%" PRIx64, k, p->va);
	if (p->phys_known)
		fprintf(out, ", %s 0x%" PRIx64 " (GET_SURFACE_PHYS_ATTR)",
		        m->alloc->mem == PROBE_SYS ? "DMA address" : "FB offset", p->phys);
	else
		fprintf(out, ", address not reported (GET_SURFACE_PHYS_ATTR: %s)",
		        p2ps_rm_status_str(p->phys_status, st, sizeof(st)));
	fputc('\n', out);
	if (p->pde_status != P2PS_RM_NV_OK)
		fprintf(out, "    GET_PDE_INFO: %s\n",
		        p2ps_rm_status_str(p->pde_status, st, sizeof(st)));
	for (unsigned t = 0; t < p->n_tables; t++)
		fprintf(out, "%s%s in %s 0x%" PRIx64 "%s", t ? ", " : "    GET_PDE_INFO: tables ",
		        gmmu_size_str(p->tables[t].page_size, b1, sizeof(b1)),
		        aspace_name(p->tables[t].aspace, b2, sizeof(b2)), p->tables[t].pa,
		        t + 1 == p->n_tables ? "\n" : "");
	if (p->pte_status == P2PS_RM_NV_OK)
		fprintf(out, "    GET_PTE_INFO: %s (%s)\n",
		        p->pte_info_agrees ? "agrees" : "DIFFERS", p->pte_info_diff);
	else
		fprintf(out, "    GET_PTE_INFO: refused, %s\n",
		        p2ps_rm_status_str(p->pte_status, st, sizeof(st)));
	(void)run;
}

static void print_entry(const struct probe_entry *e, FILE *out)
{
	char name[32], hex[40];
	snprintf(name, sizeof(name), "%s[%u]", e->level ? e->level->name : "?", e->index);
	fprintf(out, "    %-13s %s 0x%-8" PRIx64 " %s", name, p2ps_mem_space_name(e->space),
	        e->entry_pa, gmmu_entry_hex_str(e->ef, e->raw, hex, sizeof(hex)));
	if (!e->modelled) {
		fprintf(out, "  not modelled: %s\n", e->why);
		return;
	}
	if (!e->n_diffs) {
		fprintf(out, "  agrees (address: %s)\n", e->addr_source ? e->addr_source : "-");
		if (!e->owner && e->why[0])
			fprintf(out, "      %s\n", e->why);
		return;
	}
	fprintf(out, "  DIFFERS (model %s)\n",
	        gmmu_entry_hex_str(e->ef, e->model, hex, sizeof(hex)));
	for (unsigned i = 0; i < e->n_diffs && i < PROBE_MAX_DIFFS; i++)
		fprintf(out, "      %-18s driver %-34s model %s\n",
		        e->diffs[i].field ? e->diffs[i].field->name : "(unnamed bits)",
		        e->diffs[i].got, e->diffs[i].want);
}

/* The entries on a page's path: directory entries covering its VA, then its PTE. */
static void print_path(const struct probe_run *run, const struct probe_page *p, FILE *out)
{
	for (size_t i = 0; i < run->n_entries; i++) {
		const struct probe_entry *e = &run->entries[i];
		uint64_t span = e->pte ? 1 : 1ull << e->level->va_lo;
		if (p->va >= e->va && p->va - e->va < span)
			print_entry(e, out);
	}
	if (run->walked && p->pte < 0)
		fprintf(out, "    (no valid PTE for this page: MISSING)\n");
}

static void print_map(const struct probe_run *run, const struct probe_map *m, FILE *out)
{
	char b1[24], b2[24];
	fprintf(out, "\n%-20s %s memory, %s, %s pages, %s\n", m->spec->name,
	        probe_mem_name(m->alloc->mem), gmmu_size_str(m->alloc->size, b1, sizeof(b1)),
	        gmmu_size_str(1ull << m->spec->page_shift, b2, sizeof(b2)), m->spec->what);
	if (m->state != PROBE_MAPPED) {
		fprintf(out, "  %s: %s\n", probe_state_name(m->state), m->why);
		return;
	}
	for (unsigned k = 0; k < m->n_pages; k++) {
		print_page(run, m, &m->pages[k], k, out);
		print_path(run, &m->pages[k], out);
	}
	if (run->walked)
		fprintf(out, "  verdict: %s\n", m->agrees ? "agrees" : "DIFFERS");
}

/* The first stock series whose NV50_P2P allocation reports the fabric base. */
static unsigned fabric_series(void)
{
	size_t n;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	unsigned first = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i].flavor == P2PS_NV_FLAVOR_STOCK && t[i].rm && t[i].rm->p2p_fabric_info &&
		    (!first || t[i].series < first))
			first = t[i].series;
	return first;
}

/* Where the NVLink fabric base the model adds came from. */
static void print_fabric(const struct probe_run *run, FILE *out)
{
	const struct probe_peer *pe = &run->peer;
	switch (pe->fabric_src) {
	case PROBE_FABRIC_NONE: break;
	case PROBE_FABRIC_NV503B:
		fprintf(out, "peer: fabric base 0x%" PRIx64 " (NV503B p2lFabricP2PInfo%s)\n",
		        pe->fabric_base, pe->fabric_base ? "" : ": none, not NVSwitch-connected");
		break;
	case PROBE_FABRIC_INFERRED:
		fprintf(out,
		        "peer: fabric base 0x%" PRIx64 ": driver %s reports none (NV503B does from "
		        "%u); taken from %s's first entry less its FB offset, aligned to 2^%u as "
		        "the driver requires; every other peer entry is checked against it\n",
		        pe->fabric_base, run->driver.version, fabric_series(), pe->fabric_from,
		        pe->fabric_align);
		break;
	default:
		fprintf(out,
		        "peer: fabric base unknown, 0 assumed: driver %s reports none and %s\n",
		        run->driver.version, pe->fabric_note);
	}
}

/* The BAR1-P2P row and the static BAR1 the model adds; the PEER-field patch's effect. */
static void print_bar1(const struct probe_run *run, FILE *out)
{
	const struct probe_peer *pe = &run->peer;
	const struct probe_bar1 *b = &pe->bar1;
	if (pe->mode != GMMU_P2P_BAR1) {
		if (b->peer_field_patched)
			fprintf(out,
			        "peer: the %s %u patch makes gmmuFmtPtePhysAddrFld(PEER) return "
			        "the "
			        "sysmem address field, and RM's peer entries carry the address "
			        "there%s\n",
			        p2ps_nv_flavor_name(run->flavor), probe_series(run),
			        run->fmt && run->fmt->version < 3
			                ? ": on this v2 chip over the peer index (35:33), so the "
			                  "entries "
			                  "name peer 0 whatever GET_P2P_CAPS_V2 says (modelled)"
			                : " (v3: the same bits, no change)");
		return;
	}
	if (b->row)
		fprintf(out, "peer: BAR1-P2P row %s: %s (%s)\n", b->row_name,
		        gmmu_aperture_name(b->row->aperture), b->row->source);
	if (b->assumed[0])
		fprintf(out, "peer: driver: %s\n", b->assumed);
	char split[96] = "";
	if (b->start_known)
		snprintf(split, sizeof(split), " = bus address 0x%" PRIx64 " + start 0x%" PRIx64,
		         b->bus, b->start);
	else
		snprintf(split, sizeof(split), " (an IOVA: the bus address is 0x%" PRIx64 ")",
		         b->bus);
	switch (b->src) {
	case PROBE_BAR1_NV503B:
		fprintf(out, "peer: static BAR1 0x%" PRIx64 "%s (NV503B l2pBar1P2PDmaInfo)\n",
		        b->base, split);
		break;
	case PROBE_BAR1_INFERRED:
		fprintf(out,
		        "peer: static BAR1 0x%" PRIx64 "%s: driver %s reports no BAR1-P2P window "
		        "(NV503B fills it for kernel clients only); taken from %s's first entry "
		        "less "
		        "its FB offset, aligned to 2^%u as series %u requires; every other peer "
		        "entry is checked against it\n",
		        b->base, split, run->driver.version, b->from, b->align, probe_series(run));
		break;
	case PROBE_BAR1_UNKNOWN:
		fprintf(out,
		        "peer: static BAR1 unknown, the bus address 0x%" PRIx64 " assumed: %s\n",
		        b->bus, b->note);
		break;
	case PROBE_BAR1_PER_ENTRY:
		fprintf(out, "peer: the row maps each allocation at a BAR1 offset of its own: the "
		             "addresses are taken from the entries, the other fields checked\n");
		break;
	case PROBE_BAR1_NO_ROW: fprintf(out, "peer: no BAR1-P2P model: %s\n", b->note); break;
	case PROBE_BAR1_NONE: break;
	}
}

static void print_peer(const struct probe_run *run, FILE *out)
{
	const struct probe_peer *pe = &run->peer;
	fprintf(out,
	        "peer: GPU %u, %s; this run changed the driver's peer state (NV50_P2P) until it "
	        "ended\n",
	        pe->index, pe->p2p ? gmmu_p2p_mode_name(pe->mode) : pe->note);
	if (!pe->p2p)
		return;
	char caps[200], bar1[80] = "none";
	if (pe->bar1_dma_size)
		snprintf(bar1, sizeof(bar1), "0x%" PRIx64 " (+0x%" PRIx64 ")", pe->bar1_dma_address,
		         pe->bar1_dma_size);
	fprintf(out,
	        "peer: id %u (GET_P2P_CAPS_V2 busPeerIds), caps 0x%x (%s), BAR1-P2P window %s\n",
	        pe->peer_id, pe->caps, p2ps_rm_p2p_caps_str(pe->caps, caps, sizeof(caps)), bar1);
	if (pe->caps_known) {
		fprintf(out, "peer: P2P status by path:");
		for (unsigned i = 0; i < PROBE_P2P_STATUS_N; i++)
			fprintf(out, "%s %s %s", i ? "," : "", p2ps_nv_caps_index_name(i),
			        p2ps_nv_status_name(pe->p2p_status_by_type[i]));
		fputc('\n', out);
	}
	print_fabric(run, out);
	print_bar1(run, out);
}

static void print_header(const struct probe_run *run, FILE *out)
{
	const struct p2ps_rm_card *c = &run->gpu.card;
	char series[16] = "?";
	if (run->driver.row)
		snprintf(series, sizeof(series), "%u", run->driver.row->series);
	fprintf(out,
	        "pte-probe: GPU %u (%04x:%02x:%02x.%x, %04x:%04x, %s, format %s), driver %s "
	        "(%s, RM layouts of series %s), %s\n",
	        run->gpu_index, c->domain, c->bus, c->slot, c->function, c->vendor_id, c->device_id,
	        run->gpu.chip[0] ? run->gpu.chip : "?", run->fmt ? run->fmt->name : "?",
	        run->driver.version,
	        run->driver.open_module ? "open kernel module" : "kernel module", series,
	        run->root ? "as root" : "not as root");
	if (run->pdb_known)
		fprintf(out, "page directory base: vid 0x%" PRIx64 " (GET_PDE_INFO)\n", run->pdb);
	if (run->peer.asked)
		print_peer(run, out);
}

void probe_print_text(const struct probe_run *run, FILE *out)
{
	print_header(run, out);
	for (unsigned i = 0; i < run->n_maps; i++)
		print_map(run, &run->maps[i], out);
	bool header = false;
	for (size_t i = 0; i < run->n_entries; i++) {
		const struct probe_entry *e = &run->entries[i];
		if (e->owner)
			continue;
		if (!header)
			fprintf(out, "\nentries over VA the probe did not map:\n");
		header = true;
		print_entry(e, out);
	}
	if (run->walk_note[0])
		fprintf(out, "\ntables: %s\n", run->walk_note);
	unsigned mapped = 0, failed = 0;
	for (unsigned i = 0; i < run->n_maps; i++) {
		mapped += run->maps[i].state == PROBE_MAPPED;
		failed += run->maps[i].state == PROBE_FAILED;
	}
	fprintf(out,
	        "\nsummary: %u mappings (%u failed), %zu entries read (%" PRIu64
	        " tables): %u agree, %u differ, %u not modelled, %u pages without a PTE, %u "
	        "unexplained\n",
	        mapped, failed, run->n_entries, run->walk_stats.tables, run->agree, run->differ,
	        run->unmodelled, run->missing, run->extra);
	if (run->pte_info_agree || run->pte_info_differ)
		fprintf(out, "GET_PTE_INFO: %u pages agree, %u differ\n", run->pte_info_agree,
		        run->pte_info_differ);
	fprintf(out, "RM objects: %u allocated, %u freed, %u left; %u mappings made, %u removed\n",
	        run->rm_stats.allocs, run->rm_stats.frees, run->rm_stats.live, run->rm_stats.maps,
	        run->rm_stats.unmaps);
}
