/* SPDX-License-Identifier: MIT */
/* NVML facts of the live host: VRAM, BAR1 and NVLink peers per GPU, through the shared
 * NVML loader (src/host/nvml), so a host without the NVIDIA driver still loads. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"
#include "nvml_api.h"

#define NVML_FEATURE_ENABLED           1
#define NVML_NVLINK_DEVICE_TYPE_GPU    0 /* nvmlIntNvLinkDeviceType_t */
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define NVML_P2P_CAPS_INDEX_NVLINK     2 /* nvmlGpuP2PCapsIndex_t */
#define NVML_P2P_STATUS_OK             0 /* nvmlGpuP2PStatus_t */
#define NVML_MAX_GPUS                  64

/* What one GPU's NVLinks lead to. */
struct nvml_gpu {
	p2ps_nvml_dev h;
	struct p2ps_dev *dev;
	int fabric_links; /* active links to an NVSwitch (or a far end NVML cannot name) */
};

/* Memory, BAR1 and direct NVLinks of one GPU; links that end at an NVSwitch are only
 * counted here (their peers are found per pair afterwards). */
static void fill_device(struct p2ps_host *host, const struct p2ps_nvml *a, struct nvml_gpu *gpu,
                        uint64_t *lap)
{
	struct p2ps_nvml_pci_info pci;
	memset(&pci, 0, sizeof(pci));
	p2ps_nvml_ret prc = a->pci_info(gpu->h, &pci);
	p2ps_timings_lap(host->timings, "NVML: PCI info", lap);
	if (prc != P2PS_NVML_SUCCESS)
		return;
	struct p2ps_bdf bdf = {pci.domain, (uint8_t)pci.bus, (uint8_t)pci.device, 0};
	struct p2ps_dev *d = p2ps_host_find(host, &bdf);
	if (!d)
		return;
	gpu->dev = d;
	struct p2ps_gpu_facts *g = &d->gpu;
	g->source = P2PS_GPU_SRC_NVML;
	struct p2ps_nvml_memory mem;
	if (a->memory && a->memory(gpu->h, &mem) == P2PS_NVML_SUCCESS) {
		g->vram_bytes = mem.total;
		g->vram_known = true;
	}
	struct p2ps_nvml_bar1_memory bar1;
	if (a->bar1 && a->bar1(gpu->h, &bar1) == P2PS_NVML_SUCCESS) {
		g->bar1_total_bytes = bar1.bar1_total;
		g->bar1_known = true;
	}
	p2ps_timings_lap(host->timings, "NVML: memory and BAR1", lap);
	if (!a->link_state || !a->link_remote)
		return;
	g->nvlink_known = true;
	for (unsigned link = 0; link < P2PS_HOST_MAX_NVLINK; link++) {
		int active = 0, type = NVML_NVLINK_DEVICE_TYPE_GPU;
		struct p2ps_nvml_pci_info rem;
		memset(&rem, 0, sizeof(rem));
		if (a->link_state(gpu->h, link, &active) != P2PS_NVML_SUCCESS ||
		    active != NVML_FEATURE_ENABLED)
			continue;
		if (a->link_remote_type)
			a->link_remote_type(gpu->h, link, &type);
		bool named = a->link_remote(gpu->h, link, &rem) == P2PS_NVML_SUCCESS;
		struct p2ps_bdf rb = {rem.domain, (uint8_t)rem.bus, (uint8_t)rem.device, 0};
		const struct p2ps_dev *far = named ? p2ps_host_find(host, &rb) : NULL;
		/* On NVSwitch systems (HGX) the far end is a switch, often not visible to a
		 * VM at all (NVML then reports an all-ones address). */
		if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH || !far || !p2ps_dev_is_nvidia_gpu(far))
			gpu->fabric_links++;
		else
			p2ps_gpu_add_nvlink_peer(g, &rb, 1);
	}
	g->nvswitch_links = gpu->fabric_links;
	p2ps_timings_lap(host->timings, "NVML: NVLink per link", lap);
}

