/* SPDX-License-Identifier: MIT */
/* The paste as lines: binary check, normalisation (CR, ANSI escapes, HTML entities and
 * Unicode spaces, HTML block tags, markdown quotes, log prefixes, inline code marks, a code
 * block's indentation) and the small scanners every parser shares. Everything here is linear
 * in the length of its input. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
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

/* A quoted reply ("> text", ">> text") loses its quote marks. */
static size_t strip_quote(char *s, size_t n)
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
	return n;
}

/* A whole-line inline code span (`text`) loses its backticks. Fences (```) stay. */
static size_t strip_inline_code(char *s, size_t n)
{
	if (n >= 2 && s[0] == '`' && s[n - 1] == '`' && s[1] != '`') {
		memmove(s, s + 1, n - 2);
		n -= 2;
	}
	return n;
}

/* Characters a web page or an escaping renderer puts in place of the terminal's: HTML
 * entities (decoded once, as a browser shows them) and the Unicode spaces a page uses for
 * alignment, in UTF-8. Each becomes the one byte the terminal printed. */
static const struct {
	const char *from;
	char to;
} web_chars[] = {
        {"&gt;", '>'},         {"&lt;", '<'},         {"&amp;", '&'},  {"&quot;", '"'},
        {"&#39;", '\''},       {"&apos;", '\''},      {"&nbsp;", ' '}, {"\xc2\xa0", ' '},
        {"\xe2\x80\xaf", ' '}, {"\xe2\x80\x87", ' '},
};

static size_t decode_web_chars(char *s, size_t n)
{
	size_t r = 0;
	while (r < n && s[r] != '&' && (unsigned char)s[r] < 0x80)
		r++;
	size_t w = r; /* most lines have nothing to decode: nothing is written */
	while (r < n) {
		size_t i = 0, k = 0;
		if (s[r] == '&' || (unsigned char)s[r] >= 0x80)
			for (; i < sizeof(web_chars) / sizeof(web_chars[0]); i++) {
				k = strlen(web_chars[i].from);
				if (k <= n - r && !memcmp(s + r, web_chars[i].from, k))
					break;
			}
		if (i < sizeof(web_chars) / sizeof(web_chars[0]) && k) {
			s[w++] = web_chars[i].to;
			r += k;
		} else {
			s[w++] = s[r++];
		}
	}
	return w;
}

