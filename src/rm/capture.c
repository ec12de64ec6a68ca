/* SPDX-License-Identifier: MIT */
/* Capture parser: the JSON the recorder writes, read back with json-c (the only parser of
 * the format). Every error names the call index and the key. */
#include "rm_internal.h"

#include "json_read.h"
#include "p2pscope/parse.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Captures hold one escape struct per call: the largest is the P2P caps control (8 KiB). */
#define MAX_BYTES (64u * 1024u)
#define MAX_CALLS 100000u

static const struct {
	const char *name;
	enum p2ps_rm_op op;
} op_names[] = {
        {"read", P2PS_RM_OP_READ},     {"root", P2PS_RM_OP_ROOT},     {"open", P2PS_RM_OP_OPEN},
        {"close", P2PS_RM_OP_CLOSE},   {"escape", P2PS_RM_OP_ESCAPE}, {"mmap", P2PS_RM_OP_MMAP},
        {"munmap", P2PS_RM_OP_MUNMAP},
};

struct ctx {
	const char *name;
	size_t i;
	struct p2ps_error *err;
};

static int bad(struct ctx *c, const char *key, const char *what)
{
	return p2ps_error_set(c->err, P2PS_EINVAL, "%s: call %zu: \"%s\": %s", c->name, c->i, key,
	                      what);
}

static int get_str(struct ctx *c, json_object *o, const char *key, bool need, char **out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v))
		return need ? bad(c, key, "missing") : 0;
	if (!json_object_is_type(v, json_type_string))
		return bad(c, key, "not a string");
	*out = strdup(json_object_get_string(v));
	return *out ? 0 : p2ps_error_set(c->err, P2PS_ENOMEM, "out of memory");
}

static int get_int(struct ctx *c, json_object *o, const char *key, bool need, int64_t lo,
                   int64_t hi, int64_t *out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v))
		return need ? bad(c, key, "missing") : 0;
	if (!json_object_is_type(v, json_type_int))
		return bad(c, key, "not an integer");
	errno = 0;
	int64_t x = json_object_get_int64(v);
	if (errno || x < lo || x > hi)
		return bad(c, key, "out of range");
	*out = x;
	return 0;
}

static int get_hex(struct ctx *c, json_object *o, const char *key, uint8_t **out, uint32_t *n)
{
	char *s = NULL;
	int rc = get_str(c, o, key, false, &s);
	if (rc || !s)
		return rc;
	size_t len = strlen(s);
	if (len % 2 || len / 2 > MAX_BYTES) {
		free(s);
		return bad(c, key, "hex string of odd length or over 64 KiB");
	}
	uint8_t *b = malloc(len / 2 + 1);
	for (size_t i = 0; b && i < len / 2; i++) {
		int h = p2ps_hex_digit(s[2 * i]), l = p2ps_hex_digit(s[2 * i + 1]);
		if (h < 0 || l < 0) {
			free(b);
			free(s);
			return bad(c, key, "not a hex string");
		}
		b[i] = (uint8_t)(h << 4 | l);
	}
	free(s);
	if (!b)
		return p2ps_error_set(c->err, P2PS_ENOMEM, "out of memory");
	*out = b;
	*n = (uint32_t)(len / 2);
	return 0;
}

/* A capture writes numbers as 0x-hex strings. */
static int parse_u64(const char *s, uint64_t *v)
{
	if (strncmp(s, "0x", 2))
		return -1;
	return p2ps_parse_uint(s, UINT64_MAX, v) ? -1 : 0;
}

static int get_words(struct ctx *c, json_object *o, struct p2ps_rm_rec *r)
{
	json_object *w;
	if (!json_object_object_get_ex(o, "words", &w))
		return 0;
	if (!json_object_is_type(w, json_type_object))
		return bad(c, "words", "not an object");
	size_t n = (size_t)json_object_object_length(w);
	r->words = calloc(n ? n : 1, sizeof(*r->words));
	if (!r->words)
		return p2ps_error_set(c->err, P2PS_ENOMEM, "out of memory");
	json_object_object_foreach(w, k, v)
	{
		uint64_t off, val;
		if (parse_u64(k, &off) || off % 8 || off + 8 > r->length)
			return bad(c, "words", "offset not 0x-hex, 8-byte aligned, inside the map");
		if (!json_object_is_type(v, json_type_string) ||
		    parse_u64(json_object_get_string(v), &val))
			return bad(c, "words", "value not a 0x-hex string");
		r->words[r->n_words++] =
		        (struct p2ps_rm_word){.offset = (uint32_t)off, .value = val};
	}
	return 0;
}

static int get_op(struct ctx *c, json_object *o, struct p2ps_rm_rec *r)
{
	char *op = NULL;
	int rc = get_str(c, o, "op", true, &op);
	if (rc)
		return rc;
	for (size_t i = 0; i < RM_ARRAY_SIZE(op_names); i++)
		if (!strcmp(op, op_names[i].name))
			r->op = op_names[i].op;
	free(op);
	return r->op ? 0 : bad(c, "op", "unknown operation");
}

