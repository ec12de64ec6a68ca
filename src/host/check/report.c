/* SPDX-License-Identifier: MIT */
/* The check's report: per ordered pair, what was predicted (bar-inspect's analysis, the
 * driver model, the driver's own caps, NCCL's rule) beside what the run saw, one verdict, and
 * for a mismatch its likely causes (the rules below, each with the facts it needs) and the
 * fixes the analysis already knows. */
#include "check_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- prediction ---- */

static int gpu_of(const struct p2ps_analysis *an, const char *bdf)
{
	for (size_t i = 0; an && i < an->n_gpus; i++)
		if (an->gpus[i].is_gpu && !strcmp(an->host->devs[an->gpus[i].dev_idx].bdf_str, bdf))
			return (int)i;
	return -1;
}

static const struct p2ps_drv_pair *drv_pair(const struct p2ps_drv_report *d, int gi, int gj)
{
	for (size_t k = 0; d && k < d->n_pairs; k++)
		if ((d->pairs[k].a == gi && d->pairs[k].b == gj) ||
		    (d->pairs[k].a == gj && d->pairs[k].b == gi))
			return &d->pairs[k];
	return NULL;
}

static bool both_known(enum p2ps_nv_status r, enum p2ps_nv_status w)
{
	return r != P2PS_NV_ST_UNKNOWN && w != P2PS_NV_ST_UNKNOWN;
}

static void predict_driver(const struct p2ps_chk_report *R, int gi, int gj,
                           struct p2ps_chk_prediction *p)
{
	const struct p2ps_drv_pair *dp = drv_pair(R->drv, gi, gj);
	struct p2ps_drv_reported rep;
	p2ps_drv_reported_pair(R->an, (size_t)gi, (size_t)gj, &rep);
	p->reported = rep.known;
	p->reported_read = rep.known ? rep.st[P2PS_NV_CAPS_READ] : P2PS_NV_ST_UNKNOWN;
	p->reported_write = rep.known ? rep.st[P2PS_NV_CAPS_WRITE] : P2PS_NV_ST_UNKNOWN;
	p2ps_chk_setf(p->reported_source, sizeof(p->reported_source), "%s",
	              rep.known ? rep.source : "");
	p->model = dp && R->drv->cfg.known;
	p->model_read = p->model ? dp->st[P2PS_NV_CAPS_READ] : P2PS_NV_ST_UNKNOWN;
	p->model_write = p->model ? dp->st[P2PS_NV_CAPS_WRITE] : P2PS_NV_ST_UNKNOWN;
	p->model_path = p->model ? dp->chosen : P2PS_NV_PATH_NONE;
	p->model_gate = P2PS_NV_GATE_NONE;
	if (p->model) {
		int ix = dp->st[P2PS_NV_CAPS_READ] != P2PS_NV_ST_OK ? P2PS_NV_CAPS_READ
		                                                    : P2PS_NV_CAPS_WRITE;
		p->model_gate = dp->gate[ix];
		for (int k = 0; k < P2PS_NV_PATH_COUNT && !p->model_why[0]; k++)
			if (dp->path[k].tried && dp->path[k].why[0])
				p2ps_chk_setf(p->model_why, sizeof(p->model_why), "%s",
				              dp->path[k].why);
	}
	if (p->reported && both_known(p->reported_read, p->reported_write)) {
		p->p2p = p->reported_read == P2PS_NV_ST_OK && p->reported_write == P2PS_NV_ST_OK;
		p->p2p_from = "the driver's reported caps";
	} else if (p->model && both_known(p->model_read, p->model_write)) {
		p->p2p = p->model_read == P2PS_NV_ST_OK && p->model_write == P2PS_NV_ST_OK;
		p->p2p_from = "the driver model";
	} else if (p->topo == P2PS_TOPO_NV) {
		p->p2p = 1;
		p->p2p_from = "NVLink";
	}
}