static bool digits(const char *s, size_t n, size_t at, size_t count)
{
	if (at + count > n)
		return false;
	for (size_t i = at; i < at + count; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "2025-03-01T10:00:00.123456Z", "2025-03-01 10:00:00,123", "+01:00": the length of an
 * ISO 8601 time stamp at s, or 0. */
static size_t iso_stamp(const char *s, size_t n)
{
	if (!digits(s, n, 0, 4) || n < 19 || s[4] != '-' || !digits(s, n, 5, 2) || s[7] != '-' ||
	    !digits(s, n, 8, 2) || (s[10] != 'T' && s[10] != ' ') || !digits(s, n, 11, 2) ||
	    s[13] != ':' || !digits(s, n, 14, 2) || s[16] != ':' || !digits(s, n, 17, 2))
		return 0;
	size_t i = 19;
	if (i < n && (s[i] == '.' || s[i] == ',') && digits(s, n, i + 1, 1))
		for (i++; i < n && isdigit((unsigned char)s[i]); i++)
			;
	if (i < n && s[i] == 'Z')
		i++;
	else if (i < n && (s[i] == '+' || s[i] == '-') && digits(s, n, i + 1, 2)) {
		i += 3;
		i += i < n && s[i] == ':';
		i += digits(s, n, i, 2) ? 2 : 0;
	}
	return i;
}

/* "Mar  1 10:00:00 host ident[123]: ": syslog's and journalctl's prefix before a
 * program's message; its length, or 0. The kernel's ("host kernel: ") stays: the kernel
 * log's reader takes it as the mark of a kernel line. */
static size_t syslog_prefix(const char *s, size_t n)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	size_t m = 0;
	while (m < 12 && (n < 3 || memcmp(s, months + 3 * m, 3)))
		m++;
	if (m == 12 || n < 16 || s[3] != ' ' || (s[4] != ' ' && !isdigit((unsigned char)s[4])) ||
	    !digits(s, n, 5, 1) || s[6] != ' ' || !digits(s, n, 7, 2) || s[9] != ':' ||
	    !digits(s, n, 10, 2) || s[12] != ':' || !digits(s, n, 13, 2) || s[15] != ' ')
		return 0;
	size_t h = 16;
	while (h < n && s[h] != ' ')
		h++;
	size_t id = h + 1, e = id;
	while (e < n && e - id < 40 && s[e] != ':' && s[e] != ' ')
		e++;
	if (e >= n || s[e] != ':' || e == id || (e - id == 6 && !memcmp(s + id, "kernel", 6)))
		return 0;
	e++;
	return e < n && s[e] == ' ' ? e + 1 : e;
}

/* A launcher's rank: "[rank0]: " (torchrun), "[default0]:" (its --tee); the length or 0. */
static size_t rank_prefix(const char *s, size_t n)
{
	size_t i;
	if (n > 6 && !strncmp(s, "[rank", 5))
		i = 5;
	else if (n > 9 && !strncmp(s, "[default", 8))
		i = 8;
	else
		return 0;
	size_t d = i;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	return i > d && i + 1 < n && s[i] == ']' && s[i + 1] == ':' ? i + 2 : 0;
}

/* Open MPI's --tag-output: "[1,0]<stdout>:", "[1,3]<stderr>:" (job, rank and stream); the
 * length or 0. */
static size_t mpi_tag_prefix(const char *s, size_t n)
{
	size_t i = 1, d;
	if (n < 14 || s[0] != '[')
		return 0;
	for (int part = 0; part < 2; part++) {
		d = i;
		while (i < n && isdigit((unsigned char)s[i]))
			i++;
		if (i == d || i >= n || s[i] != (part ? ']' : ','))
			return 0;
		i++;
	}
	if (n - i >= 9 && !strncmp(s + i, "<stdout>:", 9))
		return i + 9;
	if (n - i >= 9 && !strncmp(s + i, "<stderr>:", 9))
		return i + 9;
	return 0;
}

/* docker compose's service column: "vllm-1  | ", "proj_worker_1 | " (a name ending in its
 * replica number, blanks, a bar); the length or 0. */
static size_t compose_prefix(const char *s, size_t n)
{
	if (!memchr(s, '|', n < 80 ? n : 80))
		return 0;
	size_t i = 0;
	while (i < n && i < 64 && (isalnum((unsigned char)s[i]) || strchr("_.-", s[i])))
		i++;
	size_t d = i;
	while (d && isdigit((unsigned char)s[d - 1]))
		d--;
	if (d == i || d < 2 || (s[d - 1] != '-' && s[d - 1] != '_') || i >= n || s[i] != ' ')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	return i < n && s[i] == '|' && (i + 1 == n || s[i + 1] == ' ') ? i + 1 : 0;
}

/* A log collector's prefix on every line: a container log's or a CI runner's time stamp
 * ("2025-03-01T10:00:00.123Z ", "[2025-03-01 10:00:00] "), syslog's "Mar  1 10:00:00 host
 * prog[12]: ", a launcher's rank, docker compose's service, Open MPI's tag. Taken off, as
 * the program
 * printed its line without it. */
static size_t strip_log_prefix(char *s, size_t n)
{
	size_t k = iso_stamp(s, n);
	if (!k && n && s[0] == '[') {
		k = iso_stamp(s + 1, n - 1);
		k = k && k + 1 < n && s[k + 1] == ']' ? k + 2 : 0;
	}
	if (!k)
		k = syslog_prefix(s, n);
	if (!k)
		k = rank_prefix(s, n);
	if (!k)
		k = compose_prefix(s, n);
	if (!k)
		k = mpi_tag_prefix(s, n);
	if (!k)
		return n;
	if (k < n && s[k] == ' ')
		k++;
	memmove(s, s + k, n - k);
	return n - k;
}

/* GitHub's folding block and a page's preformatted block around the output:
 * "<details><summary>nvidia-smi</summary>", "</details>", "<pre>", "</pre>" at the start
 * of a line are the page's (the summary's words too) and come off; what follows stays. */
static const struct {
	const char *open, *close; /* close: where the tag ends ("" right after open) */
} html_block_tags[] = {
        {"<details", ">"}, {"</details>", ""}, {"<summary>", "</summary>"},
        {"<pre>", ""},     {"</pre>", ""},
};

/* The length of the tag at s[0..n), or 0. */
static size_t html_block_tag(const char *s, size_t n)
{
	for (size_t k = 0; k < sizeof(html_block_tags) / sizeof(html_block_tags[0]); k++) {
		size_t o = strlen(html_block_tags[k].open), c = strlen(html_block_tags[k].close);
		if (n < o || strncmp(s, html_block_tags[k].open, o))
			continue;
		size_t e = o;
		while (c && e < n && (n - e < c || strncmp(s + e, html_block_tags[k].close, c)))
			e++;
		return e < n ? e + c : n;
	}
	return 0;
}

static size_t strip_html_block_tags(char *s, size_t n)
{
	size_t i = 0, k;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (!html_block_tag(s + i, n - i))
		return n;
	while ((k = html_block_tag(s + i, n - i)) != 0) {
		i += k;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
	}
	memmove(s, s + i, n - i);
	return n - i;
}

/* The common indentation of every non-empty line (a markdown code block indented by four
 * spaces or a tab, a list item's block) is the page's, not the program's: taken off. The
 * lines are the NUL-terminated strings in buf[0..len); returns their new length. */
static size_t dedent(char *buf, size_t len)
{
	size_t common = SIZE_MAX;
	const char *first = NULL;
	for (const char *p = buf; p < buf + len; p += strlen(p) + 1) {
		if (!*p)
			continue;
		if (!first)
			first = p;
		size_t k = 0;
		while (k < common && (p[k] == ' ' || p[k] == '\t') && p[k] == first[k])
			k++;
		common = k;
	}
	if (!first || !common)
		return len;
	size_t w = 0;
	for (size_t r = 0; r < len;) {
		size_t n = strlen(buf + r), k = n ? common : 0;
		memmove(buf + w, buf + r + k, n - k + 1);
		w += n - k + 1;
		r += n + 1;
	}
	return w;
}

/* The page's marks on each line of buf[0..len) (NUL-terminated strings): quote marks, HTML
 * block tags, log collectors' prefixes (inside or outside the quote, one or several), a
 * whole-line code span. Returns the lines' new length. */
static size_t strip_line_marks(char *buf, size_t len)
{
	size_t w = 0;
	for (size_t r = 0; r < len;) {
		size_t n0 = strlen(buf + r);
		memmove(buf + w, buf + r, n0 + 1);
		size_t n = strip_html_block_tags(buf + w, strip_quote(buf + w, n0)), k;
		/* Collectors stack (compose's column, then the launcher's rank), and a quote or
		 * a page's tags may stand inside them. */
		for (int i = 0; i < 4 && (k = strip_log_prefix(buf + w, n)) < n; i++)
			n = strip_html_block_tags(buf + w, strip_quote(buf + w, k));
		n = strip_inline_code(buf + w, n);
		buf[w + n] = '\0';
		w += n + 1;
		r += n0 + 1;
	}
	return w;
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
		n = strip_ansi(buf + w, n);
		n = decode_web_chars(buf + w, n);
		while (n &&
		       (buf[w + n - 1] == '\r' || buf[w + n - 1] == ' ' || buf[w + n - 1] == '\t'))
			n--;
		for (size_t k = 0; k < n; k++)
			if (buf[w + k] == '\f' || buf[w + k] == '\v' || buf[w + k] == '\r')
				buf[w + k] = ' ';
		buf[w + n] = '\0';
		w += n + 1;
		r = e + 1;
		lines++;
	}
	/* An indented block of quoted lines, or a quote of an indented block. */
	w = dedent(buf, w);
	w = strip_line_marks(buf, w);
	w = dedent(buf, w);
	/* The marks inside what was indented ("    > > Peer access from": a code block of a
	 * quote's lines). */
	w = strip_line_marks(buf, w);
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
		/* "simpleP2P : Failed (code 1)" is a test summary's row, not its command. */
		if (!strncmp(s, cmds[i], n) && strncmp(s + n, " : ", 3) &&
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
