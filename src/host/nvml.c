/* NVML facts at run time. libnvidia-ml is opened with dlopen so the build needs no
 * CUDA and a host without the driver still loads. The few types used below follow the
 * layouts of NVIDIA's public nvml.h (nvmlPciInfo_t as used by the *_v3/_v2 calls). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"

#define NVML_SUCCESS         0
#define NVML_FEATURE_ENABLED 1

typedef int nvml_ret;
typedef struct nvml_device *nvml_dev;

struct nvml_pci_info {
	char bus_id_legacy[16];
	unsigned domain;
	unsigned bus;
	unsigned device;
	unsigned pci_device_id;
	unsigned pci_subsystem_id;
	char bus_id[32];
};

struct nvml_memory {
	unsigned long long total, free, used;
};

struct nvml_bar1_memory {
	unsigned long long bar1_total, bar1_free, bar1_used;
};

struct nvml_api {
	void *lib;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*driver_version)(char *, unsigned);
	nvml_ret (*count)(unsigned *);
	nvml_ret (*by_index)(unsigned, nvml_dev *);
	nvml_ret (*pci_info)(nvml_dev, struct nvml_pci_info *);
	nvml_ret (*memory)(nvml_dev, struct nvml_memory *);
	nvml_ret (*bar1)(nvml_dev, struct nvml_bar1_memory *);
	nvml_ret (*link_state)(nvml_dev, unsigned, int *);
	nvml_ret (*link_remote)(nvml_dev, unsigned, struct nvml_pci_info *);
};

/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
static bool sym(struct nvml_api *a, const char *name, void *slot)
{
	void *p = dlsym(a->lib, name);
	memcpy(slot, &p, sizeof(p));
	return p != NULL;
}

static bool bind(struct nvml_api *a, char *why, size_t size)
{
	static const struct {
		const char *name;
		size_t off;
		bool required;
	} syms[] = {
	        {"nvmlInit_v2", offsetof(struct nvml_api, init), true},
	        {"nvmlShutdown", offsetof(struct nvml_api, shutdown), true},
	        {"nvmlErrorString", offsetof(struct nvml_api, error_string), true},
	        {"nvmlSystemGetDriverVersion", offsetof(struct nvml_api, driver_version), false},
	        {"nvmlDeviceGetCount_v2", offsetof(struct nvml_api, count), true},
	        {"nvmlDeviceGetHandleByIndex_v2", offsetof(struct nvml_api, by_index), true},
	        {"nvmlDeviceGetPciInfo_v3", offsetof(struct nvml_api, pci_info), true},
	        {"nvmlDeviceGetMemoryInfo", offsetof(struct nvml_api, memory), false},
	        {"nvmlDeviceGetBAR1MemoryInfo", offsetof(struct nvml_api, bar1), false},
	        {"nvmlDeviceGetNvLinkState", offsetof(struct nvml_api, link_state), false},
	        {"nvmlDeviceGetNvLinkRemotePciInfo_v2", offsetof(struct nvml_api, link_remote),
	         false},
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (!sym(a, syms[i].name, (char *)a + syms[i].off) && syms[i].required) {
			snprintf(why, size, "libnvidia-ml.so.1 lacks %s", syms[i].name);
			return false;
		}
	}
	return true;
}

static void fill_device(struct p2ps_host *host, const struct nvml_api *a, nvml_dev h)
{
	struct nvml_pci_info pci;
	memset(&pci, 0, sizeof(pci));
	if (a->pci_info(h, &pci) != NVML_SUCCESS)
		return;
	struct p2ps_bdf bdf = {pci.domain, (uint8_t)pci.bus, (uint8_t)pci.device, 0};
	struct p2ps_dev *d = p2ps_host_find(host, &bdf);
	if (!d)
		return;
	struct p2ps_gpu_facts *g = &d->gpu;
	g->source = P2PS_GPU_SRC_NVML;
	struct nvml_memory mem;
	if (a->memory && a->memory(h, &mem) == NVML_SUCCESS) {
		g->vram_bytes = mem.total;
		g->vram_known = true;
	}
	struct nvml_bar1_memory bar1;
	if (a->bar1 && a->bar1(h, &bar1) == NVML_SUCCESS) {
		g->bar1_total_bytes = bar1.bar1_total;
		g->bar1_known = true;
	}
	if (!a->link_state || !a->link_remote)
		return;
	g->nvlink_known = true;
	for (unsigned link = 0; link < P2PS_HOST_MAX_NVLINK; link++) {
		int active = 0;
		struct nvml_pci_info rem;
		memset(&rem, 0, sizeof(rem));
		if (a->link_state(h, link, &active) != NVML_SUCCESS ||
		    active != NVML_FEATURE_ENABLED)
			continue;
		if (a->link_remote(h, link, &rem) != NVML_SUCCESS)
			continue;
		struct p2ps_bdf rb = {rem.domain, (uint8_t)rem.bus, (uint8_t)rem.device, 0};
		int k;
		for (k = 0; k < g->n_nvlink_peers; k++)
			if (!memcmp(&g->nvlink_peers[k].bdf, &rb, sizeof(rb)))
				break;
		if (k == g->n_nvlink_peers && k < P2PS_HOST_MAX_NVLINK) {
			g->nvlink_peers[k].bdf = rb;
			g->nvlink_peers[k].links = 0;
			g->n_nvlink_peers++;
		}
		if (k < P2PS_HOST_MAX_NVLINK)
			g->nvlink_peers[k].links++;
	}
}

void p2ps_nvml_fill(struct p2ps_host *host)
{
	struct p2ps_host_nvidia *nv = &host->nvidia;
	struct nvml_api a;
	memset(&a, 0, sizeof(a));
	a.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a.lib) {
		p2ps_strlcpy(nv->nvml_status, "libnvidia-ml.so.1 not found (no NVIDIA driver)",
		             sizeof(nv->nvml_status));
		return;
	}
	if (!bind(&a, nv->nvml_status, sizeof(nv->nvml_status))) {
		dlclose(a.lib);
		return;
	}
	nvml_ret rc = a.init();
	if (rc != NVML_SUCCESS) {
		snprintf(nv->nvml_status, sizeof(nv->nvml_status), "nvmlInit failed: %s",
		         a.error_string(rc));
		dlclose(a.lib);
		return;
	}
	nv->nvml_loaded = true;
	if (a.driver_version)
		a.driver_version(nv->nvml_driver_version, sizeof(nv->nvml_driver_version));
	unsigned n = 0;
	if (a.count(&n) == NVML_SUCCESS) {
		for (unsigned i = 0; i < n; i++) {
			nvml_dev h;
			if (a.by_index(i, &h) == NVML_SUCCESS)
				fill_device(host, &a, h);
		}
	}
	a.shutdown();
	dlclose(a.lib);
}
