/* SPDX-License-Identifier: MIT */
/* The --json rendering of the same report (json-c). Numbers that are addresses or entries
 * are "0x" strings, as in pte-decode's JSON. */
#include "p2pscope/probe.h"
#include "p2pscope/rm_ctrl.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

#include "json_put.h"

static json_object *status(uint32_t s)
{
	char b[40];
	return json_object_new_string(p2ps_rm_status_str(s, b, sizeof(b)));
}

static json_object *entry_json(const struct probe_entry *e)
{
	json_object *o = json_object_new_object();
	char b[40];
	p2ps_json_put(o, "kind", json_object_new_string(e->pte ? "pte" : "directory"));
	p2ps_json_put(o, "level", json_object_new_string(e->level ? e->level->name : "?"));
	p2ps_json_put(o, "index", json_object_new_int64(e->index));
	p2ps_json_put(o, "space", json_object_new_string(p2ps_mem_space_name(e->space)));
	p2ps_json_put(o, "entry_pa", p2ps_json_hex(e->entry_pa));
	p2ps_json_put(o, "va", p2ps_json_hex(e->va));
	p2ps_json_put(o, "raw",
	              json_object_new_string(gmmu_entry_hex_str(e->ef, e->raw, b, sizeof(b))));
	p2ps_json_put(o, "owner", e->owner ? json_object_new_string(e->owner) : NULL);
	if (!e->modelled) {
		p2ps_json_put(o, "verdict", json_object_new_string("not modelled"));
		p2ps_json_put(o, "why", json_object_new_string(e->why));
		return o;
	}
	p2ps_json_put(o, "model",
	              json_object_new_string(gmmu_entry_hex_str(e->ef, e->model, b, sizeof(b))));
	p2ps_json_put(o, "address_source",
	              json_object_new_string(e->addr_source ? e->addr_source : ""));
	p2ps_json_put(o, "verdict", json_object_new_string(e->n_diffs ? "differs" : "agrees"));
	json_object *d = json_object_new_array();
	for (unsigned i = 0; i < e->n_diffs && i < PROBE_MAX_DIFFS; i++) {
		json_object *f = json_object_new_object();
		p2ps_json_put(f, "field",
		              json_object_new_string(e->diffs[i].field ? e->diffs[i].field->name
		                                                       : "(unnamed bits)"));
		p2ps_json_put(f, "driver", json_object_new_string(e->diffs[i].got));
		p2ps_json_put(f, "model", json_object_new_string(e->diffs[i].want));
		json_object_array_add(d, f);
	}
	p2ps_json_put(o, "differences", d);
	return o;
}

static json_object *page_json(const struct probe_page *p)
{
	json_object *o = json_object_new_object();
	p2ps_json_put(o, "va", p2ps_json_hex(p->va));
	p2ps_json_put(o, "offset", p2ps_json_hex(p->offset));
	p2ps_json_put(o, "address", p->phys_known ? p2ps_json_hex(p->phys) : NULL);
	p2ps_json_put(o, "address_status", status(p->phys_status));
	p2ps_json_put(o, "pde_info_status", status(p->pde_status));
	json_object *t = json_object_new_array();
	for (unsigned i = 0; i < p->n_tables; i++) {
		json_object *x = json_object_new_object();
		p2ps_json_put(x, "page_size",
		              json_object_new_int64((int64_t)p->tables[i].page_size));
		p2ps_json_put(x, "table_pa", p2ps_json_hex(p->tables[i].pa));
		p2ps_json_put(x, "entry_size", json_object_new_int64(p->tables[i].entry_size));
		p2ps_json_put(x, "address_space", json_object_new_int64(p->tables[i].aspace));
		json_object_array_add(t, x);
	}
	p2ps_json_put(o, "tables", t);
	p2ps_json_put(o, "pte_info_status", status(p->pte_status));
	if (p->pte_status == P2PS_RM_NV_OK) {
		p2ps_json_put(o, "pte_info_verdict",
		              json_object_new_string(p->pte_info_agrees ? "agrees" : "differs"));
		p2ps_json_put(o, "pte_info", json_object_new_string(p->pte_info_diff));
	}
	p2ps_json_put(o, "pte_entry", json_object_new_int64(p->pte));
	return o;
}

