/* SPDX-License-Identifier: MIT */
/* Dump readers: the text parser, the raw reader (mapped and streamed), the
 * --mem chunk set, and SPEC parsing errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"

/* ---- text ------------------------------------------------------------------ */

#define MAX_WORDS 16

struct words {
	struct p2ps_text_word w[MAX_WORDS];
	size_t n;
};

static int on_word(void *ctx, const struct p2ps_text_word *w, struct p2ps_error *err)
{
	(void)err;
	struct words *ws = ctx;
	assert_true(ws->n < MAX_WORDS);
	ws->w[ws->n++] = *w;
	return 0;
}

static int parse(const char *text, struct words *ws, struct p2ps_error *err)
{
	memset(ws, 0, sizeof(*ws));
	return p2ps_text_parse(text, strlen(text), "dump.txt", on_word, ws, err);
}

static void text_accepts_log_forms(void **state)
{
	(void)state;
	struct words ws;
	struct p2ps_error err = {0};
	const char *t =
	        "# PTEs from a debug log\n"
	        "0x7f97_94000000 7F9794000001\r\n"
	        "\n"
	        "  00000010: 0x0, 0xdead_beef   # two after an offset\n"
	        "0x0000000000000000000000000000abcd 0X1234_5678_9abc_def0_0fed_cba9_8765_4321\n";
	assert_int_equal(parse(t, &ws, &err), 0);
	assert_int_equal(ws.n, 6);
	assert_true(ws.w[0].lo == 0x7f9794000000ull && ws.w[0].hi == 0);
	assert_int_equal(ws.w[0].line, 2);
	assert_int_equal(ws.w[0].column, 1);
	assert_false(ws.w[0].has_offset);
	assert_true(ws.w[1].lo == 0x7f9794000001ull);
	assert_int_equal(ws.w[1].index, 1);
	assert_int_equal(ws.w[1].column, 17);
	assert_true(ws.w[2].has_offset);
	assert_int_equal(ws.w[2].line_offset, 0x10);
	assert_int_equal(ws.w[2].lo, 0);
	assert_int_equal(ws.w[2].index, 0);
	assert_int_equal(ws.w[3].lo, 0xdeadbeef);
	assert_int_equal(ws.w[3].index, 1);
	assert_int_equal(ws.w[4].lo, 0xabcd);
	assert_int_equal(ws.w[4].hi, 0);
	assert_int_equal(ws.w[4].digits, 4);
	assert_true(ws.w[5].hi == 0x123456789abcdef0ull);
	assert_true(ws.w[5].lo == 0x0fedcba987654321ull);
	assert_int_equal(ws.w[5].digits, 32);
}

static void text_rejects_with_line_and_column(void **state)
{
	(void)state;
	struct words ws;
	struct p2ps_error err = {0};
	assert_int_equal(parse("0x10\n0x20 0xg1\n", &ws, &err), P2PS_EINVAL);
	assert_string_equal(err.msg, "dump.txt:2:6: '0xg1' is not a hex word (bad character at "
	                             "column 8)");
	assert_int_equal(ws.n, 2); /* words before the error were delivered */
	assert_int_equal(parse("0x\n", &ws, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "dump.txt:1:1"));
	assert_int_equal(parse("1__2\n", &ws, &err), P2PS_EINVAL);
	assert_int_equal(parse("_12\n", &ws, &err), P2PS_EINVAL);
	assert_int_equal(parse("12_\n", &ws, &err), P2PS_EINVAL);
	/* 33 significant digits */
	assert_int_equal(parse("1000000000000000000000000000000000\n", &ws, &err), P2PS_ERANGE);
	assert_non_null(strstr(err.msg, "128 bits"));
	/* an offset must come first */
	assert_int_equal(parse("0x1 10: 0x2\n", &ws, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "dump.txt:1:5"));
	/* control bytes are shown escaped, keeping the message on one line */
	assert_int_equal(parse("ab\x01\x7f\n", &ws, &err), P2PS_EINVAL);
	assert_null(strchr(err.msg, '\n'));
	assert_non_null(strstr(err.msg, "\\x01"));
}

/* ---- raw --------------------------------------------------------------------- */

static char tmpdir[] = "/tmp/p2ps-dump-test-XXXXXX";

