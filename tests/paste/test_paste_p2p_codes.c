/* SPDX-License-Identifier: MIT */
/* nvidia-smi topo -p2p codes per pair and path, explained from the driver table:
 *  - two topo -p2p commands in one paste (r, then p) keep both paths;
 *  - the pair's driver word is the read path's code, not PROP's NS;
 *  - PROP's NS on NVLink pairs is normal (client_resource.c sets PROP OK only for the
 *    PCIe mailbox connectivity), never a blocker;
 *  - a matrix whose path the paste does not name gets every gate of its status;
 *  - a prompt indented as markdown nests a code block names the path all the same.
 * Lines: the 4 x H200 capture of tests/fixtures/rm/h200x4 (topo-p2p-r.txt, topo-p2p-p.txt,
 * NVLink NV18 pairs, driver 580.159.04) and the dev case 26-topo-p2p-ok-ns (triton-lang/
 * triton pull request 209, a matrix without its command). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "p2ps_paste_run.h"

#include "p2pscope/analysis.h"
#include "p2pscope/evidence.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/paste_report.h"

static const struct p2ps_paste_p2p_code *code(const struct p2ps_paste_pair *x, char path)
{
	for (size_t k = 0; k < x->n_p2p_codes; k++)
		if (x->p2p_codes[k].path == path)
			return &x->p2p_codes[k];
	return NULL;
}

static const char h200_r_then_p[] = "$ nvidia-smi topo -p2p r\n"
                                    " \tGPU0\tGPU1\tGPU2\tGPU3\t\n"
                                    " GPU0\tX\tOK\tOK\tOK\t\n"
                                    " GPU1\tOK\tX\tOK\tOK\t\n"
                                    " GPU2\tOK\tOK\tX\tOK\t\n"
                                    " GPU3\tOK\tOK\tOK\tX\t\n"
                                    "\n"
                                    "$ nvidia-smi topo -p2p p\n"
                                    " \tGPU0\tGPU1\tGPU2\tGPU3\t\n"
                                    " GPU0\tX\tNS\tNS\tNS\t\n"
                                    " GPU1\tNS\tX\tNS\tNS\t\n"
                                    " GPU2\tNS\tNS\tX\tNS\t\n"
                                    " GPU3\tNS\tNS\tNS\tX\t\n";

static void test_two_paths_kept(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(&x, h200_r_then_p);
	const struct p2ps_evidence *ev = x.h.evidence;
	int g0 = p2ps_evidence_gpu_smi(ev, 0), g1 = p2ps_evidence_gpu_smi(ev, 1);
	const struct p2ps_pair_obs *r = p2ps_evidence_obs_path(ev, g0, g1, 'r');
	const struct p2ps_pair_obs *p = p2ps_evidence_obs_path(ev, g0, g1, 'p');
	assert_non_null(r);
	assert_non_null(p);
	assert_string_equal(r->text, "OK");
	assert_string_equal(p->text, "NS");
	assert_int_equal(p->from.line, 9); /* the second matrix's header */
	p2ps_paste_run_free(&x);
}

static void test_prop_ns_explained_not_blocking(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(&x, h200_r_then_p);
	assert_int_equal(x.r.n_pairs, 6);
	const struct p2ps_paste_pair *pr = &x.r.pairs[0];
	assert_string_equal(pr->p2p_ab, "OK"); /* the read path speaks, not PROP */
	assert_int_equal(pr->n_p2p_codes, 2);
	assert_int_equal(pr->p2p_codes[0].path, 'r'); /* the driver's index order */
	assert_int_equal(pr->p2p_codes[0].status, -1);
	const struct p2ps_paste_p2p_code *p = code(pr, 'p');
	assert_non_null(p);
	assert_int_equal(p->status, P2PS_NV_ST_NOT_SUPPORTED);
	assert_non_null(p->why);
	assert_true(p->why->expected);
	assert_true(p->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_GPU_COMPAT));
	assert_false(p->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_HOST_READ));
	assert_int_equal(x.r.n_causes, 0);
	/* PROP's finding is information and points at its own matrix (line 9). */
	const struct p2ps_reason *prop = NULL;
	for (size_t i = 0; i < x.r.findings.n; i++)
		if (strstr(x.r.findings.v[i].text, "topo -p2p p reports NS"))
			prop = &x.r.findings.v[i];
	assert_non_null(prop);
	assert_int_equal(prop->sev, P2PS_SEV_INFO);
	assert_int_equal(prop->from.line, 9);
	assert_int_not_equal(x.r.verdict, P2PS_VERDICT_NOT_READY);
	p2ps_paste_run_free(&x);
}

