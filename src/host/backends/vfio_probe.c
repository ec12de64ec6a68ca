/* SPDX-License-Identifier: MIT */
/* The VFIO backend's work on open devices (vfio_probe.h) and the register reads through
 * sysfs that a live load does for --read-reg without VFIO (backends.h). */
#include "vfio_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "host_internal.h"

/* A facts block with room for one register read per device of the model. */
static struct p2ps_vfio_facts *facts_new(const struct p2ps_host *host,
                                         const struct p2ps_vfio_request *req)
{
	size_t n = req->asked.read_reg ? host->n_devs : 0;
	struct p2ps_vfio_facts *f = calloc(1, sizeof(*f) + n * sizeof(f->regs[0]));
	if (!f)
		return NULL;
	f->asked = req->asked;
	return f;
}

static struct p2ps_vfio_device *probe_device(struct p2ps_vfio_probe *pr, const struct p2ps_bdf *bdf)
{
	for (unsigned i = 0; i < pr->n_devs; i++)
		if (p2ps_bdf_equal(&pr->devs[i].addr, bdf))
			return &pr->devs[i];
	return NULL;
}

static int open_one(struct p2ps_vfio_probe *pr, const struct p2ps_bdf *bdf, struct p2ps_error *err)
{
	if (probe_device(pr, bdf))
		return 0;
	if (pr->n_devs == P2PS_VFIO_MAX_DEVS)
		return p2ps_error_set(err, P2PS_ERANGE, "vfio: more than %d devices requested",
		                      P2PS_VFIO_MAX_DEVS);
	int rc = p2ps_vfio_device_open(&pr->session, bdf, &pr->devs[pr->n_devs], err);
	if (rc)
		return rc;
	pr->n_devs++;
	return 0;
}

/* "all": every device the model shows bound to vfio-pci, in address order. */
static int open_bound(struct p2ps_vfio_probe *pr, const struct p2ps_host *host,
                      struct p2ps_error *err)
{
	for (size_t i = 0; i < host->n_devs; i++) {
		if (strcmp(host->devs[i].driver, "vfio-pci") != 0)
			continue;
		int rc = open_one(pr, &host->devs[i].bdf, err);
		if (rc)
			return rc;
	}
	if (pr->n_devs == 0)
		return p2ps_error_set(err, P2PS_ENOENT, "vfio: no device is bound to vfio-pci");
	return 0;
}

int p2ps_vfio_probe_open(struct p2ps_vfio_probe *pr, const struct p2ps_host *host,
                         const struct p2ps_vfio_request *req, struct p2ps_error *err)
{
	memset(pr, 0, sizeof(*pr));
	pr->facts = facts_new(host, req);
	if (!pr->facts)
		return p2ps_error_set(err, P2PS_ENOMEM, "vfio: out of memory");
	pr->facts->opened = true;
	struct p2ps_vfio_opts vo = {.flow = req->flow};
	int rc = p2ps_vfio_open(&pr->session, &vo, err);
	for (size_t i = 0; rc == 0 && i < req->n_targets; i++)
		rc = req->targets[i].all_bound ? open_bound(pr, host, err)
		                               : open_one(pr, &req->targets[i].bdf, err);
	struct p2ps_vfio_facts *f = pr->facts;
	for (unsigned i = 0; rc == 0 && i < pr->n_devs; i++) {
		rc = p2ps_vfio_device_report(&pr->devs[i], &f->devs[i], err);
		f->n_devs = i + 1;
	}
	if (rc)
		return rc;
	if (pr->session.container_fd >= 0) {
		struct p2ps_error e2 = {0};
		f->iommu_known = p2ps_vfio_iommu_get_info(&pr->session, &e2) == 0;
		if (!f->iommu_known)
			p2ps_strlcpy(f->iommu_why, e2.msg, sizeof(f->iommu_why));
	} else {
		snprintf(f->iommu_why, sizeof(f->iommu_why),
		         "cdev/iommufd session: no type1 container");
	}
	return 0;
}

/* Reads the register on one device, through VFIO when d is open there, else through
 * sysfs resourceN. */
