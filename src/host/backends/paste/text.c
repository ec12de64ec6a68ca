/* SPDX-License-Identifier: MIT */
/* The paste as lines: binary check, normalisation (CR, ANSI escapes, markdown quotes
 * and inline code marks) and the small scanners every parser shares. Everything here is
 * linear in the length of its input. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/parse.h"
#include "paste_internal.h"

bool pt_is_binary(const char *s, size_t len)
{
	size_t ctl = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (!ch)
			return true;
		if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' && ch != 0x1b &&
		     ch != '\f' && ch != '\v') ||
		    ch == 0x7f)
			ctl++;
	}
	/* Terminal output carries the odd control byte; data has them everywhere. */
	return ctl > 16 && ctl > len / 100;
}

/* Removes ANSI escape sequences (ESC [ ... final letter) from s[0..n) in place. */
static size_t strip_ansi(char *s, size_t n)
{
	size_t w = 0;
	for (size_t r = 0; r < n; r++) {
		if (s[r] == 0x1b) {
			r++;
			if (r < n && s[r] == '[')
				while (r + 1 < n && !isalpha((unsigned char)s[r]))
					r++;
			continue;
		}
		s[w++] = s[r];
	}
	return w;
}

/* A quoted reply ("> text", ">> text") loses its quote marks; a whole-line inline code
 * span (`text`) loses its backticks. Fences (```) stay. */
static size_t strip_markup(char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == '>') {
		i++;
		if (i < n && s[i] == ' ')
			i++;
	}
	if (i) {
		memmove(s, s + i, n - i);
		n -= i;
	}
	if (n >= 2 && s[0] == '`' && s[n - 1] == '`' && s[1] != '`') {
		memmove(s, s + 1, n - 2);
		n -= 2;
	}
	return n;
}

int pt_normalize(char *buf, size_t len)
{
	int lines = 0;
	size_t r = 0, w = 0;
	while (r < len) {
		size_t e = r;
		while (e < len && buf[e] != '\n')
			e++;
		size_t n = e - r;
		memmove(buf + w, buf + r, n);
		while (n &&
		       (buf[w + n - 1] == '\r' || buf[w + n - 1] == ' ' || buf[w + n - 1] == '\t'))
			n--;
		n = strip_ansi(buf + w, n);
		n = strip_markup(buf + w, n);
		for (size_t k = 0; k < n; k++)
			if (buf[w + k] == '\f' || buf[w + k] == '\v' || buf[w + k] == '\r')
				buf[w + k] = ' ';
		buf[w + n] = '\0';
		w += n + 1;
		r = e + 1;
		lines++;
	}
	buf[w] = '\0';
	return lines;
}

bool pl_next(struct pl_iter *it, struct pl_line *out)
{
	if (it->no > it->last)
		return false;
	out->s = it->p;
	out->n = strlen(it->p);
	out->no = it->no++;
	it->p += out->n + 1;
	return true;
}

size_t pt_span_len(const struct pl_span *sp)
{
	struct pl_iter it;
	struct pl_line l;
	const char *end = sp->start;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l))
		end = l.s + l.n;
	return (size_t)(end - sp->start);
}

const char *pt_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int pt_indent(const char *s)
{
	int w = 0;
	for (; *s == ' ' || *s == '\t'; s++)
		w += *s == '\t' ? 8 : 1;
	return w;
}

/* The numbers in a paste are tokens inside lines ("[size=256M]", "at 0x7f97_94000000.");
 * each token is cut out here and read by the project's one number parser (parse.h). */
static bool token(const char *s, size_t n, const char *prefix, char *buf, size_t size)
{
	size_t k = strlen(prefix);
	if (!n || k + n >= size)
		return false;
	memcpy(buf, prefix, k);
	memcpy(buf + k, s, n);
	buf[k + n] = '\0';
	return true;
}

bool pt_hex(const char *s, uint64_t *v, const char **end)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]))
		s += 2;
	size_t n = 0;
	/* NVRM groups hex digits with '_' (0x7f97_94000000). */
	while (isxdigit((unsigned char)s[n]) ||
	       (s[n] == '_' && n && isxdigit((unsigned char)s[n + 1])))
		n++;
	char buf[48];
	uint64_t w[2];
	if (!token(s, n, "0x", buf, sizeof(buf)) || p2ps_parse_wide(buf, 64, w) < 0)
		return false;
	*v = w[0];
	if (end)
		*end = s + n;
	return true;
}

bool pt_dec(const char *s, long *v, const char **end)
{
	size_t n = strspn(s, "0123456789");
	char buf[24];
	uint64_t u;
	if (n > 12 || !token(s, n, "", buf, sizeof(buf)) || p2ps_parse_uint(buf, LONG_MAX, &u) < 0)
		return false;
	*v = (long)u;
	if (end)
		*end = s + n;
	return true;
}

bool pt_bdf(const char *s, struct p2ps_bdf *b, bool *has_domain, const char **end)
{
	char tok[20];
	size_t n = 0;
	while (n < sizeof(tok) - 1 && (isxdigit((unsigned char)s[n]) || s[n] == ':' || s[n] == '.'))
		n++;
	if (n >= sizeof(tok) - 1 || isxdigit((unsigned char)s[n]))
		return false;
	while (n && (s[n - 1] == ':' || s[n - 1] == '.')) /* "0000:07:00.0: AMD-Vi" */
		n--;
	if (n < 7)
		return false;
	memcpy(tok, s, n);
	tok[n] = '\0';
	if (p2ps_bdf_parse(tok, b) < 0)
		return false;
	if (has_domain)
		*has_domain = strchr(strchr(tok, ':') + 1, ':') != NULL;
	if (end)
		*end = s + n;
	return true;
}

