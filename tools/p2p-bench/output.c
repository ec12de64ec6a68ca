/* SPDX-License-Identifier: MIT */
/* Text and JSON rendering of a p2p-bench result (see output.h). */
#include "output.h"
#include "report.h"

#include <math.h>
#include <string.h>

#include "json_put.h"

/* A titled n x n table; over, when given, divides each cell by its cell (a ratio). */
static void print_cells(FILE *f, const struct pb_result *r, const char *title,
                        const struct pb_matrix *m, const struct pb_matrix *over)
{
	fprintf(f, "%s\n   D\\D", title);
	for (int j = 0; j < r->n; j++)
		fprintf(f, " %7d", j);
	fputc('\n', f);
	for (int i = 0; i < r->n; i++) {
		fprintf(f, "%6d", i);
		for (int j = 0; j < r->n; j++) {
			double v = *pb_cell(r, m, i, j);
			if (over)
				v /= *pb_cell(r, over, i, j);
			if (isnan(v) || isinf(v))
				fprintf(f, " %7s", "n/a");
			else
				fprintf(f, over ? " %7.3f" : " %7.2f", v);
		}
		fputc('\n', f);
	}
}

static void print_matrix(FILE *f, const struct pb_result *r, const struct pb_matrix *m)
{
	print_cells(f, r, m->title, m, NULL);
}

static void print_attr(FILE *f, int v)
{
	if (v < 0)
		fputc('?', f);
	else
		fprintf(f, "%d", v);
}

static const char *yes_no(int v)
{
	return v < 0 ? "?" : v ? "yes" : "no";
}

/* What the GPU says about GPUDirect RDMA and about sharing its memory (one line). */
static void print_gdr(FILE *f, const struct pb_gdr_attrs *g)
{
	fprintf(f, "  GPUDirect RDMA: %s, with VMM: %s, dma-buf: %s, POSIX-FD handles: %s",
	        yes_no(g->rdma_supported), yes_no(g->rdma_with_vmm), yes_no(g->dma_buf),
	        yes_no(g->posix_fd_handles));
	if (g->rdma_flush_options >= 0)
		fprintf(f, ", flush options 0x%x", (unsigned)g->rdma_flush_options);
	if (g->rdma_writes_ordering >= 0)
		fprintf(f, ", writes ordering %d", g->rdma_writes_ordering);
	fputc('\n', f);
}

/* An IPC matrix over the one-process matrix it is set beside, cell by cell. */
static void print_ratio(FILE *f, const struct pb_result *r, const struct pb_matrix *m)
{
	const struct pb_matrix *b = m->base ? pb_find_matrix(r, m->base) : NULL;
	char title[128];
	if (!b)
		return;
	snprintf(title, sizeof(title), "\n%s over %s (1.00 = the same)", m->key, b->key);
	print_cells(f, r, title, m, b);
}

