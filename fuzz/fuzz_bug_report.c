/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost z
/* libFuzzer target for nvidia-bug-report.log and .log.gz. The input is cut into sections
 * at NUL bytes (64 at most); each becomes a section of a bug report (the separator line, a
 * header the section's first byte picks from the headers nvidia-bug-report.sh writes, the
 * rest as its output) after the report's prologue. The log goes through the whole
 * pipeline with the checks of fuzz_paste, then compressed as the script compresses it (a
 * gzip member per section, appended), which must read as the same evidence (lines,
 * blocks, GPUs, devices). Input that starts as gzip data itself is read as a .gz: damaged
 * streams fail with a one-line message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_paste_checks.h"
#include "p2pscope/paste.h"

#define MAX_SECTIONS 64

static const char *const headers[] = {
        "/usr/bin/lspci -nn",
        "/usr/bin/lspci -d \"10de:*\" -v -xxx",
        "/usr/bin/lspci -t",
        "/usr/bin/lspci -vvv",
        "/usr/bin/nvidia-smi --query",
        "dmesg:",
        "Scanning kernel log files for NVIDIA kernel messages:",
        "journalctl -b -0:",
        "*** /proc/cmdline",
        "*** /proc/modules",
        "*** /proc/cpuinfo",
        "*** /proc/driver/nvidia/./version",
        "*** /proc/driver/nvidia/./gpus/0000:01:00.0/information",
        "*** /proc/driver/nvidia/./params",
        "*** /etc/issue",
        "/sbin/modinfo nvidia | grep vermagic",
        "*** ls: /sys/bus/pci/devices",
        "",
};

static const char prologue[] =
        "____________________________________________\n\n"
        "Start of NVIDIA bug report log file.  Please include this file, along\n"
        "with a detailed description of your problem, when reporting a graphics\n"
        "driver bug via the NVIDIA Linux forum (see devtalk.nvidia.com)\n"
        "or by sending email to 'linux-bugs@nvidia.com'.\n\n"
        "nvidia-bug-report.sh Version: 22353489\n\n";
static const char sep[] = "\n____________________________________________\n\n";

/* One gzip member of in[0..n) appended at out + *len (room checked by the caller). */
static bool member(const char *in, size_t n, unsigned char *out, size_t *len, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return false;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out + *len;
	z.avail_out = (uInt)(cap - *len);
	int rc = deflate(&z, Z_FINISH);
	*len += z.total_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END;
}

static void same(const char *log, size_t n, const unsigned char *gz, size_t zn)
{
	struct p2ps_paste a, b;
	struct p2ps_error ea = {0}, eb = {0};
	int ra = p2ps_paste_parse(log, n, "log", &a, &ea);
	int rb = p2ps_paste_parse((const char *)gz, zn, "log.gz", &b, &eb);
	if (ra != rb)
		abort();
	if (ra == 0 && (a.lines != b.lines || a.n_blocks != b.n_blocks || a.n_gpus != b.n_gpus ||
	                a.n_devs != b.n_devs || a.bug_report != b.bug_report))
		abort();
	p2ps_paste_free(&a);
	p2ps_paste_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		fuzz_paste_pipeline((const char *)data, size);
		return 0;
	}
	const size_t n_head = sizeof(headers) / sizeof(headers[0]);
	size_t cap = sizeof(prologue) + size * (sizeof(sep) + 64) + 64;
	char *log = malloc(cap);
	size_t *starts = malloc((size + 2) * sizeof(*starts));
	if (!log || !starts) {
		free(log);
		free(starts);
		return 0;
	}
	size_t len = sizeof(prologue) - 1, n_sec = 0;
	memcpy(log, prologue, len);
	for (size_t i = 0; i < size;) {
		starts[n_sec++] = len;
		const char *h = headers[data[i++] % n_head];
		memcpy(log + len, sep, sizeof(sep) - 1);
		len += sizeof(sep) - 1;
		memcpy(log + len, h, strlen(h));
		len += strlen(h);
		log[len++] = '\n';
		log[len++] = '\n';
		/* At most MAX_SECTIONS sections: later NUL bytes end lines instead. */
		while (i < size && (data[i] != 0 || n_sec >= MAX_SECTIONS)) {
			log[len++] = data[i] ? (char)data[i] : '\n';
			i++;
		}
		i += i < size;
	}
	memcpy(log + len, sep, sizeof(sep) - 1);
	len += sizeof(sep) - 1;
	starts[n_sec] = len;
	fuzz_paste_pipeline(log, len);
	/* The .gz: the prologue, then a member per section. */
	size_t zcap = compressBound((uLong)len) + (n_sec + 2) * 64;
	unsigned char *gz = malloc(zcap);
	size_t zn = 0;
	bool ok = gz != NULL && member(log, starts[0] ? starts[0] : len, gz, &zn, zcap);
	for (size_t s = 0; ok && s < n_sec; s++)
		ok = member(log + starts[s], starts[s + 1] - starts[s], gz, &zn, zcap);
	if (ok)
		same(log, len, gz, zn);
	free(gz);
	free(starts);
	free(log);
	return 0;
}
