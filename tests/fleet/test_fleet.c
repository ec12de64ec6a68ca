/* SPDX-License-Identifier: MIT */
/* libp2psfleet on real bar-inspect reports: the 2 x H200 machine's live report
 * (docs/results/p2p-bench/2026-11-22-h200x2/bar-inspect.json) and the QEMU guest's
 * (tests/fixtures/qemu-switch/acs-on.live.json, an Intel IOMMU translating and ACS on
 * the root ports). Expected values are what those machines reported, not what this
 * library computes; variants are made by editing one fact of a real report. Damaged
 * input (every truncation point, corrupted bytes, wrong types, newer schemas,
 * duplicates) must be named and skipped, and every document counted. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2pscope/fleet.h"
#include "p2ps_test.h"

#define H200_REPORT "docs/results/p2p-bench/2026-11-22-h200x2/bar-inspect.json"
#define QEMU_REPORT "tests/fixtures/qemu-switch/acs-on.live.json"

static char *slurp(const char *rel, size_t *len)
{
	FILE *f = fopen(p2ps_test_src_path(rel), "rb");
	assert_non_null(f);
	static char buf[1 << 18];
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[*len] = '\0';
	char *copy = malloc(*len + 1);
	assert_non_null(copy);
	memcpy(copy, buf, *len + 1);
	return copy;
}

static struct json_object *load(const char *rel)
{
	struct json_object *o = json_object_from_file(p2ps_test_src_path(rel));
	assert_non_null(o);
	return o;
}

/* Sets path "a.b" (objects only) to v. */
static void set(struct json_object *root, const char *a, const char *b, struct json_object *v)
{
	struct json_object *o = root;
	if (b)
		assert_true(json_object_object_get_ex(root, a, &o));
	json_object_object_add(o, b ? b : a, v);
}

static struct json_object *gpu_of(struct json_object *root, size_t i)
{
	struct json_object *devs, *d;
	assert_true(json_object_object_get_ex(root, "devices", &devs));
	d = json_object_array_get_idx(devs, i);
	assert_non_null(d);
	return d;
}

static struct p2ps_fleet *fleet(void)
{
	struct p2ps_fleet_opts o = {.threads = 1, .tool_version = "test"};
	struct p2ps_fleet *f = p2ps_fleet_new(&o);
	assert_non_null(f);
	return f;
}

static void add(struct p2ps_fleet *f, const char *source, struct json_object *root)
{
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_fleet_add_report(f, source, root, &err), 0);
}

static void finish(struct p2ps_fleet *f)
{
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_fleet_finish(f, &err), 0);
	assert_int_equal(f->n_documents, f->n_hosts + f->n_skipped);
}

static void test_h200_report(void **state)
{
	(void)state;
	struct p2ps_fleet *f = fleet();
	const char *in[] = {p2ps_test_src_path(H200_REPORT)};
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_fleet_add_inputs(f, in, 1, &err), 0);
	finish(f);
	assert_int_equal(f->n_hosts, 1);
	const struct p2ps_fleet_host *h = &f->hosts[0];
	assert_string_equal(h->name, "vm");
	assert_int_equal(h->n_gpus, 2);
	assert_string_equal(h->gpus[0].model, "GH100 [10de:2335]");
	assert_int_equal(h->gpus[0].bar1_size, 256LL << 30);
	assert_int_equal(h->gpus[1].vram, 150754820096LL); /* NVML on that machine */
	assert_int_equal(h->gpus[0].width, 16);
	assert_int_equal(h->status, P2PS_FLEET_READY);
	assert_true(h->moot); /* NV18 between the two GPUs */
	assert_string_equal(h->iommu, "off");
	assert_string_equal(h->driver, "580.159.04");
	p2ps_fleet_free(f);
}

static const struct p2ps_fleet_cause *cause(const struct p2ps_fleet_host *h, const char *code)
{
	for (size_t i = 0; i < h->n_causes; i++)
		if (!strcmp(h->causes[i].code, code))
			return &h->causes[i];
	return NULL;
}

static void test_qemu_report(void **state)
{
	(void)state;
	struct p2ps_fleet *f = fleet();
	struct json_object *r = load(QEMU_REPORT);
	add(f, "guest.json", r);
	json_object_put(r);
	finish(f);
	const struct p2ps_fleet_host *h = &f->hosts[0];
	assert_string_equal(h->name, "p2ps-vm");
	assert_int_equal(h->status, P2PS_FLEET_NOT_READY);
	assert_int_equal(h->n_pairs, 3);
	assert_int_equal(h->pairs_not_ready, 2); /* the two PHB pairs; the PIX pair is ready */
	const struct p2ps_fleet_cause *c = cause(h, "iommu_translating");
	assert_non_null(c);
	assert_int_equal(c->severity, P2PS_FLEET_SEV_BLOCKER);
	assert_string_equal(c->subject, "intel");
	c = cause(h, "acs_redirect_root_port");
	assert_non_null(c);
	assert_string_equal(c->subject, "QEMU PCIe Root port [1b36:000c]");
	assert_string_equal(h->iommu, "translating");
	assert_true(f->n_groups >= 2);
	assert_string_equal(f->groups[0].code, "iommu_translating");
	p2ps_fleet_free(f);
}

