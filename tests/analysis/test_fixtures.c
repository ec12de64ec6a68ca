/* The analysis on real captures.
 *
 * GPU snapshots (tests/fixtures/<name>/, captured by scripts/capture-host.sh on the
 * lent H100/H200 machines): bar-inspect's BAR1 size comes from the sysfs resource
 * file and its link from config space, nvidia-smi -q reports both from the driver;
 * they must agree. The topology matrix must equal nvidia-smi topo -m cell by cell
 * (in snapshots the NV# count itself is read from that same topo -m capture, so
 * for NVLink cells the independent part is the PCIe class underneath and the GPU
 * order). A committed fixture that is missing fails its test; pciutils' dumps, which
 * live outside the checkout, skip their cases when absent (fail under CI=true).
 *
 * pciutils' own test dumps (../shared/fixtures/pciutils-tests/, real machines): the
 * path, topology class and ACS facts bar-inspect derives from the bridge tree. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/render.h"
#include "p2ps_test.h"

#define MIB (1024ull * 1024)

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			char *nb = realloc(buf, cap);
			assert_non_null(nb);
			buf = nb;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The absolute path of a fixture committed under tests/: it is part of the checkout,
 * so a missing one fails the test instead of skipping it (a skip would pass). */
static const char *repo_fixture(const char *rel)
{
	const char *root = p2ps_test_src_path(rel);
	if (!exists(root))
		fail_msg("%s: committed fixture missing", root);
	return root;
}

struct load {
	struct p2ps_host h;
	struct p2ps_analysis a;
};

static void load_peers(struct load *l, enum p2ps_host_backend_kind kind, const char *path,
                       const char *const *peers, size_t n_peers)
{
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = kind, .path = path, .flags = P2PS_HOST_F_NO_NVML};
	struct p2ps_bdf bdfs[8];
	memset(l, 0, sizeof(*l));
	int rc = p2ps_host_load(&l->h, &src, &err);
	if (rc)
		fail_msg("load %s: %s", path, err.msg);
	assert_true(n_peers <= 8);
	for (size_t i = 0; i < n_peers; i++)
		assert_int_equal(p2ps_bdf_parse(peers[i], &bdfs[i]), 0);
	struct p2ps_analysis_opts o = {.peers = bdfs, .n_peers = n_peers};
	assert_int_equal(p2ps_analysis_run_opts(&l->h, &o, &l->a, &err), 0);
}

static void load(struct load *l, enum p2ps_host_backend_kind kind, const char *path)
{
	load_peers(l, kind, path, NULL, 0);
}

static void unload(struct load *l)
{
	p2ps_analysis_free(&l->a);
	p2ps_host_free(&l->h);
}

static int dev_index(const struct p2ps_host *h, const char *bdf)
{
	struct p2ps_bdf b;
	assert_int_equal(p2ps_bdf_parse(bdf, &b), 0);
	const struct p2ps_dev *d = p2ps_host_find(h, &b);
	assert_non_null(d);
	return (int)(d - h->devs);
}

/* ---- nvidia-smi -q: one section per GPU ------------------------------------------ */

struct smi_gpu {
	char bdf[16];
	uint64_t bar1_mib;
	int max_gen, max_width, cur_width;
};

/* The value after " : " on the first line at or after p that starts (after spaces)
 * with key, searching no further than end. */
