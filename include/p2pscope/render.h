/* p2pscope: bar-inspect's renderers — the analysis as readable text, JSON (json-c) or a
 * Graphviz graph. Renderers only format: every fact and verdict comes from
 * struct p2ps_analysis (include/p2pscope/analysis.h). They write into memory; the
 * caller decides where the bytes go. The JSON schema is in docs/bar-inspect.md.
 */
#ifndef P2PSCOPE_RENDER_H
#define P2PSCOPE_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/analysis.h"
#include "p2pscope/error.h"

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

/* Which devices to show, like lspci's -s: each field is -1 for "any". */
struct p2ps_slot_filter {
	int domain;
	int bus;
	int dev;
	int fn;
};

bool p2ps_slot_match(const struct p2ps_slot_filter *f, const struct p2ps_bdf *bdf);

struct p2ps_render_opts {
	bool all; /* every PCI device, not only the NVIDIA GPUs */
	/* Devices to show (NULL: all). GPU pairs are shown when either GPU matches; the
	 * topology matrix always covers every GPU. */
	const struct p2ps_slot_filter *filter;
	const char *version; /* tool version for headers, or NULL */
};

/* Text report, readable in a terminal (nvidia-smi / lspci style). */
int p2ps_render_text(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     struct p2ps_strbuf *out, struct p2ps_error *err);

/* Builds the JSON document; *out receives a new reference (json_object_put it). */
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

#ifdef __cplusplus
}
#endif

#endif
