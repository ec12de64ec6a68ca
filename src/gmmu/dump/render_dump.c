/* SPDX-License-Identifier: MIT */
/* Renderings of a dump (render_internal.h): one line or JSON object per entry, and the
 * summary's ranges with their totals. */
#include "render_internal.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

static const char *hex(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "0x%llx", (unsigned long long)v);
	return buf;
}

/* An entry as 0x + 16 digits, as `decode` prints values. */
static const char *hex_entry(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016llx", (unsigned long long)v);
	return buf;
}

static int dump_entry_json(struct gmmu_out *o, const struct gmmu_dump_entry *e,
                           const struct gmmu_decoded *d, struct p2ps_error *err)
{
	char buf[96], raw[48];
	const struct gmmu_entry_format *ef = d->ef;
	json_object *obj = json_object_new_object();
	json_object_object_add(obj, "schema_version",
	                       json_object_new_int(GMMU_JSON_SCHEMA_VERSION));
	json_object_object_add(obj, "index", json_object_new_uint64(e->index));
	if (e->has_va) {
		json_object_object_add(obj, "va", json_object_new_string(hex(e->va, buf, 96)));
		if (e->page_shift)
			json_object_object_add(obj, "page_size",
			                       json_object_new_uint64(1ull << e->page_shift));
	}
	if (e->level)
		json_object_object_add(obj, "level", json_object_new_string(e->level->name));
	if (e->where)
		json_object_object_add(obj, "entry_at", json_object_new_string(e->where));
	json_object_object_add(obj, "entry", json_object_new_string(gmmu_entry_type_name(e->type)));
	json_object_object_add(
	        obj, "raw", json_object_new_string(gmmu_entry_hex_str(ef, e->w, raw, sizeof(raw))));
	json_object_object_add(obj, "valid", json_object_new_boolean(d->valid));
	json_object *fields = json_object_new_object();
	for (size_t i = 0; i < ef->n_fields && i < GMMU_MAX_FIELDS; i++)
		if (d->shown[i])
			json_object_object_add(fields, ef->fields[i].name,
			                       json_object_new_string(gmmu_decoded_value_str(
			                               d, i, buf, sizeof(buf))));
	json_object_object_add(obj, "fields", fields);
	return gmmu_put_json(o, obj, JSON_C_TO_STRING_PLAIN, err);
}

int gmmu_render_dump_entry(struct gmmu_out *o, const struct gmmu_format *f, bool json,
                           const struct gmmu_dump_entry *e, struct p2ps_error *err)
{
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, e->type);
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, e->w, &d);
	if (json)
		return dump_entry_json(o, e, &d, err);
	char buf[96], raw[48];
	gmmu_entry_hex_str(ef, e->w, raw, sizeof(raw));
	if (e->has_va)
		gmmu_out_printf(o, "VA 0x%012llx %-4s ", (unsigned long long)e->va,
		                e->page_shift
		                        ? gmmu_size_str(1ull << e->page_shift, buf, sizeof(buf))
		                        : "");
	if (e->where)
		gmmu_out_printf(o, "%s ", e->where);
	else
		gmmu_out_printf(o, "[%llu] ", (unsigned long long)e->index);
	gmmu_out_puts(o, raw);
	/* " NAME=VALUE" per field, copied rather than formatted: a full decode prints a line
	 * like this for every entry of the dump. */
	for (size_t i = 0; i < ef->n_fields && i < GMMU_MAX_FIELDS; i++) {
		if (!d.shown[i])
			continue;
		gmmu_out_put(o, " ", 1);
		gmmu_out_puts(o, ef->fields[i].name);
		gmmu_out_put(o, "=", 1);
		gmmu_out_puts(o, gmmu_decoded_value_str(&d, i, buf, sizeof(buf)));
	}
	gmmu_out_put(o, "\n", 1);
	return 0;
}

/* ---- the summary ---------------------------------------------------------------------- */

static const char *const flag_short[GMMU_FLAG_COUNT] = {"vol",      "ro",  "priv",
                                                        "noatomic", "enc", "acd"};

