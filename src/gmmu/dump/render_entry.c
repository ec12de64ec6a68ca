/* SPDX-License-Identifier: MIT */
/* Renderings of single entries (gmmu_render.h): the hex value, the decoded fields as text
 * and JSON, and a modelled P2P entry with the level it is a PTE of. */
#include "render_internal.h"
#include "p2pscope/nvidia_drivers.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>

const char *gmmu_size_str(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = -1;
	uint64_t v = bytes;
	while (v >= 1024 && !(v & 1023) && u < 5) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "0x%llx", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	return buf;
}

const char *gmmu_page_sizes_str(const struct gmmu_format *f, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (unsigned shift = 12; shift < 64 && n < len; shift++) {
		if (!gmmu_level_for_page(f, shift))
			continue;
		char one[24];
		gmmu_size_str(1ull << shift, one, sizeof(one));
		int k = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", one);
		n += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

const char *gmmu_kind_str(const struct gmmu_format *f, unsigned kind, char *buf, size_t len)
{
	const struct gmmu_field *kf = gmmu_field_find(f->entry[GMMU_ENTRY_PTE], "KIND");
	const char *n = kf ? gmmu_field_value_name(kf, kind, true) : NULL;
	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "0x%x", kind);
	return buf;
}

void gmmu_render_entry_hex(struct gmmu_out *o, const struct gmmu_entry_format *ef,
                           const uint64_t w[2])
{
	char buf[48];
	gmmu_out_puts(o, gmmu_entry_hex_str(ef, w, buf, sizeof(buf)));
	gmmu_out_put(o, "\n", 1);
}

void gmmu_render_decoded(struct gmmu_out *o, const struct gmmu_decoded *d)
{
	char buf[96];
	for (size_t i = 0; i < d->ef->n_fields; i++)
		if (d->shown[i])
			gmmu_out_printf(o, "%s=%s\n", d->ef->fields[i].name,
			                gmmu_decoded_value_str(d, i, buf, sizeof(buf)));
	if (d->unexplained[0] || d->unexplained[1]) {
		if (d->ef->size > 8)
			gmmu_out_printf(o, "UNEXPLAINED_BITS=0x%016" PRIx64 "%016" PRIx64 "\n",
			                d->unexplained[1], d->unexplained[0]);
		else
			gmmu_out_printf(o, "UNEXPLAINED_BITS=0x%016" PRIx64 "\n",
			                d->unexplained[0]);
	}
}

/* One field of a decoded entry as {name, hi, lo, raw, value[, value_name]}. */
static json_object *field_json(const struct gmmu_decoded *d, size_t i)
{
	char buf[96];
	const struct gmmu_field *fd = &d->ef->fields[i];
	json_object *jf = json_object_new_object();
	json_object_object_add(jf, "name", json_object_new_string(fd->name));
	json_object_object_add(jf, "hi", json_object_new_int(fd->hi));
	json_object_object_add(jf, "lo", json_object_new_int(fd->lo));
	json_object_object_add(jf, "raw", json_object_new_uint64(d->value[i]));
	json_object_object_add(
	        jf, "value",
	        json_object_new_string(gmmu_decoded_value_str(d, i, buf, sizeof(buf))));
	if (fd->kind == GMMU_FIELD_ENUM || fd->kind == GMMU_FIELD_BOOL) {
		/* "value" parses back either way; "value_name" says whether it has a name. */
		const char *nm = gmmu_field_value_name(fd, d->value[i], d->half_valid[fd->half]);
		json_object_object_add(jf, "value_name",
		                       json_object_new_string(nm ? nm : "unknown"));
	}
	return jf;
}

static json_object *decoded_json(const struct gmmu_format *f, const struct gmmu_decoded *d)
{
	char buf[96];
	json_object *o = json_object_new_object();
	json_object_object_add(o, "schema_version", json_object_new_int(GMMU_JSON_SCHEMA_VERSION));
	json_object_object_add(o, "format", json_object_new_string(f->name));
	json_object_object_add(o, "entry",
	                       json_object_new_string(gmmu_entry_type_name(d->ef->type)));
	json_object_object_add(
	        o, "raw",
	        json_object_new_string(gmmu_entry_hex_str(d->ef, d->w, buf, sizeof(buf))));
	json_object_object_add(o, "valid", json_object_new_boolean(d->valid));
	json_object *fields = json_object_new_array();
	for (size_t i = 0; i < d->ef->n_fields; i++)
		if (d->shown[i])
			json_object_array_add(fields, field_json(d, i));
	json_object_object_add(o, "fields", fields);
	uint64_t u[2] = {d->unexplained[0], d->unexplained[1]};
	json_object_object_add(
	        o, "unexplained_bits",
	        json_object_new_string(gmmu_entry_hex_str(d->ef, u, buf, sizeof(buf))));
	return o;
}

int gmmu_render_decoded_json(struct gmmu_out *o, const struct gmmu_format *f,
                             const struct gmmu_decoded *d, struct p2ps_error *err)
{
	return gmmu_put_json(o, decoded_json(f, d), JSON_C_TO_STRING_PLAIN, err);
}

/* The level lines: which table the entry is a PTE of, and that the bits do not depend on the
 * page size (every format stores address >> 12 whatever the page: the size only picks the
 * level and the alignment). */
static void render_level(struct gmmu_out *o, const struct gmmu_format *f,
                         const struct gmmu_p2p_result *res)
{
	char ps[24], all[128];
	gmmu_size_str(res->page_size, ps, sizeof(ps));
	gmmu_page_sizes_str(f, all, sizeof(all));
	/* 128 KiB big pages: PT_BIG indexes fewer VA bits. */
	unsigned va_lo = res->page_size > (1ull << res->level->page_shift) ? res->level->alt_va_lo
	                                                                   : res->level->va_lo;
	gmmu_out_printf(o, "# PTE of a %s page at level %s (VA %u:%u)\n", ps, res->level->name,
	                (unsigned)res->level->va_hi, va_lo);
	gmmu_out_printf(o,
	                "# the same bits for every page size of %s (%s): the page size only "
	                "picks the level and the alignment\n",
	                f->name, all);
}

void gmmu_render_p2p(struct gmmu_out *o, const struct gmmu_format *f,
                     const struct gmmu_p2p_result *res, bool quiet)
{
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, GMMU_ENTRY_PTE);
	uint64_t w[2] = {res->pte, 0};
	gmmu_render_entry_hex(o, ef, w);
	if (quiet)
		return;
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, w, &d);
	gmmu_render_decoded(o, &d);
	render_level(o, f, res);
}

