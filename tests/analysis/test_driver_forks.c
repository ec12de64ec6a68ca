/* SPDX-License-Identifier: MIT */
/* Golden cases for the fork rows: the verdicts that follow a row's props, each expectation
 * read off the fork's code, README or captures (never the model's output):
 *   - 48 GB RTX 4090s (AD102, BAR1 32 GiB < 48 GiB): Duanyll's 595.71.05-p2p-48g shows topo
 *     -p2p OK on every pair of four (hw-logs-2026-07/node6-modded48g/03-topo.log at 9122dccc),
 *     stock 580.95.05 CNS (node14-stock48g/03-topo.log at 23b7fb82); Method 3 drops static
 *     BAR1 from kbusIsPcieBar1P2PMappingSupported_GH100 (method3-impl-notes.md at 12870848)
 *     and the 615 port refuses a pair with one static and one dynamic side;
 *   - RTX 5060 Ti (GB206, 16 GiB BAR1) with a display on aikitoria 610.43.03-p2p: the static
 *     window from 0x20000000, 0x3dfe00000 bytes long, against 0x3e1000000 of client FB on
 *     the headless GPU (validation/gb206-bar1-boundary-2026-08-04.md at 26e1ff53;
 *     kbusIsStaticBar1Supported_TU102 at d682adc5);
 *   - aikitoria's README at 26e1ff53: IOMMU pass-through required; P2P between models of one
 *     generation; patch-libcuda-p2p.py (2a8c369b) for two generations, no marker in the
 *     library: Duanyll docs/libcuda-gdr-615.md (b6aa7da4) gives the 615.71.09 digests.
 * The console and mailbox sizes are the model's stated estimates (driver_bar1.c): 8 MiB of
 * console puts the window at ALIGN_UP(8 MiB, 512 MiB) = 0x20000000 as the measured 0x260000
 * does. */
#include <stdlib.h>
#include <string.h>

#include "driver_dm.h"
#include "p2pscope/driver_model.h"

#define GB206 0x2d04 /* RTX 5060 Ti */
#define GIB   TM_GIB
#define B1    P2PS_NV_PATH_PCIE_BAR1

struct gpu_spec {
	uint16_t chip;
	uint64_t bar1, vram;
	bool console;
};

static void gpu(struct fx *f, int k, const struct gpu_spec *s)
{
	struct p2ps_dev *d = &f->h.devs[k ? f->g1 : f->g0];
	int log2 = 0;
	while ((1ull << log2) < s->bar1)
		log2++;
	d->device_id = s->chip;
	d->bars[1].size = s->bar1;
	d->gpu.vram_bytes = s->vram;
	d->rebar.e[0].current = (uint8_t)(log2 - 20);
	d->rebar.e[0].sizes = 1ull << (log2 - 20); /* the BAR1 set is the largest */
	d->boot_vga = s->console;
}

/* The model of a pair under spec/flavor; params and libcuda as a case sets them first. */
static const struct p2ps_drv_pair *model(struct dm *m, const char *spec, const char *flavor)
{
	char err[160] = "";
	struct p2ps_error e = {0};
	tm_finish(&m->f.h);
	assert_int_equal(p2ps_drv_config_make(&m->f.h, spec, flavor, &m->cfg, err, sizeof(err)), 0);
	struct p2ps_analysis_opts ao = {.driver = &m->cfg};
	assert_int_equal(p2ps_analysis_run_opts(&m->f.h, &ao, &m->f.a, &e), 0);
	assert_int_equal(p2ps_drv_model_run(&m->f.a, &m->cfg, &m->r), 0);
	assert_int_equal(m->r.n_pairs, 1);
	return &m->r.pairs[0];
}

static void host(struct dm *m, const struct gpu_spec *a, const struct gpu_spec *b)
{
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	p2ps_host_free(&m->f.h);
	build_switch(&m->f);
	gpu(&m->f, 0, a);
	gpu(&m->f, 1, b);
}

static enum p2ps_severity sev(const struct dm *m, int gi, enum p2ps_reason_code code)
{
	const struct p2ps_reason *r = tm_find(&m->f.a.gpus[gi].reasons, code, -2);
	assert_non_null(r);
	return r->sev;
}

static const struct gpu_spec g48 = {AD102, 32 * GIB, 48 * GIB, false};

/* 48 GB 4090s: Method 3 takes BAR1 (topo OK), BAR1 below VRAM is a note; stock and
 * aikitoria's static rule leave BAR1 off and the GPU not ready. */
