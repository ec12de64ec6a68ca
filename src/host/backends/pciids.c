/* SPDX-License-Identifier: MIT */
/* Device names from pci.ids in one pass (pciids.h). The line syntax is pci.ids's own,
 * as libpci reads it:
 *
 *   VVVV  vendor name                 top level
 *   \tDDDD  device name               under a vendor
 *   \t\tSVSV SDSD  subsystem name     under a device
 *   S SVSV                            top level: a block of generic subsystem names,
 *   \tSDSD  subsystem name              keyed by subsystem vendor and device
 *   C CC  class name, X ...           other top-level blocks (classes; reserved letters)
 *
 * A line ends at its first CR or LF and loses one trailing blank; blank lines and lines
 * whose first non-blank character is '#' are skipped; the nesting depth is the number of
 * leading tabs; a name follows its ids after blanks. */
#include "pciids.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define PCIIDS_MAX_BYTES (64u << 20) /* the list is about 1.4 MB */

/* What a block of the list is, as far as the lookups care. */
enum block { B_OTHER, B_VENDOR, B_DEVICE, B_SUBSYS, B_GENERIC };

/* A name in the text: it ends at the end of its line. */
struct name {
	const char *s;
	size_t len;
};

/* The names found for one device. */
struct found {
	struct name vendor, device, subsys, generic;
};

struct scan {
	struct p2ps_dev *devs;
	size_t n;
	struct found *f;
	uint8_t want_vendor[65536 / 8];  /* vendor ids of the devices */
	uint8_t want_device[65536 / 8];  /* their device ids */
	uint8_t want_generic[65536 / 8]; /* their subsystem vendor ids */
	enum block block;
	unsigned id1, id2; /* vendor (or subsystem vendor of a generic block), device */
	bool wanted;       /* the current top-level block holds a name we need */
	bool dev_wanted;   /* so does the current device (its subsystem lines) */
};

static void set_bit(uint8_t *set, unsigned id)
{
	set[id >> 3] |= (uint8_t)(1u << (id & 7));
}

