/* p2pscope: VFIO sessions — opening devices bound to vfio-pci and asking the
 * kernel what it exposes (legacy container/group flow and cdev/iommufd flow).
 *
 * Every system call goes through struct p2ps_vfio_sys so the unit tests can play
 * the kernel. Every failure names the call, the object and strerror(errno).
 * Opening a device can reset it; nothing here writes to a device.
 */
#include "p2pscope/vfio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host_internal.h"
#include "sysfs_util.h"
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

static const struct p2ps_vfio_sys vfio_sys_kernel = {
        .open = sys_open,
        .close = sys_close,
        .ioctl = sys_ioctl,
        .pread = sys_pread,
        .mmap = sys_mmap,
        .munmap = sys_munmap,
        .ctx = NULL,
};

const struct p2ps_vfio_sys *p2ps_vfio_sys_default(void)
{
	return &vfio_sys_kernel;
}

const char *p2ps_vfio_flow_name(enum p2ps_vfio_flow flow)
{
	switch (flow) {
	case P2PS_VFIO_FLOW_AUTO: return "auto";
	case P2PS_VFIO_FLOW_LEGACY: return "legacy";
	case P2PS_VFIO_FLOW_CDEV: return "cdev";
	}
	return "unknown";
}

bool p2ps_vfio_cdev_compiled(void)
{
	return P2PS_HAVE_VFIO_CDEV != 0;
}

/* ---- small helpers ---------------------------------------------------------------- */

static int sys_fail(struct p2ps_error *err, int e, const char *who, const char *call,
                    const char *what)
{
	int code =
	        (e == EACCES || e == EPERM) ? P2PS_EACCES : (e == ENOENT ? P2PS_ENOENT : P2PS_EIO);
	p2ps_error_set(err, code, "%s: %s(%s): %s", who, call, what, strerror(e));
	errno = e; /* callers that record the errno itself read it after this */
	return code;
}

/* Accepts "DDDD:BB:DD.F" or "BB:DD.F" (hex) and writes the long form. */
int p2ps_vfio_bdf_normalize(const char *in, char *out, size_t size, struct p2ps_error *err)
{
	struct p2ps_bdf b;
	if (!in)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: no device address given");
	/* The host model's parser: 32-bit domains (VMD), range checks on dev and fn. */
	if (p2ps_bdf_parse(in, &b) != 0)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "vfio: '%s' is not a PCI address (DDDD:BB:DD.F)", in);
	p2ps_bdf_format(&b, out, size);
	return 0;
}

static void close_fd(const struct p2ps_vfio_sys *sys, int *fd)
{
	if (*fd >= 0)
		sys->close(sys->ctx, *fd);
	*fd = -1;
}

/* ---- session ---------------------------------------------------------------------- */

int p2ps_vfio_open(struct p2ps_vfio *v, const struct p2ps_vfio_opts *opts, struct p2ps_error *err)
{
	if (!v)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: NULL session");
	memset(v, 0, sizeof(*v));
	v->sys = (opts && opts->sys) ? opts->sys : p2ps_vfio_sys_default();
	snprintf(v->sysfs_root, sizeof(v->sysfs_root), "%s",
	         (opts && opts->sysfs_root) ? opts->sysfs_root : "/sys");
	snprintf(v->dev_root, sizeof(v->dev_root), "%s",
	         (opts && opts->dev_root) ? opts->dev_root : "/dev");
	v->flow_req = opts ? opts->flow : P2PS_VFIO_FLOW_AUTO;
	v->container_fd = -1;
	v->iommufd = -1;
	for (int i = 0; i < P2PS_VFIO_MAX_GROUPS; i++)
		v->groups[i].fd = -1;
	if (v->flow_req == P2PS_VFIO_FLOW_CDEV && !P2PS_HAVE_VFIO_CDEV)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "vfio: this build has no VFIO cdev/iommufd UAPI definitions");
	return 0;
}

void p2ps_vfio_close(struct p2ps_vfio *v)
{
	if (!v || !v->sys)
		return;
	for (int i = 0; i < v->n_groups; i++)
		close_fd(v->sys, &v->groups[i].fd);
	v->n_groups = 0;
	close_fd(v->sys, &v->container_fd);
	close_fd(v->sys, &v->iommufd);
	v->iommu_type = 0;
	v->ioas_id = 0;
}

