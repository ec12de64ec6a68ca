/* SPDX-License-Identifier: MIT */
/* Renderers on a constructed switch host with ACS redirect on both downstream ports:
 * the text report, the JSON document (read back with json-c), the Graphviz graph and the
 * node-feature-discovery labels must carry the facts and the verdict, and the -s filter /
 * --all must select. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "model.h"
#include "p2pscope/render.h"

struct fx {
	struct p2ps_host h;
	struct p2ps_analysis a;
	struct p2ps_strbuf out;
	struct json_object *doc;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	struct p2ps_host *h = &f->h;
	tm_init(h);
	int rp = tm_bridge(h, "0000:00:01.0", P2PS_PCIE_ROOT_PORT, -1);
	int usp = tm_bridge(h, "0000:01:00.0", P2PS_PCIE_SWITCH_UPSTREAM, rp);
	int d0 = tm_bridge(h, "0000:02:00.0", P2PS_PCIE_SWITCH_DOWNSTREAM, usp);
	int d1 = tm_bridge(h, "0000:02:01.0", P2PS_PCIE_SWITCH_DOWNSTREAM, usp);
	tm_acs(&h->devs[d0], 0x7f, 0x1d);
	tm_acs(&h->devs[d1], 0x7f, 0x1d);
	tm_gpu(h, "0000:03:00.0", 0x2684, d0);
	tm_gpu(h, "0000:04:00.0", 0x2684, d1);
	snprintf(h->devs[0].vendor_name, P2PS_HOST_NAME_MAX, "Intel \"quoted\" Corp");
	tm_finish(h);
	struct p2ps_error err = {0};
	if (p2ps_analysis_run(h, &f->a, &err))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (f->doc)
		json_object_put(f->doc);
	p2ps_strbuf_free(&f->out);
	p2ps_analysis_free(&f->a);
	p2ps_host_free(&f->h);
	free(f);
	return 0;
}

static void test_text(void **state)
{
	struct fx *f = *state;
	struct p2ps_error err = {0};
	struct p2ps_render_opts ro = {.version = "t"};
	assert_int_equal(p2ps_render_text(&f->a, &ro, &f->out, &err), 0);
	const char *s = f->out.s;
	assert_non_null(strstr(s, "GPU0 0000:03:00.0"));
	assert_non_null(strstr(s, "Region 1: Memory at"));
	assert_non_null(strstr(s, "[size=32G]  <- BAR1"));
	assert_non_null(strstr(s, "Chip: AD102 (Ada"));
	assert_non_null(strstr(s, "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ "
	                          "EgressCtrl- DirectTrans-  <- redirects"));
	assert_non_null(strstr(s, "GPU0\t X \tPIX\t"));
	assert_non_null(strstr(s, "  PIX  = Connection traversing at most a single PCIe bridge"));
	assert_non_null(strstr(s, "BAR1 P2P: not ready"));
	assert_non_null(strstr(s, "fix: setpci -s 0000:02:01.0 ECAP_ACS+0x6.w=0011"));
	/* Only GPUs without --all: the bridges appear in the path, never as blocks. */
	assert_null(strstr(s, "\n0000:02:00.0 "));
}

static void test_text_filter_and_all(void **state)
{
	struct fx *f = *state;
	struct p2ps_error err = {0};
	struct p2ps_slot_filter flt = {-1, 0x04, -1, -1};
	struct p2ps_render_opts ro = {.filter = &flt};
	assert_int_equal(p2ps_render_text(&f->a, &ro, &f->out, &err), 0);
	assert_null(strstr(f->out.s, "GPU0 0000:03:00.0 "));
	assert_non_null(strstr(f->out.s, "GPU1 0000:04:00.0 "));
	assert_non_null(strstr(f->out.s, "GPU0 <-> GPU1")); /* the pair touches GPU1 */
	p2ps_strbuf_free(&f->out);

	struct p2ps_render_opts all = {.all = true};
	assert_int_equal(p2ps_render_text(&f->a, &all, &f->out, &err), 0);
	assert_non_null(strstr(f->out.s, "\n0000:02:00.0 "));
	assert_non_null(strstr(f->out.s, "Bus: primary=00, secondary=00"));
	p2ps_strbuf_free(&f->out);

	struct p2ps_slot_filter none = {-1, 0x77, -1, -1};
	struct p2ps_render_opts rn = {.filter = &none};
	assert_int_equal(p2ps_render_text(&f->a, &rn, &f->out, &err), 0);
	assert_non_null(strstr(f->out.s, "No NVIDIA GPUs match the -s filter."));
	assert_null(strstr(f->out.s, "GPU0 <-> GPU1"));
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("missing key %s", k);
	return v;
}