/* Every prefix of a real report is one truncated document, never a host. */
static void test_every_truncation(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp(H200_REPORT, &len);
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	for (size_t cut = 1; cut < len; cut += 7) {
		struct p2ps_fleet *f = fleet();
		struct p2ps_error err = {0};
		assert_int_equal(p2ps_fleet_add_buffer(f, "cut.json", text, cut, &err), 0);
		finish(f);
		assert_int_equal(f->n_hosts, 0);
		assert_int_equal(f->n_skipped, 1);
		assert_int_equal(f->skipped[0].kind, P2PS_FLEET_SKIP_TRUNCATED);
		assert_string_equal(f->skipped[0].source, "cut.json");
		p2ps_fleet_free(f);
	}
	free(text);
}

/* Corrupted bytes: whatever the parser makes of them, nothing crashes and every document
 * is counted (finish() checks hosts + skipped == documents). */
static void test_corruption(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp(QEMU_REPORT, &len);
	static const char junk[] = {'}', ']', '"', ',', ':', '{', '\n', '\0', 'x', '\\'};
	for (size_t pos = 0, k = 0; pos < len; pos += 61, k++) {
		char saved = text[pos];
		text[pos] = junk[k % sizeof(junk)];
		struct p2ps_fleet *f = fleet();
		struct p2ps_error err = {0};
		assert_int_equal(p2ps_fleet_add_buffer(f, "bad.json", text, len, &err), 0);
		finish(f);
		assert_true(f->n_documents >= 1);
		assert_true(f->n_hosts <= 1);
		text[pos] = saved;
		p2ps_fleet_free(f);
	}
	free(text);
}

/* Two reports with a line of garbage between them, as a concatenated stream. */
static void test_stream(void **state)
{
	(void)state;
	struct json_object *a = load(QEMU_REPORT), *b = load(QEMU_REPORT);
	set(b, "host", "hostname", json_object_new_string("other"));
	char *s = NULL;
	assert_true(asprintf(&s, "%s\nsrun: error: gpu9: task 3: Exited with exit code 1\n%s\n",
	                     json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY),
	                     json_object_to_json_string_ext(b, JSON_C_TO_STRING_PRETTY)) > 0);
	struct p2ps_fleet *f = fleet();
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_fleet_add_buffer(f, "stdin", s, strlen(s), &err), 0);
	finish(f);
	assert_int_equal(f->n_hosts, 2);
	assert_int_equal(f->n_skipped, 1);
	assert_int_equal(f->skipped[0].kind, P2PS_FLEET_SKIP_MALFORMED);
	assert_string_equal(f->skipped[0].source, "stdin#2");
	assert_non_null(strstr(f->skipped[0].reason, "line"));
	assert_string_equal(f->hosts[0].source, "stdin#3"); /* "other", worst-first by name */
	assert_string_equal(f->hosts[1].source, "stdin#1");
	free(s);
	json_object_put(a);
	json_object_put(b);
	p2ps_fleet_free(f);
}

static void expect_skip(struct json_object *r, enum p2ps_fleet_skip_kind kind, const char *why)
{
	struct p2ps_fleet *f = fleet();
	add(f, "r.json", r);
	finish(f);
	assert_int_equal(f->n_hosts, 0);
	assert_int_equal(f->n_skipped, 1);
	assert_int_equal(f->skipped[0].kind, kind);
	if (!strstr(f->skipped[0].reason, why))
		fail_msg("reason '%s' lacks '%s'", f->skipped[0].reason, why);
	p2ps_fleet_free(f);
	json_object_put(r);
}

