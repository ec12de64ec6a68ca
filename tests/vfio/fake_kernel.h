/* SPDX-License-Identifier: MIT */
/* A scripted VFIO kernel for the unit tests: a temporary sysfs/dev tree on disk
 * (so path handling, readlink and opendir run for real) plus an ioctl/pread/mmap
 * layer that answers like vfio-pci for two devices in one IOMMU group:
 *   0000:03:00.0  BAR0 16 KiB with a sparse-mmap cap (needs argsz growth),
 *                 BAR2 4 GiB mmappable, config 256 bytes, VGA refused (EINVAL)
 *   0000:04:00.0  the same layout (the peer for map-peer)
 */
#ifndef P2PS_TEST_FAKE_KERNEL_H
#define P2PS_TEST_FAKE_KERNEL_H

#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "p2pscope/vfio.h"
#include "../../src/host/vfio/vfio_uapi.h"

#define FK_MAX_FD            256
#define FK_PAGE              4096
#define FK_BAR0_SIZE         0x4000u
#define FK_BAR2_SIZE         0x100000000ull
#define FK_BAR2_BUS_A        0x4000000000ull
#define FK_BAR2_BUS_B        0x4100000000ull
#define FK_REGION_ARGSZ_BAR0 80u /* fixed 32 + sparse header 16 + two areas */

enum fk_role { FK_NONE, FK_CONTAINER, FK_GROUP, FK_DEVICE, FK_FILE, FK_IOMMUFD };

struct fake_kernel {
	char root[256];
	char sys[300], dev[300];
	enum fk_role role[FK_MAX_FD];
	bool unbound[FK_MAX_FD]; /* cdev device fds: nothing works before BIND_IOMMUFD */
	char dev_bdf[FK_MAX_FD][16];
	/* script */
	uint32_t group_flags;  /* answered by VFIO_GROUP_GET_STATUS */
	bool grow_forever;     /* every region answer asks for 8 more bytes */
	uint32_t huge_argsz;   /* when set, region answers ask for this much */
	int fail_region_index; /* -1: none; else GET_REGION_INFO(index) fails with EIO */
	int map_errno;         /* VFIO_IOMMU_MAP_DMA fails with this when set */
	int ioas_map_errno;    /* IOMMU_IOAS_MAP fails with this when set */
	/* record */
	uint32_t bind_iommufd; /* iommufd passed to VFIO_DEVICE_BIND_IOMMUFD */
	uint32_t attach_pt;    /* pt_id passed to VFIO_DEVICE_ATTACH_IOMMUFD_PT */
	uint32_t ioas_map_flags;
	int region_calls[16];
	uint32_t region_argsz_seen[16][4];
	uint32_t set_iommu_type;
	char got_device_name[32];
	struct vfio_iommu_type1_dma_map last_map;
	bool unmap_called;
	uint8_t config[256];
	_Alignas(16) uint8_t bar0_page[FK_PAGE]; /* stands in for an mmap, which is page-aligned */
};

