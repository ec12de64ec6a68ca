/* SPDX-License-Identifier: MIT */
/* Link arithmetic and the bench/host join (see report.h). */
#include "report.h"

#include "p2pscope/parse.h"
#include "p2pscope/pci_addr.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line-encoding efficiency per PCIe signalling rate (PCIe Base Spec: Gen1/2
 * 8b/10b, Gen3-5 128b/130b, Gen6 FLIT mode with 236 TLP bytes per 256-byte flit). */
static const struct {
	double gts;
	double efficiency;
} pcie_rates[] = {
        {2.5, 8.0 / 10.0},     {5.0, 8.0 / 10.0},     {8.0, 128.0 / 130.0},
        {16.0, 128.0 / 130.0}, {32.0, 128.0 / 130.0}, {64.0, 236.0 / 256.0},
};

double pr_pcie_gbps(double speed_gts, int width)
{
	if (width < 1 || width > 32)
		return NAN;
	for (size_t k = 0; k < sizeof(pcie_rates) / sizeof(pcie_rates[0]); k++)
		if (fabs(speed_gts - pcie_rates[k].gts) < 0.01)
			return speed_gts * width * pcie_rates[k].efficiency / 8.0;
	return NAN;
}

double pr_nvlink_gbps(int links, unsigned mbps_per_link)
{
	if (links <= 0 || mbps_per_link == 0)
		return NAN;
	return links * (double)mbps_per_link / 1000.0;
}

