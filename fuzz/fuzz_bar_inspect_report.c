/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost
/* libFuzzer target for bar-inspect's analysis and renderers: the input is loaded as an
 * lspci dump (so arbitrary bridge trees, bus-number loops, odd BARs, ACS and ReBAR
 * registers reach the analysis), every device is made a P2P endpoint so that every
 * pair is classified, and the text, JSON and Graphviz renderers run. Checked: the
 * analysis never fails but for memory, verdicts and classes stay in range, every
 * reason is one line, the JSON text parses back, the DOT graph is closed. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_dump_input.h"
#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/render.h"

static void check_reasons(const struct p2ps_reasons *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (strchr(r->v[i].text, '\n') || strchr(r->v[i].fix, '\n') || !r->v[i].text[0])
			abort();
		if (r->v[i].sev > P2PS_SEV_INFO || r->v[i].code >= P2PS_R_CODE_COUNT)
			abort();
	}
}

static void run(const struct p2ps_host *h)
{
	size_t n = h->n_devs < 48 ? h->n_devs : 48; /* pairs grow as n^2 */
	struct p2ps_bdf *peers = calloc(n ? n : 1, sizeof(*peers));
	if (!peers)
		return;
	for (size_t i = 0; i < n; i++)
		peers[i] = h->devs[i].bdf;
	struct p2ps_analysis_opts o = {.peers = peers, .n_peers = n};
	struct p2ps_analysis a;
	struct p2ps_error err = {0};
	if (p2ps_analysis_run_opts(h, &o, &a, &err) != 0) {
		if (err.code != P2PS_ENOMEM)
			abort();
		free(peers);
		return;
	}
	for (size_t i = 0; i < a.n_gpus; i++) {
		if (a.gpus[i].path_len < 0 || a.gpus[i].path_len > P2PS_PATH_MAX)
			abort();
		check_reasons(&a.gpus[i].reasons);
	}
	for (size_t k = 0; k < a.n_pairs; k++) {
		const struct p2ps_pair *p = &a.pairs[k];
		if (p->verdict > P2PS_VERDICT_UNKNOWN || p->topo > P2PS_TOPO_SYS || p->a >= p->b ||
		    (size_t)p->b >= a.n_gpus)
			abort();
		check_reasons(&p->reasons);
	}
	check_reasons(&a.host_reasons);

	struct p2ps_render_opts ro = {.all = true};
	struct p2ps_strbuf sb = {0};
	if (p2ps_render_text(&a, &ro, &sb, &err) == 0 && (!sb.len || sb.s[sb.len - 1] != '\n'))
		abort();
	p2ps_strbuf_free(&sb);
	if (p2ps_render_json_text(&a, &ro, &sb, &err) == 0) {
		struct json_object *doc = json_tokener_parse(sb.s);
		if (!doc)
			abort();
		json_object_put(doc);
	}
	p2ps_strbuf_free(&sb);
	if (p2ps_render_dot(&a, &ro, &sb, &err) == 0 && !strstr(sb.s, "\n}\n"))
		abort();
	p2ps_strbuf_free(&sb);
	p2ps_analysis_free(&a);
	free(peers);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p2ps_host h;
	struct p2ps_error err = {0};
	if (fuzz_load_dump(data, size, &h, &err) == 0)
		run(&h);
	p2ps_host_free(&h);
	return 0;
}
