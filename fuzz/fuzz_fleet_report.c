/* SPDX-License-Identifier: MIT */
// fuzz-links: p2psfleet
/* The fleet summary's report reader: arbitrary bytes as a stream of concatenated
 * bar-inspect reports (what `bar-inspect --fleet -` reads), then deduplication,
 * aggregation and all three renderings. Checks that every document is counted (hosts +
 * skipped), that the JSON rendering parses back with the same counts, and that the CSV
 * has one row per host, skipped input and missing host. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/fleet.h"

struct out {
	char *s;
	size_t n;
};

static void sink(void *ctx, const char *s, size_t n)
{
	struct out *o = ctx;
	char *ns = realloc(o->s, o->n + n + 1);
	if (!ns)
		abort();
	o->s = ns;
	memcpy(o->s + o->n, s, n);
	o->n += n;
	o->s[o->n] = '\0';
}

static int64_t count(struct json_object *root, const char *key)
{
	struct json_object *counts, *v;
	if (!json_object_object_get_ex(root, "counts", &counts) ||
	    !json_object_object_get_ex(counts, key, &v))
		abort();
	return json_object_get_int64(v);
}

static void check_json(const struct p2ps_fleet *f, const struct out *json)
{
	struct json_object *root = json_tokener_parse(json->s);
	if (!root || count(root, "hosts") != (int64_t)f->n_hosts ||
	    count(root, "skipped") != (int64_t)f->n_skipped ||
	    count(root, "documents") != (int64_t)f->n_documents)
		abort();
	json_object_put(root);
}

static void check_csv(const struct p2ps_fleet *f, const struct out *csv)
{
	/* Quoted fields may hold line breaks, but never "\r\n": that ends a row. */
	size_t rows = 0;
	for (const char *p = csv->s; (p = strstr(p, "\r\n")); p += 2)
		rows++;
	if (rows != 1 + f->n_hosts + f->n_skipped + f->n_missing)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p2ps_fleet_opts o = {.threads = 1, .tool_version = "fuzz"};
	struct p2ps_fleet *f = p2ps_fleet_new(&o);
	struct p2ps_error err = {0};
	struct out text = {0}, json = {0}, csv = {0};
	if (!f)
		return 0;
	if (p2ps_fleet_add_buffer(f, "fuzz", (const char *)data, size, &err) < 0 ||
	    p2ps_fleet_expect(f, "vm", &err) < 0 || p2ps_fleet_expect(f, "gpu7.lab", &err) < 0 ||
	    p2ps_fleet_finish(f, &err) < 0)
		abort(); /* only out of memory fails, which the fuzzer's limits do not reach */
	if (f->n_documents != f->n_hosts + f->n_skipped)
		abort();
	if (p2ps_fleet_render_text(f, sink, &text, &err) < 0 ||
	    p2ps_fleet_render_json(f, sink, &json, &err) < 0 ||
	    p2ps_fleet_render_csv(f, sink, &csv, &err) < 0)
		abort();
	check_json(f, &json);
	check_csv(f, &csv);
	free(text.s);
	free(json.s);
	free(csv.s);
	p2ps_fleet_free(f);
	return 0;
}
