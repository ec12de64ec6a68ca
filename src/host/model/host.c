/* SPDX-License-Identifier: MIT */
/* The host model: building devices, lookups, completing and freeing a model. */
#include "host_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"
#include "p2pscope/evidence.h"
#include "grow.h"

void p2ps_strlcpy(char *dst, const char *src, size_t size)
{
	if (!size)
		return;
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void p2ps_dev_set_unknown(struct p2ps_dev *dev, enum p2ps_fact fact, const char *fmt, ...)
{
	if (fact < 0 || fact >= P2PS_FACT_COUNT)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dev->unknown[fact], sizeof(dev->unknown[fact]), fmt, ap);
	va_end(ap);
}

const char *p2ps_dev_unknown(const struct p2ps_dev *dev, enum p2ps_fact fact)
{
	if (!dev || fact < 0 || fact >= P2PS_FACT_COUNT || !dev->unknown[fact][0])
		return NULL;
	return dev->unknown[fact];
}

const char *p2ps_fact_name(enum p2ps_fact fact)
{
	/* JSON keys of dev->unknown[], in enum p2ps_fact's order. */
	static const char *const names[] = {
	        "config", "caps",      "bar_sizes",   "link_cap", "link_status", "acs",  "rebar",
	        "driver", "numa_node", "iommu_group", "boot_vga", "parent",      "vram", "nvlink"};
	_Static_assert(sizeof(names) / sizeof(names[0]) == P2PS_FACT_COUNT, "one name per fact");
	if (fact < 0 || fact >= P2PS_FACT_COUNT)
		return "?";
	return names[fact];
}

struct p2ps_dev *p2ps_host_add_dev(struct p2ps_host *host, size_t *cap)
{
	if (!p2ps_grow((void **)&host->devs, cap, host->n_devs + 1, sizeof(*host->devs)))
		return NULL;
	struct p2ps_dev *d = &host->devs[host->n_devs++];
	memset(d, 0, sizeof(*d));
	d->parent_idx = -1;
	d->numa_node = -1;
	d->iommu_group = -1;
	d->boot_vga = -1;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		d->bars[i].index = (uint8_t)i;
	return d;
}

static int dev_cmp(const void *a, const void *b)
{
	return p2ps_bdf_compare(&((const struct p2ps_dev *)a)->bdf,
	                        &((const struct p2ps_dev *)b)->bdf);
}

void p2ps_host_sort_and_link(struct p2ps_host *host)
{
	if (host->n_devs > 1)
		qsort(host->devs, host->n_devs, sizeof(host->devs[0]), dev_cmp);
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		d->parent = d->has_parent ? p2ps_host_find(host, &d->parent_bdf) : NULL;
		d->parent_idx = d->parent ? (int)(d->parent - host->devs) : -1;
	}
}

struct p2ps_dev *p2ps_host_find(const struct p2ps_host *host, const struct p2ps_bdf *bdf)
{
	if (!host || !bdf)
		return NULL;
	for (size_t i = 0; i < host->n_devs; i++)
		if (p2ps_bdf_equal(&host->devs[i].bdf, bdf))
			return &host->devs[i];
	return NULL;
}

const struct p2ps_driver_p2p *p2ps_host_driver_p2p(const struct p2ps_host *host,
                                                   const struct p2ps_bdf *x,
                                                   const struct p2ps_bdf *y)
{
	if (!host || !x || !y)
		return NULL;
	for (int i = 0; i < host->nvidia.rm.n_p2p && i < P2PS_HOST_MAX_DRIVER_P2P; i++) {
		const struct p2ps_driver_p2p *p = &host->nvidia.rm.p2p[i];
		if ((p2ps_bdf_equal(&p->a, x) && p2ps_bdf_equal(&p->b, y)) ||
		    (p2ps_bdf_equal(&p->a, y) && p2ps_bdf_equal(&p->b, x)))
			return p;
	}
	return NULL;
}

bool p2ps_dev_is_bridge(const struct p2ps_dev *dev)
{
	return dev && dev->header_type == 1;
}

bool p2ps_dev_is_nvidia_gpu(const struct p2ps_dev *dev)
{
	return dev && dev->vendor_id == 0x10de && (dev->class_code >> 16) == 0x03;
}

void p2ps_gpu_add_nvlink_peer(struct p2ps_gpu_facts *g, const struct p2ps_bdf *peer, int links)
{
	int k;
	for (k = 0; k < g->n_nvlink_peers; k++)
		if (p2ps_bdf_equal(&g->nvlink_peers[k].bdf, peer))
			break;
	if (k == P2PS_HOST_MAX_NVLINK)
		return;
	if (k == g->n_nvlink_peers) {
		g->nvlink_peers[k] = (struct p2ps_nvlink_peer){*peer, 0};
		g->n_nvlink_peers++;
	}
	/* A GPU has no more links than that, whatever a damaged paste repeats. */
	int n = g->nvlink_peers[k].links + links;
	g->nvlink_peers[k].links = n < P2PS_HOST_MAX_NVLINK ? n : P2PS_HOST_MAX_NVLINK;
}

void p2ps_gpu_add_fabric_peer(struct p2ps_dev *a, int a_links, const struct p2ps_dev *b,
                              int b_links)
{
	if (a_links > 0 && b_links > 0)
		p2ps_gpu_add_nvlink_peer(&a->gpu, &b->bdf, a_links < b_links ? a_links : b_links);
}

void p2ps_host_finish(struct p2ps_host *host)
{
	p2ps_host_sort_and_link(host);
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		/* A backend may know the chip without a device id (a paste names the board). */
		if (d->vendor_id == 0x10de && p2ps_nvidia_chip_lookup(d->device_id))
			d->chip = p2ps_nvidia_chip_lookup(d->device_id);
	}
}

bool p2ps_slot_match(const struct p2ps_slot_filter *f, const struct p2ps_bdf *bdf)
{
	if (!f)
		return true;
	return (f->domain < 0 || (uint32_t)f->domain == bdf->domain) &&
	       (f->bus < 0 || f->bus == bdf->bus) && (f->dev < 0 || f->dev == bdf->dev) &&
	       (f->fn < 0 || f->fn == bdf->fn);
}

void p2ps_host_free(struct p2ps_host *host)
{
	if (!host)
		return;
	free(host->devs);
	free(host->cmdline.raw);
	free(host->vfio); /* one allocation, no pointers inside */
	if (host->evidence) {
		p2ps_evidence_free(host->evidence);
		free(host->evidence);
	}
	memset(host, 0, sizeof(*host));
}