void pb_print_text(FILE *f, const struct pb_result *r, const struct pb_options *o)
{
	fprintf(f, "[p2p-bench] P2P bandwidth and latency, %d GPU(s), %s on %s\n", r->n, r->date,
	        r->host);
	fprintf(f,
	        "CUDA runtime %d.%d, driver %d.%d; %.1f MiB per copy, %d copies per run, median of "
	        "%d runs; SM copy kernel '%s'\n",
	        r->runtime_version / 1000, r->runtime_version % 1000 / 10, r->driver_version / 1000,
	        r->driver_version % 1000 / 10, o->size / 1048576.0, o->reps, o->trials,
	        pb_sm_variant_name(o->sm_variant));
	for (int i = 0; i < r->n; i++) {
		const struct pb_device *d = &r->dev[i];
		fprintf(f, "Device: %d, %s, pciBusID: %s, cc %d.%d, %d SMs, %.1f GiB", d->ordinal,
		        d->name, d->bdf, d->cc_major, d->cc_minor, d->sm_count,
		        d->mem_bytes / 1073741824.0);
		if (d->nvlink.known && d->nvlink.active)
			fprintf(f, ", NVLink: %d links x %.3f GB/s", d->nvlink.active,
			        d->nvlink.speed_mbps / 1000.0);
		else if (d->nvlink.known)
			fprintf(f, ", NVLink: none active");
		fputc('\n', f);
		print_gdr(f, &d->gdr);
	}
	if (!r->nvml)
		fprintf(f, "NVML: %s\n", r->nvml_note);

	fprintf(f, "\nP2P Connectivity Matrix (cudaDeviceCanAccessPeer)\n     D\\D");
	for (int j = 0; j < r->n; j++)
		fprintf(f, "%6d", j);
	fputc('\n', f);
	for (int i = 0; i < r->n; i++) {
		fprintf(f, "%6d\t", i);
		for (int j = 0; j < r->n; j++)
			fprintf(f, "%6d", i == j ? 1 : r->pair[i][j].can_access);
		fputc('\n', f);
	}
	if (r->n > 1) {
		fprintf(f, "P2P Attributes src -> dst: performance rank, access supported, native "
		           "atomics, CUDA array access\n");
		for (int i = 0; i < r->n; i++)
			for (int j = 0; j < r->n; j++) {
				const struct pb_pair *p = &r->pair[i][j];
				if (i == j)
					continue;
				fprintf(f, "  %d -> %d: rank ", r->dev[i].ordinal,
				        r->dev[j].ordinal);
				print_attr(f, p->perf_rank);
				fprintf(f, ", access ");
				print_attr(f, p->access_supported);
				fprintf(f, ", atomics ");
				print_attr(f, p->native_atomics);
				fprintf(f, ", arrays ");
				print_attr(f, p->cuda_array_access);
				fputc('\n', f);
			}
	}
	for (int k = 0; k < r->nmat; k++) {
		fputc('\n', f);
		print_matrix(f, r, &r->mat[k]);
	}
	for (int k = 0; k < r->nmat; k++)
		print_ratio(f, r, &r->mat[k]);
	fprintf(f, "\nVerification: %llu transfers checked, %llu mismatched 32-bit words%s\n",
	        r->copies_verified, r->words_bad, r->words_bad ? "  ** DATA ERRORS **" : "");
	if (r->hold_timeouts)
		fprintf(f,
		        "Note: %d timed runs started before the host had queued them all; their "
		        "times may include host delays\n",
		        r->hold_timeouts);
}

static json_object *num_or_null(double v)
{
	return pr_json_num(v);
}

static json_object *attr_json(int v)
{
	return v < 0 ? NULL : json_object_new_int(v);
}

static json_object *gdr_json(const struct pb_gdr_attrs *g)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "rdma_supported", attr_json(g->rdma_supported));
	json_object_object_add(o, "rdma_with_vmm", attr_json(g->rdma_with_vmm));
	json_object_object_add(o, "rdma_flush_writes_options", attr_json(g->rdma_flush_options));
	json_object_object_add(o, "rdma_writes_ordering", attr_json(g->rdma_writes_ordering));
	json_object_object_add(o, "dma_buf", attr_json(g->dma_buf));
	json_object_object_add(o, "posix_fd_handles", attr_json(g->posix_fd_handles));
	return o;
}

static json_object *device_json(const struct pb_device *d, int index)
{
	json_object *o = json_object_new_object();
	char cc[16];

	snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
	json_object_object_add(o, "index", json_object_new_int(index));
	json_object_object_add(o, "cuda_ordinal", json_object_new_int(d->ordinal));
	json_object_object_add(o, "name", json_object_new_string(d->name));
	json_object_object_add(o, "bdf", json_object_new_string(d->bdf));
	json_object_object_add(o, "compute_capability", json_object_new_string(cc));
	json_object_object_add(o, "sm_count", json_object_new_int(d->sm_count));
	json_object_object_add(o, "memory_bytes", json_object_new_int64((int64_t)d->mem_bytes));
	json_object_object_add(o, "sm_copy_blocks", json_object_new_int(d->copy_blocks));
	json_object_object_add(o, "gpudirect", gdr_json(&d->gdr));
	if (d->nvlink.known) {
		json_object *nv = json_object_new_object(), *links = json_object_new_array();
		json_object_object_add(nv, "speed_mbps",
		                       json_object_new_int64(d->nvlink.speed_mbps));
		json_object_object_add(nv, "active", json_object_new_int(d->nvlink.active));
		for (int l = 0; l < PB_NVLINK_MAX; l++) {
			json_object *e;
			if (!d->nvlink.up[l])
				continue;
			e = json_object_new_object();
			json_object_object_add(e, "link", json_object_new_int(l));
			json_object_object_add(e, "remote_bdf",
			                       d->nvlink.remote[l][0]
			                               ? json_object_new_string(d->nvlink.remote[l])
			                               : NULL);
			json_object_object_add(e, "remote_bus_id",
			                       json_object_new_string(d->nvlink.remote_raw[l]));
			json_object_object_add(e, "speed_mbps",
			                       json_object_new_int64(d->nvlink.link_mbps[l]));
			json_object_array_add(links, e);
		}
		json_object_object_add(nv, "links", links);
		json_object_object_add(o, "nvlink", nv);
	} else {
		json_object_object_add(o, "nvlink", NULL);
	}
	return o;
}

