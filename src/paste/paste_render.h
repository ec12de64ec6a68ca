/* The paste's part of bar-inspect's text and JSON reports (render_paste*.c); the host
 * renderers call these when the model came from a paste. */
#ifndef P2PS_PASTE_RENDER_H
#define P2PS_PASTE_RENDER_H

#include "p2pscope/paste_report.h"
#include "p2pscope/render.h"

struct json_object;

/* Blocks read and skipped, findings, the pair table, verdict, causes, what to send next. */
void p2ps_render_paste_text(const struct p2ps_paste *p, const struct p2ps_paste_report *r,
                            struct p2ps_strbuf *b);

/* The same as the "paste" member of bar-inspect's JSON (schema in docs/bar-inspect.md);
 * NULL when out of memory. */
struct json_object *p2ps_render_paste_json(const struct p2ps_paste *p,
                                           const struct p2ps_paste_report *r);

/* Calls fn with the paste's findings (computed once, freed after); 0 without calling it
 * when a's model is not a paste, else fn's result or a negative P2PS_E* code. */
typedef int (*p2ps_paste_report_fn)(void *ctx, const struct p2ps_paste *p,
                                    const struct p2ps_paste_report *r, struct p2ps_error *err);
int p2ps_paste_with_report(const struct p2ps_analysis *a, struct p2ps_error *err,
                           p2ps_paste_report_fn fn, void *ctx);

/* For a model that came from a paste (a->host->paste): the findings computed and rendered
 * after the host report (text), or added as the "paste" member of root (JSON). 0 when the
 * model is not a paste; a negative P2PS_E* code with err filled otherwise. */
int p2ps_render_paste_section_text(const struct p2ps_analysis *a, struct p2ps_strbuf *b,
                                   struct p2ps_error *err);
int p2ps_render_paste_section_json(const struct p2ps_analysis *a, struct json_object *root,
                                   struct p2ps_error *err);
/* DOT: a note node and the observed pair edges, appended before the graph's closing brace. */
int p2ps_render_paste_section_dot(const struct p2ps_analysis *a, struct p2ps_strbuf *b,
                                  struct p2ps_error *err);

#endif