static const char *write_tmp(const char *name, const uint8_t *data, size_t len)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void raw_mapped_reads_whole_entries(void **state)
{
	(void)state;
	uint8_t b[24];
	for (unsigned i = 0; i < 3; i++)
		p2ps_put_le64(b + 8 * i, 0x1111111111111111ull * (i + 1));
	struct p2ps_dump_file f;
	struct p2ps_error err = {0};
	assert_int_equal(p2ps_dump_file_open(&f, write_tmp("a.bin", b, 24), 8, &err), 0);
	assert_true(f.mapped);
	const uint8_t *d;
	size_t len;
	uint64_t off;
	assert_int_equal(p2ps_dump_file_next(&f, &d, &len, &off, &err), 1);
	assert_int_equal(len, 24);
	assert_int_equal(off, 0);
	assert_true(p2ps_le64(d + 16) == 0x3333333333333333ull);
	assert_int_equal(p2ps_dump_file_next(&f, &d, &len, &off, &err), 0);
	p2ps_dump_file_close(&f);
	p2ps_dump_file_close(&f); /* twice is safe */

	/* 24 bytes are not whole 16-byte dual PDEs */
	assert_int_equal(p2ps_dump_file_open(&f, write_tmp("a.bin", b, 24), 16, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "size 24 is not a multiple of 16-byte entries"));
	assert_non_null(strstr(err.msg, "8 trailing bytes at offset 0x10"));
	/* odd size, empty file, missing file, directory */
	assert_int_equal(p2ps_dump_file_open(&f, write_tmp("b.bin", b, 13), 8, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "5 trailing bytes at offset 0x8"));
	assert_int_equal(p2ps_dump_file_open(&f, write_tmp("c.bin", b, 0), 8, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "empty"));
	assert_int_equal(p2ps_dump_file_open(&f, "/nonexistent/x.bin", 8, &err), P2PS_ENOENT);
	assert_int_equal(p2ps_dump_file_open(&f, tmpdir, 8, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "directory"));
}

/* Feeds len bytes of a pattern through a pipe as standard input and reads
 * them back through the streaming path. */
static int stream_through_pipe(size_t len, unsigned entry, uint64_t *sum, uint64_t *entries,
                               struct p2ps_error *err)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		uint8_t chunk[4096];
		for (size_t i = 0; i < sizeof(chunk); i++)
			chunk[i] = (uint8_t)(i * 7);
		size_t left = len;
		while (left) {
			size_t n =
			        left < 4093 ? left : 4093; /* odd writes: entries straddle reads */
			if (write(p[1], chunk, n) != (ssize_t)n)
				_exit(1);
			left -= n;
		}
		_exit(0);
	}
	close(p[1]);
	int saved = dup(STDIN_FILENO);
	dup2(p[0], STDIN_FILENO);
	close(p[0]);
	struct p2ps_dump_file f;
	int rc = p2ps_dump_file_open(&f, "-", entry, err);
	dup2(saved, STDIN_FILENO);
	close(saved);
	*sum = 0;
	*entries = 0;
	if (!rc) {
		assert_false(f.mapped);
		const uint8_t *d;
		size_t n;
		uint64_t off, expect_off = 0;
		while ((rc = p2ps_dump_file_next(&f, &d, &n, &off, err)) > 0) {
			assert_int_equal(n % entry, 0);
			assert_int_equal(off, expect_off);
			expect_off += n;
			for (size_t i = 0; i < n; i += 8)
				*sum += p2ps_le64(d + i);
			*entries += n / entry;
		}
		p2ps_dump_file_close(&f);
	}
	int status;
	waitpid(pid, &status, 0);
	return rc;
}

static void raw_streamed_keeps_entries_whole(void **state)
{
	(void)state;
	struct p2ps_error err = {0};
	uint64_t sum, n;
	/* 3 MiB + 8: several buffer fills, entries split across reads */
	size_t len = (3u << 20) + 8;
	assert_int_equal(stream_through_pipe(len, 8, &sum, &n, &err), 0);
	assert_int_equal(n, len / 8);
	/* the same bytes summed directly */
	uint64_t want = 0;
	uint8_t e[8];
	for (size_t off = 0; off < len; off += 8) {
		for (int k = 0; k < 8; k++) {
			size_t pos = off + (size_t)k;
			e[k] = (uint8_t)((pos % 4093) * 7);
		}
		want += p2ps_le64(e);
	}
	assert_true(sum == want);
	/* a stream ending inside an entry */
	assert_int_equal(stream_through_pipe(4093 * 3, 16, &sum, &n, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "ends inside an entry"));
	assert_non_null(strstr(err.msg, "12279 bytes"));
	/* nothing at all */
	assert_int_equal(stream_through_pipe(0, 8, &sum, &n, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "empty"));
}

/* ---- --mem chunks ------------------------------------------------------------ */