static json_object *options_json(const struct pb_options *o)
{
	json_object *opts = json_object_new_object();
	const struct p2ps_json_int_row counts[] = {{"size_bytes", (int64_t)o->size},
	                                           {"reps", o->reps},
	                                           {"trials", o->trials},
	                                           {"latency_reps", o->lat_reps},
	                                           {"pingpong_iters", o->pp_iters},
	                                           {"warmup", o->warmup}};
	p2ps_json_put_ints(opts, P2PS_JSON_ROWS(counts));
	json_object_object_add(opts, "grouped", json_object_new_boolean(o->grouped));
	json_object_object_add(opts, "ipc_cuda_ipc",
	                       json_object_new_boolean((o->ipc & PB_IPC_CUDA_IPC) != 0));
	json_object_object_add(opts, "ipc_posix_fd",
	                       json_object_new_boolean((o->ipc & PB_IPC_FD) != 0));
	json_object_object_add(opts, "sm_kernel",
	                       json_object_new_string(pb_sm_variant_name(o->sm_variant)));
	return opts;
}

/* Peer access and the P2P attributes of every ordered pair (null: the query failed). */
static json_object *pairs_json(const struct pb_result *r)
{
	json_object *pairs = json_object_new_array();
	for (int i = 0; i < r->n; i++)
		for (int j = 0; j < r->n; j++) {
			const struct pb_pair *p = &r->pair[i][j];
			if (i == j)
				continue;
			json_object *e = json_object_new_object();
			json_object_object_add(e, "src", json_object_new_int(i));
			json_object_object_add(e, "dst", json_object_new_int(j));
			json_object_object_add(e, "can_access_peer",
			                       json_object_new_boolean(p->can_access));
			json_object_object_add(e, "performance_rank", attr_json(p->perf_rank));
			json_object_object_add(e, "access_supported",
			                       attr_json(p->access_supported));
			json_object_object_add(e, "native_atomics", attr_json(p->native_atomics));
			json_object_object_add(e, "cuda_array_access",
			                       attr_json(p->cuda_array_access));
			json_object_array_add(pairs, e);
		}
	return pairs;
}

static json_object *matrix_json(const struct pb_result *r, const struct pb_matrix *m)
{
	json_object *e = json_object_new_object(), *rows = json_object_new_array();
	bool bw = !strcmp(m->metric, "bandwidth");
	json_object_object_add(e, "key", json_object_new_string(m->key));
	json_object_object_add(e, "title", json_object_new_string(m->title));
	json_object_object_add(e, "metric", json_object_new_string(m->metric));
	json_object_object_add(e, "unit", json_object_new_string(bw ? "GB/s" : "us"));
	json_object_object_add(e, "engine", json_object_new_string(m->engine));
	json_object_object_add(e, "bidirectional", json_object_new_boolean(m->bidirectional));
	json_object_object_add(e, "p2p", json_object_new_boolean(m->p2p));
	if (m->sharing)
		json_object_object_add(e, "sharing", json_object_new_string(m->sharing));
	if (m->base)
		json_object_object_add(e, "set_beside", json_object_new_string(m->base));
	for (int i = 0; i < r->n; i++) {
		json_object *row = json_object_new_array();
		for (int j = 0; j < r->n; j++)
			json_object_array_add(row, num_or_null(*pb_cell(r, m, i, j)));
		json_object_array_add(rows, row);
	}
	json_object_object_add(e, "values", rows);
	return e;
}

