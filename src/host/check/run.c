/* SPDX-License-Identifier: MIT */
/* The run of a check: threads ("lanes", one per GPU and one for NCCL) that make the calls of
 * the operations table, each under a deadline, and the plan they follow.
 *
 * A call that hangs cannot be cancelled (a CUDA call waiting for a peer that never answers
 * does not return). So every call runs on its GPU's lane while the run waits with a
 * deadline; a lane past its deadline is given up: its step is "hung", and every later step
 * that needs that lane is "not run". The lane's memory (struct lanes) is shared by reference
 * count with its threads, so a thread that returns late writes into memory that is still
 * there. The plan, per path: in rounds r = 1 .. n-1 every GPU a accesses GPU (a + r) mod n at
 * once, so that each GPU is the source of one step and the target of one; before each round
 * every GPU fills all its windows with its canaries (and a step's source with its payload),
 * after it every GPU scans all its windows, and each step is judged from what all GPUs
 * found (classify.c). */
#include "check_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum job_kind { J_DEVICES, J_OPEN, J_PEER, J_SHARE, J_FILL, J_XFER, J_SCAN, J_NCCL };

#define WMAX (P2PS_CHK_MAX_WINDOWS + 1)

struct job {
	enum job_kind kind;
	int g, b;
	enum p2ps_chk_region region, region2;
	size_t n, n2; /* spans in region, and in region2 (fill: a source in another region) */
	struct p2ps_chk_span span[WMAX], span2[1];
	struct p2ps_cell_tally tally[WMAX];
	struct p2ps_chk_xfer x;
	uint64_t bytes[P2PS_CHK_REGIONS];
	struct p2ps_chk_gpu_info dev[P2PS_CHK_MAX_GPUS];
	int found, can, rc;
	char why[200];
	uint64_t t0, t1;
	/* NCCL: the stages written under the lanes' lock (a late thread races the run). */
	int nccl_n, nccl_stage; /* stage 0: init, 1..: ops, then the log */
	unsigned nccl_init_ms, nccl_op_ms;
	struct p2ps_chk_nccl nccl;
};

struct lanes;

struct lane {
	struct lanes *L;
	pthread_t th;
	pthread_cond_t go;
	bool started, posted, busy, quit, stuck;
	uint64_t deadline; /* ns, of the call running now */
	char doing[96];    /* what that call is, for a hang's detail */
	struct job job;
};

struct lanes {
	pthread_mutex_t mu;
	pthread_cond_t done;
	int refs; /* the run's and every running thread's */
	const struct p2ps_chk_ops *ops;
	void *ctx;
	struct lane lane[P2PS_CHK_MAX_GPUS + 1];
};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static double ms_between(uint64_t t0, uint64_t t1)
{
	return t1 > t0 ? (double)(t1 - t0) / 1e6 : 0;
}

static void lanes_destroy(struct lanes *L)
{
	for (int i = 0; i <= P2PS_CHK_MAX_GPUS; i++)
		pthread_cond_destroy(&L->lane[i].go);
	pthread_cond_destroy(&L->done);
	pthread_mutex_destroy(&L->mu);
	free(L);
}

/* Drops one reference to L (its lock held, and released here); the last frees it. */
static void lanes_release(struct lanes *L)
{
	bool last = --L->refs == 0;
	pthread_mutex_unlock(&L->mu);
	if (last)
		lanes_destroy(L);
}

/* ---- what a lane's thread does ---- */

/* NCCL's stages, each under its own deadline. */
static void nccl_stage(struct lane *ln, int stage, unsigned ms, const char *what)
{
	struct lanes *L = ln->L;
	pthread_mutex_lock(&L->mu);
	ln->job.nccl_stage = stage;
	ln->deadline = now_ns() + (uint64_t)ms * 1000000ull;
	p2ps_chk_setf(ln->doing, sizeof(ln->doing), "%s", what);
	pthread_mutex_unlock(&L->mu);
}

static void nccl_record(struct lane *ln, struct p2ps_chk_obs *o, int rc, uint64_t t0,
                        const char *why)
{
	static const enum p2ps_chk_form forms[] = {
	        [P2PS_CHK_OP_OK] = P2PS_CF_OK,
	        [P2PS_CHK_OP_ERROR] = P2PS_CF_ERROR,
	        [P2PS_CHK_OP_DENIED] = P2PS_CF_DENIED,
	        [P2PS_CHK_OP_UNSUPPORTED] = P2PS_CF_UNSUPPORTED,
	};
	pthread_mutex_lock(&ln->L->mu);
	o->form = rc >= 0 && rc <= P2PS_CHK_OP_UNSUPPORTED ? forms[rc] : P2PS_CF_ERROR;
	o->ms = ms_between(t0, now_ns());
	p2ps_chk_setf(o->detail, sizeof(o->detail), "%s", rc ? why : "");
	pthread_mutex_unlock(&ln->L->mu);
}

