/* SPDX-License-Identifier: MIT */
/* p2pscope: the fleet summary — many bar-inspect reports read into one model of which
 * hosts can do BAR1 P2P, why the others cannot, and which hosts differ from the other
 * hosts with the same GPU model.
 *
 * Inputs are bar-inspect --json documents (files, folders, globs, or a stream of
 * concatenated documents), capture tarballs and snapshot folders. The library reads
 * JSON itself (json-c); turning a snapshot folder into a report needs the host model and
 * analysis, which the caller supplies as a callback (bar-inspect passes its own), so
 * this library depends on json-c and the common error helpers only.
 *
 * Every input ends up either as a host or as a skipped entry that names it and says
 * why (unreadable, malformed, truncated, not a report, newer schema, duplicate,
 * superseded): nothing vanishes from the counts. Reading never prints; the renderers
 * hand their text to a caller-supplied sink.
 *
 * Lifetime: p2ps_fleet_new(), any number of p2ps_fleet_add_*(), p2ps_fleet_finish()
 * (deduplicates and aggregates), then read the model or render it; p2ps_fleet_free().
 */
#ifndef P2PSCOPE_FLEET_H
#define P2PSCOPE_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_object;

/* The newest bar-inspect JSON schema_version this reader understands. */
#define P2PS_FLEET_SCHEMA_MAX 1

/* A host's overall state, worst first (the order the table sorts by). */
enum p2ps_fleet_status {
	P2PS_FLEET_NOT_READY = 0, /* at least one GPU pair (or GPU) has a blocker */
	P2PS_FLEET_UNKNOWN,       /* no blocker, but a pair lacks a fact its verdict needs */
	P2PS_FLEET_READY,         /* every pair ready */
	P2PS_FLEET_NO_PAIR,       /* fewer than two P2P endpoints: nothing to pair */
};
const char *p2ps_fleet_status_name(enum p2ps_fleet_status s); /* "not ready", ... */

/* The most one input (a file, or the stream on standard input) may hold: 256 MiB, about
 * 28,000 plain `bar-inspect --json` reports. A larger one is skipped as unreadable, so a
 * device that never ends (/dev/zero) or a wrong file fails quickly. */
#define P2PS_FLEET_INPUT_MAX_BYTES ((size_t)256 << 20)

/* Why an input is not counted as a host. */
enum p2ps_fleet_skip_kind {
	P2PS_FLEET_SKIP_UNREADABLE = 0, /* cannot open or read; tarball that does not extract */
	P2PS_FLEET_SKIP_MALFORMED,      /* not JSON, or a field of the wrong type */
	P2PS_FLEET_SKIP_TRUNCATED,      /* the document ends before it is complete */
	P2PS_FLEET_SKIP_NOT_REPORT,     /* valid JSON, but not a bar-inspect report */
	P2PS_FLEET_SKIP_VERSION,        /* schema_version newer than P2PS_FLEET_SCHEMA_MAX */
	P2PS_FLEET_SKIP_DUPLICATE,      /* same host and boot as a report already counted */
	P2PS_FLEET_SKIP_SUPERSEDED,     /* an older report of a host that has a newer one */
	P2PS_FLEET_SKIP_EMPTY,          /* a folder or pattern with no report in it */
	P2PS_FLEET_SKIP_SNAPSHOT,       /* a snapshot the host model could not read */
};
const char *p2ps_fleet_skip_name(enum p2ps_fleet_skip_kind k); /* "malformed", ... */

/* One P2P endpoint of a host (an NVIDIA GPU, or a --peers device). Unknown numbers are
 * -1 (sizes) or 0 (link widths and speeds). */
struct p2ps_fleet_gpu {
	char *bdf;
	char *model; /* "GH100 [10de:2335]": chip (or device name) and ids: drift groups by it */
	bool is_gpu; /* false for a --peers endpoint */
	int64_t bar1_size;
	int64_t vram;
	int bar1_covers_vram; /* -1 unknown, 0 no, 1 yes */
	int width, cap_width;
	double speed_gts, cap_speed_gts;
	char *iommu_mode; /* "off", "identity", "translating", ... or NULL */
};

