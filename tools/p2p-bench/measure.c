/* SPDX-License-Identifier: MIT */
/* p2p-bench measurement: CUDA runtime host code. Every timed run is queued
 * behind a hold kernel, timed with events on the lead stream, and followed by
 * a verification of every destination buffer it wrote. */
#include "kernels.h"
#include "measure_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

/* One copy of a timed run: executed by device exec on its stream `stream`. */
struct xfer {
	int exec, stream;
	int src_dev, src_buf;
	int dst_dev, dst_buf;
};

static const char *const sm_variant_names[] = {
        [PB_SM_GRID] = "grid",
        [PB_SM_WARP] = "warp",
        [PB_SM_BULK] = "bulk",
};

const char *pb_sm_variant_name(int v)
{
	return v >= 0 && v <= PB_SM_BULK ? sm_variant_names[v] : "unknown";
}

int pb_sm_variant_parse(const char *s, int *v)
{
	for (int k = 0; k <= PB_SM_BULK; k++)
		if (!strcmp(s, sm_variant_names[k])) {
			*v = k;
			return 0;
		}
	return P2PS_EINVAL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Peer access is a property of the pair in both directions, as the copies of
 * a bidirectional run need it both ways. */
static int set_peer(struct ctx *c, int i, int j, bool on)
{
	int pairs[2][2] = {{i, j}, {j, i}};
	if (i == j)
		return 0;
	for (int k = 0; k < 2; k++) {
		int a = pairs[k][0], b = pairs[k][1];
		int e;
		if (!c->r->pair[a][b].can_access || c->peer_on[a][b] == on)
			continue;
		if (on_dev(c, a))
			return c->err->code;
		e = on ? cudaDeviceEnablePeerAccess(ord(c, b), 0)
		       : cudaDeviceDisablePeerAccess(ord(c, b));
		if (cu(c, e, on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess",
		       ord(c, a)))
			return c->err->code;
		c->peer_on[a][b] = on;
	}
	return 0;
}

static int issue(struct ctx *c, enum engine eng, const struct xfer *x, size_t bytes)
{
	struct dev_state *ex = &c->d[x->exec];
	void *dst = c->d[x->dst_dev].buf[x->dst_buf];
	const void *src = c->d[x->src_dev].buf[x->src_buf];
	cudaStream_t s = ex->s[x->stream];

	switch (eng) {
	case ENG_CE:
		return cu(c,
		          cudaMemcpyPeerAsync(dst, ord(c, x->dst_dev), src, ord(c, x->src_dev),
		                              bytes, s),
		          "cudaMemcpyPeerAsync", ord(c, x->exec));
	case ENG_SM16:
		return cu(c, pb_launch_copy16(dst, src, s), "SM 16-byte copy", ord(c, x->exec));
	case ENG_SM_WRITE:
	case ENG_SM_READ: break;
	}
	return cu(c,
	          pb_launch_copy(dst, src, bytes, c->r->dev[x->exec].copy_blocks, c->o->sm_variant,
	                         ex->failed, s),
	          "SM copy", ord(c, x->exec));
}

/* Queues reps rounds of the copies behind a hold, releases them, and returns the
 * time from the lead stream's start to the moment every stream has finished. */
static int timed_run(struct ctx *c, enum engine eng, const struct xfer *x, int nx, size_t bytes,
                     int reps, double *ms)
{
	int lead = x[0].exec;
	struct dev_state *L = &c->d[lead];
	cudaStream_t ls = L->s[x[0].stream];
	float t = 0;

	*c->hold = 0;
	*c->hold_timed_out = 0;
	__sync_synchronize();
	if (on_dev(c, lead) ||
	    cu(c, pb_launch_hold(c->hold, HOLD_TIMEOUT_NS, c->hold_timed_out, ls), "hold kernel",
	       ord(c, lead)) ||
	    cu(c, cudaEventRecord(L->start, ls), "cudaEventRecord", ord(c, lead)))
		return c->err->code;
	for (int k = 1; k < nx; k++)
		if (on_dev(c, x[k].exec) ||
		    cu(c, cudaStreamWaitEvent(c->d[x[k].exec].s[x[k].stream], L->start, 0),
		       "cudaStreamWaitEvent", ord(c, x[k].exec)))
			return c->err->code;
	/* Rounds interleave the copies so that both directions run side by side even
	 * where the driver makes the host wait inside an enqueue (staged copies
	 * without peer access); --grouped queues each direction's copies in one
	 * block, as p2pBandwidthLatencyTest does. */
	for (int a = 0; a < reps * nx; a++) {
		int k = c->o->grouped ? a / reps : a % nx;
		if (on_dev(c, x[k].exec) || issue(c, eng, &x[k], bytes))
			return c->err->code;
	}
	for (int k = 1; k < nx; k++) {
		struct dev_state *E = &c->d[x[k].exec];
		if (on_dev(c, x[k].exec) ||
		    cu(c, cudaEventRecord(E->done[x[k].stream], E->s[x[k].stream]),
		       "cudaEventRecord", ord(c, x[k].exec)) ||
		    on_dev(c, lead) ||
		    cu(c, cudaStreamWaitEvent(ls, E->done[x[k].stream], 0), "cudaStreamWaitEvent",
		       ord(c, lead)))
			return c->err->code;
	}
	if (on_dev(c, lead) || cu(c, cudaEventRecord(L->stop, ls), "cudaEventRecord", ord(c, lead)))
		return c->err->code;
	__sync_synchronize();
	*c->hold = 1;
	for (int k = 0; k < nx; k++)
		if (on_dev(c, x[k].exec) ||
		    cu(c, cudaStreamSynchronize(c->d[x[k].exec].s[x[k].stream]), "copy run",
		       ord(c, x[k].exec)))
			return c->err->code;
	if (on_dev(c, lead) || cu(c, cudaEventElapsedTime(&t, L->start, L->stop),
	                          "cudaEventElapsedTime", ord(c, lead)))
		return c->err->code;
	if (*c->hold_timed_out)
		c->r->hold_timeouts++;
	*ms = t;
	return 0;
}

static int poison(struct ctx *c, const struct xfer *x, int nx, size_t bytes)
{
	for (int k = 0; k < nx; k++) {
		struct dev_state *D = &c->d[x[k].dst_dev];
		if (on_dev(c, x[k].dst_dev) ||
		    cu(c, pb_launch_fill(D->buf[x[k].dst_buf], bytes, POISON_SEED, D->s[0]),
		       "poison fill", ord(c, x[k].dst_dev)) ||
		    cu(c, cudaStreamSynchronize(D->s[0]), "poison fill", ord(c, x[k].dst_dev)))
			return c->err->code;
	}
	return 0;
}

/* Checks every destination against its source's pattern; a mismatch is
 * counted (the run goes on so that the whole picture is reported). */
static int verify(struct ctx *c, const struct xfer *x, int nx, size_t bytes)
{
	for (int k = 0; k < nx; k++) {
		struct dev_state *D = &c->d[x[k].dst_dev];
		unsigned long long bad = 0;
		if (on_dev(c, x[k].dst_dev) ||
		    cu(c, cudaMemsetAsync(D->count, 0, sizeof(*D->count), D->s[0]),
		       "cudaMemsetAsync", ord(c, x[k].dst_dev)) ||
		    cu(c,
		       pb_launch_verify(D->buf[x[k].dst_buf], bytes,
		                        seed_of(x[k].src_dev, x[k].src_buf), D->count, D->s[0]),
		       "verify", ord(c, x[k].dst_dev)) ||
		    cu(c,
		       cudaMemcpyAsync(&bad, D->count, sizeof(bad), cudaMemcpyDeviceToHost,
		                       D->s[0]),
		       "cudaMemcpyAsync", ord(c, x[k].dst_dev)) ||
		    cu(c, cudaStreamSynchronize(D->s[0]), "verify", ord(c, x[k].dst_dev)))
			return c->err->code;
		c->r->copies_verified++;
		c->r->words_bad += bad;
	}
	return 0;
}

/* The bulk kernel stops instead of hanging when a stage never completes and
 * says so in a flag; verification would also fail, but this names the cause. */
static int bulk_failed(struct ctx *c, enum engine eng, const struct xfer *x, int nx)
{
	if ((eng != ENG_SM_WRITE && eng != ENG_SM_READ) || c->o->sm_variant != PB_SM_BULK)
		return 0;
	for (int k = 0; k < nx; k++) {
		int failed = 0;
		if (on_dev(c, x[k].exec) || cu(c,
		                               cudaMemcpy(&failed, c->d[x[k].exec].failed,
		                                          sizeof(failed), cudaMemcpyDeviceToHost),
		                               "cudaMemcpy", ord(c, x[k].exec)))
			return c->err->code;
		if (failed)
			return p2ps_error_set(c->err, P2PS_EIO,
			                      "bulk copy on device %d: a stage never completed",
			                      ord(c, x[k].exec));
	}
	return 0;
}

/* Median time of trials verified runs of reps rounds; one unverified warm-up
 * round first keeps first-touch costs (staging buffers, module load) out. */
static int measure_ms(struct ctx *c, enum engine eng, const struct xfer *x, int nx, size_t bytes,
                      int reps, double *ms)
{
	double t[64] = {0};
	int trials = c->o->trials < 64 ? c->o->trials : 64;
	double warm = 0;

	for (int k = 0; k < c->o->warmup; k++)
		if (timed_run(c, eng, x, nx, bytes, 1, &warm))
			return c->err->code;
	for (int k = 0; k < trials; k++)
		if (poison(c, x, nx, bytes) || timed_run(c, eng, x, nx, bytes, reps, &t[k]) ||
		    verify(c, x, nx, bytes))
			return c->err->code;
	if (bulk_failed(c, eng, x, nx))
		return c->err->code;
	*ms = median(t, trials);
	return 0;
}

static int plan(enum engine eng, bool bidir, int i, int j, struct xfer *x)
{
	bool pull = eng == ENG_SM_READ;
	x[0] = (struct xfer){pull ? j : i, 0, i, SRC0, j, DST0};
	if (!bidir)
		return 1;
	if (i == j)
		x[1] = (struct xfer){i, 1, i, SRC1, i, DST1};
	else
		x[1] = (struct xfer){pull ? i : j, 1, j, SRC0, i, DST0};
	return 2;
}

static int bw_cell(struct ctx *c, enum engine eng, bool bidir, bool p2p, int i, int j, double *out)
{
	struct xfer x[2];
	int nx = plan(eng, bidir, i, j, x);
	size_t bytes = c->o->size;
	double ms = 0;

	if (eng != ENG_CE && i != j && !c->r->pair[i][j].can_access) {
		*out = NAN; /* an SM cannot address memory it has no peer mapping for */
		return 0;
	}
	if (set_peer(c, i, j, p2p) || measure_ms(c, eng, x, nx, bytes, c->o->reps, &ms))
		return c->err->code;
	/* A copy inside one GPU reads and writes its memory: both count. */
	*out = (double)bytes * c->o->reps * nx * (i == j ? 2 : 1) / (ms * 1e-3) / 1e9;
	return 0;
}

static int lat_cell(struct ctx *c, enum engine eng, bool p2p, int i, int j, double *out)
{
	struct xfer x[1];
	double ms = 0;

	plan(ENG_CE, false, i, j, x);
	if (eng != ENG_CE && i != j && !c->r->pair[i][j].can_access) {
		*out = NAN;
		return 0;
	}
	if (set_peer(c, i, j, p2p) || measure_ms(c, eng, x, 1, LAT_BYTES, c->o->lat_reps, &ms))
		return c->err->code;
	*out = ms * 1e3 / c->o->lat_reps;
	return 0;
}

static int pingpong_run(struct ctx *c, int i, int j, unsigned iters, double *ns)
{
	struct dev_state *I = &c->d[i], *J = &c->d[j];
	unsigned long long ri[2] = {0, 1}, rj[2] = {0, 1};

	if (on_dev(c, j) ||
	    cu(c, cudaMemset(J->flag, 0, sizeof(*J->flag)), "cudaMemset", ord(c, j)) ||
	    on_dev(c, i) ||
	    cu(c, cudaMemset(I->flag, 0, sizeof(*I->flag)), "cudaMemset", ord(c, i)))
		return c->err->code;
	/* The responder starts first so that it is waiting when the first ping lands. */
	if (on_dev(c, j) ||
	    cu(c, pb_launch_pingpong(I->flag, J->flag, iters, 0, PP_TIMEOUT_NS, J->pp, J->s[0]),
	       "ping-pong responder", ord(c, j)) ||
	    on_dev(c, i) ||
	    cu(c, pb_launch_pingpong(J->flag, I->flag, iters, 1, PP_TIMEOUT_NS, I->pp, I->s[0]),
	       "ping-pong initiator", ord(c, i)) ||
	    cu(c, cudaStreamSynchronize(I->s[0]), "ping-pong", ord(c, i)) ||
	    cu(c, cudaMemcpy(ri, I->pp, sizeof(ri), cudaMemcpyDeviceToHost), "cudaMemcpy",
	       ord(c, i)) ||
	    on_dev(c, j) || cu(c, cudaStreamSynchronize(J->s[0]), "ping-pong", ord(c, j)) ||
	    cu(c, cudaMemcpy(rj, J->pp, sizeof(rj), cudaMemcpyDeviceToHost), "cudaMemcpy",
	       ord(c, j)))
		return c->err->code;
	if (ri[1] || rj[1])
		return p2ps_error_set(c->err, P2PS_EIO,
		                      "ping-pong %d <-> %d timed out: peer stores not seen",
		                      ord(c, i), ord(c, j));
	*ns = (double)ri[0];
	return 0;
}

/* One-way latency of a GPU store to peer memory seen by a GPU polling it: half
 * a round trip, with no launch or copy-engine overhead inside the loop. */
static int pingpong_cell(struct ctx *c, int i, int j, double *out)
{
	double t[64] = {0}, warm = 0;
	int trials = c->o->trials < 64 ? c->o->trials : 64;
	unsigned iters = c->o->pp_iters;

	if (i == j || !c->r->pair[i][j].can_access || !c->r->pair[j][i].can_access) {
		*out = NAN;
		return 0;
	}
	if (set_peer(c, i, j, true) || pingpong_run(c, i, j, iters / 10 + 1, &warm))
		return c->err->code;
	for (int k = 0; k < trials; k++)
		if (pingpong_run(c, i, j, iters, &t[k]))
			return c->err->code;
	*out = median(t, trials) / (2.0 * iters) / 1e3;
	return 0;
}

struct bw_spec {
	const char *key, *title, *engine;
	enum engine eng;
	bool bidir, p2p, read;
};

static const struct bw_spec bw_specs[] = {
        {"ce_uni_p2p_off", "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s), copy engine", "ce",
         ENG_CE, false, false, false},
        {"ce_uni_p2p_on",
         "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s), copy engine", "ce",
         ENG_CE, false, true, false},
        {"sm_write_uni_p2p_on",
         "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s), SM copy kernel",
         "sm_write", ENG_SM_WRITE, false, true, false},
        {"sm_read_uni_p2p_on",
         "Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s), SM copy kernel",
         "sm_read", ENG_SM_READ, false, true, true},
        {"ce_bi_p2p_off", "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s), copy engine", "ce",
         ENG_CE, true, false, false},
        {"ce_bi_p2p_on", "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s), copy engine", "ce",
         ENG_CE, true, true, false},
        {"sm_write_bi_p2p_on",
         "Bidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s), SM copy kernel",
         "sm_write", ENG_SM_WRITE, true, true, false},
};

struct lat_spec {
	const char *key, *title, *engine;
	enum engine eng;
	bool p2p;
};

static const struct lat_spec lat_specs[] = {
        {"ce_lat_p2p_off", "P2P=Disabled Latency Matrix (us), 16-byte copy-engine copies", "ce",
         ENG_CE, false},
        {"ce_lat_p2p_on",
         "P2P=Enabled Latency (P2P Writes) Matrix (us), 16-byte copy-engine copies", "ce", ENG_CE,
         true},
        {"sm_lat_p2p_on",
         "P2P=Enabled Latency (P2P Writes) Matrix (us), one 16-byte store per kernel", "sm_write",
         ENG_SM16, true},
};

static int run_matrices(struct ctx *c)
{
	struct pb_result *r = c->r;
	int n = r->n;

	for (size_t s = 0; c->o->bandwidth && s < sizeof(bw_specs) / sizeof(bw_specs[0]); s++) {
		const struct bw_spec *b = &bw_specs[s];
		struct pb_matrix *m;
		if (b->read && !c->o->sm_read)
			continue;
		m = pb_add_matrix(r, b->key, b->title, "bandwidth", b->engine, b->bidir, b->p2p);
		if (!m)
			return p2ps_error_set(c->err, P2PS_ENOMEM, "out of memory for matrices");
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (bw_cell(c, b->eng, b->bidir, b->p2p, i, j, pb_cell(r, m, i, j)))
					return c->err->code;
	}
	for (size_t s = 0; c->o->latency && s < sizeof(lat_specs) / sizeof(lat_specs[0]); s++) {
		const struct lat_spec *l = &lat_specs[s];
		struct pb_matrix *m =
		        pb_add_matrix(r, l->key, l->title, "latency", l->engine, false, l->p2p);
		if (!m)
			return p2ps_error_set(c->err, P2PS_ENOMEM, "out of memory for matrices");
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (lat_cell(c, l->eng, l->p2p, i, j, pb_cell(r, m, i, j)))
					return c->err->code;
	}
	if (c->o->latency) {
		struct pb_matrix *m = pb_add_matrix(
		        r, "pingpong_lat_p2p_on",
		        "P2P=Enabled One-Way Latency Matrix (us), GPU store to a polling peer GPU",
		        "latency", "pingpong", false, true);
		if (!m)
			return p2ps_error_set(c->err, P2PS_ENOMEM, "out of memory for matrices");
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (pingpong_cell(c, i, j, pb_cell(r, m, i, j)))
					return c->err->code;
	}
	return 0;
}

int pb_measure(const struct pb_options *o, struct pb_result *r, struct p2ps_error *err)
{
	struct ctx *c = calloc(1, sizeof(*c));
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	if (!c)
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	memset(r, 0, sizeof(*r));
	c->o = o;
	c->r = r;
	c->err = err;
	gmtime_r(&now, &tm);
	strftime(r->date, sizeof(r->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gethostname(r->host, sizeof(r->host) - 1) != 0)
		snprintf(r->host, sizeof(r->host), "unknown");
	rc = pb_probe_devices(c);
	if (rc == 0) {
		cudaRuntimeGetVersion(&r->runtime_version);
		cudaDriverGetVersion(&r->driver_version);
		pb_nvml_fill(r);
		/* Two host-mapped words: the release flag and the hold's timeout report. */
		rc = cu(c,
		        cudaHostAlloc((void **)&c->hold, 2 * sizeof(int),
		                      cudaHostAllocPortable | cudaHostAllocMapped),
		        "cudaHostAlloc", -1);
	}
	if (rc == 0) {
		c->hold_timed_out = (int *)c->hold + 1;
		rc = pb_setup_devices(c);
	}
	if (rc == 0)
		rc = run_matrices(c);
	pb_teardown(c);
	free(c);
	return rc;
}
