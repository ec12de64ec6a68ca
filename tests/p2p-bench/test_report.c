/* SPDX-License-Identifier: MIT */
/* p2p-bench's report library: link arithmetic and the join of a measurement
 * (a real p2p-bench --json from the 2 x H200 machine) with bar-inspect's JSON. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "p2ps_test.h"
#include "report.h"

#define BENCH "tests/fixtures/p2p-bench/h200x2-bench.json"
#define HOST  "tests/fixtures/p2p-bench/h200x2-bar-inspect.json"

/* PCIe rates per lane from the PCIe Base Specification: 2.5/5 GT/s with
 * 8b/10b, 8/16/32 GT/s with 128b/130b, 64 GT/s with 236 payload bytes per
 * 256-byte flit; one direction, bytes = bits / 8. */
static void test_pcie(void **state)
{
	(void)state;
	assert_float_equal(pr_pcie_gbps(2.5, 16), 4.0, 1e-9);
	assert_float_equal(pr_pcie_gbps(5.0, 8), 4.0, 1e-9);
	assert_float_equal(pr_pcie_gbps(8.0, 16), 15.753846, 1e-5);
	assert_float_equal(pr_pcie_gbps(16.0, 16), 31.507692, 1e-5);
	assert_float_equal(pr_pcie_gbps(32.0, 16), 63.015385, 1e-5);
	assert_float_equal(pr_pcie_gbps(32.0, 1), 3.938462, 1e-5);
	assert_float_equal(pr_pcie_gbps(64.0, 16), 118.0, 1e-9);
	assert_true(isnan(pr_pcie_gbps(7.0, 16)));
	assert_true(isnan(pr_pcie_gbps(32.0, 0)));
	assert_true(isnan(pr_pcie_gbps(32.0, 64)));
}

/* nvidia-smi nvlink --status on the H200 host: 18 links of 26.562 GB/s. */
static void test_nvlink(void **state)
{
	(void)state;
	assert_float_equal(pr_nvlink_gbps(18, 26562), 478.116, 1e-9);
	assert_float_equal(pr_nvlink_gbps(1, 25000), 25.0, 1e-9);
	assert_true(isnan(pr_nvlink_gbps(0, 26562)));
	assert_true(isnan(pr_nvlink_gbps(18, 0)));
}

static void test_bdf(void **state)
{
	char out[PR_BDF_LEN];
	(void)state;
	assert_int_equal(pr_bdf_normalize("00000000:3B:00.0", out), 0);
	assert_string_equal(out, "0000:3b:00.0");
	assert_int_equal(pr_bdf_normalize("3b:00.1", out), 0);
	assert_string_equal(out, "0000:3b:00.1");
	assert_int_equal(pr_bdf_normalize("0000:00:06.0", out), 0);
	assert_string_equal(out, "0000:00:06.0");
	assert_int_equal(pr_bdf_normalize("0000:00:20.0", out), P2PS_EINVAL); /* device > 31 */
	assert_int_equal(pr_bdf_normalize("0000:00:06.8", out), P2PS_EINVAL); /* function > 7 */
	assert_int_equal(pr_bdf_normalize("0000:00:06.0x", out), P2PS_EINVAL);
	assert_int_equal(pr_bdf_normalize("gpu0", out), P2PS_EINVAL);
	assert_int_equal(pr_bdf_normalize("0:0:0:0.1", out),
	                 P2PS_EINVAL); /* four fields: found by fuzzing */
	assert_int_equal(pr_bdf_normalize("0000:00:06.", out), P2PS_EINVAL);
	assert_int_equal(pr_bdf_normalize("0000::06.0", out), P2PS_EINVAL);
	assert_int_equal(pr_bdf_normalize(NULL, out), P2PS_EINVAL);
}

static json_object *load(const char *rel)
{
	json_object *o = json_object_from_file(p2ps_test_src_path(rel));
	assert_non_null(o);
	return o;
}

static json_object *field(json_object *o, const char *k)
{
	json_object *v = NULL;
	json_object_object_get_ex(o, k, &v);
	return v;
}

/* The bench's own matrix cell, read from the fixture rather than written here. */
static double bench_cell(json_object *bench, const char *key, int i, int j)
{
	json_object *mats = field(bench, "matrices");
	for (size_t k = 0; k < json_object_array_length(mats); k++) {
		json_object *m = json_object_array_get_idx(mats, k);
		if (!strcmp(json_object_get_string(field(m, "key")), key))
			return json_object_get_double(json_object_array_get_idx(
			        json_object_array_get_idx(field(m, "values"), (size_t)i),
			        (size_t)j));
	}
	fail_msg("matrix %s missing", key);
	return NAN;
}

