/* SPDX-License-Identifier: MIT */
/* One bar-inspect --json document (schema in docs/bar-inspect.md) into a fleet host.
 *
 * Only what the summary needs is read, but what is read is checked: a member of the
 * wrong type makes the whole report "malformed" with the member's path, so a damaged
 * report is named instead of half-counted. Absent members and JSON null mean unknown,
 * which is how reports from older bar-inspect versions (without boot id, time, kernel)
 * are read. */
#include "fleet_internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rd {
	char err[256]; /* the first type error, "" if none */
	bool oom;
};

/* A device's label, for GPU models and for naming the bridge of an ACS finding. */
struct label {
	const char *bdf;
	char *model;
};

struct labels {
	struct label *v;
	size_t n, cap;
};

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v; /* NULL also for JSON null */
}

static void wrong(struct rd *r, const char *path, const char *key, const char *want)
{
	if (!r->err[0])
		snprintf(r->err, sizeof(r->err), "%s%s%s: expected %s", path, path[0] ? "." : "",
		         key, want);
}

static struct json_object *typed(struct rd *r, struct json_object *o, const char *path,
                                 const char *key, json_type t, const char *want)
{
	struct json_object *v = member(o, key);
	if (v && !json_object_is_type(v, t)) {
		wrong(r, path, key, want);
		return NULL;
	}
	return v;
}

static const char *str_at(struct rd *r, struct json_object *o, const char *path, const char *key)
{
	struct json_object *v = typed(r, o, path, key, json_type_string, "a string or null");
	return v ? json_object_get_string(v) : NULL;
}

static int64_t int_at(struct rd *r, struct json_object *o, const char *path, const char *key,
                      int64_t unknown)
{
	struct json_object *v = typed(r, o, path, key, json_type_int, "an integer or null");
	return v ? json_object_get_int64(v) : unknown;
}

static double num_at(struct rd *r, struct json_object *o, const char *path, const char *key)
{
	struct json_object *v = member(o, key);
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
		wrong(r, path, key, "a number or null");
		return 0;
	}
	return json_object_get_double(v);
}

static int bool_at(struct rd *r, struct json_object *o, const char *path, const char *key)
{
	struct json_object *v = typed(r, o, path, key, json_type_boolean, "true, false or null");
	return v ? json_object_get_boolean(v) : -1;
}

static struct json_object *obj_at(struct rd *r, struct json_object *o, const char *path,
                                  const char *key)
{
	return typed(r, o, path, key, json_type_object, "an object or null");
}

static struct json_object *arr_at(struct rd *r, struct json_object *o, const char *path,
                                  const char *key)
{
	return typed(r, o, path, key, json_type_array, "an array or null");
}

static const char *label_of(const struct labels *l, const char *bdf)
{
	for (size_t i = 0; bdf && i < l->n; i++)
		if (!strcmp(l->v[i].bdf, bdf))
			return l->v[i].model;
	return NULL;
}

/* What a finding is about, across hosts: the IOMMU kind for IOMMU findings, the device
 * model (bridge or GPU) for ACS, BAR and link findings; NULL for the rest. */
static const char *subject_of(const char *code, const char *device, const struct labels *l,
                              const char *iommu_kind)
{
	if (!strncmp(code, "iommu_", 6))
		return iommu_kind;
	if (!strncmp(code, "acs_", 4) || !strncmp(code, "bar", 3) || !strncmp(code, "link_", 5))
		return label_of(l, device);
	return NULL;
}