static void test_not_reports(void **state)
{
	(void)state;
	struct json_object *r = load(H200_REPORT);
	set(r, "schema_version", NULL, json_object_new_int(2));
	expect_skip(r, P2PS_FLEET_SKIP_VERSION, "schema_version 2 is newer");
	r = load(H200_REPORT);
	set(r, "schema_version", NULL, json_object_new_string("1"));
	expect_skip(r, P2PS_FLEET_SKIP_MALFORMED, "schema_version");
	r = load(H200_REPORT);
	set(r, "tool", NULL, json_object_new_string("p2p-bench"));
	expect_skip(r, P2PS_FLEET_SKIP_NOT_REPORT, "bar-inspect");
	r = load(H200_REPORT);
	set(r, "kind", NULL, json_object_new_string("fleet"));
	expect_skip(r, P2PS_FLEET_SKIP_NOT_REPORT, "fleet summary");
	r = load(H200_REPORT);
	set(r, "pairs", NULL, json_object_new_object());
	expect_skip(r, P2PS_FLEET_SKIP_MALFORMED, "pairs: expected an array");
	r = load(H200_REPORT);
	struct json_object *gpu;
	assert_true(json_object_object_get_ex(gpu_of(r, 1), "gpu", &gpu));
	json_object_object_add(gpu, "bar1_size", json_object_new_string("big"));
	expect_skip(r, P2PS_FLEET_SKIP_MALFORMED, "devices[1].gpu.bar1_size: expected an integer");
	expect_skip(json_object_new_array(), P2PS_FLEET_SKIP_NOT_REPORT, "JSON array");
}

static struct json_object *named(const char *host, const char *boot, const char *time)
{
	struct json_object *r = load(H200_REPORT);
	set(r, "host", "hostname", json_object_new_string(host));
	set(r, "host", "boot_id", boot ? json_object_new_string(boot) : NULL);
	set(r, "host", "time", time ? json_object_new_string(time) : NULL);
	return r;
}

static void test_duplicates(void **state)
{
	(void)state;
	struct p2ps_fleet *f = fleet();
	struct json_object *r[] = {named("gpu1", "b1", "2026-11-20T00:00:00Z"),
	                           named("gpu1", "b1", "2026-11-20T00:00:00Z"),
	                           named("gpu2", "b2", "2026-11-20T00:00:00Z"),
	                           named("gpu2", "b3", "2026-11-21T00:00:00Z"),
	                           named("gpu3", NULL, NULL),
	                           named("gpu3", NULL, NULL)};
	const char *src[] = {"a/gpu1.json", "b/gpu1.json", "a/gpu2.json",
	                     "b/gpu2.json", "a/gpu3.json", "b/gpu3.json"};
	for (size_t i = 0; i < 6; i++) {
		add(f, src[i], r[i]);
		json_object_put(r[i]);
	}
	finish(f);
	assert_int_equal(f->n_hosts, 3);
	assert_int_equal(f->n_skipped, 3);
	assert_string_equal(f->skipped[0].source, "b/gpu1.json");
	assert_int_equal(f->skipped[0].kind, P2PS_FLEET_SKIP_DUPLICATE);
	/* gpu2's newer boot wins, whichever came first */
	assert_string_equal(f->skipped[1].source, "a/gpu2.json");
	assert_int_equal(f->skipped[1].kind, P2PS_FLEET_SKIP_SUPERSEDED);
	assert_non_null(strstr(f->skipped[1].reason, "b/gpu2.json"));
	assert_string_equal(f->skipped[2].source, "b/gpu3.json");
	assert_non_null(strstr(f->skipped[2].reason, "neither report has a boot id"));
	for (size_t i = 0; i < f->n_hosts; i++)
		if (!strcmp(f->hosts[i].name, "gpu2"))
			assert_string_equal(f->hosts[i].boot_id, "b3");
	p2ps_fleet_free(f);
}

static void test_expect(void **state)
{
	(void)state;
	struct p2ps_fleet *f = fleet();
	struct json_object *r = named("gpu1", "b1", NULL),
	                   *s = named("gpu2.lab.example", "b2", NULL);
	add(f, "reports/gpu1.json", r);
	add(f, "reports/x.json", s);
	json_object_put(r);
	json_object_put(s);
	struct p2ps_error err = {0};
	const char *names[] = {"gpu1.lab.example", "gpu2", "gpu3", "10.0.0.7"};
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(p2ps_fleet_expect(f, names[i], &err), 0);
	finish(f);
	assert_int_equal(f->n_missing, 2);
	assert_string_equal(f->missing[0], "gpu3");
	assert_string_equal(f->missing[1], "10.0.0.7");
	p2ps_fleet_free(f);
}

/* Sets GPU i's trained link width in a report. */
static void set_width(struct json_object *r, size_t i, int width)
{
	struct json_object *link;
	assert_true(json_object_object_get_ex(gpu_of(r, i), "link", &link));
	json_object_object_add(link, "width", json_object_new_int(width));
}

