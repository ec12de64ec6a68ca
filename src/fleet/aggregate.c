/* SPDX-License-Identifier: MIT */
/* What the fleet has in common: the same cause on many hosts (grouped, with its fix), and
 * hosts that differ from most hosts with the same GPU model (drift). */
#include "fleet_internal.h"

#include <json-c/linkhash.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The title of a reason code, from the caller's reason table; NULL shows the code. */
static const char *code_title(const struct p2ps_fleet *f, const char *code)
{
	return f->priv->opts.reason_title ? f->priv->opts.reason_title(code) : NULL;
}

/* Hash keys made while aggregating; freed at the end. */
struct keys {
	char **v;
	size_t n, cap;
	bool oom;
};

static char *keep_key(struct keys *k, char *s)
{
	if (!s || !p2ps_grow((void **)&k->v, &k->cap, k->n + 1, sizeof(char *))) {
		free(s);
		k->oom = true;
		return NULL;
	}
	return k->v[k->n++] = s;
}

static void keys_free(struct keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i]);
	free(k->v);
}

struct group_priv {
	size_t cap_hosts;
	const char *fix_from; /* the host the shown fix came from */
};

static bool group_add(struct p2ps_fleet_group *g, struct group_priv *gp, size_t host_idx,
                      const struct p2ps_fleet_host *h, const struct p2ps_fleet_cause *c)
{
	if (!p2ps_grow((void **)&g->hosts, &gp->cap_hosts, g->n_hosts + 1, sizeof(size_t)))
		return false;
	g->hosts[g->n_hosts++] = host_idx;
	if (c->fix && !g->fix) {
		g->fix = c->fix;
		gp->fix_from = h->name;
	}
	if (c->fix && (c->fix_varies || strcmp(c->fix, g->fix)))
		g->fix_host = gp->fix_from;
	return true;
}

static int group_cmp(const void *a, const void *b)
{
	const struct p2ps_fleet_group *x = a, *y = b;
	if (x->severity != y->severity)
		return x->severity < y->severity ? -1 : 1;
	if (x->n_hosts != y->n_hosts)
		return x->n_hosts > y->n_hosts ? -1 : 1;
	int c = strcmp(x->code, y->code);
	if (c)
		return c;
	return strcmp(x->subject ? x->subject : "", y->subject ? y->subject : "");
}

/* Finds or makes the group of one cause; returns its index or -1 when out of memory. */
static long group_of(struct p2ps_fleet *f, struct lh_table *t, struct keys *k,
                     struct group_priv **gp, size_t *cap, size_t *gp_cap,
                     const struct p2ps_fleet_cause *c)
{
	bool oom = false;
	char *key = fl_printf(&oom, "%d\x1f%s\x1f%s", (int)c->severity, c->code,
	                      c->subject ? c->subject : "");
	if (!key)
		return -1;
	struct lh_entry *e = lh_table_lookup_entry(t, key);
	if (e) {
		free(key);
		return (long)(uintptr_t)lh_entry_v(e);
	}
	size_t n = f->n_groups;
	if (!keep_key(k, key) || !p2ps_grow((void **)&f->groups, cap, n + 1, sizeof(*f->groups)) ||
	    !p2ps_grow((void **)gp, gp_cap, n + 1, sizeof(**gp)) ||
	    !*gp) /* !*gp: for the analyzer */
		return -1;
	f->groups[n] = (struct p2ps_fleet_group){.code = c->code,
	                                         .subject = c->subject,
	                                         .severity = c->severity,
	                                         .title = code_title(f, c->code)};
	(*gp)[n] = (struct group_priv){0};
	f->n_groups++;
	if (lh_table_insert(t, key, (void *)(uintptr_t)n) != 0)
		return -1;
	return (long)n;
}