static int parse_rec(struct ctx *c, json_object *o, struct p2ps_rm_rec *r)
{
	int64_t x = 0;
	int rc;
	if (!json_object_is_type(o, json_type_object))
		return bad(c, "calls", "element is not an object");
	if ((rc = get_op(c, o, r)) || (rc = get_str(c, o, "path", false, &r->path)) ||
	    (rc = get_str(c, o, "text", false, &r->text)))
		return rc;
	r->fd = -1;
	if ((rc = get_int(c, o, "fd", false, 0, 1 << 20, &x)))
		return rc;
	r->fd = (int)x;
	x = 0;
	if ((rc = get_int(c, o, "code", false, -1000, 0, &x)))
		return rc;
	r->code = (int)x;
	if (r->code && (rc = get_str(c, o, "error", true, &r->error)))
		return rc;
	json_object *v;
	if (json_object_object_get_ex(o, "root", &v))
		r->root = json_object_get_boolean(v);
	char *nr = NULL;
	if ((rc = get_str(c, o, "nr", false, &nr)))
		return rc;
	uint64_t n = 0;
	if (nr && (parse_u64(nr, &n) || n > 0xff))
		rc = bad(c, "nr", "not an escape number");
	free(nr);
	r->nr = (unsigned)n;
	x = 0;
	if (rc || (rc = get_int(c, o, "length", false, 0, 1 << 24, &x)))
		return rc;
	r->length = (uint64_t)x;
	uint32_t s1 = 0, s2 = 0, p1 = 0, p2 = 0;
	if ((rc = get_hex(c, o, "in", &r->in, &s1)) || (rc = get_hex(c, o, "out", &r->out, &s2)) ||
	    (rc = get_hex(c, o, "in_params", &r->in_params, &p1)) ||
	    (rc = get_hex(c, o, "out_params", &r->out_params, &p2)) || (rc = get_words(c, o, r)))
		return rc;
	if ((r->out && s2 != s1) || (r->out_params && p2 != p1))
		return bad(c, "out", "response size differs from the request's");
	r->size = s1;
	r->params_size = p1;
	if (r->op == P2PS_RM_OP_ESCAPE && !r->in)
		return bad(c, "in", "missing");
	return 0;
}

static int parse_calls(struct ctx *c, json_object *root, struct p2ps_rm_capture *cap)
{
	json_object *calls;
	if (!json_object_object_get_ex(root, "calls", &calls) ||
	    !json_object_is_type(calls, json_type_array))
		return p2ps_error_set(c->err, P2PS_EINVAL, "%s: no \"calls\" array", c->name);
	size_t n = json_object_array_length(calls);
	if (n > MAX_CALLS)
		return p2ps_error_set(c->err, P2PS_EINVAL, "%s: more than %u calls", c->name,
		                      MAX_CALLS);
	cap->recs = calloc(n ? n : 1, sizeof(*cap->recs));
	if (!cap->recs)
		return p2ps_error_set(c->err, P2PS_ENOMEM, "out of memory");
	for (c->i = 0; c->i < n; c->i++) {
		cap->n = c->i + 1;
		int rc = parse_rec(c, json_object_array_get_idx(calls, c->i), &cap->recs[c->i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_header(struct ctx *c, json_object *root, struct p2ps_rm_capture *cap)
{
	json_object *v;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "format", &v) ||
	    strcmp(json_object_get_string(v), "p2pscope-rm-capture") != 0)
		return p2ps_error_set(c->err, P2PS_EINVAL,
		                      "%s: not a p2pscope RM capture (\"format\" is not "
		                      "\"p2pscope-rm-capture\")",
		                      c->name);
	if (!json_object_object_get_ex(root, "version", &v) || json_object_get_int(v) != 1)
		return p2ps_error_set(c->err, P2PS_EINVAL, "%s: capture version is not 1", c->name);
	c->i = 0;
	return get_str(c, root, "note", false, &cap->note);
}

/* A capture from a parsed document: the header, then the calls. Takes root over. */
static int parse_root(json_object *root, const char *name, struct p2ps_rm_capture *cap,
                      struct p2ps_error *err)
{
	struct ctx c = {.name = name, .err = err};
	int rc = check_header(&c, root, cap);
	if (rc == 0)
		rc = parse_calls(&c, root, cap);
	json_object_put(root);
	if (rc)
		p2ps_rm_capture_cleanup(cap);
	return rc;
}

/* Says what the file should have been, after an error about its content (not JSON,
 * too large) in the reader's words. */
static int not_a_capture(int rc, struct p2ps_error *err)
{
	if ((rc == P2PS_EINVAL || rc == P2PS_ERANGE) && err) {
		char why[P2PS_ERROR_MSG_MAX];
		snprintf(why, sizeof(why), "%s", err->msg);
		p2ps_error_set(err, rc, "%s; a capture written by --record was expected", why);
	}
	return rc;
}

int p2ps_rm_capture_parse(const char *json, size_t len, const char *name,
                          struct p2ps_rm_capture *cap, struct p2ps_error *err)
{
	json_object *root;
	memset(cap, 0, sizeof(*cap));
	name = name ? name : "capture";
	int rc = p2ps_json_parse(json, len, name, &root, err);
	return rc ? not_a_capture(rc, err) : parse_root(root, name, cap, err);
}

int p2ps_rm_capture_load(const char *path, struct p2ps_rm_capture *cap, struct p2ps_error *err)
{
	json_object *root;
	memset(cap, 0, sizeof(*cap));
	int rc = p2ps_json_read_file(path, P2PS_RM_CAPTURE_MAX_BYTES, &root, err);
	return rc ? not_a_capture(rc, err) : parse_root(root, path, cap, err);
}

void p2ps_rm_capture_cleanup(struct p2ps_rm_capture *cap)
{
	for (size_t i = 0; i < cap->n; i++) {
		struct p2ps_rm_rec *r = &cap->recs[i];
		free(r->path);
		free(r->text);
		free(r->error);
		free(r->in);
		free(r->out);
		free(r->in_params);
		free(r->out_params);
		free(r->words);
	}
	free(cap->recs);
	free(cap->note);
	memset(cap, 0, sizeof(*cap));
}