/* NCCL: the analysis' level rule, then NCCL's NVML check (the driver's read and write
 * statuses) and CUDA's peer check (p2pCanConnect), as the run saw it. */
static void predict_nccl(const struct p2ps_chk_report *R, const struct p2ps_pair *ap,
                         const struct p2ps_chk_obs *peer, struct p2ps_chk_prediction *p)
{
	p->nccl_p2p = ap ? ap->nccl_p2p : -1;
	if (p->nccl_p2p < 0) {
		p2ps_chk_setf(p->nccl_why, sizeof(p->nccl_why),
		              "the path between the GPUs is unknown");
		return;
	}
	p2ps_chk_setf(p->nccl_why, sizeof(p->nccl_why), "path %s %s P2P level %s (%s)",
	              p2ps_nccl_path_name(p2ps_nccl_path_of(ap->topo)),
	              p->nccl_p2p ? "within" : "beyond", p2ps_nccl_path_name(ap->nccl_level),
	              ap->nccl_level_from ? ap->nccl_level_from : "?");
	if (p->nccl_p2p && p->p2p == 0) {
		p->nccl_p2p = 0;
		p2ps_chk_catf(p->nccl_why, sizeof(p->nccl_why), "; NVML reports P2P %s",
		              p->topo == P2PS_TOPO_NV ? "disabled between NVLink-connected GPUs: "
		                                        "NCCL stops with an error"
		                                      : "not OK: NCCL copies through host memory");
	} else if (p->nccl_p2p && peer->form == P2PS_CF_DENIED) {
		p->nccl_p2p = 0;
		p2ps_chk_catf(p->nccl_why, sizeof(p->nccl_why),
		              "; cudaDeviceCanAccessPeer says no: NCCL copies through host memory");
	}
	(void)R;
}

static void predict(const struct p2ps_chk_report *R, struct p2ps_chk_pair *pp)
{
	const struct p2ps_chk_result *res = R->res;
	struct p2ps_chk_prediction *p = &pp->pred;
	p->p2p = -1;
	p->p2p_from = "nothing";
	p->nccl_p2p = -1;
	p->bar1 = P2PS_VERDICT_UNKNOWN;
	p->topo = P2PS_TOPO_UNKNOWN;
	p->iommu[0] = p->iommu[1] = P2PS_IOMMU_UNKNOWN;
	int gi = gpu_of(R->an, res->gpu[pp->a].info.bdf),
	    gj = gpu_of(R->an, res->gpu[pp->b].info.bdf);
	p->host_known = gi >= 0 && gj >= 0;
	if (!p->host_known) {
		p2ps_chk_setf(p->nccl_why, sizeof(p->nccl_why),
		              "the GPUs are not in the host model");
		return;
	}
	const struct p2ps_pair *ap = p2ps_analysis_pair(R->an, (size_t)gi, (size_t)gj);
	if (ap) {
		p->topo = ap->topo;
		p->nvlinks = ap->nvlinks;
		p->bar1 = ap->verdict;
	}
	p->iommu[0] = R->an->gpus[gi].iommu;
	p->iommu[1] = R->an->gpus[gj].iommu;
	predict_driver(R, gi, gj, p);
	predict_nccl(R, ap, &res->obs[pp->a][pp->b][P2PS_CHK_PEER], p);
}

/* ---- causes ---- */

struct cause_ctx {
	const struct p2ps_chk_report *R;
	const struct p2ps_chk_pair *pp;
	const struct p2ps_pair *ap; /* the analysis' pair, or NULL */
	unsigned forms;             /* bit per form among the pair's paths */
	const char *seen;           /* NCCL's transports for the pair, "" none */
};

static bool has_reason(const struct cause_ctx *c, enum p2ps_reason_code code)
{
	for (size_t k = 0; c->ap && k < c->ap->reasons.n; k++)
		if (c->ap->reasons.v[k].code == code)
			return true;
	return false;
}