static void nccl_job(struct lane *ln)
{
	struct lanes *L = ln->L;
	struct job *j = &ln->job;
	struct p2ps_chk_nccl *nc = &j->nccl;
	char why[200] = "", version[32] = "";
	nccl_stage(ln, 0, j->nccl_init_ms, "NCCL's initialisation (ncclCommInitAll)");
	uint64_t t0 = now_ns();
	int rc = L->ops->nccl_init(L->ctx, j->nccl_n, version, sizeof(version), why, sizeof(why));
	nccl_record(ln, &nc->init, rc, t0, why);
	if (rc == P2PS_CHK_OP_OK) {
		pthread_mutex_lock(&L->mu);
		p2ps_chk_setf(nc->version, sizeof(nc->version), "%s", version);
		pthread_mutex_unlock(&L->mu);
	}
	for (int op = 0; op < P2PS_CHK_NCCL_OPS && rc == P2PS_CHK_OP_OK; op++) {
		char what[64];
		uint64_t bad = 0, total = 0;
		p2ps_chk_setf(what, sizeof(what), "NCCL's %s", p2ps_chk_nccl_op_name(op));
		nccl_stage(ln, 1 + op, j->nccl_op_ms, what);
		t0 = now_ns();
		why[0] = 0;
		rc = L->ops->nccl_run(L->ctx, (enum p2ps_chk_nccl_op)op, &bad, &total, why,
		                      sizeof(why));
		nccl_record(ln, &nc->op[op], rc, t0, why);
		pthread_mutex_lock(&L->mu);
		nc->op[op].cells = total;
		nc->op[op].bad_cells = bad;
		if (rc == P2PS_CHK_OP_OK && bad) {
			nc->op[op].form = P2PS_CF_CORRUPT;
			snprintf(nc->op[op].detail, sizeof(nc->op[op].detail),
			         "%llu of %llu elements differ from the expected result",
			         (unsigned long long)bad, (unsigned long long)total);
		}
		pthread_mutex_unlock(&L->mu);
	}
	nccl_stage(ln, 1 + P2PS_CHK_NCCL_OPS, j->nccl_op_ms, "reading NCCL's log");
	char *log = L->ops->nccl_log ? L->ops->nccl_log(L->ctx) : NULL;
	if (log) {
		pthread_mutex_lock(&L->mu);
		p2ps_chk_nccl_parse(log, strlen(log), nc);
		pthread_mutex_unlock(&L->mu);
		free(log);
	}
}

static void run_job(struct lane *ln)
{
	struct lanes *L = ln->L;
	const struct p2ps_chk_ops *ops = L->ops;
	struct job *j = &ln->job;
	j->why[0] = 0;
	j->t0 = now_ns();
	switch (j->kind) {
	case J_DEVICES:
		j->rc = ops->devices(L->ctx, j->dev, P2PS_CHK_MAX_GPUS, &j->found, j->why,
		                     sizeof(j->why));
		break;
	case J_OPEN: j->rc = ops->open(L->ctx, j->g, j->bytes, j->why, sizeof(j->why)); break;
	case J_PEER:
		j->can = -1;
		j->rc = ops->peer(L->ctx, j->g, j->b, &j->can, j->why, sizeof(j->why));
		break;
	case J_SHARE: j->rc = ops->share(L->ctx, j->g, j->region, j->why, sizeof(j->why)); break;
	case J_FILL:
		j->rc = ops->fill(L->ctx, j->g, j->region, j->span, j->n, j->why, sizeof(j->why));
		if (j->rc == P2PS_CHK_OP_OK && j->n2)
			j->rc = ops->fill(L->ctx, j->g, j->region2, j->span2, j->n2, j->why,
			                  sizeof(j->why));
		break;
	case J_XFER: j->rc = ops->xfer(L->ctx, &j->x, j->why, sizeof(j->why)); break;
	case J_SCAN:
		j->rc = ops->scan(L->ctx, j->g, j->region, j->span, j->n, j->tally, j->why,
		                  sizeof(j->why));
		break;
	case J_NCCL:
		nccl_job(ln);
		j->rc = 0;
		break;
	}
	j->t1 = now_ns();
}

static void *lane_main(void *arg)
{
	struct lane *ln = arg;
	struct lanes *L = ln->L;
	pthread_mutex_lock(&L->mu);
	for (;;) {
		while (!ln->posted && !ln->quit)
			pthread_cond_wait(&ln->go, &L->mu);
		if (!ln->posted)
			break;
		ln->posted = false;
		pthread_mutex_unlock(&L->mu);
		run_job(ln);
		pthread_mutex_lock(&L->mu);
		ln->busy = false;
		pthread_cond_broadcast(&L->done);
	}
	lanes_release(L);
	return NULL;
}

/* ---- the run's side ---- */

struct run {
	const struct p2ps_chk_opts *o;
	struct lanes *L;
	struct p2ps_chk_result *res;
	int n, nccl_lane;
	bool usable[P2PS_CHK_MAX_GPUS];
	bool have[P2PS_CHK_REGIONS];
	struct p2ps_chk_layout lay[P2PS_CHK_REGIONS];
	struct p2ps_chk_obs share[P2PS_CHK_REGIONS][P2PS_CHK_MAX_GPUS];
	bool shared[P2PS_CHK_REGIONS];
	char name[P2PS_CHK_MAX_GPUS][48];
	const char *names[P2PS_CHK_MAX_GPUS];
	struct chk_round round;
};

static int start_lane(struct run *R, int i, struct p2ps_error *err)
{
	struct lane *ln = &R->L->lane[i];
	pthread_mutex_lock(&R->L->mu);
	R->L->refs++;
	pthread_mutex_unlock(&R->L->mu);
	int e = pthread_create(&ln->th, NULL, lane_main, ln);
	if (e) {
		pthread_mutex_lock(&R->L->mu);
		R->L->refs--;
		pthread_mutex_unlock(&R->L->mu);
		return p2ps_error_set(err, P2PS_EIO, "check: cannot start a thread: %s",
		                      strerror(e));
	}
	ln->started = true;
	return 0;
}

