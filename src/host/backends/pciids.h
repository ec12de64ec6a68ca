/* SPDX-License-Identifier: MIT */
/* Device names from pci.ids in one pass over the file, for the devices of a model.
 *
 * libpci answers a name lookup by first loading the whole list into a hash table (about
 * 36,000 entries, a few milliseconds: more than the rest of a snapshot report). A
 * report needs the names of a handful of ids, so this reads the file once and keeps
 * only the lines of the vendors (and generic subsystem blocks) the model's devices
 * carry. The answers are libpci's: the same file (libpci's path), the same line syntax,
 * the same lookup order for subsystem names (per-device entry, generic "S" block entry,
 * the device itself when the subsystem ids equal the device ids) and the same
 * truncation of long names. One difference: libpci refuses a whole file with a line it
 * cannot parse or a duplicate entry (and the load fails); here only the lines read
 * matter, and a bad one among them is skipped. */
#ifndef P2PS_HOST_PCIIDS_H
#define P2PS_HOST_PCIIDS_H

#include <stddef.h>

#include "p2pscope/host.h"

/* What p2ps_pciids_fill did. */
enum p2ps_pciids_result {
	P2PS_PCIIDS_DONE = 0,   /* names filled (none where the file has none) */
	P2PS_PCIIDS_NO_FILE,    /* no readable list: libpci would find no names either */
	P2PS_PCIIDS_USE_LIBPCI, /* a compressed list: ask libpci, which can read it */
};

/* Fills vendor_name, device_name and subsys_name of devs[0..n) from the list libpci
 * would read for the file name id_file_name (pci_access.id_file_name: with zlib, libpci
 * reads NAME.gz when it exists and NAME otherwise). */
enum p2ps_pciids_result p2ps_pciids_fill(const char *id_file_name, struct p2ps_dev *devs, size_t n);

/* The same over a list in memory. Exposed for tests and fuzzing. */
void p2ps_pciids_fill_text(const char *text, size_t len, struct p2ps_dev *devs, size_t n);

#endif