static void test_json(void **state)
{
	struct fx *f = *state;
	struct p2ps_error err = {0};
	struct p2ps_render_opts ro = {.all = true};
	assert_int_equal(p2ps_render_json(&f->a, &ro, &f->doc, &err), 0);
	assert_int_equal(json_object_get_int(get(f->doc, "schema_version")), 1);
	struct json_object *devs = get(f->doc, "devices");
	assert_int_equal(json_object_array_length(devs), 6);
	struct json_object *dsp = json_object_array_get_idx(devs, 2);
	assert_string_equal(json_object_get_string(get(dsp, "bdf")), "0000:02:00.0");
	assert_string_equal(json_object_get_string(get(dsp, "parent")), "0000:01:00.0");
	struct json_object *acs = get(dsp, "acs");
	assert_int_equal(json_object_get_int(get(acs, "cap")), 0x7f);
	assert_int_equal(json_object_get_int(get(acs, "ctl")), 0x1d);
	assert_true(json_object_get_boolean(get(acs, "redirects")));
	struct json_object *gpu = json_object_array_get_idx(devs, 4);
	assert_string_equal(json_object_get_string(get(gpu, "bdf")), "0000:03:00.0");
	struct json_object *path = get(gpu, "path");
	assert_int_equal(json_object_array_length(path), 3);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(path, 0)),
	                    "0000:02:00.0");
	struct json_object *rebar = get(gpu, "rebar");
	struct json_object *e0 = json_object_array_get_idx(get(rebar, "entries"), 0);
	assert_true(json_object_get_uint64(get(e0, "current_size")) == 32 * TM_GIB);
	assert_int_equal(json_object_array_length(get(e0, "supported_sizes")), 14);
	assert_null(get(gpu, "acs"));
	struct json_object *pair = json_object_array_get_idx(get(f->doc, "pairs"), 0);
	assert_string_equal(json_object_get_string(get(pair, "topology")), "PIX");
	assert_false(json_object_get_boolean(get(pair, "p2p_ready")));
	assert_string_equal(json_object_get_string(get(pair, "common_bridge")), "0000:01:00.0");
	struct json_object *reasons = get(pair, "reasons");
	int acs_blockers = 0;
	for (size_t i = 0; i < json_object_array_length(reasons); i++) {
		struct json_object *r = json_object_array_get_idx(reasons, i);
		if (!strcmp(json_object_get_string(get(r, "code")), "acs_redirect") &&
		    !strcmp(json_object_get_string(get(r, "severity")), "blocker"))
			acs_blockers++;
	}
	assert_int_equal(acs_blockers, 2);
	struct json_object *m = get(get(f->doc, "topology"), "matrix");
	assert_string_equal(json_object_get_string(
	                            json_object_array_get_idx(json_object_array_get_idx(m, 1), 0)),
	                    "PIX");
	/* The text form is the same document. */
	assert_int_equal(p2ps_render_json_text(&f->a, &ro, &f->out, &err), 0);
	struct json_object *again = json_tokener_parse(f->out.s);
	assert_non_null(again);
	assert_true(json_object_equal(again, f->doc));
	json_object_put(again);
}

static void test_dot(void **state)
{
	struct fx *f = *state;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_render_dot(&f->a, NULL, &f->out, &err), 0);
	const char *s = f->out.s;
	assert_true(!strncmp(s, "digraph p2pscope {", 18));
	assert_non_null(strstr(s, "\"pci0000:00\" [shape=box, style=filled"));
	assert_non_null(strstr(s, "\"0000:02:00.0\" [shape=box, color=red"));
	assert_non_null(strstr(s, "ACS redirect: ReqRedir+ CmpltRedir+"));
	assert_non_null(strstr(s, "\"0000:01:00.0\" -> \"0000:02:01.0\";"));
	assert_non_null(strstr(s, "\"0000:03:00.0\" -> \"0000:04:00.0\" [dir=none, style=dashed, "
	                          "constraint=false, color=red"));
	assert_non_null(strstr(s, "label=\"PIX\\nnot ready\""));
	assert_true(s[f->out.len - 2] == '}');
}

/* Kubernetes' label syntax: a name segment or a value of at most 63 characters of
 * [A-Za-z0-9_.-], alphanumeric at both ends (a value may be empty). */
