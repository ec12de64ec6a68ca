// fuzz-links: p2pshost
/* libFuzzer target for the lspci dump backend: the input is written to a memfd and
 * loaded through libpci's dump method (with our error hook, so a malformed row
 * returns instead of ending the process), then the model's own invariants are
 * checked: config length within bounds, BARs and ReBAR entries in range, parent
 * pointers pointing into the device array, error messages one line. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p2pscope/host.h"

static void check_dev(const struct p2ps_host *h, const struct p2ps_dev *d)
{
	if (d->config_len > P2PS_HOST_CONFIG_MAX || d->config_len < 64)
		abort();
	if (d->rebar.count > P2PS_HOST_MAX_REBAR)
		abort();
	for (int i = 0; i < d->rebar.count; i++)
		if (d->rebar.e[i].current > 63)
			abort();
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		if (d->bars[i].present && d->bars[i].index != i)
			abort();
	if (d->parent && (d->parent < h->devs || d->parent >= h->devs + h->n_devs ||
	                  d->parent == d || d->parent_idx != d->parent - h->devs))
		abort();
	if (d->acs.present && (d->acs.offset < 0x100 || d->acs.offset > 0xffc))
		abort();
	for (int f = 0; f < P2PS_FACT_COUNT; f++)
		if (strchr(d->unknown[f], '\n'))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("dump", 0);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_LSPCI_DUMP,
	        .path = path,
	        .flags = P2PS_HOST_F_NO_NVML | P2PS_HOST_F_NO_NAMES,
	};
	struct p2ps_host h;
	struct p2ps_error err = {0};
	if (p2ps_host_load(&h, &src, &err) == 0) {
		for (size_t i = 0; i < h.n_devs; i++)
			check_dev(&h, &h.devs[i]);
	} else if (err.code >= 0 || !err.msg[0] || strchr(err.msg, '\n')) {
		abort();
	}
	p2ps_host_free(&h);
	close(fd);
	return 0;
}