int gmmu_range_printer_init(struct gmmu_range_printer *p, const struct gmmu_format *f,
                            struct gmmu_out *out, bool json, struct p2ps_error *err)
{
	char name[64];
	p->fmt = f;
	p->out = out;
	p->json = json;
	p->jranges = NULL;
	if (json && !(p->jranges = json_object_new_array()))
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	for (unsigned k = 0; k < 256; k++)
		gmmu_word_set(&p->kind_w[k], " kind=%s", gmmu_kind_str(f, k, name, sizeof(name)));
	for (unsigned sh = 0; sh < 64; sh++)
		gmmu_word_set(&p->page_w[sh], " %4s x ",
		              gmmu_size_str(1ull << sh, name, sizeof(name)));
	for (unsigned a = 0; a < 8; a++)
		gmmu_word_set(&p->aper_w[a], "%-10s ", gmmu_aperture_name((enum gmmu_aperture)a));
	for (unsigned fl = 0; fl < (1u << GMMU_FLAG_COUNT); fl++) {
		size_t n = 0;
		p->flags_w[fl].s[0] = '\0';
		for (int i = 0; i < GMMU_FLAG_COUNT; i++)
			if (fl >> i & 1)
				n += (size_t)snprintf(p->flags_w[fl].s + n, GMMU_WORD_BYTES - n,
				                      " %s", flag_short[i]);
		p->flags_w[fl].n = n;
	}
	return 0;
}

static json_object *range_json(const struct gmmu_format *f, const struct gmmu_range *g)
{
	char buf[64];
	uint64_t bytes = gmmu_range_bytes(g);
	json_object *j = json_object_new_object();
	json_object_object_add(j, "va", json_object_new_string(hex(g->va, buf, sizeof(buf))));
	json_object_object_add(j, "va_last",
	                       json_object_new_string(hex(g->va + bytes - 1, buf, sizeof(buf))));
	json_object_object_add(j, "page_size", json_object_new_uint64(1ull << g->page_shift));
	json_object_object_add(j, "count", json_object_new_uint64(g->count));
	if (g->level)
		json_object_object_add(j, "level", json_object_new_string(g->level->name));
	if (!g->v.valid) {
		json_object_object_add(j, "sparse", json_object_new_boolean(true));
		json_object_object_add(j, "raw",
		                       json_object_new_string(hex_entry(g->raw, buf, 64)));
		return j;
	}
	json_object_object_add(j, "aperture",
	                       json_object_new_string(gmmu_aperture_name(g->v.aperture)));
	json_object_object_add(j, "target", json_object_new_string(hex(g->v.addr, buf, 64)));
	json_object_object_add(j, "target_last",
	                       json_object_new_string(hex(g->v.addr + bytes - 1, buf, 64)));
	json_object_object_add(
	        j, "peer",
	        g->v.aperture == GMMU_APERTURE_PEER ? json_object_new_int(g->v.peer_index) : NULL);
	json_object_object_add(j, "kind", json_object_new_int(g->v.kind));
	json_object_object_add(j, "kind_name",
	                       json_object_new_string(gmmu_kind_str(f, g->v.kind, buf, 64)));
	json_object *fl = json_object_new_object();
	unsigned flags = gmmu_pte_view_flags(&g->v);
	for (int i = 0; i < GMMU_FLAG_COUNT; i++)
		json_object_object_add(fl, gmmu_flag_name((enum gmmu_flag)i),
		                       json_object_new_boolean(flags >> i & 1));
	json_object_object_add(j, "flags", fl);
	json_object_object_add(j, "raw", json_object_new_string(hex_entry(g->raw, buf, 64)));
	return j;
}