/* The job of an idle lane, cleared, for the caller to fill before post(). */
static struct job *job_of(struct run *R, int i, enum job_kind kind)
{
	struct job *j = &R->L->lane[i].job;
	memset(j, 0, offsetof(struct job, nccl));
	j->kind = kind;
	return j;
}

static void post(struct run *R, int i, unsigned ms, const char *what)
{
	struct lane *ln = &R->L->lane[i];
	pthread_mutex_lock(&R->L->mu);
	ln->posted = ln->busy = true;
	ln->deadline = now_ns() + (uint64_t)ms * 1000000ull;
	p2ps_chk_setf(ln->doing, sizeof(ln->doing), "%s", what);
	pthread_cond_signal(&ln->go);
	pthread_mutex_unlock(&R->L->mu);
}

/* Waits until every lane marked in want has finished its call or passed its deadline; a lane
 * past its deadline (any lane, wanted or not) is given up. Called with no lock held. */
static void wait_lanes(struct run *R, const bool *want)
{
	struct lanes *L = R->L;
	pthread_mutex_lock(&L->mu);
	for (;;) {
		uint64_t now = now_ns(), next = UINT64_MAX;
		bool pending = false;
		for (int i = 0; i <= P2PS_CHK_MAX_GPUS; i++) {
			struct lane *ln = &L->lane[i];
			if (!ln->started || !ln->busy || ln->stuck)
				continue;
			if (now >= ln->deadline) {
				ln->stuck = true;
				R->res->stuck_lanes++;
				continue;
			}
			next = ln->deadline < next ? ln->deadline : next;
			pending |= want[i];
		}
		if (!pending)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t until = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec +
		                 (next - now) + 1000000ull;
		ts.tv_sec = (time_t)(until / 1000000000ull);
		ts.tv_nsec = (long)(until % 1000000000ull);
		pthread_cond_timedwait(&L->done, &L->mu, &ts);
	}
	pthread_mutex_unlock(&L->mu);
}

static void wait_one(struct run *R, int i)
{
	bool want[P2PS_CHK_MAX_GPUS + 1] = {0};
	want[i] = true;
	wait_lanes(R, want);
}

static bool stuck(const struct run *R, int i)
{
	return R->L->lane[i].stuck;
}

/* The result of lane i's finished (or given up) call as an observation. */
static void job_obs(struct run *R, int i, unsigned ms, struct p2ps_chk_obs *o)
{
	struct lane *ln = &R->L->lane[i];
	o->other_gpu = -1;
	if (ln->stuck) {
		o->form = P2PS_CF_HUNG;
		o->ms = ms;
		p2ps_chk_setf(o->detail, sizeof(o->detail), "%s did not return within %u ms",
		              ln->doing, ms);
		return;
	}
	static const enum p2ps_chk_form forms[] = {
	        [P2PS_CHK_OP_OK] = P2PS_CF_OK,
	        [P2PS_CHK_OP_ERROR] = P2PS_CF_ERROR,
	        [P2PS_CHK_OP_DENIED] = P2PS_CF_DENIED,
	        [P2PS_CHK_OP_UNSUPPORTED] = P2PS_CF_UNSUPPORTED,
	};
	int rc = ln->job.rc;
	o->form = rc >= 0 && rc <= P2PS_CHK_OP_UNSUPPORTED ? forms[rc] : P2PS_CF_ERROR;
	o->ms = ms_between(ln->job.t0, ln->job.t1);
	p2ps_chk_setf(o->detail, sizeof(o->detail), "%s", rc ? ln->job.why : "");
}

/* Why a step that needs lane i cannot run, or NULL when it can. */
static const char *lane_blocked(struct run *R, int i, char *buf, size_t size)
{
	if (i >= R->n || !R->usable[i]) {
		snprintf(buf, size, "%s is not usable", i < R->n ? R->names[i] : "a GPU");
		return buf;
	}
	if (stuck(R, i)) {
		snprintf(buf, size, "%s's thread is stuck in %s", R->names[i], R->L->lane[i].doing);
		return buf;
	}
	return NULL;
}

static void not_run(struct p2ps_chk_obs *o, const char *why)
{
	*o = (struct p2ps_chk_obs){.form = P2PS_CF_NOT_RUN, .other_gpu = -1};
	p2ps_chk_setf(o->detail, sizeof(o->detail), "%s", why);
}

/* ---- finding and opening the GPUs ---- */

static int find_gpus(struct run *R, struct p2ps_error *err)
{
	struct p2ps_chk_result *res = R->res;
	if (start_lane(R, 0, err))
		return err->code;
	job_of(R, 0, J_DEVICES);
	post(R, 0, R->o->open_ms, "finding the GPUs");
	wait_one(R, 0);
	job_obs(R, 0, R->o->open_ms, &res->find);
	if (res->find.form != P2PS_CF_OK)
		return 0;
	struct job *j = &R->L->lane[0].job;
	R->n = j->found < 0 ? 0 : j->found > P2PS_CHK_MAX_GPUS ? P2PS_CHK_MAX_GPUS : j->found;
	res->n = R->n;
	for (int g = 0; g < R->n; g++) {
		res->gpu[g].info = j->dev[g];
		p2ps_chk_setf(R->name[g], sizeof(R->name[g]), "GPU %d (%s)", g, j->dev[g].bdf);
		R->names[g] = R->name[g];
	}
	for (int g = 1; g < R->n; g++)
		if (start_lane(R, g, err))
			return err->code;
	return 0;
}

