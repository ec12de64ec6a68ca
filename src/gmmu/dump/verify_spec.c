/* SPDX-License-Identifier: MIT */
/* SPEC files for `pte-decode verify`: the intended mappings, parsed with
 * json-c into struct gmmu_spec (format in docs/pte-dumps.md).
 *
 * Addresses and sizes are strings ("0x7f2000000000", "24GiB") because JSON
 * numbers are doubles to most tools and lose bits above 2^53; plain integers
 * are accepted too. Every error names the mapping and the key. */
#include "p2pscope/gmmu_walk.h"

#include "p2pscope/parse.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SPEC_MAX_PEERS 64

struct spec_peer {
	int64_t index;
	uint64_t bar1_base;
	uint64_t fabric_base;
	bool has_bar1, has_fabric;
};

static int get_u64(json_object *o, const char *key, uint64_t *out, bool *present, const char *where,
                   struct p2ps_error *err)
{
	json_object *v;
	*present = json_object_object_get_ex(o, key, &v) && v;
	if (!*present)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);
		if (i < 0)
			return p2ps_error_set(err, P2PS_EINVAL, "%s: \"%s\": negative", where, key);
		*out = (uint64_t)i;
		return 0;
	}
	if (json_object_is_type(v, json_type_string)) {
		int rc = p2ps_parse_size(json_object_get_string(v), out);
		if (rc)
			return p2ps_error_set(
			        err, P2PS_EINVAL,
			        "%s: \"%s\": '%s' is not an address or size (0x hex, or "
			        "decimal with K/M/G/T)",
			        where, key, json_object_get_string(v));
		return 0;
	}
	return p2ps_error_set(err, P2PS_EINVAL, "%s: \"%s\": expected a string or an integer",
	                      where, key);
}

static int parse_aperture(const struct gmmu_format *fmt, const char *s, enum gmmu_aperture *out,
                          const char *where, struct p2ps_error *err)
{
	static const enum gmmu_aperture all[] = {GMMU_APERTURE_VIDEO, GMMU_APERTURE_PEER,
	                                         GMMU_APERTURE_SYS_COH, GMMU_APERTURE_SYS_NONCOH};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcasecmp(s, gmmu_aperture_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	/* The hwref value names (SYSTEM_NON_COHERENT_MEMORY ...) of the PTE's field. */
	const struct gmmu_field *fd =
	        fmt ? gmmu_field_find(gmmu_format_entry(fmt, GMMU_ENTRY_PTE), "APERTURE") : NULL;
	uint64_t hw;
	if (fd && !gmmu_field_value_parse(fd, s, &hw, NULL) && hw < 4) {
		*out = fmt->entry[GMMU_ENTRY_PTE]->fast[0].aperture_sw[hw];
		return 0;
	}
	return p2ps_error_set(err, P2PS_EINVAL,
	                      "%s: \"aperture\": '%s' is not VIDEO, PEER, SYS_COH, SYS_NONCOH or "
	                      "a PTE APERTURE value name",
	                      where, s);
}

static const char *flag_names[GMMU_FLAG_COUNT] = {
        [GMMU_FLAG_VOL] = "vol",
        [GMMU_FLAG_READ_ONLY] = "read_only",
        [GMMU_FLAG_PRIVILEGE] = "privilege",
        [GMMU_FLAG_ATOMIC_DISABLE] = "atomic_disable",
        [GMMU_FLAG_ENCRYPTED] = "encrypted",
        [GMMU_FLAG_ACD] = "acd",
};

const char *gmmu_flag_name(enum gmmu_flag f)
{
	return (unsigned)f < GMMU_FLAG_COUNT ? flag_names[f] : "?";
}

static int parse_flags(json_object *flags, struct gmmu_expect *e, const char *where,
                       struct p2ps_error *err)
{
	if (!json_object_is_type(flags, json_type_object))
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"flags\": expected an object", where);
	json_object_object_foreach(flags, key, val)
	{
		int f = -1;
		for (int i = 0; i < GMMU_FLAG_COUNT; i++)
			if (!strcasecmp(key, flag_names[i]))
				f = i;
		if (f < 0)
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "%s: \"flags\": unknown flag '%s' (vol, read_only, "
			                      "privilege, atomic_disable, encrypted, acd)",
			                      where, key);
		if (!json_object_is_type(val, json_type_boolean) &&
		    !json_object_is_type(val, json_type_int))
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "%s: \"flags\": \"%s\" must be true/false or 0/1",
			                      where, key);
		e->flags_set |= (uint8_t)(1u << f);
		if (json_object_get_int(val))
			e->flags_val |= (uint8_t)(1u << f);
	}
	return 0;
}

