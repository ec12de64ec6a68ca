/* SPDX-License-Identifier: MIT */
/* The Linux backend: open(2), ioctl(2), mmap(2) on the real device nodes, with every path
 * under a root prefix (tests hand it a directory tree: no /dev/nvidiactl, a version file of
 * an unknown series, no /proc/driver/nvidia at all). */
#include "rm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* _IOWR('F', nr, size): the driver checks size against the struct it expects. */
#define RM_IOCTL_MAGIC 'F'

int p2ps_rm_open_error(struct p2ps_error *err, const char *path, int errno_value)
{
	int code = errno_value == ENOENT                           ? P2PS_ENOENT
	           : errno_value == EACCES || errno_value == EPERM ? P2PS_EACCES
	                                                           : P2PS_EIO;
	const char *hint = errno_value == ENOENT ? " (is the nvidia kernel module loaded and its "
	                                           "device nodes created?)"
	                   : code == P2PS_EACCES
	                           ? " (the device node's permissions exclude this user)"
	                           : "";
	return p2ps_error_set(err, code, "cannot open %s: %s%s", path, strerror(errno_value), hint);
}

static void full_path(const struct p2ps_rm_linux *l, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", l->root, path);
}

static int lx_open(void *ctx, const char *path, struct p2ps_error *err)
{
	char p[640];
	full_path(ctx, path, p, sizeof(p));
	int fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return p2ps_rm_open_error(err, path, errno);
	return fd;
}

static void lx_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

static int lx_escape(void *ctx, struct p2ps_rm_call *c, struct p2ps_error *err)
{
	(void)ctx;
	unsigned long req = _IOC(_IOC_READ | _IOC_WRITE, RM_IOCTL_MAGIC, c->nr, c->size);
	if (ioctl(c->fd, req, c->arg) < 0)
		return p2ps_error_set(err,
		                      errno == EACCES || errno == EPERM ? P2PS_EACCES : P2PS_EIO,
		                      "%s: ioctl(0x%lx) failed: %s", c->what, req, strerror(errno));
	return 0;
}

static int lx_mmap_ro(void *ctx, int fd, size_t len, const void **out, struct p2ps_error *err)
{
	(void)ctx;
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return p2ps_error_set(err, P2PS_EIO, "mmap of %zu bytes (read-only) failed: %s",
		                      len, strerror(errno));
	*out = p;
	return 0;
}

static void lx_munmap(void *ctx, const void *addr, size_t len)
{
	(void)ctx;
	munmap((void *)(uintptr_t)addr, len);
}

static int lx_read_text(void *ctx, const char *path, char *buf, size_t cap, struct p2ps_error *err)
{
	char p[640];
	full_path(ctx, path, p, sizeof(p));
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return p2ps_error_set(err, e == ENOENT ? P2PS_ENOENT : P2PS_EIO,
		                      "cannot read %s: %s", path, strerror(e));
	}
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return p2ps_error_set(err, P2PS_EIO, "cannot read %s: %s", path,
			                      strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (int)n;
}

static bool lx_is_root(void *ctx)
{
	const struct p2ps_rm_linux *l = ctx;
	return l->is_root_override >= 0 ? l->is_root_override != 0 : geteuid() == 0;
}

static const struct p2ps_rm_sys_ops linux_ops = {
        .name = "linux",
        .open = lx_open,
        .close = lx_close,
        .escape = lx_escape,
        .mmap_ro = lx_mmap_ro,
        .munmap = lx_munmap,
        .read_text = lx_read_text,
        .is_root = lx_is_root,
};

void p2ps_rm_sys_linux(struct p2ps_rm_sys *sys, struct p2ps_rm_linux *ctx, const char *root_prefix,
                       int is_root_override)
{
	snprintf(ctx->root, sizeof(ctx->root), "%s", root_prefix ? root_prefix : "");
	ctx->is_root_override = is_root_override;
	sys->ops = &linux_ops;
	sys->ctx = ctx;
}