static enum p2ps_chk_region path_region(int p)
{
	return p == P2PS_CHK_FD_CE || p == P2PS_CHK_FD_SM ? P2PS_CHK_R_FD
	       : p == P2PS_CHK_UVM                        ? P2PS_CHK_R_UVM
	                                                  : P2PS_CHK_R_MAIN;
}

static bool path_remote(int p)
{
	return p >= P2PS_CHK_IPC_CE && p <= P2PS_CHK_FD_SM;
}

static bool path_needs_peer(int p)
{
	return p == P2PS_CHK_SM_STORE || p == P2PS_CHK_SM_LOAD || p == P2PS_CHK_IPC_SM ||
	       p == P2PS_CHK_FD_SM;
}

/* The regions' layouts: in the main region the alias probes that fit in an eighth of the
 * smallest GPU's memory (largest probes dropped first). */
static int plan_layouts(struct run *R, struct p2ps_error *err)
{
	const struct p2ps_chk_opts *o = R->o;
	uint64_t alias[P2PS_CHK_MAX_ALIAS], mem = UINT64_MAX;
	size_t n_alias = o->n_alias;
	memcpy(alias, o->alias, sizeof(alias));
	for (int g = 0; g < R->n; g++)
		if (R->res->gpu[g].info.mem_bytes && R->res->gpu[g].info.mem_bytes < mem)
			mem = R->res->gpu[g].info.mem_bytes;
	for (int p = P2PS_CHK_CE; p < P2PS_CHK_PATHS; p++)
		if (o->paths & P2PS_CHK_PATH_BIT(p))
			R->have[path_region(p)] = true;
	R->have[P2PS_CHK_R_MAIN] = true; /* the sources of every in-process path */
	for (;;) {
		int rc = p2ps_chk_layout_make(o->payload, o->guard, alias, n_alias,
		                              &R->lay[P2PS_CHK_R_MAIN], err);
		if (rc)
			return rc;
		if (!n_alias || mem == UINT64_MAX || R->lay[P2PS_CHK_R_MAIN].bytes <= mem / 8)
			break;
		size_t top = 0;
		for (size_t k = 1; k < n_alias; k++)
			top = alias[k] > alias[top] ? k : top;
		alias[top] = alias[--n_alias];
	}
	R->res->opts.n_alias = n_alias;
	memcpy(R->res->opts.alias, alias, sizeof(alias));
	/* The alias probes are a matter of the P2P mapping, which the main region's paths
	 * cover: the other regions hold the slot and its guards only. */
	int rc = p2ps_chk_layout_make(o->payload, o->guard, NULL, 0, &R->lay[P2PS_CHK_R_UVM], err);
	R->lay[P2PS_CHK_R_FD] = R->lay[P2PS_CHK_R_UVM];
	for (int r = 0; r < P2PS_CHK_REGIONS; r++)
		R->res->region_bytes[r] = R->have[r] ? R->lay[r].bytes : 0;
	return rc;
}

static void open_gpus(struct run *R)
{
	bool want[P2PS_CHK_MAX_GPUS + 1] = {0};
	for (int g = 0; g < R->n; g++) {
		struct job *j = job_of(R, g, J_OPEN);
		j->g = g;
		for (int r = 0; r < P2PS_CHK_REGIONS; r++)
			j->bytes[r] = R->res->region_bytes[r];
		if (!R->res->gpu[g].info.fd_handles)
			j->bytes[P2PS_CHK_R_FD] = 0;
		char what[96];
		p2ps_chk_setf(what, sizeof(what), "opening %s", R->names[g]);
		post(R, g, R->o->open_ms, what);
		want[g] = true;
	}
	wait_lanes(R, want);
	for (int g = 0; g < R->n; g++) {
		job_obs(R, g, R->o->open_ms, &R->res->gpu[g].open);
		R->usable[g] = R->res->gpu[g].open.form == P2PS_CF_OK;
	}
}

/* ---- peer access ---- */

static void peer_phase(struct run *R)
{
	char buf[160];
	for (int r = 1; r < R->n; r++) {
		bool want[P2PS_CHK_MAX_GPUS + 1] = {0};
		for (int a = 0; a < R->n; a++) {
			int b = (a + r) % R->n;
			struct p2ps_chk_obs *o = &R->res->obs[a][b][P2PS_CHK_PEER];
			const char *why = lane_blocked(R, a, buf, sizeof(buf));
			why = why ? why : lane_blocked(R, b, buf, sizeof(buf));
			if (why) {
				not_run(o, why);
				continue;
			}
			struct job *j = job_of(R, a, J_PEER);
			j->g = a;
			j->b = b;
			char what[128];
			p2ps_chk_setf(what, sizeof(what), "peer access %d -> %d", a, b);
			post(R, a, R->o->step_ms, what);
			want[a] = true;
		}
		wait_lanes(R, want);
		for (int a = 0; a < R->n; a++) {
			if (!want[a])
				continue;
			struct p2ps_chk_obs *o = &R->res->obs[a][(a + r) % R->n][P2PS_CHK_PEER];
			job_obs(R, a, R->o->step_ms, o);
			if (o->form == P2PS_CF_DENIED && !o->detail[0])
				snprintf(o->detail, sizeof(o->detail),
				         "cudaDeviceCanAccessPeer says %d", R->L->lane[a].job.can);
		}
	}
}

