/* SPDX-License-Identifier: MIT */
/* The recorder: a backend that forwards every call to another backend and appends the
 * request and the response to a JSON capture (docs/pte-probe.md, "Captures").
 *
 * Bytes are hex strings; user pointers inside escape structs are written as zero (they
 * differ on every run and say nothing about the driver); mapped pages are written as their
 * non-zero 8-byte words, which keeps a page-table page readable in the file. The file is
 * written as calls happen, so a run that dies still leaves its calls on disk. */
#include "rm_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct p2ps_rm_recorder {
	struct p2ps_rm_sys inner;
	FILE *f;
	unsigned n;  /* calls written */
	bool failed; /* a write failed: reported by finish */
};

static void out(struct p2ps_rm_recorder *r, const char *s)
{
	if (fputs(s, r->f) == EOF)
		r->failed = true;
}

static void outf(struct p2ps_rm_recorder *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static void outf(struct p2ps_rm_recorder *r, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out(r, buf);
}

static void out_string(struct p2ps_rm_recorder *r, const char *s)
{
	out(r, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			outf(r, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			outf(r, "\\u%04x", *p);
		else
			outf(r, "%c", *p);
	}
	out(r, "\"");
}

static void out_hex(struct p2ps_rm_recorder *r, const uint8_t *b, size_t n,
                    const struct p2ps_rm_call *c)
{
	out(r, "\"");
	for (size_t i = 0; i < n; i++) {
		bool ptr = false;
		for (size_t k = 0; c && k < c->n_ptrs; k++)
			ptr |= i >= c->ptrs[k].offset && i < c->ptrs[k].offset + 8u;
		outf(r, "%02x", ptr ? 0 : b[i]);
	}
	out(r, "\"");
}

static void begin(struct p2ps_rm_recorder *r, const char *op)
{
	outf(r, "%s\n    {\"op\": \"%s\"", r->n++ ? "," : "", op);
}

static void end_error(struct p2ps_rm_recorder *r, int rc, const struct p2ps_error *err)
{
	if (rc < 0) {
		outf(r, ", \"code\": %d, \"error\": ", rc);
		out_string(r, err ? err->msg : "");
	}
	out(r, "}");
	fflush(r->f);
}

static int rec_open(void *ctx, const char *path, struct p2ps_error *err)
{
	struct p2ps_rm_recorder *r = ctx;
	int fd = r->inner.ops->open(r->inner.ctx, path, err);
	begin(r, "open");
	out(r, ", \"path\": ");
	out_string(r, path);
	if (fd >= 0)
		outf(r, ", \"fd\": %d", fd);
	end_error(r, fd < 0 ? fd : 0, err);
	return fd;
}

static void rec_close(void *ctx, int fd)
{
	struct p2ps_rm_recorder *r = ctx;
	r->inner.ops->close(r->inner.ctx, fd);
	begin(r, "close");
	outf(r, ", \"fd\": %d", fd);
	end_error(r, 0, NULL);
}

static int rec_escape(void *ctx, struct p2ps_rm_call *c, struct p2ps_error *err)
{
	struct p2ps_rm_recorder *r = ctx;
	begin(r, "escape");
	outf(r, ", \"fd\": %d, \"nr\": \"0x%02x\", \"what\": ", c->fd, c->nr);
	out_string(r, c->what);
	out(r, ",\n     \"in\": ");
	out_hex(r, c->arg, c->size, c);
	if (c->params) {
		out(r, ",\n     \"in_params\": ");
		out_hex(r, c->params, c->params_size, NULL);
	}
	int rc = r->inner.ops->escape(r->inner.ctx, c, err);
	if (rc == 0) {
		out(r, ",\n     \"out\": ");
		out_hex(r, c->arg, c->size, c);
		if (c->params) {
			out(r, ",\n     \"out_params\": ");
			out_hex(r, c->params, c->params_size, NULL);
		}
	}
	end_error(r, rc, err);
	return rc;
}

static int rec_mmap(void *ctx, int fd, size_t len, const void **res, struct p2ps_error *err)
{
	struct p2ps_rm_recorder *r = ctx;
	int rc = r->inner.ops->mmap_ro(r->inner.ctx, fd, len, res, err);
	begin(r, "mmap");
	outf(r, ", \"fd\": %d, \"length\": %zu", fd, len);
	if (rc == 0) {
		out(r, ", \"words\": {");
		const uint8_t *p = *res;
		unsigned k = 0;
		for (size_t o = 0; o + 8 <= len; o += 8) {
			uint64_t w = p2ps_le64(p + o);
			if (w)
				outf(r, "%s\"0x%zx\": \"0x%016llx\"", k++ ? ", " : "", o,
				     (unsigned long long)w);
		}
		out(r, "}");
	}
	end_error(r, rc, err);
	return rc;
}

static void rec_munmap(void *ctx, const void *addr, size_t len)
{
	struct p2ps_rm_recorder *r = ctx;
	r->inner.ops->munmap(r->inner.ctx, addr, len);
	begin(r, "munmap");
	outf(r, ", \"length\": %zu", len);
	end_error(r, 0, NULL);
}

static int rec_read_text(void *ctx, const char *path, char *buf, size_t cap, struct p2ps_error *err)
{
	struct p2ps_rm_recorder *r = ctx;
	int n = r->inner.ops->read_text(r->inner.ctx, path, buf, cap, err);
	begin(r, "read");
	out(r, ", \"path\": ");
	out_string(r, path);
	if (n >= 0) {
		out(r, ", \"text\": ");
		out_string(r, buf);
	}
	end_error(r, n < 0 ? n : 0, err);
	return n;
}

static bool rec_is_root(void *ctx)
{
	struct p2ps_rm_recorder *r = ctx;
	bool root = r->inner.ops->is_root(r->inner.ctx);
	begin(r, "root");
	outf(r, ", \"root\": %s", root ? "true" : "false");
	end_error(r, 0, NULL);
	return root;
}

static const struct p2ps_rm_sys_ops record_ops = {
        .name = "record",
        .open = rec_open,
        .close = rec_close,
        .escape = rec_escape,
        .mmap_ro = rec_mmap,
        .munmap = rec_munmap,
        .read_text = rec_read_text,
        .is_root = rec_is_root,
};

int p2ps_rm_record_start(struct p2ps_rm_recorder **res, const struct p2ps_rm_sys *inner,
                         const char *path, const char *note, struct p2ps_rm_sys *sys,
                         struct p2ps_error *err)
{
	struct p2ps_rm_recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return p2ps_error_set(err, P2PS_ENOMEM, "recorder: out of memory");
	r->inner = *inner;
	r->f = fopen(path, "w");
	if (!r->f) {
		int e = errno;
		free(r);
		return p2ps_error_set(err, P2PS_EIO, "cannot write %s: %s", path, strerror(e));
	}
	out(r, "{\n  \"format\": \"p2pscope-rm-capture\",\n  \"version\": 1,\n  \"note\": ");
	out_string(r, note ? note : "");
	out(r, ",\n  \"calls\": [");
	sys->ops = &record_ops;
	sys->ctx = r;
	*res = r;
	return 0;
}

int p2ps_rm_record_finish(struct p2ps_rm_recorder *r, struct p2ps_error *err)
{
	if (!r)
		return 0;
	out(r, "\n  ]\n}\n");
	bool failed = r->failed || ferror(r->f);
	failed |= fclose(r->f) != 0;
	free(r);
	if (failed)
		return p2ps_error_set(err, P2PS_EIO, "writing the capture failed");
	return 0;
}
