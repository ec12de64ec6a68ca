/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: sessions and devices — the legacy container/group flow and the
 * cdev/iommufd flow (include/p2pscope/vfio/session.h). Every failure names the call, the
 * object and strerror(errno). Opening a device can reset it; nothing here writes to one.
 */
#include "p2pscope/vfio/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host_internal.h"
#include "io.h"
#include "p2pscope/parse.h"
#include "vfio_internal.h"
#include "vfio_uapi.h"

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
		p2ps_vfio_close_fd(v->sys, &v->groups[i].fd);
	v->n_groups = 0;
	p2ps_vfio_close_fd(v->sys, &v->container_fd);
	p2ps_vfio_close_fd(v->sys, &v->iommufd);
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
		return p2ps_vfio_sys_fail(err, e, "vfio", "open", path);
	}
	int ver = v->sys->ioctl(v->sys->ctx, fd, VFIO_GET_API_VERSION, NULL);
	if (ver < 0) {
		int e = errno;
		v->sys->close(v->sys->ctx, fd);
		return p2ps_vfio_sys_fail(err, e, path, "ioctl", "VFIO_GET_API_VERSION");
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

/* Opens /dev/vfio/<id>, or /dev/vfio/noiommu-<id> where only that exists. */
static int group_node_open(struct p2ps_vfio *v, int id, char *path, size_t size, bool *noiommu,
                           struct p2ps_error *err)
{
	*noiommu = false;
	snprintf(path, size, "%s/vfio/%d", v->dev_root, id);
	int fd = v->sys->open(v->sys->ctx, path, O_RDWR);
	if (fd < 0 && errno == ENOENT) {
		snprintf(path, size, "%s/vfio/noiommu-%d", v->dev_root, id);
		fd = v->sys->open(v->sys->ctx, path, O_RDWR);
		*noiommu = fd >= 0;
		if (fd < 0 && errno == ENOENT)
			snprintf(path, size, "%s/vfio/%d", v->dev_root, id);
	}
	if (fd >= 0)
		return fd;
	int e = errno;
	if (e == EBUSY)
		return p2ps_error_set(err, P2PS_EIO,
		                      "vfio: open(%s): %s (another process, e.g. QEMU, holds the "
		                      "group)",
		                      path, strerror(e));
	return p2ps_vfio_sys_fail(err, e, "vfio", "open", path);
}

/* The group must be viable (every device bound to vfio-pci or to no driver); then it
 * joins the session's container. */
static int group_join_container(struct p2ps_vfio *v, int id, int fd, const char *path,
                                uint32_t *status, struct p2ps_error *err)
{
	struct vfio_group_status st = {.argsz = sizeof(st)};
	if (v->sys->ioctl(v->sys->ctx, fd, VFIO_GROUP_GET_STATUS, &st) < 0)
		return p2ps_vfio_sys_fail(err, errno, path, "ioctl", "VFIO_GROUP_GET_STATUS");
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		char who[256];
		group_blockers(v, id, who, sizeof(who));
		return p2ps_error_set(
		        err, P2PS_EIO,
		        "%s: group %d is not viable: every device in it must be bound to "
		        "vfio-pci or to no driver%s%s",
		        path, id, who[0] ? "; bound elsewhere: " : "", who);
	}
	if (!(st.flags & VFIO_GROUP_FLAGS_CONTAINER_SET)) {
		int cfd = v->container_fd;
		if (v->sys->ioctl(v->sys->ctx, fd, VFIO_GROUP_SET_CONTAINER, &cfd) < 0)
			return p2ps_vfio_sys_fail(err, errno, path, "ioctl",
			                          "VFIO_GROUP_SET_CONTAINER");
		st.flags |= VFIO_GROUP_FLAGS_CONTAINER_SET;
	}
	*status = st.flags;
	return 0;
}

static const char *iommu_model_name(uint32_t type)
{
	return type == VFIO_NOIOMMU_IOMMU ? "no-IOMMU"
	                                  : (type == VFIO_TYPE1v2_IOMMU ? "Type1v2" : "Type1");
}

/* The model is chosen once per container: no-IOMMU groups can only use
 * VFIO_NOIOMMU_IOMMU; otherwise Type1v2 (unmap granularity as mapped) is preferred over
 * Type1. */
static int container_set_iommu(struct p2ps_vfio *v, bool noiommu, const char *path,
                               struct p2ps_error *err)
{
	uint32_t type = 0;
	if (noiommu)
		type = v->ext_noiommu ? VFIO_NOIOMMU_IOMMU : 0;
	else if (v->ext_type1v2)
		type = VFIO_TYPE1v2_IOMMU;
	else if (v->ext_type1)
		type = VFIO_TYPE1_IOMMU;
	if (!type)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "%s: the container offers no usable IOMMU model (type1 %s, "
		                      "type1v2 %s, no-IOMMU %s)",
		                      path, v->ext_type1 ? "yes" : "no",
		                      v->ext_type1v2 ? "yes" : "no", v->ext_noiommu ? "yes" : "no");
	if (v->sys->ioctl(v->sys->ctx, v->container_fd, VFIO_SET_IOMMU, (void *)(uintptr_t)type) <
	    0) {
		char what[64];
		snprintf(what, sizeof(what), "VFIO_SET_IOMMU %s", iommu_model_name(type));
		return p2ps_vfio_sys_fail(err, errno, path, "ioctl", what);
	}
	v->iommu_type = type;
	return 0;
}

