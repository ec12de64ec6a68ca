/* SPDX-License-Identifier: MIT */
/* p2p-bench: NVLink facts from NVML, through the shared loader (src/host/nvml): a host
 * without the NVIDIA driver has no libnvidia-ml, and the bench must still run its CUDA
 * part. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "nvml_api.h"

/* Field ids of nvml.h. GET_SPEED (per link, scopeId = link) is what current
 * drivers answer; SPEED_MBPS_COMMON is the older whole-device field. Both are
 * the raw signalling rate in MB/s per direction (26562 on Hopper's NVLink 4),
 * above the payload rate once packet overhead is paid. */
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define NVML_FI_DEV_NVLINK_GET_SPEED         164

static int nvml_load(struct p2ps_nvml *a, char *note, size_t len)
{
	char detail[96]; /* what still fits the 128-byte note after the prefix */
	unsigned need = P2PS_NVML_NEED(P2PS_NVML_BY_BUS_ID) | P2PS_NVML_NEED(P2PS_NVML_LINK_STATE) |
	                P2PS_NVML_NEED(P2PS_NVML_LINK_REMOTE) | P2PS_NVML_NEED(P2PS_NVML_FIELDS);
	switch (p2ps_nvml_open(a, need, detail, sizeof(detail), NULL)) {
	case P2PS_NVML_OK: return 0;
	case P2PS_NVML_NOT_FOUND:
		snprintf(note, len, "libnvidia-ml.so.1 not loadable: %s", detail);
		return -1;
	case P2PS_NVML_LACKS: snprintf(note, len, "libnvidia-ml.so.1 lacks %s", detail); return -1;
	case P2PS_NVML_INIT_FAILED:
		snprintf(note, len, "nvmlInit_v2 failed");
		p2ps_nvml_close(a);
		return -1;
	}
	return -1;
}

/* NVML spells the domain with eight digits ("00000000:07:00.0"); bar-inspect
 * and sysfs with four. A remote end NVML cannot name (seen inside a VM: all
 * ones) stays "" so that nothing is joined on it. */
static void bdf_from_pci(const struct p2ps_nvml_pci_info *p, char *out)
{
	out[0] = 0;
	if (p->domain > 0xffff || p->bus > 0xff || p->device > 0x1f)
		return;
	if (p->domain == 0xffff && p->bus == 0xff)
		return;
	snprintf(out, PB_BDF_LEN, "%04x:%02x:%02x.0", p->domain, p->bus, p->device);
}

static void fill_device(const struct p2ps_nvml *a, struct pb_device *d)
{
	p2ps_nvml_dev h;
	struct p2ps_nvml_field_value f;

	if (a->by_bus_id(d->bdf, &h) != 0)
		return;
	memset(&f, 0, sizeof(f));
	f.field_id = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
	if (a->fields(h, 1, &f) == 0 && f.nvml_return == 0)
		d->nvlink.speed_mbps = f.value.ui;
	for (unsigned l = 0; l < PB_NVLINK_MAX; l++) {
		int active = 0;
		struct p2ps_nvml_pci_info p;
		if (a->link_state(h, l, &active) != 0 || !active)
			continue;
		d->nvlink.active++;
		d->nvlink.up[l] = true;
		memset(&p, 0, sizeof(p));
		if (a->link_remote(h, l, &p) == 0) {
			bdf_from_pci(&p, d->nvlink.remote[l]);
			snprintf(d->nvlink.remote_raw[l], sizeof(d->nvlink.remote_raw[l]), "%.31s",
			         p.bus_id);
		}
		memset(&f, 0, sizeof(f));
		f.field_id = NVML_FI_DEV_NVLINK_GET_SPEED;
		f.scope_id = l;
		if (a->fields(h, 1, &f) == 0 && f.nvml_return == 0)
			d->nvlink.link_mbps[l] = f.value.ui;
		if (!d->nvlink.link_mbps[l])
			d->nvlink.link_mbps[l] = d->nvlink.speed_mbps;
		if (!d->nvlink.speed_mbps)
			d->nvlink.speed_mbps = d->nvlink.link_mbps[l];
	}
	d->nvlink.known = true;
}

void pb_nvml_fill(struct pb_result *r)
{
	struct p2ps_nvml a;
	int known = 0;

	memset(&a, 0, sizeof(a));
	r->nvml = false;
	if (nvml_load(&a, r->nvml_note, sizeof(r->nvml_note)) != 0)
		return;
	for (int i = 0; i < r->n; i++) {
		fill_device(&a, &r->dev[i]);
		known += r->dev[i].nvlink.known;
	}
	p2ps_nvml_close(&a);
	r->nvml = known > 0;
	snprintf(r->nvml_note, sizeof(r->nvml_note), "NVML answered for %d of %d devices", known,
	         r->n);
}
