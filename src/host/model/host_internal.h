/* SPDX-License-Identifier: MIT */
/* The model's interface for the code that builds a model: the backends and their loader
 * (src/host/backends). Readers (analysis, renderers) use include/p2pscope/host.h only. */
#ifndef P2PS_HOST_INTERNAL_H
#define P2PS_HOST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"

/* Records why a fact is unknown (printf-style). */
void p2ps_dev_set_unknown(struct p2ps_dev *dev, enum p2ps_fact fact, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Appends one zero-initialised device (defaults: every sentinel "unknown") and returns
 * it, or NULL when out of memory. Pointers returned earlier may move. */
struct p2ps_dev *p2ps_host_add_dev(struct p2ps_host *host, size_t *cap);

/* Sorts devs by BDF, then resolves each dev->parent_bdf (where has_parent) into
 * parent_idx and parent. */
void p2ps_host_sort_and_link(struct p2ps_host *host);

/* Completes a model a backend has filled: sorts and links the devices and gives every
 * NVIDIA device its chip-table row. p2ps_host_load() calls it after the backend. */
void p2ps_host_finish(struct p2ps_host *host);

/* NVLink peers, one rule for every source of NVIDIA facts (RM API, NVML): links adds to
 * g's count of NVLinks to peer (a new entry when peer is not yet one; dropped past
 * P2PS_HOST_MAX_NVLINK peers; a count stops at P2PS_HOST_MAX_NVLINK). Through a fabric (NVSwitches,
 * or far ends the source cannot name) a GPU with a_links fabric links reaches a GPU with b_links
 * when the driver's NVLink P2P status of the pair is OK, over the smaller of the two counts (NV18
 * on HGX H100/H200, as NVML's topology gives it): p2ps_gpu_add_fabric_peer gives a that peer. */
void p2ps_gpu_add_nvlink_peer(struct p2ps_gpu_facts *g, const struct p2ps_bdf *peer, int links);
void p2ps_gpu_add_fabric_peer(struct p2ps_dev *a, int a_links, const struct p2ps_dev *b,
                              int b_links);

/* Parses a sysfs link speed ("16.0 GT/s PCIe", "2.5 GT/s") into the LnkCap encoding;
 * 0 if unknown. */
uint8_t p2ps_link_speed_parse(const char *s);

/* Bounded copy that always NUL-terminates. */
void p2ps_strlcpy(char *dst, const char *src, size_t size);

#endif