static inline void fk_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static inline void fk_mkdirs(const char *path)
{
	char tmp[700];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

static inline void fk_add_pci(struct fake_kernel *fk, const char *bdf, const char *driver,
                              int group, uint64_t bar2_bus)
{
	char p[600], t[200];
	snprintf(p, sizeof(p), "%s/bus/pci/devices/%s", fk->sys, bdf);
	fk_mkdirs(p);
	snprintf(p, sizeof(p), "%s/bus/pci/devices/%s/driver", fk->sys, bdf);
	snprintf(t, sizeof(t), "../../../bus/pci/drivers/%s", driver);
	if (symlink(t, p) != 0)
		return;
	snprintf(p, sizeof(p), "%s/bus/pci/devices/%s/iommu_group", fk->sys, bdf);
	snprintf(t, sizeof(t), "../../../kernel/iommu_groups/%d", group);
	if (symlink(t, p) != 0)
		return;
	snprintf(p, sizeof(p), "%s/bus/pci/devices/%s/config", fk->sys, bdf);
	fk_write(p, fk->config, sizeof(fk->config));
	char res[512];
	snprintf(res, sizeof(res),
	         "0x00000000fe000000 0x00000000fe003fff 0x0000000000040200\n"
	         "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	         "0x%016llx 0x%016llx 0x000000000014220c\n",
	         (unsigned long long)bar2_bus, (unsigned long long)(bar2_bus + FK_BAR2_SIZE - 1));
	snprintf(p, sizeof(p), "%s/bus/pci/devices/%s/resource", fk->sys, bdf);
	fk_write(p, res, strlen(res));
	snprintf(p, sizeof(p), "%s/kernel/iommu_groups/%d/devices", fk->sys, group);
	fk_mkdirs(p);
	snprintf(p, sizeof(p), "%s/kernel/iommu_groups/%d/devices/%s", fk->sys, group, bdf);
	snprintf(t, sizeof(t), "../../../../bus/pci/devices/%s", bdf);
	if (symlink(t, p) != 0)
		return;
}

static inline int fk_setup(struct fake_kernel *fk)
{
	memset(fk, 0, sizeof(*fk));
	snprintf(fk->root, sizeof(fk->root), "/tmp/p2ps-vfio-XXXXXX");
	if (!mkdtemp(fk->root))
		return -1;
	snprintf(fk->sys, sizeof(fk->sys), "%s/sys", fk->root);
	snprintf(fk->dev, sizeof(fk->dev), "%s/dev", fk->root);
	fk->group_flags = VFIO_GROUP_FLAGS_VIABLE;
	fk->fail_region_index = -1;
	/* A type-0 header: vendor 1af4 device 1110, class 050000, rev 1, subsys. */
	static const uint8_t hdr[0x30] = {0xf4, 0x1a, 0x10, 0x11, 0x03, 0x01, 0x10, 0x00,
	                                  0x01, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
	                                  0x00, 0x00, 0x00, 0xfe, 0x00, 0x00, 0x00, 0x00,
	                                  0x0c, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00};
	memcpy(fk->config, hdr, sizeof(hdr));
	fk->config[0x2c] = 0xf4;
	fk->config[0x2d] = 0x1a;
	fk->config[0x2e] = 0x00;
	fk->config[0x2f] = 0x11;
	for (unsigned i = 0; i < FK_PAGE / 4; i++) {
		uint32_t v = 0x192000a1u + i; /* word 0 looks like an AD102's NV_PMC_BOOT_0 */
		memcpy(fk->bar0_page + 4 * i, &v, 4);
	}
	char p[600];
	snprintf(p, sizeof(p), "%s/vfio", fk->dev);
	fk_mkdirs(p);
	snprintf(p, sizeof(p), "%s/vfio/vfio", fk->dev);
	fk_write(p, "", 0);
	snprintf(p, sizeof(p), "%s/vfio/6", fk->dev);
	fk_write(p, "", 0);
	snprintf(p, sizeof(p), "%s/vfio/devices", fk->dev);
	fk_mkdirs(p);
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/vfio/devices/vfio%d", fk->dev, i);
		fk_write(p, "", 0);
	}
	snprintf(p, sizeof(p), "%s/iommu", fk->dev);
	fk_write(p, "", 0);
	fk_add_pci(fk, "0000:03:00.0", "vfio-pci", 6, FK_BAR2_BUS_A);
	fk_add_pci(fk, "0000:04:00.0", "vfio-pci", 6, FK_BAR2_BUS_B);
	fk_add_pci(fk, "0000:05:00.0", "nvme", 7, 0x4200000000ull);
	snprintf(p, sizeof(p), "%s/bus/pci/devices/0000:03:00.0/vfio-dev/vfio0", fk->sys);
	fk_mkdirs(p);
	snprintf(p, sizeof(p), "%s/bus/pci/devices/0000:04:00.0/vfio-dev/vfio1", fk->sys);
	fk_mkdirs(p);
	return 0;
}

static inline void fk_teardown(struct fake_kernel *fk)
{
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fk->root);
	if (system(cmd) != 0)
		return;
}