/* ---- sharing a region with the other process ---- */

static void share_phase(struct run *R, enum p2ps_chk_region reg)
{
	bool want[P2PS_CHK_MAX_GPUS + 1] = {0};
	char buf[160];
	R->shared[reg] = true;
	for (int g = 0; g < R->n; g++) {
		const char *why = lane_blocked(R, g, buf, sizeof(buf));
		if (why) {
			not_run(&R->share[reg][g], why);
			continue;
		}
		if (reg == P2PS_CHK_R_FD && !R->res->gpu[g].info.fd_handles) {
			R->share[reg][g] =
			        (struct p2ps_chk_obs){.form = P2PS_CF_UNSUPPORTED, .other_gpu = -1};
			snprintf(R->share[reg][g].detail, sizeof(R->share[reg][g].detail),
			         "%s cannot export POSIX-FD handles", R->names[g]);
			continue;
		}
		struct job *j = job_of(R, g, J_SHARE);
		j->g = g;
		j->region = reg;
		char what[96];
		p2ps_chk_setf(what, sizeof(what), "sharing %s's memory with the other process",
		              R->names[g]);
		post(R, g, R->o->open_ms, what);
		want[g] = true;
	}
	wait_lanes(R, want);
	for (int g = 0; g < R->n; g++)
		if (want[g])
			job_obs(R, g, R->o->open_ms, &R->share[reg][g]);
}

/* ---- one round of a data path ---- */

static struct p2ps_chk_span span_of(const struct p2ps_chk_window *w, struct p2ps_cell_key key,
                                    uint32_t base, int g)
{
	return (struct p2ps_chk_span){
	        w->offset,
	        w->bytes,
	        {key, base, (uint32_t)(w->offset / P2PS_CELL_BYTES), (uint32_t)g}};
}

/* GPU g's windows of region reg as they must be filled (fill) or found (!fill) in round rd. */
static void spans(struct run *R, const struct chk_round *rd, int g, bool fill,
                  struct chk_gpu_scan *s)
{
	enum p2ps_chk_region reg = path_region(rd->path);
	const struct p2ps_chk_layout *l = &R->lay[reg];
	uint32_t nonce = R->res->opts.nonce;
	int in = -1; /* the step whose b is g */
	for (int a = 0; a < R->n; a++)
		if (rd->peer[a] == g)
			in = a;
	int out = rd->peer[g];
	uint32_t slot = (uint32_t)(l->w[l->slot].offset / P2PS_CELL_BYTES);
	s->region = reg;
	s->n = l->n;
	s->target_of = -1;
	for (size_t k = 0; k < l->n; k++) {
		s->span[k] = span_of(&l->w[k], p2ps_chk_canary_key(g, nonce),
		                     (uint32_t)(l->w[k].offset / P2PS_CELL_BYTES), g);
		s->role[k] = l->w[k].role;
		s->alias[k] = l->w[k].alias;
	}
	/* The slot: a write's target (filled with canaries, then expected to hold the payload)
	 * or a load's source (filled with the payload, expected unchanged). */
	if (in >= 0 && (rd->load || !fill)) {
		s->span[l->slot].win.expect = p2ps_chk_payload_key(in, g, rd->path, nonce);
		if (!rd->load) {
			s->target_of = in;
			s->target = l->slot;
		}
	}
	/* The scratch window: an in-process write's source (payload of g's own step, made for
	 * the target's slot), or a load's destination (expected to hold what it read). */
	if (out >= 0 && reg == P2PS_CHK_R_MAIN && !path_remote(rd->path) && (!rd->load || !fill)) {
		s->span[l->scratch].win.expect = p2ps_chk_payload_key(g, out, rd->path, nonce);
		s->span[l->scratch].win.expect_base = slot;
		if (rd->load) {
			s->target_of = g;
			s->target = l->scratch;
		}
	}
}

/* The step a -> b's transfer. */
static void xfer_of(struct run *R, const struct chk_round *rd, int a, struct p2ps_chk_xfer *x)
{
	int b = rd->peer[a];
	enum p2ps_chk_region reg = path_region(rd->path);
	const struct p2ps_chk_layout *l = &R->lay[reg], *m = &R->lay[P2PS_CHK_R_MAIN];
	*x = (struct p2ps_chk_xfer){.path = rd->path, .a = a, .b = b, .bytes = l->payload};
	x->key = p2ps_chk_payload_key(a, b, rd->path, R->res->opts.nonce);
	x->index_base = (uint32_t)(l->w[l->slot].offset / P2PS_CELL_BYTES);
	if (rd->load) {
		x->src_gpu = b;
		x->src_region = reg;
		x->src_offset = l->w[l->slot].offset;
		x->dst_gpu = a;
		x->dst_region = P2PS_CHK_R_MAIN;
		x->dst_offset = m->w[m->scratch].offset;
		return;
	}
	x->src_gpu = a;
	x->src_region = P2PS_CHK_R_MAIN;
	x->src_offset = m->w[m->scratch].offset;
	x->dst_gpu = b;
	x->dst_region = reg;
	x->dst_offset = l->w[l->slot].offset;
}

