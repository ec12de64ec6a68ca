/* SPDX-License-Identifier: MIT */
/* The check's report against real captures: NCCL's own INFO log of a 4 x H200 host
 * (tests/fixtures/p2p-check/nccl-info-*.log), and a real run of the check on a 2 x H200 host
 * judged against that host's snapshot (tests/fixtures/p2p-check/h200x2): the prediction
 * comes from the snapshot's facts (the driver's nvidia-smi topo -p2p statuses, NVLink, the
 * NCCL variables of the run), the observations from the run; then the observations changed
 * one at a time into the failures users report, each explained by its causes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2pscope/check.h"
#include "p2pscope/driver_model.h"
#include "p2pscope/host_load.h"
#include "p2ps_test.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("%s: committed fixture missing", path);
	char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static void test_nccl_log_ring(void **state)
{
	(void)state;
	size_t len;
	char *log =
	        slurp(p2ps_test_src_path("tests/fixtures/p2p-check/nccl-info-h200x4.log"), &len);
	struct p2ps_chk_nccl n = {0};
	/* Four ring hops on channels 00 and 23: eight lines. */
	assert_int_equal(p2ps_chk_nccl_parse(log, len, &n), 8);
	assert_string_equal(n.version, "2.28.9");
	for (int r = 0; r < 4; r++)
		assert_string_equal(n.transport[r][(r + 1) % 4], "P2P/CUMEM");
	/* A ring connects each rank to the next only. */
	assert_string_equal(n.transport[1][0], "");
	assert_string_equal(n.transport[0][2], "");
	assert_string_equal(p2ps_chk_nccl_class(n.transport[0][1]), "P2P");
	free(log);

	log = slurp(
	        p2ps_test_src_path("tests/fixtures/p2p-check/nccl-info-h200x4-p2p-disabled.log"),
	        &len);
	memset(&n, 0, sizeof(n));
	/* "Channel 00 : " without a connection index, as shm.cc prints it. */
	assert_int_equal(p2ps_chk_nccl_parse(log, len, &n), 8);
	assert_string_equal(n.transport[3][0], "SHM/direct/direct");
	assert_string_equal(p2ps_chk_nccl_class(n.transport[3][0]), "SHM");
	free(log);
}

static void test_nccl_log_odd_lines(void **state)
{
	(void)state;
	static const char log[] =
	        "host:1:2 [0] NCCL INFO Channel 00/1 : 0[4] -> 1[5] via P2P/direct pointer/read\n"
	        "host:1:2 [0] NCCL INFO Channel 01/1 : 0[4] -> 1[5] via P2P/direct pointer/read\n"
	        "host:1:2 [0] NCCL INFO Channel 02/1 : 0[4] -> 1[5] via SHM/direct/direct\r\n"
	        "host:1:2 [0] NCCL INFO Channel 03/1 : 0[4] -> 99[5] via P2P/IPC\n"
	        "host:1:2 [0] NCCL INFO Channel xx/1 : 0[4] -> 1[5] via P2P/IPC\n"
	        "host:1:2 [0] NCCL INFO Channel 00/1 : 0[4] -> 1[5] via \n"
	        /* Blanks after "via " (a fuzzer found this form looping): no transport. */
	        "host:1:2 [0] NCCL INFO Channel 04/1 : 0[4] -> 1[5] via   \r\n"
	        "host:1:2 [1] transport/p2p.cc:123 (p2pMap) NCCL WARN failed to peer with device "
	        "0\n";
	struct p2ps_chk_nccl n = {0};
	assert_int_equal(p2ps_chk_nccl_parse(log, sizeof(log) - 1, &n), 4);
	/* The ranks are what counts, not the NVML device numbers; each transport once. */
	assert_string_equal(n.transport[0][1], "P2P/direct pointer/read + SHM/direct/direct");
	assert_int_equal(n.n_warnings, 1);
	assert_string_equal(n.warnings[0], "failed to peer with device 0");
	assert_string_equal(p2ps_chk_nccl_class("NET/Socket/0"), "NET");
	assert_string_equal(p2ps_chk_nccl_class("P2PX"), "");
}

/* The 2 x H200 host and one of its runs. */
struct join {
	struct p2ps_host h;
	struct p2ps_analysis an;
	struct p2ps_drv_config cfg;
	struct p2ps_drv_report drv;
	struct p2ps_chk_result *res;
	struct p2ps_chk_report rep;
};