static inline int fk_open(void *ctx, const char *path, int flags)
{
	struct fake_kernel *fk = ctx;
	int fd = open(path, flags);
	if (fd < 0 || fd >= FK_MAX_FD)
		return fd;
	size_t n = strlen(path);
	fk->unbound[fd] = false;
	if (n >= 10 && !strcmp(path + n - 10, "/vfio/vfio"))
		fk->role[fd] = FK_CONTAINER;
	else if (n >= 6 && !strcmp(path + n - 6, "/iommu"))
		fk->role[fd] = FK_IOMMUFD;
	else if (strstr(path, "/vfio/devices/")) {
		fk->role[fd] = FK_DEVICE;
		fk->unbound[fd] = true;
	} else if (strstr(path, "/dev/vfio/"))
		fk->role[fd] = FK_GROUP;
	else
		fk->role[fd] = FK_FILE;
	return fd;
}

static inline int fk_close(void *ctx, int fd)
{
	struct fake_kernel *fk = ctx;
	if (fd >= 0 && fd < FK_MAX_FD)
		fk->role[fd] = FK_NONE;
	return close(fd);
}

/* Writes a region-info answer for index into buf (argsz bytes available). */
static inline int fk_region(struct fake_kernel *fk, uint8_t *buf)
{
	struct vfio_region_info ri;
	memcpy(&ri, buf, sizeof(ri));
	uint32_t idx = ri.index, have = ri.argsz;
	if (idx < 16) {
		if (fk->region_calls[idx] < 4)
			fk->region_argsz_seen[idx][fk->region_calls[idx]] = have;
		fk->region_calls[idx]++;
	}
	if ((int)idx == fk->fail_region_index) {
		errno = EIO;
		return -1;
	}
	if (idx == VFIO_PCI_VGA_REGION_INDEX || idx >= VFIO_PCI_NUM_REGIONS) {
		errno = EINVAL;
		return -1;
	}
	struct vfio_region_info out = {.argsz = have, .index = idx};
	out.offset = (uint64_t)idx << 40;
	const uint32_t rw = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
	uint32_t need = sizeof(out);
	if (idx == 0) {
		out.size = FK_BAR0_SIZE;
		out.flags = rw | VFIO_REGION_INFO_FLAG_MMAP | VFIO_REGION_INFO_FLAG_CAPS;
		need = FK_REGION_ARGSZ_BAR0;
	} else if (idx == 2) {
		out.size = FK_BAR2_SIZE;
		out.flags = rw | VFIO_REGION_INFO_FLAG_MMAP;
	} else if (idx == VFIO_PCI_CONFIG_REGION_INDEX) {
		out.size = sizeof(fk->config);
		out.flags = rw;
	}
	if (fk->grow_forever)
		need = have + 8;
	if (fk->huge_argsz)
		need = fk->huge_argsz;
	if (need > have) {
		/* The kernel's answer to a short buffer: the size it needs, no caps. */
		out.argsz = need;
		out.cap_offset = 0;
		memcpy(buf, &out, sizeof(out));
		return 0;
	}
	out.argsz = need;
	if (idx == 0) {
		out.cap_offset = sizeof(out);
		struct vfio_info_cap_header h = {.id = VFIO_REGION_INFO_CAP_SPARSE_MMAP,
		                                 .version = 1};
		memcpy(buf + 32, &h, sizeof(h));
		uint32_t nr = 2;
		memcpy(buf + 40, &nr, 4);
		struct vfio_region_sparse_mmap_area a[2] = {{0, 0x2000}, {0x3000, 0x1000}};
		memcpy(buf + 48, a, sizeof(a));
	}
	memcpy(buf, &out, sizeof(out));
	return 0;
}

static inline int fk_iommu_info(uint8_t *buf)
{
	uint32_t have;
	memcpy(&have, buf, 4);
	const uint32_t need = 24 + 16 + 16;
	struct vfio_iommu_type1_info info = {
	        .argsz = need, .flags = VFIO_IOMMU_INFO_PGSIZES, .iova_pgsizes = 0x40201000ull};
	if (have >= need) {
		info.flags |= VFIO_IOMMU_INFO_CAPS;
		info.cap_offset = 24;
		struct vfio_info_cap_header h = {.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE,
		                                 .version = 1};
		memcpy(buf + 24, &h, sizeof(h));
		uint32_t nr = 1;
		memcpy(buf + 32, &nr, 4);
		struct vfio_iova_range rg = {0, 0xffffffffffull};
		memcpy(buf + 40, &rg, sizeof(rg));
	}
	memcpy(buf, &info, sizeof(info));
	return 0;
}

