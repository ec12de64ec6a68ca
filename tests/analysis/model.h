/* SPDX-License-Identifier: MIT */
/* Builds host models by hand for the analysis tests: a switch here, a root port there,
 * GPUs with chosen BARs, links, ACS and IOMMU facts. Every default is what a healthy
 * BAR1-P2P host looks like (ReBAR on, IOMMU off, no ACS redirect), so each test changes
 * exactly the fact it is about. */
#ifndef P2PS_TEST_MODEL_H
#define P2PS_TEST_MODEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/analysis.h"
#include "p2pscope/host.h"
#include "p2pscope/nvidia_chips.h"

#define TM_MAX_DEVS 64
#define TM_GIB      (1024ull * 1024 * 1024)
#define TM_MIB      (1024ull * 1024)

static inline void tm_init(struct p2ps_host *h)
{
	memset(h, 0, sizeof(*h));
	h->devs = calloc(TM_MAX_DEVS, sizeof(*h->devs));
	h->kind = P2PS_HOST_SNAPSHOT;
	h->backend_name = "test";
	h->iommu.known = true;
	h->cmdline.known = true;
	h->vm.known = true;
	h->nvidia.module_known = true;
	h->nvidia.proc_known = true;
	snprintf(h->nvidia.module_version, sizeof(h->nvidia.module_version), "575.51.02");
	snprintf(h->nvidia.proc_driver_version, sizeof(h->nvidia.proc_driver_version), "575.51.02");
}

/* Adds a device under parent (host->devs index, -1 = on a root bus). */
static inline int tm_dev(struct p2ps_host *h, const char *bdf, uint16_t vendor, uint16_t device,
                         uint32_t class_code, int parent)
{
	int i = (int)h->n_devs++;
	struct p2ps_dev *d = &h->devs[i];
	memset(d, 0, sizeof(*d));
	p2ps_bdf_parse(bdf, &d->bdf);
	p2ps_bdf_format(&d->bdf, d->bdf_str, sizeof(d->bdf_str));
	d->vendor_id = vendor;
	d->device_id = device;
	d->class_code = class_code;
	d->parent_idx = parent;
	d->numa_node = 0;
	d->iommu_group = -1;
	d->boot_vga = 0;
	d->config_len = 4096;
	for (int b = 0; b < P2PS_HOST_MAX_BARS; b++)
		d->bars[b].index = (uint8_t)b;
	return i;
}

static inline void tm_link(struct p2ps_dev *d, uint8_t cap_speed, uint8_t cap_width,
                           uint8_t sta_speed, uint8_t sta_width)
{
	d->pcie.cap = (struct p2ps_link){cap_speed, cap_width};
	d->pcie.sta = (struct p2ps_link){sta_speed, sta_width};
	d->pcie.cap_source = d->pcie.sta_source = P2PS_LINK_CONFIG;
}

/* A PCIe bridge: root port, switch upstream or downstream port. */
static inline int tm_bridge(struct p2ps_host *h, const char *bdf, uint8_t type, int parent)
{
	uint16_t vendor = type == P2PS_PCIE_ROOT_PORT ? 0x8086 : 0x10b5;
	uint16_t device = type == P2PS_PCIE_ROOT_PORT ? 0x2030 : 0x8747;
	int i = tm_dev(h, bdf, vendor, device, 0x060400, parent);
	struct p2ps_dev *d = &h->devs[i];
	d->header_type = 1;
	d->bridge.is_bridge = true;
	d->pcie.present = true;
	d->pcie.port_type = type;
	tm_link(d, 4, 16, 4, 16);
	return i;
}

static inline void tm_acs(struct p2ps_dev *d, uint16_t cap, uint16_t ctl)
{
	d->acs.present = true;
	d->acs.offset = 0x148;
	d->acs.cap = cap;
	d->acs.ctl = ctl;
}

static inline void tm_bar(struct p2ps_dev *d, int i, uint64_t addr, uint64_t size, bool is64,
                          bool pref)
{
	d->bars[i] = (struct p2ps_bar){.present = true,
	                               .index = (uint8_t)i,
	                               .address = addr,
	                               .size = size,
	                               .size_known = true,
	                               .is_64bit = is64,
	                               .prefetchable = pref};
}

/* A GeForce-style GPU (BAR0 32-bit, BAR1 64-bit prefetchable at register 1) with
 * BAR1 = 32 GiB and 24 GiB of VRAM, Gen4 x16, bound to nvidia. */
