/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: reading one 32-bit register of a BAR, read-only
 * (include/p2pscope/vfio/mmio.h). The access is a single aligned 32-bit load, as MMIO
 * requires; nothing is ever written. */
#include "p2pscope/vfio/mmio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p2pscope/bytes.h"
#include "p2pscope/parse.h"
#include "vfio_internal.h"
#include "vfio_uapi.h"

int p2ps_vfio_reg_spec_parse(const char *s, unsigned *bar, uint64_t *off, struct p2ps_error *err)
{
	if (!s || !bar || !off)
		return p2ps_error_set(err, P2PS_EINVAL, "register: missing BAR:OFFSET");
	const char *colon = strchr(s, ':');
	if (!colon || colon == s || colon[1] == '\0')
		return p2ps_error_set(err, P2PS_EINVAL, "'%s': expected BAR:OFFSET, e.g. 0:0x0", s);
	char bar_text[8] = ""; /* stays empty (an error) when the BAR part is too long */
	uint64_t b, o;
	size_t n = (size_t)(colon - s);
	if (n < sizeof(bar_text))
		memcpy(bar_text, s, n);
	if (p2ps_parse_uint(bar_text, 5, &b) != 0)
		return p2ps_error_set(err, P2PS_EINVAL, "'%s': BAR must be 0..5", s);
	/* 0x... is hex, a plain number decimal (a leading 0 is not octal). */
	if (p2ps_parse_uint(colon + 1, UINT64_MAX, &o) != 0)
		return p2ps_error_set(err, P2PS_EINVAL, "'%s': bad offset '%s'", s, colon + 1);
	if (o & 3)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "'%s': offset 0x%" PRIx64 " is not 4-byte aligned", s, o);
	*bar = (unsigned)b;
	*off = o;
	return 0;
}

/* One 32-bit MMIO load from a mapping. PCI registers are little-endian; the
 * volatile access keeps the compiler from splitting or repeating it. */
static uint32_t mmio_read32(const void *base, size_t off)
{
	const volatile uint32_t *p = (const volatile uint32_t *)((const uint8_t *)base + off);
	uint32_t v = *p;
	uint8_t b[4];
	memcpy(b, &v, sizeof(b));
	return p2ps_le32(b);
}

static size_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	return ps > 0 ? (size_t)ps : 4096;
}

/* True when [off, off+4) lies inside one of the region's sparse mmap areas, or
 * the region has no sparse capability (then the whole region may be mapped). */
static bool mmappable_at(const struct p2ps_vfio_region *r, uint64_t off)
{
	if (!(r->flags & VFIO_REGION_INFO_FLAG_MMAP))
		return false;
	if (!r->has_sparse)
		return true;
	for (unsigned i = 0; i < r->n_areas; i++) {
		const struct p2ps_vfio_area *a = &r->areas[i];
		if (off >= a->offset && a->size >= 4 && off - a->offset <= a->size - 4)
			return true;
	}
	return false;
}

static int read_reg_vfio(struct p2ps_vfio_device *d, unsigned bar, uint64_t off, uint32_t *value,
                         char *how, size_t how_size, struct p2ps_error *err)
{
	const struct p2ps_vfio_sys *sys = d->v->sys;
	struct p2ps_vfio_region r;
	int rc = p2ps_vfio_region_get(d, bar, &r, err);
	if (rc)
		return rc;
	if (r.size == 0)
		return p2ps_error_set(err, P2PS_ENOENT, "%s: BAR%u is not implemented (size 0)",
		                      d->bdf, bar);
	if (r.size < 4 || off > r.size - 4)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "%s: offset 0x%" PRIx64 " is outside BAR%u (0x%" PRIx64
		                      " bytes)",
		                      d->bdf, off, bar, r.size);
	if (!(r.flags & VFIO_REGION_INFO_FLAG_READ))
		return p2ps_error_set(err, P2PS_EACCES, "%s: BAR%u region is not readable", d->bdf,
		                      bar);
	size_t ps = page_size();
	uint64_t page = off & ~(uint64_t)(ps - 1);
	if (mmappable_at(&r, off)) {
		void *m = sys->mmap(sys->ctx, ps, PROT_READ, MAP_SHARED, d->fd,
		                    (off_t)(r.offset + page));
		if (m != MAP_FAILED) {
			*value = mmio_read32(m, (size_t)(off - page));
			sys->munmap(sys->ctx, m, ps);
			snprintf(how, how_size, "vfio-mmap");
			return 0;
		}
		/* Fall through to pread: some regions refuse mmap at run time. */
	}
	uint8_t b[4];
	ssize_t n = sys->pread(sys->ctx, d->fd, b, sizeof(b), (off_t)(r.offset + off));
	if (n != (ssize_t)sizeof(b)) {
		char what[48];
		snprintf(what, sizeof(what), "bar%u+0x%" PRIx64, bar, off);
		if (n >= 0)
			return p2ps_error_set(err, P2PS_EIO,
			                      "%s: pread(%s): short read (%zd bytes)", d->bdf, what,
			                      n);
		return p2ps_error_set(err, P2PS_EIO, "%s: pread(%s): %s", d->bdf, what,
		                      strerror(errno));
	}
	/* vfio-pci's read path does one access of the requested width and hands
	 * the bytes over in little-endian order. */
	*value = p2ps_le32(b);
	snprintf(how, how_size, "vfio-pread");
	return 0;
}