static json_object *map_json(const struct probe_run *run, const struct probe_map *m)
{
	json_object *o = json_object_new_object();
	p2ps_json_put(o, "name", json_object_new_string(m->spec->name));
	p2ps_json_put(o, "memory", json_object_new_string(probe_mem_name(m->alloc->mem)));
	p2ps_json_put(o, "allocation", json_object_new_string(m->alloc->name));
	p2ps_json_put(o, "size", json_object_new_int64((int64_t)m->alloc->size));
	p2ps_json_put(o, "page_size",
	              json_object_new_int64((int64_t)(1ull << m->spec->page_shift)));
	p2ps_json_put(o, "access", json_object_new_string(m->spec->what));
	p2ps_json_put(o, "map_flags", p2ps_json_hex(m->spec->map_flags));
	p2ps_json_put(o, "state", json_object_new_string(probe_state_name(m->state)));
	if (m->state != PROBE_MAPPED) {
		p2ps_json_put(o, "why", json_object_new_string(m->why));
		return o;
	}
	p2ps_json_put(o, "va", p2ps_json_hex(m->va));
	json_object *pages = json_object_new_array();
	for (unsigned k = 0; k < m->n_pages; k++)
		json_object_array_add(pages, page_json(&m->pages[k]));
	p2ps_json_put(o, "pages", pages);
	if (run->walked)
		p2ps_json_put(o, "verdict",
		              json_object_new_string(m->agrees ? "agrees" : "differs"));
	return o;
}

static json_object *header_json(const struct probe_run *run)
{
	json_object *o = json_object_new_object();
	const struct p2ps_rm_card *c = &run->gpu.card;
	char bdf[24];
	snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x", c->domain, c->bus, c->slot, c->function);
	/* schemas/pte-probe.schema.json; raised only when a key changes meaning or goes away */
	p2ps_json_put(o, "schema_version", json_object_new_int(1));
	p2ps_json_put(o, "gpu", json_object_new_int64(run->gpu_index));
	p2ps_json_put(o, "bdf", json_object_new_string(bdf));
	p2ps_json_put(o, "device_id", p2ps_json_hex(c->device_id));
	p2ps_json_put(o, "chip", json_object_new_string(run->gpu.chip));
	p2ps_json_put(o, "format", json_object_new_string(run->fmt ? run->fmt->name : ""));
	p2ps_json_put(o, "driver", json_object_new_string(run->driver.version));
	p2ps_json_put(o, "open_module", json_object_new_boolean(run->driver.open_module));
	char series[16] = "";
	if (run->driver.row)
		snprintf(series, sizeof(series), "%u", run->driver.row->series);
	p2ps_json_put(o, "layout", json_object_new_string(series));
	p2ps_json_put(o, "root", json_object_new_boolean(run->root));
	p2ps_json_put(o, "pdb", run->pdb_known ? p2ps_json_hex(run->pdb) : NULL);
	return o;
}

static void put_bar1(json_object *o, const struct probe_bar1 *b)
{
	bool base = b->src == PROBE_BAR1_NV503B || b->src == PROBE_BAR1_INFERRED ||
	            b->src == PROBE_BAR1_UNKNOWN;
	p2ps_json_put(o, "bar1_row", b->row ? json_object_new_string(b->row_name) : NULL);
	p2ps_json_put(o, "bar1_row_source", b->row ? json_object_new_string(b->row->source) : NULL);
	p2ps_json_put(o, "bar1_source", json_object_new_string(probe_bar1_src_name(b->src)));
	p2ps_json_put(o, "bar1_base", base ? p2ps_json_hex(b->base) : NULL);
	p2ps_json_put(o, "bar1_start", base && b->start_known ? p2ps_json_hex(b->start) : NULL);
	p2ps_json_put(o, "bar1_from",
	              b->src == PROBE_BAR1_INFERRED ? json_object_new_string(b->from) : NULL);
	p2ps_json_put(o, "bar1_note", json_object_new_string(b->note));
	if (b->assumed[0])
		p2ps_json_put(o, "driver_assumed", json_object_new_string(b->assumed));
	p2ps_json_put(o, "peer_field_patched", json_object_new_boolean(b->peer_field_patched));
}