/* Why step a -> b cannot run on path p, or NULL; *form: NOT_RUN or UNSUPPORTED. */
static const char *step_blocked(struct run *R, int p, int a, int b, char *buf, size_t size,
                                enum p2ps_chk_form *form)
{
	*form = P2PS_CF_NOT_RUN;
	const char *why = lane_blocked(R, a, buf, size);
	if (why || (why = lane_blocked(R, b, buf, size)))
		return why;
	const struct p2ps_chk_obs *peer = &R->res->obs[a][b][P2PS_CHK_PEER];
	if (path_needs_peer(p) && peer->form != P2PS_CF_OK) {
		snprintf(buf, size, "needs peer access %d -> %d, which is %s", a, b,
		         p2ps_chk_form_name(peer->form));
		return buf;
	}
	if (path_remote(p)) {
		const struct p2ps_chk_obs *sh = &R->share[path_region(p)][b];
		if (sh->form != P2PS_CF_OK) {
			*form = sh->form == P2PS_CF_UNSUPPORTED ? P2PS_CF_UNSUPPORTED
			                                        : P2PS_CF_NOT_RUN;
			snprintf(buf, size, "%s's memory was not shared: %s", R->names[b],
			         sh->detail[0] ? sh->detail : p2ps_chk_form_name(sh->form));
			return buf;
		}
	}
	return NULL;
}

static void post_fill(struct run *R, struct chk_round *rd, int g)
{
	struct job *j = job_of(R, g, J_FILL);
	struct chk_gpu_scan s;
	j->g = g;
	spans(R, rd, g, true, &s);
	j->region = s.region;
	j->n = s.n;
	memcpy(j->span, s.span, s.n * sizeof(s.span[0]));
	/* UVM: the source of g's step lives in the main region. */
	if (s.region != P2PS_CHK_R_MAIN && rd->peer[g] >= 0 && !path_remote(rd->path)) {
		const struct p2ps_chk_layout *m = &R->lay[P2PS_CHK_R_MAIN], *l = &R->lay[s.region];
		j->region2 = P2PS_CHK_R_MAIN;
		j->n2 = 1;
		j->span2[0] =
		        span_of(&m->w[m->scratch],
		                p2ps_chk_payload_key(g, rd->peer[g], rd->path, R->res->opts.nonce),
		                (uint32_t)(l->w[l->slot].offset / P2PS_CELL_BYTES), g);
	}
	char what[96];
	p2ps_chk_setf(what, sizeof(what), "filling %s's memory", R->names[g]);
	post(R, g, R->o->step_ms, what);
}

static void post_scan(struct run *R, struct chk_round *rd, int g)
{
	struct job *j = job_of(R, g, J_SCAN);
	struct chk_gpu_scan *s = &rd->scan[g];
	j->g = g;
	spans(R, rd, g, false, s);
	j->region = s->region;
	j->n = s->n;
	memcpy(j->span, s->span, s->n * sizeof(s->span[0]));
	char what[96];
	p2ps_chk_setf(what, sizeof(what), "reading back %s's memory", R->names[g]);
	post(R, g, R->o->step_ms, what);
}

/* Posts one job per usable GPU (fill, scan) or per step's GPU a (transfer), and waits for
 * them. posted[g]: a job went to GPU g; ok[g]: it returned OK. */
static void phase(struct run *R, struct chk_round *rd, enum job_kind kind, bool *ok, bool *posted)
{
	bool *want = posted;
	memset(want, 0, (P2PS_CHK_MAX_GPUS + 1) * sizeof(*want));
	char buf[160];
	for (int g = 0; g < R->n; g++) {
		ok[g] = false;
		if (lane_blocked(R, g, buf, sizeof(buf)))
			continue;
		if (kind == J_XFER) {
			if (rd->peer[g] < 0)
				continue;
			struct job *j = job_of(R, g, J_XFER);
			xfer_of(R, rd, g, &j->x);
			char what[96];
			p2ps_chk_setf(what, sizeof(what), "%s %d -> %d",
			              p2ps_chk_path_name(rd->path), g, rd->peer[g]);
			post(R, g, R->o->step_ms, what);
		} else if (kind == J_FILL) {
			post_fill(R, rd, g);
		} else {
			post_scan(R, rd, g);
		}
		want[g] = true;
	}
	wait_lanes(R, want);
	for (int g = 0; g < R->n; g++)
		ok[g] = want[g] && !stuck(R, g) && R->L->lane[g].job.rc == P2PS_CHK_OP_OK;
}