/* Opens /dev/vfio/vfio, checks the API version and records the extensions. */
static int container_open(struct p2ps_vfio *v, struct p2ps_error *err)
{
	if (v->container_fd >= 0)
		return 0;
	char path[320];
	snprintf(path, sizeof(path), "%s/vfio/vfio", v->dev_root);
	int fd = v->sys->open(v->sys->ctx, path, O_RDWR);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return p2ps_error_set(err, P2PS_ENOENT,
			                      "vfio: open(%s): %s (is the vfio module loaded?)",
			                      path, strerror(e));
		return sys_fail(err, e, "vfio", "open", path);
	}
	int ver = v->sys->ioctl(v->sys->ctx, fd, VFIO_GET_API_VERSION, NULL);
	if (ver < 0) {
		int e = errno;
		v->sys->close(v->sys->ctx, fd);
		return sys_fail(err, e, path, "ioctl", "VFIO_GET_API_VERSION");
	}
	if (ver != VFIO_API_VERSION) {
		v->sys->close(v->sys->ctx, fd);
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "%s: VFIO API version %d, this build speaks %d", path, ver,
		                      VFIO_API_VERSION);
	}
	v->api_version = ver;
	/* CHECK_EXTENSION answers > 0 for a supported IOMMU model. */
	v->ext_type1 = v->sys->ioctl(v->sys->ctx, fd, VFIO_CHECK_EXTENSION,
	                             (void *)(uintptr_t)VFIO_TYPE1_IOMMU) > 0;
	v->ext_type1v2 = v->sys->ioctl(v->sys->ctx, fd, VFIO_CHECK_EXTENSION,
	                               (void *)(uintptr_t)VFIO_TYPE1v2_IOMMU) > 0;
	v->ext_noiommu = v->sys->ioctl(v->sys->ctx, fd, VFIO_CHECK_EXTENSION,
	                               (void *)(uintptr_t)VFIO_NOIOMMU_IOMMU) > 0;
	v->container_fd = fd;
	return 0;
}

/* Names the devices of group id that keep it from being viable: anything bound
 * to a driver other than vfio-pci (bridges on pcieport are allowed). */
static void group_blockers(const struct p2ps_vfio *v, int id, char *out, size_t size)
{
	char dir[384];
	snprintf(dir, sizeof(dir), "%s/kernel/iommu_groups/%d/devices", v->sysfs_root, id);
	out[0] = '\0';
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t n = 0;
	const struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char link[704], drv[64];
		snprintf(link, sizeof(link), "%s/%s/driver", dir, e->d_name);
		if (p2ps_read_link_name(NULL, link, drv, sizeof(drv)) < 0)
			continue; /* no driver: allowed */
		if (!strcmp(drv, "vfio-pci") || !strcmp(drv, "pcieport"))
			continue;
		int w = snprintf(out + n, size - n, "%s%s (%s)", n ? ", " : "", e->d_name, drv);
		if (w < 0 || (size_t)w >= size - n)
			break;
		n += (size_t)w;
	}
	closedir(d);
}

static struct p2ps_vfio_group *group_find(struct p2ps_vfio *v, int id)
{
	for (int i = 0; i < v->n_groups; i++)
		if (v->groups[i].id == id)
			return &v->groups[i];
	return NULL;
}

/* Opens /dev/vfio/<id> (or noiommu-<id>), checks viability and puts it in the
 * session's container, setting the IOMMU model on the first group. */
