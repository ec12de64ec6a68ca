/* SPDX-License-Identifier: MIT */
/* NVIDIA facts per GPU: VRAM, BAR1 total and NVLink peers, from NVML at run time
 * (dlopen, live only) or from a snapshot's captured nvidia-smi output. */
#ifndef P2PS_HOST_NVFACTS_H
#define P2PS_HOST_NVFACTS_H

#include "p2pscope/host.h"
#include "p2pscope/rm.h"

/* The RM API (rm_facts.c): one client through sys (NULL: the live driver), every NVIDIA
 * GPU the driver lists, the pairs' P2P caps per path, the CPU and chipset; everything
 * freed. The session runs on its own thread from p2ps_rm_facts_start (sys must outlive
 * it; without sys, the live driver's files under root, "" for /), so that it overlaps the reading
 * of the PCI devices; p2ps_rm_facts_finish waits for it, gives each GPU of the model its facts and
 * frees the job: 0 when the RM API answered, otherwise -1 and why in host->nvidia.rm_status.
 * p2ps_rm_facts_discard waits and drops it (NULL: nothing). p2ps_rm_facts_fill is start and finish
 * in one. */
struct p2ps_rm_facts_job;
int p2ps_rm_facts_start(struct p2ps_rm_facts_job **job, const struct p2ps_rm_sys *sys,
                        const char *root);
int p2ps_rm_facts_finish(struct p2ps_host *host, struct p2ps_rm_facts_job *job);
void p2ps_rm_facts_discard(struct p2ps_rm_facts_job *job);
int p2ps_rm_facts_fill(struct p2ps_host *host, const struct p2ps_rm_sys *sys);

/* The NVIDIA facts of a live host (or a replay) from the source the caller chose
 * (src->nvidia_facts), with the one line saying which source was used in
 * host->nvidia.facts_source/facts_note. job: the RM session already started for it
 * (when p2ps_nvidia_facts_use_rm(src)), or NULL to start one here when needed. */
struct p2ps_host_source;
bool p2ps_nvidia_facts_use_rm(const struct p2ps_host_source *src);
void p2ps_nvidia_facts_fill(struct p2ps_host *host, const struct p2ps_host_source *src,
                            struct p2ps_rm_facts_job *job);

/* Live: dlopen("libnvidia-ml.so.1"); on any failure records why in
 * host->nvidia.nvml_status and leaves the facts unknown. */
void p2ps_nvml_fill(struct p2ps_host *host);

/* The same through a per-boot cache of the facts (nvml_cache.c), for hosts with fewer
 * than two NVIDIA GPUs (NVLink between GPUs can change while a host runs: it is asked
 * every time): the facts of the last run are taken when nothing they depend on
 * changed, else NVML is asked and the cache rewritten. */
void p2ps_nvml_fill_cached(struct p2ps_host *host);

/* The cache: its key (what the facts depend on that is known before loading NVML:
 * boot, kernel module, the loader's search, the GPUs with their drivers and BAR sizes),
 * reading it (true when the file's key is key, the library file it names is unchanged
 * and its facts were applied) and writing it with the loaded library's identity (lib,
 * p2ps_nvml_library_id). In $XDG_CACHE_HOME/p2pscope or ~/.cache/p2pscope, file
 * nvml-facts. */
#define P2PS_NVML_CACHE_KEY_MAX 4096
int p2ps_nvml_cache_key(const struct p2ps_host *host, char *key, size_t size);
bool p2ps_nvml_cache_read(struct p2ps_host *host, const char *key);
void p2ps_nvml_cache_write(const struct p2ps_host *host, const char *key, const char *lib);

/* The parser of a cache file's text, exposed for tests and fuzzing: applies the facts
 * (and returns true) only when the whole text is well formed and its key is key. */
bool p2ps_nvml_cache_parse(struct p2ps_host *host, const char *text, const char *key);

/* Snapshot: parses ROOT/p2pscope/nvidia-smi-q.txt (FB and BAR1 totals per GPU) and
 * ROOT/p2pscope/nvidia-smi-topo-m.txt (NV# cells). Missing files leave facts unknown. */
void p2ps_nvsmi_fill(struct p2ps_host *host, const char *root);

/* Parsers over text, exposed for tests and fuzzing. */
void p2ps_nvsmi_parse_q(struct p2ps_host *host, const char *text);
void p2ps_nvsmi_parse_topo(struct p2ps_host *host, const char *text);
/* A topo -p2p matrix into host->driver_caps at NV0000_CTRL_P2P_CAPS_INDEX k (0..4). */
void p2ps_nvsmi_parse_p2p(struct p2ps_host *host, const char *text, int k, const char *source);

/* Records the unknown reasons of NVIDIA GPUs whose facts no source filled. */
void p2ps_gpu_facts_finish(struct p2ps_host *host);

#endif