json_object *pb_to_json(const struct pb_result *r, const struct pb_options *o)
{
	json_object *root = json_object_new_object();
	json_object *nvml = json_object_new_object(), *devs = json_object_new_array();
	json_object *mats = json_object_new_array(), *ver = json_object_new_object();
	char v[16];

	if (!root)
		return NULL;
	/* schemas/p2p-bench.schema.json; raised only when a key changes meaning or goes away */
	json_object_object_add(root, "schema_version", json_object_new_int(PB_JSON_SCHEMA_VERSION));
	json_object_object_add(root, "tool", json_object_new_string("p2p-bench"));
	json_object_object_add(root, "version", json_object_new_string(P2PS_VERSION));
	json_object_object_add(root, "date", json_object_new_string(r->date));
	json_object_object_add(root, "host", json_object_new_string(r->host));
	snprintf(v, sizeof(v), "%d.%d", r->runtime_version / 1000, r->runtime_version % 1000 / 10);
	json_object_object_add(root, "cuda_runtime", json_object_new_string(v));
	snprintf(v, sizeof(v), "%d.%d", r->driver_version / 1000, r->driver_version % 1000 / 10);
	json_object_object_add(root, "cuda_driver", json_object_new_string(v));
	json_object_object_add(root, "options", options_json(o));
	json_object_object_add(nvml, "available", json_object_new_boolean(r->nvml));
	json_object_object_add(nvml, "note", json_object_new_string(r->nvml_note));
	json_object_object_add(root, "nvml", nvml);
	for (int i = 0; i < r->n; i++)
		json_object_array_add(devs, device_json(&r->dev[i], i));
	json_object_object_add(root, "devices", devs);
	json_object_object_add(root, "pairs", pairs_json(r));
	for (int k = 0; k < r->nmat; k++)
		json_object_array_add(mats, matrix_json(r, &r->mat[k]));
	json_object_object_add(root, "matrices", mats);
	json_object_object_add(ver, "transfers",
	                       json_object_new_int64((int64_t)r->copies_verified));
	json_object_object_add(ver, "mismatched_words",
	                       json_object_new_int64((int64_t)r->words_bad));
	json_object_object_add(root, "verification", ver);
	json_object_object_add(root, "hold_timeouts", json_object_new_int(r->hold_timeouts));
	return root;
}

static const char *str_of(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "-";
	return json_object_get_string(v);
}

static void print_measure(FILE *f, json_object *pair, const char *key)
{
	json_object *meas = NULL, *ratio = NULL, *m = NULL, *q = NULL;
	json_object_object_get_ex(pair, "measured_gbps", &meas);
	json_object_object_get_ex(pair, "ratio", &ratio);
	json_object_object_get_ex(meas, key, &m);
	json_object_object_get_ex(ratio, key, &q);
	if (!m) {
		fprintf(f, " %14s", "n/a");
		return;
	}
	if (q)
		fprintf(f, " %7.1f (%3.0f%%)", json_object_get_double(m),
		        100.0 * json_object_get_double(q));
	else
		fprintf(f, " %7.1f (  ?%%)", json_object_get_double(m));
}

void pb_print_combined(FILE *f, json_object *combined)
{
	json_object *pairs = NULL;
	size_t n;

	json_object_object_get_ex(combined, "pairs", &pairs);
	n = pairs ? json_object_array_length(pairs) : 0;
	fprintf(f, "Measured (P2P enabled, GB/s) against the link limit per direction "
	           "(bidirectional against twice it)\n");
	fprintf(f, "%-30s %-6s %8s %14s %14s %14s %14s %14s  %s\n", "src -> dst", "topo", "limit",
	        "CE uni", "SM write uni", "SM read uni", "CE bi", "SM write bi", "basis");
	for (size_t k = 0; k < n; k++) {
		json_object *p = json_object_array_get_idx(pairs, k), *lim = NULL;
		char ends[40];
		snprintf(ends, sizeof(ends), "%s -> %s", str_of(p, "src"), str_of(p, "dst"));
		fprintf(f, "%-30s %-6s", ends, str_of(p, "topology"));
		json_object_object_get_ex(p, "theoretical_gbps", &lim);
		if (lim)
			fprintf(f, " %8.1f", json_object_get_double(lim));
		else
			fprintf(f, " %8s", "?");
		print_measure(f, p, "ce_uni");
		print_measure(f, p, "sm_write_uni");
		print_measure(f, p, "sm_read_uni");
		print_measure(f, p, "ce_bi");
		print_measure(f, p, "sm_write_bi");
		fprintf(f, "  %s\n", str_of(p, "theory_basis"));
	}
	if (n == 0)
		fprintf(f, "(one device: no pairs to compare)\n");
}