/* The driver's own P2P statuses per pair, as nvidia-smi topo -p2p r/w/n/a/p reads them
 * (nvmlGpuP2PCapsIndex_t 0..4 are the first five NV0000_CTRL_P2P_CAPS_INDEX_* entries;
 * nvmlGpuP2PStatus_t 0..5 are NV0000_P2P_CAPS_STATUS_*, 6 is unknown). */
static void fill_driver_caps(struct p2ps_host *host, const struct p2ps_nvml *a,
                             struct nvml_gpu *gpus, unsigned n)
{
	struct p2ps_host_driver_caps *dc = &host->driver_caps;
	if (!a->p2p_status || n < 2)
		return;
	if (n > P2PS_HOST_DRVCAPS_GPUS)
		n = P2PS_HOST_DRVCAPS_GPUS;
	memset(dc->st, 0xff, sizeof(dc->st));
	dc->n_gpus = (int)n;
	for (unsigned i = 0; i < n; i++) {
		dc->gpu_known[i] = gpus[i].dev != NULL;
		if (gpus[i].dev)
			dc->gpu[i] = gpus[i].dev->bdf;
		for (unsigned j = 0; j < n; j++)
			for (int k = 0; i != j && gpus[i].dev && gpus[j].dev && k < 5; k++) {
				int st = -1;
				if (a->p2p_status(gpus[i].h, gpus[j].h, k, &st) ==
				            P2PS_NVML_SUCCESS &&
				    st >= 0 && st <= 5) {
					dc->st[i][j][k] = (uint8_t)st;
					dc->known = true;
				}
			}
	}
	if (dc->known)
		p2ps_strlcpy(dc->source, "NVML nvmlDeviceGetP2PStatus", sizeof(dc->source));
}

/* GPUs on a common NVSwitch fabric: a pair is NVLink-connected when NVML's NVLink P2P
 * status for it is OK (read by fill_driver_caps where it kept it, else asked here); each
 * GPU then counts the other over the smaller number of fabric links
 * (p2ps_gpu_add_fabric_peer). */
static void fill_fabric_peers(const struct p2ps_host_driver_caps *dc, const struct p2ps_nvml *a,
                              struct nvml_gpu *gpus, unsigned n)
{
	if (!a->p2p_status)
		return;
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < n; j++) {
			if (i == j || !gpus[i].dev || !gpus[j].dev || !gpus[i].fabric_links ||
			    !gpus[j].fabric_links)
				continue;
			int st = i < (unsigned)dc->n_gpus && j < (unsigned)dc->n_gpus
			                 ? dc->st[i][j][NVML_P2P_CAPS_INDEX_NVLINK]
			                 : 0xff;
			if (st == 0xff &&
			    a->p2p_status(gpus[i].h, gpus[j].h, NVML_P2P_CAPS_INDEX_NVLINK, &st) !=
			            P2PS_NVML_SUCCESS)
				continue;
			if (st != NVML_P2P_STATUS_OK)
				continue;
			p2ps_gpu_add_fabric_peer(gpus[i].dev, gpus[i].fabric_links, gpus[j].dev,
			                         gpus[j].fabric_links);
		}
	}
}

/* Why NVML gives nothing, in the words the report uses: no library, or one without a
 * symbol every query needs. */
static bool nvml_load(struct p2ps_nvml *a, struct p2ps_host_nvidia *nv,
                      struct p2ps_timings *timings)
{
	char detail[96]; /* a symbol name or dlerror(), fits nvml_status after the prefix */
	unsigned need = P2PS_NVML_NEED(P2PS_NVML_ERROR_STRING) | P2PS_NVML_NEED(P2PS_NVML_COUNT) |
	                P2PS_NVML_NEED(P2PS_NVML_BY_INDEX) | P2PS_NVML_NEED(P2PS_NVML_PCI_INFO);
	switch (p2ps_nvml_load(a, need, detail, sizeof(detail), timings)) {
	case P2PS_NVML_OK: return true;
	case P2PS_NVML_NOT_FOUND:
		p2ps_strlcpy(nv->nvml_status, "libnvidia-ml.so.1 not found (no NVIDIA driver)",
		             sizeof(nv->nvml_status));
		return false;
	case P2PS_NVML_LACKS:
		snprintf(nv->nvml_status, sizeof(nv->nvml_status), "libnvidia-ml.so.1 lacks %s",
		         detail);
		return false;
	case P2PS_NVML_INIT_FAILED: break;
	}
	return false;
}

