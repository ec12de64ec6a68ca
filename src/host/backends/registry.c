/* SPDX-License-Identifier: MIT */
/* The backend registry and the loader (include/p2pscope/host_load.h). */
#include "backends.h"

#include <stdio.h>
#include <string.h>

#include "host_internal.h"

/* One line per backend this build knows; a new backend file adds its table here. */
static const struct p2ps_host_backend *const backends[] = {
        &p2ps_host_backend_sysfs, &p2ps_host_backend_snapshot, &p2ps_host_backend_lspci_dump,
        &p2ps_host_backend_vfio,  &p2ps_host_backend_paste,
};

const struct p2ps_host_backend *p2ps_host_backend_find(enum p2ps_host_backend_kind kind)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (backends[i]->kind == kind)
			return backends[i];
	return NULL;
}

int p2ps_host_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                   struct p2ps_error *err)
{
	if (!host || !src)
		return p2ps_error_set(err, P2PS_EINVAL, "p2ps_host_load: no host or source");
	memset(host, 0, sizeof(*host));
	const struct p2ps_host_backend *be = p2ps_host_backend_find(src->kind);
	if (!be)
		return p2ps_error_set(err, P2PS_ENOTSUP, "host backend %d is not in this build",
		                      (int)src->kind);
	if (src->vfio && src->kind != P2PS_HOST_LIVE && src->kind != P2PS_HOST_VFIO)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "VFIO devices and register reads need this host's hardware, "
		                      "not a %s",
		                      be->name);
	host->kind = src->kind;
	host->backend_name = be->name;
	if (src->path)
		p2ps_strlcpy(host->source_path, src->path, sizeof(host->source_path));
	host->timings = src->timings;
	int rc = be->load(host, src, err);
	uint64_t lap = p2ps_clock_ns();
	if (rc >= 0)
		p2ps_host_finish(host);
	p2ps_timings_lap(host->timings, "model: order, parents, chip rows", &lap);
	/* The VFIO backend reads registers itself, through its open devices. */
	if (rc >= 0 && src->kind == P2PS_HOST_LIVE && src->vfio && src->vfio->asked.read_reg)
		rc = p2ps_vfio_probe_sysfs_regs(host, src->vfio, err);
	if (rc < 0) {
		p2ps_host_free(host);
		return rc;
	}
	return 0;
}
