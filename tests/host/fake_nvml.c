/* SPDX-License-Identifier: MIT */
/* A stand-in libnvidia-ml.so.1 for test_host_nvml: it answers the NVML calls the host
 * model makes with what the real library reported on the 2 x H200 guest (each GPU's 18
 * NVLinks end at NVSwitches the guest cannot see, so the far end's PCI address reads
 * as all-ones; NVLink P2P between the GPUs is OK) or, with FAKE_NVML_DIRECT=1, with two
 * GPUs wired directly by 4 links (NVLink bridge). Types follow the public nvml.h. */
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvml_device *nvmlDevice_t;

struct pci_info {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

/* Two device handles: the addresses of these two objects. */
static char gpu_objs[2];
static const unsigned gpu_dev[2] = {6, 7}; /* 0000:00:06.0, 0000:00:07.0 */

static int index_of(nvmlDevice_t d)
{
	return d == (nvmlDevice_t)&gpu_objs[0] ? 0 : d == (nvmlDevice_t)&gpu_objs[1] ? 1 : -1;
}

static int direct(void)
{
	const char *e = getenv("FAKE_NVML_DIRECT");
	return e && *e == '1';
}

/* FAKE_NVML_INIT_FAIL=1: nvmlInit_v2 fails (NVML_ERROR_UNINITIALIZED), so that a test
 * sees whether the facts came from NVML or from elsewhere (the per-boot cache). */
nvmlReturn_t nvmlInit_v2(void)
{
	const char *e = getenv("FAKE_NVML_INIT_FAIL");
	return e && *e == '1' ? 1 : 0;
}

nvmlReturn_t nvmlShutdown(void)
{
	return 0;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
	return r ? "Not Supported" : "Success";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
	strncpy(buf, "580.159.04", len);
	return 0;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = 2;
	return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if (i > 1)
		return 2;
	*d = (nvmlDevice_t)&gpu_objs[i];
	return 0;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, struct pci_info *p)
{
	int i = index_of(d);
	if (i < 0)
		return 2;
	memset(p, 0, sizeof(*p));
	p->device = gpu_dev[i];
	return 0;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, unsigned long long *m)
{
	(void)d;
	m[0] = 143771ull << 20; /* total, as nvidia-smi -q's FB Memory Usage Total */
	m[1] = m[0];
	m[2] = 0;
	return 0;
}

nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t d, unsigned long long *m)
{
	(void)d;
	m[0] = 262144ull << 20;
	m[1] = m[0];
	m[2] = 0;
	return 0;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned link, int *active)
{
	(void)d;
	*active = direct() ? link < 4 : link < 18;
	return 0;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned link, int *type)
{
	(void)d;
	(void)link;
	*type = direct() ? 0 : 2; /* GPU : SWITCH */
	return 0;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned link, struct pci_info *p)
{
	(void)link;
	int i = index_of(d);
	if (i < 0)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT, as for the other queries */
	memset(p, 0xff, sizeof(*p));
	if (direct()) {
		memset(p, 0, sizeof(*p));
		p->device = gpu_dev[1 - i];
	}
	return 0;
}

/* How many P2P statuses were asked since the library was loaded (for the test). */
static unsigned p2p_status_calls;
unsigned fake_nvml_p2p_status_calls(void);
unsigned fake_nvml_p2p_status_calls(void)
{
	return p2p_status_calls;
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, int index, int *status)
{
	p2p_status_calls++;
	*status = (index == 2 && index_of(a) >= 0 && index_of(b) >= 0 && a != b) ? 0 : 5;
	return 0;
}