static int parse_peers(json_object *root, struct spec_peer *peers, size_t *n_peers,
                       const char *name, struct p2ps_error *err)
{
	json_object *arr;
	*n_peers = 0;
	if (!json_object_object_get_ex(root, "peers", &arr) || !arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"peers\": expected an array", name);
	size_t n = json_object_array_length(arr);
	if (n > SPEC_MAX_PEERS)
		return p2ps_error_set(err, P2PS_ERANGE, "%s: more than %d peers", name,
		                      SPEC_MAX_PEERS);
	for (size_t i = 0; i < n; i++) {
		char where[64];
		snprintf(where, sizeof(where), "%s peers[%zu]", name, i);
		json_object *p = json_object_array_get_idx(arr, i), *idx;
		if (!json_object_is_type(p, json_type_object) ||
		    !json_object_object_get_ex(p, "index", &idx) ||
		    !json_object_is_type(idx, json_type_int))
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "%s: expected an object with an integer \"index\"",
			                      where);
		struct spec_peer *sp = &peers[i];
		sp->index = json_object_get_int64(idx);
		int rc = get_u64(p, "bar1_base", &sp->bar1_base, &sp->has_bar1, where, err);
		if (!rc)
			rc = get_u64(p, "fabric_base", &sp->fabric_base, &sp->has_fabric, where,
			             err);
		if (rc)
			return rc;
		for (size_t k = 0; k < i; k++)
			if (peers[k].index == sp->index)
				return p2ps_error_set(err, P2PS_EINVAL, "%s: peer index %lld twice",
				                      where, (long long)sp->index);
	}
	*n_peers = n;
	return 0;
}

static int page_shift_of(uint64_t size, uint8_t *shift)
{
	if (!size || (size & (size - 1)))
		return P2PS_EINVAL;
	*shift = (uint8_t)__builtin_ctzll(size);
	return 0;
}

/* "va", "size" and the optional "page_size" of a mapping; *ps is the page size or 0. */
static int spec_range(json_object *m, const struct gmmu_format *fmt, const char *where,
                      struct gmmu_expect *e, uint64_t *ps, struct p2ps_error *err)
{
	bool has;
	int rc = get_u64(m, "va", &e->va, &has, where, err);
	if (rc)
		return rc;
	if (!has)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"va\" missing", where);
	rc = get_u64(m, "size", &e->size, &has, where, err);
	if (rc)
		return rc;
	if (!has || !e->size)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"size\" missing or zero", where);
	if (e->va + (e->size - 1) < e->va)
		return p2ps_error_set(err, P2PS_ERANGE, "%s: va + size passes 2^64", where);
	rc = get_u64(m, "page_size", ps, &has, where, err);
	if (rc || !has)
		return rc;
	if (page_shift_of(*ps, &e->page_shift) || e->page_shift < 12)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: \"page_size\" 0x%llx is not a power of two >= 4K", where,
		                      (unsigned long long)*ps);
	/* gmmu_level_for_page() also knows 128 KiB big pages. */
	if (fmt && !gmmu_level_for_page(fmt, e->page_shift))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: \"page_size\" 0x%llx is not a page size of %s", where,
		                      (unsigned long long)*ps, fmt->name);
	if ((e->va | e->size) & (*ps - 1))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: va and size must be multiples of the page size 0x%llx",
		                      where, (unsigned long long)*ps);
	return 0;
}

/* The optional "peer": its index into e, its "peers" entry into *peer (NULL if none). */
static int spec_peer(json_object *m, const struct spec_peer *peers, size_t n_peers,
                     const char *where, struct gmmu_expect *e, const struct spec_peer **peer,
                     struct p2ps_error *err)
{
	json_object *v;
	*peer = NULL;
	if (!json_object_object_get_ex(m, "peer", &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
	    json_object_get_int64(v) > 255)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: \"peer\": expected a peer index 0..255", where);
	int64_t idx = json_object_get_int64(v);
	for (size_t k = 0; k < n_peers; k++)
		if (peers[k].index == idx)
			*peer = &peers[k];
	e->has_peer = true;
	e->peer_index = (uint8_t)idx;
	return 0;
}

/* A peer's base for "offset": its BAR1 bus address for a sysmem (BAR1-P2P) mapping, else
 * its fabric base when it has one. */
