/* SPDX-License-Identifier: MIT */
/* The VFIO backend: the live sysfs model, with what VFIO knows better laid over the
 * devices bound to vfio-pci, and every VFIO fact kept in host->vfio.
 *
 * Topology, bridges, ACS on the ports, IOMMU groups and the kernel command line come
 * from the live backend: VFIO only describes the devices themselves. What VFIO adds per
 * device: BAR and ROM sizes straight from the region info, and the full config space
 * (through the VFIO config region, which needs access to the group node rather than
 * root), so PCIe link, ACS and ReBAR of the device are decoded even for a non-root user.
 * The register reads and the peer mapping the request asks for run while the devices
 * are open; the session is closed before the load returns. Opening a device can reset
 * it.
 */
#include "backends.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_decode.h"
#include "host_internal.h"
#include "p2pscope/vfio.h"
#include "vfio_probe.h"

/* Lays the VFIO facts of one device over the model's entry. */
static void overlay(struct p2ps_dev *dev, const struct p2ps_vfio_dev_report *r)
{
	for (unsigned i = 0; i < P2PS_HOST_MAX_BARS && i < r->n_regions; i++) {
		const struct p2ps_vfio_region *reg = &r->regions[i];
		struct p2ps_bar *bar = &dev->bars[i];
		if (reg->query_errno || reg->size == 0)
			continue;
		/* The region size is the BAR size as vfio-pci sized it from the
		 * kernel's resource; it is exact even where a dump had none. */
		bar->present = true;
		bar->index = (uint8_t)i;
		bar->size = reg->size;
		bar->size_known = true;
	}
	if (r->n_regions > P2PS_VFIO_PCI_ROM) {
		const struct p2ps_vfio_region *rom = &r->regions[P2PS_VFIO_PCI_ROM];
		if (!rom->query_errno && rom->size) {
			dev->rom.present = true;
			dev->rom.size = rom->size;
			dev->rom.size_known = true;
		}
	}
	if (r->config_len > dev->config_len && r->config_len <= sizeof(dev->config) &&
	    r->check.identity_match) {
		memcpy(dev->config, r->config, r->config_len);
		dev->config_len = r->config_len;
		dev->config_limited = false;
		/* The capability facts are decoded again from the longer config
		 * space; their old "needs root" reasons no longer hold. */
		static const enum p2ps_fact refreshed[] = {
		        P2PS_FACT_CONFIG,      P2PS_FACT_CAPS, P2PS_FACT_LINK_CAP,
		        P2PS_FACT_LINK_STATUS, P2PS_FACT_ACS,  P2PS_FACT_REBAR,
		};
		for (size_t i = 0; i < sizeof(refreshed) / sizeof(refreshed[0]); i++)
			dev->unknown[refreshed[i]][0] = '\0';
		p2ps_cfg_decode_caps(dev);
	}
}

/* The source as the report names it: the targets, comma-separated. */
static void source_name(struct p2ps_host *host, const struct p2ps_vfio_request *req)
{
	size_t n = 0;
	char *out = host->source_path;
	out[0] = '\0';
	for (size_t i = 0; i < req->n_targets && n < sizeof(host->source_path); i++) {
		char b[P2PS_BDF_STR_MAX];
		const char *t = req->targets[i].all_bound
		                        ? "all"
		                        : p2ps_bdf_format(&req->targets[i].bdf, b, sizeof(b));
		int w = snprintf(out + n, sizeof(host->source_path) - n, "%s%s", n ? "," : "", t);
		n += w > 0 ? (size_t)w : 0;
	}
}

/* Loads the live model first; the host is the live one, reported as VFIO. */
static int load_live(struct p2ps_host *host, const struct p2ps_host_source *src,
                     struct p2ps_error *err)
{
	const struct p2ps_host_backend *live_be = p2ps_host_backend_find(P2PS_HOST_LIVE);
	if (!live_be)
		return p2ps_error_set(err, P2PS_ENOTSUP, "vfio: the live sysfs backend is missing");
	struct p2ps_host_source live = *src;
	live.kind = P2PS_HOST_LIVE;
	live.path = NULL;
	host->kind = P2PS_HOST_LIVE;
	host->backend_name = live_be->name;
	int rc = live_be->load(host, &live, err);
	if (rc)
		return rc;
	/* The lookups below need sorted devices; the loader sorts again, harmlessly. */
	p2ps_host_sort_and_link(host);
	host->kind = P2PS_HOST_VFIO;
	host->backend_name = p2ps_host_backend_vfio.name;
	return 0;
}

static int vfio_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                     struct p2ps_error *err)
{
	const struct p2ps_vfio_request *req = src->vfio;
	if (!req || !req->n_targets)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: no devices given");
	int rc = load_live(host, src, err);
	if (rc)
		return rc;
	source_name(host, req);
	struct p2ps_vfio_probe pr;
	rc = p2ps_vfio_probe_open(&pr, host, req, err);
	for (unsigned i = 0; rc == 0 && i < pr.n_devs; i++) {
		struct p2ps_dev *dev = p2ps_host_find(host, &pr.devs[i].addr);
		if (dev)
			overlay(dev, &pr.facts->devs[i]);
	}
	if (rc == 0)
		rc = p2ps_vfio_probe_run(&pr, host, req, err);
	p2ps_vfio_probe_close(&pr, host, rc == 0);
	return rc;
}

const struct p2ps_host_backend p2ps_host_backend_vfio = {
        .name = "vfio",
        .kind = P2PS_HOST_VFIO,
        .help = "devices bound to vfio-pci, through /dev/vfio (opening a device can reset it)",
        .load = vfio_load,
};