static inline int tm_gpu(struct p2ps_host *h, const char *bdf, uint16_t device, int parent)
{
	int i = tm_dev(h, bdf, 0x10de, device, 0x030000, parent);
	struct p2ps_dev *d = &h->devs[i];
	uint64_t base = 0x10000000000ull + (uint64_t)i * 64 * TM_GIB;
	d->header_type = 0;
	tm_bar(d, 0, 0xa0000000 + (uint64_t)i * 16 * TM_MIB, 16 * TM_MIB, false, false);
	tm_bar(d, 1, base, 32 * TM_GIB, true, true);
	tm_bar(d, 3, base + 32 * TM_GIB, 32 * TM_MIB, true, true);
	d->pcie.present = true;
	d->pcie.port_type = P2PS_PCIE_LEGACY_ENDPOINT;
	tm_link(d, 4, 16, 4, 16);
	d->gpu.source = P2PS_GPU_SRC_NVML;
	d->gpu.vram_known = true;
	d->gpu.vram_bytes = 24 * TM_GIB;
	d->gpu.nvlink_known = true;
	snprintf(d->driver, sizeof(d->driver), "nvidia");
	d->rebar.present = true;
	d->rebar.count = 1;
	d->rebar.e[0].bar = 1;
	d->rebar.e[0].sizes = 0x3fffull << 6; /* 64 MiB .. 512 GiB */
	d->rebar.e[0].current = 15;           /* 32 GiB */
	return i;
}

static inline bool tm_below(const struct p2ps_host *h, size_t dev, size_t bridge)
{
	int p = h->devs[dev].parent_idx;
	for (int n = 0; p >= 0 && n < 64; n++, p = h->devs[p].parent_idx)
		if ((size_t)p == bridge)
			return true;
	return false;
}

/* Opens each bridge's windows just wide enough for the BARs below it, as firmware
 * does, unless the test set a window itself. */
static inline void tm_windows(struct p2ps_host *h, size_t br)
{
	struct p2ps_bridge *b = &h->devs[br].bridge;
	bool set_pref = !b->pref.present, set_mem = !b->mem.present;
	for (size_t i = 0; i < h->n_devs; i++) {
		if (!tm_below(h, i, br))
			continue;
		for (int k = 0; k < P2PS_HOST_MAX_BARS; k++) {
			const struct p2ps_bar *r = &h->devs[i].bars[k];
			if (!r->present || r->io || r->unassigned || !r->size_known)
				continue;
			struct p2ps_window *w = r->prefetchable ? &b->pref : &b->mem;
			if (!(r->prefetchable ? set_pref : set_mem))
				continue;
			if (!w->present || r->address < w->base)
				w->base = r->address;
			if (!w->present || r->address + r->size - 1 > w->limit)
				w->limit = r->address + r->size - 1;
			w->present = true;
		}
	}
}

/* Resolves parent pointers, root buses and chips like p2ps_host_load() does. */
static inline void tm_finish(struct p2ps_host *h)
{
	for (size_t i = 0; i < h->n_devs; i++)
		if (h->devs[i].bridge.is_bridge)
			tm_windows(h, i);
	for (size_t i = 0; i < h->n_devs; i++) {
		struct p2ps_dev *d = &h->devs[i];
		d->parent = d->parent_idx >= 0 ? &h->devs[d->parent_idx] : NULL;
		d->has_parent = d->parent != NULL;
		if (d->parent)
			d->parent_bdf = d->parent->bdf;
		const struct p2ps_dev *top = d;
		for (int n = 0; top->parent_idx >= 0 && n < 64; n++)
			top = &h->devs[top->parent_idx];
		snprintf(d->root_bus, sizeof(d->root_bus), "pci%04x:%02x",
		         (unsigned)top->bdf.domain, top->bdf.bus);
		d->chip = d->vendor_id == 0x10de ? p2ps_nvidia_chip_lookup(d->device_id) : NULL;
	}
}

static inline void tm_nvlink(struct p2ps_dev *a, const struct p2ps_dev *b, int links)
{
	a->gpu.nvlink_peers[a->gpu.n_nvlink_peers].bdf = b->bdf;
	a->gpu.nvlink_peers[a->gpu.n_nvlink_peers++].links = links;
}

static inline const struct p2ps_reason *tm_find(const struct p2ps_reasons *r,
                                                enum p2ps_reason_code code, int dev_idx)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].code == code && (dev_idx == -2 || r->v[i].dev_idx == dev_idx))
			return &r->v[i];
	return NULL;
}

#endif