static bool bit(const uint8_t *set, unsigned id)
{
	return set[id >> 3] & (1u << (id & 7));
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* cnt hex digits at p, or -1. */
static int hex(const char *p, int cnt)
{
	int x = 0;
	for (int i = 0; i < cnt; i++) {
		char c = p[i];
		int v = c >= '0' && c <= '9'   ? c - '0'
		        : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10
		                               : -1;
		if (v < 0)
			return -1;
		x = x << 4 | v;
	}
	return x;
}

/* The name after the ids, up to end; none (NULL) when empty (libpci rejects such a
 * line). */
static struct name name_at(const char *p, const char *end)
{
	while (p < end && blank(*p))
		p++;
	return (struct name){p < end ? p : NULL, (size_t)(end - p)};
}

/* Records name as the first answer for each device whose ids match: what is the vendor
 * (v), device (v, d), per-device subsystem (v, d, sv, sd) or generic subsystem (sv, sd)
 * name. The first entry wins (libpci rejects a list with a second one). */
static bool record(struct scan *s, enum block what, unsigned sv, unsigned sd, struct name name)
{
	bool any = false;
	for (size_t i = 0; name.s && i < s->n; i++) {
		const struct p2ps_dev *d = &s->devs[i];
		struct found *f = &s->f[i];
		bool dev = d->vendor_id == s->id1 && d->device_id == s->id2;
		bool sub = d->subsys_vendor_id == sv && d->subsys_id == sd;
		any |= dev;
		if (what == B_VENDOR && d->vendor_id == s->id1 && !f->vendor.s)
			f->vendor = name;
		else if (what == B_DEVICE && dev && !f->device.s)
			f->device = name;
		else if (what == B_SUBSYS && dev && sub && !f->subsys.s)
			f->subsys = name;
		else if (what == B_GENERIC && d->subsys_vendor_id == s->id1 &&
		         d->subsys_id == s->id2 && !f->generic.s)
			f->generic = name;
	}
	return any;
}

static void top_level(struct scan *s, const char *p, const char *end)
{
	int id;
	s->wanted = false;
	s->dev_wanted = false;
	s->block = B_OTHER;
	if (end - p >= 2 && p[0] == 'S' && p[1] == ' ') {
		if (end - p != 6 || (id = hex(p + 2, 4)) < 0)
			return;
		s->block = B_GENERIC;
		s->id1 = (unsigned)id;
		s->wanted = bit(s->want_generic, s->id1);
		return;
	}
	/* Classes (C), and blocks under other capital letters that libpci skips. */
	if (end - p >= 2 && p[0] >= 'A' && p[0] <= 'Z' && p[1] == ' ')
		return;
	if (end - p < 5 || (id = hex(p, 4)) < 0 || !blank(p[4]))
		return;
	s->block = B_VENDOR;
	s->id1 = (unsigned)id;
	s->wanted = bit(s->want_vendor, s->id1);
	if (s->wanted)
		record(s, B_VENDOR, 0, 0, name_at(p + 5, end));
}

static void nested(struct scan *s, const char *p, const char *end, unsigned depth)
{
	int a, b;
	ptrdiff_t n = end - p;
	if (depth == 1 && (s->block == B_VENDOR || s->block == B_DEVICE || s->block == B_SUBSYS)) {
		if (n < 5 || (a = hex(p, 4)) < 0 || !blank(p[4]))
			return;
		s->block = B_DEVICE;
		s->id2 = (unsigned)a;
		s->dev_wanted = bit(s->want_device, s->id2) &&
		                record(s, B_DEVICE, 0, 0, name_at(p + 5, end));
	} else if (depth == 1 && s->block == B_GENERIC) {
		if (n < 5 || (a = hex(p, 4)) < 0 || !blank(p[4]))
			return;
		s->id2 = (unsigned)a;
		record(s, B_GENERIC, 0, 0, name_at(p + 5, end));
	} else if (depth == 2 && (s->block == B_DEVICE || s->block == B_SUBSYS)) {
		/* Subsystems of a device none of ours is: nothing to read. */
		if (!s->dev_wanted || n < 10 || (a = hex(p, 4)) < 0 || !blank(p[4]) ||
		    (b = hex(p + 5, 4)) < 0 || !blank(p[9]))
			return;
		s->block = B_SUBSYS;
		record(s, B_SUBSYS, (unsigned)a, (unsigned)b, name_at(p + 10, end));
	}
}

/* One line [p, end), without its line break. */
static void line(struct scan *s, const char *p, const char *end)
{
	if (end > p && blank(end[-1]))
		end--;
	const char *q = p;
	while (q < end && blank(*q))
		q++;
	if (q == end || *q == '#')
		return;
	unsigned depth = 0;
	while (p + depth < end && p[depth] == '\t')
		depth++;
	if (!depth)
		top_level(s, p, end);
	else if (s->wanted)
		nested(s, p + depth, end, depth);
}

/* A name as libpci's lookup hands it over in a buffer of the model's size: cut, with
 * its last three characters turned into "..." when it does not fit. */
static void put_name(char *dst, struct name name)
{
	size_t len = name.len;
	if (len < P2PS_HOST_NAME_MAX) {
		memcpy(dst, name.s, len);
		dst[len] = '\0';
		return;
	}
	memcpy(dst, name.s, P2PS_HOST_NAME_MAX - 1);
	dst[P2PS_HOST_NAME_MAX - 1] = '\0';
	memset(dst + P2PS_HOST_NAME_MAX - 4, '.', 3);
}

/* libpci's subsystem lookup order: the device's own entry (for nonzero ids), the
 * generic block's entry, and the device's name when the subsystem is the device. */
static void fill_dev(struct p2ps_dev *d, const struct found *f)
{
	if (f->vendor.s)
		put_name(d->vendor_name, f->vendor);
	if (f->device.s)
		put_name(d->device_name, f->device);
	if (!d->subsys_vendor_id)
		return;
	struct name sub = d->vendor_id && d->device_id ? f->subsys : (struct name){0};
	if (!sub.s)
		sub = f->generic;
	if (!sub.s && d->vendor_id == d->subsys_vendor_id && d->device_id == d->subsys_id)
		sub = f->device;
	if (sub.s)
		put_name(d->subsys_name, sub);
}

/* The first line after p's with fewer than depth (1 or 2) leading tabs, or end: the next
 * line that matters past the lines under a vendor or device nobody needs, which are
 * nine in ten of the list. Sixteen bytes at a time where SSE2 is there (every x86-64):
 * a line break not followed by depth tabs. */
static const char *skip_lines(const char *p, const char *end, int depth)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t');
	while (end - p > 17) {
		__m128i a = _mm_loadu_si128((const __m128i *)p);
		__m128i t = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 1)), tab);
		if (depth == 2)
			t = _mm_and_si128(
			        t, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 2)), tab));
		unsigned m =
		        (unsigned)_mm_movemask_epi8(_mm_andnot_si128(t, _mm_cmpeq_epi8(a, nl)));
		if (m)
			return p + __builtin_ctz(m) + 1;
		p += 16;
	}
