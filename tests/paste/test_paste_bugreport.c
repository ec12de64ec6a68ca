/* SPDX-License-Identifier: MIT */
/* nvidia-bug-report.log and .log.gz: the log of a public host (tests/fixtures/bugreport/
 * gtx1080tix4-pex8747, trimmed from a real log; its README names the source) read as
 * text, and compressed here the way nvidia-bug-report.sh writes the .gz (each section
 * compressed and appended: a run of gzip members). Every section goes to the reader of
 * its syntax; the .gz gives the same evidence as the text. Damaged, cut-off and oversized
 * gzip data is refused with a one-line message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "p2ps_test.h"
#include "p2pscope/error.h"
#include "p2pscope/evidence.h"
#include "p2pscope/paste.h"

#include "../../src/host/backends/paste/paste_internal.h"

#define LOG p2ps_test_src_path("tests/fixtures/bugreport/gtx1080tix4-pex8747/nvidia-bug-report.log")

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* One gzip member of in[0..n) appended to *out. */
static void gzip_member(const char *in, size_t n, char **out, size_t *len, size_t *cap)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
	                 Z_OK);
	size_t need = deflateBound(&z, (uLong)n);
	if (*len + need > *cap) {
		*cap = (*len + need) * 2;
		*out = realloc(*out, *cap);
		assert_non_null(*out);
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)*out + *len;
	z.avail_out = (uInt)(*cap - *len);
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*len += z.total_out;
	deflateEnd(&z);
}

/* The log compressed as the script writes it: a member per section (a section starts at
 * a line of underscores). */
static char *gzip_sections(const char *text, size_t n, size_t *len)
{
	char *out = NULL;
	size_t cap = 0, start = 0;
	int members = 0;
	*len = 0;
	for (size_t i = 1; i <= n; i++) {
		bool cut = i == n || (text[i - 1] == '\n' && !strncmp(text + i, "_____", 5));
		if (!cut)
			continue;
		gzip_member(text + start, i - start, &out, len, &cap);
		members++;
		start = i;
	}
	assert_true(members > 10);
	return out;
}

static bool has_kind(const struct p2ps_paste *p, enum p2ps_paste_kind k, const char *command)
{
	for (size_t i = 0; i < p->n_blocks; i++)
		if (p->blocks[i].kind == k && strstr(p->blocks[i].command, command))
			return true;
	return false;
}

/* What the log holds, as the reader takes it. */
static void check_log(const struct p2ps_paste *p)
{
	assert_true(p->bug_report);
	/* Sections routed by their headers to the reader of their syntax. */
	assert_true(has_kind(p, P2PS_PASTE_LSPCI, "lspci -d \"10de:*\" -v -xxx"));
	assert_true(has_kind(p, P2PS_PASTE_LSPCI, "lspci -d \"10b5:*\" -v -xxx"));
	assert_true(has_kind(p, P2PS_PASTE_LSPCI_TREE, "lspci -t"));
	assert_true(has_kind(p, P2PS_PASTE_LSPCI, "lspci -nn"));
	assert_true(has_kind(p, P2PS_PASTE_NVSMI_Q, "nvidia-smi --query"));
	assert_true(has_kind(p, P2PS_PASTE_KERNEL, "dmesg"));
	assert_true(has_kind(p, P2PS_PASTE_CMDLINE, "cat /proc/cmdline"));
	assert_true(has_kind(p, P2PS_PASTE_MODULES, "cat /proc/modules"));
	assert_true(has_kind(p, P2PS_PASTE_ENVIRONMENT, "cat /proc/driver/nvidia/./version"));
	assert_true(has_kind(p, P2PS_PASTE_ENVIRONMENT, "/gpus/0000:09:00.0/information"));
	/* Four GTX 1080 Ti at their addresses, from lspci, nvidia-smi -q and the driver's
	 * files, joined. */
	int gpus = 0;
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct p2ps_paste_gpu *g = &p->gpus[i];
		if (!g->bdf_known || !strstr(g->name, "GTX 1080 Ti"))
			continue;
		assert_true(g->bdf.bus == 0x04 || g->bdf.bus == 0x05 || g->bdf.bus == 0x08 ||
		            g->bdf.bus == 0x09);
		gpus++;
	}
	assert_int_equal(gpus, 4);
	assert_string_equal(p->host.driver_version, "384.59");
	assert_int_equal(p->host.driver_open, 0);
	assert_true(p->host.cmdline_known);
	assert_int_equal(p->host.modules_listed, 1);
	assert_int_equal(p->host.nvidia_peermem, 0);
	assert_string_equal(p->host.kernel, "4.4.0-87-generic");
	/* The PLX switches above the GPUs are PCI functions of the evidence. */
	bool plx = false;
	for (size_t i = 0; i < p->n_devs; i++)
		plx |= p->devs[i].d.bdf.bus == 0x02 && p->devs[i].d.vendor_id == 0x10b5;
	assert_true(plx);
}

