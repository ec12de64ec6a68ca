/* SPDX-License-Identifier: MIT */
/* The analysis on real captures.
 *
 * GPU snapshots (tests/fixtures/<name>/, captured by scripts/capture-host.sh on the
 * lent H100/H200 machines): bar-inspect's BAR1 size comes from the sysfs resource
 * file and its link from config space, nvidia-smi -q reports both from the driver;
 * they must agree. The topology matrix must equal nvidia-smi topo -m cell by cell
 * (in snapshots the NV# count itself is read from that same topo -m capture, so
 * for NVLink cells the independent part is the PCIe class underneath and the GPU
 * order). A committed fixture that is missing fails its test. The JSON document of a
 * snapshot is checked against the schema. Bridge trees (pciutils' dumps, the QEMU guest)
 * are in test_fixtures_bridges.c. */
#include "fixture_load.h"

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
		char *tok;
		(void)strtok_r(line, "\t", &save); /* skip "GPUn" */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_h200x2_raw_snapshot),
	        cmocka_unit_test(test_h200x2_snapshot),
	        cmocka_unit_test(test_h100_snapshot),
	        cmocka_unit_test(test_json_schema_on_snapshot),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
