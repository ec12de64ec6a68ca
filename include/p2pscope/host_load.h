/* SPDX-License-Identifier: MIT */
/* p2pscope: loading a host model from a source — the backends and their registry.
 *
 * p2ps_host_load() fills a struct p2ps_host (p2pscope/host.h) from the backend that the
 * source's kind names: one file per backend in src/host/backends, each ending with one
 * const struct p2ps_host_backend table, listed once in the registry (registry.c).
 *
 * Hardware access beyond reading sysfs happens only on an explicit request in the
 * source (struct p2ps_vfio_request): opening devices through VFIO (which can reset
 * them), reading one register read-only, mapping a peer's BAR into an IOMMU context.
 */
#ifndef P2PSCOPE_HOST_LOAD_H
#define P2PSCOPE_HOST_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/host.h"
#include "p2pscope/pci_addr.h"
#include "p2pscope/vfio/facts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry of the list of devices to open through VFIO, in the order given. */
struct p2ps_vfio_target {
	bool all_bound;      /* every device bound to vfio-pci, in PCI-address order */
	struct p2ps_bdf bdf; /* otherwise this device */
};

/* What the VFIO options ask for. The results land in host->vfio. */
struct p2ps_vfio_request {
	/* Devices to open (kind P2PS_HOST_VFIO), through this flow. CAN RESET THEM. */
	const struct p2ps_vfio_target *targets;
	size_t n_targets;
	enum p2ps_vfio_flow flow;
	/* The register read runs on the VFIO devices (narrowed by reg_filter when given),
	 * or else on the devices reg_filter selects, through sysfs resourceN (root). For the
	 * peer mapping, A and B must be among the targets. */
	struct p2ps_vfio_asked asked;
	const struct p2ps_slot_filter *reg_filter;
};

/* Where the NVIDIA facts of a live host come from. */
enum p2ps_nvidia_facts {
	P2PS_NV_FACTS_AUTO = 0, /* the RM API; NVML where the RM API cannot be used */
	P2PS_NV_FACTS_RM,       /* the RM API only */
	P2PS_NV_FACTS_NVML,     /* NVML only (its per-boot cache with P2PS_HOST_F_NVML_CACHE) */
	P2PS_NV_FACTS_NONE,     /* neither (as P2PS_HOST_F_NO_NVML) */
};

struct p2ps_rm_sys; /* p2pscope/rm.h */

/* Where to load a host from. Zero-initialise and set what you need. */
struct p2ps_host_source {
	enum p2ps_host_backend_kind kind;
	const char *path; /* SNAPSHOT: root DIR; LSPCI_DUMP, PASTE: FILE ("-" stdin); LIVE, VFIO:
	                     NULL */
	unsigned flags;   /* P2PS_HOST_F_* */
	/* NCCL_* variables to report. NULL: LIVE takes them from the process environment,
	 * SNAPSHOT from DIR/p2pscope/env (one NAME=value a line). */
	const char *const *envp;
	/* VFIO devices, register reads, peer mapping (LIVE and VFIO only); NULL: none. */
	const struct p2ps_vfio_request *vfio;
	/* PASTE only: the pasted text itself instead of path (tests, fuzzing); path, if set,
	 * names it in messages. */
	const char *text;
	size_t text_len;
	/* The pci.ids file for device names; NULL: libpci's (/usr/share/misc/pci.ids). */
	const char *ids_file;
	/* Phase timings to fill (timings.h); NULL: none recorded. */
	struct p2ps_timings *timings;
	/* LIVE: where the NVIDIA facts come from. */
	enum p2ps_nvidia_facts nvidia_facts;
	/* The RM API's system calls (a recorder around the live driver, or a capture's
	 * replay); NULL: the live driver. A SNAPSHOT given one takes its NVIDIA facts from it
	 * (the replay of a capture made on the snapshot's host) instead of nvidia-smi files. */
	const struct p2ps_rm_sys *rm_sys;
};

#define P2PS_HOST_F_NO_NVML  0x1u /* never dlopen libnvidia-ml (tests, reproducibility) */
#define P2PS_HOST_F_NO_NAMES 0x2u /* skip pci.ids name lookups (numeric only) */
/* LIVE: take NVML's facts from a per-boot cache in the user's cache directory, and
 * write it, where that is safe (fewer than two NVIDIA GPUs; src/host/backends/nvml_cache.c
 * says what the key covers). Ignored with P2PS_HOST_F_NO_NVML. */
#define P2PS_HOST_F_NVML_CACHE 0x4u

/* A backend: one per file (src/host/backends/), each ending with one const table.
 * load() fills every field it can and leaves the rest to the defaults p2ps_host_load()
 * set (unknown). */
struct p2ps_host_backend {
	const char *name;
	enum p2ps_host_backend_kind kind;
	const char *help;
	int (*load)(struct p2ps_host *host, const struct p2ps_host_source *src,
	            struct p2ps_error *err);
};

/* Loads host from src. On success returns 0; on failure returns a negative P2PS_E* code,
 * fills err with one line (e.g. "snapshot /x: no sys/bus/pci/devices directory") and
 * leaves host empty (safe to p2ps_host_free). A register read or peer mapping that
 * fails is a fact (host->vfio), not a failure of the load. */
int p2ps_host_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                   struct p2ps_error *err);

/* The backend table for a kind, or NULL if this build lacks it. */
const struct p2ps_host_backend *p2ps_host_backend_find(enum p2ps_host_backend_kind kind);

#ifdef __cplusplus
}
#endif

#endif
