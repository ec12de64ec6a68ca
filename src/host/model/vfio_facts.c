/* SPDX-License-Identifier: MIT */
/* Names of the VFIO facts of the model (include/p2pscope/vfio/facts.h). */
#include "p2pscope/vfio/facts.h"

#include <linux/vfio.h>
#include <stdio.h>
#include <string.h>

const char *p2ps_vfio_chain_end_name(enum p2ps_vfio_chain_end end)
{
	switch (end) {
	case P2PS_VFIO_CHAIN_NONE: return "none";
	case P2PS_VFIO_CHAIN_OK: return "ok";
	case P2PS_VFIO_CHAIN_LOOPED: return "looped";
	case P2PS_VFIO_CHAIN_BROKEN: return "broken";
	case P2PS_VFIO_CHAIN_TOO_LONG: return "too_long";
	}
	return "unknown";
}

const char *p2ps_vfio_region_name(uint32_t index, char *buf, size_t size)
{
	if (!buf || size == 0)
		return "";
	if (index < P2PS_VFIO_PCI_ROM)
		snprintf(buf, size, "bar%u", index);
	else if (index == P2PS_VFIO_PCI_ROM)
		snprintf(buf, size, "rom");
	else if (index == P2PS_VFIO_PCI_CONFIG)
		snprintf(buf, size, "config");
	else if (index == P2PS_VFIO_PCI_VGA)
		snprintf(buf, size, "vga");
	else
		snprintf(buf, size, "region%u", index);
	return buf;
}

const char *p2ps_vfio_region_flags_str(uint32_t flags, char *buf, size_t size)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
	        {VFIO_REGION_INFO_FLAG_READ, "read"},
	        {VFIO_REGION_INFO_FLAG_WRITE, "write"},
	        {VFIO_REGION_INFO_FLAG_MMAP, "mmap"},
	        {VFIO_REGION_INFO_FLAG_CAPS, "caps"},
	};
	if (!buf || size == 0)
		return "";
	buf[0] = '\0';
	size_t n = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		int w = snprintf(buf + n, size - n, "%s%s", n ? " " : "", names[i].name);
		if (w < 0 || (size_t)w >= size - n)
			break;
		n += (size_t)w;
	}
	return buf;
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

const struct p2ps_vfio_dev_report *p2ps_vfio_facts_report(const struct p2ps_vfio_facts *f,
                                                          const struct p2ps_bdf *bdf)
{
	for (unsigned i = 0; f && bdf && i < f->n_devs; i++)
		if (p2ps_bdf_equal(&f->devs[i].addr, bdf))
			return &f->devs[i];
	return NULL;
}

static const char *const irq_index_names[] = {"intx", "msi", "msix", "err", "req"};

const char *p2ps_vfio_irq_name(uint32_t index)
{
	return index < sizeof(irq_index_names) / sizeof(irq_index_names[0]) ? irq_index_names[index]
	                                                                    : "other";
}

/* The IOMMU context a device was opened into: the container's model, or the
 * iommufd IOAS of the cdev flow. */
const char *p2ps_vfio_report_iommu_name(const struct p2ps_vfio_dev_report *r)
{
	return r->flow == P2PS_VFIO_FLOW_CDEV ? "iommufd"
	                                      : p2ps_vfio_iommu_type_name(r->iommu_type);
}

const char *p2ps_vfio_peer_iommu_name(const struct p2ps_vfio_peer_map *m)
{
	if (m->method && !strcmp(m->method, "IOMMU_IOAS_MAP"))
		return "iommufd";
	return p2ps_vfio_iommu_type_name(m->iommu_type);
}
