/* SPDX-License-Identifier: MIT */
/* p2pscope VFIO: the INFO ioctls with argsz growth, config space through VFIO and the
 * whole-device report (include/p2pscope/vfio/session.h). */
#include "p2pscope/vfio/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/vfio/caps.h"
#include "vfio_internal.h"
#include "vfio_uapi.h"

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
			return p2ps_vfio_sys_fail(err, e, who, "ioctl", what);
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

/* An INFO query of the device fd decoded by parse; a decoding failure names the device. */
static int device_query(struct p2ps_vfio_device *d, unsigned long req, const void *tmpl,
                        size_t fixed, const char *what,
                        int (*parse)(const uint8_t *, size_t, void *, struct p2ps_error *),
                        void *out, struct p2ps_error *err)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = info_ioctl(d->v->sys, d->fd, req, tmpl, fixed, d->bdf, what, &buf, &len, err);
	if (rc)
		return rc;
	rc = parse(buf, len, out, err);
	free(buf);
	return rc ? p2ps_error_prefix(err, "%s", d->bdf) : 0;
}

static int parse_device_info(const uint8_t *buf, size_t len, void *out, struct p2ps_error *err)
{
	return p2ps_vfio_device_info_parse(buf, len, out, err);
}

static int parse_region(const uint8_t *buf, size_t len, void *out, struct p2ps_error *err)
{
	return p2ps_vfio_region_parse(buf, len, out, err);
}

int p2ps_vfio_device_get_info(struct p2ps_vfio_device *d, struct p2ps_vfio_device_info *out,
                              struct p2ps_error *err)
{
	if (!d || d->fd < 0 || !out)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: device not open");
	struct vfio_device_info tmpl = {.argsz = sizeof(tmpl)};
	return device_query(d, VFIO_DEVICE_GET_INFO, &tmpl, sizeof(tmpl), "VFIO_DEVICE_GET_INFO",
	                    parse_device_info, out, err);
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
	int rc = device_query(d, VFIO_DEVICE_GET_REGION_INFO, &tmpl, sizeof(tmpl), what,
	                      parse_region, out, err);
	if (rc)
		return rc;
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
		return p2ps_vfio_sys_fail(err, errno, d->bdf, "ioctl", what);
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
			return p2ps_vfio_sys_fail(err, errno, d->bdf, "pread", what);
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
	out->addr = d->addr;
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
