/* SPDX-License-Identifier: MIT */
/* p2pscope: error reporting shared by every library.
 *
 * Library code never prints or exits. A function that can fail returns 0 or a
 * negative P2PS_E* code and, when the caller passed a struct p2ps_error, fills
 * it with one human-readable line that says where and why. Only main() decides
 * what to print and with which exit status.
 */
#ifndef P2PSCOPE_ERROR_H
#define P2PSCOPE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum p2ps_status {
	P2PS_OK = 0,
	P2PS_EINVAL = -1,  /* bad argument or malformed input */
	P2PS_ERANGE = -2,  /* value does not fit (field overflow, address out of range) */
	P2PS_ENOENT = -3,  /* named thing (chip, field, file, device) does not exist */
	P2PS_EIO = -4,     /* a read, open or ioctl failed; message carries strerror */
	P2PS_EACCES = -5,  /* permission denied; message says what needs which privilege */
	P2PS_ENOMEM = -6,  /* allocation failed */
	P2PS_ELOOP = -7,   /* a chain or table walk looped */
	P2PS_ENOTSUP = -8, /* not supported by this build, kernel or device */
};

#define P2PS_ERROR_MSG_MAX 512

struct p2ps_error {
	int code;                     /* one of enum p2ps_status; P2PS_OK if none */
	char msg[P2PS_ERROR_MSG_MAX]; /* one line, no trailing newline */
};

/* Records code and a printf-style message in err (which may be NULL) and
 * returns code, so that callers can write `return p2ps_error_set(err, ...)`. */
int p2ps_error_set(struct p2ps_error *err, int code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
#ifdef __clang_analyzer__
/* For clang-tidy's analyzer only, which sees one file at a time and would otherwise let
 * `return p2ps_error_set(err, P2PS_EINVAL, ...)` return 0 and report the caller's
 * success path with an unset out-parameter: the contract above, as an expression. */
#define p2ps_error_set(err, code, ...) (p2ps_error_set(err, code, __VA_ARGS__), (code))
#endif

/* Prefixes the message already in err with "prefix: " (for adding context such
 * as a file name or BDF as an error travels up). Returns err->code, or P2PS_OK if err is NULL. */
int p2ps_error_prefix(struct p2ps_error *err, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* Clears err to P2PS_OK and an empty message. */
void p2ps_error_clear(struct p2ps_error *err);

/* A short name for a status code ("EINVAL", ...), never NULL. */
const char *p2ps_status_name(int code);

#ifdef __cplusplus
}
#endif

#endif
