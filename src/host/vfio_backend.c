/* p2pscope: the VFIO host backend — the live sysfs model, with what VFIO knows
 * better laid over the devices bound to vfio-pci.
 *
 * Topology, bridges, ACS on the ports, IOMMU groups and the kernel command line
 * come from the live backend: VFIO only describes the devices themselves. What
 * VFIO adds per device: BAR and ROM sizes straight from the region info, and the
 * full config space (through the VFIO config region, which needs access to the
 * group node rather than root), so PCIe link, ACS and ReBAR of the device are
 * decoded even for a non-root user. Opening a device can reset it.
 */
#include "p2pscope/vfio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "host_internal.h"
#include "p2pscope/host.h"
#include "vfio_internal.h"
#include "vfio_uapi.h"

const char *p2ps_vfio_iommu_type_name(uint32_t type)
{
	switch (type) {
	case 0: return "none";
	case VFIO_TYPE1_IOMMU: return "Type1";
	case VFIO_TYPE1v2_IOMMU: return "Type1v2";
	case VFIO_NOIOMMU_IOMMU: return "no-IOMMU";
	default: return "other";
	}
}

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

static int open_one(struct p2ps_vfio_host *vh, const char *bdf, struct p2ps_error *err)
{
	if (p2ps_vfio_host_device(vh, bdf))
		return 0;
	if (vh->n_devs == P2PS_VFIO_MAX_DEVS)
		return p2ps_error_set(err, P2PS_ERANGE, "--vfio: more than %d devices",
		                      P2PS_VFIO_MAX_DEVS);
	struct p2ps_vfio_device *d = &vh->devs[vh->n_devs];
	int rc = p2ps_vfio_device_open(&vh->session, bdf, d, err);
	if (rc)
		return rc;
	vh->n_devs++;
	return 0;
}

/* "all": every device the model shows bound to vfio-pci, in BDF order. */
static int open_bound(struct p2ps_vfio_host *vh, const struct p2ps_host *host,
                      struct p2ps_error *err)
{
	for (size_t i = 0; i < host->n_devs; i++) {
		if (strcmp(host->devs[i].driver, "vfio-pci") != 0)
			continue;
		int rc = open_one(vh, host->devs[i].bdf_str, err);
		if (rc)
			return rc;
	}
	if (vh->n_devs == 0)
		return p2ps_error_set(err, P2PS_ENOENT,
		                      "--vfio all: no device is bound to vfio-pci");
	return 0;
}

