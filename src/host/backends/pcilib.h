/* SPDX-License-Identifier: MIT */
/* libpci glue shared by the sysfs/snapshot and lspci-dump backends. */
#ifndef P2PS_HOST_PCILIB_H
#define P2PS_HOST_PCILIB_H

#include "p2pscope/host.h"

struct p2ps_pcilib_opts {
	int method;        /* PCI_ACCESS_SYS_BUS_PCI or PCI_ACCESS_DUMP */
	const char *param; /* "sysfs.path" or "dump.name" */
	const char *value; /* its value */
	bool names;        /* look names up in pci.ids */
	const char *ids;   /* that list's file; NULL: libpci's default */
	bool kernel_view;  /* sysfs: take BAR sizes and the NUMA node from the kernel */
	bool config_files; /* sysfs: each device's config length is its config file's size */
	int error_code;    /* code for libpci errors: P2PS_EIO live, P2PS_EINVAL for files */
};

/* Scans every device libpci sees with the given method and appends one p2ps_dev per
 * device: ids and names, config space (as many bytes as readable), BARs/ROM (with
 * sizes when the method knows them), bridge windows, and the PCIe, ACS and ReBAR
 * capabilities located through libpci's capability list. libpci errors (which would
 * otherwise end the process) become P2PS_EIO/P2PS_EINVAL with libpci's message. */
int p2ps_pcilib_scan(struct p2ps_host *host, const struct p2ps_pcilib_opts *o,
                     struct p2ps_error *err);

#endif