static int group_attach(struct p2ps_vfio *v, int id, struct p2ps_vfio_group **out,
                        struct p2ps_error *err)
{
	struct p2ps_vfio_group *g = group_find(v, id);
	if (g) {
		*out = g;
		return 0;
	}
	if (v->n_groups == P2PS_VFIO_MAX_GROUPS)
		return p2ps_error_set(err, P2PS_ERANGE, "vfio: more than %d IOMMU groups",
		                      P2PS_VFIO_MAX_GROUPS);
	char path[320];
	bool noiommu = false;
	snprintf(path, sizeof(path), "%s/vfio/%d", v->dev_root, id);
	int fd = v->sys->open(v->sys->ctx, path, O_RDWR);
	if (fd < 0 && errno == ENOENT) {
		snprintf(path, sizeof(path), "%s/vfio/noiommu-%d", v->dev_root, id);
		fd = v->sys->open(v->sys->ctx, path, O_RDWR);
		noiommu = fd >= 0;
		if (fd < 0 && errno == ENOENT)
			snprintf(path, sizeof(path), "%s/vfio/%d", v->dev_root, id);
	}
	if (fd < 0) {
		int e = errno;
		if (e == EBUSY)
			return p2ps_error_set(
			        err, P2PS_EIO,
			        "vfio: open(%s): %s (another process, e.g. QEMU, holds the "
			        "group)",
			        path, strerror(e));
		return sys_fail(err, e, "vfio", "open", path);
	}
	struct vfio_group_status st = {.argsz = sizeof(st)};
	if (v->sys->ioctl(v->sys->ctx, fd, VFIO_GROUP_GET_STATUS, &st) < 0) {
		int e = errno;
		v->sys->close(v->sys->ctx, fd);
		return sys_fail(err, e, path, "ioctl", "VFIO_GROUP_GET_STATUS");
	}
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		char who[256];
		group_blockers(v, id, who, sizeof(who));
		v->sys->close(v->sys->ctx, fd);
		return p2ps_error_set(
		        err, P2PS_EIO,
		        "%s: group %d is not viable: every device in it must be bound to "
		        "vfio-pci or to no driver%s%s",
		        path, id, who[0] ? "; bound elsewhere: " : "", who);
	}
	if (!(st.flags & VFIO_GROUP_FLAGS_CONTAINER_SET)) {
		int cfd = v->container_fd;
		if (v->sys->ioctl(v->sys->ctx, fd, VFIO_GROUP_SET_CONTAINER, &cfd) < 0) {
			int e = errno;
			v->sys->close(v->sys->ctx, fd);
			return sys_fail(err, e, path, "ioctl", "VFIO_GROUP_SET_CONTAINER");
		}
		st.flags |= VFIO_GROUP_FLAGS_CONTAINER_SET;
	}
	if (v->iommu_type == 0) {
		/* The model is chosen once per container: no-IOMMU groups can only use
		 * VFIO_NOIOMMU_IOMMU; otherwise Type1v2 (unmap granularity as mapped)
		 * is preferred over Type1. */
		static const uint32_t prefs[] = {VFIO_TYPE1v2_IOMMU, VFIO_TYPE1_IOMMU};
		uint32_t type = 0;
		if (noiommu)
			type = v->ext_noiommu ? VFIO_NOIOMMU_IOMMU : 0;
		else
			for (size_t i = 0; i < sizeof(prefs) / sizeof(prefs[0]) && !type; i++)
				if ((prefs[i] == VFIO_TYPE1v2_IOMMU && v->ext_type1v2) ||
				    (prefs[i] == VFIO_TYPE1_IOMMU && v->ext_type1))
					type = prefs[i];
		if (!type) {
			v->sys->close(v->sys->ctx, fd);
			return p2ps_error_set(
			        err, P2PS_ENOTSUP,
			        "%s: the container offers no usable IOMMU model (type1 %s, "
			        "type1v2 %s, no-IOMMU %s)",
			        path, v->ext_type1 ? "yes" : "no", v->ext_type1v2 ? "yes" : "no",
			        v->ext_noiommu ? "yes" : "no");
		}
		if (v->sys->ioctl(v->sys->ctx, v->container_fd, VFIO_SET_IOMMU,
		                  (void *)(uintptr_t)type) < 0) {
			int e = errno;
			v->sys->close(v->sys->ctx, fd);
			char what[64];
			snprintf(what, sizeof(what), "VFIO_SET_IOMMU %s",
			         type == VFIO_NOIOMMU_IOMMU
			                 ? "no-IOMMU"
			                 : (type == VFIO_TYPE1v2_IOMMU ? "Type1v2" : "Type1"));
			return sys_fail(err, e, path, "ioctl", what);
		}
		v->iommu_type = type;
	}
	g = &v->groups[v->n_groups++];
	g->id = id;
	g->fd = fd;
	g->noiommu = noiommu;
	g->status = st.flags;
	*out = g;
	return 0;
}

