/* SPDX-License-Identifier: MIT */
/* A per-boot cache of the NVML facts of a host with fewer than two NVIDIA GPUs
 * (nvfacts.h).
 *
 * NVML costs a fresh process about 21 ms on the one-GPU H100 VM (nvmlInit_v2 12 ms,
 * attaching the GPU 7 ms, nvmlShutdown and dlclose 4 ms): more than a whole `lspci
 * -vvv`. What it tells such a host does not change while the same kernel module and the
 * same NVML library drive the same GPUs: the driver version, each GPU's VRAM and BAR1
 * totals and its NVLink peers (with one GPU there is no other GPU to link to). The key
 * holds everything those facts depend on: the boot (/proc/sys/kernel/random/boot_id),
 * the nvidia module (its version and the inode of /sys/module/nvidia, which a reload
 * renews), how the dynamic loader finds libnvidia-ml.so.1 (LD_LIBRARY_PATH and
 * /etc/ld.so.cache, which ldconfig rewrites when a driver is installed) and each NVIDIA
 * GPU's address, device id, bound driver and BAR sizes; the file also names the library
 * file NVML was loaded from, which must still be the same file (path, device, inode,
 * size, mtime). A hit costs a few stat() calls and no dlopen. What the key cannot see:
 * a GPU reset after an ECC mode change (nvidia-smi -e, then -r) changes the VRAM total;
 * bar-inspect --no-cache asks NVML again (and rewrites the cache).
 *
 * The file: "p2pscope nvml-facts 2", "key KEY", "lib PATH:DEV:INODE:SIZE:MTIME",
 * "driver VERSION", then one line per GPU NVML described: "gpu BDF VRAM_KNOWN VRAM
 * BAR1_KNOWN BAR1 NVLINK_KNOWN N [PEER LINKS]... [switch LINKS]" (the last where the
 * GPU's NVLinks end at NVSwitches). It is read only when it is a regular
 * file of this user that no one else may write. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_internal.h"
#include "io.h"
#include "nvfacts.h"
#include "nvml_api.h"
#include "p2pscope/parse.h"

#define CACHE_MAGIC     "p2pscope nvml-facts 2"
#define CACHE_FILE      "nvml-facts"
#define CACHE_MAX_BYTES (64u << 10)

/* Appends fmt, formatted, at key + *n; false when it no longer fits. */
__attribute__((format(printf, 4, 5))) static bool add(char *key, size_t size, size_t *n,
                                                      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(key + *n, size - *n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= size - *n)
		return false;
	*n += (size_t)w;
	return true;
}