/* An ioctl this fake does not know: what the kernel says to one it does not know. */
static inline int fk_enotty(void)
{
	errno = ENOTTY;
	return -1;
}

/* The container (/dev/vfio/vfio): type1 IOMMU, DMA maps. */
static inline int fk_container_ioctl(struct fake_kernel *fk, unsigned long req, void *arg)
{
	if (req == VFIO_GET_API_VERSION)
		return VFIO_API_VERSION;
	if (req == VFIO_CHECK_EXTENSION) {
		uintptr_t t = (uintptr_t)arg;
		return (t == VFIO_TYPE1_IOMMU || t == VFIO_TYPE1v2_IOMMU) ? 1 : 0;
	}
	if (req == VFIO_SET_IOMMU) {
		fk->set_iommu_type = (uint32_t)(uintptr_t)arg;
		return 0;
	}
	if (req == VFIO_IOMMU_GET_INFO)
		return fk_iommu_info(arg);
	if (req == VFIO_IOMMU_MAP_DMA) {
		memcpy(&fk->last_map, arg, sizeof(fk->last_map));
		if (fk->map_errno) {
			errno = fk->map_errno;
			return -1;
		}
		return 0;
	}
	if (req == VFIO_IOMMU_UNMAP_DMA) {
		struct vfio_iommu_type1_dma_unmap *u = arg;
		fk->unmap_called = true;
		if (u->iova != fk->last_map.iova) {
			errno = EINVAL;
			return -1;
		}
		return 0;
	}
	return fk_enotty();
}

/* A group (/dev/vfio/N): status, container, device descriptors. */
static inline int fk_group_ioctl(struct fake_kernel *fk, unsigned long req, void *arg)
{
	if (req == VFIO_GROUP_GET_STATUS) {
		struct vfio_group_status *st = arg;
		st->flags = fk->group_flags;
		return 0;
	}
	if (req == VFIO_GROUP_SET_CONTAINER) {
		fk->group_flags |= VFIO_GROUP_FLAGS_CONTAINER_SET;
		return 0;
	}
	if (req == VFIO_GROUP_GET_DEVICE_FD) {
		snprintf(fk->got_device_name, sizeof(fk->got_device_name), "%s", (const char *)arg);
		int dfd = open("/dev/null", O_RDONLY);
		if (dfd >= 0 && dfd < FK_MAX_FD) {
			fk->role[dfd] = FK_DEVICE;
			snprintf(fk->dev_bdf[dfd], sizeof(fk->dev_bdf[dfd]), "%s",
			         (const char *)arg);
		}
		return dfd;
	}
	return fk_enotty();
}

/* /dev/iommu: one IOAS, mappings. */
static inline int fk_iommufd_ioctl(struct fake_kernel *fk, unsigned long req, void *arg)
{
	if (req == IOMMU_IOAS_ALLOC) {
		((struct iommu_ioas_alloc *)arg)->out_ioas_id = 7;
		return 0;
	}
	if (req == IOMMU_IOAS_MAP) {
		struct iommu_ioas_map *m = arg;
		fk->ioas_map_flags = m->flags;
		if (fk->ioas_map_errno) {
			errno = fk->ioas_map_errno;
			return -1;
		}
		m->iova = 0x100000;
		return 0;
	}
	if (req == IOMMU_IOAS_UNMAP)
		return 0;
	return fk_enotty();
}

