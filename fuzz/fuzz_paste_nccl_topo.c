/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost
/* libFuzzer target for the NCCL XML topology reader of --paste
 * (src/host/backends/paste/parse_nccl_topo.c): the input follows a "<system version="1">"
 * line, so every byte is read as NCCL topology elements; the model it gives goes through
 * the analysis and back out as NCCL XML and Prometheus text. Checked: loading fails only
 * with a one-line message for binary data or memory; every device's provenance names a line
 * and a block that exist; NVLink counts stay within a GPU's links; the XML written back is
 * one <system> element whose <pci> elements are all closed; every Prometheus line is a
 * comment or a sample "name{...} value". */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/evidence.h"
#include "p2pscope/render.h"

static const char prefix[] = "<system version=\"1\">\n";

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void check_host(const struct p2ps_host *h)
{
	const struct p2ps_evidence *p = h->evidence;
	for (size_t i = 0; i < p->n_devs; i++)
		for (int f = 0; f < P2PS_PD_COUNT; f++) {
			struct p2ps_paste_where w = p->devs[i].from[f];
			if (w.line < 0 || w.line > p->lines ||
			    (w.block >= 0 && (size_t)w.block >= p->n_blocks))
				abort();
		}
	for (size_t i = 0; i < h->n_devs; i++) {
		const struct p2ps_gpu_facts *g = &h->devs[i].gpu;
		if (g->nvswitch_links < 0 || g->nvswitch_links > P2PS_HOST_MAX_NVLINK ||
		    g->n_nvlink_peers < 0 || g->n_nvlink_peers > P2PS_HOST_MAX_NVLINK)
			abort();
		for (int k = 0; k < g->n_nvlink_peers; k++)
			if (g->nvlink_peers[k].links < 1 ||
			    g->nvlink_peers[k].links > P2PS_HOST_MAX_NVLINK)
				abort();
	}
}

static void render(const struct p2ps_analysis *a)
{
	struct p2ps_render_opts ro = {.all = true};
	struct p2ps_strbuf sb = {0};
	struct p2ps_error err = {0};
	if (p2ps_render_nccl_topo(a, &ro, &sb, &err) == 0) {
		if (strncmp(sb.s, "<system version=\"1\"", 19) || !strstr(sb.s, "</system>\n") ||
		    count(sb.s, "<pci ") != count(sb.s, "</pci>") + count(sb.s, "\"/>\n") -
		                                    count(sb.s, "<nvlink ") - count(sb.s, "<gpu ") +
		                                    count(sb.s, "</gpu>"))
			abort();
	}
	p2ps_strbuf_free(&sb);
	if (p2ps_render_prometheus(a, &ro, &sb, &err) == 0) {
		for (const char *l = sb.s; *l; l = strchr(l, '\n') + 1) {
			const char *eol = strchr(l, '\n');
			bool comment = l[0] == '#';
			if (!eol || (!comment && strncmp(l, "p2pscope_", 9) != 0) ||
			    (!comment && !memchr(l, ' ', (size_t)(eol - l))))
				abort();
		}
	}
	p2ps_strbuf_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(sizeof(prefix) + size);
	if (!text)
		return 0;
	memcpy(text, prefix, sizeof(prefix) - 1);
	memcpy(text + sizeof(prefix) - 1, data, size);
	struct p2ps_host h;
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {.kind = P2PS_HOST_PASTE,
	                               .path = "fuzz",
	                               .text = text,
	                               .text_len = sizeof(prefix) - 1 + size};
	if (p2ps_host_load(&h, &src, &err) < 0) {
		if ((err.code != P2PS_EINVAL && err.code != P2PS_ENOMEM) || strchr(err.msg, '\n'))
			abort();
		free(text);
		return 0;
	}
	check_host(&h);
	struct p2ps_analysis a;
	if (p2ps_analysis_run(&h, &a, &err) == 0) {
		render(&a);
		p2ps_analysis_free(&a);
	}
	p2ps_host_free(&h);
	free(text);
	return 0;
}