bool pt_size(const char *s, uint64_t *bytes, const char **end)
{
	size_t n = strspn(s, "0123456789");
	if (n && strchr("KMGT", s[n]) && s[n])
		n += 1 + (s[n + 1] == 'B' || s[n + 1] == 'b');
	char buf[32];
	if (!token(s, n, "", buf, sizeof(buf)) || p2ps_parse_size(buf, bytes) < 0)
		return false;
	if (end)
		*end = s + n;
	return true;
}

double pt_number(const char *s)
{
	double v = 0;
	p2ps_scan_double(pt_skip_ws(s), &v);
	return v;
}

uint8_t pt_speed(const char *s)
{
	double v;
	const char *e = p2ps_scan_double(pt_skip_ws(s), &v);
	if (!e)
		return 0;
	e = pt_skip_ws(e);
	if (strncmp(e, "GT/s", 4))
		return 0;
	static const struct {
		double gts;
		uint8_t code;
	} speeds[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (v > speeds[i].gts - 0.01 && v < speeds[i].gts + 0.01)
			return speeds[i].code;
	return 0;
}

/* Commands a bug report runs; a line starting with one of them (after "sudo ") is the
 * command even without a prompt. */
/* Past "NCCL_DEBUG=INFO CUDA_VISIBLE_DEVICES=0,1 " (and markdown's "**" around them):
 * where the command itself starts. */
static const char *past_env(const char *s)
{
	for (;;) {
		const char *t = s;
		while (*t == '*')
			t++;
		size_t n = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
		if (!n || t[n] != '=' || !(t[0] >= 'A' && t[0] <= 'Z'))
			return s;
		t += n + strcspn(t + n, " \t");
		s = pt_skip_ws(t);
	}
}

static bool known_command(const char *s)
{
	s = past_env(s);
	static const char *const cmds[] = {
	        "lspci",      "nvidia-smi",      "dmesg",
	        "journalctl", "cat /proc/",      "cat /sys/",
	        "find /sys/", "ls /sys/",        "setpci",
	        "modinfo",    "uname",           "./",
	        "for d in ",  "grep ",           "p2pBandwidthLatencyTest",
	        "simpleP2P",  "all_reduce_perf", "bar-inspect",
	        "sudo ",      "lsmod",           "lscpu",
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		size_t n = strlen(cmds[i]);
		if (!strncmp(s, cmds[i], n) &&
		    (cmds[i][n - 1] == ' ' || cmds[i][n - 1] == '/' || !s[n] || s[n] == ' ' ||
		     s[n] == '\t' || !strcmp(cmds[i], "./")))
			return true;
	}
	return false;
}

/* "user@host:dir$ ", "[root@host dir]# ", "(env) root@h:~# ", "$ ", "# cmd". */
static const char *after_prompt(const char *s)
{
	if (s[0] == '(') { /* conda/venv prefix */
		const char *q = strchr(s, ')');
		if (!q || q - s > 40 || q[1] != ' ')
			return NULL;
		s = q + 2;
	}
	/* "# " is also a comment (nccl-tests prints "# nThread ..."): a root prompt only
	 * when a known command follows. */
	if (s[0] == '$' && s[1] == ' ')
		return s + 2;
	if (s[0] == '#' && s[1] == ' ')
		return known_command(pt_skip_ws(s + 2)) ? s + 2 : NULL;
	bool at = false, bracket = s[0] == '[';
	for (int i = 0; i < 120 && s[i]; i++) {
		char ch = s[i];
		if (ch == '@')
			at = true;
		else if ((ch == '$' || ch == '#') && (s[i + 1] == ' ' || !s[i + 1]) &&
		         (at || (bracket && i > 0 && s[i - 1] == ']')))
			return s[i + 1] ? s + i + 2 : s + i + 1;
		else if (ch == ' ' && !bracket && !at)
			return NULL;
	}
	return NULL;
}

const char *pt_command(const char *s)
{
	/* A prompt may be indented, as markdown indents a list item's or a nested code block's
	 * lines; a command without a prompt only at the start of its line (an indented
	 * "simpleP2P : Failed" is a test summary's row). */
	const char *c = after_prompt(pt_skip_ws(s));
	if (c) {
		c = pt_skip_ws(c);
		return *c ? c : NULL;
	}
	return known_command(s) ? s : NULL;
}

bool pt_command_opt(const char *cmd, const char *opt, char *buf, size_t size)
{
	size_t n = strlen(opt);
	for (const char *p = cmd; (p = strstr(p, opt)) != NULL; p += n) {
		if ((p != cmd && p[-1] != ' ') || (p[n] != ' ' && p[n] != '='))
			continue;
		const char *v = pt_skip_ws(p + n + (p[n] == '='));
		size_t k = 0;
		while (v[k] && v[k] != ' ' && v[k] != '|' && k + 1 < size)
			k++;
		if (!k)
			return false;
		memcpy(buf, v, k);
		buf[k] = '\0';
		return true;
	}
	return false;
}
