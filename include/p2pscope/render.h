/* SPDX-License-Identifier: MIT */
/* p2pscope: bar-inspect's renderers — the analysis as readable text, JSON (json-c) or a
 * Graphviz graph. Renderers only format: every fact and verdict comes from
 * struct p2ps_analysis (include/p2pscope/analysis.h) and the host model it points to,
 * VFIO facts (host->vfio) included. They write into memory; the caller decides where the
 * bytes go. The JSON schema is in docs/bar-inspect.md, the VFIO keys in docs/vfio.md.
 */
#ifndef P2PSCOPE_RENDER_H
#define P2PSCOPE_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/analysis.h"
#include "p2pscope/error.h"
#include "p2pscope/vfio/facts.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_object;

/* A growable NUL-terminated string. Zero-initialise; p2ps_strbuf_free() releases it.
 * After an allocation failure further appends are dropped and oom stays set. */
struct p2ps_strbuf {
	char *s;
	size_t len;
	size_t cap;
	bool oom;
};

void p2ps_strbuf_printf(struct p2ps_strbuf *b, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
void p2ps_strbuf_puts(struct p2ps_strbuf *b, const char *s);
void p2ps_strbuf_free(struct p2ps_strbuf *b);

struct p2ps_render_opts {
	bool all; /* every PCI device, not only the NVIDIA GPUs */
	/* Devices to show (NULL: all). GPU pairs are shown when either GPU matches; the
	 * topology matrix always covers every GPU. */
	const struct p2ps_slot_filter *filter;
	const char *version; /* tool version for headers, or NULL */
	/* --nfd: when the labels expire, RFC 3339 in UTC ("2026-01-31T12:00:00Z"), or NULL */
	const char *nfd_expiry;
};

/* Text report, readable in a terminal (nvidia-smi / lspci style); the VFIO sections
 * follow the host findings when the model has VFIO facts. */
int p2ps_render_text(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     struct p2ps_strbuf *out, struct p2ps_error *err);

/* Builds the JSON document; *out receives a new reference (json_object_put it). With
 * VFIO facts, each device entry gets "vfio" and the document a top-level "vfio". */
int p2ps_render_json(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     struct json_object **out, struct p2ps_error *err);

/* Appends a JSON document as pretty-printed text (with a trailing newline), the one
 * spelling every bar-inspect JSON output uses. The caller keeps its reference. */
int p2ps_render_json_append(struct json_object *root, struct p2ps_strbuf *out,
                            struct p2ps_error *err);

/* The JSON document as pretty-printed text (with a trailing newline). */
int p2ps_render_json_text(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                          struct p2ps_strbuf *out, struct p2ps_error *err);

/* Graphviz: the PCI tree (host bridges, bridges with ACS marks, GPUs) plus one edge per
 * GPU pair coloured by verdict. */
int p2ps_render_dot(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                    struct p2ps_strbuf *out, struct p2ps_error *err);

/* NCCL's XML topology (the format of NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE): a CPU element
 * per NUMA node, the bridges on the paths of the NVIDIA GPUs and network controllers,
 * the GPUs with their NVLinks. Only GPUs and NICs matching o->filter are described. */
int p2ps_render_nccl_topo(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                          struct p2ps_strbuf *out, struct p2ps_error *err);

/* Prometheus text exposition format (node_exporter's textfile collector): per GPU BAR1,
 * VRAM, link and IOMMU gauges, per pair the verdict, blockers by reason and topology
 * class; metric names in docs/prometheus.md. */
int p2ps_render_prometheus(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                           struct p2ps_strbuf *out, struct p2ps_error *err);

/* node-feature-discovery labels in the format of its local feature source (features.d):
 * p2pscope.io/ NAME=VALUE lines for the GPUs, the pairs' verdicts and blockers, NVLink;
 * names and values in Kubernetes' label syntax; labels in docs/kubernetes.md. */
int p2ps_render_nfd(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                    struct p2ps_strbuf *out, struct p2ps_error *err);

/* ---- the VFIO facts on their own (JSON objects and text lines for other callers) ---- */

/* The per-device "vfio" object; see docs/vfio.md for the keys. Caller owns the result
 * (json_object_put). NULL when out of memory. */
struct json_object *p2ps_vfio_report_json(const struct p2ps_vfio_dev_report *r);
struct json_object *p2ps_vfio_peer_map_json(const struct p2ps_vfio_peer_map *m);
struct json_object *p2ps_nv_boot0_json(const struct p2ps_nv_boot0 *b);

/* Text: calls line(ctx, s) once per output line (no trailing newline). indent is
 * prepended to each line. */
typedef void (*p2ps_vfio_line_fn)(void *ctx, const char *line);
void p2ps_vfio_report_text(const struct p2ps_vfio_dev_report *r, const char *indent,
                           p2ps_vfio_line_fn line, void *ctx);
void p2ps_vfio_peer_map_text(const struct p2ps_vfio_peer_map *m, const char *indent,
                             p2ps_vfio_line_fn line, void *ctx);
void p2ps_nv_boot0_text(const struct p2ps_nv_boot0 *b, const char *indent, p2ps_vfio_line_fn line,
                        void *ctx);

#ifdef __cplusplus
}
#endif

#endif
