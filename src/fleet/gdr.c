/* SPDX-License-Identifier: MIT */
/* GPUDirect RDMA in the fleet summary: a report's gpudirect_rdma.pairs (bar-inspect
 * --json, docs/gpudirect.md) counted per host, and the pairs that are "not ready" counted
 * by the code of each blocker among their reasons. A pair blocked for two reasons counts
 * under both; a reason repeated within one pair (one per end of the pair) counts once. */
#include "fleet_internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

static bool bad(char *err, size_t n, const char *path, const char *want)
{
	snprintf(err, n, "%s: expected %s", path, want);
	return false;
}

static bool count(struct p2ps_fleet_host *h, size_t *cap, const char *code, bool *oom)
{
	for (size_t i = 0; i < h->n_gdr_reasons; i++)
		if (!strcmp(h->gdr_reasons[i].code, code)) {
			h->gdr_reasons[i].pairs++;
			return true;
		}
	if (!p2ps_grow((void **)&h->gdr_reasons, cap, h->n_gdr_reasons + 1,
	               sizeof(*h->gdr_reasons))) {
		*oom = true;
		return false;
	}
	struct p2ps_fleet_gdr_reason *r = &h->gdr_reasons[h->n_gdr_reasons];
	if (!(r->code = fl_strdup(code, oom)))
		return false;
	r->pairs = 1;
	h->n_gdr_reasons++;
	return true;
}

/* The blocker codes of one not-ready pair, each once. */
static bool blockers(struct p2ps_fleet_host *h, size_t *cap, struct json_object *reasons,
                     const char *path, char *err, size_t n, bool *oom)
{
	size_t len = json_object_array_length(reasons);
	for (size_t i = 0; i < len; i++) {
		struct json_object *o = json_object_array_get_idx(reasons, i);
		struct json_object *code = member(o, "code"), *sev = member(o, "severity");
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_is_type(code, json_type_string) ||
		    !json_object_is_type(sev, json_type_string))
			return bad(err, n, path, "reasons with string code and severity");
		if (strcmp(json_object_get_string(sev), "blocker"))
			continue;
		const char *c = json_object_get_string(code);
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			struct json_object *e = json_object_array_get_idx(reasons, k);
			seen = !strcmp(json_object_get_string(member(e, "severity")), "blocker") &&
			       !strcmp(json_object_get_string(member(e, "code")), c);
		}
		if (!seen && !count(h, cap, c, oom))
			return false;
	}
	return true;
}

static int most_first(const void *a, const void *b)
{
	const struct p2ps_fleet_gdr_reason *x = a, *y = b;
	if (x->pairs != y->pairs)
		return x->pairs > y->pairs ? -1 : 1;
	return strcmp(x->code, y->code);
}

bool fl_read_gdr(struct p2ps_fleet_host *h, struct json_object *root, char *err, size_t n,
                 bool *oom)
{
	struct json_object *g = member(root, "gpudirect_rdma");
	struct json_object *pairs = member(g, "pairs");
	size_t cap = 0;
	char path[64];
	if (g && !json_object_is_type(g, json_type_object))
		return bad(err, n, "gpudirect_rdma", "an object");
	if (!pairs)
		return true;
	if (!json_object_is_type(pairs, json_type_array))
		return bad(err, n, "gpudirect_rdma.pairs", "an array");
	for (size_t i = 0; i < json_object_array_length(pairs); i++) {
		struct json_object *p = json_object_array_get_idx(pairs, i);
		struct json_object *v = member(p, "verdict"), *reasons = member(p, "reasons");
		snprintf(path, sizeof(path), "gpudirect_rdma.pairs[%zu]", i);
		if (!json_object_is_type(p, json_type_object) ||
		    !json_object_is_type(v, json_type_string))
			return bad(err, n, path, "an object with a string verdict");
		if (reasons && !json_object_is_type(reasons, json_type_array))
			return bad(err, n, path, "a reasons array");
		h->gdr_pairs++;
		if (strcmp(json_object_get_string(v), "not ready"))
			continue;
		h->gdr_not_ready++;
		if (reasons && !blockers(h, &cap, reasons, path, err, n, oom))
			return false;
	}
	if (h->n_gdr_reasons > 1)
		qsort(h->gdr_reasons, h->n_gdr_reasons, sizeof(*h->gdr_reasons), most_first);
	return true;
}
