/* NVML facts at run time. libnvidia-ml is opened with dlopen so the build needs no
 * CUDA and a host without the driver still loads. The few types used below follow the
 * layouts of NVIDIA's public nvml.h (nvmlPciInfo_t as used by the *_v3/_v2 calls). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"

#define NVML_SUCCESS                   0
#define NVML_FEATURE_ENABLED           1
#define NVML_NVLINK_DEVICE_TYPE_GPU    0 /* nvmlIntNvLinkDeviceType_t */
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define NVML_P2P_CAPS_INDEX_NVLINK     2 /* nvmlGpuP2PCapsIndex_t */
#define NVML_P2P_STATUS_OK             0 /* nvmlGpuP2PStatus_t */
#define NVML_MAX_GPUS                  64

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
	nvml_ret (*link_remote_type)(nvml_dev, unsigned, int *);
	nvml_ret (*p2p_status)(nvml_dev, nvml_dev, int, int *);
};

/* What one GPU's NVLinks lead to. */
struct nvml_gpu {
	nvml_dev h;
	struct p2ps_dev *dev;
	int fabric_links; /* active links to an NVSwitch (or a far end NVML cannot name) */
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
	        {"nvmlDeviceGetNvLinkRemoteDeviceType", offsetof(struct nvml_api, link_remote_type),
	         false},
	        {"nvmlDeviceGetP2PStatus", offsetof(struct nvml_api, p2p_status), false},
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

static void add_peer(struct p2ps_gpu_facts *g, const struct p2ps_bdf *bdf, int links)
{
	int k;
	for (k = 0; k < g->n_nvlink_peers; k++)
		if (p2ps_bdf_equal(&g->nvlink_peers[k].bdf, bdf))
			break;
	if (k == P2PS_HOST_MAX_NVLINK)
		return;
	if (k == g->n_nvlink_peers) {
		g->nvlink_peers[k].bdf = *bdf;
		g->nvlink_peers[k].links = 0;
		g->n_nvlink_peers++;
	}
	g->nvlink_peers[k].links += links;
}

/* Memory, BAR1 and direct NVLinks of one GPU; links that end at an NVSwitch are only
 * counted here (their peers are found per pair afterwards). */
static void fill_device(struct p2ps_host *host, const struct nvml_api *a, struct nvml_gpu *gpu)
{
	struct nvml_pci_info pci;
	memset(&pci, 0, sizeof(pci));
	if (a->pci_info(gpu->h, &pci) != NVML_SUCCESS)
		return;
	struct p2ps_bdf bdf = {pci.domain, (uint8_t)pci.bus, (uint8_t)pci.device, 0};
	struct p2ps_dev *d = p2ps_host_find(host, &bdf);
	if (!d)
		return;
	gpu->dev = d;
	struct p2ps_gpu_facts *g = &d->gpu;
	g->source = P2PS_GPU_SRC_NVML;
	struct nvml_memory mem;
	if (a->memory && a->memory(gpu->h, &mem) == NVML_SUCCESS) {
		g->vram_bytes = mem.total;
		g->vram_known = true;
	}
	struct nvml_bar1_memory bar1;
	if (a->bar1 && a->bar1(gpu->h, &bar1) == NVML_SUCCESS) {
		g->bar1_total_bytes = bar1.bar1_total;
		g->bar1_known = true;
	}
	if (!a->link_state || !a->link_remote)
		return;
	g->nvlink_known = true;
	for (unsigned link = 0; link < P2PS_HOST_MAX_NVLINK; link++) {
		int active = 0, type = NVML_NVLINK_DEVICE_TYPE_GPU;
		struct nvml_pci_info rem;
		memset(&rem, 0, sizeof(rem));
		if (a->link_state(gpu->h, link, &active) != NVML_SUCCESS ||
		    active != NVML_FEATURE_ENABLED)
			continue;
		if (a->link_remote_type)
			a->link_remote_type(gpu->h, link, &type);
		bool named = a->link_remote(gpu->h, link, &rem) == NVML_SUCCESS;
		struct p2ps_bdf rb = {rem.domain, (uint8_t)rem.bus, (uint8_t)rem.device, 0};
		const struct p2ps_dev *far = named ? p2ps_host_find(host, &rb) : NULL;
		/* On NVSwitch systems (HGX) the far end is a switch, often not visible to a
		 * VM at all (NVML then reports an all-ones address). */
		if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH || !far || !p2ps_dev_is_nvidia_gpu(far))
			gpu->fabric_links++;
		else
			add_peer(g, &rb, 1);
	}
}

/* GPUs on a common NVSwitch fabric: a pair is NVLink-connected when NVML's NVLink P2P
 * status says OK; like nvidia-smi topo -m (NV18 on HGX H100/H200), the pair's count is
 * the number of fabric links the GPUs have (the smaller one). */
static void fill_fabric_peers(const struct nvml_api *a, struct nvml_gpu *gpus, unsigned n)
{
	if (!a->p2p_status)
		return;
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < n; j++) {
			if (i == j || !gpus[i].dev || !gpus[j].dev || !gpus[i].fabric_links ||
			    !gpus[j].fabric_links)
				continue;
			int st = -1;
			if (a->p2p_status(gpus[i].h, gpus[j].h, NVML_P2P_CAPS_INDEX_NVLINK, &st) !=
			            NVML_SUCCESS ||
			    st != NVML_P2P_STATUS_OK)
				continue;
			int links = gpus[i].fabric_links < gpus[j].fabric_links
			                    ? gpus[i].fabric_links
			                    : gpus[j].fabric_links;
			add_peer(&gpus[i].dev->gpu, &gpus[j].dev->bdf, links);
		}
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
	struct nvml_gpu gpus[NVML_MAX_GPUS];
	memset(gpus, 0, sizeof(gpus));
	if (a.count(&n) == NVML_SUCCESS) {
		if (n > NVML_MAX_GPUS)
			n = NVML_MAX_GPUS;
		for (unsigned i = 0; i < n; i++)
			if (a.by_index(i, &gpus[i].h) == NVML_SUCCESS)
				fill_device(host, &a, &gpus[i]);
		fill_fabric_peers(&a, gpus, n);
	}
	a.shutdown();
	dlclose(a.lib);
}