static int open_legacy(struct p2ps_vfio *v, struct p2ps_vfio_device *d, struct p2ps_error *err)
{
	if (d->group < 0)
		return p2ps_error_set(
		        err, P2PS_ENOENT,
		        "%s: no iommu_group link in sysfs (no IOMMU, and no-IOMMU mode "
		        "not enabled)",
		        d->bdf);
	int rc = container_open(v, err);
	if (rc)
		return rc;
	struct p2ps_vfio_group *g = NULL;
	rc = group_attach(v, d->group, &g, err);
	if (rc)
		return rc;
	d->noiommu = g->noiommu;
	snprintf(d->node, sizeof(d->node), "%s/vfio/%s%d", v->dev_root,
	         g->noiommu ? "noiommu-" : "", g->id);
	int fd = v->sys->ioctl(v->sys->ctx, g->fd, VFIO_GROUP_GET_DEVICE_FD, d->bdf);
	if (fd < 0)
		return sys_fail(err, errno, d->bdf, "ioctl", "VFIO_GROUP_GET_DEVICE_FD");
	d->fd = fd;
	d->flow = P2PS_VFIO_FLOW_LEGACY;
	return 0;
}

/* The cdev node's name from sysfs: .../devices/<bdf>/vfio-dev/vfioN. */
static int cdev_name(const struct p2ps_vfio *v, const char *bdf, char *out, size_t size)
{
	char dir[384];
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s/vfio-dev", v->sysfs_root, bdf);
	DIR *d = opendir(dir);
	if (!d)
		return -ENOENT;
	int rc = -ENOENT;
	const struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!strncmp(e->d_name, "vfio", 4)) {
			p2ps_strlcpy(out, e->d_name, size);
			rc = 0;
			break;
		}
	}
	closedir(d);
	return rc;
}

#if P2PS_HAVE_VFIO_CDEV
static int open_cdev(struct p2ps_vfio *v, struct p2ps_vfio_device *d, const char *name,
                     struct p2ps_error *err)
{
	char path[320];
	if (v->iommufd < 0) {
		snprintf(path, sizeof(path), "%s/iommu", v->dev_root);
		int ifd = v->sys->open(v->sys->ctx, path, O_RDWR);
		if (ifd < 0) {
			int e = errno;
			if (e == ENOENT)
				return p2ps_error_set(
				        err, P2PS_ENOTSUP,
				        "vfio: open(%s): %s (kernel without CONFIG_IOMMUFD)", path,
				        strerror(e));
			return sys_fail(err, e, "vfio", "open", path);
		}
		v->iommufd = ifd;
	}
	snprintf(d->node, sizeof(d->node), "%s/vfio/devices/%s", v->dev_root, name);
	int fd = v->sys->open(v->sys->ctx, d->node, O_RDWR);
	if (fd < 0)
		return sys_fail(err, errno, d->bdf, "open", d->node);
	struct vfio_device_bind_iommufd bind = {.argsz = sizeof(bind), .iommufd = v->iommufd};
	if (v->sys->ioctl(v->sys->ctx, fd, VFIO_DEVICE_BIND_IOMMUFD, &bind) < 0) {
		int e = errno;
		v->sys->close(v->sys->ctx, fd);
		return sys_fail(err, e, d->bdf, "ioctl", "VFIO_DEVICE_BIND_IOMMUFD");
	}
	d->devid = bind.out_devid;
	if (v->ioas_id == 0) {
		struct iommu_ioas_alloc alloc = {.size = sizeof(alloc)};
		if (v->sys->ioctl(v->sys->ctx, v->iommufd, IOMMU_IOAS_ALLOC, &alloc) < 0) {
			int e = errno;
			v->sys->close(v->sys->ctx, fd);
			return sys_fail(err, e, d->bdf, "ioctl", "IOMMU_IOAS_ALLOC");
		}
		v->ioas_id = alloc.out_ioas_id;
	}
	struct vfio_device_attach_iommufd_pt at = {.argsz = sizeof(at), .pt_id = v->ioas_id};
	if (v->sys->ioctl(v->sys->ctx, fd, VFIO_DEVICE_ATTACH_IOMMUFD_PT, &at) < 0) {
		int e = errno;
		v->sys->close(v->sys->ctx, fd);
		return sys_fail(err, e, d->bdf, "ioctl", "VFIO_DEVICE_ATTACH_IOMMUFD_PT");
	}
	d->hwpt_id = at.pt_id;
	d->fd = fd;
	d->flow = P2PS_VFIO_FLOW_CDEV;
	return 0;
}
#endif

