/* SPDX-License-Identifier: MIT */
/* NCCL's INFO log (NCCL_DEBUG=INFO): the transport of every connection it made, the version
 * and its warnings. The lines, as NCCL prints them (src/transport/p2p.cc p2pSendSetup,
 * src/transport/shm.cc shmSendSetup, src/transport/net.cc; "%02d/%01d" is channel/connection):
 *
 *   host:pid:tid [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM
 *   host:pid:tid [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/direct pointer/read
 *   host:pid:tid [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct
 *   host:pid:tid [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0
 *   host:pid:tid [0] NCCL INFO NCCL version 2.28.9+cuda13.0
 *
 * R[D] is a rank and its NVML device index; the ranks are what the check's indices are (one
 * communicator over the check's GPUs, in order). */
#include "check_internal.h"

#include <stdio.h>
#include <string.h>

#include "p2pscope/parse.h"

/* Skips the literal s at p; NULL when it is not there. */
static const char *lit(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);
	return p && (size_t)(end - p) >= n && !memcmp(p, s, n) ? p + n : NULL;
}

/* A number inside text bounded by end (the line); NULL when none. */
static const char *num(const char *p, const char *end, uint64_t *v)
{
	char buf[24];
	size_t n = 0;
	while (p && p + n < end && n < sizeof(buf) - 1 && p[n] >= '0' && p[n] <= '9')
		n++;
	if (!p || !n)
		return NULL;
	memcpy(buf, p, n);
	buf[n] = 0;
	return p2ps_scan_uint(buf, 10, UINT32_MAX, v) ? p + n : NULL;
}

/* "R[D]": the rank. */
static const char *rank(const char *p, const char *end, uint64_t *r)
{
	uint64_t d;
	p = num(p, end, r);
	p = lit(p, end, "[");
	p = num(p, end, &d);
	return lit(p, end, "]");
}

static void add_transport(char *dst, size_t size, const char *t, size_t len)
{
	char one[64];
	p2ps_chk_setf(one, sizeof(one), "%.*s",
	              (int)(len < sizeof(one) - 1 ? len : sizeof(one) - 1), t);
	/* Nothing after "via " but blanks (or a NUL the line carried): no transport, and an empty
	 * needle would match at every place without moving on. */
	if (!one[0])
		return;
	/* Each transport once: the channels usually agree. */
	for (const char *p = dst; (p = strstr(p, one)); p += strlen(one))
		if ((p == dst || !strncmp(p - 3, " + ", 3)) &&
		    (p[strlen(one)] == 0 || !strncmp(p + strlen(one), " + ", 3)))
			return;
	if (dst[0])
		p2ps_chk_catf(dst, size, " + ");
	p2ps_chk_catf(dst, size, "%s", one);
}

/* One "Channel ..." line past "NCCL INFO Channel ". */
static int channel_line(const char *p, const char *end, struct p2ps_chk_nccl *n)
{
	uint64_t ch, conn, r1, r2;
	p = num(p, end, &ch);
	if (p && *p == '/')
		p = num(p + 1, end, &conn);
	p = lit(p, end, " : ");
	p = rank(p, end, &r1);
	p = lit(p, end, " -> ");
	p = rank(p, end, &r2);
	if (!p)
		return 0;
	if (lit(p, end, " [send]"))
		p += strlen(" [send]");
	else if (lit(p, end, " [receive]"))
		p += strlen(" [receive]");
	p = lit(p, end, " via ");
	if (!p || p == end)
		return 0;
	size_t len = (size_t)(end - p);
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\r'))
		len--;
	if (!len)
		return 0;
	if (r1 < P2PS_CHK_MAX_GPUS && r2 < P2PS_CHK_MAX_GPUS)
		add_transport(n->transport[r1][r2], sizeof(n->transport[r1][r2]), p, len);
	return 1;
}

int p2ps_chk_nccl_parse(const char *text, size_t len, struct p2ps_chk_nccl *n)
{
	static const char ch[] = " NCCL INFO Channel ", ver[] = " NCCL INFO NCCL version ",
	                  warn[] = " NCCL WARN ";
	const char *p = text, *stop = text + len;
	int lines = 0;
	while (p < stop) {
		const char *end = memchr(p, '\n', (size_t)(stop - p));
		end = end ? end : stop;
		const char *line = p;
		p = end + 1;
		size_t n_line = (size_t)(end - line);
		char buf[512];
		p2ps_chk_setf(buf, sizeof(buf), "%.*s", (int)(n_line < 511 ? n_line : 511), line);
		const char *at;
		if ((at = strstr(buf, ch))) {
			lines += channel_line(at + sizeof(ch) - 1, buf + strlen(buf), n);
		} else if ((at = strstr(buf, ver))) {
			at += sizeof(ver) - 1;
			size_t v = strcspn(at, "+ \r");
			p2ps_chk_setf(n->version, sizeof(n->version), "%.*s",
			              (int)(v < 31 ? v : 31), at);
		} else if ((at = strstr(buf, warn)) && n->n_warnings < 4) {
			p2ps_chk_setf(n->warnings[n->n_warnings++], sizeof(n->warnings[0]), "%s",
			              at + sizeof(warn) - 1);
		}
	}
	return lines;
}

const char *p2ps_chk_nccl_class(const char *t)
{
	static const char *const classes[] = {"P2P", "SHM", "NET"};
	for (size_t k = 0; t && k < sizeof(classes) / sizeof(classes[0]); k++)
		if (!strncmp(t, classes[k], 3) && (t[3] == '/' || t[3] == 0))
			return classes[k];
	return "";
}