static int open_all(struct p2ps_vfio_host *vh, const struct p2ps_host *host, const char *list,
                    struct p2ps_error *err)
{
	char buf[1024];
	if (!list || !list[0])
		return p2ps_error_set(err, P2PS_EINVAL, "--vfio: no devices given");
	if (strlen(list) >= sizeof(buf))
		return p2ps_error_set(err, P2PS_EINVAL, "--vfio: device list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int rc;
		if (!strcmp(tok, "all")) {
			rc = open_bound(vh, host, err);
		} else {
			char bdf[16];
			rc = p2ps_vfio_bdf_normalize(tok, bdf, sizeof(bdf), err);
			if (rc == 0)
				rc = open_one(vh, bdf, err);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int load_into(struct p2ps_host *host, const struct p2ps_host_source *src,
                     const struct p2ps_vfio_opts *opts, struct p2ps_vfio_host *vh,
                     struct p2ps_error *err)
{
	int rc = p2ps_vfio_open(&vh->session, opts, err);
	if (rc)
		return rc;
	rc = open_all(vh, host, src->vfio_bdfs, err);
	if (rc)
		return rc;
	vh->reports = calloc(vh->n_devs, sizeof(*vh->reports));
	if (!vh->reports)
		return p2ps_error_set(err, P2PS_ENOMEM, "vfio: out of memory");
	for (unsigned i = 0; i < vh->n_devs; i++) {
		rc = p2ps_vfio_device_report(&vh->devs[i], &vh->reports[i], err);
		if (rc)
			return rc;
		struct p2ps_bdf bdf;
		if (p2ps_bdf_parse(vh->devs[i].bdf, &bdf) != 0)
			continue;
		struct p2ps_dev *dev = p2ps_host_find(host, &bdf);
		if (dev)
			overlay(dev, &vh->reports[i]);
	}
	if (vh->session.container_fd >= 0) {
		struct p2ps_error e2 = {0};
		vh->iommu_known = p2ps_vfio_iommu_get_info(&vh->session, &e2) == 0;
		if (!vh->iommu_known)
			p2ps_strlcpy(vh->iommu_why, e2.msg, sizeof(vh->iommu_why));
	} else {
		snprintf(vh->iommu_why, sizeof(vh->iommu_why),
		         "cdev/iommufd session: no type1 container");
	}
	return 0;
}

int p2ps_vfio_host_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                        const struct p2ps_vfio_opts *opts, struct p2ps_vfio_host *vh,
                        struct p2ps_error *err)
{
	if (!host || !src || !vh)
		return p2ps_error_set(err, P2PS_EINVAL, "vfio: NULL argument");
	memset(vh, 0, sizeof(*vh));
	struct p2ps_host_source live = *src;
	live.kind = P2PS_HOST_LIVE;
	live.path = NULL;
	int rc = p2ps_host_load(host, &live, err);
	if (rc)
		return rc;
	host->kind = P2PS_HOST_VFIO;
	host->backend_name = "vfio";
	if (src->vfio_bdfs)
		p2ps_strlcpy(host->source_path, src->vfio_bdfs, sizeof(host->source_path));
	rc = load_into(host, src, opts, vh, err);
	if (rc) {
		p2ps_vfio_host_close(vh);
		p2ps_host_free(host);
	}
	return rc;
}

void p2ps_vfio_host_close(struct p2ps_vfio_host *vh)
{
	if (!vh)
		return;
	for (unsigned i = 0; i < vh->n_devs; i++)
		p2ps_vfio_device_close(&vh->devs[i]);
	p2ps_vfio_close(&vh->session);
	free(vh->reports);
	memset(vh, 0, sizeof(*vh));
}

struct p2ps_vfio_device *p2ps_vfio_host_device(struct p2ps_vfio_host *vh, const char *bdf)
{
	char norm[16];
	if (!vh || p2ps_vfio_bdf_normalize(bdf, norm, sizeof(norm), NULL) != 0)
		return NULL;
	for (unsigned i = 0; i < vh->n_devs; i++)
		if (!strcmp(vh->devs[i].bdf, norm))
			return &vh->devs[i];
	return NULL;
}

const struct p2ps_vfio_dev_report *p2ps_vfio_host_report(const struct p2ps_vfio_host *vh,
                                                         const char *bdf)
{
	char norm[16];
	if (!vh || !vh->reports || p2ps_vfio_bdf_normalize(bdf, norm, sizeof(norm), NULL) != 0)
		return NULL;
	for (unsigned i = 0; i < vh->n_devs; i++)
		if (!strcmp(vh->reports[i].bdf, norm))
			return &vh->reports[i];
	return NULL;
}

/* The registry entry: p2ps_host_load() with P2PS_HOST_VFIO. host arrives zeroed;
 * the live backend fills it first, then the VFIO facts are laid over and the
 * session is closed again (callers that need the devices afterwards use
 * p2ps_vfio_host_load). */
static int vfio_backend_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                             struct p2ps_error *err)
{
	const struct p2ps_host_backend *live_be = p2ps_host_backend_find(P2PS_HOST_LIVE);
	if (!live_be)
		return p2ps_error_set(err, P2PS_ENOTSUP, "vfio: the live sysfs backend is missing");
	struct p2ps_host_source live = *src;
	live.kind = P2PS_HOST_LIVE;
	live.path = NULL;
	int rc = live_be->load(host, &live, err);
	if (rc)
		return rc;
	/* The model's lookup needs sorted devices; sorting twice is harmless. */
	p2ps_host_sort_and_link(host);
	struct p2ps_vfio_host *vh = calloc(1, sizeof(*vh));
	if (!vh)
		return p2ps_error_set(err, P2PS_ENOMEM, "vfio: out of memory");
	rc = load_into(host, src, NULL, vh, err);
	p2ps_vfio_host_close(vh);
	free(vh);
	return rc;
}

const struct p2ps_host_backend p2ps_host_backend_vfio = {
        .name = "vfio",
        .kind = P2PS_HOST_VFIO,
        .help = "devices bound to vfio-pci, through /dev/vfio (opening a device can reset it)",
        .load = vfio_backend_load,
};