enum p2ps_fleet_severity {
	P2PS_FLEET_SEV_BLOCKER = 0,
	P2PS_FLEET_SEV_UNKNOWN,
	P2PS_FLEET_SEV_WARNING,
};

/* One distinct finding on a host: a reason code with its subject, however many pairs
 * and devices it appears on. */
struct p2ps_fleet_cause {
	char *code;    /* bar-inspect's reason code, e.g. "iommu_translating" */
	char *subject; /* what it is about across hosts (bridge model, IOMMU kind, GPU model) or
	                  NULL */
	enum p2ps_fleet_severity severity;
	char *fix;       /* the report's fix for its first occurrence, or NULL */
	char *text;      /* the report's text for its first occurrence */
	unsigned count;  /* occurrences on this host (pairs, GPUs) */
	bool fix_varies; /* the occurrences have different fixes (other bridges, say) */
};

struct p2ps_fleet_host {
	char *name;            /* the report's hostname; the source's name when it has none */
	bool name_from_source; /* true when the report carried no hostname */
	char *source;          /* file (with "#N" for the Nth document of a stream), folder */
	char *boot_id, *time;  /* NULL when the report predates these fields */
	char *tool_version, *kernel, *driver;
	char *backend; /* "sysfs", "snapshot", "lspci-dump" */
	int schema_version;
	bool config_limited; /* not root: ACS, ReBAR, link registers unread */
	char *iommu;         /* "off", "translating", "identity", "mixed", "unknown" ... */
	struct p2ps_fleet_gpu *gpus;
	size_t n_gpus;
	enum p2ps_fleet_status status;
	bool moot; /* every pair with the worst verdict is connected by NVLink */
	size_t n_pairs, pairs_ready, pairs_not_ready, pairs_unknown, pairs_moot;
	struct p2ps_fleet_cause *causes; /* blockers first, then unknowns, then warnings */
	size_t n_causes;
	/* GPUDirect RDMA (the report's gpudirect_rdma.pairs): the GPU x device pairs, those
	 * "not ready", and per blocker code how many not-ready pairs it blocks (most first).
	 * All zero when the report has no such pairs. */
	size_t gdr_pairs, gdr_not_ready;
	struct p2ps_fleet_gdr_reason {
		char *code; /* "gdr_path", "iommu_translating", ... */
		unsigned pairs;
	} * gdr_reasons;
	size_t n_gdr_reasons;
};

struct p2ps_fleet_skip {
	char *source;
	enum p2ps_fleet_skip_kind kind;
	char *reason; /* one line */
};

/* The same cause on several hosts, with the fix. */
struct p2ps_fleet_group {
	const char *code, *subject; /* point into the first host's cause */
	enum p2ps_fleet_severity severity;
	const char *title;    /* a short name for the code ("IOMMU translates peer DMA") */
	const char *fix;      /* the fix; when hosts differ, the first host's */
	const char *fix_host; /* NULL when every host has the same fix, else the first host */
	size_t *hosts;        /* indices into hosts[] */
	size_t n_hosts;
};

/* A GPU (or host) that differs from most of the others of its GPU model. */
struct p2ps_fleet_drift {
	const char *model;
	size_t host;       /* index into hosts[] */
	const char *bdf;   /* NULL for a host-wide fact (driver, kernel) */
	const char *fact;  /* "link width", "link capability", "BAR1", "driver", "kernel" */
	char *value;       /* "x8" */
	char *majority;    /* "x16" */
	size_t n_majority; /* how many of ... */
	size_t n_total;    /* ... the model's GPUs (or hosts) have the majority value */
};

