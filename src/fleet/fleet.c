/* SPDX-License-Identifier: MIT */
/* The fleet: collecting hosts, then one pass that drops duplicates, sorts, finds the
 * expected hosts without a report and counts (include/p2pscope/fleet.h). */
#include "fleet_internal.h"

#include <json-c/linkhash.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *p2ps_fleet_status_name(enum p2ps_fleet_status s)
{
	switch (s) {
	case P2PS_FLEET_NOT_READY: return "not ready";
	case P2PS_FLEET_UNKNOWN: return "unknown";
	case P2PS_FLEET_READY: return "ready";
	case P2PS_FLEET_NO_PAIR: return "no pair";
	}
	return "?";
}

const char *p2ps_fleet_skip_name(enum p2ps_fleet_skip_kind k)
{
	static const char *const names[] = {[P2PS_FLEET_SKIP_UNREADABLE] = "unreadable",
	                                    [P2PS_FLEET_SKIP_MALFORMED] = "malformed",
	                                    [P2PS_FLEET_SKIP_TRUNCATED] = "truncated",
	                                    [P2PS_FLEET_SKIP_NOT_REPORT] = "not a report",
	                                    [P2PS_FLEET_SKIP_VERSION] = "version",
	                                    [P2PS_FLEET_SKIP_DUPLICATE] = "duplicate",
	                                    [P2PS_FLEET_SKIP_SUPERSEDED] = "superseded",
	                                    [P2PS_FLEET_SKIP_EMPTY] = "empty",
	                                    [P2PS_FLEET_SKIP_SNAPSHOT] = "snapshot"};
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

struct p2ps_fleet *p2ps_fleet_new(const struct p2ps_fleet_opts *o)
{
	struct p2ps_fleet *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->priv = calloc(1, sizeof(*f->priv));
	if (!f->priv) {
		free(f);
		return NULL;
	}
	if (o)
		f->priv->opts = *o;
	return f;
}

void p2ps_fleet_free(struct p2ps_fleet *f)
{
	if (!f)
		return;
	fl_aggregate_free(f);
	for (size_t i = 0; i < f->n_hosts; i++)
		fl_host_free(&f->hosts[i]);
	for (size_t i = 0; i < f->n_skipped; i++)
		fl_skip_free(&f->skipped[i]);
	for (size_t i = 0; i < f->priv->n_expected; i++)
		free(f->priv->expected[i]);
	free(f->hosts);
	free(f->skipped);
	free(f->missing); /* its names point into expected[] */
	free(f->priv->expected);
	free(f->priv);
	free(f);
}

static int merged(struct p2ps_fleet *f, struct fl_batch *b, struct p2ps_error *err)
{
	bool ok = fl_batch_merge(f, b);
	fl_batch_free(b);
	return ok ? 0 : p2ps_error_set(err, P2PS_ENOMEM, "out of memory reading reports");
}

int p2ps_fleet_add_buffer(struct p2ps_fleet *f, const char *name, const char *buf, size_t len,
                          struct p2ps_error *err)
{
	struct fl_batch b = {0};
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory reading reports");
	fl_read_stream(&b, tok, name, buf, len);
	json_tokener_free(tok);
	return merged(f, &b, err);
}

int p2ps_fleet_add_report(struct p2ps_fleet *f, const char *source, struct json_object *root,
                          struct p2ps_error *err)
{
	struct fl_batch b = {0};
	fl_read_report(&b, source, root);
	return merged(f, &b, err);
}

int p2ps_fleet_expect(struct p2ps_fleet *f, const char *name, struct p2ps_error *err)
{
	struct p2ps_fleet_priv *p = f->priv;
	bool oom = false;
	char *copy = fl_strdup(name, &oom);
	if (!copy || !p2ps_grow((void **)&p->expected, &p->cap_expected, p->n_expected + 1,
	                        sizeof(char *))) {
		free(copy);
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	}
	p->expected[p->n_expected++] = copy;
	return 0;
}

/* Is a newer than b? By the time the facts were read; a report without one is older. */
static bool newer(const struct p2ps_fleet_host *a, const struct p2ps_fleet_host *b)
{
	if (a->time && b->time)
		return strcmp(a->time, b->time) > 0;
	return a->time && !b->time;
}

static bool same_boot(const struct p2ps_fleet_host *a, const struct p2ps_fleet_host *b)
{
	if (a->boot_id && b->boot_id)
		return !strcmp(a->boot_id, b->boot_id);
	if (a->boot_id || b->boot_id)
		return false;
	return a->time && b->time && !strcmp(a->time, b->time);
}

/* Turns the dropped host into a skipped entry that names the report kept. */
static bool drop_host(struct fl_batch *b, const struct p2ps_fleet_host *gone,
                      const struct p2ps_fleet_host *kept)
{
	if (!gone->boot_id && !gone->time && !kept->boot_id && !kept->time)
		fl_batch_skip(b, gone->source, P2PS_FLEET_SKIP_DUPLICATE,
		              "same hostname %s as the report in %s, and neither report has a boot "
		              "id or time to tell them apart (the first is counted)",
		              kept->name, kept->source);
	else if (same_boot(gone, kept))
		fl_batch_skip(b, gone->source, P2PS_FLEET_SKIP_DUPLICATE,
		              "duplicate of %s's report in %s (same %s)", kept->name, kept->source,
		              kept->boot_id ? "boot id" : "time");
	else
		fl_batch_skip(
		        b, gone->source, P2PS_FLEET_SKIP_SUPERSEDED,
		        "older report of %s (time %s, boot %s) than the one in %s (time %s, boot "
		        "%s)",
		        gone->name, gone->time ? gone->time : "unknown",
		        gone->boot_id ? gone->boot_id : "unknown", kept->source,
		        kept->time ? kept->time : "unknown",
		        kept->boot_id ? kept->boot_id : "unknown");
	return !b->oom;
}

/* One report per hostname: the newest; the others become skipped entries. */
static bool dedupe(struct p2ps_fleet *f)
{
	struct lh_table *seen =
	        lh_kchar_table_new(f->n_hosts > 8 ? (int)(f->n_hosts * 2) : 16, NULL);
	bool *dead = calloc(f->n_hosts ? f->n_hosts : 1, sizeof(bool));
	struct fl_batch b = {0};
	bool ok = seen && dead;
	for (size_t i = 0; ok && i < f->n_hosts; i++) {
		struct lh_entry *e = lh_table_lookup_entry(seen, f->hosts[i].name);
		if (!e) {
			ok = lh_table_insert(seen, f->hosts[i].name, (void *)(uintptr_t)i) == 0;
			continue;
		}
		size_t j = (size_t)(uintptr_t)lh_entry_v(e);
		size_t keep = newer(&f->hosts[i], &f->hosts[j]) ? i : j, gone = keep == i ? j : i;
		dead[gone] = true;
		ok = drop_host(&b, &f->hosts[gone], &f->hosts[keep]);
		if (keep == i) /* the key stays valid: hosts[j] is freed only after the loop */
			lh_entry_set_val(e, (void *)(uintptr_t)i);
	}
	size_t n = 0;
	for (size_t i = 0; ok && i < f->n_hosts; i++) {
		if (dead[i])
			fl_host_free(&f->hosts[i]);
		else
			f->hosts[n++] = f->hosts[i];
	}
	if (ok) {
		f->n_hosts = n;
		f->n_documents -= b.n_skips; /* these were counted once already, as hosts */
		ok = fl_batch_merge(f, &b);
	}
	fl_batch_free(&b);
	if (seen)
		lh_table_free(seen);
	free(dead);
	return ok;
}

static int host_cmp(const void *a, const void *b)
{
	const struct p2ps_fleet_host *x = a, *y = b;
	if (x->status != y->status)
		return x->status < y->status ? -1 : 1;
	return strverscmp(x->name, y->name);
}

/* The key a host and an expected name are matched by: the base name up to the first '.'
 * ("gpu7" of "gpu7.example.org" and of "reports/gpu7.json"), or all of it when that
 * part is a number (an IP address). */
static char *match_key(const char *s, bool *oom)
{
	const char *base = strrchr(s, '/');
	base = base ? base + 1 : s;
	size_t n = strcspn(base, ".#");
	if (base[n] == '.' && strspn(base, "0123456789") == n)
		n = strcspn(base, "#");
	return fl_printf(oom, "%.*s", (int)n, base);
}

/* Expected names that match neither a host's name nor its report's file name. */
static bool find_missing(struct p2ps_fleet *f)
{
	struct p2ps_fleet_priv *p = f->priv;
	if (!p->n_expected)
		return true;
	size_t nkeys = 2 * f->n_hosts;
	char **keys = calloc(nkeys ? nkeys : 1, sizeof(char *));
	struct lh_table *t = lh_kchar_table_new((int)nkeys + 16, NULL);
	f->missing = calloc(p->n_expected, sizeof(char *));
	bool oom = !keys || !t || !f->missing;
	for (size_t i = 0; !oom && i < f->n_hosts; i++) {
		keys[2 * i] = match_key(f->hosts[i].name, &oom);
		keys[2 * i + 1] = match_key(f->hosts[i].source, &oom);
		for (size_t k = 2 * i; k <= 2 * i + 1 && !oom; k++)
			if (!lh_table_lookup_entry(t, keys[k]))
				oom = lh_table_insert(t, keys[k], NULL) != 0;
	}
	for (size_t i = 0; !oom && i < p->n_expected; i++) {
		char *k = match_key(p->expected[i], &oom);
		if (k && !lh_table_lookup_entry(t, k))
			f->missing[f->n_missing++] = p->expected[i];
		free(k);
	}
	for (size_t i = 0; keys && i < nkeys; i++)
		free(keys[i]);
	free(keys);
	if (t)
		lh_table_free(t);
	return !oom;
}

int p2ps_fleet_finish(struct p2ps_fleet *f, struct p2ps_error *err)
{
	if (f->priv->finished)
		return p2ps_error_set(err, P2PS_EINVAL, "the fleet summary is already finished");
	f->priv->finished = true;
	if (!dedupe(f) || !find_missing(f))
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory summarising the fleet");
	if (f->n_hosts > 1)
		qsort(f->hosts, f->n_hosts, sizeof(*f->hosts), host_cmp);
	for (size_t i = 0; i < f->n_hosts; i++) {
		f->by_status[f->hosts[i].status]++;
		f->n_moot += f->hosts[i].moot;
	}
	if (!fl_aggregate(f))
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory summarising the fleet");
	return 0;
}