static bool translating(const struct cause_ctx *c)
{
	return c->pp->pred.iommu[0] == P2PS_IOMMU_TRANSLATING ||
	       c->pp->pred.iommu[1] == P2PS_IOMMU_TRANSLATING;
}

static bool acs_redirect(const struct cause_ctx *c)
{
	return has_reason(c, P2PS_R_ACS_REDIRECT) || has_reason(c, P2PS_R_ACS_REDIRECT_ROOT);
}

static bool said_ok(const struct cause_ctx *c)
{
	return c->pp->pred.p2p == 1;
}

static bool said_no(const struct cause_ctx *c)
{
	return c->pp->pred.p2p == 0;
}

static bool nccl_shm_unexpected(const struct cause_ctx *c)
{
	return c->pp->pred.nccl_p2p == 1 && c->seen[0] && !strstr(c->seen, "P2P/");
}

static bool nccl_p2p_unexpected(const struct cause_ctx *c)
{
	return c->pp->pred.nccl_p2p == 0 && strstr(c->seen, "P2P/");
}

static bool uvm_failed(const struct cause_ctx *c)
{
	const struct p2ps_chk_obs *o = &c->R->res->obs[c->pp->a][c->pp->b][P2PS_CHK_UVM];
	return p2ps_chk_form_broken(o->form);
}

static bool works_against_driver(const struct cause_ctx *c)
{
	return c->pp->verdict == P2PS_CV_WORKS && said_no(c);
}

#define F(x)            (1u << P2PS_CF_##x)
#define NOTHING_ARRIVED (F(ZEROS) | F(LOST) | F(ONES) | F(HUNG))

/* A cause applies when one of its forms is among the pair's (0: any) and its fact holds; the
 * analysis' finding with code (when not -1) adds its own text and fix. */
static const struct cause_rule {
	unsigned forms;
	bool (*when)(const struct cause_ctx *c);
	int reason;
	const char *text, *fix;
} rules[] = {
        {NOTHING_ARRIVED, translating, P2PS_R_IOMMU_TRANSLATING,
         "the IOMMU translates the GPUs' DMA: a peer's BAR address the IOMMU has not mapped is "
         "dropped (writes lost, reads answered with zeros or all ones) or faults",
         ""},
        {NOTHING_ARRIVED, acs_redirect, P2PS_R_ACS_REDIRECT,
         "ACS redirects peer requests up to the root complex, which may drop them or not route "
         "peer-to-peer traffic at all",
         ""},
        {F(DENIED), said_ok, -1,
         "the driver reports P2P OK for this pair, yet CUDA denies peer access: the stock "
         "driver on GeForce RTX 40/50 GPUs (P2P only with the P2P-enabled open kernel "
         "modules), GPUs of different generations, or more than 8 peers of one GPU",
         "on GeForce, the P2P-enabled open kernel modules (tinygrad's or aikitoria's); "
         "`bar-inspect --driver auto` shows the driver's decision per pair"},
        {F(ALIASED), NULL, P2PS_R_STATIC_BAR1,
         "the data moved by a power of two: an address bit is lost on the way, or a mapping "
         "window wraps (a static BAR1 mapping through a BAR1 smaller than the memory, or a "
         "P2P mapping error in the driver)",
         "check bar-inspect's BAR1 verdict for both GPUs; report it with the driver version"},
        {F(SHIFTED), NULL, -1,
         "the data moved by a distance that is not a power of two: the mapping's base address "
         "is wrong",
         "report it with the driver version and this output"},
        {F(WRONG_GPU), NULL, -1,
         "peer traffic reaches another GPU: the P2P mapping points at the wrong BAR or peer "
         "(an address decode error of the driver, firmware or a switch)",
         "report it with the driver version and `bar-inspect --paste` of this host"},
        {F(HUNG), NULL, -1,
         "a peer access never completed: a request without completion (ACS or the IOMMU "
         "dropping it, a switch or root complex that does not route peer traffic, a peer BAR "
         "that is not mapped); the GPU may need a reset before it works again",
         "look for Xid errors in the kernel log (`dmesg | grep -i xid`)"},
        {F(CORRUPT), NULL, -1,
         "garbage arrived: a failing link or memory, or writes of another process",
         "look for AER and Xid errors in the kernel log"},
        {F(CANARY), NULL, -1, "memory beside the data changed: a copy ran over its end", ""},
        {0, uvm_failed, -1,
         "managed memory across GPUs faults on some drivers (Xid 31 under UVM with P2P, "
         "reported on P2P-patched drivers since 590.44.01)",
         "leave --uvm out on such drivers"},
        {0, nccl_shm_unexpected, P2PS_R_NCCL_ENV,
         "the copies worked, yet NCCL chose a transport through host memory: NCCL_P2P_DISABLE "
         "or NCCL_P2P_LEVEL in NCCL's environment, NCCL's NVML check of the driver's P2P "
         "status, or NCCL's topology placing the path beyond its P2P level",
         "unset NCCL_P2P_DISABLE; NCCL_P2P_LEVEL=SYS lets NCCL use P2P on any path"},
        {0, nccl_p2p_unexpected, -1,
         "NCCL chose P2P where its rule (and the driver's status) predicted its SHM "
         "transport: the prediction lacks a fact NCCL had",
         ""},
        {0, works_against_driver, -1,
         "the driver reports no P2P for this pair, yet peer access and every copy worked: "
         "the status the driver reported is not the one CUDA used",
         ""},
};

