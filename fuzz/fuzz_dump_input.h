/* SPDX-License-Identifier: MIT */
/* Shared by the host fuzz targets that feed libFuzzer's input to the lspci-dump
 * backend (fuzz_lspci_dump.c, fuzz_bar_inspect_report.c). A header, not a .c file:
 * each .c file under fuzz/ is a target of its own. */
#ifndef P2PS_FUZZ_DUMP_INPUT_H
#define P2PS_FUZZ_DUMP_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p2pscope/host.h"
#include "p2pscope/host_load.h"

/* Writes data to a memfd and loads it as an lspci dump (no NVML, numeric ids only).
 * Returns p2ps_host_load()'s result, or 1 when the memfd could not be made or filled
 * (the input is then skipped). h is always safe to p2ps_host_free() afterwards. */
static inline int fuzz_load_dump(const uint8_t *data, size_t size, struct p2ps_host *h,
                                 struct p2ps_error *err)
{
	memset(h, 0, sizeof(*h));
	int fd = memfd_create("dump", 0);
	if (fd < 0)
		return 1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_LSPCI_DUMP,
	        .path = path,
	        .flags = P2PS_HOST_F_NO_NVML | P2PS_HOST_F_NO_NAMES,
	};
	int rc = p2ps_host_load(h, &src, err);
	close(fd);
	return rc;
}

#endif