/* Turns a snapshot folder (an unpacked capture-host.sh tarball) into a bar-inspect
 * report. Returns 0 and a new reference in *report, or a negative P2PS_E* code with err
 * filled (the input is then skipped with that message). */
typedef int (*p2ps_fleet_snapshot_fn)(void *ctx, const char *dir, struct json_object **report,
                                      struct p2ps_error *err);

/* Receives rendered text. */
typedef void (*p2ps_fleet_sink_fn)(void *ctx, const char *s, size_t n);

struct p2ps_fleet_opts {
	p2ps_fleet_snapshot_fn snapshot; /* NULL: snapshots and tarballs are skipped, said so */
	void *snapshot_ctx;
	unsigned threads;         /* JSON files read in parallel; 0 = online CPUs (max 8) */
	const char *tool_version; /* for the summary's header */
	/* A reason code's short title, NULL for a code it does not know (shown as the code
	 * itself); NULL: codes only. bar-inspect passes its reason table's
	 * p2ps_reason_title(). */
	const char *(*reason_title)(const char *code);
};

struct p2ps_fleet {
	struct p2ps_fleet_host *hosts;
	size_t n_hosts;
	struct p2ps_fleet_skip *skipped;
	size_t n_skipped;
	char **missing; /* p2ps_fleet_expect() names without a report */
	size_t n_missing;
	struct p2ps_fleet_group
	        *groups; /* blockers, then unknowns, then warnings; most hosts first */
	size_t n_groups;
	struct p2ps_fleet_drift *drift;
	size_t n_drift;
	size_t n_documents; /* documents and inputs read: n_hosts + n_skipped */
	size_t by_status[P2PS_FLEET_NO_PAIR + 1];
	size_t n_moot;
	struct p2ps_fleet_priv *priv;
};

/* Returns NULL only when out of memory. */
struct p2ps_fleet *p2ps_fleet_new(const struct p2ps_fleet_opts *o);
void p2ps_fleet_free(struct p2ps_fleet *f);

/* Reads command-line inputs: files, folders (walked for *.json, tarballs and snapshot
 * folders), glob patterns, "-" (standard input, a stream of documents). A problem with
 * an input becomes a skipped entry; the return value is negative only when out of
 * memory. */
int p2ps_fleet_add_inputs(struct p2ps_fleet *f, const char *const *inputs, size_t n,
                          struct p2ps_error *err);

/* Reads a buffer holding zero or more concatenated JSON documents; name labels them. */
int p2ps_fleet_add_buffer(struct p2ps_fleet *f, const char *name, const char *buf, size_t len,
                          struct p2ps_error *err);

/* Adds one parsed document (the caller keeps its reference). */
int p2ps_fleet_add_report(struct p2ps_fleet *f, const char *source, struct json_object *root,
                          struct p2ps_error *err);

/* Names a host that should have reported (an inventory or a node list); a name matches
 * a report's hostname, its short form, or its file name without ".json". */
int p2ps_fleet_expect(struct p2ps_fleet *f, const char *name, struct p2ps_error *err);

/* Drops duplicates and superseded reports, sorts hosts (worst first, then by name),
 * groups causes and finds drift. Call once, after the last add. */
int p2ps_fleet_finish(struct p2ps_fleet *f, struct p2ps_error *err);

/* Renderings of a finished fleet: a table with grouped causes, drift and skipped inputs;
 * one JSON document (schema in docs/fleet.md); CSV, one row per host. */
int p2ps_fleet_render_text(const struct p2ps_fleet *f, p2ps_fleet_sink_fn sink, void *ctx,
                           struct p2ps_error *err);
int p2ps_fleet_render_json(const struct p2ps_fleet *f, p2ps_fleet_sink_fn sink, void *ctx,
                           struct p2ps_error *err);
int p2ps_fleet_render_csv(const struct p2ps_fleet *f, p2ps_fleet_sink_fn sink, void *ctx,
                          struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
