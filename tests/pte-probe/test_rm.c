/* SPDX-License-Identifier: MIT */
/* The RM client library: driver versions and layouts, status names, the allow-list, and the
 * record -> parse -> replay round trip (against the fake RM and the real H100 capture). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_rm.h"
#include "p2pscope/bytes.h"
#include "p2pscope/gmmu_dump.h"
#include "p2ps_test.h"

static void test_driver_versions(void **state)
{
	(void)state;
	struct p2ps_rm_driver d;
	struct p2ps_error err;
	/* Verified series; sizes from the driver headers of each tag (the RM layouts of the
	 * driver table, nvidia_drivers.c). */
	static const struct {
		const char *v;
		unsigned nvos46, vas, p2p;
	} ok[] = {
	        {"550.54.15", 56, 48, 72}, {"565.57.01", 56, 48, 72},  {"570.211.01", 56, 48, 72},
	        {"575.64.05", 56, 48, 72}, {"580.159.04", 64, 56, 72}, {"590.48.01", 64, 56, 88},
	        {"595.45.04", 64, 56, 88}, {"615.71.09", 64, 56, 88},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char text[160];
		snprintf(text, sizeof(text),
		         "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release "
		         "Build  "
		         "(dvs-builder@U16)  Tue\nGCC version: gcc 12\n",
		         ok[i].v);
		assert_int_equal(p2ps_rm_driver_parse(text, &d, &err), 0);
		assert_string_equal(d.version, ok[i].v);
		assert_true(d.open_module);
		assert_int_equal(d.layout->nvos46_size, ok[i].nvos46);
		assert_int_equal(d.layout->vaspace_size, ok[i].vas);
		assert_int_equal(d.layout->p2p_size, ok[i].p2p);
	}
	/* The proprietary module's wording, two-part version. */
	assert_int_equal(p2ps_rm_driver_parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
	                                      "550.78  Sun Apr 14 06:35:45 UTC 2024\n",
	                                      &d, &err),
	                 0);
	assert_false(d.open_module);
	assert_int_equal(d.major, 550);
	assert_int_equal(d.minor, 78);
	/* A series without a row: refused (never a nearer series' layout), naming the version
	 * and the verified ones. */
	assert_int_equal(p2ps_rm_driver_parse("NVRM version: NVIDIA UNIX Open Kernel Module for "
	                                      "x86_64  610.43.02  Release Build\n",
	                                      &d, &err),
	                 P2PS_ENOTSUP);
	assert_non_null(strstr(err.msg, "610.43.02"));
	assert_non_null(strstr(err.msg, "550, 565, 570, 575, 580, 590, 595"));
	assert_null(d.layout);
	/* 610 has a row for the model, but no layout: refused, saying why. */
	assert_non_null(strstr(err.msg, "610 RM headers were not read"));
	/* 615.71.09: the era whose GET_CHIPSET_INFO gained chipsetId (ctrl0000system.h). */
	assert_int_equal(p2ps_rm_driver_parse("NVRM version: NVIDIA UNIX Open Kernel Module for "
	                                      "x86_64  615.71.09  Release Build\n",
	                                      &d, &err),
	                 0);
	assert_int_equal(d.layout->era, P2PS_NV_RM_615);
	/* No version at all; a version only on the second line does not count. */
	assert_int_equal(p2ps_rm_driver_parse("hello world\n580.159.04\n", &d, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_rm_driver_parse("", &d, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_rm_driver_parse(NULL, &d, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_rm_driver_parse("x 580.1x y\n", &d, &err), P2PS_EINVAL);
	assert_int_equal(p2ps_rm_driver_parse("x 99999999999.1 y\n", &d, &err), P2PS_EINVAL);
}

static void test_status_names(void **state)
{
	(void)state;
	char buf[32];
	/* Values from nvstatuscodes.h. */
	assert_string_equal(p2ps_rm_status_name(0), "NV_OK");
	assert_string_equal(p2ps_rm_status_name(0x7e), "NV_ERR_TEST_ONLY_CODE_NOT_ENABLED");
	assert_string_equal(p2ps_rm_status_name(0x1b), "NV_ERR_INSUFFICIENT_PERMISSIONS");
	assert_string_equal(p2ps_rm_status_name(0x1f), "NV_ERR_INVALID_ARGUMENT");
	assert_string_equal(p2ps_rm_status_name(0xffff), "NV_ERR_GENERIC");
	assert_string_equal(p2ps_rm_status_name(0x8b), "NV_ERR_OPERATION_ABORTED");
	assert_string_equal(p2ps_rm_status_name(0x10009), "NV_WARN_THRESHOLD_CROSSED");
	assert_null(p2ps_rm_status_name(0x12345));
	assert_string_equal(p2ps_rm_status_str(0x12345, buf, sizeof(buf)), "NV_STATUS 0x00012345");
	assert_string_equal(p2ps_rm_class_name(0x90f1), "FERMI_VASPACE_A");
	assert_null(p2ps_rm_class_name(0xc36f));
	assert_string_equal(p2ps_rm_chip_name(0x180, 0), "GH100");
	assert_string_equal(p2ps_rm_chip_name(0x190, 2), "AD102");
	assert_null(p2ps_rm_chip_name(0x180, 1));
	/* ctrl2080mc.h: Turing's architecture 0x160 with TU117's implementation 0x7, GB20x's
	 * 0x1b0 with GB202's 0x2; an architecture with low bits set or an implementation over
	 * 0xf is no chip. */
	assert_string_equal(p2ps_rm_chip_name(0x160, 7), "TU117");
	assert_string_equal(p2ps_rm_chip_name(0x1b0, 2), "GB202");
	assert_null(p2ps_rm_chip_name(0x182, 0));
	assert_null(p2ps_rm_chip_name(0x180, 0x10));
}

static struct p2ps_rm *open_fake(struct fake_rm *f, struct p2ps_rm_sys *sys)
{
	struct p2ps_rm *rm;
	struct p2ps_error err;
	fake_rm_init(f, sys);
	assert_int_equal(p2ps_rm_open(&rm, sys, &err), 0);
	return rm;
}

/* Every excluded control is refused before anything reaches the driver, and so is any
 * control or class not on the allow-list. */
static void test_allow_list(void **state)
{
	(void)state;
	struct fake_rm f;
	struct p2ps_rm_sys sys;
	struct p2ps_rm *rm = open_fake(&f, &sys);
	struct p2ps_error err;
	uint8_t params[256] = {0};
	unsigned before = f.escapes;
	assert_true(p2ps_rm_excluded_count() >= 10);
	for (size_t i = 0; i < p2ps_rm_excluded_count(); i++) {
		const struct p2ps_rm_excluded *x = p2ps_rm_excluded_at(i);
		assert_null(p2ps_rm_ctrl_name(x->cmd));
		assert_int_equal(p2ps_rm_control(rm, p2ps_rm_client(rm), x->cmd, params,
		                                 sizeof(params), NULL, &err),
		                 P2PS_EACCES);
		assert_non_null(strstr(err.msg, x->name));
	}
	assert_int_equal(p2ps_rm_control(rm, 1, 0x0080180a, params, 8, NULL, &err), P2PS_EACCES);
	assert_non_null(strstr(err.msg, "writes page-table entries"));
	assert_int_equal(p2ps_rm_control(rm, 1, 0x20800101, params, 8, NULL, &err), P2PS_EACCES);
	assert_non_null(strstr(err.msg, "allow-list"));
	uint32_t h;
	assert_int_equal(p2ps_rm_alloc(rm, 1, 0xc36f, NULL, 0, &h, NULL, &err), P2PS_EACCES);
	assert_int_equal(f.escapes, before);
	assert_int_equal(p2ps_rm_close(rm, NULL, &err), 0);
	assert_int_equal(fake_rm_live(&f), 0);
	assert_int_equal(f.fds_open, 0);
}

/* A short session on the fake, recorded; the capture parses and replays to the same
 * answers; a changed request is caught with the byte that differs. */
static void session(const struct p2ps_rm_sys *sys, struct p2ps_rm_gpu *g, uint8_t page[4096])
{
	struct p2ps_rm *rm;
	struct p2ps_error err;
	struct p2ps_rm_card cards[4];
	size_t n;
	assert_int_equal(p2ps_rm_open(&rm, sys, &err), 0);
	assert_int_equal(p2ps_rm_cards(rm, cards, 4, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p2ps_rm_gpu_open(rm, &cards[0], g, &err), 0);
	assert_int_equal(p2ps_rm_read_vidmem(rm, g, 0x3000, page, &err), 0);
	assert_int_equal(p2ps_rm_close(rm, NULL, &err), 0);
}

static void test_record_replay(void **state)
{
	(void)state;
	struct fake_rm f;
	struct p2ps_rm_sys fake, sys;
	struct p2ps_rm_recorder *rec;
	struct p2ps_error err;
	char path[] = "/tmp/p2ps-rm-capture-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	fake_rm_init(&f, &fake);
	assert_int_equal(p2ps_rm_record_start(&rec, &fake, path, "test \"note\"", &sys, &err), 0);
	struct p2ps_rm_gpu g1, g2;
	uint8_t page1[4096], page2[4096];
	session(&sys, &g1, page1);
	assert_int_equal(p2ps_rm_record_finish(rec, &err), 0);
	assert_int_equal(fake_rm_live(&f), 0);
	assert_string_equal(g1.chip, "GH100");

	char *text;
	size_t len;
	assert_int_equal(p2ps_text_slurp(path, 1 << 20, &text, &len, &err), 0);
	unlink(path);
	struct p2ps_rm_capture cap;
	assert_int_equal(p2ps_rm_capture_parse(text, len, "t", &cap, &err), 0);
	assert_string_equal(cap.note, "test \"note\"");
	unsigned escapes = 0;
	for (size_t i = 0; i < cap.n; i++)
		escapes += cap.recs[i].op == P2PS_RM_OP_ESCAPE;
	assert_int_equal(escapes, f.escapes);
	struct p2ps_rm_replay *rp;
	assert_int_equal(p2ps_rm_replay_start(&rp, &cap, &sys, &err), 0);
	session(&sys, &g2, page2);
	assert_int_equal(p2ps_rm_replay_left(rp), 0);
	assert_int_equal(p2ps_rm_replay_finish(rp, &err), 0);
	assert_int_equal(g1.card.gpu_id, g2.card.gpu_id);
	assert_int_equal(g1.card.minor, g2.card.minor);
	assert_int_equal(g1.device, g2.device);
	assert_int_equal(g1.subdevice, g2.subdevice);
	assert_int_equal(g1.device_instance, g2.device_instance);
	assert_int_equal(g1.arch, g2.arch);
	assert_string_equal(g1.chip, g2.chip);
	assert_memory_equal(page1, page2, sizeof(page1));

	/* A different request: GPU_GET_ID_INFO_V2 asked about another GPU id. */
	for (size_t i = 0; i < cap.n; i++)
		if (cap.recs[i].op == P2PS_RM_OP_ESCAPE && cap.recs[i].in_params &&
		    cap.recs[i].params_size == 32)
			cap.recs[i].in_params[0] ^= 1;
	assert_int_equal(p2ps_rm_replay_start(&rp, &cap, &sys, &err), 0);
	struct p2ps_rm *rm;
	struct p2ps_rm_card cards[4];
	size_t n;
	assert_int_equal(p2ps_rm_open(&rm, &sys, &err), 0);
	assert_int_equal(p2ps_rm_cards(rm, cards, 4, &n, &err), 0);
	assert_int_not_equal(p2ps_rm_gpu_open(rm, &cards[0], &g2, &err), 0);
	assert_non_null(strstr(err.msg, "parameter byte 0"));
	p2ps_rm_close(rm, NULL, &err);
	assert_int_equal(p2ps_rm_replay_finish(rp, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "GPU_GET_ID_INFO_V2"));
	p2ps_rm_capture_cleanup(&cap);
	free(text);
}

static void test_capture_errors(void **state)
{
	(void)state;
	static const struct {
		const char *json, *want;
	} bad[] = {
	        {"{", "not valid JSON"},
	        {"[]", "not a p2pscope RM capture"},
	        {"{\"format\": \"x\", \"version\": 1, \"calls\": []}", "not a p2pscope"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 2, \"calls\": []}", "version"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1}", "\"calls\""},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1, \"calls\": [1]}", "call 0"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1, \"calls\": [{\"op\": "
	         "\"fly\"}]}",
	         "unknown operation"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1, \"calls\": [{\"op\": "
	         "\"escape\", \"fd\": 3, \"nr\": \"0x2b\", \"in\": \"0g\"}]}",
	         "not a hex string"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1, \"calls\": [{\"op\": "
	         "\"escape\", \"fd\": 3, \"nr\": \"0x2b\", \"in\": \"00\", \"out\": \"0000\"}]}",
	         "response size"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1, \"calls\": [{\"op\": "
	         "\"escape\", \"fd\": 3, \"nr\": \"0x2bb\", \"in\": \"00\"}]}",
	         "escape number"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1, \"calls\": [{\"op\": "
	         "\"mmap\", \"fd\": 3, \"length\": 8, \"words\": {\"0x8\": \"0x1\"}}]}",
	         "inside the map"},
	        {"{\"format\": \"p2pscope-rm-capture\", \"version\": 1, \"calls\": [{\"op\": "
	         "\"open\", \"path\": \"/dev/x\", \"code\": -3}]}",
	         "\"error\""},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct p2ps_rm_capture cap;
		struct p2ps_error err = {0};
		int rc = p2ps_rm_capture_parse(bad[i].json, strlen(bad[i].json), "cap", &cap, &err);
		if (rc != P2PS_EINVAL || !strstr(err.msg, bad[i].want))
			fail_msg("case %zu: rc %d, message '%s' lacks '%s'", i, rc, err.msg,
			         bad[i].want);
		assert_int_equal(cap.n, 0);
	}
}

/* The committed H100 capture parses and holds what the device run saw. */
static void test_h100_capture(void **state)
{
	(void)state;
	char *text;
	size_t len;
	struct p2ps_error err;
	assert_int_equal(p2ps_text_slurp(p2ps_test_src_path("tests/fixtures/pte-probe/"
	                                                    "h100-580.159.04-root.json"),
	                                 1 << 24, &text, &len, &err),
	                 0);
	struct p2ps_rm_capture cap;
	assert_int_equal(p2ps_rm_capture_parse(text, len, "h100", &cap, &err), 0);
	assert_int_equal(cap.recs[0].op, P2PS_RM_OP_READ);
	struct p2ps_rm_driver d;
	assert_int_equal(p2ps_rm_driver_parse(cap.recs[0].text, &d, &err), 0);
	assert_string_equal(d.version, "580.159.04");
	unsigned allocs = 0, frees = 0, pte_refused = 0;
	for (size_t i = 0; i < cap.n; i++) {
		const struct p2ps_rm_rec *r = &cap.recs[i];
		if (r->op != P2PS_RM_OP_ESCAPE)
			continue;
		allocs += r->nr == 0x2b && r->out && !p2ps_le32(r->out + 28);
		frees += r->nr == 0x29 && r->out && !p2ps_le32(r->out + 12);
		pte_refused += r->nr == 0x2a && r->out && p2ps_le32(r->out + 8) == 0x801801 &&
		               p2ps_le32(r->out + 28) == P2PS_RM_NV_ERR_TEST_ONLY_CODE_NOT_ENABLED;
	}
	/* Every object the run made was freed; GET_PTE_INFO refused on each of 24 pages. */
	assert_int_equal(allocs, 14);
	assert_int_equal(frees, allocs);
	assert_int_equal(pte_refused, 24);
	p2ps_rm_capture_cleanup(&cap);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_driver_versions), cmocka_unit_test(test_status_names),
	        cmocka_unit_test(test_allow_list),      cmocka_unit_test(test_record_replay),
	        cmocka_unit_test(test_capture_errors),  cmocka_unit_test(test_h100_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