static void load_run(struct join *j, const char *run, const char *const *envp)
{
	struct p2ps_error err = {0};
	char msg[256];
	size_t len;
	memset(j, 0, sizeof(*j));
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_SNAPSHOT,
	        .path = p2ps_test_src_path("tests/fixtures/p2p-check/h200x2/snapshot"),
	        .flags = P2PS_HOST_F_NO_NVML,
	        .envp = envp};
	if (p2ps_host_load(&j->h, &src, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p2ps_drv_config_make(&j->h, NULL, NULL, &j->cfg, msg, sizeof(msg)), 0);
	struct p2ps_analysis_opts ao = {.driver = &j->cfg};
	assert_int_equal(p2ps_analysis_run_opts(&j->h, &ao, &j->an, &err), 0);
	assert_true(j->cfg.known); /* 580.159.04, from the snapshot's /proc */
	assert_int_equal(p2ps_drv_model_run(&j->an, &j->cfg, &j->drv), 0);
	char path[512];
	snprintf(path, sizeof(path), "tests/fixtures/p2p-check/h200x2/%s", run);
	char *text = slurp(p2ps_test_src_path(path), &len);
	j->res = calloc(1, sizeof(*j->res));
	assert_non_null(j->res);
	if (p2ps_chk_result_read(text, len, j->res, &err))
		fail_msg("%s: %s", run, err.msg);
	free(text);
}

static void judge(struct join *j)
{
	struct p2ps_error err = {0};
	p2ps_chk_report_free(&j->rep);
	assert_int_equal(p2ps_chk_report_make(j->res, &j->an, &j->drv, NULL, &j->rep, &err), 0);
}

static void unload(struct join *j)
{
	p2ps_chk_report_free(&j->rep);
	free(j->res);
	p2ps_drv_report_free(&j->drv);
	p2ps_analysis_free(&j->an);
	p2ps_host_free(&j->h);
}

static bool has_cause(const struct p2ps_chk_pair *pp, const char *text)
{
	for (size_t k = 0; k < pp->n_causes; k++)
		if (strstr(pp->cause[k].text, text))
			return true;
	return false;
}

static void test_real_run_works(void **state)
{
	struct join j;
	(void)state;
	load_run(&j, "check-2gpu.json", NULL);
	judge(&j);
	assert_int_equal(j.rep.exit_status, 0);
	assert_string_equal(
	        j.rep.summary,
	        "works: 2 GPUs, 2 ordered pairs x 8 paths verified; NCCL 2.28.3 verified");
	const struct p2ps_chk_pair *pp = &j.rep.pairs[0];
	/* The prediction: the driver's own statuses (the snapshot's nvidia-smi topo -p2p), the
	 * driver model's NVLink path, and NCCL's P2P (NVLink is within its default level PXB). */
	assert_true(pp->pred.reported);
	assert_int_equal(pp->pred.reported_read, P2PS_NV_ST_OK);
	assert_int_equal(pp->pred.reported_write, P2PS_NV_ST_OK);
	assert_int_equal(pp->pred.model_path, P2PS_NV_PATH_NVLINK);
	assert_int_equal(pp->pred.topo, P2PS_TOPO_NV);
	assert_int_equal(pp->pred.nvlinks, 18);
	assert_int_equal(pp->pred.p2p, 1);
	assert_int_equal(pp->pred.nccl_p2p, 1);
	/* NCCL in one process, as it logged: its direct pointer. */
	assert_string_equal(j.res->nccl.transport[0][1], "P2P/direct pointer");
	assert_int_equal(pp->n_causes, 0);
	unload(&j);
}

/* NCCL_P2P_DISABLE=1 as the run saw it: NCCL's SHM is what NCCL's rule predicts. */
static void test_p2p_disabled_run(void **state)
{
	struct join j;
	(void)state;
	static const char *const env[] = {"NCCL_P2P_DISABLE=1", NULL};
	load_run(&j, "check-2gpu-p2p-disabled.json", NULL);
	assert_true(j.res->nccl_env_known);
	assert_string_equal(j.res->nccl_env[j.res->n_nccl_env - 1], "NCCL_P2P_DISABLE=1");
	unload(&j);
	load_run(&j, "check-2gpu-p2p-disabled.json", env);
	judge(&j);
	assert_int_equal(j.rep.exit_status, 0);
	assert_int_equal(j.rep.pairs[0].pred.nccl_p2p, 0);
	assert_string_equal(j.res->nccl.transport[1][0], "SHM/direct/direct");
	unload(&j);
	/* The same log without the variable: NCCL should have used P2P. */
	load_run(&j, "check-2gpu-p2p-disabled.json", NULL);
	judge(&j);
	assert_int_equal(j.rep.exit_status, 1);
	assert_true(has_cause(&j.rep.pairs[0], "NCCL chose a transport through host memory"));
	unload(&j);
}