static void mem_set_sorted_checked_bounded(void **state)
{
	(void)state;
	static uint8_t a[0x2000], b[0x1000], c[0x1000];
	struct p2ps_mem_set s;
	struct p2ps_error err = {0};
	p2ps_mem_set_init(&s);
	assert_int_equal(
	        p2ps_mem_set_add_buffer(&s, P2PS_MEM_VID, 0x10000, a, sizeof(a), "a", &err), 0);
	assert_int_equal(p2ps_mem_set_add_buffer(&s, P2PS_MEM_VID, 0x1000, b, sizeof(b), "b", &err),
	                 0);
	/* same PA in the other space is no overlap */
	assert_int_equal(
	        p2ps_mem_set_add_buffer(&s, P2PS_MEM_SYS, 0x10000, c, sizeof(c), "c", &err), 0);
	/* overlaps the end of a */
	assert_int_equal(p2ps_mem_set_add_buffer(&s, P2PS_MEM_VID, 0x11fff, c, 2, "d", &err),
	                 P2PS_EINVAL);
	assert_string_equal(err.msg, "d: vid PA 0x11fff-0x12000 overlaps a at 0x10000-0x11fff");
	/* overlaps the start of a from below */
	assert_int_equal(p2ps_mem_set_add_buffer(&s, P2PS_MEM_VID, 0xf000, c, 0x1001, "e", &err),
	                 P2PS_EINVAL);
	/* runs past 2^64 */
	assert_int_equal(
	        p2ps_mem_set_add_buffer(&s, P2PS_MEM_VID, UINT64_MAX - 10, c, 0x100, "f", &err),
	        P2PS_ERANGE);
	assert_int_equal(s.n, 3);
	assert_ptr_equal(p2ps_mem_set_at(&s, P2PS_MEM_VID, 0x10000, 0x2000), a);
	assert_ptr_equal(p2ps_mem_set_at(&s, P2PS_MEM_VID, 0x11ff8, 8), a + 0x1ff8);
	assert_null(p2ps_mem_set_at(&s, P2PS_MEM_VID, 0x11ff9, 8));    /* crosses the end */
	assert_null(p2ps_mem_set_at(&s, P2PS_MEM_VID, 0x2000, 8));     /* between chunks */
	assert_null(p2ps_mem_set_at(&s, P2PS_MEM_VID, 0x0, 8));        /* below all */
	assert_null(p2ps_mem_set_at(&s, P2PS_MEM_VID, UINT64_MAX, 8)); /* above all */
	assert_ptr_equal(p2ps_mem_set_at(&s, P2PS_MEM_SYS, 0x10000, 8), c);
	assert_null(p2ps_mem_set_at(&s, P2PS_MEM_SYS, 0x1000, 8));
	assert_int_equal(p2ps_mem_set_bytes(&s), 0x4000);
	p2ps_mem_set_cleanup(&s);
}

static void mem_arg_forms(void **state)
{
	(void)state;
	uint8_t b[0x1000] = {0x5a};
	const char *path = write_tmp("pd.bin", b, sizeof(b));
	char arg[300];
	struct p2ps_mem_set s;
	struct p2ps_error err = {0};
	p2ps_mem_set_init(&s);
	snprintf(arg, sizeof(arg), "0x2_0000=%s", path);
	assert_int_equal(p2ps_mem_set_add_arg(&s, arg, &err), 0);
	snprintf(arg, sizeof(arg), "sys:20000=%s", path);
	assert_int_equal(p2ps_mem_set_add_arg(&s, arg, &err), 0);
	const uint8_t *p = p2ps_mem_set_at(&s, P2PS_MEM_SYS, 0x20000, 1);
	assert_non_null(p);
	assert_int_equal(p[0], 0x5a);
	snprintf(arg, sizeof(arg), "vid:0x20800=%s", path);
	assert_int_equal(p2ps_mem_set_add_arg(&s, arg, &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "overlaps"));
	assert_int_equal(p2ps_mem_set_add_arg(&s, "0x1000", &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "expected [vid:|sys:]PA=FILE"));
	assert_int_equal(p2ps_mem_set_add_arg(&s, "zz=/dev/null", &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "'zz' is not a hex physical address"));
	assert_int_equal(p2ps_mem_set_add_arg(&s, "0x0=/nonexistent", &err), P2PS_ENOENT);
	assert_int_equal(p2ps_mem_set_add_arg(&s, "0x0=/dev/null", &err), P2PS_EINVAL);
	assert_int_equal(s.n, 2);
	p2ps_mem_set_cleanup(&s);
}

/* ---- SPEC errors --------------------------------------------------------------- */

static int spec(const char *text, struct p2ps_error *err)
{
	const struct gmmu_chip *c = gmmu_chip_find("AD102");
	assert_non_null(c);
	const struct gmmu_format *f = c->format;
	struct gmmu_spec sp;
	int rc = gmmu_spec_parse(text, strlen(text), "s.json", f, &sp, err);
	if (!rc)
		gmmu_spec_cleanup(&sp);
	return rc;
}

