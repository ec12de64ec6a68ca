/* SPDX-License-Identifier: MIT */
/* p2pscope: building JSON objects with json-c, as every renderer of the tools does it
 * (bar-inspect's host and fleet reports, pte-probe, p2p-bench).
 *
 * A NULL value is JSON null: json-c adds it as such, so a field the model does not know
 * still appears, with null. A run of fields of one kind is a table of key/value rows
 * added in order, not a run of calls.
 *
 * Not part of the installed libraries (libgmmu has no json-c): the renderers link it as
 * p2ps_json.
 */
#ifndef P2PS_JSON_PUT_H
#define P2PS_JSON_PUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define P2PS_JSON_ROWS(a) (a), (sizeof(a) / sizeof((a)[0]))

/* Adds v (NULL: null) under key k of object o, which takes it over. */
void p2ps_json_put(struct json_object *o, const char *k, struct json_object *v);

/* A string, or null for NULL and for "" (a fact that was read empty is not known). */
struct json_object *p2ps_json_str_or_null(const char *s);
/* "0x" and lower-case hex digits, as a string (JSON numbers lose 64-bit addresses). */
struct json_object *p2ps_json_hex(uint64_t v);
/* A boolean for v >= 0, null for v < 0 (not known). */
struct json_object *p2ps_json_tri(int v);

struct p2ps_json_int_row {
	const char *key;
	int64_t v;
};
struct p2ps_json_bool_row {
	const char *key;
	bool v;
};
struct p2ps_json_str_row {
	const char *key;
	const char *v; /* NULL or "": null */
};

/* Adds each row as an integer (a boolean, p2ps_json_str_or_null's string), in order. */
void p2ps_json_put_ints(struct json_object *o, const struct p2ps_json_int_row *rows, size_t n);
void p2ps_json_put_bools(struct json_object *o, const struct p2ps_json_bool_row *rows, size_t n);
void p2ps_json_put_strs(struct json_object *o, const struct p2ps_json_str_row *rows, size_t n);

#endif