/* ...or nvmlInit_v2 failing. */
static bool nvml_start(struct p2ps_nvml *a, struct p2ps_host_nvidia *nv,
                       struct p2ps_timings *timings)
{
	p2ps_nvml_ret rc = 0;
	if (p2ps_nvml_init(a, &rc, timings) == P2PS_NVML_OK)
		return true;
	snprintf(nv->nvml_status, sizeof(nv->nvml_status), "nvmlInit failed: %s",
	         a->error_string(rc));
	p2ps_nvml_close(a);
	return false;
}

/* Every fact from an initialised library, which is closed afterwards. */
static void nvml_query(struct p2ps_host *host, struct p2ps_nvml *a)
{
	struct p2ps_host_nvidia *nv = &host->nvidia;
	uint64_t lap = p2ps_clock_ns();
	nv->nvml_loaded = true;
	if (a->driver_version)
		a->driver_version(nv->nvml_driver_version, sizeof(nv->nvml_driver_version));
	p2ps_timings_lap(host->timings, "NVML: driver version", &lap);
	unsigned n = 0;
	struct nvml_gpu gpus[NVML_MAX_GPUS];
	memset(gpus, 0, sizeof(gpus));
	if (a->count(&n) == P2PS_NVML_SUCCESS) {
		if (n > NVML_MAX_GPUS)
			n = NVML_MAX_GPUS;
		for (unsigned i = 0; i < n; i++) {
			p2ps_nvml_ret rc = a->by_index(i, &gpus[i].h);
			p2ps_timings_lap(host->timings, "NVML: count and handles", &lap);
			if (rc == P2PS_NVML_SUCCESS)
				fill_device(host, a, &gpus[i], &lap);
		}
		fill_driver_caps(host, a, gpus, n);
		fill_fabric_peers(&host->driver_caps, a, gpus, n);
		p2ps_timings_lap(host->timings, "NVML: P2P status per pair", &lap);
	}
	p2ps_nvml_close(a);
	p2ps_timings_lap(host->timings, "NVML: shutdown and dlclose", &lap);
}

void p2ps_nvml_fill(struct p2ps_host *host)
{
	struct p2ps_nvml a;
	if (nvml_load(&a, &host->nvidia, host->timings) &&
	    nvml_start(&a, &host->nvidia, host->timings))
		nvml_query(host, &a);
}

void p2ps_nvml_fill_cached(struct p2ps_host *host)
{
	size_t gpus = 0;
	for (size_t i = 0; i < host->n_devs; i++)
		gpus += p2ps_dev_is_nvidia_gpu(&host->devs[i]);
	/* NVLink between GPUs can change while the host runs: asked every time. */
	if (gpus >= 2) {
		p2ps_nvml_fill(host);
		return;
	}
	uint64_t lap = p2ps_clock_ns();
	char key[P2PS_NVML_CACHE_KEY_MAX], lib[1200];
	bool keyed = p2ps_nvml_cache_key(host, key, sizeof(key)) == 0;
	if (keyed && p2ps_nvml_cache_read(host, key)) {
		p2ps_timings_lap(host->timings, "NVML: facts from the per-boot cache", &lap);
		return;
	}
	p2ps_timings_lap(host->timings, "NVML: per-boot cache (missed)", &lap);
	struct p2ps_nvml a;
	if (!nvml_load(&a, &host->nvidia, host->timings))
		return;
	keyed = keyed && p2ps_nvml_library_id(&a, lib, sizeof(lib)) == 0;
	if (!nvml_start(&a, &host->nvidia, host->timings))
		return;
	nvml_query(host, &a);
	if (keyed && host->nvidia.nvml_loaded)
		p2ps_nvml_cache_write(host, key, lib);
}
