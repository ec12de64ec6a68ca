/* SPDX-License-Identifier: MIT */
/* The NVML loader (nvml_api.h). */
#include "nvml_api.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Symbol names, in the order enum p2ps_nvml_sym numbers them. */
static const struct {
	const char *name;
	size_t off;
} syms[] = {
        {"nvmlInit_v2", offsetof(struct p2ps_nvml, init)},
        {"nvmlShutdown", offsetof(struct p2ps_nvml, shutdown)},
        {"nvmlErrorString", offsetof(struct p2ps_nvml, error_string)},
        {"nvmlSystemGetDriverVersion", offsetof(struct p2ps_nvml, driver_version)},
        {"nvmlDeviceGetCount_v2", offsetof(struct p2ps_nvml, count)},
        {"nvmlDeviceGetHandleByIndex_v2", offsetof(struct p2ps_nvml, by_index)},
        {"nvmlDeviceGetPciInfo_v3", offsetof(struct p2ps_nvml, pci_info)},
        {"nvmlDeviceGetHandleByPciBusId_v2", offsetof(struct p2ps_nvml, by_bus_id)},
        {"nvmlDeviceGetMemoryInfo", offsetof(struct p2ps_nvml, memory)},
        {"nvmlDeviceGetBAR1MemoryInfo", offsetof(struct p2ps_nvml, bar1)},
        {"nvmlDeviceGetNvLinkState", offsetof(struct p2ps_nvml, link_state)},
        {"nvmlDeviceGetNvLinkRemoteDeviceType", offsetof(struct p2ps_nvml, link_remote_type)},
        {"nvmlDeviceGetP2PStatus", offsetof(struct p2ps_nvml, p2p_status)},
        {"nvmlDeviceGetNvLinkRemotePciInfo_v2", offsetof(struct p2ps_nvml, link_remote)},
        {"nvmlDeviceGetFieldValues", offsetof(struct p2ps_nvml, fields)},
};
_Static_assert(sizeof(syms) / sizeof(syms[0]) == P2PS_NVML_NSYMS, "one name per symbol");

enum p2ps_nvml_status p2ps_nvml_open(struct p2ps_nvml *n, unsigned need, char *detail,
                                     size_t detail_size, p2ps_nvml_ret *init_rc)
{
	return p2ps_nvml_open_timed(n, need, detail, detail_size, init_rc, NULL);
}

enum p2ps_nvml_status p2ps_nvml_open_timed(struct p2ps_nvml *n, unsigned need, char *detail,
                                           size_t detail_size, p2ps_nvml_ret *init_rc,
                                           struct p2ps_timings *timings)
{
	enum p2ps_nvml_status st = p2ps_nvml_load(n, need, detail, detail_size, timings);
	return st == P2PS_NVML_OK ? p2ps_nvml_init(n, init_rc, timings) : st;
}

enum p2ps_nvml_status p2ps_nvml_load(struct p2ps_nvml *n, unsigned need, char *detail,
                                     size_t detail_size, struct p2ps_timings *timings)
{
	uint64_t lap = p2ps_clock_ns();
	memset(n, 0, sizeof(*n));
	need |= P2PS_NVML_NEED(P2PS_NVML_INIT) | P2PS_NVML_NEED(P2PS_NVML_SHUTDOWN);
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *why = dlerror();
		snprintf(detail, detail_size, "%s", why ? why : "dlopen failed");
		return P2PS_NVML_NOT_FOUND;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
		void *p = dlsym(n->lib, syms[i].name);
		memcpy((char *)n + syms[i].off, &p, sizeof(p));
		if (!p && (need & P2PS_NVML_NEED(i))) {
			snprintf(detail, detail_size, "%s", syms[i].name);
			dlclose(n->lib);
			n->lib = NULL;
			return P2PS_NVML_LACKS;
		}
	}
	p2ps_timings_lap(timings, "NVML: dlopen and symbols", &lap);
	return P2PS_NVML_OK;
}

enum p2ps_nvml_status p2ps_nvml_init(struct p2ps_nvml *n, p2ps_nvml_ret *init_rc,
                                     struct p2ps_timings *timings)
{
	uint64_t lap = p2ps_clock_ns();
	p2ps_nvml_ret rc = n->init();
	p2ps_timings_lap(timings, "NVML: nvmlInit_v2", &lap);
	if (rc != P2PS_NVML_SUCCESS) {
		if (init_rc)
			*init_rc = rc;
		return P2PS_NVML_INIT_FAILED; /* the caller may still want error_string */
	}
	n->initialised = true;
	return P2PS_NVML_OK;
}

int p2ps_nvml_file_id(const char *path, char *out, size_t size)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	int w = snprintf(out, size, "%s:%llu:%llu:%lld:%lld.%09ld", path,
	                 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
	                 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return w > 0 && (size_t)w < size ? 0 : -1;
}

int p2ps_nvml_library_id(const struct p2ps_nvml *n, char *out, size_t size)
{
	struct link_map *map = NULL;
	if (!n->lib || dlinfo(n->lib, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name)
		return -1;
	return p2ps_nvml_file_id(map->l_name, out, size);
}

void p2ps_nvml_close(struct p2ps_nvml *n)
{
	if (!n->lib)
		return;
	if (n->initialised)
		n->shutdown();
	n->initialised = false;
	dlclose(n->lib);
	n->lib = NULL;
}