int p2ps_vfio_device_open(struct p2ps_vfio *v, const char *bdf, struct p2ps_vfio_device *d,
                          struct p2ps_error *err)
{
	if (!v || !d || !v->sys)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: NULL session or device");
	memset(d, 0, sizeof(*d));
	d->v = v;
	d->fd = -1;
	d->group = -1;
	int rc = p2ps_vfio_bdf_normalize(bdf, d->bdf, sizeof(d->bdf), err);
	if (rc)
		return rc;
	char path[448];
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", v->sysfs_root, d->bdf);
	if (access(path, F_OK) != 0)
		return p2ps_error_set(err, P2PS_ENOENT, "%s: no such PCI device (%s)", d->bdf,
		                      path);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/driver", v->sysfs_root, d->bdf);
	if (p2ps_read_link_name(NULL, path, d->driver, sizeof(d->driver)) < 0)
		d->driver[0] = '\0';
	if (strcmp(d->driver, "vfio-pci") != 0)
		return p2ps_error_set(
		        err, P2PS_ENOTSUP,
		        "%s: bound to %s, not vfio-pci (bind it first: echo vfio-pci > "
		        "/sys/bus/pci/devices/%s/driver_override, unbind, drivers_probe)",
		        d->bdf, d->driver[0] ? d->driver : "no driver", d->bdf);
	char grp[32];
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group", v->sysfs_root, d->bdf);
	if (p2ps_read_link_name(NULL, path, grp, sizeof(grp)) > 0)
		d->group = atoi(grp);

	enum p2ps_vfio_flow flow = v->flow_req;
	char cdev[32] = "";
	bool have_cdev = cdev_name(v, d->bdf, cdev, sizeof(cdev)) == 0;
	if (flow == P2PS_VFIO_FLOW_AUTO) {
		/* Legacy when the group node exists (every kernel with VFIO has it,
		 * and only type1 accepts a peer BAR by its user address); cdev on
		 * kernels built without the group interface. */
		char gpath[320];
		snprintf(gpath, sizeof(gpath), "%s/vfio/%d", v->dev_root, d->group);
		char npath[320];
		snprintf(npath, sizeof(npath), "%s/vfio/noiommu-%d", v->dev_root, d->group);
		bool have_group =
		        d->group >= 0 && (access(gpath, F_OK) == 0 || access(npath, F_OK) == 0);
		flow = (!have_group && have_cdev && P2PS_HAVE_VFIO_CDEV) ? P2PS_VFIO_FLOW_CDEV
		                                                         : P2PS_VFIO_FLOW_LEGACY;
	}
	/* One session speaks one flow: the group and cdev interfaces exclude each
	 * other per device, and devices must share an IOMMU context for map-peer. */
	if (v->container_fd >= 0 && flow == P2PS_VFIO_FLOW_CDEV)
		flow = P2PS_VFIO_FLOW_LEGACY;
	if (flow == P2PS_VFIO_FLOW_LEGACY)
		return open_legacy(v, d, err);
#if P2PS_HAVE_VFIO_CDEV
	if (!have_cdev)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "%s: no vfio-dev/vfioN in sysfs (kernel without "
		                      "CONFIG_VFIO_DEVICE_CDEV)",
		                      d->bdf);
	return open_cdev(v, d, cdev, err);