/* BAR start/end/flags from sysfs's resource file (one line per resource). */
static int sysfs_bar(const struct p2ps_vfio_sys *sys, const char *root, const char *bdf,
                     unsigned bar, uint64_t *start, uint64_t *size, uint64_t *flags,
                     struct p2ps_error *err)
{
	char path[448];
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/resource", root, bdf);
	int fd = sys->open(sys->ctx, path, O_RDONLY);
	if (fd < 0)
		return p2ps_error_set(err, errno == ENOENT ? P2PS_ENOENT : P2PS_EIO, "open(%s): %s",
		                      path, strerror(errno));
	char text[2048];
	ssize_t n = sys->pread(sys->ctx, fd, text, sizeof(text) - 1, 0);
	int e = errno;
	sys->close(sys->ctx, fd);
	if (n < 0)
		return p2ps_error_set(err, P2PS_EIO, "read(%s): %s", path, strerror(e));
	text[n] = '\0';
	const char *line = text;
	for (unsigned i = 0; i < bar && line; i++) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	uint64_t v[3];
	for (int k = 0; k < 3 && line; k++) {
		line += strspn(line, " \t");
		line = p2ps_scan_uint(line, 16, UINT64_MAX, &v[k]);
	}
	if (!line)
		return p2ps_error_set(err, P2PS_EIO, "%s: no line for BAR%u", path, bar);
	uint64_t s = v[0], en = v[1], fl = v[2];
	*start = s;
	*size = (s == 0 && en == 0) ? 0 : en - s + 1;
	*flags = fl;
	return 0;
}

uint64_t p2ps_vfio_sysfs_bar_addr(const struct p2ps_vfio_sys *sys, const char *root,
                                  const char *bdf, unsigned bar)
{
	uint64_t start = 0, size = 0, flags = 0;
	if (sysfs_bar(sys, root, bdf, bar, &start, &size, &flags, NULL) != 0)
		return 0;
	return start;
}

#define IORESOURCE_IO_FLAG 0x100u /* include/linux/ioport.h IORESOURCE_IO */

static int read_reg_sysfs(const struct p2ps_vfio_opts *opts, const char *bdf, unsigned bar,
                          uint64_t off, uint32_t *value, char *how, size_t how_size,
                          struct p2ps_error *err)
{
	const struct p2ps_vfio_sys *sys = (opts && opts->sys) ? opts->sys : p2ps_vfio_sys_default();
	const char *root = (opts && opts->sysfs_root) ? opts->sysfs_root : "/sys";
	uint64_t start, size, flags;
	int rc = sysfs_bar(sys, root, bdf, bar, &start, &size, &flags, err);
	if (rc)
		return p2ps_error_prefix(err, "%s", bdf);
	if (size == 0)
		return p2ps_error_set(err, P2PS_ENOENT,
		                      "%s: BAR%u is not implemented or unassigned", bdf, bar);
	if (flags & IORESOURCE_IO_FLAG)
		return p2ps_error_set(
		        err, P2PS_ENOTSUP,
		        "%s: BAR%u is an I/O-port BAR; only memory BARs can be mapped", bdf, bar);
	if (size < 4 || off > size - 4)
		return p2ps_error_set(err, P2PS_ERANGE,
		                      "%s: offset 0x%" PRIx64 " is outside BAR%u (0x%" PRIx64
		                      " bytes)",
		                      bdf, off, bar, size);
	char path[448];
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/resource%u", root, bdf, bar);
	int fd = sys->open(sys->ctx, path, O_RDONLY);
	if (fd < 0) {
		int e = errno;
		return p2ps_error_set(err, e == EACCES || e == EPERM ? P2PS_EACCES : P2PS_EIO,
		                      "%s: open(%s): %s%s", bdf, path, strerror(e),
		                      e == EACCES || e == EPERM ? " (needs root)" : "");
	}
	size_t ps = page_size();
	uint64_t page = off & ~(uint64_t)(ps - 1);
	void *m = sys->mmap(sys->ctx, ps, PROT_READ, MAP_SHARED, fd, (off_t)page);
	if (m == MAP_FAILED) {
		int e = errno;
		sys->close(sys->ctx, fd);
		return p2ps_error_set(err, P2PS_EIO, "%s: mmap(%s, PROT_READ): %s", bdf, path,
		                      strerror(e));
	}
	*value = mmio_read32(m, (size_t)(off - page));
	sys->munmap(sys->ctx, m, ps);
	sys->close(sys->ctx, fd);
	snprintf(how, how_size, "sysfs-mmap");
	return 0;
}

int p2ps_vfio_read_reg(struct p2ps_vfio_device *d, const struct p2ps_vfio_opts *opts,
                       const struct p2ps_bdf *bdf, unsigned bar, uint64_t off, uint32_t *value,
                       char *how, size_t how_size, struct p2ps_error *err)
{
	char dummy[32];
	if (!how || how_size == 0) {
		how = dummy;
		how_size = sizeof(dummy);
	}
	if (!value || bar > 5 || (off & 3))
		return p2ps_error_set(err, P2PS_EINVAL, "register: bad BAR %u or offset 0x%" PRIx64,
		                      bar, off);
	if (d)
		return read_reg_vfio(d, bar, off, value, how, how_size, err);
	if (!bdf)
		return p2ps_error_set(err, P2PS_EINVAL, "register: no device address given");
	char name[P2PS_BDF_STR_MAX];
	return read_reg_sysfs(opts, p2ps_bdf_format(bdf, name, sizeof(name)), bar, off, value, how,
	                      how_size, err);
}