#endif
	for (; p < end; p++) {
		if (*p != '\n')
			continue;
		if (p + 1 == end || p[1] != '\t' || (depth == 2 && (p + 2 == end || p[2] != '\t')))
			return p + 1;
	}
	return end;
}

/* Whether p starts a device line of a device none of ours is (then it and its subsystem
 * lines need no reading); the block becomes that device's, as reading it would make it. */
static bool foreign_device(struct scan *s, const char *p, const char *end)
{
	int id;
	if (end - p < 7 || p[1] == '\t' ||
	    (s->block != B_VENDOR && s->block != B_DEVICE && s->block != B_SUBSYS) ||
	    (id = hex(p + 1, 4)) < 0 || !blank(p[5]) || bit(s->want_device, (unsigned)id))
		return false;
	s->block = B_DEVICE;
	s->id2 = (unsigned)id;
	s->dev_wanted = false;
	return true;
}

void p2ps_pciids_fill_text(const char *text, size_t len, struct p2ps_dev *devs, size_t n)
{
	struct scan *s = calloc(1, sizeof(*s));
	struct found *f = calloc(n ? n : 1, sizeof(*f));
	if (!s || !f) {
		free(s);
		free(f);
		return;
	}
	s->devs = devs;
	s->n = n;
	s->f = f;
	for (size_t i = 0; i < n; i++) {
		set_bit(s->want_vendor, devs[i].vendor_id);
		set_bit(s->want_device, devs[i].device_id);
		if (devs[i].subsys_vendor_id)
			set_bit(s->want_generic, devs[i].subsys_vendor_id);
	}
	const char *p = text, *end = text + len;
	while (p < end) {
		/* Lines under a block or device we do not need are skipped unread. */
		if (*p == '\t' && !s->wanted) {
			p = skip_lines(p, end, 1);
			continue;
		}
		if (*p == '\t' && (foreign_device(s, p, end) ||
		                   (end - p > 1 && p[1] == '\t' && !s->dev_wanted))) {
			p = skip_lines(p, end, 2);
			continue;
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *cr = memchr(p, '\r', (size_t)(eol - p));
		line(s, p, cr ? cr : eol);
		p = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < n; i++)
		fill_dev(&devs[i], &f[i]);
	free(f);
	free(s);
}

enum p2ps_pciids_result p2ps_pciids_fill(const char *id_file_name, struct p2ps_dev *devs, size_t n)
{
	char plain[4096];
	size_t l = id_file_name ? strlen(id_file_name) : 0;
	if (!l || l >= sizeof(plain))
		return P2PS_PCIIDS_USE_LIBPCI;
	memcpy(plain, id_file_name, l + 1);
	/* libpci with zlib opens NAME.gz, and NAME when that fails. */
	if (l > 3 && !strcmp(plain + l - 3, ".gz")) {
		int gz = open(plain, O_RDONLY | O_CLOEXEC);
		if (gz >= 0) {
			close(gz);
			return P2PS_PCIIDS_USE_LIBPCI;
		}
		plain[l - 3] = '\0';
	}
	int fd = open(plain, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return P2PS_PCIIDS_NO_FILE;
	/* Mapped, not read: the list is used in place, straight from the page cache. */
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > PCIIDS_MAX_BYTES) {
		close(fd);
		return P2PS_PCIIDS_USE_LIBPCI;
	}
	size_t len = (size_t)st.st_size;
	const char *text = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (!len)
		return P2PS_PCIIDS_DONE; /* an empty list names nothing */
	if (text == MAP_FAILED)
		return P2PS_PCIIDS_USE_LIBPCI;
	/* A compressed list under the plain name: zlib reads it, we do not. */
	if (len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b) {
		munmap((void *)text, len);
		return P2PS_PCIIDS_USE_LIBPCI;
	}
	p2ps_pciids_fill_text(text, len, devs, n);
	munmap((void *)text, len);
	return P2PS_PCIIDS_DONE;
}