/* A device descriptor: iommufd binding (cdev), then info, regions and IRQs. */
static inline int fk_device_ioctl(struct fake_kernel *fk, int fd, unsigned long req, void *arg)
{
	if (req == VFIO_DEVICE_BIND_IOMMUFD) {
		struct vfio_device_bind_iommufd *b = arg;
		if (b->iommufd < 0 || b->iommufd >= FK_MAX_FD ||
		    fk->role[b->iommufd] != FK_IOMMUFD) {
			errno = EBADF;
			return -1;
		}
		fk->bind_iommufd = (uint32_t)b->iommufd;
		fk->unbound[fd] = false;
		b->out_devid = 1;
		return 0;
	}
	if (fk->unbound[fd]) {
		errno = EINVAL; /* the kernel blocks device access before binding */
		return -1;
	}
	if (req == VFIO_DEVICE_ATTACH_IOMMUFD_PT) {
		struct vfio_device_attach_iommufd_pt *a = arg;
		fk->attach_pt = a->pt_id;
		a->pt_id = 8; /* the hwpt the kernel created for the IOAS */
		return 0;
	}
	if (req == VFIO_DEVICE_GET_INFO) {
		struct vfio_device_info di = {.argsz = 24,
		                              .flags = VFIO_DEVICE_FLAGS_PCI |
		                                       VFIO_DEVICE_FLAGS_RESET,
		                              .num_regions = VFIO_PCI_NUM_REGIONS,
		                              .num_irqs = VFIO_PCI_NUM_IRQS};
		memcpy(arg, &di, 16);
		return 0;
	}
	if (req == VFIO_DEVICE_GET_REGION_INFO)
		return fk_region(fk, arg);
	if (req == VFIO_DEVICE_GET_IRQ_INFO) {
		struct vfio_irq_info *q = arg;
		q->flags = VFIO_IRQ_INFO_EVENTFD;
		q->count = q->index == VFIO_PCI_MSIX_IRQ_INDEX ? 65 : 1;
		return 0;
	}
	return fk_enotty();
}

static inline int fk_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct fake_kernel *fk = ctx;
	enum fk_role role = (fd >= 0 && fd < FK_MAX_FD) ? fk->role[fd] : FK_NONE;
	switch (role) {
	case FK_CONTAINER: return fk_container_ioctl(fk, req, arg);
	case FK_GROUP: return fk_group_ioctl(fk, req, arg);
	case FK_IOMMUFD: return fk_iommufd_ioctl(fk, req, arg);
	case FK_DEVICE: return fk_device_ioctl(fk, fd, req, arg);
	default: return fk_enotty();
	}
}

static inline ssize_t fk_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
	struct fake_kernel *fk = ctx;
	if (fd >= 0 && fd < FK_MAX_FD && fk->role[fd] == FK_DEVICE) {
		uint64_t region = (uint64_t)off >> 40, at = (uint64_t)off & ((1ull << 40) - 1);
		if (region == VFIO_PCI_CONFIG_REGION_INDEX) {
			if (at >= sizeof(fk->config))
				return 0;
			size_t n = len < sizeof(fk->config) - at ? len : sizeof(fk->config) - at;
			memcpy(buf, fk->config + at, n);
			/* vfio-pci virtualises the BARs: show BAR2's low byte differently. */
			if (at <= 0x18 && 0x18 < at + n)
				((uint8_t *)buf)[0x18 - at] ^= 0x04;
			return (ssize_t)n;
		}
		if (region == 0 && at + len <= FK_BAR0_SIZE && (at % FK_PAGE) + len <= FK_PAGE) {
			memcpy(buf, fk->bar0_page + (at % FK_PAGE), len);
			return (ssize_t)len;
		}
		errno = EINVAL;
		return -1;
	}
	return pread(fd, buf, len, off);
}

static inline void *fk_mmap(void *ctx, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake_kernel *fk = ctx;
	if (fd >= 0 && fd < FK_MAX_FD && fk->role[fd] == FK_DEVICE) {
		if (prot & PROT_WRITE) {
			errno = EPERM; /* the tests insist on read-only mappings */
			return MAP_FAILED;
		}
		if ((uint64_t)off == 0 && len == FK_PAGE)
			return fk->bar0_page;
		return (void *)(uintptr_t)0x7f0000000000ull; /* never dereferenced */
	}
	return mmap(NULL, len, prot, flags, fd, off);
}

static inline int fk_munmap(void *ctx, void *addr, size_t len)
{
	struct fake_kernel *fk = ctx;
	if (addr == fk->bar0_page || addr == (void *)(uintptr_t)0x7f0000000000ull)
		return 0;
	return munmap(addr, len);
}

static inline struct p2ps_vfio_sys fk_sys(struct fake_kernel *fk)
{
	struct p2ps_vfio_sys s = {.open = fk_open,
	                          .close = fk_close,
	                          .ioctl = fk_ioctl,
	                          .pread = fk_pread,
	                          .mmap = fk_mmap,
	                          .munmap = fk_munmap,
	                          .ctx = fk};
	return s;
}

#endif