int gmmu_range_print(void *ctx, const struct gmmu_range *g, struct p2ps_error *err)
{
	struct gmmu_range_printer *p = ctx;
	if (p->json) {
		if (json_object_array_add(p->jranges, range_json(p->fmt, g)))
			return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
		return 0;
	}
	/* VA range, page size x count, aperture, target range, peer, kind, flags */
	struct gmmu_line l;
	gmmu_line_begin(p->out, &l);
	uint64_t bytes = gmmu_range_bytes(g);
	gmmu_line_hex(&l, g->va, 12);
	gmmu_line_str(&l, "-", 1);
	gmmu_line_hex(&l, g->va + bytes - 1, 12);
	gmmu_line_word(&l, &p->page_w[g->page_shift & 63]);
	size_t col = l.n + 10;
	gmmu_line_dec(&l, g->count);
	gmmu_line_pad(&l, col);
	if (!g->v.valid) {
		gmmu_line_str(&l, "SPARSE\n", 7);
		gmmu_line_end(p->out, &l);
		return 0;
	}
	gmmu_line_word(&l, &p->aper_w[g->v.aperture & 7]);
	gmmu_line_hex(&l, g->v.addr, 12);
	gmmu_line_str(&l, "-", 1);
	gmmu_line_hex(&l, g->v.addr + bytes - 1, 12);
	if (g->v.aperture == GMMU_APERTURE_PEER) {
		gmmu_line_str(&l, " peer=", 6);
		gmmu_line_dec(&l, g->v.peer_index);
	}
	gmmu_line_word(&l, &p->kind_w[g->v.kind]);
	gmmu_line_word(&l, &p->flags_w[gmmu_pte_view_flags(&g->v) & ((1u << GMMU_FLAG_COUNT) - 1)]);
	gmmu_line_str(&l, "\n", 1);
	gmmu_line_end(p->out, &l);
	return 0;
}

static json_object *totals_json(const struct gmmu_summary_stats *st)
{
	static const struct {
		const char *key;
		size_t offset;
	} totals[] = {
	        {"entries", offsetof(struct gmmu_summary_stats, entries)},
	        {"valid", offsetof(struct gmmu_summary_stats, valid)},
	        {"sparse", offsetof(struct gmmu_summary_stats, sparse)},
	        {"zero", offsetof(struct gmmu_summary_stats, zero)},
	        {"other_invalid", offsetof(struct gmmu_summary_stats, other)},
	        {"ranges", offsetof(struct gmmu_summary_stats, ranges)},
	};
	json_object *t = json_object_new_object();
	for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++) {
		const uint64_t *v = (const uint64_t *)((const char *)st + totals[i].offset);
		json_object_object_add(t, totals[i].key, json_object_new_uint64(*v));
	}
	return t;
}

static int summary_document(struct gmmu_range_printer *p, const struct gmmu_summary_stats *st,
                            const struct gmmu_walk_stats *walk, struct p2ps_error *err)
{
	json_object *top = json_object_new_object();
	json_object_object_add(top, "schema_version",
	                       json_object_new_int(GMMU_JSON_SCHEMA_VERSION));
	json_object_object_add(top, "format", json_object_new_string(p->fmt->name));
	json_object_object_add(top, "ranges", p->jranges);
	p->jranges = NULL;
	json_object_object_add(top, "totals", totals_json(st));
	if (walk) {
		json_object_object_add(top, "tables", json_object_new_uint64(walk->tables));
		json_object_object_add(top, "pdes", json_object_new_uint64(walk->pdes));
		json_object_object_add(top, "sparse_pdes",
		                       json_object_new_uint64(walk->pdes_sparse));
	}
	return gmmu_put_json(p->out, top, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED, err);
}

int gmmu_range_printer_finish(struct gmmu_range_printer *p, const struct gmmu_summary_stats *st,
                              const struct gmmu_walk_stats *walk, struct p2ps_error *err)
{
	if (p->json)
		return summary_document(p, st, walk, err);
	gmmu_out_printf(p->out,
	                "# %llu entries: %llu valid in %llu ranges, %llu sparse, %llu zero, %llu "
	                "other invalid\n",
	                (unsigned long long)st->entries, (unsigned long long)st->valid,
	                (unsigned long long)st->ranges, (unsigned long long)st->sparse,
	                (unsigned long long)st->zero, (unsigned long long)st->other);
	if (walk) {
		gmmu_out_printf(p->out, "# walk: %llu tables, %llu PDEs followed",
		                (unsigned long long)walk->tables, (unsigned long long)walk->pdes);
		if (walk->pdes_sparse)
			gmmu_out_printf(p->out, ", %llu sparse",
			                (unsigned long long)walk->pdes_sparse);
		gmmu_out_put(p->out, "\n", 1);
	}
	return 0;
}

void gmmu_range_printer_cleanup(struct gmmu_range_printer *p)
{
	json_object_put(p->jranges);
	p->jranges = NULL;
}
