/* SPDX-License-Identifier: MIT */
/* Internals of the fleet summary (include/p2pscope/fleet.h): the reading batch that
 * worker threads fill without touching the fleet, and the helpers the files share. */
#ifndef P2PS_FLEET_INTERNAL_H
#define P2PS_FLEET_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <json-c/json_tokener.h>

#include "grow.h"
#include "p2pscope/fleet.h"

/* What reading one input produced: hosts and skipped entries, in input order. Filled by
 * fl_read_stream()/fl_read_report() (thread-safe: they touch only the batch) and moved
 * into the fleet by fl_batch_merge() on the main thread. */
struct fl_batch {
	struct p2ps_fleet_host *hosts;
	size_t n_hosts, cap_hosts;
	struct p2ps_fleet_skip *skips;
	size_t n_skips, cap_skips;
	bool oom;
};

struct p2ps_fleet_priv {
	struct p2ps_fleet_opts opts;
	char **expected;
	size_t n_expected, cap_expected;
	size_t cap_hosts, cap_skipped;
	bool finished;
};

/* Grows *v (of *cap elements of size sz) to hold at least need; false when out of memory. */

/* strdup that accepts NULL (returns NULL) and records an allocation failure in *oom. */
char *fl_strdup(const char *s, bool *oom);
char *fl_printf(bool *oom, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends a skipped entry (source and a printf-style reason) to the batch. */
void fl_batch_skip(struct fl_batch *b, const char *source, enum p2ps_fleet_skip_kind kind,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Appends a host (moved: *h is cleared). */
void fl_batch_host(struct fl_batch *b, struct p2ps_fleet_host *h);
/* Moves the batch's hosts and skips into the fleet; false when out of memory. */
bool fl_batch_merge(struct p2ps_fleet *f, struct fl_batch *b);
void fl_batch_free(struct fl_batch *b);

void fl_host_free(struct p2ps_fleet_host *h);
void fl_skip_free(struct p2ps_fleet_skip *s);

/* report.c: one parsed document into a host, or a skipped entry naming source. */
void fl_read_report(struct fl_batch *b, const char *source, struct json_object *root);

/* gdr.c: the report's gpudirect_rdma pairs into h (absent or null: none). Returns false
 * with err filled for a member of the wrong type; *oom on allocation failure. */
bool fl_read_gdr(struct p2ps_fleet_host *h, struct json_object *root, char *err, size_t n,
                 bool *oom);

/* stream.c: a buffer of concatenated documents (name labels them: "NAME", or "NAME#N"
 * when it holds several), parsed with the caller's tokener. */
void fl_read_stream(struct fl_batch *b, json_tokener *tok, const char *name, const char *buf,
                    size_t len);

/* What one reading thread reuses from file to file: the tokener and the file buffer
 * (allocating them per file costs more than the summary's own work). */
struct fl_reader {
	json_tokener *tok;
	char *buf;
	size_t cap;
};
/* Reads a whole file into r->buf (NUL-terminated); false with errno set on failure. */
bool fl_read_file_into(struct fl_reader *r, const char *path, size_t *len);
/* Reads a whole file into a new buffer (free it); NULL with errno set on failure. */
char *fl_read_file(const char *path, size_t *len);

/* aggregate.c: cause groups and drift of the (deduplicated, sorted) hosts. */
bool fl_aggregate(struct p2ps_fleet *f);
void fl_aggregate_free(struct p2ps_fleet *f);

/* Text output through the caller's sink. */
struct fl_out {
	p2ps_fleet_sink_fn sink;
	void *ctx;
};
void fl_emit(struct fl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fl_emit_str(struct fl_out *o, const char *s);

/* "256G", "140.4G", "512M" (binary units), or "?" for a negative size. */
void fl_size_str(char *buf, size_t n, int64_t bytes);

/* Display helpers shared by the renderers. */
const char *fl_severity_name(enum p2ps_fleet_severity s);
/* "2 x GH100 [10de:2335], 1 x ..." */
void fl_models_str(const struct p2ps_fleet_host *h, char *buf, size_t n);
/* The GPU whose BAR1 covers its VRAM least (not covering, else unknown, else the first). */
const struct p2ps_fleet_gpu *fl_worst_bar1(const struct p2ps_fleet_host *h);

#endif