static void round_run(struct run *R, int p, int r)
{
	struct chk_round *rd = &R->round;
	struct p2ps_chk_obs *obs[P2PS_CHK_MAX_GPUS] = {0};
	bool ok[P2PS_CHK_MAX_GPUS], posted[P2PS_CHK_MAX_GPUS + 1];
	char buf[160];
	memset(rd, 0, sizeof(*rd));
	rd->path = (enum p2ps_chk_path)p;
	rd->load = p == P2PS_CHK_SM_LOAD;
	rd->n = R->n;
	for (int a = 0; a < R->n; a++) {
		int b = (a + r) % R->n;
		enum p2ps_chk_form form;
		obs[a] = &R->res->obs[a][b][p];
		const char *why = step_blocked(R, p, a, b, buf, sizeof(buf), &form);
		rd->peer[a] = why ? -1 : b;
		if (why) {
			not_run(obs[a], why);
			obs[a]->form = form;
		}
	}
	phase(R, rd, J_FILL, ok, posted);
	for (int a = 0; a < R->n; a++) {
		int b = rd->peer[a];
		if (b >= 0 && (!ok[a] || !ok[b])) {
			int bad = ok[a] ? b : a;
			job_obs(R, bad, R->o->step_ms, obs[a]);
			if (!posted[bad])
				not_run(obs[a], lane_blocked(R, bad, buf, sizeof(buf))
				                        ? buf
				                        : "not filled");
			else if (obs[a]->form == P2PS_CF_OK)
				not_run(obs[a], "filling the memory did not finish");
			else
				p2ps_chk_catf(obs[a]->detail, sizeof(obs[a]->detail),
				              " (filling %s)", R->names[bad]);
			rd->peer[a] = -1;
		}
	}
	phase(R, rd, J_XFER, ok, posted);
	bool moved[P2PS_CHK_MAX_GPUS] = {0};
	for (int a = 0; a < R->n; a++) {
		if (rd->peer[a] < 0)
			continue;
		job_obs(R, a, R->o->step_ms, obs[a]);
		moved[a] = obs[a]->form == P2PS_CF_OK;
	}
	phase(R, rd, J_SCAN, ok, posted);
	for (int g = 0; g < R->n; g++) {
		struct chk_gpu_scan *s = &rd->scan[g];
		s->done = ok[g];
		if (ok[g])
			memcpy(s->t, R->L->lane[g].job.tally, s->n * sizeof(s->t[0]));
	}
	for (int a = 0; a < R->n; a++) {
		if (!moved[a])
			continue;
		double ms = obs[a]->ms;
		int tg = rd->load ? a : rd->peer[a];
		if (ok[tg]) {
			p2ps_chk_classify(rd, a, R->names, obs[a]);
		} else if (!posted[tg]) {
			not_run(obs[a],
			        lane_blocked(R, tg, buf, sizeof(buf)) ? buf : "not read back");
		} else {
			job_obs(R, tg, R->o->step_ms, obs[a]);
			p2ps_chk_catf(obs[a]->detail, sizeof(obs[a]->detail), " (reading back %s)",
			              R->names[tg]);
		}
		obs[a]->ms = ms;
	}
}

static void data_path(struct run *R, int p)
{
	for (int r = 1; r < R->n; r++)
		round_run(R, p, r);
}

/* ---- NCCL ---- */

static void nccl_start(struct run *R, struct p2ps_error *err)
{
	struct p2ps_chk_nccl *nc = &R->res->nccl;
	char buf[160];
	nc->asked = true;
	nc->init.other_gpu = -1;
	for (int op = 0; op < P2PS_CHK_NCCL_OPS; op++)
		not_run(&nc->op[op], "NCCL's initialisation did not succeed");
	if (R->n < 2) {
		not_run(&nc->init, "NCCL's check needs two GPUs");
		return;
	}
	for (int g = 0; g < R->n; g++)
		if (stuck(R, g)) {
			not_run(&nc->init, lane_blocked(R, g, buf, sizeof(buf)));
			return;
		}
	R->nccl_lane = P2PS_CHK_MAX_GPUS;
	if (start_lane(R, R->nccl_lane, err)) {
		R->nccl_lane = -1;
		not_run(&nc->init, err->msg);
		return;
	}
	struct job *j = job_of(R, R->nccl_lane, J_NCCL);
	memset(&j->nccl, 0, sizeof(j->nccl));
	j->nccl = *nc;
	j->nccl_n = R->n;
	j->nccl_init_ms = R->o->open_ms;
	j->nccl_op_ms = R->o->open_ms / 2 > R->o->step_ms ? R->o->open_ms / 2 : R->o->step_ms;
	post(R, R->nccl_lane, R->o->open_ms, "NCCL");
}

static void nccl_finish(struct run *R)
{
	if (R->nccl_lane < 0)
		return;
	wait_one(R, R->nccl_lane);
	struct lane *ln = &R->L->lane[R->nccl_lane];
	pthread_mutex_lock(&R->L->mu);
	R->res->nccl = ln->job.nccl;
	int stage = ln->job.nccl_stage;
	bool hung = ln->stuck;
	char doing[96];
	p2ps_chk_setf(doing, sizeof(doing), "%s", ln->doing);
	pthread_mutex_unlock(&R->L->mu);
	if (!hung)
		return;
	struct p2ps_chk_obs *o = stage == 0                   ? &R->res->nccl.init
	                         : stage <= P2PS_CHK_NCCL_OPS ? &R->res->nccl.op[stage - 1]
	                                                      : NULL;
	if (o) {
		*o = (struct p2ps_chk_obs){.form = P2PS_CF_HUNG, .other_gpu = -1};
		p2ps_chk_setf(o->detail, sizeof(o->detail), "%s did not return before its deadline",
		              doing);
	}
	for (int op = stage; op < P2PS_CHK_NCCL_OPS; op++)
		not_run(&R->res->nccl.op[op], "NCCL hung before it");
}

/* ---- the whole run ---- */