static bool make_groups(struct p2ps_fleet *f)
{
	struct lh_table *t = lh_kchar_table_new(64, NULL);
	struct keys k = {0};
	struct group_priv *gp = NULL;
	size_t cap = 0, gp_cap = 0;
	bool ok = t != NULL;
	for (size_t i = 0; ok && i < f->n_hosts; i++) {
		const struct p2ps_fleet_host *h = &f->hosts[i];
		for (size_t j = 0; ok && j < h->n_causes; j++) {
			long g = group_of(f, t, &k, &gp, &cap, &gp_cap, &h->causes[j]);
			/* gp is non-NULL once group_of returned an index; the test tells the
			 * analyzer, which lets the first lookup hit in the empty table. */
			ok = g >= 0 && gp && group_add(&f->groups[g], &gp[g], i, h, &h->causes[j]);
		}
	}
	if (ok && f->n_groups > 1)
		qsort(f->groups, f->n_groups, sizeof(*f->groups), group_cmp);
	free(gp);
	keys_free(&k);
	if (t)
		lh_table_free(t);
	return ok && !k.oom;
}

/* How often each value of one fact occurs among one GPU model's GPUs (or hosts). */
struct tally {
	struct {
		char *value;
		size_t count;
	} * v;
	size_t n, cap, total, top; /* top: index of the most frequent value */
};

/* Facts compared within a GPU model. The trained link speed is not one: NVIDIA GPUs drop
 * to 2.5 GT/s when idle, so it differs between identical hosts from minute to minute. */
enum { FACT_WIDTH, FACT_LINK_CAP, FACT_BAR1, FACT_DRIVER, FACT_KERNEL, N_FACTS };
static const char *const fact_names[N_FACTS] = {"link width", "link capability", "BAR1", "driver",
                                                "kernel"};

/* The value of fact for GPU g of host h (host-wide facts for g == 0 only); false if
 * unknown or not applicable. */
static bool fact_value(const struct p2ps_fleet_host *h, size_t g, int fact, char *buf, size_t n)
{
	const struct p2ps_fleet_gpu *gpu = &h->gpus[g];
	switch (fact) {
	case FACT_WIDTH: return gpu->width && snprintf(buf, n, "x%d", gpu->width) > 0;
	case FACT_LINK_CAP:
		return gpu->cap_width && gpu->cap_speed_gts > 0 &&
		       snprintf(buf, n, "%g GT/s x%d", gpu->cap_speed_gts, gpu->cap_width) > 0;
	case FACT_BAR1:
		if (gpu->bar1_size < 0)
			return false;
		fl_size_str(buf, n, gpu->bar1_size);
		return true;
	default: {
		const char *v = fact == FACT_DRIVER ? h->driver : h->kernel;
		return g == 0 && v && snprintf(buf, n, "%s", v) >= 0;
	}
	}
}

struct drift_ctx {
	struct lh_table *t;
	struct keys keys;
	struct tally **tallies;
	size_t n_tallies, cap_tallies, cap_drift;
};

static struct tally *tally_of(struct drift_ctx *d, const char *model, int fact)
{
	bool oom = false;
	char *key = fl_printf(&oom, "%s\x1f%d", model, fact);
	if (!key)
		return NULL;
	struct lh_entry *e = lh_table_lookup_entry(d->t, key);
	if (e) {
		free(key);
		return lh_entry_v(e);
	}
	struct tally *ty = calloc(1, sizeof(*ty));
	/* d->tallies holds pointers: the element size is a pointer's, on purpose. */
	if (!ty || !keep_key(&d->keys, key) ||
	    !p2ps_grow((void **)&d->tallies, &d->cap_tallies, d->n_tallies + 1,
	               sizeof(*d->tallies))) { // NOLINT(bugprone-sizeof-expression): above
		free(ty);
		return NULL;
	}
	d->tallies[d->n_tallies++] = ty;
	return lh_table_insert(d->t, key, ty) == 0 ? ty : NULL;
}

static bool tally_add(struct tally *ty, const char *value)
{
	ty->total++;
	for (size_t i = 0; i < ty->n; i++) {
		if (!strcmp(ty->v[i].value, value)) {
			if (++ty->v[i].count > ty->v[ty->top].count)
				ty->top = i;
			return true;
		}
	}
	if (!p2ps_grow((void **)&ty->v, &ty->cap, ty->n + 1, sizeof(*ty->v)))
		return false;
	bool oom = false;
	ty->v[ty->n].value = fl_strdup(value, &oom);
	ty->v[ty->n].count = 1;
	ty->n += !oom;
	return !oom;
}

