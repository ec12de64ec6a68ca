/* SPDX-License-Identifier: MIT */
/* The one NVML loader: libnvidia-ml.so.1 opened with dlopen at run time, so the build needs
 * no CUDA and a host without the NVIDIA driver still runs. The host model's NVML facts
 * (src/host/backends/nvml_facts.c) and p2p-bench's NVLink facts share it.
 *
 * The types below follow the layouts of NVIDIA's public nvml.h for the calls bound here
 * (nvmlPciInfo_t as the *_v3/_v2 calls use it, nvmlMemory_t, nvmlBAR1Memory_t,
 * nvmlFieldValue_t). Every symbol is looked up; a caller says which it cannot do without.
 */
#ifndef P2PS_NVML_API_H
#define P2PS_NVML_API_H

#include <stdbool.h>
#include <stddef.h>

#include "p2pscope/timings.h"

#define P2PS_NVML_SUCCESS 0 /* nvmlReturn_t NVML_SUCCESS */

typedef int p2ps_nvml_ret;
typedef struct p2ps_nvml_device_st *p2ps_nvml_dev; /* nvmlDevice_t */

struct p2ps_nvml_pci_info { /* nvmlPciInfo_t */
	char bus_id_legacy[16];
	unsigned domain;
	unsigned bus;
	unsigned device;
	unsigned pci_device_id;
	unsigned pci_subsystem_id;
	char bus_id[32];
};

struct p2ps_nvml_memory { /* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct p2ps_nvml_bar1_memory { /* nvmlBAR1Memory_t */
	unsigned long long bar1_total, bar1_free, bar1_used;
};

union p2ps_nvml_value { /* nvmlValue_t */
	double d;
	unsigned ui;
	unsigned long ul;
	unsigned long long ull;
	long long sll;
};

struct p2ps_nvml_field_value { /* nvmlFieldValue_t */
	unsigned field_id, scope_id;
	long long timestamp, latency_usec;
	int value_type;
	p2ps_nvml_ret nvml_return;
	union p2ps_nvml_value value;
};

/* The bound library. A pointer is NULL where the library lacks the symbol. */
struct p2ps_nvml {
	void *lib;
	bool initialised;                /* nvmlInit_v2 succeeded: close calls nvmlShutdown */
	p2ps_nvml_ret (*init)(void);     /* nvmlInit_v2 */
	p2ps_nvml_ret (*shutdown)(void); /* nvmlShutdown */
	const char *(*error_string)(p2ps_nvml_ret);           /* nvmlErrorString */
	p2ps_nvml_ret (*driver_version)(char *, unsigned);    /* nvmlSystemGet... */
	p2ps_nvml_ret (*count)(unsigned *);                   /* ...GetCount_v2 */
	p2ps_nvml_ret (*by_index)(unsigned, p2ps_nvml_dev *); /* ...ByIndex_v2 */
	p2ps_nvml_ret (*pci_info)(p2ps_nvml_dev, struct p2ps_nvml_pci_info *); /* _v3 */
	p2ps_nvml_ret (*by_bus_id)(const char *, p2ps_nvml_dev *); /* ...ByPciBusId_v2 */
	p2ps_nvml_ret (*memory)(p2ps_nvml_dev, struct p2ps_nvml_memory *);
	p2ps_nvml_ret (*bar1)(p2ps_nvml_dev, struct p2ps_nvml_bar1_memory *);
	p2ps_nvml_ret (*link_state)(p2ps_nvml_dev, unsigned, int *);
	p2ps_nvml_ret (*link_remote_type)(p2ps_nvml_dev, unsigned, int *);
	p2ps_nvml_ret (*p2p_status)(p2ps_nvml_dev, p2ps_nvml_dev, int, int *);
	p2ps_nvml_ret (*link_remote)(p2ps_nvml_dev, unsigned, struct p2ps_nvml_pci_info *);
	p2ps_nvml_ret (*fields)(p2ps_nvml_dev, int, struct p2ps_nvml_field_value *);
};

/* The symbols, in the order p2ps_nvml_open binds and checks them. */
enum p2ps_nvml_sym {
	P2PS_NVML_INIT,
	P2PS_NVML_SHUTDOWN,
	P2PS_NVML_ERROR_STRING,
	P2PS_NVML_DRIVER_VERSION,
	P2PS_NVML_COUNT,
	P2PS_NVML_BY_INDEX,
	P2PS_NVML_PCI_INFO,
	P2PS_NVML_BY_BUS_ID,
	P2PS_NVML_MEMORY,
	P2PS_NVML_BAR1,
	P2PS_NVML_LINK_STATE,
	P2PS_NVML_LINK_REMOTE_TYPE,
	P2PS_NVML_P2P_STATUS,
	P2PS_NVML_LINK_REMOTE,
	P2PS_NVML_FIELDS,
	P2PS_NVML_NSYMS
};

/* The need mask of p2ps_nvml_open: the calls a caller cannot do without. */
#define P2PS_NVML_NEED(sym) (1u << (sym))

/* How opening went. */
enum p2ps_nvml_status {
	P2PS_NVML_OK = 0,
	P2PS_NVML_NOT_FOUND,   /* dlopen failed; detail holds dlerror() */
	P2PS_NVML_LACKS,       /* a needed symbol is missing; detail holds its name */
	P2PS_NVML_INIT_FAILED, /* nvmlInit_v2 failed; *init_rc holds its return */
};

/* Opens libnvidia-ml.so.1, binds every symbol and checks the ones need names (the
 * first missing one in the order above is reported), then calls nvmlInit_v2 (init and
 * shutdown are always needed). detail receives the dlerror() text or the missing
 * symbol's name. After NOT_FOUND and LACKS nothing is open; after INIT_FAILED the
 * library stays open (error_string may word *init_rc) until p2ps_nvml_close. */
enum p2ps_nvml_status p2ps_nvml_open(struct p2ps_nvml *n, unsigned need, char *detail,
                                     size_t detail_size, p2ps_nvml_ret *init_rc);

/* The same, recording the dlopen and nvmlInit_v2 phases in timings (may be NULL). */
enum p2ps_nvml_status p2ps_nvml_open_timed(struct p2ps_nvml *n, unsigned need, char *detail,
                                           size_t detail_size, p2ps_nvml_ret *init_rc,
                                           struct p2ps_timings *timings);

/* The two halves of p2ps_nvml_open: dlopen and the symbols (OK, NOT_FOUND or LACKS),
 * then nvmlInit_v2 (OK or INIT_FAILED) on a loaded library. */
enum p2ps_nvml_status p2ps_nvml_load(struct p2ps_nvml *n, unsigned need, char *detail,
                                     size_t detail_size, struct p2ps_timings *timings);
enum p2ps_nvml_status p2ps_nvml_init(struct p2ps_nvml *n, p2ps_nvml_ret *init_rc,
                                     struct p2ps_timings *timings);

/* Which file the loaded library is, as "PATH:DEV:INODE:SIZE:MTIME" (a driver update
 * replaces it), and the same for any path. Return 0, or -1 when they cannot tell. */
int p2ps_nvml_library_id(const struct p2ps_nvml *n, char *out, size_t size);
int p2ps_nvml_file_id(const char *path, char *out, size_t size);

/* nvmlShutdown (when initialised) and dlclose; nothing when nothing is open. */
void p2ps_nvml_close(struct p2ps_nvml *n);

#endif
