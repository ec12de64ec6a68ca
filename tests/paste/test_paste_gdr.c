/* SPDX-License-Identifier: MIT */
/* GPUDirect RDMA on a real host read from a paste: tests/fixtures/esc8000a-e12-rdma (an
 * ASUS ESC8000A-E12, 4 x RTX 6000 Ada and 2 dual-port ConnectX-7, lspci -tv, lspci -vvv,
 * nvidia-smi and nvidia-smi topo -m as published; source in the README beside it). Every
 * GPU x NIC function pair must have a verdict with its reasons and fixes. The path classes
 * are the source's own nvidia-smi topo -m rows (NIC0/NIC1 = mlx5_0/1 = 21:00.0/.1 on NUMA
 * node 0, NIC2/NIC3 = 81:00.0/.1 on node 1): NODE for a GPU and a NIC of one socket, SYS
 * across sockets. The rules are the GPUDirect RDMA guide's (5.4: a path across sockets may
 * not work; one through the CPU works with slow peer reads) and NCCL's ncclTopoCheckGdr
 * (src/graph/paths.cc: GDR only up to NCCL_NET_GDR_LEVEL, PXB by default). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2ps_test.h"
#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/pci_addr.h"

static const struct expect {
	const char *gpu, *nic;
	enum p2ps_topo topo;
} expected[] = {
        {"0000:01:00.0", "0000:21:00.0", P2PS_TOPO_NODE},
        {"0000:01:00.0", "0000:21:00.1", P2PS_TOPO_NODE},
        {"0000:01:00.0", "0000:81:00.0", P2PS_TOPO_SYS},
        {"0000:01:00.0", "0000:81:00.1", P2PS_TOPO_SYS},
        {"0000:41:00.0", "0000:21:00.0", P2PS_TOPO_NODE},
        {"0000:41:00.0", "0000:21:00.1", P2PS_TOPO_NODE},
        {"0000:41:00.0", "0000:81:00.0", P2PS_TOPO_SYS},
        {"0000:41:00.0", "0000:81:00.1", P2PS_TOPO_SYS},
        {"0000:c1:00.0", "0000:21:00.0", P2PS_TOPO_SYS},
        {"0000:c1:00.0", "0000:21:00.1", P2PS_TOPO_SYS},
        {"0000:c1:00.0", "0000:81:00.0", P2PS_TOPO_NODE},
        {"0000:c1:00.0", "0000:81:00.1", P2PS_TOPO_NODE},
        {"0000:e1:00.0", "0000:21:00.0", P2PS_TOPO_SYS},
        {"0000:e1:00.0", "0000:21:00.1", P2PS_TOPO_SYS},
        {"0000:e1:00.0", "0000:81:00.0", P2PS_TOPO_NODE},
        {"0000:e1:00.0", "0000:81:00.1", P2PS_TOPO_NODE},
};

struct state {
	struct p2ps_host h;
	struct p2ps_analysis a;
};

static int setup(void **st)
{
	struct state *s = calloc(1, sizeof(*s));
	struct p2ps_error err = {0};
	const char *path = p2ps_test_src_path("tests/fixtures/esc8000a-e12-rdma/paste.txt");
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_PASTE, .path = path, .flags = P2PS_HOST_F_NO_NVML};
	if (!s || p2ps_host_load(&s->h, &src, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	if (p2ps_analysis_run(&s->h, &s->a, &err) < 0)
		fail_msg("analysis: %s", err.msg);
	*st = s;
	return 0;
}

static int teardown(void **st)
{
	struct state *s = *st;
	p2ps_analysis_free(&s->a);
	p2ps_host_free(&s->h);
	free(s);
	return 0;
}

static const struct p2ps_gdr_pair *pair(const struct state *s, const char *gpu, const char *nic)
{
	for (size_t i = 0; i < s->a.n_gdr; i++) {
		const struct p2ps_gdr_pair *p = &s->a.gdr[i];
		int g = s->a.gpus[p->gpu].dev_idx;
		if (!strcmp(s->h.devs[g].bdf_str, gpu) &&
		    !strcmp(s->h.devs[p->dev_idx].bdf_str, nic))
			return p;
	}
	fail_msg("no GPUDirect RDMA pair %s <-> %s", gpu, nic);
	return NULL;
}

static const struct p2ps_reason *reason(const struct p2ps_gdr_pair *p, enum p2ps_reason_code c)
{
	for (size_t i = 0; i < p->reasons.n; i++)
		if (p->reasons.v[i].code == c)
			return &p->reasons.v[i];
	return NULL;
}

/* Four ConnectX-7 functions (two named by lspci -vvv, their port-1 siblings by the tree
 * only) and four GPUs: 16 pairs, no more. */