/* The index of s in names[0..n), or -1. */
static int find(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* A report's severity as enum p2ps_fleet_severity; -1 for "info" (not a cause), -2 for
 * anything else. */
static int severity_of(const char *s)
{
	static const char *const names[] = {[P2PS_FLEET_SEV_BLOCKER] = "blocker",
	                                    [P2PS_FLEET_SEV_UNKNOWN] = "unknown",
	                                    [P2PS_FLEET_SEV_WARNING] = "warning"};
	int i = find(s, names, 3);
	return i >= 0 ? i : !strcmp(s, "info") ? -1 : -2;
}

static void add_cause(struct rd *r, struct p2ps_fleet_host *h, struct p2ps_fleet_cause *c,
                      size_t *cap)
{
	for (size_t i = 0; i < h->n_causes; i++) {
		struct p2ps_fleet_cause *o = &h->causes[i];
		if (!strcmp(o->code, c->code) &&
		    (o->subject && c->subject ? !strcmp(o->subject, c->subject)
		                              : o->subject == c->subject)) {
			o->count++;
			if (c->fix && o->fix && strcmp(c->fix, o->fix))
				o->fix_varies = true;
			/* keep the text and fix of the most severe occurrence */
			if (c->severity < o->severity || (!o->fix && c->fix)) {
				free(o->fix);
				free(o->text);
				o->fix = fl_strdup(c->fix, &r->oom);
				o->text = fl_strdup(c->text, &r->oom);
			}
			if (c->severity < o->severity)
				o->severity = c->severity;
			return;
		}
	}
	if (!p2ps_grow((void **)&h->causes, cap, h->n_causes + 1, sizeof(*h->causes))) {
		r->oom = true;
		return;
	}
	struct p2ps_fleet_cause *n = &h->causes[h->n_causes++];
	*n = (struct p2ps_fleet_cause){.severity = c->severity, .count = 1};
	n->code = fl_strdup(c->code, &r->oom);
	n->subject = fl_strdup(c->subject, &r->oom);
	n->fix = fl_strdup(c->fix, &r->oom);
	n->text = fl_strdup(c->text, &r->oom);
}

struct ctx {
	struct rd *r;
	struct p2ps_fleet_host *h;
	const struct labels *labels;
	const char *iommu_kind;
	size_t cap_causes;
};

static void read_reasons(struct ctx *x, struct json_object *arr, const char *path)
{
	char p[96];
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (!json_object_is_type(o, json_type_object)) {
			wrong(x->r, "", p, "a reason object");
			return;
		}
		const char *code = str_at(x->r, o, p, "code");
		const char *sev = str_at(x->r, o, p, "severity");
		if (!code || !sev) {
			wrong(x->r, p, code ? "severity" : "code", "a string");
			return;
		}
		int s = severity_of(sev);
		if (s == -2)
			wrong(x->r, p, "severity", "blocker, unknown, warning or info");
		const char *dev = str_at(x->r, o, p, "device");
		const char *fix = str_at(x->r, o, p, "fix"), *text = str_at(x->r, o, p, "text");
		if (s < 0 || x->r->err[0])
			continue; /* info findings do not make causes */
		struct p2ps_fleet_cause c = {
		        .code = (char *)code,
		        .subject = (char *)subject_of(code, dev, x->labels, x->iommu_kind),
		        .severity = (enum p2ps_fleet_severity)s,
		        .fix = (char *)fix,
		        .text = (char *)text};
		add_cause(x->r, x->h, &c, &x->cap_causes);
	}
}

/* "GH100 [10de:2335]": the chip bar-inspect's table names (the same on every host of a
 * bar-inspect version), else the pci.ids device name, with the ids. */
static char *model_of(struct rd *r, struct json_object *d, const char *p)
{
	struct json_object *chip = obj_at(r, d, p, "chip");
	const char *name = chip ? str_at(r, chip, p, "name") : NULL;
	if (!name)
		name = str_at(r, d, p, "device_name");
	int64_t ven = int_at(r, d, p, "vendor_id", -1);
	int64_t dev = int_at(r, d, p, "device_id", -1);
	if (ven < 0 || dev < 0)
		return fl_printf(&r->oom, "%s", name ? name : "unknown device");
	return fl_printf(&r->oom, "%s%s[%04llx:%04llx]", name ? name : "", name ? " " : "",
	                 (unsigned long long)ven & 0xffff, (unsigned long long)dev & 0xffff);
}