static bool label_part_ok(const char *s, size_t len, bool may_be_empty)
{
	if (!len)
		return may_be_empty;
	if (len > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/* Every line of the labels: a comment, or p2pscope.io/NAME=VALUE in the label syntax. */
static void assert_nfd_lines(const char *s)
{
	while (*s) {
		const char *end = strchr(s, '\n');
		assert_non_null(end);
		if (*s != '#') {
			assert_true(!strncmp(s, "p2pscope.io/", 12));
			const char *name = s + 12, *eq = memchr(name, '=', (size_t)(end - name));
			assert_non_null(eq);
			assert_true(label_part_ok(name, (size_t)(eq - name), false));
			assert_true(label_part_ok(eq + 1, (size_t)(end - eq - 1), true));
		}
		s = end + 1;
	}
}

static void test_nfd(void **state)
{
	struct fx *f = *state;
	struct p2ps_error err = {0};
	struct p2ps_render_opts ro = {.version = "t", .nfd_expiry = "2030-01-02T03:04:05Z"};
	assert_int_equal(p2ps_render_nfd(&f->a, &ro, &f->out, &err), 0);
	const char *s = f->out.s;
	assert_nfd_lines(s);
	assert_non_null(strstr(s, "\n# +expiry-time=2030-01-02T03:04:05Z\np2pscope.io/gpus=2\n"));
	assert_non_null(strstr(s, "\np2pscope.io/gpu-pairs=1\n"));
	assert_non_null(strstr(s, "\np2pscope.io/p2p-ready=false\n"));
	assert_non_null(strstr(s, "\np2pscope.io/p2p-not-ready-pairs=1\n"));
	assert_non_null(strstr(s, "\np2pscope.io/blocker.acs_redirect=1\n"));
	assert_non_null(strstr(s, "\np2pscope.io/blockers=acs_redirect"));
	assert_non_null(strstr(s, "\np2pscope.io/nvlink=false\np2pscope.io/nvlink-pairs=0\n"));
	p2ps_strbuf_free(&f->out);

	/* A GPU whose NVLink facts are unknown makes "no NVLink" unknown. */
	f->h.devs[f->a.gpus[1].dev_idx].gpu.nvlink_known = false;
	assert_int_equal(p2ps_render_nfd(&f->a, NULL, &f->out, &err), 0);
	assert_non_null(strstr(f->out.s, "\np2pscope.io/nvlink=unknown\n"));
	p2ps_strbuf_free(&f->out);

	/* -s selects a device that is no GPU: no GPU, no pair, no verdict. */
	struct p2ps_slot_filter none = {-1, 0x77, -1, -1};
	struct p2ps_render_opts rn = {.filter = &none};
	assert_int_equal(p2ps_render_nfd(&f->a, &rn, &f->out, &err), 0);
	assert_nfd_lines(f->out.s);
	assert_non_null(strstr(f->out.s, "\np2pscope.io/gpus=0\np2pscope.io/gpu-pairs=0\n"));
	assert_null(strstr(f->out.s, "p2p-ready"));
	assert_null(strstr(f->out.s, "expiry"));
}

/* Blockers of every code the analysis has: each code's label is valid, and the list that
 * cannot hold them all in 63 characters ends with "more". */
static void test_nfd_every_code(void **state)
{
	struct fx *f = *state;
	struct p2ps_error err = {0};
	static struct p2ps_reason all[P2PS_R_CODE_COUNT];
	for (int c = 0; c < P2PS_R_CODE_COUNT; c++)
		all[c] = (struct p2ps_reason){.code = (enum p2ps_reason_code)c,
		                              .sev = c % 2 ? P2PS_SEV_BLOCKER : P2PS_SEV_UNKNOWN,
		                              .dev_idx = -1};
	struct p2ps_reasons saved = f->a.pairs[0].reasons;
	f->a.pairs[0].reasons = (struct p2ps_reasons){.n = P2PS_R_CODE_COUNT, .v = all};
	int rc = p2ps_render_nfd(&f->a, NULL, &f->out, &err);
	f->a.pairs[0].reasons = saved;
	assert_int_equal(rc, 0);
	const char *s = f->out.s;
	assert_nfd_lines(s);
	for (int c = 0; c < P2PS_R_CODE_COUNT; c++) {
		char want[96];
		snprintf(want, sizeof(want), "\np2pscope.io/%s.%s=1\n",
		         c % 2 ? "blocker" : "unknown",
		         p2ps_reason_code_name((enum p2ps_reason_code)c));
		assert_non_null(strstr(s, want));
	}
	const char *list = strstr(s, "\np2pscope.io/blockers=");
	assert_non_null(list);
	const char *end = strchr(list + 1, '\n');
	assert_true(!strncmp(end - 5, ".more", 5));
	assert_non_null(strstr(s, "\np2pscope.io/unknowns="));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_text, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_text_filter_and_all, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_dot, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_nfd, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_nfd_every_code, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
