/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: the kernel behind struct p2ps_vfio_sys, and the helpers every VFIO file
 * uses to word a failed call. */
#include "p2pscope/vfio/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vfio_internal.h"
#include "vfio_uapi.h"

/* ---- the real kernel ------------------------------------------------------------ */

static int sys_open(void *ctx, const char *path, int flags)
{
	(void)ctx;
	return open(path, flags | O_CLOEXEC);
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

static int sys_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	(void)ctx;
	return ioctl(fd, req, arg);
}

static ssize_t sys_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
	(void)ctx;
	return pread(fd, buf, len, off);
}

static void *sys_mmap(void *ctx, size_t len, int prot, int flags, int fd, off_t off)
{
	(void)ctx;
	return mmap(NULL, len, prot, flags, fd, off);
}

static int sys_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx;
	return munmap(addr, len);
}

/* In struct p2ps_vfio_sys's order (each slot's type differs, so a slip does not build). */
static const struct p2ps_vfio_sys vfio_sys_kernel = {sys_open, sys_close,  sys_ioctl, sys_pread,
                                                     sys_mmap, sys_munmap, NULL};

const struct p2ps_vfio_sys *p2ps_vfio_sys_default(void)
{
	return &vfio_sys_kernel;
}

bool p2ps_vfio_cdev_compiled(void)
{
	return P2PS_HAVE_VFIO_CDEV != 0;
}

int p2ps_vfio_sys_fail(struct p2ps_error *err, int e, const char *who, const char *call,
                       const char *what)
{
	int code =
	        (e == EACCES || e == EPERM) ? P2PS_EACCES : (e == ENOENT ? P2PS_ENOENT : P2PS_EIO);
	p2ps_error_set(err, code, "%s: %s(%s): %s", who, call, what, strerror(e));
	errno = e; /* callers that record the errno itself read it after this */
	return code;
}

void p2ps_vfio_close_fd(const struct p2ps_vfio_sys *sys, int *fd)
{
	if (*fd >= 0)
		sys->close(sys->ctx, *fd);
	*fd = -1;
}