static void read_gpu(struct ctx *x, struct json_object *d, struct json_object *gpu, const char *p,
                     size_t *cap_gpus)
{
	struct rd *r = x->r;
	struct p2ps_fleet_host *h = x->h;
	char gp[64], lp[96];
	snprintf(gp, sizeof(gp), "%s.gpu", p);
	snprintf(lp, sizeof(lp), "%s.link", p);
	if (!p2ps_grow((void **)&h->gpus, cap_gpus, h->n_gpus + 1, sizeof(*h->gpus))) {
		r->oom = true;
		return;
	}
	struct p2ps_fleet_gpu *g = &h->gpus[h->n_gpus++];
	*g = (struct p2ps_fleet_gpu){0};
	g->bdf = fl_strdup(str_at(r, d, p, "bdf"), &r->oom);
	g->model = model_of(r, d, p);
	g->is_gpu = bool_at(r, gpu, gp, "is_gpu") != 0; /* absent before --peers existed */
	g->bar1_size = int_at(r, gpu, gp, "bar1_size", -1);
	g->vram = int_at(r, gpu, gp, "vram", -1);
	g->bar1_size = g->bar1_size < 0 ? -1 : g->bar1_size;
	g->vram = g->vram < 0 ? -1 : g->vram;
	g->bar1_covers_vram = bool_at(r, gpu, gp, "bar1_covers_vram");
	g->iommu_mode = fl_strdup(str_at(r, gpu, gp, "iommu_mode"), &r->oom);
	struct json_object *link = obj_at(r, d, p, "link");
	int64_t w = int_at(r, link, lp, "width", 0), cw = int_at(r, link, lp, "cap_width", 0);
	g->width = w > 0 && w <= 1024 ? (int)w : 0;
	g->cap_width = cw > 0 && cw <= 1024 ? (int)cw : 0;
	g->speed_gts = num_at(r, link, lp, "speed_gts");
	g->cap_speed_gts = num_at(r, link, lp, "cap_speed_gts");
	snprintf(lp, sizeof(lp), "%s.reasons", gp);
	read_reasons(x, arr_at(r, gpu, gp, "reasons"), lp);
}

/* Labels of the devices (and, when the report has them, of the bridges on the GPUs'
 * paths), so that a finding can name the model of the device it is about. */
static void read_labels(struct rd *r, struct json_object *arr, const char *what, struct labels *l)
{
	char p[48];
	for (size_t i = 0; arr && i < json_object_array_length(arr) && !r->err[0]; i++) {
		struct json_object *d = json_object_array_get_idx(arr, i);
		snprintf(p, sizeof(p), "%s[%zu]", what, i);
		const char *bdf =
		        json_object_is_type(d, json_type_object) ? str_at(r, d, p, "bdf") : NULL;
		if (!bdf) {
			wrong(r, p, "bdf", "a string");
			return;
		}
		if (!p2ps_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v))) {
			r->oom = true;
			return;
		}
		l->v[l->n++] = (struct label){bdf, model_of(r, d, p)};
	}
}

/* Every label first (a GPU's ACS finding names a bridge that may come later in the
 * list), then the endpoints with their findings. */
static void read_devices(struct ctx *x, struct json_object *root, struct labels *l)
{
	struct rd *r = x->r;
	struct json_object *devs = member(root, "devices");
	read_labels(r, devs, "devices", l);
	read_labels(r, arr_at(r, root, "", "bridges"), "bridges", l);
	char p[48];
	size_t cap_gpus = 0;
	for (size_t i = 0; i < json_object_array_length(devs) && !r->err[0] && !r->oom; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		snprintf(p, sizeof(p), "devices[%zu]", i);
		struct json_object *gpu = obj_at(r, d, p, "gpu");
		if (gpu)
			read_gpu(x, d, gpu, p, &cap_gpus);
	}
}

/* The host's identity and software; returns the IOMMU kind ("intel", "amd", ...). */
static const char *read_host(struct ctx *x, struct json_object *host, int *iommu_known,
                             int *iommu_present)
{
	struct rd *r = x->r;
	struct p2ps_fleet_host *h = x->h;
	h->boot_id = fl_strdup(str_at(r, host, "host", "boot_id"), &r->oom);
	h->time = fl_strdup(str_at(r, host, "host", "time"), &r->oom);
	h->kernel = fl_strdup(str_at(r, host, "host", "kernel"), &r->oom);
	h->backend = fl_strdup(str_at(r, host, "host", "backend"), &r->oom);
	h->config_limited = bool_at(r, host, "host", "config_limited") == 1;
	struct json_object *nv = obj_at(r, host, "host", "nvidia");
	const char *drv = str_at(r, nv, "host.nvidia", "module_version");
	if (!drv)
		drv = str_at(r, nv, "host.nvidia", "proc_driver_version");
	h->driver = fl_strdup(drv, &r->oom);
	struct json_object *iommu = obj_at(r, host, "host", "iommu");
	*iommu_known = bool_at(r, iommu, "host.iommu", "known");
	*iommu_present = bool_at(r, iommu, "host.iommu", "present");
	return str_at(r, iommu, "host.iommu", "kind");
}

