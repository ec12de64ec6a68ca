/* SPDX-License-Identifier: MIT */
/* p2pscope: reading one JSON document with json-c, with errors in the reader's terms: which
 * file, which line and column, and what was expected there ("a ',' or '}' between an
 * object's members"), never json-c's own state names ("continue"). The tools that read
 * JSON files a user hands them (pte-probe and bar-inspect --replay, p2p-bench report) and
 * the fleet reader's streams word their errors through it.
 *
 * Part of p2ps_json (json-c), not of the installed libraries.
 */
#ifndef P2PS_JSON_READ_H
#define P2PS_JSON_READ_H

#include <json-c/json.h>
#include <stddef.h>

#include "p2pscope/error.h"

/* What went wrong at a json_tokener error, in words: "the text ends before the document
 * is complete (an object, list or string is not closed)", "a ',' or '}' between an
 * object's members", ... Never NULL. */
const char *p2ps_json_error_text(enum json_tokener_error e);

/* The 1-based line and column of byte off of text (the bytes before it counted). */
void p2ps_json_line_col(const char *text, size_t off, unsigned *line, unsigned *col);

/* Parses text[0..len) as exactly one JSON document (white space around it allowed) into
 * *out (the caller releases it with json_object_put). name names the source in messages
 * ("FILE"). Returns 0, or P2PS_EINVAL with err "NAME: not valid JSON at line L, column C:
 * expected ..." (or "... ends at line L before the document is complete"), P2PS_ERANGE
 * when len exceeds what json-c takes, P2PS_ENOMEM. */
int p2ps_json_parse(const char *text, size_t len, const char *name, json_object **out,
                    struct p2ps_error *err);

/* Reads the file path (at most max bytes: a larger one is refused, as is a folder or a
 * device that never ends) and parses it with p2ps_json_parse. Returns 0 or a P2PS_E*
 * code with err naming path. */
int p2ps_json_read_file(const char *path, size_t max, json_object **out, struct p2ps_error *err);

#endif