static void add_cause(struct p2ps_chk_pair *pp, const char *text, const char *fix)
{
	if (pp->n_causes >= P2PS_CHK_MAX_CAUSES)
		return;
	struct p2ps_chk_cause *c = &pp->cause[pp->n_causes++];
	p2ps_chk_setf(c->text, sizeof(c->text), "%s", text);
	p2ps_chk_setf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
}

static const struct p2ps_reason *reason_of(const struct cause_ctx *c, int code)
{
	for (size_t k = 0; c->ap && code >= 0 && k < c->ap->reasons.n; k++)
		if ((int)c->ap->reasons.v[k].code == code)
			return &c->ap->reasons.v[k];
	return NULL;
}

static void causes(const struct p2ps_chk_report *R, struct p2ps_chk_pair *pp,
                   const struct p2ps_pair *ap)
{
	struct cause_ctx c = {R, pp, ap, 0, R->res->nccl.transport[pp->a][pp->b]};
	for (int p = 0; p < P2PS_CHK_PATHS; p++)
		c.forms |= 1u << R->res->obs[pp->a][pp->b][p].form;
	/* As predicted: the driver's own gate says why there is no P2P. */
	if ((c.forms & F(DENIED)) && said_no(&c)) {
		char text[400];
		p2ps_chk_setf(
		        text, sizeof(text), "as predicted: %s say%s no P2P for this pair%s%s%s",
		        pp->pred.p2p_from, strcmp(pp->pred.p2p_from, "the driver model") ? "" : "s",
		        pp->pred.model_why[0] ? " (" : "", pp->pred.model_why,
		        pp->pred.model_why[0] ? ")" : "");
		const struct p2ps_drv_pair *dp =
		        drv_pair(R->drv, gpu_of(R->an, R->res->gpu[pp->a].info.bdf),
		                 gpu_of(R->an, R->res->gpu[pp->b].info.bdf));
		add_cause(pp, text, dp && R->drv->cfg.known ? dp->fix : "");
	}
	for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
		const struct cause_rule *r = &rules[k];
		if ((r->forms && !(c.forms & r->forms)) || (r->when && !r->when(&c)))
			continue;
		const struct p2ps_reason *x = reason_of(&c, r->reason);
		char text[400];
		p2ps_chk_setf(text, sizeof(text), "%s%s%s", r->text, x ? "; bar-inspect: " : "",
		              x ? x->text : "");
		add_cause(pp, text, x && x->fix[0] ? x->fix : r->fix);
	}
}

