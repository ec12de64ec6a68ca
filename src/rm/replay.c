/* SPDX-License-Identifier: MIT */
/* The replay: a backend that answers from a capture, in order. Each request must be the one
 * recorded (same operation, path, descriptor, escape number, size, and the same bytes apart
 * from user pointers), so a replay exercises the same marshalling code against what a real
 * driver answered; the first difference stops it with a message naming the call and byte. */
#include "rm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_LIVE_MAPS 16

struct p2ps_rm_replay {
	const struct p2ps_rm_capture *cap;
	size_t next;
	bool broken;
	char msg[P2PS_ERROR_MSG_MAX];
	void *maps[MAX_LIVE_MAPS];
};

static const char *op_name(enum p2ps_rm_op op)
{
	static const char *const names[] = {"?",     "read",   "root", "open",
	                                    "close", "escape", "mmap", "munmap"};
	return (unsigned)op < RM_ARRAY_SIZE(names) ? names[op] : "?";
}

static int diverge(struct p2ps_rm_replay *r, struct p2ps_error *err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int diverge(struct p2ps_rm_replay *r, struct p2ps_error *err, const char *fmt, ...)
{
	if (!r->broken) {
		char what[P2PS_ERROR_MSG_MAX - 48];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		snprintf(r->msg, sizeof(r->msg), "replay: call %zu: %s", r->next, what);
		r->broken = true;
	}
	return p2ps_error_set(err, P2PS_EINVAL, "%s", r->msg);
}

/* The next record, which must be of operation op. */
static const struct p2ps_rm_rec *take(struct p2ps_rm_replay *r, enum p2ps_rm_op op,
                                      struct p2ps_error *err)
{
	if (r->broken) {
		p2ps_error_set(err, P2PS_EINVAL, "%s", r->msg);
		return NULL;
	}
	if (r->next >= r->cap->n) {
		diverge(r, err, "the program asked for %s after the capture's last call",
		        op_name(op));
		return NULL;
	}
	const struct p2ps_rm_rec *rec = &r->cap->recs[r->next];
	if (rec->op != op) {
		diverge(r, err, "the program asked for %s, the capture has %s", op_name(op),
		        op_name(rec->op));
		return NULL;
	}
	r->next++;
	return rec;
}

static int failed(const struct p2ps_rm_rec *rec, struct p2ps_error *err)
{
	return p2ps_error_set(err, rec->code, "%s", rec->error ? rec->error : "failed");
}

static int rp_open(void *ctx, const char *path, struct p2ps_error *err)
{
	struct p2ps_rm_replay *r = ctx;
	const struct p2ps_rm_rec *rec = take(r, P2PS_RM_OP_OPEN, err);
	if (!rec)
		return P2PS_EINVAL;
	if (!rec->path || strcmp(rec->path, path))
		return diverge(r, err, "open of %s, the capture opened %s", path,
		               rec->path ? rec->path : "?");
	return rec->code ? failed(rec, err) : rec->fd;
}

static void rp_close(void *ctx, int fd)
{
	struct p2ps_rm_replay *r = ctx;
	struct p2ps_error e;
	const struct p2ps_rm_rec *rec = take(r, P2PS_RM_OP_CLOSE, &e);
	if (rec && rec->fd != fd)
		diverge(r, &e, "close of fd %d, the capture closed fd %d", fd, rec->fd);
}

static bool is_ptr(const struct p2ps_rm_call *c, size_t i)
{
	for (size_t k = 0; k < c->n_ptrs; k++)
		if (i >= c->ptrs[k].offset && i < c->ptrs[k].offset + 8u)
			return true;
	return false;
}

static int compare(struct p2ps_rm_replay *r, const struct p2ps_rm_call *c,
                   const struct p2ps_rm_rec *rec, struct p2ps_error *err)
{
	if (rec->fd != c->fd || rec->nr != c->nr || rec->size != c->size)
		return diverge(r, err,
		               "%s: escape 0x%x size %u on fd %d, the capture has 0x%x size %u "
		               "on fd %d",
		               c->what, c->nr, c->size, c->fd, rec->nr, rec->size, rec->fd);
	const uint8_t *a = c->arg;
	for (size_t i = 0; i < c->size; i++)
		if (!is_ptr(c, i) && a[i] != rec->in[i])
			return diverge(r, err,
			               "%s: request byte %zu is 0x%02x, the capture has 0x%02x",
			               c->what, i, a[i], rec->in[i]);
	if (!c->params != !rec->in_params || (c->params && c->params_size != rec->params_size))
		return diverge(r, err, "%s: parameter buffer of %u bytes, the capture has %u",
		               c->what, c->params ? c->params_size : 0, rec->params_size);
	const uint8_t *p = c->params;
	for (size_t i = 0; p && i < c->params_size; i++)
		if (p[i] != rec->in_params[i])
			return diverge(r, err,
			               "%s: parameter byte %zu is 0x%02x, the capture has 0x%02x",
			               c->what, i, p[i], rec->in_params[i]);
	return 0;
}

static int rp_escape(void *ctx, struct p2ps_rm_call *c, struct p2ps_error *err)
{
	struct p2ps_rm_replay *r = ctx;
	const struct p2ps_rm_rec *rec = take(r, P2PS_RM_OP_ESCAPE, err);
	if (!rec)
		return P2PS_EINVAL;
	int rc = compare(r, c, rec, err);
	if (rc)
		return rc;
	if (rec->code)
		return failed(rec, err);
	if (!rec->out)
		return diverge(r, err, "%s: the capture has no response", c->what);
	uint8_t *a = c->arg;
	for (size_t i = 0; i < c->size; i++)
		if (!is_ptr(c, i))
			a[i] = rec->out[i];
	if (c->params && rec->out_params)
		memcpy(c->params, rec->out_params, c->params_size);
	return 0;
}

static int rp_mmap(void *ctx, int fd, size_t len, const void **out, struct p2ps_error *err)
{
	struct p2ps_rm_replay *r = ctx;
	const struct p2ps_rm_rec *rec = take(r, P2PS_RM_OP_MMAP, err);
	if (!rec)
		return P2PS_EINVAL;
	if (rec->fd != fd || rec->length != len)
		return diverge(r, err,
		               "mmap of %zu bytes on fd %d, the capture mapped %llu on fd %d", len,
		               fd, (unsigned long long)rec->length, rec->fd);
	if (rec->code)
		return failed(rec, err);
	size_t slot = 0;
	while (slot < MAX_LIVE_MAPS && r->maps[slot])
		slot++;
	uint8_t *page = slot < MAX_LIVE_MAPS ? calloc(1, len) : NULL;
	if (!page)
		return p2ps_error_set(err, P2PS_ENOMEM, "replay: out of memory for a mapping");
	for (size_t i = 0; i < rec->n_words; i++)
		p2ps_put_le64(page + rec->words[i].offset, rec->words[i].value);
	r->maps[slot] = page;
	*out = page;
	return 0;
}

static void rp_munmap(void *ctx, const void *addr, size_t len)
{
	struct p2ps_rm_replay *r = ctx;
	struct p2ps_error e;
	(void)len;
	for (size_t i = 0; i < MAX_LIVE_MAPS; i++)
		if (r->maps[i] == addr) {
			free(r->maps[i]);
			r->maps[i] = NULL;
		}
	take(r, P2PS_RM_OP_MUNMAP, &e);
}

static int rp_read_text(void *ctx, const char *path, char *buf, size_t cap, struct p2ps_error *err)
{
	struct p2ps_rm_replay *r = ctx;
	const struct p2ps_rm_rec *rec = take(r, P2PS_RM_OP_READ, err);
	if (!rec)
		return P2PS_EINVAL;
	if (!rec->path || strcmp(rec->path, path))
		return diverge(r, err, "read of %s, the capture read %s", path,
		               rec->path ? rec->path : "?");
	if (rec->code)
		return failed(rec, err);
	snprintf(buf, cap, "%s", rec->text ? rec->text : "");
	return (int)strlen(buf);
}

static bool rp_is_root(void *ctx)
{
	struct p2ps_rm_replay *r = ctx;
	struct p2ps_error e;
	const struct p2ps_rm_rec *rec = take(r, P2PS_RM_OP_ROOT, &e);
	return rec && rec->root;
}

static const struct p2ps_rm_sys_ops replay_ops = {
        .name = "replay",
        .open = rp_open,
        .close = rp_close,
        .escape = rp_escape,
        .mmap_ro = rp_mmap,
        .munmap = rp_munmap,
        .read_text = rp_read_text,
        .is_root = rp_is_root,
};

int p2ps_rm_replay_start(struct p2ps_rm_replay **out, const struct p2ps_rm_capture *cap,
                         struct p2ps_rm_sys *sys, struct p2ps_error *err)
{
	struct p2ps_rm_replay *r = calloc(1, sizeof(*r));
	if (!r)
		return p2ps_error_set(err, P2PS_ENOMEM, "replay: out of memory");
	r->cap = cap;
	sys->ops = &replay_ops;
	sys->ctx = r;
	*out = r;
	return 0;
}

size_t p2ps_rm_replay_left(const struct p2ps_rm_replay *r)
{
	return r->cap->n - r->next;
}

int p2ps_rm_replay_finish(struct p2ps_rm_replay *r, struct p2ps_error *err)
{
	if (!r)
		return 0;
	int rc = 0;
	if (r->broken)
		rc = p2ps_error_set(err, P2PS_EINVAL, "%s", r->msg);
	else if (r->next != r->cap->n)
		rc = p2ps_error_set(
		        err, P2PS_EINVAL,
		        "replay: the program stopped after %zu of the capture's %zu calls", r->next,
		        r->cap->n);
	for (size_t i = 0; i < MAX_LIVE_MAPS; i++)
		free(r->maps[i]);
	free(r);
	return rc;
}