static void init_result(struct p2ps_chk_result *res, const struct p2ps_chk_opts *o)
{
	memset(res, 0, sizeof(*res));
	res->opts = *o;
	if (!res->opts.nonce) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		res->opts.nonce = p2ps_cell_mix((uint32_t)t.tv_nsec ^ (uint32_t)t.tv_sec ^
		                                (uint32_t)(uintptr_t)res);
		if (!res->opts.nonce)
			res->opts.nonce = 1;
	}
	res->find.other_gpu = -1;
	for (int a = 0; a < P2PS_CHK_MAX_GPUS; a++)
		for (int b = 0; b < P2PS_CHK_MAX_GPUS; b++)
			for (int p = 0; p < P2PS_CHK_PATHS; p++)
				res->obs[a][b][p] = (struct p2ps_chk_obs){
				        .form = (o->paths & P2PS_CHK_PATH_BIT(p)) ||
				                                p == P2PS_CHK_PEER
				                        ? P2PS_CF_NOT_RUN
				                        : P2PS_CF_SKIPPED,
				        .other_gpu = -1};
	res->nccl.init.other_gpu = -1;
	res->nccl.init.form = P2PS_CF_SKIPPED;
	for (int op = 0; op < P2PS_CHK_NCCL_OPS; op++)
		res->nccl.op[op] = (struct p2ps_chk_obs){.form = P2PS_CF_SKIPPED, .other_gpu = -1};
}

/* Adds the time since *t to phase ph and restarts *t. */
static void lap(struct run *R, int ph, uint64_t *t)
{
	uint64_t now = now_ns();
	R->res->phase_ms[ph] += ms_between(*t, now);
	*t = now;
}

/* NCCL starts first: its own start (topology, NVML, its threads) overlaps with the GPUs'
 * opening, and it enables peer access itself where it needs it (the check's peer access step
 * then finds it enabled, which CUDA reports and the step accepts). */
static void steps(struct run *R, struct p2ps_error *err)
{
	uint64_t t = now_ns();
	if (R->o->nccl)
		nccl_start(R, err);
	open_gpus(R);
	lap(R, P2PS_CHK_PH_OPEN, &t);
	peer_phase(R);
	lap(R, P2PS_CHK_PH_PATH0 + P2PS_CHK_PEER, &t);
	for (int p = P2PS_CHK_CE; p < P2PS_CHK_PATHS; p++) {
		if (!(R->o->paths & P2PS_CHK_PATH_BIT(p)))
			continue;
		enum p2ps_chk_region reg = path_region(p);
		if (path_remote(p) && !R->shared[reg]) {
			share_phase(R, reg);
			lap(R, reg == P2PS_CHK_R_FD ? P2PS_CHK_PH_SHARE_FD : P2PS_CHK_PH_SHARE_MAIN,
			    &t);
		}
		data_path(R, p);
		lap(R, P2PS_CHK_PH_PATH0 + p, &t);
	}
	nccl_finish(R);
	lap(R, P2PS_CHK_PH_NCCL_WAIT, &t);
}

int p2ps_chk_run(const struct p2ps_chk_opts *o, const struct p2ps_chk_ops *ops, void *ctx,
                 struct p2ps_chk_result *res, struct p2ps_error *err)
{
	uint64_t t0 = now_ns();
	init_result(res, o);
	struct run *R = calloc(1, sizeof(*R));
	struct lanes *L = calloc(1, sizeof(*L));
	if (!R || !L) {
		free(R);
		free(L);
		return p2ps_error_set(err, P2PS_ENOMEM, "check: out of memory");
	}
	pthread_mutex_init(&L->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&L->done, &ca);
	pthread_condattr_destroy(&ca);
	for (int i = 0; i <= P2PS_CHK_MAX_GPUS; i++) {
		pthread_cond_init(&L->lane[i].go, NULL);
		L->lane[i].L = L;
	}
	L->refs = 1;
	L->ops = ops;
	L->ctx = ctx;
	R->o = &res->opts;
	R->L = L;
	R->res = res;
	R->nccl_lane = -1;
	res->lanes_ = L;
	int rc = find_gpus(R, err);
	res->phase_ms[P2PS_CHK_PH_FIND] = ms_between(t0, now_ns());
	if (!rc && R->n > 0)
		rc = plan_layouts(R, err);
	if (!rc && R->n > 0)
		steps(R, err);
	res->wall_ms = ms_between(t0, now_ns());
	free(R);
	return rc;
}

int p2ps_chk_result_free(struct p2ps_chk_result *res, unsigned wait_ms)
{
	struct lanes *L = res->lanes_;
	int given_up = 0;
	if (!L)
		return 0;
	res->lanes_ = NULL;
	uint64_t until = now_ns() + (uint64_t)wait_ms * 1000000ull;
	pthread_mutex_lock(&L->mu);
	for (int i = 0; i <= P2PS_CHK_MAX_GPUS; i++) {
		struct lane *ln = &L->lane[i];
		while (ln->started && ln->busy && now_ns() < until) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += 10000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&L->done, &L->mu, &ts);
		}
		ln->quit = true;
		pthread_cond_signal(&ln->go);
	}
	bool busy[P2PS_CHK_MAX_GPUS + 1];
	for (int i = 0; i <= P2PS_CHK_MAX_GPUS; i++)
		busy[i] = L->lane[i].started && L->lane[i].busy;
	pthread_mutex_unlock(&L->mu);
	for (int i = 0; i <= P2PS_CHK_MAX_GPUS; i++) {
		if (!L->lane[i].started)
			continue;
		if (busy[i]) {
			pthread_detach(L->lane[i].th);
			given_up++;
		} else {
			pthread_join(L->lane[i].th, NULL);
		}
	}
	pthread_mutex_lock(&L->mu);
	lanes_release(L);
	return given_up;
}