#undef F
#undef NOTHING_ARRIVED

/* ---- verdicts ---- */

static bool asked(const struct p2ps_chk_result *res, int p)
{
	return p == P2PS_CHK_PEER || (res->opts.paths & P2PS_CHK_PATH_BIT(p));
}

static void judge(const struct p2ps_chk_report *R, struct p2ps_chk_pair *pp)
{
	const struct p2ps_chk_result *res = R->res;
	const struct p2ps_chk_obs *o = res->obs[pp->a][pp->b];
	const char *seen = res->nccl.transport[pp->a][pp->b];
	int broken = -1, unknown = -1;
	pp->nccl_seen = strstr(seen, "P2P/") ? "P2P" : p2ps_chk_nccl_class(seen);
	for (int p = 0; p < P2PS_CHK_PATHS; p++) {
		if (!asked(res, p))
			continue;
		if (p2ps_chk_form_broken(o[p].form) && broken < 0)
			broken = p;
		/* A path that needs peer access is not run when CUDA denied it: that is the
		 * denial's verdict, not an unknown. */
		bool after_denial =
		        o[P2PS_CHK_PEER].form == P2PS_CF_DENIED && o[p].form == P2PS_CF_NOT_RUN;
		if (o[p].form == P2PS_CF_NOT_RUN && !after_denial && unknown < 0)
			unknown = p;
	}
	if (broken >= 0) {
		pp->verdict = P2PS_CV_BROKEN;
		p2ps_chk_setf(pp->verdict_why, sizeof(pp->verdict_why), "%s: %s%s%s",
		              p2ps_chk_path_name(broken), p2ps_chk_form_name(o[broken].form),
		              o[broken].detail[0] ? ", " : "", o[broken].detail);
	} else if (o[P2PS_CHK_PEER].form == P2PS_CF_DENIED) {
		pp->verdict = pp->pred.p2p == 1 ? P2PS_CV_BROKEN : P2PS_CV_UNAVAILABLE;
		snprintf(pp->verdict_why, sizeof(pp->verdict_why),
		         "CUDA denies peer access%s; copies through host memory %s",
		         pp->pred.p2p == 1 ? " although the driver reports P2P OK" : "",
		         o[P2PS_CHK_CE].form == P2PS_CF_OK ? "verified" : "not verified");
	} else if (pp->pred.nccl_p2p == 1 && seen[0] && !strstr(seen, "P2P/")) {
		pp->verdict = P2PS_CV_BROKEN;
		snprintf(pp->verdict_why, sizeof(pp->verdict_why),
		         "NCCL chose %s where it should use P2P", seen);
	} else if (unknown >= 0) {
		pp->verdict = P2PS_CV_UNKNOWN;
		p2ps_chk_setf(pp->verdict_why, sizeof(pp->verdict_why), "%s not run: %s",
		              p2ps_chk_path_name(unknown), o[unknown].detail);
	} else {
		pp->verdict = P2PS_CV_WORKS;
		p2ps_chk_setf(pp->verdict_why, sizeof(pp->verdict_why),
		              "every path checked delivered");
	}
}

/* What the run as a whole says before any pair: no GPU, one GPU, a GPU that would not open,
 * NCCL failing. Returns the verdict, or -1 when the pairs decide. */
