/* SPDX-License-Identifier: MIT */
/* Text dumps: hex words as they appear in debug logs and hand-made notes (see
 * gmmu_dump.h for the accepted syntax). The parser is a single forward pass
 * over the bytes with no allocation; the caller sees each word through a
 * callback, so a text dump of any length needs no more memory than its own. */
#include "p2pscope/gmmu_dump.h"

#include "p2pscope/parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\v' || c == '\f';
}

/* Shows at most a few characters of a bad word, with control bytes escaped,
 * so that one line of error stays one line. */
static void quote_word(char *out, size_t cap, const char *w, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)w[i];
		size_t need = (c >= 0x20 && c < 0x7f) ? 1 : 4;
		/* room for this character, a possible "..", and the NUL */
		if (o + need + 3 > cap) {
			if (o + 3 <= cap) {
				out[o++] = '.';
				out[o++] = '.';
			}
			break;
		}
		if (need == 1) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hx[c >> 4];
			out[o++] = hx[c & 15];
		}
	}
	out[o] = '\0';
}

/* Parses one word [w, w+n) with the shared hex-word parser. Returns 0 or fills err. */
static int parse_word(const char *w, size_t n, const char *name, size_t line, size_t col,
                      struct p2ps_text_word *out, struct p2ps_error *err)
{
	char shown[48];
	uint64_t v[2];
	unsigned digits;
	size_t bad;
	int rc = p2ps_scan_hex(w, n, v, &digits, &bad);
	if (!rc) {
		out->lo = v[0];
		out->hi = v[1];
		out->digits = digits;
		return 0;
	}
	quote_word(shown, sizeof(shown), w, n);
	if (rc == P2PS_ERANGE)
		return p2ps_error_set(err, P2PS_ERANGE, "%s:%zu:%zu: '%s' exceeds 128 bits", name,
		                      line, col, shown);
	if (bad < n)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s:%zu:%zu: '%s' is not a hex word (bad character at "
		                      "column %zu)",
		                      name, line, col, shown, col + bad);
	return p2ps_error_set(err, P2PS_EINVAL, "%s:%zu:%zu: '%s' is not a hex word", name, line,
	                      col, shown);
}

int p2ps_text_parse(const char *text, size_t len, const char *name, p2ps_text_word_fn fn, void *ctx,
                    struct p2ps_error *err)
{
	size_t line = 1;
	size_t pos = 0;
	while (pos < len) {
		size_t eol = pos;
		while (eol < len && text[eol] != '\n')
			eol++;
		size_t end = eol;
		for (size_t k = pos; k < eol; k++)
			if (text[k] == '#') {
				end = k;
				break;
			}
		struct p2ps_text_word w = {.line = line};
		bool first = true;
		size_t p = pos;
		while (p < end) {
			while (p < end && is_sep(text[p]))
				p++;
			if (p >= end)
				break;
			size_t s = p;
			while (p < end && !is_sep(text[p]))
				p++;
			size_t n = p - s;
			size_t col = s - pos + 1;
			if (text[s + n - 1] == ':') {
				if (!first) {
					return p2ps_error_set(
					        err, P2PS_EINVAL,
					        "%s:%zu:%zu: an offset prefix 'OFFSET:' "
					        "must come first on its line",
					        name, line, col);
				}
				struct p2ps_text_word off;
				int rc = parse_word(text + s, n - 1, name, line, col, &off, err);
				if (rc)
					return rc;
				if (off.hi)
					return p2ps_error_set(err, P2PS_ERANGE,
					                      "%s:%zu:%zu: offset exceeds 64 bits",
					                      name, line, col);
				w.has_offset = true;
				w.line_offset = off.lo;
				first = false;
				continue;
			}
			first = false;
			int rc = parse_word(text + s, n, name, line, col, &w, err);
			if (rc)
				return rc;
			w.column = col;
			rc = fn(ctx, &w, err);
			if (rc)
				return rc;
			w.index++;
		}
		pos = eol + 1;
		line++;
	}
	return 0;
}

int p2ps_text_slurp(const char *name, size_t max_bytes, char **text, size_t *len,
                    struct p2ps_error *err)
{
	int fd = !strcmp(name, "-") ? dup(STDIN_FILENO) : open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return p2ps_error_set(err, errno == ENOENT ? P2PS_ENOENT : P2PS_EIO, "%s: open: %s",
		                      name, strerror(errno));
	size_t cap = 64 * 1024, n = 0;
	char *buf = malloc(cap + 1);
	int rc = 0;
	if (!buf) {
		rc = p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", name);
		goto out;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max_bytes) {
				rc = p2ps_error_set(
				        err, P2PS_ERANGE,
				        "%s: text dump larger than %zu bytes; give large "
				        "dumps in raw form",
				        name, max_bytes);
				goto out;
			}
			size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				rc = p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", name);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = p2ps_error_set(err, P2PS_EIO, "%s: read: %s", name, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return rc;
}
