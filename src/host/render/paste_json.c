/* SPDX-License-Identifier: MIT */
/* The paste's part of bar-inspect --json: blocks, provenance of every device fact,
 * findings, the pair table, verdict, causes and what to send next. */
#include <json-c/json.h>
#include <stdio.h>

#include "render_internal.h"

static struct json_object *where(struct p2ps_paste_where w)
{
	if (!w.line)
		return NULL;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "line", json_object_new_int(w.line));
	p2ps_json_put(o, "block", w.block >= 0 ? json_object_new_int(w.block + 1) : NULL);
	return o;
}

static struct json_object *blocks(const struct p2ps_evidence *p)
{
	struct json_object *arr = json_object_new_array();
	for (size_t i = 0; i < p->n_blocks; i++) {
		const struct p2ps_paste_block *k = &p->blocks[i];
		struct json_object *o = json_object_new_object();
		p2ps_json_put(o, "block", json_object_new_int((int)i + 1));
		p2ps_json_put(o, "kind", json_object_new_string(p2ps_paste_kind_name(k->kind)));
		p2ps_json_put(o, "read", json_object_new_boolean(k->kind != P2PS_PASTE_TEXT));
		p2ps_json_put(o, "first_line", json_object_new_int(k->first_line));
		p2ps_json_put(o, "last_line", json_object_new_int(k->last_line));
		p2ps_json_put(o, "command", p2ps_json_str_or_null(k->command));
		p2ps_json_put(o, "summary", json_object_new_string(k->summary));
		p2ps_json_put(o, "cut", json_object_new_boolean(k->cut));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* {"0000:01:00.0": {"bars": {"line": 12, "block": 2}, ...}, ...} */
static struct json_object *provenance(const struct p2ps_evidence *p)
{
	struct json_object *all = json_object_new_object();
	for (size_t i = 0; i < p->n_devs; i++) {
		struct json_object *o = json_object_new_object();
		for (int f = 0; f < P2PS_PD_COUNT; f++)
			if (p->devs[i].from[f].line)
				p2ps_json_put(o, p2ps_paste_dfact_name(f),
				              where(p->devs[i].from[f]));
		p2ps_json_put(all, p->devs[i].bdf_str, o);
	}
	return all;
}

static struct json_object *findings(const struct p2ps_paste_report *r)
{
	struct json_object *arr = json_object_new_array();
	for (size_t i = 0; i < r->findings.n; i++) {
		const struct p2ps_reason *f = &r->findings.v[i];
		struct json_object *o = json_object_new_object();
		p2ps_json_put(o, "code", json_object_new_string(p2ps_paste_finding_name(f->code)));
		p2ps_json_put(o, "severity", json_object_new_string(p2ps_severity_name(f->sev)));
		p2ps_json_put(o, "text", json_object_new_string(f->text));
		p2ps_json_put(o, "fix", p2ps_json_str_or_null(f->fix));
		p2ps_json_put(o, "seen", where(f->from));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *access(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v);
}

/* pairs[].p2p_codes: nvidia-smi topo -p2p per path, in the driver's terms. */
static struct json_object *p2p_codes(const struct p2ps_paste_pair *x)
{
	struct json_object *arr = json_object_new_array();
	for (size_t k = 0; k < x->n_p2p_codes; k++) {
		const struct p2ps_paste_p2p_code *p = &x->p2p_codes[k];
		struct json_object *o = json_object_new_object(), *gates = json_object_new_array();
		char path[2] = {p->path, 0};
		p2ps_json_put(o, "path", p2ps_json_str_or_null(path));
		p2ps_json_put(o, "a_to_b", p2ps_json_str_or_null(p->ab));
		p2ps_json_put(o, "b_to_a", p2ps_json_str_or_null(p->ba));
		p2ps_json_put(o, "status",
		              p->status >= 0 ? json_object_new_string(
		                                       p2ps_nv_status_name((unsigned)p->status))
		                             : NULL);
		for (unsigned g = 0; g < P2PS_NV_GATE_COUNT; g++)
			if (p->gates & P2PS_NV_GATE_BIT(g)) {
				struct json_object *e = json_object_new_object();
				p2ps_json_put(e, "gate",
				              json_object_new_string(p2ps_nv_gate_name(g)));
				p2ps_json_put(e, "source",
				              json_object_new_string(p2ps_nv_gate_source(g)));
				json_object_array_add(gates, e);
			}
		p2ps_json_put(o, "gates", gates);
		p2ps_json_put(o, "status_source",
		              p->why ? json_object_new_string(p->why->source) : NULL);
		p2ps_json_put(o, "fix", p->why ? json_object_new_string(p->why->fix) : NULL);
		p2ps_json_put(o, "normal_without_path",
		              json_object_new_boolean(p->why && p->why->expected));
		p2ps_json_put(o, "seen", where(p->from));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *pairs(const struct p2ps_paste_report *r)
{
	struct json_object *arr = json_object_new_array();
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct p2ps_paste_pair *x = &r->pairs[i];
		struct json_object *o = json_object_new_object(), *p2p = json_object_new_array(),
		                   *cuda = json_object_new_array();
		p2ps_json_put(o, "a", json_object_new_string(x->a));
		p2ps_json_put(o, "b", json_object_new_string(x->b));
		p2ps_json_put(o, "verdict",
		              x->ours ? json_object_new_string(p2ps_verdict_name(x->ours->verdict))
		                      : NULL);
		p2ps_json_put(o, "topology",
		              x->ours ? json_object_new_string(p2ps_topo_name(x->ours->topo))
		                      : NULL);
		p2ps_json_put(o, "nvidia_smi_topology", p2ps_json_str_or_null(x->topo));
		json_object_array_add(p2p, p2ps_json_str_or_null(x->p2p_ab));
		json_object_array_add(p2p, p2ps_json_str_or_null(x->p2p_ba));
		p2ps_json_put(o, "nvidia_smi_p2p", p2p);
		p2ps_json_put(o, "p2p_codes", p2p_codes(x));
		json_object_array_add(cuda, access(x->cuda_ab));
		json_object_array_add(cuda, access(x->cuda_ba));
		p2ps_json_put(o, "cuda_peer_access", cuda);
		p2ps_json_put(o, "bandwidth_p2p_off_gbps", p2ps_json_gbps(x->bw_off));
		p2ps_json_put(o, "bandwidth_p2p_on_gbps", p2ps_json_gbps(x->bw_on));
		p2ps_json_put(o, "nvbandwidth_d2d_gbps", p2ps_json_gbps(x->d2d));
		p2ps_json_put(o, "disagreement", p2ps_json_str_or_null(x->note));
		p2ps_json_put(o, "nccl_transport", p2ps_json_str_or_null(x->nccl));
		p2ps_json_put(o, "p2p_works", json_object_new_boolean(x->works == 1));
		p2ps_json_put(o, "p2p_works_evidence", p2ps_json_str_or_null(x->works_why));
		p2ps_json_put(o, "p2p_works_driver_word_only",
		              json_object_new_boolean(x->works_weak));
		p2ps_json_put(o, "p2p_works_copies_shown",
		              json_object_new_boolean(x->works_copied));
		p2ps_json_put(o, "bandwidth_bidirectional",
		              json_object_new_boolean(x->bw_bidirectional));
		p2ps_json_put(o, "latency_p2p_off_us", p2ps_json_gbps(x->lat_off));
		p2ps_json_put(o, "latency_p2p_on_us", p2ps_json_gbps(x->lat_on));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *p2ps_render_paste_json(const struct p2ps_evidence *p,
                                                  const struct p2ps_paste_report *r)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	p2ps_json_put(o, "source", json_object_new_string(p->source));
	p2ps_json_put(o, "lines", json_object_new_int(p->lines));
	p2ps_json_put(o, "bug_report", json_object_new_boolean(p->bug_report));
	p2ps_json_put(o, "blocks", blocks(p));
	p2ps_json_put(o, "facts", provenance(p));
	p2ps_json_put(o, "findings", findings(r));
	p2ps_json_put(o, "pairs", pairs(r));
	p2ps_json_put(o, "verdict", json_object_new_string(p2ps_verdict_name(r->verdict)));
	p2ps_json_put(o, "verdict_reason", json_object_new_string(r->verdict_why));
	struct json_object *causes = json_object_new_array(), *asks = json_object_new_array();
	for (size_t i = 0; i < r->n_causes; i++) {
		struct json_object *c = json_object_new_object();
		p2ps_json_put(c, "code", json_object_new_string(r->causes[i].code));
		p2ps_json_put(c, "text", json_object_new_string(r->causes[i].text));
		p2ps_json_put(c, "fix", p2ps_json_str_or_null(r->causes[i].fix));
		json_object_array_add(causes, c);
	}
	for (size_t i = 0; i < r->n_asks; i++) {
		struct json_object *a = json_object_new_object();
		p2ps_json_put(a, "command", json_object_new_string(r->asks[i].command));
		p2ps_json_put(a, "what", json_object_new_string(r->asks[i].what));
		json_object_array_add(asks, a);
	}
	struct json_object *notes = json_object_new_array();
	for (size_t i = 0; i < r->n_notes; i++) {
		struct json_object *n = json_object_new_object();
		p2ps_json_put(n, "code", json_object_new_string(r->notes[i].code));
		p2ps_json_put(n, "text", json_object_new_string(r->notes[i].text));
		json_object_array_add(notes, n);
	}
	p2ps_json_put(o, "causes", causes);
	p2ps_json_put(o, "notes", notes);
	p2ps_json_put(o, "send_next", asks);
	return o;
}

static int json_section(void *ctx, const struct p2ps_evidence *p, const struct p2ps_paste_report *r,
                        struct p2ps_error *err)
{
	struct json_object *o = p2ps_render_paste_json(p, r);
	if (!o)
		return p2ps_error_set(err, P2PS_ENOMEM, "json: out of memory");
	json_object_object_add(ctx, "paste", o);
	return 0;
}

int p2ps_render_paste_section_json(const struct p2ps_analysis *a, struct json_object *root,
                                   struct p2ps_error *err)
{
	return p2ps_paste_with_report(a, err, json_section, root);
}