#else
	return p2ps_error_set(err, P2PS_ENOTSUP, "%s: cdev flow not compiled in", d->bdf);
#endif
}

void p2ps_vfio_device_close(struct p2ps_vfio_device *d)
{
	if (!d || !d->v || !d->v->sys)
		return;
	close_fd(d->v->sys, &d->fd);
}

/* ---- INFO ioctls with argsz growth --------------------------------------------------- */

#define INFO_MAX_TRIES 4

/* Issues an INFO ioctl: fills the first fixed bytes from tmpl (argsz is set
 * here), and when the kernel answers with a larger argsz, retries with a buffer
 * of that size. On success *out is a calloc'd buffer of *out_len bytes (the
 * caller frees it). what names the call in messages ("VFIO_DEVICE_GET_INFO"). */
static int info_ioctl(const struct p2ps_vfio_sys *sys, int fd, unsigned long req, const void *tmpl,
                      size_t fixed, const char *who, const char *what, uint8_t **out,
                      size_t *out_len, struct p2ps_error *err)
{
	size_t sz = fixed;
	for (int attempt = 0; attempt < INFO_MAX_TRIES; attempt++) {
		uint8_t *buf = calloc(1, sz);
		if (!buf)
			return p2ps_error_set(err, P2PS_ENOMEM, "%s: %s: out of memory (%zu bytes)",
			                      who, what, sz);
		memcpy(buf, tmpl, fixed);
		uint32_t argsz = (uint32_t)sz;
		memcpy(buf, &argsz, sizeof(argsz));
		if (sys->ioctl(sys->ctx, fd, req, buf) < 0) {
			int e = errno;
			free(buf);
			return sys_fail(err, e, who, "ioctl", what);
		}
		uint32_t want;
		memcpy(&want, buf, sizeof(want));
		if (want <= sz) {
			*out = buf;
			*out_len = sz;
			return 0;
		}
		free(buf);
		if (want > P2PS_VFIO_INFO_MAX)
			return p2ps_error_set(
			        err, P2PS_ERANGE,
			        "%s: %s: kernel asks for argsz %u, more than the %u bytes "
			        "this tool follows",
			        who, what, want, P2PS_VFIO_INFO_MAX);
		sz = want;
	}
	return p2ps_error_set(err, P2PS_EIO, "%s: %s: argsz still growing after %d calls", who,
	                      what, INFO_MAX_TRIES);
}

int p2ps_vfio_device_get_info(struct p2ps_vfio_device *d, struct p2ps_vfio_device_info *out,
                              struct p2ps_error *err)
{
	if (!d || d->fd < 0 || !out)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: device not open");
	struct vfio_device_info tmpl = {.argsz = sizeof(tmpl)};
	uint8_t *buf;
	size_t len;
	int rc = info_ioctl(d->v->sys, d->fd, VFIO_DEVICE_GET_INFO, &tmpl, sizeof(tmpl), d->bdf,
	                    "VFIO_DEVICE_GET_INFO", &buf, &len, err);
	if (rc)
		return rc;
	rc = p2ps_vfio_device_info_parse(buf, len, out, err);
	free(buf);
	if (rc)
		return p2ps_error_prefix(err, "%s", d->bdf);
	return 0;
}

int p2ps_vfio_region_get(struct p2ps_vfio_device *d, uint32_t index, struct p2ps_vfio_region *out,
                         struct p2ps_error *err)
{
	if (!d || d->fd < 0 || !out)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: device not open");
	char name[16], what[64];
	snprintf(what, sizeof(what), "VFIO_DEVICE_GET_REGION_INFO(%s)",
	         p2ps_vfio_region_name(index, name, sizeof(name)));
	struct vfio_region_info tmpl = {.argsz = sizeof(tmpl), .index = index};
	uint8_t *buf;
	size_t len;
	int rc = info_ioctl(d->v->sys, d->fd, VFIO_DEVICE_GET_REGION_INFO, &tmpl, sizeof(tmpl),
	                    d->bdf, what, &buf, &len, err);
	if (rc)
		return rc;
	rc = p2ps_vfio_region_parse(buf, len, out, err);
	free(buf);
	if (rc)
		return p2ps_error_prefix(err, "%s", d->bdf);
	if (out->index != index)
		return p2ps_error_set(err, P2PS_EIO, "%s: %s answered for index %u", d->bdf, what,
		                      out->index);
	return 0;
}