static void test_every_pair(void **st)
{
	const struct state *s = *st;
	assert_int_equal(s->a.n_gpus, 4);
	assert_int_equal(s->a.n_rdma_devs, 4);
	assert_int_equal(s->a.n_gdr, sizeof(expected) / sizeof(expected[0]));
}

static void test_path_classes(void **st)
{
	const struct state *s = *st;
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct p2ps_gdr_pair *p = pair(s, expected[i].gpu, expected[i].nic);
		if (p->topo != expected[i].topo)
			fail_msg("%s <-> %s: %s, nvidia-smi topo -m says %s", expected[i].gpu,
			         expected[i].nic, p2ps_topo_name(p->topo),
			         p2ps_topo_name(expected[i].topo));
	}
}

/* Across sockets: not ready, the path is the blocker and has a fix. Within a socket: the
 * path only warns (with a fix), and the verdict stays unknown because the paste shows
 * neither the IOMMU state nor nvidia-peermem. NCCL uses GPUDirect RDMA for no pair (NODE
 * and SYS are beyond PXB) and says which NCCL_NET_GDR_LEVEL would change that. */
static void test_verdicts_reasons_fixes(void **st)
{
	const struct state *s = *st;
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct p2ps_gdr_pair *p = pair(s, expected[i].gpu, expected[i].nic);
		const struct p2ps_reason *path = reason(p, P2PS_R_GDR_PATH);
		const struct p2ps_reason *nccl = reason(p, P2PS_R_GDR_NCCL);
		const struct p2ps_reason *peer = reason(p, P2PS_R_GDR_PEER_MEMORY);
		assert_non_null(path);
		assert_non_null(nccl);
		assert_non_null(peer);
		assert_true(path->fix[0] != '\0');
		assert_true(nccl->fix[0] != '\0');
		assert_int_equal(peer->sev, P2PS_SEV_UNKNOWN);
		assert_int_equal(p->nccl_gdr, 0);
		if (expected[i].topo == P2PS_TOPO_SYS) {
			assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
			assert_int_equal(path->sev, P2PS_SEV_BLOCKER);
			assert_non_null(strstr(nccl->fix, "NCCL_NET_GDR_LEVEL=SYS"));
		} else {
			assert_int_equal(p->verdict, P2PS_VERDICT_UNKNOWN);
			assert_int_equal(path->sev, P2PS_SEV_WARNING);
			assert_non_null(strstr(nccl->fix, "NCCL_NET_GDR_LEVEL=PHB"));
		}
	}
}

/* The port-1 functions come from the tree alone; they take the class and NUMA node of
 * port 0 (lspci -vvv: Ethernet controller, NUMA node 0 / 1). */
static void test_sibling_functions(void **st)
{
	const struct state *s = *st;
	static const struct {
		const char *bdf;
		int numa;
	} fn1[] = {{"0000:21:00.1", 0}, {"0000:81:00.1", 1}};
	for (size_t i = 0; i < 2; i++) {
		struct p2ps_bdf b;
		assert_int_equal(p2ps_bdf_parse(fn1[i].bdf, &b), 0);
		const struct p2ps_dev *d = p2ps_host_find(&s->h, &b);
		assert_non_null(d);
		assert_int_equal(d->vendor_id, 0x15b3);
		assert_int_equal(d->class_code >> 8, 0x0200);
		assert_int_equal(d->numa_node, fn1[i].numa);
		assert_null(p2ps_dev_unknown(d, P2PS_FACT_NUMA));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_every_pair),
	        cmocka_unit_test(test_path_classes),
	        cmocka_unit_test(test_verdicts_reasons_fixes),
	        cmocka_unit_test(test_sibling_functions),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
