/* SPDX-License-Identifier: MIT */
/* The VFIO backend's work on open devices (not installed): opening the requested
 * devices, their reports, register reads and the peer mapping, collected into one
 * struct p2ps_vfio_facts that the model keeps. */
#ifndef P2PS_VFIO_PROBE_H
#define P2PS_VFIO_PROBE_H

#include "p2pscope/host_load.h"
#include "p2pscope/vfio.h"

struct p2ps_vfio_probe {
	struct p2ps_vfio session;
	unsigned n_devs;
	struct p2ps_vfio_device devs[P2PS_VFIO_MAX_DEVS];
	struct p2ps_vfio_facts *facts; /* devs[] reports filled by p2ps_vfio_probe_open */
};

/* Opens the session and every target of req in order ("all": every device the live
 * model shows bound to vfio-pci, in address order), reports each device and asks the
 * container for its IOMMU facts. CAN RESET THE DEVICES. */
int p2ps_vfio_probe_open(struct p2ps_vfio_probe *pr, const struct p2ps_host *host,
                         const struct p2ps_vfio_request *req, struct p2ps_error *err);

/* The register reads and the peer mapping req asks for, on the open devices. Their
 * failures are facts (facts->regs[i].error, facts->peer_error), not errors. */
int p2ps_vfio_probe_run(struct p2ps_vfio_probe *pr, const struct p2ps_host *host,
                        const struct p2ps_vfio_request *req, struct p2ps_error *err);

/* Records the session's facts, closes the devices and the session, and hands the facts
 * to host->vfio when keep is set (frees them otherwise). */
void p2ps_vfio_probe_close(struct p2ps_vfio_probe *pr, struct p2ps_host *host, bool keep);

#endif
