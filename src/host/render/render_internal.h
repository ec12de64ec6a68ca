/* SPDX-License-Identifier: MIT */
/* Private helpers shared by the renderers (not installed). */
#ifndef P2PS_RENDER_INTERNAL_H
#define P2PS_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/paste_report.h"
#include "p2pscope/render.h"
#include "p2pscope/vfio/facts.h"

#include "json_put.h"

struct json_object;

/* ---- common.c ---- */

/* lspci's compact size spelling ("16M", "256G"). */
char *p2ps_size_short(uint64_t bytes, char *buf, size_t size);

/* Whether the device at host->devs[idx] is shown under o (filter, --all). */
bool p2ps_dev_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o, int idx);

/* Whether endpoint gi (a->gpus[gi]) is shown under o's filter (-s). */
bool p2ps_endpoint_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                         size_t gi);

/* Whether a pair is shown under o's filter (either GPU matches). */
bool p2ps_pair_shown(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                     const struct p2ps_pair *p);

/* ---- text.c, text_devices.c, vfio_text.c ---- */

/* Findings, one per line ("blocker  text" and an indented "fix: ..."). */
void p2ps_text_reasons(struct p2ps_strbuf *b, const struct p2ps_reasons *r, const char *ind,
                       bool with_info);

/* The block of endpoint gi (a GPU or an extra peer), and of any other device (--all). */
void p2ps_text_gpu_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a, size_t gi);
void p2ps_text_other_block(struct p2ps_strbuf *b, const struct p2ps_analysis *a, int idx);

/* The VFIO sections after the report: devices, register reads, the peer mapping. */
void p2ps_text_vfio(struct p2ps_strbuf *b, const struct p2ps_vfio_facts *f);

/* ---- rm_facts.c: the RM API's facts ---- */
void p2ps_text_rm_gpu(struct p2ps_strbuf *b, const struct p2ps_dev *d, const char *ind);
void p2ps_text_rm_pair(struct p2ps_strbuf *b, const struct p2ps_host *h, const struct p2ps_dev *x,
                       const struct p2ps_dev *y);
void p2ps_text_rm_host(struct p2ps_strbuf *b, const struct p2ps_host *h);
struct json_object *p2ps_json_rm_gpu(const struct p2ps_dev *d);
struct json_object *p2ps_json_rm_pair(const struct p2ps_host *h, const struct p2ps_dev *x,
                                      const struct p2ps_dev *y);
struct json_object *p2ps_json_rm_host(const struct p2ps_host *h);
void p2ps_dot_rm_pair(struct p2ps_strbuf *b, const struct p2ps_host *h, const struct p2ps_dev *x,
                      const struct p2ps_dev *y);

/* ---- json.c, json_devices.c, vfio_json.c ---- */

/* GB/s rounded to two decimals ("63.02"); null for 0 (unknown). */
struct json_object *p2ps_json_gbps(double v);

/* The "devices" entry of host->devs[idx]. */
struct json_object *p2ps_json_device(const struct p2ps_analysis *a, int idx);

/* The top-level "bridges": every bridge on an endpoint's path to its host bridge, named
 * and with its ACS state, so that reports without --all still say which switch model
 * redirects (bar-inspect --fleet groups ACS findings by it). */
struct json_object *p2ps_json_path_bridges(const struct p2ps_analysis *a);

/* A list of findings. */
struct json_object *p2ps_json_reasons(const struct p2ps_analysis *a, const struct p2ps_reasons *r);

/* The top-level "vfio" object. */
struct json_object *p2ps_json_vfio(const struct p2ps_vfio_facts *f);

/* ---- dot.c ---- */

/* s with Graphviz's quotes and backslashes escaped, for a quoted ID or label. */
void p2ps_dot_escaped(struct p2ps_strbuf *b, const char *s);
/* The colour of a verdict's edge: darkgreen ready, red not ready, grey50 unknown. */
const char *p2ps_dot_verdict_color(enum p2ps_verdict v);

/* ---- gdr.c: GPUDirect RDMA pairs ---- */
void p2ps_text_gdr(struct p2ps_strbuf *b, const struct p2ps_analysis *a);
struct json_object *p2ps_json_gdr(const struct p2ps_analysis *a);
/* Marks the devices of the GDR pairs (and the bridges above them) to be drawn. */
void p2ps_dot_gdr_want(const struct p2ps_analysis *a, bool *want);
void p2ps_dot_gdr_edges(struct p2ps_strbuf *b, const struct p2ps_analysis *a);

/* ---- paste_text.c, paste_json.c, paste_dot.c: the paste's part of the reports ---- */

/* Calls fn with the paste's findings (a->paste, computed once by the analysis); 0 without
 * calling it when a's model is not a paste, else fn's result. */
typedef int (*p2ps_paste_report_fn)(void *ctx, const struct p2ps_evidence *ev,
                                    const struct p2ps_paste_report *r, struct p2ps_error *err);
int p2ps_paste_with_report(const struct p2ps_analysis *a, struct p2ps_error *err,
                           p2ps_paste_report_fn fn, void *ctx);

/* For a model that came from a paste (a->host->evidence), after the host report: the blocks
 * read and skipped, findings, the pair table, verdict, causes and what to send next
 * (text); the "paste" member of root (JSON); a note node and the observed pair edges,
 * before the graph's closing brace (DOT). 0 when the model is not a paste; a negative
 * P2PS_E* code with err filled otherwise. */
int p2ps_render_paste_section_text(const struct p2ps_analysis *a, struct p2ps_strbuf *b,
                                   struct p2ps_error *err);
int p2ps_render_paste_section_json(const struct p2ps_analysis *a, struct json_object *root,
                                   struct p2ps_error *err);
int p2ps_render_paste_section_dot(const struct p2ps_analysis *a, struct p2ps_strbuf *b,
                                  struct p2ps_error *err);

/* ---- driver_text.c, driver_json.c: the driver model (a->driver), when present ---- */
void p2ps_render_driver_text(const struct p2ps_analysis *a, struct p2ps_strbuf *b);
void p2ps_render_driver_dot(const struct p2ps_analysis *a, struct p2ps_strbuf *b);
struct json_object;
void p2ps_render_driver_json(const struct p2ps_analysis *a, struct json_object *root);

#endif