/* CUDA denying peer access where the driver reports OK: broken, with the GeForce cause. */
static void test_denied_against_driver(void **state)
{
	struct join j;
	(void)state;
	load_run(&j, "check-2gpu-nonccl.json", NULL);
	struct p2ps_chk_obs *o = j.res->obs[0][1];
	o[P2PS_CHK_PEER].form = P2PS_CF_DENIED;
	for (int p = P2PS_CHK_SM_STORE; p < P2PS_CHK_PATHS; p++)
		if (p == P2PS_CHK_SM_STORE || p == P2PS_CHK_SM_LOAD || p == P2PS_CHK_IPC_SM ||
		    p == P2PS_CHK_FD_SM)
			o[p].form = P2PS_CF_NOT_RUN;
	judge(&j);
	const struct p2ps_chk_pair *pp = &j.rep.pairs[0];
	assert_int_equal(pp->verdict, P2PS_CV_BROKEN);
	assert_non_null(strstr(pp->verdict_why, "although the driver reports P2P OK"));
	assert_true(has_cause(pp, "stock driver on GeForce RTX 40/50"));
	assert_int_equal(j.rep.exit_status, 1);
	unload(&j);
}

/* Peer stores that land as zeros behind a translating IOMMU: the IOMMU is the first cause. */
static void test_zeros_behind_translating_iommu(void **state)
{
	struct join j;
	(void)state;
	load_run(&j, "check-2gpu-nonccl.json", NULL);
	struct p2ps_chk_obs *o = &j.res->obs[1][0][P2PS_CHK_SM_STORE];
	o->form = P2PS_CF_ZEROS;
	snprintf(o->detail, sizeof(o->detail), "131072 of 131072 cells zero");
	judge(&j);
	assert_false(has_cause(&j.rep.pairs[1], "the IOMMU translates"));
	for (size_t g = 0; g < j.an.n_gpus; g++)
		j.an.gpus[g].iommu = P2PS_IOMMU_TRANSLATING;
	judge(&j);
	const struct p2ps_chk_pair *pp = &j.rep.pairs[1];
	assert_int_equal(pp->a, 1);
	assert_int_equal(pp->verdict, P2PS_CV_BROKEN);
	assert_true(has_cause(pp, "the IOMMU translates the GPUs' DMA"));
	assert_non_null(strstr(j.rep.summary, "broken: GPU 1 -> GPU 0: sm_store: zeros"));
	unload(&j);
}

/* A hung store: the hang's cause; the step not run behind it leaves nothing unknown since the
 * pair is broken. */
static void test_hang_in_real_run(void **state)
{
	struct join j;
	(void)state;
	load_run(&j, "check-2gpu-nonccl.json", NULL);
	j.res->obs[0][1][P2PS_CHK_SM_LOAD].form = P2PS_CF_HUNG;
	j.res->obs[0][1][P2PS_CHK_IPC_CE].form = P2PS_CF_NOT_RUN;
	judge(&j);
	assert_int_equal(j.rep.pairs[0].verdict, P2PS_CV_BROKEN);
	assert_true(has_cause(&j.rep.pairs[0], "a peer access never completed"));
	assert_int_equal(j.rep.exit_status, 1);
	unload(&j);
}

/* A GPU of the host that CUDA did not see is named as not checked. */
static void test_one_gpu_run_names_the_other(void **state)
{
	struct join j;
	(void)state;
	load_run(&j, "check-1gpu.json", NULL);
	judge(&j);
	assert_int_equal(j.rep.exit_status, 3);
	assert_non_null(
	        strstr(j.rep.host_note, "not checked (not visible to CUDA here): 0000:00:07.0"));
	unload(&j);
	load_run(&j, "check-1gpu-allowed.json", NULL);
	judge(&j);
	assert_true(j.res->policy.allow_single); /* saved with the run */
	assert_int_equal(j.rep.exit_status, 0);
	unload(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_nccl_log_ring),
	        cmocka_unit_test(test_nccl_log_odd_lines),
	        cmocka_unit_test(test_real_run_works),
	        cmocka_unit_test(test_p2p_disabled_run),
	        cmocka_unit_test(test_denied_against_driver),
	        cmocka_unit_test(test_zeros_behind_translating_iommu),
	        cmocka_unit_test(test_hang_in_real_run),
	        cmocka_unit_test(test_one_gpu_run_names_the_other),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