static void test_path_not_named(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(&x, "       GPU0    GPU1    GPU2    GPU3    GPU4\n"
	                        "GPU0   X       OK      OK      OK      NS\n"
	                        "GPU1   OK      X       OK      OK      NS\n"
	                        "GPU2   OK      OK      X       OK      NS\n"
	                        "GPU3   OK      OK      OK      X       NS\n"
	                        "GPU4   NS      NS      NS      NS      X\n");
	const struct p2ps_paste_pair *ns = NULL;
	for (size_t i = 0; i < x.r.n_pairs; i++)
		if (!strcmp(x.r.pairs[i].p2p_ab, "NS"))
			ns = &x.r.pairs[i];
	assert_non_null(ns);
	const struct p2ps_paste_p2p_code *c = code(ns, 0);
	assert_non_null(c);
	assert_null(c->why);
	assert_int_equal(c->status, P2PS_NV_ST_NOT_SUPPORTED);
	/* every index's gates of NS: read/write's and atomics' among them */
	assert_true(c->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_GPU_COMPAT));
	assert_true(c->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_MAILBOX_ATOMICS));
	p2ps_paste_run_free(&x);
}

/* nvidia-smi's own layout (tests/fixtures/rm/h200x4), the prompt and the matrix indented
 * by four spaces as a list item's code block is. */
static void test_indented_prompt(void **state)
{
	(void)state;
	struct p2ps_paste_run x = {0};
	p2ps_paste_run_text(&x, "<details>\n"
	                        "\n"
	                        "    $ nvidia-smi topo -p2p w\n"
	                        "     \tGPU0\tGPU1\t\n"
	                        "     GPU0\tX\tGNS\t\n"
	                        "     GPU1\tGNS\tX\t\n"
	                        "</details>\n");
	assert_int_equal(x.r.n_pairs, 1);
	const struct p2ps_paste_p2p_code *w = code(&x.r.pairs[0], 'w');
	assert_non_null(w);
	assert_int_equal(w->status, P2PS_NV_ST_GPU_NOT_SUPPORTED);
	assert_non_null(w->why);
	assert_int_equal(w->gates, P2PS_NV_GATE_BIT(P2PS_NV_GATE_GSP));
	assert_false(w->why->expected);
	p2ps_paste_run_free(&x);
}

/* The table's rows against the driver: p2p_caps.c _kp2pCapsGetStatusOverPcie answers TNS
 * for root ports of two Intel I/O hubs, _p2pCapsGetHostSystemStatusOverPcieBar1 CNS for
 * BAR1 reads without a common switch or a RYZEN / XEON_SPR CPU; client_resource.c copies
 * ATOMICS only when OK, so no DISABLED_BY_REGKEY there. */
static void test_table_rows(void **state)
{
	(void)state;
	const struct p2ps_nv_status_why *w =
	        p2ps_nv_status_why(P2PS_NV_ST_CHIPSET_NOT_SUPPORTED, P2PS_NV_CAPS_READ);
	assert_non_null(w);
	assert_true(w->gates & P2PS_NV_GATE_BIT(P2PS_NV_GATE_HOST_READ));
	assert_false(w->expected);
	w = p2ps_nv_status_why(P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED, P2PS_NV_CAPS_WRITE);
	assert_non_null(w);
	assert_int_equal(w->gates, P2PS_NV_GATE_BIT(P2PS_NV_GATE_IOH));
	assert_null(p2ps_nv_status_why(P2PS_NV_ST_DISABLED_BY_REGKEY, P2PS_NV_CAPS_ATOMICS));
	assert_null(p2ps_nv_status_why(P2PS_NV_ST_OK, P2PS_NV_CAPS_READ));
	assert_int_equal(p2ps_nv_caps_index_from_mode('p'), P2PS_NV_CAPS_PROP);
	assert_int_equal(p2ps_nv_caps_index_from_mode('x'), -1);
	assert_int_equal(p2ps_nv_caps_index_from_mode(0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_two_paths_kept),
	        cmocka_unit_test(test_prop_ns_explained_not_blocking),
	        cmocka_unit_test(test_path_not_named),
	        cmocka_unit_test(test_indented_prompt),
	        cmocka_unit_test(test_table_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