static void method3_48g(void **state)
{
	struct dm *m = *state;
	host(m, &g48, &g48);
	const struct p2ps_drv_pair *p = model(m, "610.57.04", "duanyll");
	assert_int_equal(p->chosen, B1);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_WRITE], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PCI_BAR1], P2PS_NV_ST_OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_ATOMICS], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(sev(m, 0, P2PS_R_BAR1_SMALLER_THAN_VRAM), P2PS_SEV_INFO);
	assert_int_not_equal(pair01(&m->f)->verdict, P2PS_VERDICT_NOT_READY);
	/* the branch name alone says the same */
	host(m, &g48, &g48);
	p = model(m, "610.57.04-p2p-48g", NULL);
	assert_int_equal(m->cfg.flavor, P2PS_NV_FLAVOR_DUANYLL);
	assert_int_equal(p->chosen, B1);
	for (int k = 0; k < 2; k++) {
		const char *flavor = k ? "aikitoria" : "stock";
		host(m, &g48, &g48);
		p = model(m, "610.57.04", flavor);
		assert_int_not_equal(p->chosen, B1);
		assert_int_equal(sev(m, 0, P2PS_R_BAR1_SMALLER_THAN_VRAM), P2PS_SEV_BLOCKER);
		assert_int_equal(pair01(&m->f)->verdict, P2PS_VERDICT_NOT_READY);
	}
}

/* One 48 GB card (dynamic) and one 24 GB card (static BAR1 fits): refused. */
static void method3_mixed(void **state)
{
	struct dm *m = *state;
	const struct gpu_spec g24 = {AD102, 32 * GIB, 24 * GIB, false};
	host(m, &g48, &g24);
	const struct p2ps_drv_pair *p = model(m, "615.71.09-p2p-48g", NULL);
	assert_int_not_equal(p->chosen, B1);
	assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_STATIC_BAR1);
	host(m, &g24, &g24);
	assert_int_equal(model(m, "615.71.09-p2p-48g", NULL)->chosen, B1);
}

/* GB206 16 GiB BAR1: the display GPU's window and the headless one's full mapping. */
static void partial_window(void **state)
{
	struct dm *m = *state;
	const struct gpu_spec shown = {GB206, 16 * GIB, 0x3e10a0000ull, true};
	const struct gpu_spec headless = {GB206, 16 * GIB, 0x3e10a0000ull, false};
	host(m, &shown, &headless);
	const struct p2ps_drv_pair *p = model(m, "610.43.03", "aikitoria");
	const struct p2ps_drv_static_bar1 *a = &m->r.bar1[0], *b = &m->r.bar1[1];
	assert_int_equal(a->st, P2PS_NV_ST_OK);
	assert_true(a->partial);
	assert_int_equal(a->start, 0x20000000ull);
	assert_int_equal(a->map_size, 0x3dfe00000ull);
	assert_int_equal(b->st, P2PS_NV_ST_OK);
	assert_false(b->partial);
	assert_int_equal(b->start, 0);
	assert_int_equal(b->map_size, 0x3e1000000ull);
	assert_int_equal(p->chosen, B1);
	assert_int_equal(sev(m, 0, P2PS_R_STATIC_BAR1), P2PS_SEV_WARNING);
	assert_int_not_equal(pair01(&m->f)->verdict, P2PS_VERDICT_NOT_READY);
	/* stock: the AUTO sum with the console does not fit: static BAR1 off */
	host(m, &shown, &headless);
	model(m, "595.45.04", NULL);
	assert_int_equal(m->r.bar1[0].st, P2PS_NV_ST_NOT_SUPPORTED);
	assert_false(m->r.bar1[0].partial);
}

/* A translating IOMMU: aikitoria's rows need pass-through (a blocker with iommu=pt); the
 * Method 3 row only recommends it (the path rule: the switch keeps the requests below). */
static void iommu_pt(void **state)
{
	struct dm *m = *state;
	const struct gpu_spec g = {AD102, 32 * GIB, 24 * GIB, false};
	for (int k = 0; k < 2; k++) {
		host(m, &g, &g);
		m->f.h.iommu.present = true;
		snprintf(m->f.h.iommu.kind, sizeof(m->f.h.iommu.kind), "amd");
		for (int i = 0; i < 2; i++) {
			struct p2ps_dev *d = &m->f.h.devs[i ? m->f.g1 : m->f.g0];
			d->iommu_group = 10 + i;
			snprintf(d->iommu_domain_type, sizeof(d->iommu_domain_type), "DMA");
		}
		model(m, "610.43.03", k ? "duanyll" : "aikitoria");
		const struct p2ps_reason *r =
		        tm_find(&pair01(&m->f)->reasons, P2PS_R_IOMMU_TRANSLATING, -2);
		assert_non_null(r);
		assert_int_equal(r->sev, k ? P2PS_SEV_WARNING : P2PS_SEV_BLOCKER);
		if (!k)
			assert_non_null(strstr(r->fix, "iommu=pt"));
	}
}

