/* SPDX-License-Identifier: MIT */
/* NVML's own cost, without bar-inspect: what a fresh process pays to load
 * libnvidia-ml.so.1 and initialise it, and what each query bar-inspect makes costs
 * once it is initialised. Run by bench/bar-inspect-vs-lspci.sh (as a whole process,
 * alternating with bar-inspect and lspci) and on its own:
 *
 *   nvml-init none      exits at once (the cost of starting a process)
 *   nvml-init dlopen    dlopen only
 *   nvml-init init      dlopen, nvmlInit_v2, nvmlShutdown, dlclose (the default)
 *   nvml-init calls     init, then every query bar-inspect makes, each timed in
 *                       process (microseconds to stderr), then shutdown
 *   nvml-init calls-noattach   the same after nvmlInitWithFlags(NVML_INIT_FLAG_NO_ATTACH)
 *
 * The prototypes are those of NVIDIA's public nvml.h for these calls; structures are
 * passed as opaque buffers larger than theirs, since only the cost is measured. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef int (*fn_void)(void);
typedef int (*fn_flags)(unsigned);
typedef int (*fn_count)(unsigned *);
typedef int (*fn_index)(unsigned, void **);
typedef int (*fn_dev_buf)(void *, void *);
typedef int (*fn_dev_str)(char *, unsigned);
typedef int (*fn_link_int)(void *, unsigned, int *);
typedef int (*fn_link_buf)(void *, unsigned, void *);
typedef int (*fn_p2p)(void *, void *, int, int *);

#define MAX_GPUS  64
#define MAX_LINKS 18u /* NVML_NVLINK_MAX_LINKS */

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p)
		fprintf(stderr, "nvml-init: %s missing\n", name);
	return p;
}

/* Times each kind of query bar-inspect makes over every GPU (and link, and pair). */
static void time_calls(void *lib)
{
	fn_count count = (fn_count)sym(lib, "nvmlDeviceGetCount_v2");
	fn_index by_index = (fn_index)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
	fn_dev_buf pci = (fn_dev_buf)sym(lib, "nvmlDeviceGetPciInfo_v3");
	fn_dev_buf mem = (fn_dev_buf)sym(lib, "nvmlDeviceGetMemoryInfo");
	fn_dev_buf bar1 = (fn_dev_buf)sym(lib, "nvmlDeviceGetBAR1MemoryInfo");
	fn_dev_str version = (fn_dev_str)sym(lib, "nvmlSystemGetDriverVersion");
	fn_link_int state = (fn_link_int)sym(lib, "nvmlDeviceGetNvLinkState");
	fn_link_int rtype = (fn_link_int)sym(lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
	fn_link_buf rpci = (fn_link_buf)sym(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	fn_p2p p2p = (fn_p2p)sym(lib, "nvmlDeviceGetP2PStatus");
	if (!count || !by_index || !pci || !mem || !bar1 || !version || !state || !rpci || !p2p)
		return;
	unsigned n = 0, active = 0;
	void *h[MAX_GPUS];
	char buf[4096], v[96];
	double t = now_us();
	version(v, sizeof(v));
	fprintf(stderr, "  nvmlSystemGetDriverVersion        %9.1f us  (%s)\n", now_us() - t, v);
	t = now_us();
	count(&n);
	n = n > MAX_GPUS ? MAX_GPUS : n;
	for (unsigned i = 0; i < n; i++)
		by_index(i, &h[i]);
	fprintf(stderr, "  count and %u handles              %9.1f us\n", n, now_us() - t);
	const struct {
		const char *what;
		fn_dev_buf fn;
	} per_gpu[] = {{"PCI info", pci}, {"memory info", mem}, {"BAR1 info", bar1}};
	for (size_t k = 0; k < sizeof(per_gpu) / sizeof(per_gpu[0]); k++) {
		t = now_us();
		for (unsigned i = 0; i < n; i++)
			per_gpu[k].fn(h[i], buf);
		fprintf(stderr, "  %-11s, all GPUs             %9.1f us\n", per_gpu[k].what,
		        now_us() - t);
	}
	t = now_us();
	for (unsigned i = 0; i < n; i++)
		for (unsigned l = 0; l < MAX_LINKS; l++) {
			int a = 0;
			if (state(h[i], l, &a) == 0 && a == 1)
				active++;
		}
	fprintf(stderr, "  NvLinkState x%u links x%u GPUs    %9.1f us  (%u active)\n", MAX_LINKS, n,
	        now_us() - t, active);
	t = now_us();
	for (unsigned i = 0; i < n; i++)
		for (unsigned l = 0; l < MAX_LINKS; l++) {
			int ty = 0;
			if (rtype)
				rtype(h[i], l, &ty);
			rpci(h[i], l, buf);
		}
	fprintf(stderr, "  remote type and PCI, every link   %9.1f us\n", now_us() - t);
	t = now_us();
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++) {
			int st = 0;
			if (i != j)
				p2p(h[i], h[j], 2, &st);
		}
	fprintf(stderr, "  P2P status (NVLink), every pair   %9.1f us\n", now_us() - t);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "init";
	if (!strcmp(mode, "none"))
		return 0;
	double t0 = now_us();
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nvml-init: %s\n", dlerror());
		return 1;
	}
	if (!strcmp(mode, "dlopen"))
		return 0;
	double t1 = now_us();
	bool noattach = !strcmp(mode, "calls-noattach");
	fn_void init = (fn_void)sym(lib, "nvmlInit_v2");
	fn_flags init_flags = (fn_flags)sym(lib, "nvmlInitWithFlags");
	fn_void shutdown = (fn_void)sym(lib, "nvmlShutdown");
	/* NVML_INIT_FLAG_NO_ATTACH = 2 */
	if (!init || !shutdown || (noattach && !init_flags) ||
	    (noattach ? init_flags(2) : init()) != 0) {
		fprintf(stderr, "nvml-init: nvml init failed\n");
		return 1;
	}
	double t2 = now_us();
	bool calls = !strncmp(mode, "calls", 5);
	if (calls) {
		fprintf(stderr, "nvml-init (%s): dlopen %.1f us, init %.1f us\n", mode, t1 - t0,
		        t2 - t1);
		time_calls(lib);
	}
	double t3 = now_us();
	shutdown();
	double t4 = now_us();
	dlclose(lib);
	if (calls)
		fprintf(stderr, "  nvmlShutdown %.1f us, dlclose %.1f us\n", t4 - t3,
		        now_us() - t4);
	return 0;
}