int p2ps_vfio_irq_get(struct p2ps_vfio_device *d, uint32_t index, struct p2ps_vfio_irq *out,
                      struct p2ps_error *err)
{
	if (!d || d->fd < 0 || !out)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: device not open");
	struct vfio_irq_info irq = {.argsz = sizeof(irq), .index = index};
	if (d->v->sys->ioctl(d->v->sys->ctx, d->fd, VFIO_DEVICE_GET_IRQ_INFO, &irq) < 0) {
		char what[48];
		snprintf(what, sizeof(what), "VFIO_DEVICE_GET_IRQ_INFO(%u)", index);
		return sys_fail(err, errno, d->bdf, "ioctl", what);
	}
	out->index = index;
	out->flags = irq.flags;
	out->count = irq.count;
	return 0;
}

int p2ps_vfio_iommu_get_info(struct p2ps_vfio *v, struct p2ps_error *err)
{
	if (!v || v->container_fd < 0)
		return p2ps_error_set(err, P2PS_ENOTSUP, "vfio: no legacy container open");
	if (v->iommu_type == VFIO_NOIOMMU_IOMMU)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "vfio: no-IOMMU container: there is no IOMMU to describe");
	struct vfio_iommu_type1_info tmpl = {.argsz = sizeof(tmpl)};
	uint8_t *buf;
	size_t len;
	int rc = info_ioctl(v->sys, v->container_fd, VFIO_IOMMU_GET_INFO, &tmpl, sizeof(tmpl),
	                    "vfio container", "VFIO_IOMMU_GET_INFO", &buf, &len, err);
	if (rc)
		return rc;
	rc = p2ps_vfio_iommu_info_parse(buf, len, &v->iommu, err);
	free(buf);
	v->have_iommu_info = rc == 0;
	return rc;
}

