/* SPDX-License-Identifier: MIT */
/* Facts from captured nvidia-smi output (snapshots), through the shared readers of
 * nvsmi_text.c (which the paste backend uses too). nvidia-smi numbers GPUs in PCI bus
 * order, the same order as the "GPU <bus id>" sections of nvidia-smi -q, so GPUn in the
 * topo -m matrix is the n-th GPU of the model. */
#include <limits.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"
#include "nvsmi_text.h"
#include "io.h"
#include "p2pscope/parse.h"

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
	/* On a fabric: its NVLinks end at switches, counted once topo -m is read. */
	if (r->fabric == 1)
		gpu->gpu.nvswitch_links = -1;
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
			uint64_t links;
			if (j == i || !cell[i * n + j][0])
				continue;
			/* Known as soon as the row has a cell for another GPU. */
			g->nvlink_known = true;
			if (gpus[j] && !strncmp(cell[i * n + j], "NV", 2) &&
			    p2ps_scan_uint(cell[i * n + j] + 2, 10, INT_MAX, &links) &&
			    g->n_nvlink_peers < P2PS_HOST_MAX_NVLINK) {
				g->nvlink_peers[g->n_nvlink_peers].bdf = gpus[j]->bdf;
				g->nvlink_peers[g->n_nvlink_peers++].links = (int)links;
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

/* A topo -p2p MODE matrix into the driver's caps at index k (0 read, 1 write, 2 nvlink,
 * 3 atomics, 4 prop): GPUn is the n-th NVIDIA GPU of the model. */
void p2ps_nvsmi_parse_p2p(struct p2ps_host *host, const char *text, int k, const char *source)
{
	struct p2ps_nvsmi_matrix m;
	struct p2ps_host_driver_caps *dc = &host->driver_caps;
	if (k < 0 || k >= P2PS_HOST_DRVCAPS_INDEX)
		return;
	if (p2ps_nvsmi_matrix_read(text, strlen(text), &m) < 0 || !m.n || !m.p2p) {
		free(m.cell);
		return;
	}
	int n = m.n < P2PS_HOST_DRVCAPS_GPUS ? m.n : P2PS_HOST_DRVCAPS_GPUS;
	if (!dc->known) {
		memset(dc->st, 0xff, sizeof(dc->st));
		int g = 0;
		for (size_t i = 0; i < host->n_devs && g < n; i++)
			if (p2ps_dev_is_nvidia_gpu(&host->devs[i])) {
				dc->gpu[g] = host->devs[i].bdf;
				dc->gpu_known[g++] = true;
			}
		dc->n_gpus = n;
		p2ps_strlcpy(dc->source, source, sizeof(dc->source));
	}
	enum p2ps_nv_status st;
	for (int i = 0; i < n && i < dc->n_gpus; i++)
		for (int j = 0; j < n && j < dc->n_gpus; j++)
			if (i != j && !p2ps_nv_status_from_code(m.cell[i * m.n + j], &st) &&
			    p2ps_nv_status_is_driver(st)) {
				dc->st[i][j][k] = (uint8_t)st;
				dc->known = true;
			}
	free(m.cell);
}

void p2ps_nvsmi_fill(struct p2ps_host *host, const char *root)
{
	static const struct {
		const char *file;
		int k;
	} p2p[] = {{"/p2pscope/nvidia-smi-topo-p2p.txt", 0},
	           {"/p2pscope/nvidia-smi-topo-p2p-w.txt", 1},
	           {"/p2pscope/nvidia-smi-topo-p2p-n.txt", 2},
	           {"/p2pscope/nvidia-smi-topo-p2p-a.txt", 3},
	           {"/p2pscope/nvidia-smi-topo-p2p-p.txt", 4}};
	char *text = NULL;
	if (p2ps_read_all(root, "/p2pscope/nvidia-smi-q.txt", 16u << 20, &text) >= 0) {
		p2ps_nvsmi_parse_q(host, text);
		free(text);
	}
	if (p2ps_read_all(root, "/p2pscope/nvidia-smi-topo-m.txt", 1u << 20, &text) >= 0) {
		p2ps_nvsmi_parse_topo(host, text);
		free(text);
	}
	for (size_t f = 0; f < sizeof(p2p) / sizeof(p2p[0]); f++)
		if (p2ps_read_all(root, p2p[f].file, 1u << 20, &text) >= 0) {
			p2ps_nvsmi_parse_p2p(host, text, p2p[f].k,
			                     "nvidia-smi topo -p2p (snapshot)");
			free(text);
		}
	/* A GPU on an NVLink fabric (-q's Fabric State) reaches its NV# peers through the
	 * switches with all its links: as many as its largest NV# (nvidia-smi topo -m gives
	 * every pair on an HGX board the GPU's full count). */
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_gpu_facts *g = &host->devs[i].gpu;
		if (g->nvswitch_links >= 0)
			continue;
		g->nvswitch_links = 0;
		for (int k = 0; k < g->n_nvlink_peers; k++)
			if (g->nvlink_peers[k].links > g->nvswitch_links)
				g->nvswitch_links = g->nvlink_peers[k].links;
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
