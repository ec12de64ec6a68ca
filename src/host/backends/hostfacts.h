/* SPDX-License-Identifier: MIT */
/* Host-wide facts read from a sysfs/proc tree (live "" or a snapshot root). */
#ifndef P2PS_HOST_HOSTFACTS_H
#define P2PS_HOST_HOSTFACTS_H

#include "p2pscope/host.h"

/* IOMMU units and groups, /proc/cmdline, NVIDIA module versions, VM detection.
 * live says whether absent files mean "absent on this host" (live) or "not captured". */
void p2ps_hostfacts_read(struct p2ps_host *host, const char *root, bool live);

/* Splits a kernel command line into the flags the model keeps. */
void p2ps_cmdline_parse(struct p2ps_host_cmdline *c);

/* Keeps NCCL_* entries of a NULL-terminated NAME=value list. */
void p2ps_hostfacts_nccl_env(struct p2ps_host *host, const char *const *envp);

/* NCCL_* lines from a snapshot's p2pscope/env file. */
void p2ps_hostfacts_nccl_env_file(struct p2ps_host *host, const char *root);

/* Pulls the driver version number out of a /proc/driver/nvidia/version line. */
void p2ps_nvidia_version_number(const char *line, char *out, size_t size);

/* /proc/driver/nvidia/params text into nv (RegistryDwords, EnableResizableBar). */
void p2ps_nvidia_params_parse(struct p2ps_host_nvidia *nv, const char *text);

/* The first block of /proc/cpuinfo into cpu (vendor, family, model, model name). */
void p2ps_cpuinfo_parse(struct p2ps_host_cpu *cpu, const char *text);

#endif
