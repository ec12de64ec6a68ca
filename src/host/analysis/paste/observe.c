/* SPDX-License-Identifier: MIT */
/* The paste findings' entry point: each check in turn over the evidence the paste reader
 * handed over (host->evidence), then the verdict with its causes and asks. */
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"

/* The evidence GPU each nvidia-smi index and CUDA ordinal names (the first that does). */
static void index_gpus(struct octx *c)
{
	for (int i = 0; i < P2PS_PASTE_MAX_GPUS; i++) {
		c->by_smi[i] = p2ps_evidence_gpu_smi(c->ev, i);
		c->by_cuda[i] = p2ps_evidence_gpu_cuda(c->ev, i);
	}
}

int p2ps_paste_observe(const struct p2ps_analysis *a, struct p2ps_paste_report *out,
                       struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!a || !a->host || !a->host->evidence)
		return p2ps_error_set(err, P2PS_EINVAL, "paste findings: the host is not a paste");
	struct octx c = {.a = a, .h = a->host, .ev = a->host->evidence, .r = out};
	index_gpus(&c);
	po_kernel(&c);
	po_devices(&c);
	po_nvidia_smi(&c);
	po_cuda(&c);
	po_symptoms(&c);
	po_releases(&c);
	if (po_pairs(&c) < 0)
		c.oom = true;
	po_verdict(&c);
	if (c.oom) {
		p2ps_paste_report_free(out);
		return p2ps_error_set(err, P2PS_ENOMEM, "paste findings: out of memory");
	}
	return 0;
}

void p2ps_paste_report_free(struct p2ps_paste_report *r)
{
	if (!r)
		return;
	p2ps_an_reasons_free(&r->findings);
	free(r->pairs);
	memset(r, 0, sizeof(*r));
}