int p2ps_vfio_config_read(struct p2ps_vfio_device *d, const struct p2ps_vfio_region *cfg,
                          uint32_t off, void *buf, size_t len, size_t *got, struct p2ps_error *err)
{
	if (!d || d->fd < 0 || !cfg || !buf || !got)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: config read: bad arguments");
	*got = 0;
	if (!(cfg->flags & VFIO_REGION_INFO_FLAG_READ))
		return p2ps_error_set(err, P2PS_EACCES, "%s: the config region is not readable",
		                      d->bdf);
	if (off >= cfg->size)
		return 0;
	if (len > cfg->size - off)
		len = (size_t)(cfg->size - off);
	uint8_t *p = buf;
	while (*got < len) {
		ssize_t n = d->v->sys->pread(d->v->sys->ctx, d->fd, p + *got, len - *got,
		                             (off_t)(cfg->offset + off + *got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			char what[48];
			snprintf(what, sizeof(what), "config+0x%zx", (size_t)off + *got);
			return sys_fail(err, errno, d->bdf, "pread", what);
		}
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

/* ---- the whole device ---------------------------------------------------------------- */

/* Offsets of the identity registers that vfio-pci passes through unchanged:
 * vendor/device (0x00-0x03), revision + class (0x08-0x0b), header type (0x0e),
 * subsystem vendor/id (0x2c-0x2f). */
static const struct {
	uint8_t off, len;
} identity_regs[] = {{0x00, 4}, {0x08, 4}, {0x0e, 1}, {0x2c, 4}};

static void config_cross_check(struct p2ps_vfio_device *d, struct p2ps_vfio_dev_report *r)
{
	struct p2ps_vfio_config_check *c = &r->check;
	const struct p2ps_vfio_sys *sys = d->v->sys;
	memset(c, 0, sizeof(*c));
	c->first_diff = -1;
	c->vfio_len = r->config_len;
	char path[448];
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", d->v->sysfs_root, d->bdf);
	int fd = sys->open(sys->ctx, path, O_RDONLY);
	if (fd < 0) {
		snprintf(c->why, sizeof(c->why), "open(%.80s): %s", path, strerror(errno));
		return;
	}
	uint8_t sysfs_cfg[P2PS_VFIO_CONFIG_MAX];
	size_t n = 0;
	while (n < sizeof(sysfs_cfg)) {
		ssize_t k =
		        sys->pread(sys->ctx, fd, sysfs_cfg + n, sizeof(sysfs_cfg) - n, (off_t)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	sys->close(sys->ctx, fd);
	c->sysfs_len = n;
	if (n < 0x30 || r->config_len < 0x30) {
		snprintf(c->why, sizeof(c->why),
		         "too little config space read (sysfs %zu, vfio %zu)", n, r->config_len);
		return;
	}
	c->done = true;
	c->compared = n < r->config_len ? n : r->config_len;
	c->identity_match = true;
	for (size_t i = 0; i < sizeof(identity_regs) / sizeof(identity_regs[0]); i++)
		if (memcmp(sysfs_cfg + identity_regs[i].off, r->config + identity_regs[i].off,
		           identity_regs[i].len) != 0)
			c->identity_match = false;
	for (size_t i = 0; i < c->compared; i++) {
		if (sysfs_cfg[i] != r->config[i]) {
			if (c->first_diff < 0)
				c->first_diff = (int)i;
			c->n_diff++;
		}
	}
}

int p2ps_vfio_device_report(struct p2ps_vfio_device *d, struct p2ps_vfio_dev_report *out,
                            struct p2ps_error *err)
{
	if (!d || d->fd < 0 || !out)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: device not open");
	memset(out, 0, sizeof(*out));
	snprintf(out->bdf, sizeof(out->bdf), "%s", d->bdf);
	snprintf(out->node, sizeof(out->node), "%s", d->node);
	out->flow = d->flow;
	out->group = d->group;
	out->noiommu = d->noiommu;
	out->iommu_type = d->flow == P2PS_VFIO_FLOW_LEGACY ? d->v->iommu_type : 0;
	int rc = p2ps_vfio_device_get_info(d, &out->info, err);
	if (rc)
		return rc;
	if (!(out->info.flags & VFIO_DEVICE_FLAGS_PCI))
		return p2ps_error_set(err, P2PS_ENOTSUP, "%s: not a vfio-pci device (flags 0x%x)",
		                      d->bdf, out->info.flags);
	uint32_t nreg = out->info.num_regions;
	if (nreg > P2PS_VFIO_MAX_REGIONS)
		nreg = P2PS_VFIO_MAX_REGIONS;
	for (uint32_t i = 0; i < nreg; i++) {
		struct p2ps_vfio_region *reg = &out->regions[out->n_regions++];
		struct p2ps_error e2 = {0};
		if (p2ps_vfio_region_get(d, i, reg, &e2) != 0) {
			/* A refused index (VGA on a non-VGA device) is a fact to
			 * report, not a failure of the whole device. */
			memset(reg, 0, sizeof(*reg));
			reg->index = i;
			reg->query_errno = errno ? errno : EIO;
		}
	}
	uint32_t nirq = out->info.num_irqs;
	if (nirq > P2PS_VFIO_MAX_IRQS)
		nirq = P2PS_VFIO_MAX_IRQS;
	for (uint32_t i = 0; i < nirq; i++) {
		struct p2ps_vfio_irq *irq = &out->irqs[out->n_irqs];
		if (p2ps_vfio_irq_get(d, i, irq, NULL) == 0)
			out->n_irqs++;
	}
	if (out->n_regions > P2PS_VFIO_PCI_CONFIG) {
		const struct p2ps_vfio_region *cfg = &out->regions[P2PS_VFIO_PCI_CONFIG];
		size_t want =
		        cfg->size < P2PS_VFIO_CONFIG_MAX ? (size_t)cfg->size : P2PS_VFIO_CONFIG_MAX;
		rc = p2ps_vfio_config_read(d, cfg, 0, out->config, want, &out->config_len, err);
		if (rc)
			return rc;
		config_cross_check(d, out);
	} else {
		snprintf(out->check.why, sizeof(out->check.why), "no config region");
	}
	return 0;
}
