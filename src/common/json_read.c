/* SPDX-License-Identifier: MIT */
/* Reading one JSON document, with errors in words (json_read.h). */
#include "json_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* json-c's tokenizer states, as what the reader expected where it stopped. */
static const struct {
	enum json_tokener_error e;
	const char *text;
} error_texts[] = {
        {json_tokener_continue,
         "the text ends before the document is complete (an object, list or string is not "
         "closed)"},
        {json_tokener_error_depth, "objects and lists are nested too deeply"},
        {json_tokener_error_parse_eof,
         "the text ends before the document is complete (an object, list or string is not "
         "closed)"},
        {json_tokener_error_parse_unexpected,
         "a value (object, list, string, number, true, false or null) was expected"},
        {json_tokener_error_parse_null, "null (the word in full, lower case)"},
        {json_tokener_error_parse_boolean, "true or false (the word in full, lower case)"},
        {json_tokener_error_parse_number, "a well-formed number"},
        {json_tokener_error_parse_array, "a ',' or ']' between a list's values"},
        {json_tokener_error_parse_object_key_name, "a quoted member name (\"name\")"},
        {json_tokener_error_parse_object_key_sep, "a ':' after a member name"},
        {json_tokener_error_parse_object_value_sep, "a ',' or '}' between an object's members"},
        {json_tokener_error_parse_string, "a valid escape sequence in a string"},
        {json_tokener_error_parse_comment, "a well-formed comment"},
        {json_tokener_error_parse_utf8_string, "text in UTF-8 (the file holds other bytes)"},
        {json_tokener_error_size, "a smaller document"},
};

const char *p2ps_json_error_text(enum json_tokener_error e)
{
	for (size_t i = 0; i < sizeof(error_texts) / sizeof(error_texts[0]); i++)
		if (error_texts[i].e == e)
			return error_texts[i].text;
	return "a well-formed document";
}

void p2ps_json_line_col(const char *text, size_t off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

static bool only_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n", s[i]) || !s[i])
			return false;
	return true;
}

int p2ps_json_parse(const char *text, size_t len, const char *name, json_object **out,
                    struct p2ps_error *err)
{
	unsigned line, col;
	*out = NULL;
	if (len > (size_t)INT32_MAX)
		return p2ps_error_set(err, P2PS_ERANGE, "%s: larger than 2 GiB", name);
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", name);
	json_object *o = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (e == json_tokener_success && only_space(text + end, len - end)) {
		*out = o;
		return 0;
	}
	json_object_put(o);
	if (only_space(text, len))
		return p2ps_error_set(err, P2PS_EINVAL, "%s: empty: no JSON document in it", name);
	if (e == json_tokener_continue || e == json_tokener_error_parse_eof) {
		p2ps_json_line_col(text, len, &line, &col);
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "%s: not valid JSON: it ends at line %u before the document "
		                      "is complete (an object, list or string is not closed)",
		                      name, line);
	}
	p2ps_json_line_col(text, end, &line, &col);
	if (e == json_tokener_success)
		return p2ps_error_set(
		        err, P2PS_EINVAL,
		        "%s: more text after the JSON document, at line %u, column %u "
		        "(one document expected)",
		        name, line, col);
	return p2ps_error_set(err, P2PS_EINVAL,
	                      "%s: not valid JSON at line %u, column %u: expected %s", name, line,
	                      col, p2ps_json_error_text(e));
}

/* Reads fd whole into a new buffer, at most max bytes: one byte more is an error (a
 * device such as /dev/zero never ends). */
static int read_capped(int fd, const char *path, size_t max, char **text, size_t *len,
                       struct p2ps_error *err)
{
	size_t cap = max < 65535 ? max + 1 : 65536, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", path);
	for (;;) {
		if (n == cap) {
			if (cap > max)
				break;
			size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				return p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", path);
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return p2ps_error_set(err, P2PS_EIO, "%s: cannot read: %s", path,
			                      strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(buf);
		return p2ps_error_set(err, P2PS_ERANGE, "%s: larger than %zu MiB", path, max >> 20);
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int p2ps_json_read_file(const char *path, size_t max, json_object **out, struct p2ps_error *err)
{
	struct stat st;
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return p2ps_error_set(err, errno == ENOENT ? P2PS_ENOENT : P2PS_EIO,
		                      "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return p2ps_error_set(err, P2PS_EINVAL, "%s: a folder, not a JSON file", path);
	}
	char *text = NULL;
	size_t len = 0;
	int rc = read_capped(fd, path, max, &text, &len, err);
	close(fd);
	if (rc == 0)
		rc = p2ps_json_parse(text, len, path, out, err);
	free(text);
	return rc;
}