int p2ps_nvml_cache_key(const struct p2ps_host *host, char *key, size_t size)
{
	char boot[64], module[64], ldcache[1024];
	struct stat st;
	size_t n = 0;
	if (p2ps_read_text("", "/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) <= 0)
		return -1;
	if (p2ps_read_text("", "/sys/module/nvidia/version", module, sizeof(module)) <= 0)
		p2ps_strlcpy(module, "none", sizeof(module));
	unsigned long long ino = stat("/sys/module/nvidia", &st) == 0 ? st.st_ino : 0;
	if (p2ps_nvml_file_id("/etc/ld.so.cache", ldcache, sizeof(ldcache)) != 0)
		p2ps_strlcpy(ldcache, "none", sizeof(ldcache));
	const char *ldpath = getenv("LD_LIBRARY_PATH");
	if (!add(key, size, &n, "boot=%s module=%s@%llu ldcache=%s ldpath=%s gpus=", boot, module,
	         ino, ldcache, ldpath ? ldpath : ""))
		return -1;
	for (size_t i = 0; i < host->n_devs; i++) {
		const struct p2ps_dev *d = &host->devs[i];
		if (!p2ps_dev_is_nvidia_gpu(d))
			continue;
		if (!add(key, size, &n, "%s/%04x/%s", d->bdf_str, d->device_id, d->driver))
			return -1;
		for (int b = 0; b < P2PS_HOST_MAX_BARS; b++)
			if (!add(key, size, &n, "/%" PRIx64, d->bars[b].size))
				return -1;
		if (!add(key, size, &n, ";"))
			return -1;
	}
	return 0;
}

/* "lib PATH:..." names a library file that is still the same file. */
static bool same_library(const char *line)
{
	char now[1200];
	if (strncmp(line, "lib ", 4))
		return false;
	const char *id = line + 4;
	/* The path ends where the identity's four fields begin. */
	const char *colon = id + strlen(id);
	for (int k = 0; k < 4 && colon; k++)
		colon = memrchr(id, ':', (size_t)(colon - id));
	if (!colon || colon == id || (size_t)(colon - id) >= 1024)
		return false;
	char path[1024];
	memcpy(path, id, (size_t)(colon - id));
	path[colon - id] = '\0';
	return p2ps_nvml_file_id(path, now, sizeof(now)) == 0 && !strcmp(now, id);
}

/* The next blank-separated word of *p into buf (at most size - 1 bytes); false when
 * there is none or it is longer. */
static bool word(const char **p, char *buf, size_t size)
{
	const char *s = *p + strspn(*p, " \t");
	size_t n = strcspn(s, " \t");
	if (!n || n >= size)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*p = s + n;
	return true;
}

/* The next word as a decimal number no larger than max. */
static bool number(const char **p, uint64_t max, uint64_t *v)
{
	char buf[24];
	return word(p, buf, sizeof(buf)) && p2ps_parse_uint(buf, max, v) == 0;
}

/* One "gpu ..." line into g (its device's facts); false when malformed. */
static bool parse_gpu(const char *line, struct p2ps_bdf *bdf, struct p2ps_gpu_facts *g)
{
	char addr[32];
	uint64_t vk, bk, nk, np, vram, bar1;
	const char *p = line + 3;
	if (strncmp(line, "gpu", 3) || !word(&p, addr, sizeof(addr)) ||
	    p2ps_bdf_parse(addr, bdf) != 0 || !number(&p, 1, &vk) ||
	    !number(&p, UINT64_MAX, &vram) || !number(&p, 1, &bk) ||
	    !number(&p, UINT64_MAX, &bar1) || !number(&p, 1, &nk) ||
	    !number(&p, P2PS_HOST_MAX_NVLINK, &np))
		return false;
	memset(g, 0, sizeof(*g));
	g->source = P2PS_GPU_SRC_NVML;
	g->vram_known = vk == 1;
	g->vram_bytes = vram;
	g->bar1_known = bk == 1;
	g->bar1_total_bytes = bar1;
	g->nvlink_known = nk == 1;
	for (uint64_t k = 0; k < np; k++) {
		uint64_t links;
		if (!word(&p, addr, sizeof(addr)) ||
		    p2ps_bdf_parse(addr, &g->nvlink_peers[k].bdf) != 0 ||
		    !number(&p, INT_MAX, &links))
			return false;
		g->nvlink_peers[k].links = (int)links;
	}
	g->n_nvlink_peers = (int)np;
	/* Then, where the GPU's links end at NVSwitches, " switch N" (files written before
	 * it was kept have none). */
	uint64_t sw;
	const char *q;
	if (!strncmp(p, " switch ", 8) &&
	    (q = p2ps_scan_uint(p + 8, 10, P2PS_HOST_MAX_NVLINK, &sw)) && sw > 0) {
		g->nvswitch_links = (int)sw;
		p = q;
	}
	return *p == '\0';
}

/* One line after the header lines into the devices' facts (facts[i], set[i] for the
 * model's device i); false when malformed or naming a device twice or not at all. */
static bool parse_line(const struct p2ps_host *host, const char *l, struct p2ps_gpu_facts *facts,
                       bool *set)
{
	struct p2ps_bdf bdf;
	struct p2ps_gpu_facts g;
	if (!parse_gpu(l, &bdf, &g))
		return false;
	const struct p2ps_dev *d = p2ps_host_find(host, &bdf);
	if (!d || set[d - host->devs])
		return false;
	facts[d - host->devs] = g;
	set[d - host->devs] = true;
	return true;
}

bool p2ps_nvml_cache_parse(struct p2ps_host *host, const char *text, const char *key)
{
	size_t n = host->n_devs ? host->n_devs : 1;
	char *copy = strdup(text);
	struct p2ps_gpu_facts *facts = calloc(n, sizeof(*facts));
	bool *set = calloc(n, sizeof(*set));
	char driver[sizeof(host->nvidia.nvml_driver_version)] = "";
	bool ok = copy && facts && set;
	char *save = NULL;
	int line = 0;
	for (char *l = ok ? strtok_r(copy, "\n", &save) : NULL; ok && l;
	     l = strtok_r(NULL, "\n", &save), line++) {
		if (line == 0) {
			ok = !strcmp(l, CACHE_MAGIC);
		} else if (line == 1) {
			ok = !strncmp(l, "key ", 4) && !strcmp(l + 4, key);
		} else if (line == 2) {
			ok = same_library(l);
		} else if (line == 3) {
			ok = !strncmp(l, "driver ", 7) && strlen(l + 7) < sizeof(driver);
			if (ok)
				p2ps_strlcpy(driver, l + 7, sizeof(driver));
		} else {
			ok = parse_line(host, l, facts, set);
		}
	}
	ok = ok && line >= 4;
	for (size_t i = 0; ok && i < host->n_devs; i++)
		if (set[i])
			host->devs[i].gpu = facts[i];
	if (ok) {
		host->nvidia.nvml_loaded = true;
		p2ps_strlcpy(host->nvidia.nvml_driver_version, driver,
		             sizeof(host->nvidia.nvml_driver_version));
	}
	free(copy);
	free(facts);
	free(set);
	return ok;
}

/* $XDG_CACHE_HOME/p2pscope (an absolute XDG_CACHE_HOME) or $HOME/.cache/p2pscope, made
 * (0700) when create is set. false when there is none. */
static bool cache_dir(char *out, size_t size, bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[4096];
	int w;
	if (xdg && xdg[0] == '/')
		w = snprintf(base, sizeof(base), "%s", xdg);
	else if (home && home[0] == '/')
		w = snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return false;
	if (w < 0 || (size_t)w >= sizeof(base))
		return false;
	w = snprintf(out, size, "%s/p2pscope", base);
	if (w < 0 || (size_t)w >= size)
		return false;
	if (create && ((mkdir(base, 0700) != 0 && errno != EEXIST) ||
	               (mkdir(out, 0700) != 0 && errno != EEXIST)))
		return false;
	return true;
}

bool p2ps_nvml_cache_read(struct p2ps_host *host, const char *key)
{
	char dir[4096], path[4200], *text = NULL;
	struct stat st;
	if (!cache_dir(dir, sizeof(dir), false))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, CACHE_FILE);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	          !(st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_size < CACHE_MAX_BYTES &&
	          (text = calloc(1, (size_t)st.st_size + 1)) &&
	          read(fd, text, (size_t)st.st_size) == st.st_size;
	close(fd);
	ok = ok && p2ps_nvml_cache_parse(host, text, key);
	free(text);
	return ok;
}

/* The file's text: header lines, then one line per GPU NVML described. */
static bool format_cache(const struct p2ps_host *host, const char *key, const char *lib, char *out,
                         size_t size)
{
	size_t n = 0;
	if (!add(out, size, &n, "%s\nkey %s\nlib %s\ndriver %s\n", CACHE_MAGIC, key, lib,
	         host->nvidia.nvml_driver_version))
		return false;
	for (size_t i = 0; i < host->n_devs; i++) {
		const struct p2ps_dev *d = &host->devs[i];
		const struct p2ps_gpu_facts *g = &d->gpu;
		if (g->source != P2PS_GPU_SRC_NVML)
			continue;
		if (!add(out, size, &n, "gpu %s %d %" PRIu64 " %d %" PRIu64 " %d %d", d->bdf_str,
		         g->vram_known, g->vram_bytes, g->bar1_known, g->bar1_total_bytes,
		         g->nvlink_known, g->n_nvlink_peers))
			return false;
		for (int k = 0; k < g->n_nvlink_peers; k++) {
			char b[P2PS_BDF_STR_MAX];
			if (!add(out, size, &n, " %s %d",
			         p2ps_bdf_format(&g->nvlink_peers[k].bdf, b, sizeof(b)),
			         g->nvlink_peers[k].links))
				return false;
		}
		if (g->nvswitch_links > 0 && !add(out, size, &n, " switch %d", g->nvswitch_links))
			return false;
		if (!add(out, size, &n, "\n"))
			return false;
	}
	return true;
}

void p2ps_nvml_cache_write(const struct p2ps_host *host, const char *key, const char *lib)
{
	char dir[4096], path[4200], tmp[4200];
	char *text = malloc(CACHE_MAX_BYTES);
	if (!text || !format_cache(host, key, lib, text, CACHE_MAX_BYTES) ||
	    !cache_dir(dir, sizeof(dir), true)) {
		free(text);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, CACHE_FILE);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, CACHE_FILE);
	int fd = mkstemp(tmp); /* mode 0600 */
	if (fd >= 0) {
		size_t len = strlen(text);
		bool ok = write(fd, text, len) == (ssize_t)len;
		/* A half-written file is never read: it replaces the old one whole, or not
		 * at all. */
		if (close(fd) != 0 || !ok || rename(tmp, path) != 0)
			unlink(tmp);
	}
	free(text);
}