/* GA102 + AD102 on aikitoria 615: the driver maps them (ForceP2P first, BAR1 without the
 * chip check); CUDA's answer is libcuda's: unknown (not hashed) is no pass, the release's
 * digest a blocker, the patched digest a note. Stock: the driver refuses the pair. */
static void mixed_generations(void **state)
{
	struct dm *m = *state;
	const struct gpu_spec a = {GA102, 32 * GIB, 24 * GIB, false};
	const struct gpu_spec b = {AD102, 32 * GIB, 24 * GIB, false};
	static const struct {
		const char *sha;
		enum p2ps_severity sev;
	} cases[] = {
	        {"", P2PS_SEV_UNKNOWN},
	        {"85a8cc8cf00419ceb295ec62c481d05b4cdbdab10f25c5375d6d24bdbe00b4d9",
	         P2PS_SEV_BLOCKER},
	        {"DB526C80BC77E510C6EF11BC5FC283240971EE657596407CDEEFCB2C1BF579AD", P2PS_SEV_INFO},
	        {"0000000000000000000000000000000000000000000000000000000000000000",
	         P2PS_SEV_UNKNOWN},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		host(m, &a, &b);
		snprintf(m->f.h.nvidia.libcuda_sha256, sizeof(m->f.h.nvidia.libcuda_sha256), "%s",
		         cases[i].sha);
		const struct p2ps_drv_pair *p = model(m, "615.71.09-p2p", NULL);
		assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_OK);
		const struct p2ps_reason *r =
		        tm_find(&pair01(&m->f)->reasons, P2PS_R_MIXED_GENERATIONS, -1);
		assert_non_null(r);
		if (r->sev != cases[i].sev)
			fail_msg("libcuda '%s': severity %d, wanted %d", cases[i].sha, r->sev,
			         cases[i].sev);
	}
	host(m, &a, &b);
	const struct p2ps_drv_pair *p = model(m, "595.45.04", NULL);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], P2PS_NV_ST_NOT_SUPPORTED);
	assert_int_equal(tm_find(&pair01(&m->f)->reasons, P2PS_R_MIXED_GENERATIONS, -1)->sev,
	                 P2PS_SEV_BLOCKER);
}

/* The fork from the version line's branch name, its DMA-BUF key from params; a build line
 * without a branch name or a fork's name leaves stock (assumed). */
static void recognised(void **state)
{
	struct dm *m = *state;
	host(m, &g48, &g48);
	struct p2ps_host *h = &m->f.h;
	snprintf(h->nvidia.proc_version, sizeof(h->nvidia.proc_version),
	         "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.43.03  Release "
	         "Build  (u@n1:/src/open-gpu-kernel-modules-610.43.03-p2p)");
	snprintf(h->nvidia.proc_driver_version, sizeof(h->nvidia.proc_driver_version), "610.43.03");
	h->nvidia.params_known = true;
	h->nvidia.n_params = 1;
	snprintf(h->nvidia.params[0].name, sizeof(h->nvidia.params[0].name),
	         "ExperimentalDmaBufP2P");
	h->nvidia.params[0].value = 1;
	model(m, NULL, NULL);
	assert_int_equal(m->cfg.flavor, P2PS_NV_FLAVOR_AIKITORIA);
	assert_false(m->cfg.flavor_guessed);
	assert_true(m->cfg.row_exact);
	assert_int_equal(m->cfg.dmabuf_p2p, 1);
	host(m, &g48, &g48);
	snprintf(m->f.h.nvidia.proc_version, sizeof(m->f.h.nvidia.proc_version),
	         "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.43.03  Release "
	         "Build  (u@p2pbox)");
	snprintf(m->f.h.nvidia.proc_driver_version, sizeof(m->f.h.nvidia.proc_driver_version),
	         "610.43.03");
	model(m, NULL, NULL);
	assert_int_equal(m->cfg.flavor, P2PS_NV_FLAVOR_STOCK);
	assert_true(m->cfg.flavor_guessed);
	assert_int_equal(m->cfg.dmabuf_p2p, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        CASE(method3_48g), CASE(method3_mixed),     CASE(partial_window),
	        CASE(iommu_pt),    CASE(mixed_generations), CASE(recognised),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