static json_object *peer_json(const struct probe_peer *pe)
{
	json_object *o = json_object_new_object();
	p2ps_json_put(o, "gpu", json_object_new_int64(pe->index));
	p2ps_json_put(o, "p2p_object", json_object_new_boolean(pe->p2p != 0));
	p2ps_json_put(o, "note", json_object_new_string(pe->note));
	if (pe->p2p) {
		p2ps_json_put(o, "mode", json_object_new_string(gmmu_p2p_mode_name(pe->mode)));
		p2ps_json_put(o, "peer_id", json_object_new_int64(pe->peer_id));
		p2ps_json_put(o, "caps", p2ps_json_hex(pe->caps));
		json_object *st = json_object_new_object();
		for (unsigned i = 0; pe->caps_known && i < PROBE_P2P_STATUS_N; i++)
			p2ps_json_put(st, p2ps_nv_caps_index_name(i),
			              json_object_new_string(
			                      p2ps_nv_status_name(pe->p2p_status_by_type[i])));
		p2ps_json_put(o, "p2p_status", st);
		p2ps_json_put(o, "bar1_dma_address", p2ps_json_hex(pe->bar1_dma_address));
		p2ps_json_put(o, "bar1_dma_size", p2ps_json_hex(pe->bar1_dma_size));
		p2ps_json_put(o, "fabric_base", p2ps_json_hex(pe->fabric_base));
		p2ps_json_put(o, "fabric_source",
		              json_object_new_string(probe_fabric_src_name(pe->fabric_src)));
		p2ps_json_put(o, "fabric_from",
		              pe->fabric_src == PROBE_FABRIC_INFERRED
		                      ? json_object_new_string(pe->fabric_from)
		                      : NULL);
		p2ps_json_put(o, "fabric_note", json_object_new_string(pe->fabric_note));
		put_bar1(o, &pe->bar1);
	}
	return o;
}

int probe_print_json(const struct probe_run *run, FILE *out, struct p2ps_error *err)
{
	json_object *root = header_json(run);
	json_object *maps = json_object_new_array();
	for (unsigned i = 0; i < run->n_maps; i++)
		json_object_array_add(maps, map_json(run, &run->maps[i]));
	p2ps_json_put(root, "mappings", maps);
	json_object *ents = json_object_new_array();
	for (size_t i = 0; i < run->n_entries; i++)
		json_object_array_add(ents, entry_json(&run->entries[i]));
	p2ps_json_put(root, "entries", ents);
	if (run->peer.asked)
		p2ps_json_put(root, "peer", peer_json(&run->peer));
	p2ps_json_put(root, "tables_note", json_object_new_string(run->walk_note));
	json_object *s = json_object_new_object();
	const struct p2ps_json_int_row counts[] = {{"agree", run->agree},
	                                           {"differ", run->differ},
	                                           {"not_modelled", run->unmodelled},
	                                           {"missing", run->missing},
	                                           {"unexplained", run->extra},
	                                           {"pte_info_agree", run->pte_info_agree},
	                                           {"pte_info_differ", run->pte_info_differ},
	                                           {"tables_read", (int64_t)run->walk_stats.tables},
	                                           {"rm_objects_allocated", run->rm_stats.allocs},
	                                           {"rm_objects_freed", run->rm_stats.frees},
	                                           {"rm_objects_left", run->rm_stats.live}};
	p2ps_json_put_ints(s, P2PS_JSON_ROWS(counts));
	p2ps_json_put(root, "summary", s);
	const char *text = json_object_to_json_string_ext(
	        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = fputs(text, out) < 0 || fputc('\n', out) == EOF
	                 ? p2ps_error_set(err, P2PS_EIO, "writing the JSON report failed")
	                 : 0;
	json_object_put(root);
	return rc;
}