/* A pair's verdict as the host status it leads to, or -1. */
static int verdict_rank(const char *v)
{
	static const char *const names[] = {[P2PS_FLEET_NOT_READY] = "not ready",
	                                    [P2PS_FLEET_UNKNOWN] = "unknown",
	                                    [P2PS_FLEET_READY] = "ready"};
	return find(v, names, 3);
}

static void read_pairs(struct ctx *x, struct json_object *pairs)
{
	struct rd *r = x->r;
	struct p2ps_fleet_host *h = x->h;
	char p[48], rp[64];
	int worst = P2PS_FLEET_NO_PAIR;
	bool all_moot = true;
	for (size_t i = 0; i < json_object_array_length(pairs) && !r->err[0]; i++) {
		struct json_object *o = json_object_array_get_idx(pairs, i);
		snprintf(p, sizeof(p), "pairs[%zu]", i);
		const char *v = json_object_is_type(o, json_type_object)
		                        ? str_at(r, o, p, "verdict")
		                        : NULL;
		int rank = v ? verdict_rank(v) : -1;
		if (rank < 0) {
			wrong(r, p, "verdict", "\"ready\", \"not ready\" or \"unknown\"");
			return;
		}
		bool moot = bool_at(r, o, p, "moot") == 1;
		h->n_pairs++;
		h->pairs_ready += rank == P2PS_FLEET_READY;
		h->pairs_not_ready += rank == P2PS_FLEET_NOT_READY;
		h->pairs_unknown += rank == P2PS_FLEET_UNKNOWN;
		h->pairs_moot += moot;
		if (rank < worst)
			all_moot = true;
		if (rank <= worst) {
			worst = rank;
			all_moot = all_moot && moot;
		}
		snprintf(rp, sizeof(rp), "%s.reasons", p);
		read_reasons(x, arr_at(r, o, p, "reasons"), rp);
	}
	h->status = (enum p2ps_fleet_status)worst;
	h->moot = h->n_pairs && all_moot;
}

/* A report of a paste carries the paste's own verdict ("paste": {"verdict": ...}): what the
 * paste shows beyond the host facts (a refused peer mapping, copies that failed), and
 * "unknown" where it shows no GPU pair. The host's status is the worse of the two. */
static void read_paste_verdict(struct ctx *x, struct json_object *paste)
{
	const char *v = paste ? str_at(x->r, paste, "paste", "verdict") : NULL;
	int rank = v ? verdict_rank(v) : -1;
	if (v && rank < 0) {
		wrong(x->r, "paste", "verdict", "\"ready\", \"not ready\" or \"unknown\"");
		return;
	}
	if (rank >= 0 && rank < (int)x->h->status)
		x->h->status = (enum p2ps_fleet_status)rank;
}

/* The IOMMU column: the GPUs' mode when they agree, "mixed" when not; the host's state
 * when no GPU says. */
static char *host_iommu(struct rd *r, const struct p2ps_fleet_host *h, int known, int present)
{
	const char *mode = NULL;
	for (size_t i = 0; i < h->n_gpus; i++) {
		const char *m = h->gpus[i].iommu_mode;
		if (m && mode && strcmp(m, mode))
			return fl_strdup("mixed", &r->oom);
		if (m)
			mode = m;
	}
	if (!mode)
		mode = known != 1 || present < 0 ? "unknown" : present ? "on" : "off";
	return fl_strdup(mode, &r->oom);
}

/* Blockers first, then unknowns, then warnings; by code and subject within each. */
static int cause_cmp(const void *a, const void *b)
{
	const struct p2ps_fleet_cause *x = a, *y = b;
	if (x->severity != y->severity)
		return x->severity < y->severity ? -1 : 1;
	int c = strcmp(x->code, y->code);
	return c ? c : strcmp(x->subject ? x->subject : "", y->subject ? y->subject : "");
}

/* The file name without folders and ".json": the host's name when the report has none. */
static char *name_from_source(struct rd *r, const char *source)
{
	const char *base = strrchr(source, '/');
	base = base ? base + 1 : source;
	const char *doc = strchr(base, '#'); /* "NAME.json#3": the third document */
	size_t n = doc ? (size_t)(doc - base) : strlen(base);
	if (n > 5 && !strncmp(base + n - 5, ".json", 5))
		n -= 5;
	return fl_printf(&r->oom, "%.*s%s", (int)n, base, doc ? doc : "");
}

