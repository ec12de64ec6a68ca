/* SPDX-License-Identifier: MIT */
#include "p2pscope/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#undef p2ps_error_set /* the analyzer's model of it (error.h), not wanted here */

int p2ps_error_set(struct p2ps_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = code;
	return code;
}

int p2ps_error_prefix(struct p2ps_error *err, const char *fmt, ...)
{
	if (!err)
		return P2PS_OK;
	char prefix[P2PS_ERROR_MSG_MAX];
	char old[P2PS_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* Truncation is the intended outcome for over-long context. */
	size_t n = strlen(prefix);
	if (n > sizeof(err->msg) - 1)
		n = sizeof(err->msg) - 1;
	memcpy(err->msg, prefix, n);
	size_t room = sizeof(err->msg) - n;
	int w = room > 2 ? 2 : (int)room - 1;
	memcpy(err->msg + n, ": ", (size_t)w);
	n += (size_t)w;
	size_t rest = sizeof(err->msg) - 1 - n;
	size_t olen = strnlen(old, sizeof(old));
	if (olen > rest)
		olen = rest;
	memcpy(err->msg + n, old, olen);
	err->msg[n + olen] = '\0';
	return err->code;
}

void p2ps_error_clear(struct p2ps_error *err)
{
	if (!err)
		return;
	err->code = P2PS_OK;
	err->msg[0] = '\0';
}

const char *p2ps_status_name(int code)
{
	switch (code) {
	case P2PS_OK: return "OK";
	case P2PS_EINVAL: return "EINVAL";
	case P2PS_ERANGE: return "ERANGE";
	case P2PS_ENOENT: return "ENOENT";
	case P2PS_EIO: return "EIO";
	case P2PS_EACCES: return "EACCES";
	case P2PS_ENOMEM: return "ENOMEM";
	case P2PS_ELOOP: return "ELOOP";
	case P2PS_ENOTSUP: return "ENOTSUP";
	default: return "EUNKNOWN";
	}
}
