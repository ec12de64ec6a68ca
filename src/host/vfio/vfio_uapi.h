/* SPDX-License-Identifier: MIT */
/* p2pscope: the kernel VFIO/iommufd UAPI this build uses.
 *
 * The system's <linux/vfio.h> is used as is. Debian 12's linux-libc-dev (6.1)
 * predates the VFIO device cdev and iommufd UAPI (merged in Linux 6.2 for
 * iommufd.h, 6.6 for the cdev ioctls), so the few definitions the cdev flow
 * needs are carried here, each guarded by #ifndef so a newer system header wins.
 * Layouts and numbers are those of Linux 6.6 include/uapi/linux/vfio.h and
 * include/uapi/linux/iommufd.h (unchanged in 6.12 for the fields used here; later
 * kernels append fields, which argsz/size keep compatible).
 */
#ifndef P2PS_VFIO_UAPI_H
#define P2PS_VFIO_UAPI_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <linux/vfio.h>

/* ---- vfio.h, Linux 6.6: VFIO device cdev ---------------------------------- */
#ifndef VFIO_DEVICE_BIND_IOMMUFD
struct vfio_device_bind_iommufd {
	__u32 argsz;
	__u32 flags;
	__s32 iommufd;
	__u32 out_devid;
};
#define VFIO_DEVICE_BIND_IOMMUFD _IO(VFIO_TYPE, VFIO_BASE + 18)
#endif

#ifndef VFIO_DEVICE_ATTACH_IOMMUFD_PT
struct vfio_device_attach_iommufd_pt {
	__u32 argsz;
	__u32 flags;
	__u32 pt_id;
};
#define VFIO_DEVICE_ATTACH_IOMMUFD_PT _IO(VFIO_TYPE, VFIO_BASE + 19)
#endif

#ifndef VFIO_DEVICE_DETACH_IOMMUFD_PT
struct vfio_device_detach_iommufd_pt {
	__u32 argsz;
	__u32 flags;
};
#define VFIO_DEVICE_DETACH_IOMMUFD_PT _IO(VFIO_TYPE, VFIO_BASE + 20)
#endif

/* ---- iommufd.h, Linux 6.2+ ------------------------------------------------- */
#ifndef IOMMUFD_TYPE
#define IOMMUFD_TYPE (';')
#endif

/* The system has no <linux/iommufd.h> at all when IOMMU_IOAS_ALLOC is undefined:
 * then every struct below is ours. */
#ifndef IOMMU_IOAS_ALLOC
struct iommu_destroy {
	__u32 size;
	__u32 id;
};
#define IOMMU_DESTROY _IO(IOMMUFD_TYPE, 0x80)

struct iommu_ioas_alloc {
	__u32 size;
	__u32 flags;
	__u32 out_ioas_id;
};
#define IOMMU_IOAS_ALLOC _IO(IOMMUFD_TYPE, 0x81)

struct iommu_iova_range {
	__aligned_u64 start;
	__aligned_u64 last;
};

struct iommu_ioas_iova_ranges {
	__u32 size;
	__u32 ioas_id;
	__u32 num_iovas;
	__u32 reserved;
	__aligned_u64 allowed_iovas;
	__aligned_u64 out_iova_alignment;
};
#define IOMMU_IOAS_IOVA_RANGES _IO(IOMMUFD_TYPE, 0x84)

struct iommu_ioas_map {
	__u32 size;
	__u32 flags;
	__u32 ioas_id;
	__u32 reserved;
	__aligned_u64 user_va;
	__aligned_u64 length;
	__aligned_u64 iova;
};
#define IOMMU_IOAS_MAP            _IO(IOMMUFD_TYPE, 0x85)
#define IOMMU_IOAS_MAP_FIXED_IOVA (1 << 0)
#define IOMMU_IOAS_MAP_WRITEABLE  (1 << 1)
#define IOMMU_IOAS_MAP_READABLE   (1 << 2)

struct iommu_ioas_unmap {
	__u32 size;
	__u32 ioas_id;
	__aligned_u64 iova;
	__aligned_u64 length;
};
#define IOMMU_IOAS_UNMAP _IO(IOMMUFD_TYPE, 0x86)
#endif

/* The cdev flow is compiled in only when the definitions above (ours or the
 * system's) are present. */
#if defined(VFIO_DEVICE_BIND_IOMMUFD) && defined(VFIO_DEVICE_ATTACH_IOMMUFD_PT) &&                 \
        defined(IOMMU_IOAS_ALLOC) && defined(IOMMU_IOAS_MAP)
#define P2PS_HAVE_VFIO_CDEV 1
#else
#define P2PS_HAVE_VFIO_CDEV 0
#endif

#endif
