/* The --json rendering of the same report (json-c). Numbers that are addresses or entries
 * are "0x" strings, as in pte-decode's JSON. */
#include "probe.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

static json_object *hex(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return json_object_new_string(b);
}

static void put(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *status(uint32_t s)
{
	char b[40];
	return json_object_new_string(p2ps_rm_status_str(s, b, sizeof(b)));
}

static json_object *entry_json(const struct probe_entry *e)
{
	json_object *o = json_object_new_object();
	char b[40];
	put(o, "kind", json_object_new_string(e->pte ? "pte" : "directory"));
	put(o, "level", json_object_new_string(e->level ? e->level->name : "?"));
	put(o, "index", json_object_new_int64(e->index));
	put(o, "space", json_object_new_string(p2ps_mem_space_name(e->space)));
	put(o, "entry_pa", hex(e->entry_pa));
	put(o, "va", hex(e->va));
	put(o, "raw", json_object_new_string(gmmu_entry_hex_str(e->ef, e->raw, b, sizeof(b))));
	put(o, "owner", e->owner ? json_object_new_string(e->owner) : NULL);
	if (!e->modelled) {
		put(o, "verdict", json_object_new_string("not modelled"));
		put(o, "why", json_object_new_string(e->why));
		return o;
	}
	put(o, "model", json_object_new_string(gmmu_entry_hex_str(e->ef, e->model, b, sizeof(b))));
	put(o, "address_source", json_object_new_string(e->addr_source ? e->addr_source : ""));
	put(o, "verdict", json_object_new_string(e->n_diffs ? "differs" : "agrees"));
	json_object *d = json_object_new_array();
	for (unsigned i = 0; i < e->n_diffs && i < PROBE_MAX_DIFFS; i++) {
		json_object *f = json_object_new_object();
		put(f, "field",
		    json_object_new_string(e->diffs[i].field ? e->diffs[i].field->name
		                                             : "(unnamed bits)"));
		put(f, "driver", json_object_new_string(e->diffs[i].got));
		put(f, "model", json_object_new_string(e->diffs[i].want));
		json_object_array_add(d, f);
	}
	put(o, "differences", d);
	return o;
}

static json_object *page_json(const struct probe_page *p)
{
	json_object *o = json_object_new_object();
	put(o, "va", hex(p->va));
	put(o, "offset", hex(p->offset));
	put(o, "address", p->phys_known ? hex(p->phys) : NULL);
	put(o, "address_status", status(p->phys_status));
	put(o, "pde_info_status", status(p->pde_status));
	json_object *t = json_object_new_array();
	for (unsigned i = 0; i < p->n_tables; i++) {
		json_object *x = json_object_new_object();
		put(x, "page_size", json_object_new_int64((int64_t)p->tables[i].page_size));
		put(x, "table_pa", hex(p->tables[i].pa));
		put(x, "entry_size", json_object_new_int64(p->tables[i].entry_size));
		put(x, "address_space", json_object_new_int64(p->tables[i].aspace));
		json_object_array_add(t, x);
	}
	put(o, "tables", t);
	put(o, "pte_info_status", status(p->pte_status));
	if (p->pte_status == P2PS_RM_NV_OK) {
		put(o, "pte_info_verdict",
		    json_object_new_string(p->pte_info_agrees ? "agrees" : "differs"));
		put(o, "pte_info", json_object_new_string(p->pte_info_diff));
	}
	put(o, "pte_entry", json_object_new_int64(p->pte));
	return o;
}

static json_object *map_json(const struct probe_run *run, const struct probe_map *m)
{
	json_object *o = json_object_new_object();
	put(o, "name", json_object_new_string(m->spec->name));
	put(o, "memory", json_object_new_string(probe_mem_name(m->alloc->mem)));
	put(o, "allocation", json_object_new_string(m->alloc->name));
	put(o, "size", json_object_new_int64((int64_t)m->alloc->size));
	put(o, "page_size", json_object_new_int64((int64_t)(1ull << m->spec->page_shift)));
	put(o, "access", json_object_new_string(m->spec->what));
	put(o, "map_flags", hex(m->spec->map_flags));
	put(o, "state", json_object_new_string(probe_state_name(m->state)));
	if (m->state != PROBE_MAPPED) {
		put(o, "why", json_object_new_string(m->why));
		return o;
	}
	put(o, "va", hex(m->va));
	json_object *pages = json_object_new_array();
	for (unsigned k = 0; k < m->n_pages; k++)
		json_object_array_add(pages, page_json(&m->pages[k]));
	put(o, "pages", pages);
	if (run->walked)
		put(o, "verdict", json_object_new_string(m->agrees ? "agrees" : "differs"));
	return o;
}

static json_object *header_json(const struct probe_run *run)
{
	json_object *o = json_object_new_object();
	const struct p2ps_rm_card *c = &run->gpu.card;
	char bdf[24];
	snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x", c->domain, c->bus, c->slot, c->function);
	put(o, "gpu", json_object_new_int64(run->gpu_index));
	put(o, "bdf", json_object_new_string(bdf));
	put(o, "device_id", hex(c->device_id));
	put(o, "chip", json_object_new_string(run->gpu.chip));
	put(o, "format", json_object_new_string(run->fmt ? run->fmt->name : ""));
	put(o, "driver", json_object_new_string(run->driver.version));
	put(o, "open_module", json_object_new_boolean(run->driver.open_module));
	put(o, "layout",
	    json_object_new_string(run->driver.layout ? run->driver.layout->series : ""));
	put(o, "root", json_object_new_boolean(run->root));
	put(o, "pdb", run->pdb_known ? hex(run->pdb) : NULL);
	return o;
}

static json_object *peer_json(const struct probe_peer *pe)
{
	json_object *o = json_object_new_object();
	put(o, "gpu", json_object_new_int64(pe->index));
	put(o, "p2p_object", json_object_new_boolean(pe->p2p != 0));
	put(o, "note", json_object_new_string(pe->note));
	if (pe->p2p) {
		put(o, "mode", json_object_new_string(gmmu_p2p_mode_name(pe->mode)));
		put(o, "peer_id", json_object_new_int64(pe->peer_id));
		put(o, "caps", hex(pe->caps));
		json_object *st = json_object_new_object();
		for (unsigned i = 0; pe->caps_known && i < PROBE_P2P_STATUS_N; i++)
			put(st, probe_p2p_status_index[i],
			    json_object_new_string(
			            probe_p2p_status_name(pe->p2p_status_by_type[i])));
		put(o, "p2p_status", st);
		put(o, "bar1_dma_address", hex(pe->bar1_dma_address));
		put(o, "bar1_dma_size", hex(pe->bar1_dma_size));
		put(o, "fabric_base", hex(pe->fabric_base));
		put(o, "fabric_source",
		    json_object_new_string(probe_fabric_src_name(pe->fabric_src)));
		put(o, "fabric_from",
		    pe->fabric_src == PROBE_FABRIC_INFERRED
		            ? json_object_new_string(pe->fabric_from)
		            : NULL);
		put(o, "fabric_note", json_object_new_string(pe->fabric_note));
	}
	return o;
}

int probe_print_json(const struct probe_run *run, FILE *out, struct p2ps_error *err)
{
	json_object *root = header_json(run);
	json_object *maps = json_object_new_array();
	for (unsigned i = 0; i < run->n_maps; i++)
		json_object_array_add(maps, map_json(run, &run->maps[i]));
	put(root, "mappings", maps);
	json_object *ents = json_object_new_array();
	for (size_t i = 0; i < run->n_entries; i++)
		json_object_array_add(ents, entry_json(&run->entries[i]));
	put(root, "entries", ents);
	if (run->peer.asked)
		put(root, "peer", peer_json(&run->peer));
	put(root, "tables_note", json_object_new_string(run->walk_note));
	json_object *s = json_object_new_object();
	put(s, "agree", json_object_new_int64(run->agree));
	put(s, "differ", json_object_new_int64(run->differ));
	put(s, "not_modelled", json_object_new_int64(run->unmodelled));
	put(s, "missing", json_object_new_int64(run->missing));
	put(s, "unexplained", json_object_new_int64(run->extra));
	put(s, "pte_info_agree", json_object_new_int64(run->pte_info_agree));
	put(s, "pte_info_differ", json_object_new_int64(run->pte_info_differ));
	put(s, "tables_read", json_object_new_int64((int64_t)run->walk_stats.tables));
	put(s, "rm_objects_allocated", json_object_new_int64(run->rm_stats.allocs));
	put(s, "rm_objects_freed", json_object_new_int64(run->rm_stats.frees));
	put(s, "rm_objects_left", json_object_new_int64(run->rm_stats.live));
	put(root, "summary", s);
	const char *text = json_object_to_json_string_ext(
	        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = fputs(text, out) < 0 || fputc('\n', out) == EOF
	                 ? p2ps_error_set(err, P2PS_EIO, "writing the JSON report failed")
	                 : 0;
	json_object_put(root);
	return rc;
}
