/* SPDX-License-Identifier: MIT */
/* JSON object building shared by the renderers (json_put.h). */
#include "json_put.h"

#include <inttypes.h>
#include <stdio.h>

void p2ps_json_put(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

struct json_object *p2ps_json_str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

struct json_object *p2ps_json_hex(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return json_object_new_string(b);
}

struct json_object *p2ps_json_tri(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v);
}

void p2ps_json_put_ints(struct json_object *o, const struct p2ps_json_int_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, rows[i].key, json_object_new_int64(rows[i].v));
}

void p2ps_json_put_bools(struct json_object *o, const struct p2ps_json_bool_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, rows[i].key, json_object_new_boolean(rows[i].v));
}

void p2ps_json_put_strs(struct json_object *o, const struct p2ps_json_str_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, rows[i].key, p2ps_json_str_or_null(rows[i].v));
}