static void test_combine_nvlink(void **state)
{
	json_object *bench = load(BENCH), *host = load(HOST), *out = NULL, *pairs, *p;
	struct p2ps_error err;
	double limit, ce;
	(void)state;

	assert_int_equal(pr_combine(bench, host, &out, &err), 0);
	pairs = field(out, "pairs");
	assert_int_equal(json_object_array_length(pairs), 2); /* 0->1 and 1->0 */
	p = json_object_array_get_idx(pairs, 0);
	assert_string_equal(json_object_get_string(field(p, "src")), "0000:00:06.0");
	assert_string_equal(json_object_get_string(field(p, "dst")), "0000:00:07.0");
	assert_string_equal(json_object_get_string(field(p, "topology")), "NV18");
	assert_string_equal(json_object_get_string(field(p, "link")), "nvlink");
	assert_true(json_object_get_boolean(field(p, "p2p_ready")));
	limit = json_object_get_double(field(p, "theoretical_gbps"));
	assert_float_equal(limit, 478.116, 1e-6);
	ce = bench_cell(bench, "ce_uni_p2p_on", 0, 1);
	assert_float_equal(json_object_get_double(field(field(p, "measured_gbps"), "ce_uni")), ce,
	                   1e-3);
	assert_float_equal(json_object_get_double(field(field(p, "ratio"), "ce_uni")), ce / limit,
	                   1e-3);
	/* Both directions at once are judged against twice the per-direction limit. */
	assert_float_equal(json_object_get_double(field(field(p, "ratio"), "ce_bi")),
	                   bench_cell(bench, "ce_bi_p2p_on", 0, 1) / (2 * limit), 1e-3);
	p = json_object_array_get_idx(pairs, 1);
	assert_string_equal(json_object_get_string(field(p, "src")), "0000:00:07.0");
	assert_float_equal(json_object_get_double(field(field(p, "measured_gbps"), "sm_write_uni")),
	                   bench_cell(bench, "sm_write_uni_p2p_on", 1, 0), 1e-3);
	json_object_put(out);
	json_object_put(bench);
	json_object_put(host);
}

/* The same GPUs behind a host bridge instead of NVLink: the slower PCIe end bounds. */
static void test_combine_pcie(void **state)
{
	json_object *bench = load(BENCH), *host = load(HOST), *out = NULL, *p;
	json_object *dev1 = json_object_array_get_idx(field(host, "devices"), 1);
	struct p2ps_error err;
	(void)state;

	json_object_object_add(json_object_array_get_idx(field(host, "pairs"), 0), "topology",
	                       json_object_new_string("PHB"));
	json_object_object_add(field(dev1, "link"), "width", json_object_new_int(8));
	assert_int_equal(pr_combine(bench, host, &out, &err), 0);
	p = json_object_array_get_idx(field(out, "pairs"), 0);
	assert_string_equal(json_object_get_string(field(p, "link")), "pcie");
	assert_float_equal(json_object_get_double(field(p, "theoretical_gbps")),
	                   pr_pcie_gbps(32.0, 8), 1e-3);
	assert_non_null(strstr(json_object_get_string(field(p, "theory_basis")), "x8"));
	json_object_put(out);
	json_object_put(bench);
	json_object_put(host);
}

/* A GPU bar-inspect did not report: no limit, no ratio, and the reason said. */
static void test_combine_unmatched(void **state)
{
	json_object *bench = load(BENCH), *host = load(HOST), *out = NULL, *p;
	json_object *dev1 = json_object_array_get_idx(field(host, "devices"), 1);
	struct p2ps_error err;
	(void)state;

	json_object_object_add(dev1, "bdf", json_object_new_string("0000:41:00.0"));
	assert_int_equal(pr_combine(bench, host, &out, &err), 0);
	p = json_object_array_get_idx(field(out, "pairs"), 0);
	assert_null(field(p, "theoretical_gbps"));
	assert_null(field(field(p, "ratio"), "ce_uni"));
	assert_non_null(field(field(p, "measured_gbps"), "ce_uni"));
	assert_string_equal(json_object_get_string(field(p, "theory_basis")),
	                    "not in the host report");
	json_object_put(out);
	json_object_put(bench);
	json_object_put(host);
}

static void test_combine_bad_input(void **state)
{
	json_object *bench = load(BENCH), *host = load(HOST), *out = NULL;
	json_object *empty = json_object_new_object();
	struct p2ps_error err;
	(void)state;

	assert_int_equal(pr_combine(empty, host, &out, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "bench report"));
	assert_int_equal(pr_combine(bench, empty, &out, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "host report"));
	json_object_put(empty);
	json_object_put(bench);
	json_object_put(host);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_pcie),
	        cmocka_unit_test(test_nvlink),
	        cmocka_unit_test(test_bdf),
	        cmocka_unit_test(test_combine_nvlink),
	        cmocka_unit_test(test_combine_pcie),
	        cmocka_unit_test(test_combine_unmatched),
	        cmocka_unit_test(test_combine_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