static int peer_base(const struct gmmu_expect *e, const struct spec_peer *peer, const char *where,
                     uint64_t *base, struct p2ps_error *err)
{
	*base = 0;
	if (e->aperture == GMMU_APERTURE_SYS_COH || e->aperture == GMMU_APERTURE_SYS_NONCOH) {
		if (!peer || !peer->has_bar1)
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "%s: a sysmem mapping of peer %u needs that peer's "
			                      "\"bar1_base\" in \"peers\"",
			                      where, e->peer_index);
		*base = peer->bar1_base;
	} else if (peer && peer->has_fabric) {
		*base = peer->fabric_base;
	}
	return 0;
}

/* The target: "target", or a peer's base + "offset". */
static int spec_target(json_object *m, const struct spec_peer *peers, size_t n_peers,
                       const char *where, struct gmmu_expect *e, struct p2ps_error *err)
{
	uint64_t target = 0, offset = 0, base;
	bool has_target, has_offset;
	const struct spec_peer *peer;
	int rc = get_u64(m, "target", &target, &has_target, where, err);
	if (!rc)
		rc = get_u64(m, "offset", &offset, &has_offset, where, err);
	if (!rc)
		rc = spec_peer(m, peers, n_peers, where, e, &peer, err);
	if (rc)
		return rc;
	if (has_target && has_offset)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: give either \"target\" or \"peer\" + \"offset\"", where);
	if (has_target) {
		e->target = target;
		return 0;
	}
	if (!has_offset)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: \"target\" (or \"peer\" + \"offset\") missing", where);
	if (!e->has_peer)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"offset\" needs a \"peer\"", where);
	if ((rc = peer_base(e, peer, where, &base, err)))
		return rc;
	e->target = base + offset;
	if (e->target < base)
		return p2ps_error_set(err, P2PS_ERANGE, "%s: base + offset passes 2^64", where);
	return 0;
}

/* The optional "kind": a number, or a KIND name of the format. */
static int spec_kind(json_object *m, const struct gmmu_format *fmt, const char *where,
                     struct gmmu_expect *e, struct p2ps_error *err)
{
	json_object *v;
	uint64_t kind;
	if (!json_object_object_get_ex(m, "kind", &v) || !v)
		return 0;
	const struct gmmu_field *kf =
	        fmt ? gmmu_field_find(gmmu_format_entry(fmt, GMMU_ENTRY_PTE), "KIND") : NULL;
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0) {
		kind = (uint64_t)json_object_get_int64(v);
	} else if (json_object_is_type(v, json_type_string) && kf) {
		if (gmmu_field_value_parse(kf, json_object_get_string(v), &kind, NULL))
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "%s: \"kind\": '%s' is not a KIND of %s", where,
			                      json_object_get_string(v), fmt->name);
	} else {
		return p2ps_error_set(
		        err, P2PS_EINVAL,
		        "%s: \"kind\": expected a number or (with a chip) a KIND name", where);
	}
	if (kind > 0xff)
		return p2ps_error_set(err, P2PS_ERANGE, "%s: \"kind\" 0x%llx exceeds 8 bits", where,
		                      (unsigned long long)kind);
	e->has_kind = true;
	e->kind = (uint8_t)kind;
	return 0;
}

static int parse_mapping(json_object *m, size_t i, const struct gmmu_format *fmt,
                         const struct spec_peer *peers, size_t n_peers, const char *name,
                         struct gmmu_expect *e, struct p2ps_error *err)
{
	char where[160];
	json_object *v;
	snprintf(e->name, sizeof(e->name), "mapping[%zu]", i);
	if (!json_object_is_type(m, json_type_object))
		return p2ps_error_set(err, P2PS_EINVAL, "%s mapping[%zu]: expected an object", name,
		                      i);
	if (json_object_object_get_ex(m, "name", &v) && json_object_is_type(v, json_type_string))
		snprintf(e->name, sizeof(e->name), "%s", json_object_get_string(v));
	snprintf(where, sizeof(where), "%s mapping[%zu] (%s)", name, i, e->name);
	uint64_t ps = 0;
	int rc = spec_range(m, fmt, where, e, &ps, err);
	if (rc)
		return rc;
	if (!json_object_object_get_ex(m, "aperture", &v) ||
	    !json_object_is_type(v, json_type_string))
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"aperture\" missing", where);
	rc = parse_aperture(fmt, json_object_get_string(v), &e->aperture, where, err);
	if (!rc)
		rc = spec_target(m, peers, n_peers, where, e, err);
	if (rc)
		return rc;
	if (e->page_shift && (e->target & (ps - 1)))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: target 0x%llx is not aligned to the page size 0x%llx",
		                      where, (unsigned long long)e->target, (unsigned long long)ps);
	if ((rc = spec_kind(m, fmt, where, e, err)))
		return rc;
	if (json_object_object_get_ex(m, "flags", &v) && v)
		return parse_flags(v, e, where, err);
	return 0;
}