/* Opens group id, checks viability and puts it in the session's container, setting the
 * IOMMU model on the first group. */
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
	bool noiommu;
	uint32_t status = 0;
	int fd = group_node_open(v, id, path, sizeof(path), &noiommu, err);
	if (fd < 0)
		return fd;
	int rc = group_join_container(v, id, fd, path, &status, err);
	if (!rc && v->iommu_type == 0)
		rc = container_set_iommu(v, noiommu, path, err);
	if (rc) {
		int e = errno;
		v->sys->close(v->sys->ctx, fd);
		errno = e;
		return rc;
	}
	g = &v->groups[v->n_groups++];
	g->id = id;
	g->fd = fd;
	g->noiommu = noiommu;
	g->status = status;
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
		return p2ps_vfio_sys_fail(err, errno, d->bdf, "ioctl", "VFIO_GROUP_GET_DEVICE_FD");
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
/* One setup ioctl of the cdev flow on the new device fd; on failure the fd is closed. */
static int cdev_ioctl(struct p2ps_vfio *v, int ioctl_fd, int dev_fd, unsigned long req, void *arg,
                      const char *who, const char *what, struct p2ps_error *err)
{
	if (v->sys->ioctl(v->sys->ctx, ioctl_fd, req, arg) >= 0)
		return 0;
	int e = errno;
	v->sys->close(v->sys->ctx, dev_fd);
	return p2ps_vfio_sys_fail(err, e, who, "ioctl", what);
}

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
			return p2ps_vfio_sys_fail(err, e, "vfio", "open", path);
		}
		v->iommufd = ifd;
	}
	snprintf(d->node, sizeof(d->node), "%s/vfio/devices/%s", v->dev_root, name);
	int fd = v->sys->open(v->sys->ctx, d->node, O_RDWR);
	if (fd < 0)
		return p2ps_vfio_sys_fail(err, errno, d->bdf, "open", d->node);
	struct vfio_device_bind_iommufd bind = {.argsz = sizeof(bind), .iommufd = v->iommufd};
	int rc = cdev_ioctl(v, fd, fd, VFIO_DEVICE_BIND_IOMMUFD, &bind, d->bdf,
	                    "VFIO_DEVICE_BIND_IOMMUFD", err);
	if (rc)
		return rc;
	d->devid = bind.out_devid;
	if (v->ioas_id == 0) {
		struct iommu_ioas_alloc alloc = {.size = sizeof(alloc)};
		rc = cdev_ioctl(v, v->iommufd, fd, IOMMU_IOAS_ALLOC, &alloc, d->bdf,
		                "IOMMU_IOAS_ALLOC", err);
		if (rc)
			return rc;
		v->ioas_id = alloc.out_ioas_id;
	}
	struct vfio_device_attach_iommufd_pt at = {.argsz = sizeof(at), .pt_id = v->ioas_id};
	rc = cdev_ioctl(v, fd, fd, VFIO_DEVICE_ATTACH_IOMMUFD_PT, &at, d->bdf,
	                "VFIO_DEVICE_ATTACH_IOMMUFD_PT", err);
	if (rc)
		return rc;
	d->hwpt_id = at.pt_id;
	d->fd = fd;
	d->flow = P2PS_VFIO_FLOW_CDEV;
	return 0;
}
#endif

/* What sysfs says about the device: it exists, is bound to vfio-pci, and its group. */
static int device_sysfs(struct p2ps_vfio *v, struct p2ps_vfio_device *d, struct p2ps_error *err)
{
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
	uint64_t id;
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group", v->sysfs_root, d->bdf);
	if (p2ps_read_link_name(NULL, path, grp, sizeof(grp)) > 0 &&
	    p2ps_parse_uint(grp, INT_MAX, &id) == 0)
		d->group = (int)id;
	return 0;
}

/* Legacy when the group node exists (every kernel with VFIO has it, and only type1
 * accepts a peer BAR by its user address); cdev on kernels built without the group
 * interface. One session speaks one flow: the group and cdev interfaces exclude each
 * other per device, and devices must share an IOMMU context for map-peer. */
static enum p2ps_vfio_flow choose_flow(const struct p2ps_vfio *v, const struct p2ps_vfio_device *d,
                                       bool have_cdev)
{
	enum p2ps_vfio_flow flow = v->flow_req;
	if (flow == P2PS_VFIO_FLOW_AUTO) {
		char gpath[320], npath[320];
		snprintf(gpath, sizeof(gpath), "%s/vfio/%d", v->dev_root, d->group);
		snprintf(npath, sizeof(npath), "%s/vfio/noiommu-%d", v->dev_root, d->group);
		bool have_group =
		        d->group >= 0 && (access(gpath, F_OK) == 0 || access(npath, F_OK) == 0);
		flow = (!have_group && have_cdev && P2PS_HAVE_VFIO_CDEV) ? P2PS_VFIO_FLOW_CDEV
		                                                         : P2PS_VFIO_FLOW_LEGACY;
	}
	if (v->container_fd >= 0 && flow == P2PS_VFIO_FLOW_CDEV)
		flow = P2PS_VFIO_FLOW_LEGACY;
	return flow;
}

int p2ps_vfio_device_open(struct p2ps_vfio *v, const struct p2ps_bdf *bdf,
                          struct p2ps_vfio_device *d, struct p2ps_error *err)
{
	if (!v || !d || !v->sys || !bdf)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: NULL session, device or address");
	memset(d, 0, sizeof(*d));
	d->v = v;
	d->fd = -1;
	d->group = -1;
	d->addr = *bdf;
	p2ps_bdf_format(bdf, d->bdf, sizeof(d->bdf));
	int rc = device_sysfs(v, d, err);
	if (rc)
		return rc;
	char cdev[32] = "";
	bool have_cdev = cdev_name(v, d->bdf, cdev, sizeof(cdev)) == 0;
	if (choose_flow(v, d, have_cdev) == P2PS_VFIO_FLOW_LEGACY)
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
	p2ps_vfio_close_fd(d->v->sys, &d->fd);
}