static void test_drift(void **state)
{
	(void)state;
	struct p2ps_fleet *f = fleet();
	const char *hosts[] = {"a", "b", "c"};
	for (size_t i = 0; i < 3; i++) {
		struct json_object *r = named(hosts[i], hosts[i], NULL);
		if (i == 2)
			set_width(r, 1, 8);
		add(f, hosts[i], r);
		json_object_put(r);
	}
	finish(f);
	assert_int_equal(f->n_drift, 1);
	const struct p2ps_fleet_drift *d = &f->drift[0];
	assert_string_equal(f->hosts[d->host].name, "c");
	assert_string_equal(d->bdf, "0000:00:07.0");
	assert_string_equal(d->fact, "link width");
	assert_string_equal(d->value, "x8");
	assert_string_equal(d->majority, "x16");
	assert_int_equal(d->n_majority, 5);
	assert_int_equal(d->n_total, 6);
	p2ps_fleet_free(f);

	/* one host against one: no majority, no drift */
	f = fleet();
	struct json_object *r = named("a", "a", NULL), *s = named("b", "b", NULL);
	set_width(s, 0, 8);
	set_width(s, 1, 8);
	add(f, "a", r);
	add(f, "b", s);
	json_object_put(r);
	json_object_put(s);
	finish(f);
	assert_int_equal(f->n_drift, 0);
	p2ps_fleet_free(f);
}

/* The same cause with different fixes (other bridge addresses) names where the shown fix
 * comes from. */
static void test_group_fix(void **state)
{
	(void)state;
	struct p2ps_fleet *f = fleet();
	struct json_object *r = load(QEMU_REPORT), *s = load(QEMU_REPORT);
	set(s, "host", "hostname", json_object_new_string("guest2"));
	struct json_object *pairs, *reasons;
	assert_true(json_object_object_get_ex(s, "pairs", &pairs));
	for (size_t i = 0; i < json_object_array_length(pairs); i++) {
		assert_true(json_object_object_get_ex(json_object_array_get_idx(pairs, i),
		                                      "reasons", &reasons));
		for (size_t j = 0; j < json_object_array_length(reasons); j++)
			json_object_object_add(json_object_array_get_idx(reasons, j), "fix",
			                       json_object_new_string("another fix"));
	}
	add(f, "guest.json", r);
	add(f, "guest2.json", s);
	json_object_put(r);
	json_object_put(s);
	finish(f);
	const struct p2ps_fleet_group *g = &f->groups[0];
	assert_string_equal(g->code, "iommu_translating");
	assert_int_equal(g->n_hosts, 2);
	assert_non_null(g->fix_host); /* the first host in table order shows its fix */
	assert_string_equal(g->fix_host, "guest2");
	assert_string_equal(g->fix, "another fix");
	p2ps_fleet_free(f);
}

struct buf {
	char *s;
	size_t n;
};

static void sink(void *ctx, const char *s, size_t n)
{
	struct buf *b = ctx;
	b->s = realloc(b->s, b->n + n + 1);
	assert_non_null(b->s);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void test_render(void **state)
{
	(void)state;
	struct p2ps_fleet *f = fleet();
	char *h200 = strdup(p2ps_test_src_path(H200_REPORT)); /* the helper's buffer is static */
	char *qemu = strdup(p2ps_test_src_path(QEMU_REPORT));
	const char *in[] = {h200, qemu, "/nonexistent/x.json"};
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_fleet_add_inputs(f, in, 3, &err), 0);
	free(h200);
	free(qemu);
	assert_int_equal(p2ps_fleet_expect(f, "gpu9", &err), 0);
	finish(f);
	struct buf text = {0}, json = {0}, csv = {0};
	assert_int_equal(p2ps_fleet_render_text(f, sink, &text, &err), 0);
	assert_int_equal(p2ps_fleet_render_json(f, sink, &json, &err), 0);
	assert_int_equal(p2ps_fleet_render_csv(f, sink, &csv, &err), 0);
	assert_non_null(strstr(text.s, "Blocking causes, by cause:"));
	assert_non_null(strstr(text.s, "/nonexistent/x.json: unreadable: No such file"));
	assert_non_null(strstr(text.s, "gpu9"));
	struct json_object *back = json_tokener_parse(json.s), *counts, *v;
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "counts", &counts));
	assert_true(json_object_object_get_ex(counts, "hosts", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(counts, "skipped", &v));
	assert_int_equal(json_object_get_int(v), 1);
	size_t rows = 0;
	for (const char *p = csv.s; (p = strstr(p, "\r\n")); p += 2)
		rows++;
	assert_int_equal(rows, 1 + 2 + 1 + 1); /* header, hosts, skipped, missing */
	json_object_put(back);
	free(text.s);
	free(json.s);
	free(csv.s);
	p2ps_fleet_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_h200_report),
	        cmocka_unit_test(test_qemu_report),
	        cmocka_unit_test(test_every_truncation),
	        cmocka_unit_test(test_corruption),
	        cmocka_unit_test(test_stream),
	        cmocka_unit_test(test_not_reports),
	        cmocka_unit_test(test_duplicates),
	        cmocka_unit_test(test_expect),
	        cmocka_unit_test(test_drift),
	        cmocka_unit_test(test_group_fix),
	        cmocka_unit_test(test_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