static int expect_cmp(const void *a, const void *b)
{
	const struct gmmu_expect *x = a, *y = b;
	return x->va < y->va ? -1 : x->va > y->va;
}

static int spec_build(json_object *root, const char *name, const struct gmmu_format *fmt,
                      struct gmmu_spec *spec, struct p2ps_error *err)
{
	json_object *v;
	if (!json_object_is_type(root, json_type_object))
		return p2ps_error_set(err, P2PS_EINVAL, "%s: expected a JSON object at the top",
		                      name);
	const struct gmmu_format *own = NULL;
	if (json_object_object_get_ex(root, "chip", &v) &&
	    json_object_is_type(v, json_type_string)) {
		snprintf(spec->chip, sizeof(spec->chip), "%s", json_object_get_string(v));
		int rc = gmmu_chip_lookup(spec->chip, &own, err);
		if (rc)
			return p2ps_error_prefix(err, "%s: \"chip\"", name);
	} else if (json_object_object_get_ex(root, "format", &v) &&
	           json_object_is_type(v, json_type_string)) {
		int rc = gmmu_format_lookup(json_object_get_string(v), &own, err);
		if (rc)
			return p2ps_error_prefix(err, "%s: \"format\"", name);
	}
	if (fmt && own && fmt != own)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: SPEC is for format %s, the command line says %s", name,
		                      own->name, fmt->name);
	spec->fmt = fmt ? fmt : own;

	struct spec_peer peers[SPEC_MAX_PEERS];
	size_t n_peers;
	int rc = parse_peers(root, peers, &n_peers, name, err);
	if (rc)
		return rc;

	json_object *maps;
	if (!json_object_object_get_ex(root, "mappings", &maps) ||
	    !json_object_is_type(maps, json_type_array))
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"mappings\" (an array) missing",
		                      name);
	size_t n = json_object_array_length(maps);
	if (!n)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: \"mappings\" is empty", name);
	spec->maps = calloc(n, sizeof(*spec->maps));
	if (!spec->maps)
		return p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", name);
	for (size_t i = 0; i < n; i++) {
		rc = parse_mapping(json_object_array_get_idx(maps, i), i, spec->fmt, peers, n_peers,
		                   name, &spec->maps[i], err);
		if (rc)
			return rc;
		spec->n++;
	}
	qsort(spec->maps, spec->n, sizeof(*spec->maps), expect_cmp);
	for (size_t i = 1; i < spec->n; i++) {
		const struct gmmu_expect *a = &spec->maps[i - 1], *b = &spec->maps[i];
		if (b->va - a->va < a->size)
			return p2ps_error_set(
			        err, P2PS_EINVAL,
			        "%s: mappings %s (VA 0x%llx + 0x%llx) and %s (VA 0x%llx) "
			        "overlap",
			        name, a->name, (unsigned long long)a->va,
			        (unsigned long long)a->size, b->name, (unsigned long long)b->va);
	}
	return 0;
}

int gmmu_spec_parse(const char *json, size_t len, const char *name, const struct gmmu_format *fmt,
                    struct gmmu_spec *spec, struct p2ps_error *err)
{
	memset(spec, 0, sizeof(*spec));
	if (len > INT32_MAX)
		return p2ps_error_set(err, P2PS_ERANGE, "%s: SPEC too large", name);
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", name);
	json_object *root = json_tokener_parse_ex(tok, json, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	int rc = 0;
	if (!root || jerr != json_tokener_success) {
		/* Report the line of the byte where the parser stopped. */
		size_t off = json_tokener_get_parse_end(tok), line = 1;
		for (size_t k = 0; k < off && k < len; k++)
			line += json[k] == '\n';
		rc = p2ps_error_set(err, P2PS_EINVAL, "%s:%zu: invalid JSON: %s", name, line,
		                    json_tokener_error_desc(jerr == json_tokener_success
		                                                    ? json_tokener_continue
		                                                    : jerr));
	} else {
		size_t end = json_tokener_get_parse_end(tok);
		while (end < len && strchr(" \t\r\n", json[end]) && json[end])
			end++;
		if (end < len)
			rc = p2ps_error_set(err, P2PS_EINVAL,
			                    "%s: unexpected text after the JSON object at byte %zu",
			                    name, end);
		else
			rc = spec_build(root, name, fmt, spec, err);
	}
	json_object_put(root);
	json_tokener_free(tok);
	if (rc)
		gmmu_spec_cleanup(spec);
	return rc;
}

void gmmu_spec_cleanup(struct gmmu_spec *spec)
{
	free(spec->maps);
	spec->maps = NULL;
	spec->n = 0;
}