/* The members every report has; returns false with the batch told why. */
static bool check_envelope(struct fl_batch *b, const char *source, struct json_object *root,
                           int *schema)
{
	if (!json_object_is_type(root, json_type_object)) {
		fl_batch_skip(b, source, P2PS_FLEET_SKIP_NOT_REPORT,
		              "the document is a JSON %s, not an object",
		              json_type_to_name(json_object_get_type(root)));
		return false;
	}
	struct json_object *tool = member(root, "tool"), *sv = member(root, "schema_version");
	if (!tool || !json_object_is_type(tool, json_type_string) ||
	    strcmp(json_object_get_string(tool), "bar-inspect")) {
		fl_batch_skip(b, source, P2PS_FLEET_SKIP_NOT_REPORT,
		              "no \"tool\": \"bar-inspect\" member");
		return false;
	}
	struct json_object *kind = member(root, "kind");
	if (kind && json_object_is_type(kind, json_type_string) &&
	    !strcmp(json_object_get_string(kind), "fleet")) {
		fl_batch_skip(
		        b, source, P2PS_FLEET_SKIP_NOT_REPORT,
		        "a fleet summary (bar-inspect --fleet --json), not one host's report");
		return false;
	}
	if (!sv || !json_object_is_type(sv, json_type_int) || json_object_get_int64(sv) < 1) {
		fl_batch_skip(b, source, P2PS_FLEET_SKIP_MALFORMED,
		              "schema_version: expected a positive integer");
		return false;
	}
	if (json_object_get_int64(sv) > P2PS_FLEET_SCHEMA_MAX) {
		fl_batch_skip(b, source, P2PS_FLEET_SKIP_VERSION,
		              "schema_version %lld is newer than this bar-inspect reads (%d): "
		              "summarise with a bar-inspect at least as new as the hosts'",
		              (long long)json_object_get_int64(sv), P2PS_FLEET_SCHEMA_MAX);
		return false;
	}
	*schema = (int)json_object_get_int64(sv);
	const char *need[] = {"host", "devices", "pairs"};
	json_type types[] = {json_type_object, json_type_array, json_type_array};
	for (size_t i = 0; i < 3; i++) {
		if (!json_object_is_type(member(root, need[i]), types[i])) {
			fl_batch_skip(b, source, P2PS_FLEET_SKIP_MALFORMED, "%s: expected %s",
			              need[i], i ? "an array" : "an object");
			return false;
		}
	}
	return true;
}

void fl_read_report(struct fl_batch *b, const char *source, struct json_object *root)
{
	struct p2ps_fleet_host h = {0};
	if (!check_envelope(b, source, root, &h.schema_version))
		return;
	struct rd r = {0};
	struct labels labels = {0};
	struct ctx x = {.r = &r, .h = &h, .labels = &labels};
	struct json_object *host = member(root, "host");
	int known = -1, present = -1;
	x.iommu_kind = read_host(&x, host, &known, &present);
	const char *hostname = str_at(&r, host, "host", "hostname");
	h.name_from_source = !hostname || !hostname[0];
	h.name = h.name_from_source ? name_from_source(&r, source) : fl_strdup(hostname, &r.oom);
	h.source = fl_strdup(source, &r.oom);
	h.tool_version = fl_strdup(str_at(&r, root, "", "version"), &r.oom);
	read_devices(&x, root, &labels);
	read_reasons(&x, arr_at(&r, host, "host", "reasons"), "host.reasons");
	read_pairs(&x, member(root, "pairs"));
	read_paste_verdict(&x, member(root, "paste"));
	if (!r.err[0] && !r.oom)
		fl_read_gdr(&h, root, r.err, sizeof(r.err), &r.oom);
	h.iommu = host_iommu(&r, &h, known, present);
	if (h.n_causes > 1)
		qsort(h.causes, h.n_causes, sizeof(*h.causes), cause_cmp);
	for (size_t i = 0; i < labels.n; i++)
		free(labels.v[i].model);
	free(labels.v);
	if (r.oom || r.err[0]) {
		if (r.oom)
			b->oom = true;
		else
			fl_batch_skip(b, source, P2PS_FLEET_SKIP_MALFORMED, "%s", r.err);
		fl_host_free(&h);
		return;
	}
	fl_batch_host(b, &h);
}