static void test_text(void **state)
{
	(void)state;
	struct p2ps_paste p;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_paste_load(LOG, &p, &err), 0);
	check_log(&p);
	p2ps_paste_free(&p);
}

static void test_gzip(void **state)
{
	(void)state;
	size_t n, zn;
	char *text = slurp(LOG, &n);
	char *gz = gzip_sections(text, n, &zn);
	struct p2ps_paste a, b;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_paste_parse(text, n, "nvidia-bug-report.log", &a, &err), 0);
	assert_int_equal(p2ps_paste_parse(gz, zn, "nvidia-bug-report.log.gz", &b, &err), 0);
	check_log(&b);
	assert_int_equal(a.lines, b.lines);
	assert_int_equal(a.n_blocks, b.n_blocks);
	assert_int_equal(a.n_gpus, b.n_gpus);
	assert_int_equal(a.n_devs, b.n_devs);
	p2ps_paste_free(&a);
	p2ps_paste_free(&b);
	/* Through a file, as bar-inspect --paste reads it. */
	char path[] = "/tmp/p2ps-bugreport-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(gz, 1, zn, f), zn);
	fclose(f);
	assert_int_equal(p2ps_paste_load(path, &b, &err), 0);
	check_log(&b);
	p2ps_paste_free(&b);
	remove(path);
	free(gz);
	free(text);
}

static void test_bad_gzip(void **state)
{
	(void)state;
	size_t n, zn;
	char *text = slurp(LOG, &n);
	char *gz = gzip_sections(text, n, &zn);
	struct p2ps_paste p;
	struct p2ps_error err = {0};
	/* A download cut in the middle of a member. */
	assert_int_equal(p2ps_paste_parse(gz, zn / 2 + 7, "cut.log.gz", &p, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "ends early"));
	assert_null(strchr(err.msg, '\n'));
	p2ps_paste_free(&p);
	/* Bytes damaged after the first member's header. */
	memset(gz + 20, 0xff, 64);
	memset(&err, 0, sizeof(err));
	assert_int_equal(p2ps_paste_parse(gz, zn, "damaged.log.gz", &p, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "damaged.log.gz"));
	assert_null(strchr(err.msg, '\n'));
	p2ps_paste_free(&p);
	free(gz);
	/* Binary data inside a good gzip stream: refused as binary, as plain binary is. */
	static const char binary[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
	size_t cap = 0;
	gz = NULL;
	zn = 0;
	gzip_member(binary, sizeof(binary), &gz, &zn, &cap);
	memset(&err, 0, sizeof(err));
	assert_int_equal(p2ps_paste_parse(gz, zn, "elf.gz", &p, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "binary"));
	p2ps_paste_free(&p);
	free(gz);
	free(text);
}

/* A stream that inflates past the limit is refused, whatever its compressed size: 4 MiB
 * of zeros against a 1 MiB limit (the reader's limit is P2PS_PASTE_MAX_BYTES). */
static void test_inflate_limit(void **state)
{
	(void)state;
	size_t n = 4u << 20, zn = 0, cap = 0;
	char *zeros = calloc(1, n);
	assert_non_null(zeros);
	char *gz = NULL;
	gzip_member(zeros, n, &gz, &zn, &cap);
	assert_true(zn < 64 * 1024);
	char *out = NULL;
	size_t out_len = 0;
	struct p2ps_error err = {0};
	assert_int_equal(pt_gunzip_max(gz, zn, "bomb.gz", 1u << 20, &out, &out_len, &err),
	                 P2PS_EINVAL);
	assert_null(out);
	assert_non_null(strstr(err.msg, "more than the 1 MiB"));
	/* Within the limit: all of it. */
	assert_int_equal(pt_gunzip_max(gz, zn, "zeros.gz", 8u << 20, &out, &out_len, &err), 0);
	assert_int_equal(out_len, n);
	free(out);
	free(gz);
	free(zeros);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_text),
	        cmocka_unit_test(test_gzip),
	        cmocka_unit_test(test_bad_gzip),
	        cmocka_unit_test(test_inflate_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