static int whole_run(struct p2ps_chk_report *R)
{
	const struct p2ps_chk_result *res = R->res;
	size_t host_gpus = 0;
	for (size_t i = 0; R->an && i < R->an->n_gpus; i++)
		host_gpus += R->an->gpus[i].is_gpu;
	if (res->find.form != P2PS_CF_OK || res->n == 0) {
		const char *why = res->find.form != P2PS_CF_OK ? res->find.detail : "no CUDA GPU";
		if (host_gpus) {
			snprintf(R->summary, sizeof(R->summary),
			         "broken: CUDA sees none of the %zu NVIDIA GPUs of this host (%s)",
			         host_gpus, why);
			return P2PS_CV_BROKEN;
		}
		p2ps_chk_setf(R->summary, sizeof(R->summary), "unknown: nothing to check (%s%s)",
		              why, R->an ? ", and no NVIDIA GPU in the host model" : "");
		return P2PS_CV_UNKNOWN;
	}
	for (int g = 0; g < res->n; g++)
		if (res->gpu[g].open.form != P2PS_CF_OK) {
			p2ps_chk_setf(R->summary, sizeof(R->summary), "broken: GPU %d (%s) %s: %s",
			              g, res->gpu[g].info.bdf,
			              p2ps_chk_form_name(res->gpu[g].open.form),
			              res->gpu[g].open.detail);
			return P2PS_CV_BROKEN;
		}
	if (res->n == 1) {
		p2ps_chk_setf(R->summary, sizeof(R->summary),
		              "%s: one GPU (%s), no pair to check%s",
		              R->policy.allow_single ? "works" : "unknown", res->gpu[0].info.bdf,
		              R->policy.allow_single ? " (one GPU allowed)" : "");
		return R->policy.allow_single ? P2PS_CV_WORKS : P2PS_CV_UNKNOWN;
	}
	const struct p2ps_chk_nccl *nc = &res->nccl;
	const struct p2ps_chk_obs *bad = p2ps_chk_form_broken(nc->init.form) ? &nc->init : NULL;
	for (int op = 0; op < P2PS_CHK_NCCL_OPS && !bad; op++)
		if (p2ps_chk_form_broken(nc->op[op].form))
			bad = &nc->op[op];
	if (bad) {
		p2ps_chk_setf(R->summary, sizeof(R->summary), "broken: NCCL %s: %s: %s",
		              bad == &nc->init ? "init"
		                               : p2ps_chk_nccl_op_name((int)(bad - nc->op)),
		              p2ps_chk_form_name(bad->form), bad->detail);
		return P2PS_CV_BROKEN;
	}
	return -1;
}

static void host_note(struct p2ps_chk_report *R)
{
	const struct p2ps_chk_result *res = R->res;
	if (!R->an) {
		snprintf(R->host_note, sizeof(R->host_note),
		         "no host model%s%s: no prediction to compare with",
		         R->host_error[0] ? ": " : "", R->host_error);
		return;
	}
	for (size_t i = 0; i < R->an->n_gpus; i++) {
		if (!R->an->gpus[i].is_gpu)
			continue;
		const char *bdf = R->an->host->devs[R->an->gpus[i].dev_idx].bdf_str;
		bool seen = false;
		for (int g = 0; g < res->n && !seen; g++)
			seen = !strcmp(res->gpu[g].info.bdf, bdf);
		if (!seen)
			p2ps_chk_catf(R->host_note, sizeof(R->host_note), "%s%s",
			              R->host_note[0] ? ", "
			                              : "not checked (not visible to CUDA here): ",
			              bdf);
	}
}

