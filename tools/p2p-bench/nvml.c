/* p2p-bench: NVLink facts from NVML, loaded at run time (a host without the
 * NVIDIA driver has no libnvidia-ml, and the bench must still run its CUDA
 * part). The few declarations below mirror NVIDIA's public nvml.h: the types
 * and field id are what that header defines, the calls are its stable v2 ABI. */
#include "bench.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int nvml_return;                    /* nvmlReturn_t, NVML_SUCCESS = 0 */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t */

struct nvml_pci_info { /* nvmlPciInfo_t */
	char busIdLegacy[16];
	unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
};

union nvml_value { /* nvmlValue_t */
	double d;
	unsigned ui;
	unsigned long ul;
	unsigned long long ull;
	long long sll;
};

struct nvml_field_value { /* nvmlFieldValue_t */
	unsigned fieldId, scopeId;
	long long timestamp, latencyUsec;
	int valueType;
	nvml_return nvmlReturn;
	union nvml_value value;
};

/* Field ids of nvml.h. GET_SPEED (per link, scopeId = link) is what current
 * drivers answer; SPEED_MBPS_COMMON is the older whole-device field. Both are
 * the raw signalling rate in MB/s per direction (26562 on Hopper's NVLink 4),
 * above the payload rate once packet overhead is paid. */
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define NVML_FI_DEV_NVLINK_GET_SPEED         164

struct nvml_api {
	void *lib;
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	nvml_return (*by_bus_id)(const char *, nvml_device *);
	nvml_return (*link_state)(nvml_device, unsigned, int *);
	nvml_return (*remote_pci)(nvml_device, unsigned, struct nvml_pci_info *);
	nvml_return (*fields)(nvml_device, int, struct nvml_field_value *);
};

static int nvml_load(struct nvml_api *a, char *note, size_t len)
{
	const struct {
		const char *name;
		void **slot;
	} syms[] = {
	        {"nvmlInit_v2", (void **)&a->init},
	        {"nvmlShutdown", (void **)&a->shutdown},
	        {"nvmlDeviceGetHandleByPciBusId_v2", (void **)&a->by_bus_id},
	        {"nvmlDeviceGetNvLinkState", (void **)&a->link_state},
	        {"nvmlDeviceGetNvLinkRemotePciInfo_v2", (void **)&a->remote_pci},
	        {"nvmlDeviceGetFieldValues", (void **)&a->fields},
	};

	a->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a->lib) {
		snprintf(note, len, "libnvidia-ml.so.1 not loadable: %s", dlerror());
		return -1;
	}
	for (size_t k = 0; k < sizeof(syms) / sizeof(syms[0]); k++) {
		*syms[k].slot = dlsym(a->lib, syms[k].name);
		if (!*syms[k].slot) {
			snprintf(note, len, "libnvidia-ml.so.1 lacks %s", syms[k].name);
			dlclose(a->lib);
			return -1;
		}
	}
	if (a->init() != 0) {
		snprintf(note, len, "nvmlInit_v2 failed");
		dlclose(a->lib);
		return -1;
	}
	return 0;
}

/* NVML spells the domain with eight digits ("00000000:07:00.0"); bar-inspect
 * and sysfs with four. A remote end NVML cannot name (seen inside a VM: all
 * ones) stays "" so that nothing is joined on it. */
static void bdf_from_pci(const struct nvml_pci_info *p, char *out)
{
	out[0] = 0;
	if (p->domain > 0xffff || p->bus > 0xff || p->device > 0x1f)
		return;
	if (p->domain == 0xffff && p->bus == 0xff)
		return;
	snprintf(out, PB_BDF_LEN, "%04x:%02x:%02x.0", p->domain, p->bus, p->device);
}

static void fill_device(const struct nvml_api *a, struct pb_device *d)
{
	nvml_device h;
	struct nvml_field_value f;

	if (a->by_bus_id(d->bdf, &h) != 0)
		return;
	memset(&f, 0, sizeof(f));
	f.fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
	if (a->fields(h, 1, &f) == 0 && f.nvmlReturn == 0)
		d->nvlink.speed_mbps = f.value.ui;
	for (unsigned l = 0; l < PB_NVLINK_MAX; l++) {
		int active = 0;
		struct nvml_pci_info p;
		if (a->link_state(h, l, &active) != 0 || !active)
			continue;
		d->nvlink.active++;
		d->nvlink.up[l] = true;
		memset(&p, 0, sizeof(p));
		if (a->remote_pci(h, l, &p) == 0) {
			bdf_from_pci(&p, d->nvlink.remote[l]);
			snprintf(d->nvlink.remote_raw[l], sizeof(d->nvlink.remote_raw[l]), "%.31s",
			         p.busId);
		}
		memset(&f, 0, sizeof(f));
		f.fieldId = NVML_FI_DEV_NVLINK_GET_SPEED;
		f.scopeId = l;
		if (a->fields(h, 1, &f) == 0 && f.nvmlReturn == 0)
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
	struct nvml_api a;
	int known = 0;

	memset(&a, 0, sizeof(a));
	r->nvml = false;
	if (nvml_load(&a, r->nvml_note, sizeof(r->nvml_note)) != 0)
		return;
	for (int i = 0; i < r->n; i++) {
		fill_device(&a, &r->dev[i]);
		known += r->dev[i].nvlink.known;
	}
	a.shutdown();
	dlclose(a.lib);
	r->nvml = known > 0;
	snprintf(r->nvml_note, sizeof(r->nvml_note), "NVML answered for %d of %d devices", known,
	         r->n);
}
