/* SPDX-License-Identifier: MIT */
/* The check as Prometheus text (node_exporter's textfile collector, as bar-inspect
 * --prometheus): every family with HELP and TYPE, labels only from small fixed sets (a GPU's
 * PCI address, a path's name); a path that was not run has no sample. */
#include "check_internal.h"

#include <stdio.h>
#include <string.h>

static void family(struct p2ps_strbuf *b, const char *name, const char *help)
{
	p2ps_strbuf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static bool ran(int form)
{
	return form != P2PS_CF_SKIPPED && form != P2PS_CF_NOT_RUN && form != P2PS_CF_UNSUPPORTED;
}

int p2ps_chk_render_prometheus(const struct p2ps_chk_report *r,
                               const struct p2ps_chk_render_opts *o, struct p2ps_strbuf *out)
{
	const struct p2ps_chk_result *res = r->res;
	family(out, "p2pscope_check_status",
	       "the check's exit status: 0 works, 1 broken, 3 unknown");
	p2ps_strbuf_printf(out, "p2pscope_check_status %d\n", r->exit_status);
	family(out, "p2pscope_check_gpus", "GPUs CUDA showed the check");
	p2ps_strbuf_printf(out, "p2pscope_check_gpus %d\n", res->n);
	if (o && o->wall_s > 0) {
		family(out, "p2pscope_check_duration_seconds",
		       "the whole check, process start to end");
		p2ps_strbuf_printf(out, "p2pscope_check_duration_seconds %.3f\n", o->wall_s);
	}
	family(out, "p2pscope_check_pair_works",
	       "1 when every path of the ordered pair delivered, 0 when one is broken or P2P is "
	       "unavailable; no sample when unknown");
	for (size_t k = 0; k < r->n_pairs; k++) {
		const struct p2ps_chk_pair *pp = &r->pairs[k];
		if (pp->verdict == P2PS_CV_UNKNOWN)
			continue;
		p2ps_strbuf_printf(out, "p2pscope_check_pair_works{gpu_a=\"%s\",gpu_b=\"%s\"} %d\n",
		                   res->gpu[pp->a].info.bdf, res->gpu[pp->b].info.bdf,
		                   pp->verdict == P2PS_CV_WORKS);
	}
	family(out, "p2pscope_check_path_ok",
	       "1 when the path delivered the data where they belong, 0 when it did not (denied, "
	       "wrong data, hung, failed); no sample when not run");
	for (size_t k = 0; k < r->n_pairs; k++) {
		const struct p2ps_chk_pair *pp = &r->pairs[k];
		for (int p = 0; p < P2PS_CHK_PATHS; p++) {
			int f = res->obs[pp->a][pp->b][p].form;
			if (!ran(f))
				continue;
			p2ps_strbuf_printf(out,
			                   "p2pscope_check_path_ok{gpu_a=\"%s\",gpu_b=\"%s\",path="
			                   "\"%s\"} %d\n",
			                   res->gpu[pp->a].info.bdf, res->gpu[pp->b].info.bdf,
			                   p2ps_chk_path_name(p), f == P2PS_CF_OK);
		}
	}
	if (res->nccl.asked && ran(res->nccl.init.form)) {
		family(out, "p2pscope_check_nccl_ok",
		       "1 when NCCL's collectives returned the expected data");
		bool ok = res->nccl.init.form == P2PS_CF_OK;
		for (int op = 0; op < P2PS_CHK_NCCL_OPS; op++)
			ok &= res->nccl.op[op].form == P2PS_CF_OK;
		p2ps_strbuf_printf(out, "p2pscope_check_nccl_ok %d\n", ok);
		family(out, "p2pscope_check_nccl_p2p",
		       "1 when NCCL connected the ordered pair with its P2P transport, 0 "
		       "otherwise");
		for (size_t k = 0; k < r->n_pairs; k++) {
			const struct p2ps_chk_pair *pp = &r->pairs[k];
			if (!pp->nccl_seen[0])
				continue;
			p2ps_strbuf_printf(
			        out, "p2pscope_check_nccl_p2p{gpu_a=\"%s\",gpu_b=\"%s\"} %d\n",
			        res->gpu[pp->a].info.bdf, res->gpu[pp->b].info.bdf,
			        !strcmp(pp->nccl_seen, "P2P"));
		}
	}
	return out->oom ? P2PS_ENOMEM : 0;
}