static void spec_errors_name_entry_and_key(void **state)
{
	(void)state;
	struct p2ps_error err = {0};
	assert_int_equal(spec("{ \"mappings\": [\n  { \"va\": 1,\n", &err), P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "s.json:"));
	assert_non_null(strstr(err.msg, "invalid JSON"));
	assert_int_equal(spec("{\"mappings\": []}", &err), P2PS_EINVAL);
	assert_int_equal(spec("{\"mappings\": [{\"name\": \"m\", \"va\": \"0xq\", \"size\": \"4K\","
	                      "\"aperture\": \"VIDEO\", \"target\": \"0\"}]}",
	                      &err),
	                 P2PS_EINVAL);
	assert_string_equal(err.msg, "s.json mapping[0] (m): \"va\": '0xq' is not an address or "
	                             "size (0x hex, or decimal with K/M/G/T)");
	assert_int_equal(
	        spec("{\"mappings\": [{\"va\": \"0x1000\", \"size\": \"2M\", \"page_size\":"
	             " \"2M\", \"aperture\": \"VIDEO\", \"target\": \"0\"}]}",
	             &err),
	        P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "multiples of the page size"));
	assert_int_equal(spec("{\"mappings\": [{\"va\": \"0\", \"size\": \"4K\", \"page_size\": "
	                      "\"8K\", \"aperture\": \"VIDEO\", \"target\": \"0\"}]}",
	                      &err),
	                 P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "not a page size of v2-ga"));
	assert_int_equal(spec("{\"mappings\": [{\"va\": \"0\", \"size\": \"4K\", \"aperture\": "
	                      "\"SYS_NONCOH\", \"peer\": 3, \"offset\": \"0\"}]}",
	                      &err),
	                 P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "needs that peer's \"bar1_base\""));
	assert_int_equal(spec("{\"mappings\": [{\"va\": \"0\", \"size\": \"8K\", \"aperture\": "
	                      "\"VIDEO\", \"target\": \"0\"}, {\"va\": \"0x1000\", \"size\": "
	                      "\"4K\", \"aperture\": \"VIDEO\", \"target\": \"0\"}]}",
	                      &err),
	                 P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "overlap"));
	assert_int_equal(spec("{\"chip\": \"GH100\", \"mappings\": [{\"va\": \"0\", \"size\": "
	                      "\"4K\", \"aperture\": \"VIDEO\", \"target\": \"0\"}]}",
	                      &err),
	                 P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "SPEC is for format v3-gh"));
	assert_int_equal(spec("{\"mappings\": [{\"va\": \"0\", \"size\": \"4K\", \"aperture\": "
	                      "\"VIDEO\", \"target\": \"0\", \"kind\": \"NOPE\"}]}",
	                      &err),
	                 P2PS_EINVAL);
	assert_int_equal(spec("{\"mappings\": [{\"va\": \"0\", \"size\": \"4K\", \"aperture\": "
	                      "\"VIDEO\", \"target\": \"0\", \"flags\": {\"dirty\": true}}]}",
	                      &err),
	                 P2PS_EINVAL);
	assert_non_null(strstr(err.msg, "unknown flag 'dirty'"));
	assert_int_equal(spec("{\"mappings\": [{\"va\": \"0xffffffffffff0000\", \"size\": \"1M\", "
	                      "\"aperture\": \"VIDEO\", \"target\": \"0\"}]}",
	                      &err),
	                 P2PS_ERANGE);
	assert_int_equal(spec("{\"mappings\": [{\"va\": \"0\", \"size\": \"4K\", \"aperture\": "
	                      "\"VIDEO\", \"target\": \"0\"}]} trailing",
	                      &err),
	                 P2PS_EINVAL);
	/* a good one, with decimal sizes and hwref aperture names */
	assert_int_equal(spec("{\"chip\": \"ad102\", \"mappings\": [{\"va\": 4096, \"size\": "
	                      "\"24GiB\", \"aperture\": \"SYSTEM_COHERENT_MEMORY\", \"target\": "
	                      "\"0x1000\", \"kind\": \"GENERIC_MEMORY\"}]}",
	                      &err),
	                 0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(text_accepts_log_forms),
	        cmocka_unit_test(text_rejects_with_line_and_column),
	        cmocka_unit_test(raw_mapped_reads_whole_entries),
	        cmocka_unit_test(raw_streamed_keeps_entries_whole),
	        cmocka_unit_test(mem_set_sorted_checked_bounded),
	        cmocka_unit_test(mem_arg_forms),
	        cmocka_unit_test(spec_errors_name_entry_and_key),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
