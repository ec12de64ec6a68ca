/* Private interfaces between the host model's files (not installed). */
#ifndef P2PS_HOST_INTERNAL_H
#define P2PS_HOST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"

extern const struct p2ps_host_backend p2ps_host_backend_sysfs;
extern const struct p2ps_host_backend p2ps_host_backend_snapshot;
extern const struct p2ps_host_backend p2ps_host_backend_lspci_dump;
extern const struct p2ps_host_backend p2ps_host_backend_vfio;  /* vfio_backend.c (issue 5) */
extern const struct p2ps_host_backend p2ps_host_backend_paste; /* src/paste/paste_host.c */

/* Records why a fact is unknown (printf-style). */
void p2ps_dev_set_unknown(struct p2ps_dev *dev, enum p2ps_fact fact, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Appends one zero-initialised device (defaults: every sentinel "unknown") and returns
 * it, or NULL when out of memory. Pointers returned earlier may move. */
struct p2ps_dev *p2ps_host_add_dev(struct p2ps_host *host, size_t *cap);

/* Sorts devs by BDF, then resolves each dev->parent_bdf (where has_parent) into
 * parent_idx and parent. p2ps_host_load() calls it after the backend. */
void p2ps_host_sort_and_link(struct p2ps_host *host);

/* Links devices without a parent to the bridge whose secondary..subordinate bus range
 * holds their bus (as `lspci -t` does on a dump) and sets every device's root_bus by
 * following parents up. Used by the dump and paste backends. */
void p2ps_host_tree_from_buses(struct p2ps_host *host);

/* Parses a sysfs link speed ("16.0 GT/s PCIe", "2.5 GT/s") into the LnkCap encoding;
 * 0 if unknown. */
uint8_t p2ps_link_speed_parse(const char *s);

/* Bounded copy that always NUL-terminates. */
void p2ps_strlcpy(char *dst, const char *src, size_t size);

#endif
