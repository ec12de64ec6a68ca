/* SPDX-License-Identifier: MIT */
/* Reading one JSON document (src/common/json_read.c): where an error is, what was expected
 * there, in words; never json-c's state names; the size cap on files that never end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_read.h"

static int parse(const char *text, struct p2ps_error *err)
{
	json_object *o = NULL;
	p2ps_error_clear(err);
	int rc = p2ps_json_parse(text, strlen(text), "f.json", &o, err);
	if (rc == 0)
		assert_non_null(o);
	else
		assert_null(o);
	json_object_put(o);
	return rc;
}

static void one_document_parses(void **state)
{
	(void)state;
	struct p2ps_error err;
	assert_int_equal(parse("  {\"a\": [1, 2, {\"b\": null}]}\n\n", &err), 0);
	assert_int_equal(parse("[]", &err), 0);
}

/* The messages name the file, the line and column, and what the reader expected. */
static void errors_say_where_and_what_was_expected(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
	        {"{\"a\": [1, 2,\n",
	         "f.json: not valid JSON: it ends at line 2 before the document "
	         "is complete (an object, list or string is not closed)"},
	        {"{\"a\": \"text", "f.json: not valid JSON: it ends at line 1 before the document "
	                           "is complete (an object, list or string is not closed)"},
	        {"{\"a\": 1,, }", "f.json: not valid JSON at line 1, column 9: expected a quoted "
	                          "member name (\"name\")"},
	        {"{\"a\" 1}", "f.json: not valid JSON at line 1, column 6: expected a ':' after a "
	                      "member name"},
	        {"{\"a\": 1\n \"b\": 2}", "f.json: not valid JSON at line 2, column 2: expected a "
	                                  "',' or '}' between an object's members"},
	        {"[1 2]", "f.json: not valid JSON at line 1, column 4: expected a ',' or ']' "
	                  "between a list's values"},
	        {"{\"a\": nul}", "f.json: not valid JSON at line 1, column 10: expected null (the "
	                         "word in full, lower case)"},
	        {"{\"a\": 1} {\"b\": 2}", "f.json: more text after the JSON document, at line 1, "
	                                  "column 10 (one document expected)"},
	        {" \n\t", "f.json: empty: no JSON document in it"},
	};
	struct p2ps_error err;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text, &err), P2PS_EINVAL);
		if (strcmp(err.msg, cases[i].msg) != 0)
			fail_msg("%s: got '%s', want '%s'", cases[i].text, err.msg, cases[i].msg);
	}
}

/* Every tokenizer error has words of its own, not json-c's ("continue", "unexpected
 * character", "quoted object property name expected"). */
static void every_error_has_words(void **state)
{
	(void)state;
	for (int e = json_tokener_continue; e <= json_tokener_error_size; e++) {
		const char *t = p2ps_json_error_text((enum json_tokener_error)e);
		assert_non_null(t);
		assert_true(strlen(t) > 10);
		if (!strcmp(t, json_tokener_error_desc((enum json_tokener_error)e)) ||
		    strstr(t, "continue"))
			fail_msg("error %d: '%s' is json-c's own text", e, t);
	}
}

static void line_and_column(void **state)
{
	(void)state;
	unsigned line, col;
	p2ps_json_line_col("ab\ncd\n\nxyz", 9, &line, &col);
	assert_int_equal(line, 4);
	assert_int_equal(col, 3);
	p2ps_json_line_col("", 0, &line, &col);
	assert_int_equal(line, 1);
	assert_int_equal(col, 1);
}

/* A device that never ends stops at the cap; a folder, a missing file and a file of the
 * right size say so. */
static void files_are_capped(void **state)
{
	(void)state;
	json_object *o = NULL;
	struct p2ps_error err;
	assert_int_equal(p2ps_json_read_file("/dev/zero", 1 << 20, &o, &err), P2PS_ERANGE);
	assert_string_equal(err.msg, "/dev/zero: larger than 1 MiB");
	assert_null(o);
	assert_int_equal(p2ps_json_read_file("/", 1 << 20, &o, &err), P2PS_EINVAL);
	assert_string_equal(err.msg, "/: a folder, not a JSON file");
	assert_int_equal(p2ps_json_read_file("/nonexistent/x.json", 1 << 20, &o, &err),
	                 P2PS_ENOENT);
	assert_string_equal(err.msg, "/nonexistent/x.json: cannot open: No such file or directory");

	char path[] = "/tmp/test_json_read.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	/* 100 KiB of a valid document: past the first read buffer (64 KiB). */
	static const char doc[] = "{\"a\": 1}\n";
	size_t n = 100 * 1024;
	char *big = malloc(n);
	assert_non_null(big);
	memset(big, ' ', n);
	snprintf(big + n - sizeof(doc), sizeof(doc), "%s", doc);
	big[n - 1] = '\n'; /* (where snprintf put the string's end) */
	assert_int_equal(write(fd, big, n), (ssize_t)n);
	close(fd);
	assert_int_equal(p2ps_json_read_file(path, n, &o, &err), 0);
	json_object_put(o);
	assert_int_equal(p2ps_json_read_file(path, n - 1, &o, &err), P2PS_ERANGE);
	unlink(path);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(one_document_parses),
	        cmocka_unit_test(errors_say_where_and_what_was_expected),
	        cmocka_unit_test(every_error_has_words),
	        cmocka_unit_test(line_and_column),
	        cmocka_unit_test(files_are_capped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