int pr_bdf_normalize(const char *in, char out[PR_BDF_LEN])
{
	struct p2ps_bdf b;
	/* The one PCI-address parser (p2pscope/pci_addr.h); NVML pads the domain to eight
	 * digits, lspci may leave it out. The report spells four-digit domains (PR_BDF_LEN):
	 * CUDA and NVML number theirs below 0x10000. */
	if (p2ps_bdf_parse(in, &b) != 0 || b.domain > 0xffff)
		return P2PS_EINVAL;
	p2ps_bdf_format(&b, out, PR_BDF_LEN);
	return 0;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* Arrays from untrusted documents: anything that is not an array has no
 * elements (json-c asserts on array calls made on other types). */
static size_t arr_len(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static json_object *arr_at(json_object *a, size_t k)
{
	return k < arr_len(a) ? json_object_array_get_idx(a, k) : NULL;
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v = get(o, key);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool get_num(json_object *o, const char *key, double *out)
{
	json_object *v = get(o, key);
	if (!v ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return true;
}

/* Index of the device with this BDF in a devices[] array, or -1. */
static int find_bdf(json_object *devices, const char *bdf)
{
	size_t n = arr_len(devices);
	for (size_t k = 0; k < n; k++) {
		char norm[PR_BDF_LEN];
		const char *b = get_str(arr_at(devices, k), "bdf");
		if (b && pr_bdf_normalize(b, norm) == 0 && !strcmp(norm, bdf))
			return (int)k;
	}
	return -1;
}

/* bar-inspect names pair ends by BDF; an integer is taken as an index into its
 * devices[]. Writes the canonical BDF or "" if neither works. */
static void pair_end(json_object *hdevs, json_object *v, char out[PR_BDF_LEN])
{
	out[0] = 0;
	if (!v)
		return;
	if (json_object_is_type(v, json_type_string)) {
		if (pr_bdf_normalize(json_object_get_string(v), out) != 0)
			out[0] = 0;
		return;
	}
	if (json_object_is_type(v, json_type_int)) {
		int k = json_object_get_int(v);
		if (k < 0 || pr_bdf_normalize(get_str(arr_at(hdevs, (size_t)k), "bdf"), out) != 0)
			out[0] = 0;
	}
}

/* bar-inspect's pairs[] entry for the unordered pair {a, b}, or NULL. */
static json_object *host_pair(json_object *host, const char *a, const char *b)
{
	json_object *pairs = get(host, "pairs"), *hdevs = get(host, "devices");
	size_t n = arr_len(pairs);
	for (size_t k = 0; k < n; k++) {
		json_object *p = arr_at(pairs, k);
		char pa[PR_BDF_LEN], pb[PR_BDF_LEN];
		pair_end(hdevs, get(p, "a"), pa);
		pair_end(hdevs, get(p, "b"), pb);
		if ((!strcmp(pa, a) && !strcmp(pb, b)) || (!strcmp(pa, b) && !strcmp(pb, a)))
			return p;
	}
	return NULL;
}

/* Current PCIe bandwidth of one host device, NAN if bar-inspect had no link. */
static double host_pcie(json_object *hdev, double *gts, int *width)
{
	json_object *link = get(hdev, "link");
	double w = 0;
	if (!get_num(link, "speed_gts", gts) || !get_num(link, "width", &w) || !(w >= 1 && w <= 32))
		return NAN;
	*width = (int)w;
	return pr_pcie_gbps(*gts, *width);
}

/* Active NVLinks from device a (bench devices[] entry) that end at BDF b; adds
 * their per-link rates (MB/s) to *mbps where NVML gave them. */
static int nvlinks_between(json_object *bdev, const char *b, double *mbps)
{
	json_object *links = get(get(bdev, "nvlink"), "links");
	size_t n = arr_len(links);
	int count = 0;
	for (size_t k = 0; k < n; k++) {
		char norm[PR_BDF_LEN];
		json_object *l = arr_at(links, k);
		const char *r = get_str(l, "remote_bdf");
		double rate = 0;
		if (!r || pr_bdf_normalize(r, norm) != 0 || strcmp(norm, b))
			continue;
		count++;
		if (get_num(l, "speed_mbps", &rate))
			*mbps += rate;
	}
	return count;
}

/* The measurement cell [i][j] of matrix key, NAN if absent or null. */
static double cell(json_object *bench, const char *key, int i, int j)
{
	json_object *mats = get(bench, "matrices");
	size_t n = arr_len(mats);
	for (size_t k = 0; k < n; k++) {
		json_object *m = arr_at(mats, k);
		const char *mk = get_str(m, "key");
		json_object *row, *v;
		if (!mk || strcmp(mk, key))
			continue;
		row = arr_at(get(m, "values"), (size_t)i);
		v = arr_at(row, (size_t)j);
		if (v && (json_object_is_type(v, json_type_double) ||
		          json_object_is_type(v, json_type_int)))
			return json_object_get_double(v);
	}
	return NAN;
}

/* A double rounded to 3 decimals that also prints so (json-c would otherwise
 * write 478.11599999999999). */
json_object *pr_json_num(double v)
{
	char buf[32];
	if (isnan(v) || isinf(v))
		return NULL;
	v = round(v * 1000.0) / 1000.0;
	snprintf(buf, sizeof(buf), "%.3f", v);
	for (char *e = buf + strlen(buf) - 1; *e == '0' && e[-1] != '.'; e--)
		*e = 0;
	return json_object_new_double_s(v, buf);
}

static json_object *num_or_null(double v)
{
	return pr_json_num(v);
}

#define PR_NVLINK_MAX  64 /* links one GPU can have, with room to spare */
#define PR_MAX_DEVICES 64 /* GPUs in one bench report (p2p-bench measures up to 16) */

/* Links in an nvidia-smi class such as "NV18"; 0 if it is not one. */
static int nv_class_links(const char *topo)
{
	uint64_t v;
	return !p2ps_parse_uint(topo + 2, PR_NVLINK_MAX, &v) && v >= 1 ? (int)v : 0;
}

/* Theoretical bandwidth per direction for the ordered pair and how it was found. */
static double theory(json_object *bdev_i, json_object *hdev_i, json_object *hdev_j,
                     json_object *hpair, const char *bdf_j, char *basis, size_t len)
{
	const char *topo = get_str(hpair, "topology");
	double g1 = 0, g2 = 0;
	int w1 = 0, w2 = 0;
	double p1, p2;

	if (topo && !strncmp(topo, "NV", 2)) {
		double mbps = 0, sum = 0;
		int links = nvlinks_between(bdev_i, bdf_j, &sum);
		if (links > 0 && sum > 0) {
			snprintf(basis, len, "%d NVLinks, %.3f GB/s in all (NVML)", links,
			         sum / 1000.0);
			return sum / 1000.0;
		}
		/* NVML named no remote ends here (a VM hides them): the count comes
		 * from bar-inspect's pair, else from the class (NV18: 18 bonded links). */
		if (links == 0) {
			double hl = 0;
			if (get_num(hpair, "nvlinks", &hl) && hl >= 1 && hl <= PR_NVLINK_MAX)
				links = (int)hl;
			else
				links = nv_class_links(topo);
		}
		if (links == 0) {
			snprintf(basis, len, "NVLink count unknown (%s)", topo);
			return NAN;
		}
		if (!get_num(get(bdev_i, "nvlink"), "speed_mbps", &mbps) ||
		    !(mbps > 0 && mbps < 1e7)) {
			snprintf(basis, len, "%d NVLinks, per-link rate unknown (no NVML)", links);
			return NAN;
		}
		snprintf(basis, len, "%d NVLinks (%s) x %.3f GB/s (NVML)", links, topo,
		         mbps / 1000.0);
		return pr_nvlink_gbps(links, (unsigned)mbps);
	}
	p1 = host_pcie(hdev_i, &g1, &w1);
	p2 = host_pcie(hdev_j, &g2, &w2);
	if (isnan(p1) || isnan(p2)) {
		snprintf(basis, len, "PCIe link speed/width unknown");
		return NAN;
	}
	/* The slower end's link bounds the path (bridges between are assumed not slower). */
	if (p1 <= p2)
		snprintf(basis, len, "PCIe %g GT/s x%d (slower end)", g1, w1);
	else
		snprintf(basis, len, "PCIe %g GT/s x%d (slower end)", g2, w2);
	return p1 < p2 ? p1 : p2;
}

static const struct {
	const char *name;   /* key in the combined report */
	const char *matrix; /* bench matrix it comes from */
	int directions;     /* 2: bidirectional, judged against twice the link */
} measures[] = {
        {"ce_uni", "ce_uni_p2p_on", 1},           {"sm_write_uni", "sm_write_uni_p2p_on", 1},
        {"sm_read_uni", "sm_read_uni_p2p_on", 1}, {"ce_bi", "ce_bi_p2p_on", 2},
        {"sm_write_bi", "sm_write_bi_p2p_on", 2},
};

static json_object *combine_pair(json_object *bench, json_object *host, int i, int j)
{
	json_object *bdevs = get(bench, "devices"), *hdevs = get(host, "devices");
	json_object *bi = arr_at(bdevs, (size_t)i);
	json_object *bj = arr_at(bdevs, (size_t)j);
	char a[PR_BDF_LEN] = "", b[PR_BDF_LEN] = "", basis[96] = "";
	int hi, hj;
	const char *topo;
	json_object *hpair, *ready;
	double limit;
	json_object *o = json_object_new_object(), *meas = json_object_new_object(),
	            *ratio = json_object_new_object();

	if (pr_bdf_normalize(get_str(bi, "bdf"), a) != 0)
		a[0] = 0;
	if (pr_bdf_normalize(get_str(bj, "bdf"), b) != 0)
		b[0] = 0;
	hi = find_bdf(hdevs, a);
	hj = find_bdf(hdevs, b);
	hpair = host_pair(host, a, b);
	topo = get_str(hpair, "topology");
	limit = theory(bi, hi >= 0 ? arr_at(hdevs, (size_t)hi) : NULL,
	               hj >= 0 ? arr_at(hdevs, (size_t)hj) : NULL, hpair, b, basis, sizeof(basis));
	if (hi < 0 || hj < 0)
		snprintf(basis, sizeof(basis), "not in the host report");

	json_object_object_add(o, "src", json_object_new_string(a));
	json_object_object_add(o, "dst", json_object_new_string(b));
	json_object_object_add(o, "src_index", json_object_new_int(i));
	json_object_object_add(o, "dst_index", json_object_new_int(j));
	json_object_object_add(o, "topology", topo ? json_object_new_string(topo) : NULL);
	json_object_object_add(
	        o, "link",
	        topo ? json_object_new_string(strncmp(topo, "NV", 2) ? "pcie" : "nvlink") : NULL);
	json_object_object_add(o, "theoretical_gbps", hi < 0 || hj < 0 ? NULL : num_or_null(limit));
	json_object_object_add(o, "theory_basis", json_object_new_string(basis));
	/* bar-inspect's verdict travels along, so one line shows prediction and measurement. */
	ready = get(hpair, "p2p_ready");
	json_object_object_add(o, "p2p_ready", ready ? json_object_get(ready) : NULL);
	for (size_t k = 0; k < sizeof(measures) / sizeof(measures[0]); k++) {
		double m = cell(bench, measures[k].matrix, i, j);
		json_object_object_add(meas, measures[k].name, num_or_null(m));
		json_object_object_add(ratio, measures[k].name,
		                       hi < 0 || hj < 0
		                               ? NULL
		                               : num_or_null(m / (measures[k].directions * limit)));
	}
	json_object_object_add(o, "measured_gbps", meas);
	json_object_object_add(o, "ratio", ratio);
	return o;
}

int pr_combine(json_object *bench, json_object *host, json_object **out, struct p2ps_error *err)
{
	json_object *bdevs = get(bench, "devices"), *hdevs = get(host, "devices");
	json_object *pairs;
	size_t n;

	if (!bdevs || !json_object_is_type(bdevs, json_type_array) || !get(bench, "matrices"))
		return p2ps_error_set(
		        err, P2PS_EINVAL,
		        "bench report lacks devices[] or matrices[] (not p2p-bench --json?)");
	if (!hdevs || !json_object_is_type(hdevs, json_type_array))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "host report lacks devices[] (not bar-inspect --json?)");
	n = json_object_array_length(bdevs);
	if (n > PR_MAX_DEVICES)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "bench report lists %zu devices, more than %d", n,
		                      PR_MAX_DEVICES);
	*out = json_object_new_object();
	json_object_object_add(*out, "schema_version", json_object_new_int(PB_JSON_SCHEMA_VERSION));
	pairs = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j)
				json_object_array_add(pairs,
				                      combine_pair(bench, host, (int)i, (int)j));
	json_object_object_add(*out, "pairs", pairs);
	return 0;
}
