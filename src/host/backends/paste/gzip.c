/* SPDX-License-Identifier: MIT */
/* A gzip-compressed paste (nvidia-bug-report.log.gz), inflated through zlib. The bug
 * report script compresses each section on its own and appends it, so the file is a run
 * of gzip members: each is inflated in turn. The text inflated is bounded as a paste is
 * (P2PS_PASTE_MAX_BYTES): a stream that would inflate past it is refused, whatever its
 * compressed size. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "paste_internal.h"

bool pt_is_gzip(const char *s, size_t len)
{
	return len >= 2 && (unsigned char)s[0] == 0x1f && (unsigned char)s[1] == 0x8b;
}

/* Room for at least `more` bytes after len in *buf (capacity *cap), never more than
 * max + more in all. */
static bool room(char **buf, size_t *cap, size_t len, size_t more, size_t max)
{
	if (len + more <= *cap)
		return true;
	size_t c = *cap ? *cap : 1 << 16;
	while (c < len + more)
		c *= 2;
	if (c > max + more)
		c = max + more;
	char *n = realloc(*buf, c + 1);
	if (!n)
		return false;
	*buf = n;
	*cap = c;
	return true;
}

int pt_gunzip(const char *in, size_t in_len, const char *source, char **out, size_t *out_len,
              struct p2ps_error *err)
{
	return pt_gunzip_max(in, in_len, source, P2PS_PASTE_MAX_BYTES, out, out_len, err);
}

int pt_gunzip_max(const char *in, size_t in_len, const char *source, size_t max, char **out,
                  size_t *out_len, struct p2ps_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	*out = NULL;
	*out_len = 0;
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory", source);
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int rc = 0, zr = Z_OK;
	z.next_in = (Bytef *)(uintptr_t)in;
	while (!rc) {
		if (z.avail_in == 0 && (size_t)(z.next_in - (const Bytef *)in) < in_len) {
			size_t left = in_len - (size_t)(z.next_in - (const Bytef *)in);
			z.avail_in = left > UINT_MAX ? UINT_MAX : (uInt)left;
		}
		if (len > max) {
			rc = p2ps_error_set(err, P2PS_EINVAL,
			                    "paste %s: inflates to more than the %zu MiB read",
			                    source, max >> 20);
			break;
		}
		if (!room(&buf, &cap, len, 1 << 16, max)) {
			rc = p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory", source);
			break;
		}
		size_t space = cap - len;
		z.next_out = (Bytef *)buf + len;
		z.avail_out = space > UINT_MAX ? UINT_MAX : (uInt)space;
		zr = inflate(&z, Z_NO_FLUSH);
		len = (size_t)((char *)z.next_out - buf);
		if (zr == Z_STREAM_END) {
			size_t used = (size_t)(z.next_in - (const Bytef *)in);
			/* Another member follows, or padding of zero bytes ends the file. */
			if (used + 2 <= in_len && pt_is_gzip(in + used, in_len - used)) {
				inflateReset(&z);
				continue;
			}
			break;
		}
		if (zr == Z_BUF_ERROR && z.avail_in == 0) {
			rc = p2ps_error_set(
			        err, P2PS_EINVAL,
			        "paste %s: the gzip data ends early (a cut-off download?)", source);
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			rc = p2ps_error_set(err, zr == Z_MEM_ERROR ? P2PS_ENOMEM : P2PS_EINVAL,
			                    "paste %s: damaged gzip data (%s)", source,
			                    z.msg ? z.msg : "inflate failed");
			break;
		}
	}
	inflateEnd(&z);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = len;
	return 0;
}