static void read_one(const struct p2ps_vfio_request *req, struct p2ps_vfio_device *d,
                     const struct p2ps_dev *dev, struct p2ps_vfio_reg_read *r)
{
	memset(r, 0, sizeof(*r));
	r->addr = dev->bdf;
	snprintf(r->bdf, sizeof(r->bdf), "%s", dev->bdf_str);
	struct p2ps_error e = {0};
	if (p2ps_vfio_read_reg(d, NULL, &dev->bdf, req->asked.reg_bar, req->asked.reg_off,
	                       &r->value, r->how, sizeof(r->how), &e) != 0) {
		snprintf(r->error, sizeof(r->error), "%s", e.msg);
		return;
	}
	r->ok = true;
	/* NV_PMC_BOOT_0 lives at BAR0 + 0 on every NVIDIA GPU since NV1. */
	if (dev->vendor_id == 0x10de && req->asked.reg_bar == 0 && req->asked.reg_off == 0) {
		r->nvidia_boot0 = true;
		p2ps_nv_boot0_decode(r->value, &r->boot0);
	}
}

/* Every device the request selects: the open VFIO devices (narrowed by the filter), or
 * without VFIO the devices the filter selects. */
static void read_regs(struct p2ps_vfio_probe *pr, const struct p2ps_host *host,
                      const struct p2ps_vfio_request *req, struct p2ps_vfio_facts *f)
{
	for (size_t i = 0; i < host->n_devs; i++) {
		const struct p2ps_dev *dev = &host->devs[i];
		struct p2ps_vfio_device *d = pr ? probe_device(pr, &dev->bdf) : NULL;
		if (!p2ps_slot_match(req->reg_filter, &dev->bdf) || (pr && !d))
			continue;
		read_one(req, d, dev, &f->regs[f->n_regs++]);
	}
}

int p2ps_vfio_probe_run(struct p2ps_vfio_probe *pr, const struct p2ps_host *host,
                        const struct p2ps_vfio_request *req, struct p2ps_error *err)
{
	(void)err;
	if (req->asked.read_reg)
		read_regs(pr, host, req, pr->facts);
	if (req->asked.map_peer) {
		struct p2ps_error e = {0};
		struct p2ps_vfio_device *a = probe_device(pr, &req->asked.peer_a);
		struct p2ps_vfio_device *b = probe_device(pr, &req->asked.peer_b);
		if (p2ps_vfio_map_peer(a, b, req->asked.peer_bar, &pr->facts->peer, &e) != 0)
			snprintf(pr->facts->peer_error, sizeof(pr->facts->peer_error), "%s", e.msg);
	}
	return 0;
}

void p2ps_vfio_probe_close(struct p2ps_vfio_probe *pr, struct p2ps_host *host, bool keep)
{
	struct p2ps_vfio_facts *f = pr->facts;
	const struct p2ps_vfio *s = &pr->session;
	if (f) {
		f->container = s->container_fd >= 0;
		f->api_version = s->api_version;
		f->ext_type1 = s->ext_type1;
		f->ext_type1v2 = s->ext_type1v2;
		f->ext_noiommu = s->ext_noiommu;
		f->iommu_type = s->iommu_type;
		f->iommu = s->iommu;
	}
	for (unsigned i = 0; i < pr->n_devs; i++)
		p2ps_vfio_device_close(&pr->devs[i]);
	p2ps_vfio_close(&pr->session);
	if (keep && f) {
		free(host->vfio);
		host->vfio = f;
	} else {
		free(f);
	}
	pr->facts = NULL;
}

int p2ps_vfio_probe_sysfs_regs(struct p2ps_host *host, const struct p2ps_vfio_request *req,
                               struct p2ps_error *err)
{
	struct p2ps_vfio_facts *f = facts_new(host, req);
	if (!f)
		return p2ps_error_set(err, P2PS_ENOMEM, "register reads: out of memory");
	read_regs(NULL, host, req, f);
	free(host->vfio);
	host->vfio = f;
	return 0;
}