static void overall(struct p2ps_chk_report *R)
{
	int v = whole_run(R);
	host_note(R);
	if (v < 0) {
		const struct p2ps_chk_pair *worst = NULL;
		int counts[P2PS_CV_UNKNOWN + 1] = {0};
		static const int rank[] = {[P2PS_CV_WORKS] = 0,
		                           [P2PS_CV_UNKNOWN] = 1,
		                           [P2PS_CV_UNAVAILABLE] = 2,
		                           [P2PS_CV_BROKEN] = 3};
		for (size_t k = 0; k < R->n_pairs; k++) {
			const struct p2ps_chk_pair *pp = &R->pairs[k];
			counts[pp->verdict]++;
			if (!worst || rank[pp->verdict] > rank[worst->verdict])
				worst = pp;
		}
		if (!worst) { /* whole_run() answers for fewer than two GPUs */
			R->verdict = P2PS_CV_UNKNOWN;
			R->exit_status = 3;
			return;
		}
		v = worst->verdict;
		if (v == P2PS_CV_UNAVAILABLE && counts[P2PS_CV_UNKNOWN])
			v = P2PS_CV_UNKNOWN;
		if (v == P2PS_CV_WORKS || (v == P2PS_CV_UNAVAILABLE && R->policy.allow_no_p2p)) {
			int paths = 0;
			for (int p = 0; p < P2PS_CHK_PATHS; p++)
				paths += asked(R->res, p);
			snprintf(R->summary, sizeof(R->summary),
			         "works: %d GPUs, %zu ordered pairs x %d paths verified", R->res->n,
			         R->n_pairs, paths);
			if (counts[P2PS_CV_UNAVAILABLE])
				p2ps_chk_catf(R->summary, sizeof(R->summary),
				              " (%d without P2P, as the driver says: allowed)",
				              counts[P2PS_CV_UNAVAILABLE]);
			const struct p2ps_chk_nccl *nc = &R->res->nccl;
			if (nc->init.form == P2PS_CF_OK)
				p2ps_chk_catf(R->summary, sizeof(R->summary), "; NCCL %s verified",
				              nc->version);
			else if (nc->asked)
				p2ps_chk_catf(R->summary, sizeof(R->summary), "; NCCL %s",
				              p2ps_chk_form_name(nc->init.form));
			v = P2PS_CV_WORKS;
		} else {
			p2ps_chk_setf(R->summary, sizeof(R->summary), "%s: GPU %d -> GPU %d: %s",
			              p2ps_chk_verdict_name(v), worst->a, worst->b,
			              worst->verdict_why);
			if (counts[worst->verdict] > 1)
				p2ps_chk_catf(R->summary, sizeof(R->summary),
				              " (and %d more pairs)", counts[worst->verdict] - 1);
		}
	}
	R->verdict = (enum p2ps_chk_verdict)v;
	R->exit_status = v == P2PS_CV_WORKS ? 0 : v == P2PS_CV_UNKNOWN ? 3 : 1;
}

int p2ps_chk_report_make(const struct p2ps_chk_result *res, const struct p2ps_analysis *an,
                         const struct p2ps_drv_report *drv, const struct p2ps_chk_policy *pol,
                         struct p2ps_chk_report *out, struct p2ps_error *err)
{
	char host_error[sizeof(out->host_error)];
	memcpy(host_error, out->host_error, sizeof(host_error));
	double host_ms = out->host_ms;
	memset(out, 0, sizeof(*out));
	memcpy(out->host_error, host_error, sizeof(host_error));
	out->host_ms = host_ms;
	out->res = res;
	out->an = an;
	out->drv = drv;
	out->policy = res->policy;
	if (pol) {
		out->policy.allow_single |= pol->allow_single;
		out->policy.allow_no_p2p |= pol->allow_no_p2p;
	}
	size_t n = res->n > 1 ? (size_t)res->n : 0;
	if (n) {
		out->pairs = calloc(n * (n - 1), sizeof(*out->pairs));
		if (!out->pairs)
			return p2ps_error_set(err, P2PS_ENOMEM, "check report: out of memory");
	}
	for (int a = 0; a < (int)n; a++)
		for (int b = 0; b < (int)n; b++) {
			if (a == b)
				continue;
			struct p2ps_chk_pair *pp = &out->pairs[out->n_pairs++];
			pp->a = a;
			pp->b = b;
			predict(out, pp);
			judge(out, pp);
			int gi = gpu_of(an, res->gpu[a].info.bdf),
			    gj = gpu_of(an, res->gpu[b].info.bdf);
			causes(out, pp,
			       gi >= 0 && gj >= 0 ? p2ps_analysis_pair(an, (size_t)gi, (size_t)gj)
			                          : NULL);
		}
	overall(out);
	return 0;
}

void p2ps_chk_report_free(struct p2ps_chk_report *r)
{
	free(r->pairs);
	r->pairs = NULL;
	r->n_pairs = 0;
}