static const char *smi_value(const char *p, const char *end, const char *key)
{
	size_t kl = strlen(key);
	while (p && p < end) {
		const char *s = p;
		while (*s == ' ')
			s++;
		if (!strncmp(s, key, kl) && (s[kl] == ' ' || s[kl] == ':')) {
			const char *c = strchr(s, ':');
			return c ? c + 1 : NULL;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static int smi_parse(const char *text, struct smi_gpu *out, int max)
{
	int n = 0;
	const char *p = text;
	while ((p = strstr(p, "\nGPU ")) != NULL && n < max) {
		p++;
		unsigned dom, bus, dev, fn;
		if (sscanf(p, "GPU %x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
			continue;
		const char *end = strstr(p + 4, "\nGPU ");
		if (!end)
			end = p + strlen(p);
		struct smi_gpu *g = &out[n++];
		memset(g, 0, sizeof(*g));
		snprintf(g->bdf, sizeof(g->bdf), "%04x:%02x:%02x.%x", dom & 0xffff, bus, dev, fn);
		const char *bar1 = strstr(p, "BAR1 Memory Usage");
		const char *v = bar1 && bar1 < end ? smi_value(bar1, end, "Total") : NULL;
		if (v)
			g->bar1_mib = strtoull(v, NULL, 10);
		const char *gen = strstr(p, "PCIe Generation");
		if (gen && gen < end) {
			v = smi_value(gen, end, "Device Max");
			if (!v)
				v = smi_value(gen, end, "Max");
			if (v)
				g->max_gen = atoi(v);
		}
		const char *w = strstr(p, "Link Width");
		if (w && w < end) {
			v = smi_value(w, end, "Max");
			if (v)
				g->max_width = atoi(v);
			v = smi_value(w, end, "Current");
			if (v)
				g->cur_width = atoi(v);
		}
	}
	return n;
}

/* ---- nvidia-smi topo -m: the GPU-by-GPU cells --------------------------------------- */

static void strip_ansi(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (*r == '\x1b') {
			while (*r && *r != 'm')
				r++;
			if (*r)
				r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* Fills cells[i][j] for the GPU rows; returns the GPU count. */
static int topo_parse(char *text, char cells[8][8][8])
{
	int n = 0;
	strip_ansi(text);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int row;
		if (sscanf(line, "GPU%d", &row) != 1 || row != n || n >= 8)
			continue;
		char *save = NULL;
		char *tok = strtok_r(line, "\t", &save); /* "GPUn" */
		for (int j = 0; j < 8 && (tok = strtok_r(NULL, "\t", &save)) != NULL; j++) {
			while (*tok == ' ')
				tok++;
			size_t l = strlen(tok);
			while (l && tok[l - 1] == ' ')
				tok[--l] = '\0';
			snprintf(cells[n][j], sizeof(cells[n][j]), "%s", tok);
		}
		n++;
	}
	return n;
}

static void matrix_cell(const struct p2ps_analysis *a, size_t i, size_t j, char *buf, size_t size)
{
	enum p2ps_topo t = a->matrix[i * a->n_gpus + j];
	if (t == P2PS_TOPO_NV)
		snprintf(buf, size, "NV%d", a->nvlink_matrix[i * a->n_gpus + j]);
	else
		snprintf(buf, size, "%s", p2ps_topo_name(t));
}

/* Checks one committed GPU snapshot against its own nvidia-smi captures. */
static void check_snapshot_vs_nvidia_smi(const char *rel, size_t expect_gpus)
{
	char root[4096], q[4200], topo[4200];
	snprintf(root, sizeof(root), "%s", repo_fixture(rel));
	snprintf(q, sizeof(q), "%s/p2pscope/nvidia-smi-q.txt", root);
	snprintf(topo, sizeof(topo), "%s/p2pscope/nvidia-smi-topo-m.txt", root);
	struct load l;
	load(&l, P2PS_HOST_SNAPSHOT, root);
	assert_int_equal(l.a.n_gpus, expect_gpus);

	char *qtext = slurp(q);
	assert_non_null(qtext);
	struct smi_gpu smi[16];
	int n = smi_parse(qtext, smi, 16);
	free(qtext);
	assert_int_equal((size_t)n, l.a.n_gpus);
	for (int k = 0; k < n; k++) {
		/* nvidia-smi numbers GPUs in PCI order, as bar-inspect does. */
		const struct p2ps_gpu_report *g = &l.a.gpus[k];
		const struct p2ps_dev *d = &l.h.devs[g->dev_idx];
		assert_string_equal(d->bdf_str, smi[k].bdf);
		assert_true(g->bar1_size_known);
		assert_true(smi[k].bar1_mib > 0);
		assert_int_equal(g->bar1_size, smi[k].bar1_mib * MIB);
		assert_int_equal(d->pcie.cap.speed, smi[k].max_gen);
		assert_int_equal(d->pcie.cap.width, smi[k].max_width);
		assert_int_equal(d->pcie.sta.width, smi[k].cur_width);
		assert_true(g->link_cap_gbps > 0);
	}

	char *ttext = slurp(topo);
	assert_non_null(ttext);
	char cells[8][8][8] = {{{0}}};
	int tn = topo_parse(ttext, cells);
	free(ttext);
	assert_int_equal((size_t)tn, l.a.n_gpus);
	for (int i = 0; i < tn; i++)
		for (int j = 0; j < tn; j++) {
			char mine[16];
			matrix_cell(&l.a, (size_t)i, (size_t)j, mine, sizeof(mine));
			if (strcmp(mine, cells[i][j]))
				fail_msg("%s: topo -m GPU%d/GPU%d says %s, bar-inspect %s", rel, i,
				         j, cells[i][j], mine);
		}

	/* nvidia-smi nvlink --status lists each GPU's links; the active ones must all be
	 * accounted for by the NV# cells of its row (exactly, with two GPUs, where every link
	 * goes to the other one). This file is not what the snapshot's NV# is read from. */
	char nvl[4200];
	snprintf(nvl, sizeof(nvl), "%s/p2pscope/nvidia-smi-nvlink.txt", root);
	char *ntext = exists(nvl) ? slurp(nvl) : NULL;
	if (ntext) {
		int active[16] = {0}, gpu = -1;
		for (char *line = strtok(ntext, "\n"); line; line = strtok(NULL, "\n")) {
			if (!strncmp(line, "GPU ", 4))
				gpu = atoi(line + 4);
			else if (gpu >= 0 && gpu < 16 && strstr(line, "Link ") &&
			         strstr(line, "GB/s"))
				active[gpu]++;
		}
		free(ntext);
		for (size_t i = 0; i < l.a.n_gpus && i < 16; i++) {
			int sum = 0;
			for (size_t j = 0; j < l.a.n_gpus; j++)
				sum += l.a.nvlink_matrix[i * l.a.n_gpus + j];
			if (l.a.n_gpus == 2)
				assert_int_equal(sum, active[i]);
			else
				assert_true(sum <= active[i] || sum == 0);
		}
	}
	unload(&l);
}

static void test_h200x2_raw_snapshot(void **state)
{
	(void)state;
	check_snapshot_vs_nvidia_smi("tests/fixtures/h200x2-raw-snap", 2);
	/* What the firecracker guest looks like beyond nvidia-smi: both GPUs on the root
	 * bus (PHB under the NVLink), BAR1 256 GiB >= VRAM, no IOMMU: ready but moot. */
	struct load l;
	load(&l, P2PS_HOST_SNAPSHOT, p2ps_test_src_path("tests/fixtures/h200x2-raw-snap"));
	const struct p2ps_pair *p = p2ps_analysis_pair(&l.a, 0, 1);
	assert_non_null(p);
	assert_int_equal(p->topo, P2PS_TOPO_NV);
	assert_int_equal(p->pcie_topo, P2PS_TOPO_PHB);
	assert_int_equal(p->lca_idx, -1);
	assert_true(p->moot);
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(l.a.gpus[k].bar1_index, 2); /* BAR0 is 64-bit on Hopper */
		assert_true(l.a.gpus[k].bar1_covers_vram);
		assert_int_equal(l.a.gpus[k].iommu, P2PS_IOMMU_OFF);
		assert_int_equal(l.a.gpus[k].path_len, 0);
	}
	/* Gen5 x16: 32 GT/s * 16 lanes * 128/130 / 8 = 63.0 GB/s per direction. */
	assert_true(p->pcie_gbps > 62.9 && p->pcie_gbps < 63.1);
	unload(&l);
}

static void test_h200x2_snapshot(void **state)
{
	(void)state;
	check_snapshot_vs_nvidia_smi("tests/fixtures/h200x2", 2);
}

static void test_h100_snapshot(void **state)
{
	(void)state;
	check_snapshot_vs_nvidia_smi("tests/fixtures/h100", 1);
}

/* X58 board with an NVIDIA NF200 switch (upstream 02:00.0, downstream 03:00.0/03:02.0)
 * and a GeForce 210 on root port 00:07.0. */
static void test_asus_p6t6_tree(void **state)
{
	(void)state;
	struct load l;
	const char *dump = p2ps_test_shared_path("fixtures/pciutils-tests/tree-asus-p6t6.txt");
	load(&l, P2PS_HOST_LSPCI_DUMP, dump);
	const struct p2ps_host *h = &l.h;
	int lca, turn[2];
	int nic = dev_index(h, "04:00.0"), gpu = dev_index(h, "06:00.0"),
	    gpu_audio = dev_index(h, "06:00.1");
	int usp = dev_index(h, "02:00.0"), dsp0 = dev_index(h, "03:00.0"),
	    dsp2 = dev_index(h, "03:02.0");
	int rp = dev_index(h, "00:07.0");
	/* Through the NF200 and root port 00:03.0, over to root port 00:07.0: PHB. */
	assert_int_equal(p2ps_topo_classify(h, nic, gpu, &lca, turn), P2PS_TOPO_PHB);
	assert_int_equal(lca, -1);
	assert_int_equal(turn[0], dev_index(h, "00:03.0"));
	assert_int_equal(turn[1], rp);
	/* The GPU's two functions meet at their root port: one bridge. */
	assert_int_equal(p2ps_topo_classify(h, gpu, gpu_audio, &lca, turn), P2PS_TOPO_PIX);
	assert_int_equal(lca, rp);
	/* Below the switch: the device under 03:00.0 and the empty port 03:02.0 meet at the
	 * upstream port. */
	assert_int_equal(p2ps_topo_classify(h, nic, dsp2, &lca, turn), P2PS_TOPO_PIX);
	assert_int_equal(lca, usp);
	assert_int_equal(turn[0], dsp0);
	/* Bus ff (the X58's uncore devices) hangs under another host bridge; a dump has no
	 * NUMA nodes, so the class is NODE. */
	assert_int_equal(p2ps_topo_classify(h, gpu, dev_index(h, "ff:00.0"), &lca, turn),
	                 P2PS_TOPO_NODE);

	assert_int_equal(l.a.n_gpus, 1);
	const struct p2ps_gpu_report *g = &l.a.gpus[0];
	assert_int_equal(g->dev_idx, gpu);
	assert_int_equal(g->path_len, 1);
	assert_int_equal(g->path[0], rp);
	assert_int_equal(g->bar1_index, 1); /* GeForce: 32-bit BAR0, BAR1 at register 1 */
	/* A dump carries no sizes and no IOMMU state: said so, not guessed. */
	assert_false(g->bar1_size_known);
	assert_int_equal(g->iommu, P2PS_IOMMU_UNKNOWN);
	bool bar1_unknown = false;
	for (size_t i = 0; i < g->reasons.n; i++)
		bar1_unknown |= g->reasons.v[i].code == P2PS_R_BAR1_UNKNOWN;
	assert_true(bar1_unknown);
	unload(&l);
}

/* Sunrise Point root port with ACS (capable of SV TB RR CR, nothing enabled) above a
 * GP108M (MX150): ACS decoded, Pascal flagged as outside the open kernel modules. */
static void test_sunrise_point_acs(void **state)
{
	(void)state;
	struct load l;
	const char *dump = p2ps_test_shared_path("fixtures/pciutils-tests/cap-exp-lnkcap2.txt");
	load(&l, P2PS_HOST_LSPCI_DUMP, dump);
	int rp = dev_index(&l.h, "00:1c.0");
	const struct p2ps_dev *d = &l.h.devs[rp];
	assert_true(d->acs.present);
	char buf[128];
	/* The strings lspci -vv prints for this dump. */
	assert_string_equal(p2ps_acs_format(d->acs.cap, buf, sizeof(buf)),
	                    "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- "
	                    "DirectTrans-");
	assert_int_equal(p2ps_acs_redirect_bits(d->acs.ctl), 0);
	assert_int_equal(l.a.n_gpus, 1);
	const struct p2ps_gpu_report *g = &l.a.gpus[0];
	assert_int_equal(g->path_len, 1);
	assert_int_equal(g->path[0], rp);
	bool pascal = false;
	for (size_t i = 0; i < g->reasons.n; i++)
		pascal |= g->reasons.v[i].code == P2PS_R_GENERATION_UNSUPPORTED &&
		          strstr(g->reasons.v[i].text, "GP108") != NULL;
	assert_true(pascal);
	unload(&l);
}

/* The JSON document of a real snapshot: the fields of the schema in docs/bar-inspect.md,
 * with the values the snapshot holds, read back through json-c. */
static void test_json_schema_on_snapshot(void **state)
{
	(void)state;
	const char *root = repo_fixture("tests/fixtures/h200x2-raw-snap");
	struct load l;
	load(&l, P2PS_HOST_SNAPSHOT, root);
	struct p2ps_strbuf sb = {0};
	struct p2ps_error err = {0};
	struct p2ps_render_opts ro = {0};
	assert_int_equal(p2ps_render_json_text(&l.a, &ro, &sb, &err), 0);
	struct json_object *doc = json_tokener_parse(sb.s);
	assert_non_null(doc);
	struct json_object *devs, *pairs, *v;
	assert_true(json_object_object_get_ex(doc, "devices", &devs));
	assert_int_equal(json_object_array_length(devs), 2);
	struct json_object *d0 = json_object_array_get_idx(devs, 0);
	assert_true(json_object_object_get_ex(d0, "bdf", &v));
	assert_string_equal(json_object_get_string(v), "0000:00:06.0");
	assert_true(json_object_object_get_ex(d0, "vendor_id", &v));
	assert_int_equal(json_object_get_int(v), 0x10de);
	assert_true(json_object_object_get_ex(d0, "device_id", &v));
	assert_int_equal(json_object_get_int(v), 0x2335);
	assert_true(json_object_object_get_ex(d0, "class", &v));
	assert_int_equal(json_object_get_int(v), 0x030200);
	assert_true(json_object_object_get_ex(d0, "chip", &v));
	struct json_object *cn;
	assert_true(json_object_object_get_ex(v, "name", &cn));
	assert_string_equal(json_object_get_string(cn), "GH100");
	struct json_object *bars;
	assert_true(json_object_object_get_ex(d0, "bars", &bars));
	assert_int_equal(json_object_array_length(bars), 3);
	struct json_object *b1 = json_object_array_get_idx(bars, 1);
	assert_true(json_object_object_get_ex(b1, "index", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(b1, "size", &v));
	assert_true(json_object_get_uint64(v) == 256ull << 30);
	assert_true(json_object_object_get_ex(b1, "address", &v));
	assert_true(json_object_get_uint64(v) == 0x100000000000ull);
	assert_true(json_object_object_get_ex(b1, "is_64bit", &v));
	assert_true(json_object_get_boolean(v));
	struct json_object *link;
	assert_true(json_object_object_get_ex(d0, "link", &link));
	assert_true(json_object_object_get_ex(link, "cap_speed_gts", &v));
	assert_true(json_object_get_double(v) == 32.0);
	assert_true(json_object_object_get_ex(link, "width", &v));
	assert_int_equal(json_object_get_int(v), 16);
	assert_true(json_object_object_get_ex(d0, "acs", &v));
	assert_null(v); /* endpoint without ACS */
	assert_true(json_object_object_get_ex(d0, "parent", &v));
	assert_null(v); /* on the root bus */
	assert_true(json_object_object_get_ex(d0, "path", &v));
	assert_int_equal(json_object_array_length(v), 0);
	assert_true(json_object_object_get_ex(d0, "iommu_group", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(doc, "pairs", &pairs));
	assert_int_equal(json_object_array_length(pairs), 1);
	struct json_object *p0 = json_object_array_get_idx(pairs, 0);
	assert_true(json_object_object_get_ex(p0, "a", &v));
	assert_string_equal(json_object_get_string(v), "0000:00:06.0");
	assert_true(json_object_object_get_ex(p0, "topology", &v));
	assert_string_equal(json_object_get_string(v), "NV18");
	assert_true(json_object_object_get_ex(p0, "p2p_ready", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(p0, "reasons", &v));
	assert_true(json_object_array_length(v) >= 1);
	json_object_put(doc);
	p2ps_strbuf_free(&sb);
	unload(&l);
}

/* ---- the QEMU guest: a real kernel's view of a PCIe switch, root ports with ACS and an
 * Intel IOMMU (tests/fixtures/qemu-switch/README.md). QEMU cannot present an NVIDIA GPU,
 * so the three ivshmem functions with 4/8/16 GiB prefetchable BARs are the peers. */

static const char *const qemu_peers[] = {"0000:03:00.0", "0000:04:00.0", "0000:06:00.0"};

static const struct p2ps_reason *find(const struct p2ps_reasons *r, enum p2ps_reason_code code,
                                      int dev_idx)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].code == code && r->v[i].dev_idx == dev_idx)
			return &r->v[i];
	return NULL;
}

/* The ACSCtl line lspci -vvv printed inside the guest for bdf, whitespace-normalised. */
static bool lspci_acsctl(const char *vvv, const char *bdf, char *out, size_t size)
{
	char *text = slurp(vvv);
	assert_non_null(text);
	char head[32];
	snprintf(head, sizeof(head), "\n%s ", bdf);
	const char *blk = strstr(text, head);
	bool found = false;
	if (blk) {
		const char *end = strstr(blk + 1, "\n\n");
		const char *acs = strstr(blk, "ACSCtl:");
		if (acs && (!end || acs < end)) {
			acs += strlen("ACSCtl:");
			while (*acs == ' ' || *acs == '\t')
				acs++;
			size_t n = strcspn(acs, "\n");
			snprintf(out, size, "%.*s", (int)n, acs);
			found = true;
		}
	}
	free(text);
	return found;
}

static void check_qemu_classes(const struct load *l)
{
	assert_int_equal(l->a.n_gpus, 3);
	for (size_t i = 0; i < 3; i++)
		assert_false(l->a.gpus[i].is_gpu);
	/* 03:00.0 and 04:00.0 under one x3130 switch; 06:00.0 on another root port. */
	assert_int_equal(l->a.matrix[0 * 3 + 1], P2PS_TOPO_PIX);
	assert_int_equal(l->a.matrix[0 * 3 + 2], P2PS_TOPO_PHB);
	assert_int_equal(l->a.matrix[1 * 3 + 2], P2PS_TOPO_PHB);
	const struct p2ps_pair *p = p2ps_analysis_pair(&l->a, 0, 1);
	assert_int_equal(p->lca_idx, dev_index(&l->h, "01:00.0"));
	assert_int_equal(p->turn[0], dev_index(&l->h, "02:00.0"));
	assert_int_equal(p->turn[1], dev_index(&l->h, "02:01.0"));
	/* The peer window is the 64-bit prefetchable BAR2 the test sized. */
	assert_int_equal(l->a.gpus[0].bar1_index, 2);
	if (l->a.gpus[2].bar1_size_known)
		assert_true(l->a.gpus[2].bar1_size == 16ull << 30);
}

static void test_qemu_switch_acs_on(void **state)
{
	(void)state;
	const char *root = repo_fixture("tests/fixtures/qemu-switch/acs-on");
	struct load l;
	load_peers(&l, P2PS_HOST_SNAPSHOT, root, qemu_peers, 3);
	check_qemu_classes(&l);
	assert_true(l.h.iommu.present);
	int rp1 = dev_index(&l.h, "00:01.0"), rp2 = dev_index(&l.h, "00:02.0");
	/* The kernel's ACS control on the root port, as lspci decoded it in the guest. */
	char want[128], got[128];
	char vvv[4200];
	snprintf(vvv, sizeof(vvv), "%s/p2pscope/lspci-vvv.txt", root);
	assert_true(lspci_acsctl(vvv, "0000:00:01.0", want, sizeof(want)));
	assert_true(l.h.devs[rp1].acs.present);
	assert_string_equal(p2ps_acs_format(l.h.devs[rp1].acs.ctl, got, sizeof(got)), want);

	/* Within the switch: no ACS on the downstream ports, so the requests turn there and
	 * never meet the IOMMU: translation is a warning, the pair is ready. */
	const struct p2ps_pair *p = p2ps_analysis_pair(&l.a, 0, 1);
	const struct p2ps_reason *r =
	        find(&p->reasons, P2PS_R_IOMMU_TRANSLATING, l.a.gpus[0].dev_idx);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_WARNING);
	assert_int_equal(p->verdict, P2PS_VERDICT_READY);
	/* Across root ports: through the root complex, translated (DMA-FQ): not ready, and
	 * both root ports redirect (warnings, with the setpci value for ctl 0x1d). */
	p = p2ps_analysis_pair(&l.a, 0, 2);
	assert_int_equal(p->verdict, P2PS_VERDICT_NOT_READY);
	r = find(&p->reasons, P2PS_R_IOMMU_TRANSLATING, l.a.gpus[2].dev_idx);
	assert_non_null(r);
	assert_int_equal(r->sev, P2PS_SEV_BLOCKER);
	r = find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp1);
	assert_non_null(r);
	char fix[96];
	snprintf(fix, sizeof(fix), "setpci -s 0000:00:01.0 ECAP_ACS+0x6.w=%04x",
	         p2ps_acs_ctl_without_redirect(l.h.devs[rp1].acs.ctl));
	assert_non_null(strstr(r->fix, fix));
	assert_non_null(find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp2));
	unload(&l);

	/* The guest's own lspci -xxxx dump gives the same tree and classes. */
	char dump[4200];
	snprintf(dump, sizeof(dump), "%s/p2pscope/lspci-xxxx.txt", root);
	load_peers(&l, P2PS_HOST_LSPCI_DUMP, dump, qemu_peers, 3);
	check_qemu_classes(&l);
	assert_int_equal(p2ps_analysis_pair(&l.a, 0, 2)->verdict, P2PS_VERDICT_UNKNOWN);
	unload(&l);
}

static void test_qemu_switch_acs_off(void **state)
{
	(void)state;
	const char *root = repo_fixture("tests/fixtures/qemu-switch/acs-off");
	struct load l;
	load_peers(&l, P2PS_HOST_SNAPSHOT, root, qemu_peers, 3);
	check_qemu_classes(&l);
	int rp1 = dev_index(&l.h, "00:01.0"), rp2 = dev_index(&l.h, "00:02.0");
	/* disable-acs=on: no capability on 00:01.0, so no redirect reason for it; the
	 * switch and its endpoints collapse into one IOMMU group. */
	assert_false(l.h.devs[rp1].acs.present);
	assert_null(p2ps_dev_unknown(&l.h.devs[rp1], P2PS_FACT_ACS));
	const struct p2ps_pair *p = p2ps_analysis_pair(&l.a, 0, 2);
	assert_null(find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp1));
	assert_non_null(find(&p->reasons, P2PS_R_ACS_REDIRECT_ROOT, rp2));
	const struct p2ps_dev *d0 = &l.h.devs[l.a.gpus[0].dev_idx];
	const struct p2ps_dev *d1 = &l.h.devs[l.a.gpus[1].dev_idx];
	assert_true(d0->iommu_group >= 0);
	assert_int_equal(d0->iommu_group, d1->iommu_group);
	assert_int_equal(p2ps_analysis_pair(&l.a, 0, 1)->verdict, P2PS_VERDICT_READY);
	unload(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_h200x2_raw_snapshot),
	        cmocka_unit_test(test_h200x2_snapshot),
	        cmocka_unit_test(test_h100_snapshot),
	        cmocka_unit_test(test_asus_p6t6_tree),
	        cmocka_unit_test(test_sunrise_point_acs),
	        cmocka_unit_test(test_json_schema_on_snapshot),
	        cmocka_unit_test(test_qemu_switch_acs_on),
	        cmocka_unit_test(test_qemu_switch_acs_off),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
