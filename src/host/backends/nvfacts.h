/* NVIDIA facts per GPU: VRAM, BAR1 total and NVLink peers, from NVML at run time
 * (dlopen, live only) or from a snapshot's captured nvidia-smi output. */
#ifndef P2PS_HOST_NVFACTS_H
#define P2PS_HOST_NVFACTS_H

#include "p2pscope/host.h"

/* Live: dlopen("libnvidia-ml.so.1"); on any failure records why in
 * host->nvidia.nvml_status and leaves the facts unknown. */
void p2ps_nvml_fill(struct p2ps_host *host);

/* Snapshot: parses ROOT/p2pscope/nvidia-smi-q.txt (FB and BAR1 totals per GPU) and
 * ROOT/p2pscope/nvidia-smi-topo-m.txt (NV# cells). Missing files leave facts unknown. */
void p2ps_nvsmi_fill(struct p2ps_host *host, const char *root);

/* Parsers over text, exposed for tests and fuzzing. */
void p2ps_nvsmi_parse_q(struct p2ps_host *host, const char *text);
void p2ps_nvsmi_parse_topo(struct p2ps_host *host, const char *text);

/* Records the unknown reasons of NVIDIA GPUs whose facts no source filled. */
void p2ps_gpu_facts_finish(struct p2ps_host *host);

#endif