static bool add_drift(struct p2ps_fleet *f, struct drift_ctx *d, size_t host, size_t g, int fact,
                      const char *value, const struct tally *ty)
{
	const struct p2ps_fleet_host *h = &f->hosts[host];
	if (!p2ps_grow((void **)&f->drift, &d->cap_drift, f->n_drift + 1, sizeof(*f->drift)))
		return false;
	bool oom = false;
	f->drift[f->n_drift++] =
	        (struct p2ps_fleet_drift){.model = h->gpus[g].model,
	                                  .host = host,
	                                  .bdf = fact < FACT_DRIVER ? h->gpus[g].bdf : NULL,
	                                  .fact = fact_names[fact],
	                                  .value = fl_strdup(value, &oom),
	                                  .majority = fl_strdup(ty->v[ty->top].value, &oom),
	                                  .n_majority = ty->v[ty->top].count,
	                                  .n_total = ty->total};
	return !oom;
}

/* Pass 0 counts every value; pass 1 reports the values that differ from a strict
 * majority (more than half) of their model's GPUs or hosts. */
static bool drift_pass(struct p2ps_fleet *f, struct drift_ctx *d, int pass)
{
	char value[128];
	for (size_t i = 0; i < f->n_hosts; i++) {
		const struct p2ps_fleet_host *h = &f->hosts[i];
		for (size_t g = 0; g < h->n_gpus; g++) {
			for (int fact = 0; fact < N_FACTS; fact++) {
				/* host-wide facts are compared among hosts of the first GPU's model
				 */
				if (!fact_value(h, g, fact, value, sizeof(value)))
					continue;
				struct tally *ty = tally_of(d, h->gpus[g].model, fact);
				if (!ty)
					return false;
				if (pass == 0 && !tally_add(ty, value))
					return false;
				if (pass == 1 && 2 * ty->v[ty->top].count > ty->total &&
				    strcmp(value, ty->v[ty->top].value) &&
				    !add_drift(f, d, i, g, fact, value, ty))
					return false;
			}
		}
	}
	return true;
}

static int drift_cmp(const void *a, const void *b)
{
	const struct p2ps_fleet_drift *x = a, *y = b;
	int c = strcmp(x->model, y->model);
	if (c)
		return c;
	if ((c = strcmp(x->fact, y->fact)))
		return c;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return strcmp(x->bdf ? x->bdf : "", y->bdf ? y->bdf : "");
}

static bool find_drift(struct p2ps_fleet *f)
{
	struct drift_ctx d = {.t = lh_kchar_table_new(64, NULL)};
	bool ok = d.t && drift_pass(f, &d, 0) && drift_pass(f, &d, 1);
	if (ok && f->n_drift > 1)
		qsort(f->drift, f->n_drift, sizeof(*f->drift), drift_cmp);
	for (size_t i = 0; i < d.n_tallies; i++) {
		for (size_t j = 0; j < d.tallies[i]->n; j++)
			free(d.tallies[i]->v[j].value);
		free(d.tallies[i]->v);
		free(d.tallies[i]);
	}
	free(d.tallies);
	keys_free(&d.keys);
	if (d.t)
		lh_table_free(d.t);
	return ok && !d.keys.oom;
}

bool fl_aggregate(struct p2ps_fleet *f)
{
	return make_groups(f) && find_drift(f);
}

void fl_aggregate_free(struct p2ps_fleet *f)
{
	for (size_t i = 0; i < f->n_groups; i++)
		free(f->groups[i].hosts);
	for (size_t i = 0; i < f->n_drift; i++) {
		free(f->drift[i].value);
		free(f->drift[i].majority);
	}
	free(f->groups);
	free(f->drift);
	f->groups = NULL;
	f->drift = NULL;
	f->n_groups = f->n_drift = 0;
}