int gmmu_render_p2p_json(struct gmmu_out *o, const struct gmmu_format *f,
                         const struct gmmu_p2p_request *rq, const struct gmmu_p2p_result *res,
                         struct p2ps_error *err)
{
	char buf[32];
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, GMMU_ENTRY_PTE);
	uint64_t w[2] = {res->pte, 0};
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, w, &d);
	json_object *j = decoded_json(f, &d);
	json_object_object_add(j, "mode", json_object_new_string(gmmu_p2p_mode_name(rq->mode)));
	if (rq->mode == GMMU_P2P_BAR1)
		json_object_object_add(j, "bar1_form",
		                       json_object_new_string(gmmu_bar1_form_name(rq->bar1_form)));
	if (rq->mode == GMMU_P2P_BAR1 && rq->bar1_row) {
		const struct gmmu_bar1_row *r = rq->bar1_row;
		char name[96];
		json_object *row = json_object_new_object();
		gmmu_bar1_row_str(r, gmmu_bar1_gen_of(f), name, sizeof(name));
		json_object_object_add(row, "name", json_object_new_string(name));
		json_object_object_add(row, "source", json_object_new_string(r->source));
		snprintf(buf, sizeof(buf), "0x%" PRIx64, rq->bar1_base);
		json_object_object_add(row, "base", json_object_new_string(buf));
		snprintf(buf, sizeof(buf), "0x%" PRIx64, r->adds_start ? rq->bar1_start : 0);
		json_object_object_add(row, "start_offset", json_object_new_string(buf));
		json_object_object_add(j, "driver_row", row);
	}
	if (rq->driver_assumed)
		json_object_object_add(j, "driver_assumed",
		                       json_object_new_string(rq->driver_assumed));
	json_object_object_add(j, "level", json_object_new_string(res->level->name));
	json_object_object_add(j, "page_size", json_object_new_uint64(res->page_size));
	json_object_object_add(j, "same_for_every_page_size", json_object_new_boolean(1));
	json_object_object_add(j, "address_field", json_object_new_string(res->addr_field->name));
	snprintf(buf, sizeof(buf), "0x%" PRIx64, res->addr);
	json_object_object_add(j, "address", json_object_new_string(buf));
	return gmmu_put_json(o, j, JSON_C_TO_STRING_PLAIN, err);
}
