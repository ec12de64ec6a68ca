/* SPDX-License-Identifier: MIT */
/* bar-inspect --nfd: the analysis as node labels for Kubernetes' node-feature-discovery,
 * in the format of its "local" feature source (a file in
 * /etc/kubernetes/node-feature-discovery/features.d/): one NAME=VALUE line per label,
 * comments starting with '#', and the "# +expiry-time=" directive (RFC 3339) after which
 * nfd-worker ignores the lines that follow it.
 *
 * Every name is p2pscope.io/ and a name segment of Kubernetes' label syntax (at most 63
 * characters of [A-Za-z0-9_.-], alphanumeric at both ends); every value is at most 63
 * such characters, alphanumeric at both ends. The values are numbers, true/false/unknown
 * and reason codes (p2ps_reason_code_name: lower case, digits and '_'), never free text.
 * The labels are documented in docs/kubernetes.md. */
#include "p2pscope/render.h"
#include "render_internal.h"

#include <string.h>

#define NFD_PREFIX    "p2pscope.io/"
#define NFD_VALUE_MAX 63

/* What the shown pairs say, counted once. */
struct nfd_counts {
	size_t gpus; /* NVIDIA GPUs and --peers devices */
	size_t pairs, ready, not_ready, unknown;
	size_t nvlinked;                         /* pairs joined by NVLink */
	bool nvlink_unknown;                     /* a GPU whose NVLink facts are unknown */
	size_t blocked_pairs[P2PS_R_CODE_COUNT]; /* pairs with a blocker of the code */
	size_t unknown_pairs[P2PS_R_CODE_COUNT]; /* pairs with an unknown of the code */
};

/* Whether the pair has a finding of the code with the severity. */
static bool pair_has(const struct p2ps_pair *p, enum p2ps_reason_code c, enum p2ps_severity sev)
{
	for (size_t k = 0; k < p->reasons.n; k++)
		if (p->reasons.v[k].sev == sev && p->reasons.v[k].code == c)
			return true;
	return false;
}

static void count(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                  struct nfd_counts *n)
{
	memset(n, 0, sizeof(*n));
	for (size_t gi = 0; gi < a->n_gpus; gi++) {
		if (!p2ps_endpoint_shown(a, o, gi))
			continue;
		n->gpus++;
		if (a->gpus[gi].is_gpu && !a->host->devs[a->gpus[gi].dev_idx].gpu.nvlink_known)
			n->nvlink_unknown = true;
	}
	for (size_t k = 0; k < a->n_pairs; k++) {
		const struct p2ps_pair *p = &a->pairs[k];
		if (!p2ps_pair_shown(a, o, p))
			continue;
		n->pairs++;
		n->ready += p->verdict == P2PS_VERDICT_READY;
		n->not_ready += p->verdict == P2PS_VERDICT_NOT_READY;
		n->unknown += p->verdict == P2PS_VERDICT_UNKNOWN;
		n->nvlinked += p->nvlinks > 0;
		for (int c = 0; c < P2PS_R_CODE_COUNT; c++) {
			n->blocked_pairs[c] +=
			        pair_has(p, (enum p2ps_reason_code)c, P2PS_SEV_BLOCKER);
			n->unknown_pairs[c] +=
			        pair_has(p, (enum p2ps_reason_code)c, P2PS_SEV_UNKNOWN);
		}
	}
}

/* The codes of the findings counted in pairs[] joined by '.' as the value of label NAME,
 * when they fit in a label value; else as many whole codes as fit before ".more" (the
 * per-code labels name them all). Nothing when there is none. */
static void code_list(struct p2ps_strbuf *b, const char *name, const size_t *pairs)
{
	static const char more[] = ".more";
	size_t total = 0, len = 0;
	for (int c = 0; c < P2PS_R_CODE_COUNT; c++)
		if (pairs[c])
			total += strlen(p2ps_reason_code_name((enum p2ps_reason_code)c)) +
			         (total ? 1 : 0);
	if (!total)
		return;
	size_t room = total <= NFD_VALUE_MAX ? NFD_VALUE_MAX : NFD_VALUE_MAX - (sizeof(more) - 1);
	p2ps_strbuf_printf(b, NFD_PREFIX "%s=", name);
	for (int c = 0; c < P2PS_R_CODE_COUNT; c++) {
		if (!pairs[c])
			continue;
		const char *code = p2ps_reason_code_name((enum p2ps_reason_code)c);
		size_t need = strlen(code) + (len ? 1 : 0);
		if (len + need > room)
			break;
		p2ps_strbuf_printf(b, "%s%s", len ? "." : "", code);
		len += need;
	}
	p2ps_strbuf_printf(b, "%s\n", total > NFD_VALUE_MAX ? more : "");
}

/* One label per code: PREFIX.CODE=pairs with a finding of the code. */
static void code_counts(struct p2ps_strbuf *b, const char *prefix, const size_t *pairs)
{
	for (int c = 0; c < P2PS_R_CODE_COUNT; c++)
		if (pairs[c])
			p2ps_strbuf_printf(b, NFD_PREFIX "%s.%s=%zu\n", prefix,
			                   p2ps_reason_code_name((enum p2ps_reason_code)c),
			                   pairs[c]);
}

static void pair_labels(struct p2ps_strbuf *b, const struct nfd_counts *n)
{
	const char *ready = n->not_ready ? "false" : n->unknown ? "unknown" : "true";
	p2ps_strbuf_printf(b, NFD_PREFIX "p2p-ready=%s\n", ready);
	p2ps_strbuf_printf(b, NFD_PREFIX "p2p-ready-pairs=%zu\n", n->ready);
	p2ps_strbuf_printf(b, NFD_PREFIX "p2p-not-ready-pairs=%zu\n", n->not_ready);
	p2ps_strbuf_printf(b, NFD_PREFIX "p2p-unknown-pairs=%zu\n", n->unknown);
	code_list(b, "blockers", n->blocked_pairs);
	code_counts(b, "blocker", n->blocked_pairs);
	code_list(b, "unknowns", n->unknown_pairs);
	code_counts(b, "unknown", n->unknown_pairs);
	const char *nvlink = n->nvlinked ? "true" : n->nvlink_unknown ? "unknown" : "false";
	p2ps_strbuf_printf(b, NFD_PREFIX "nvlink=%s\n", nvlink);
	p2ps_strbuf_printf(b, NFD_PREFIX "nvlink-pairs=%zu\n", n->nvlinked);
}

int p2ps_render_nfd(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                    struct p2ps_strbuf *b, struct p2ps_error *err)
{
	struct nfd_counts n;
	count(a, o, &n);
	p2ps_strbuf_printf(b, "# bar-inspect%s%s --nfd: node-feature-discovery labels\n",
	                   o && o->version ? " " : "", o && o->version ? o->version : "");
	if (o && o->nfd_expiry)
		p2ps_strbuf_printf(b, "# +expiry-time=%s\n", o->nfd_expiry);
	p2ps_strbuf_printf(b, NFD_PREFIX "gpus=%zu\n", n.gpus);
	p2ps_strbuf_printf(b, NFD_PREFIX "gpu-pairs=%zu\n", n.pairs);
	if (n.pairs)
		pair_labels(b, &n);
	if (b->oom)
		return p2ps_error_set(err, P2PS_ENOMEM, "nfd: out of memory");
	return 0;
}
