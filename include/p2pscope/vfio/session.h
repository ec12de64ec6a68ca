/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: sessions — opening devices bound to vfio-pci and asking the kernel what
 * it exposes, through the legacy container/group interface or, where the UAPI and kernel
 * have it, the cdev + iommufd interface. INFO ioctls grow their argsz as the kernel asks.
 *
 * Every system call goes through struct p2ps_vfio_sys, so tests replace the kernel.
 * Every failure names the call, the object (PCI address, path) and strerror(errno).
 *
 * Hardware safety: opening a VFIO device can reset it (vfio-pci resets a device on first
 * open when it supports a function-level or bus reset). Nothing here writes config space
 * or MMIO.
 */
#ifndef P2PSCOPE_VFIO_SESSION_H
#define P2PSCOPE_VFIO_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "p2pscope/error.h"
#include "p2pscope/pci_addr.h"
#include "p2pscope/vfio/facts.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P2PS_VFIO_MAX_GROUPS 16 /* groups one session may hold */

/* Every kernel interaction of a session. Each returns what the libc call returns
 * and leaves errno set on failure. ctx is passed back unchanged. */
struct p2ps_vfio_sys {
	int (*open)(void *ctx, const char *path, int flags);
	int (*close)(void *ctx, int fd);
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, off_t off);
	void *(*mmap)(void *ctx, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *ctx, void *addr, size_t len);
	void *ctx;
};

/* The real kernel (open(2), ioctl(2), ...). */
const struct p2ps_vfio_sys *p2ps_vfio_sys_default(void);

/* true when this build carries the cdev/iommufd UAPI definitions. */
bool p2ps_vfio_cdev_compiled(void);

struct p2ps_vfio_opts {
	const struct p2ps_vfio_sys *sys; /* NULL: p2ps_vfio_sys_default() */
	const char *sysfs_root;          /* NULL: "/sys" */
	const char *dev_root;            /* NULL: "/dev" */
	enum p2ps_vfio_flow flow;
};

struct p2ps_vfio_group {
	int id;
	int fd;
	bool noiommu;    /* /dev/vfio/noiommu-N */
	uint32_t status; /* VFIO_GROUP_FLAGS_VIABLE 1, CONTAINER_SET 2 */
};

/* One container (legacy) or one iommufd + IOAS (cdev), shared by every device
 * opened through it. Zero-initialise; p2ps_vfio_open fills it. */
struct p2ps_vfio {
	const struct p2ps_vfio_sys *sys;
	char sysfs_root[256];
	char dev_root[256];
	enum p2ps_vfio_flow flow_req;

	/* legacy */
	int container_fd; /* -1 until opened */
	int api_version;
	bool ext_type1, ext_type1v2, ext_noiommu;
	uint32_t iommu_type; /* 0 until VFIO_SET_IOMMU succeeded: 1, 3 or 8 */
	int n_groups;
	struct p2ps_vfio_group groups[P2PS_VFIO_MAX_GROUPS];
	bool have_iommu_info;
	struct p2ps_vfio_iommu_info iommu;

	/* cdev */
	int iommufd;      /* -1 until opened */
	uint32_t ioas_id; /* 0 until allocated */
};

/* Prepares a session; opens nothing yet (the container or iommufd is opened by
 * the first p2ps_vfio_device_open, when the flow is known). */
int p2ps_vfio_open(struct p2ps_vfio *v, const struct p2ps_vfio_opts *opts, struct p2ps_error *err);

/* Closes the groups, the container / iommufd. Devices must be closed first. */
void p2ps_vfio_close(struct p2ps_vfio *v);

struct p2ps_vfio_device {
	struct p2ps_vfio *v;
	struct p2ps_bdf addr;
	char bdf[16];             /* addr as "DDDD:BB:DD.F", for paths and messages */
	int fd;                   /* device fd, -1 when closed */
	enum p2ps_vfio_flow flow; /* LEGACY or CDEV: how it was opened */
	int group;                /* IOMMU group number, -1 when unknown */
	bool noiommu;
	char node[320];   /* /dev/vfio/<group> or /dev/vfio/devices/vfioN */
	uint32_t devid;   /* cdev: VFIO_DEVICE_BIND_IOMMUFD out_devid */
	uint32_t hwpt_id; /* cdev: pt_id returned by ATTACH_IOMMUFD_PT */
	char driver[32];  /* sysfs driver name at open time */
};

/* Opens the device at bdf through the session: checks that it is bound to vfio-pci,
 * finds its group, sets up the container (API version, extensions, group viability,
 * VFIO_GROUP_SET_CONTAINER, VFIO_SET_IOMMU) and gets the device fd; or, in the cdev
 * flow, binds the device to iommufd and attaches it to the session's IOAS.
 * CAN RESET THE DEVICE. */
int p2ps_vfio_device_open(struct p2ps_vfio *v, const struct p2ps_bdf *bdf,
                          struct p2ps_vfio_device *d, struct p2ps_error *err);

void p2ps_vfio_device_close(struct p2ps_vfio_device *d);

/* VFIO_DEVICE_GET_INFO with argsz growth. */
int p2ps_vfio_device_get_info(struct p2ps_vfio_device *d, struct p2ps_vfio_device_info *out,
                              struct p2ps_error *err);

/* VFIO_DEVICE_GET_REGION_INFO for one index with argsz growth: asks with the
 * fixed struct, and when the kernel answers with a larger argsz, allocates that
 * much (up to P2PS_VFIO_INFO_MAX) and asks again (at most 4 times). */
int p2ps_vfio_region_get(struct p2ps_vfio_device *d, uint32_t index, struct p2ps_vfio_region *out,
                         struct p2ps_error *err);

/* VFIO_DEVICE_GET_IRQ_INFO for one index. */
int p2ps_vfio_irq_get(struct p2ps_vfio_device *d, uint32_t index, struct p2ps_vfio_irq *out,
                      struct p2ps_error *err);

/* VFIO_IOMMU_GET_INFO on the session's container (legacy flow) with argsz growth;
 * fills v->iommu. P2PS_ENOTSUP for cdev sessions and no-IOMMU containers. */
int p2ps_vfio_iommu_get_info(struct p2ps_vfio *v, struct p2ps_error *err);

/* Reads len bytes of config space at off through the VFIO config region (pread).
 * *got receives the bytes read (short at the end of config space). */
int p2ps_vfio_config_read(struct p2ps_vfio_device *d, const struct p2ps_vfio_region *cfg,
                          uint32_t off, void *buf, size_t len, size_t *got, struct p2ps_error *err);

/* GET_INFO, every region, every IRQ index, config space through VFIO and its
 * cross-check against sysfs's config file. */
int p2ps_vfio_device_report(struct p2ps_vfio_device *d, struct p2ps_vfio_dev_report *out,
                            struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
