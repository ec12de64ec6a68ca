/* SPDX-License-Identifier: MIT */
/* Splitting a buffer into JSON documents: one report per file, or many concatenated
 * (`srun ... bar-inspect --json`, `cat *.json | bar-inspect --fleet -`).
 *
 * json-c parses one document and says where it ended, so the next one starts there. A
 * document that does not parse is skipped with its line and column; reading goes on at
 * the next line that starts with '{' (bar-inspect indents everything but a document's
 * own braces, and JSON-lines files start every document on a new line). A document cut
 * off by the end of the buffer is "truncated", never a host. */
#include "fleet_internal.h"
#include "json_read.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Line and column of a byte offset, counted forward only (offsets never go back). */
struct linepos {
	const char *buf;
	size_t pos, line_start;
	unsigned line;
};

static void linepos_at(struct linepos *l, size_t at, unsigned *line, unsigned *col)
{
	for (; l->pos < at; l->pos++) {
		if (l->buf[l->pos] == '\n') {
			l->line++;
			l->line_start = l->pos + 1;
		}
	}
	*line = l->line;
	*col = (unsigned)(at - l->line_start + 1);
}

static size_t skip_space(const char *buf, size_t len, size_t pos)
{
	if (pos == 0 && len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3; /* UTF-8 byte-order mark */
	while (pos < len &&
	       (buf[pos] == ' ' || buf[pos] == '\t' || buf[pos] == '\n' || buf[pos] == '\r'))
		pos++;
	return pos;
}

/* The next '{' at the start of a line after from (from > the failed document's start). */
static size_t resync(const char *buf, size_t len, size_t from)
{
	for (size_t i = from; i < len; i++)
		if (buf[i] == '{' && buf[i - 1] == '\n')
			return i;
	return len;
}

/* Names the first document "NAME#1" once a second one shows up. */
static void rename_first(struct fl_batch *b, bool host, size_t idx, const char *name)
{
	bool oom = false;
	char *label = fl_printf(&oom, "%s#1", name);
	if (!label) {
		b->oom = true;
		return;
	}
	char **src = host ? &b->hosts[idx].source : &b->skips[idx].source;
	free(*src);
	*src = label;
}

/* Reads one document at *pos; returns false when the rest of the buffer is unusable. */
static bool read_one(struct fl_batch *b, json_tokener *tok, const char *label, const char *buf,
                     size_t len, size_t *pos, struct linepos *lp)
{
	unsigned line, col, start_line, start_col;
	linepos_at(lp, *pos, &start_line, &start_col);
	json_tokener_reset(tok);
	size_t chunk = len - *pos;
	if (chunk > INT_MAX) {
		fl_batch_skip(b, label, P2PS_FLEET_SKIP_UNREADABLE, "larger than 2 GiB");
		return false;
	}
	struct json_object *o = json_tokener_parse_ex(tok, buf + *pos, (int)chunk);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = *pos + json_tokener_get_parse_end(tok);
	if (e == json_tokener_success) {
		fl_read_report(b, label, o);
		json_object_put(o);
		*pos = end;
		return true;
	}
	json_object_put(o);
	linepos_at(lp, end, &line, &col);
	if (e == json_tokener_continue) {
		fl_batch_skip(b, label, P2PS_FLEET_SKIP_TRUNCATED,
		              "the document that starts at line %u ends with the input (line %u, "
		              "byte %zu)",
		              start_line, line, end);
		return false;
	}
	fl_batch_skip(b, label, P2PS_FLEET_SKIP_MALFORMED,
	              "not valid JSON at line %u, column %u: expected %s", line, col,
	              p2ps_json_error_text(e));
	*pos = resync(buf, len, end > *pos ? end : *pos + 1);
	return true;
}

void fl_read_stream(struct fl_batch *b, json_tokener *tok, const char *name, const char *buf,
                    size_t len)
{
	struct linepos lp = {.buf = buf, .line = 1};
	size_t pos = 0, first_idx = 0;
	bool first_host = false;
	unsigned doc = 0;
	char label[4200];
	while ((pos = skip_space(buf, len, pos)) < len && !b->oom) {
		if (++doc == 1)
			snprintf(label, sizeof(label), "%s", name);
		else
			snprintf(label, sizeof(label), "%s#%u", name, doc);
		size_t nh = b->n_hosts, ns = b->n_skips;
		bool more = read_one(b, tok, label, buf, len, &pos, &lp);
		if (doc == 1) {
			first_host = b->n_hosts > nh;
			first_idx = first_host ? nh : ns;
		}
		if (doc == 2 && (first_host ? b->n_hosts : b->n_skips) > first_idx)
			rename_first(b, first_host, first_idx, name);
		if (!more)
			break;
	}
	if (!doc)
		fl_batch_skip(b, name, P2PS_FLEET_SKIP_EMPTY, "no JSON document in it");
}

/* Grows r's buffer to hold at least need bytes; false (errno ENOMEM) when it cannot. */
static bool reserve(struct fl_reader *r, size_t need)
{
	if (need <= r->cap)
		return true;
	size_t cap = r->cap ? r->cap : 65536;
	while (cap < need)
		cap *= 2;
	/* Up to an input's cap and the bytes that show it is larger, not the next power of 2. */
	if (cap > P2PS_FLEET_INPUT_MAX_BYTES + 2 && need <= P2PS_FLEET_INPUT_MAX_BYTES + 2)
		cap = P2PS_FLEET_INPUT_MAX_BYTES + 2;
	char *nb = realloc(r->buf, cap);
	if (!nb) {
		errno = ENOMEM;
		return false;
	}
	r->buf = nb;
	r->cap = cap;
	return true;
}

bool fl_read_file_into(struct fl_reader *r, const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* A regular file's size plus room to see its end without growing the buffer; never
	 * more than the cap and a byte to see that an input is larger. */
	struct stat st;
	size_t n = 0, max = P2PS_FLEET_INPUT_MAX_BYTES;
	bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	bool ok = reserve(r, !regular                     ? 1
	                     : (uint64_t)st.st_size < max ? (size_t)st.st_size + 2
	                                                  : max + 2);
	while (ok) {
		if (n > max) {
			errno = EFBIG;
			ok = false;
			break;
		}
		ok = n + 1 < r->cap || reserve(r, r->cap * 2);
		ssize_t got = ok ? read(fd, r->buf + n, r->cap - n - 1) : -1;
		if (got == 0)
			break;
		if (got < 0 && ok && errno == EINTR)
			continue;
		ok = ok && got > 0;
		n += ok ? (size_t)got : 0;
	}
	int saved = errno;
	close(fd);
	errno = saved;
	if (ok) {
		r->buf[n] = '\0';
		*len = n;
	}
	return ok;
}

char *fl_read_file(const char *path, size_t *len)
{
	struct fl_reader r = {0};
	if (fl_read_file_into(&r, path, len))
		return r.buf;
	free(r.buf);
	return NULL;
}
