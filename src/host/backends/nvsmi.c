/* SPDX-License-Identifier: MIT */
/* Facts from captured nvidia-smi output (snapshots), through the shared readers of
 * nvsmi_text.c (which the paste backend uses too). nvidia-smi numbers GPUs in PCI bus
 * order, the same order as the "GPU <bus id>" sections of nvidia-smi -q, so GPUn in the
 * topo -m matrix is the n-th GPU of the model. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"
#include "nvsmi_text.h"
#include "io.h"

/* One -q record on the device at its address. */
static void on_record(void *arg, const struct p2ps_nvsmi_rec *r)
{
	struct p2ps_dev *gpu = r->bdf_known ? p2ps_host_find(arg, &r->bdf) : NULL;
	if (!gpu || (!r->fb_known && !r->bar1_known))
		return;
	gpu->gpu.source = P2PS_GPU_SRC_NVIDIA_SMI;
	if (r->fb_known) {
		gpu->gpu.vram_bytes = r->fb;
		gpu->gpu.vram_known = true;
	}
	if (r->bar1_known) {
		gpu->gpu.bar1_total_bytes = r->bar1;
		gpu->gpu.bar1_known = true;
	}
}

void p2ps_nvsmi_parse_q(struct p2ps_host *host, const char *text)
{
	p2ps_nvsmi_q_read(text, strlen(text), on_record, host, NULL, 0);
}

void p2ps_nvsmi_nvlinks(int n, const char (*cell)[P2PS_NVSMI_CELL], struct p2ps_dev *const *gpus)
{
	for (int i = 0; i < n; i++) {
		struct p2ps_gpu_facts *g = gpus[i] ? &gpus[i]->gpu : NULL;
		for (int j = 0; g && j < n; j++) {
			int links;
			if (j == i || !cell[i * n + j][0])
				continue;
			/* Known as soon as the row has a cell for another GPU. */
			g->nvlink_known = true;
			if (gpus[j] && sscanf(cell[i * n + j], "NV%d", &links) == 1 &&
			    g->n_nvlink_peers < P2PS_HOST_MAX_NVLINK) {
				g->nvlink_peers[g->n_nvlink_peers].bdf = gpus[j]->bdf;
				g->nvlink_peers[g->n_nvlink_peers++].links = links;
			}
		}
	}
}

void p2ps_nvsmi_parse_topo(struct p2ps_host *host, const char *text)
{
	struct p2ps_nvsmi_matrix m;
	if (p2ps_nvsmi_matrix_read(text, strlen(text), &m) < 0 || !m.n) {
		free(m.cell);
		return;
	}
	struct p2ps_dev *gpus[P2PS_NVSMI_MAX_GPUS] = {NULL};
	int n = 0;
	for (size_t i = 0; i < host->n_devs && n < m.n; i++)
		if (p2ps_dev_is_nvidia_gpu(&host->devs[i]))
			gpus[n++] = &host->devs[i];
	p2ps_nvsmi_nvlinks(m.n, (const char(*)[P2PS_NVSMI_CELL])m.cell, gpus);
	free(m.cell);
}

void p2ps_nvsmi_fill(struct p2ps_host *host, const char *root)
{
	char *text = NULL;
	if (p2ps_read_all(root, "/p2pscope/nvidia-smi-q.txt", 16u << 20, &text) >= 0) {
		p2ps_nvsmi_parse_q(host, text);
		free(text);
	}
	if (p2ps_read_all(root, "/p2pscope/nvidia-smi-topo-m.txt", 1u << 20, &text) >= 0) {
		p2ps_nvsmi_parse_topo(host, text);
		free(text);
	}
}

void p2ps_gpu_facts_finish(struct p2ps_host *host)
{
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		if (!p2ps_dev_is_nvidia_gpu(d))
			continue;
		const char *why = host->kind == P2PS_HOST_LIVE
		                          ? (host->nvidia.nvml_status[0] ? host->nvidia.nvml_status
		                                                         : "NVML gave no value")
		                  : host->kind == P2PS_HOST_SNAPSHOT
		                          ? "no nvidia-smi output in the snapshot for this GPU"
		                          : "not recorded in this source";
		if (!d->gpu.vram_known)
			p2ps_dev_set_unknown(d, P2PS_FACT_VRAM, "%s", why);
		if (!d->gpu.nvlink_known)
			p2ps_dev_set_unknown(d, P2PS_FACT_NVLINK, "%s", why);
	}
}
