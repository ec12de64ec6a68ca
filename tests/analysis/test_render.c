/* SPDX-License-Identifier: MIT */
/* Renderers on a constructed switch host with ACS redirect on both downstream ports:
 * the text report, the JSON document (read back with json-c) and the Graphviz graph
 * must carry the facts and the verdict, and the -s filter / --all must select. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_text, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_text_filter_and_all, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_dot, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
