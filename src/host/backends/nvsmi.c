/* Facts from captured nvidia-smi output (snapshots). nvidia-smi numbers GPUs in PCI
 * bus order, the same order as the "GPU <bus id>" sections of nvidia-smi -q, so GPUn
 * in the topo -m matrix is the n-th section of -q. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"
#include "io.h"

#define NVSMI_MAX_GPUS 64

/* "GPU 00000000:00:06.0" -> the device (nvidia-smi prints an 8-digit domain). */
static struct p2ps_dev *section_gpu(struct p2ps_host *host, const char *line)
{
	char addr[32];
	size_t n = strcspn(line + 4, " \t\r");
	struct p2ps_bdf b;
	if (n >= sizeof(addr))
		return NULL;
	memcpy(addr, line + 4, n);
	addr[n] = '\0';
	return p2ps_bdf_parse(addr, &b) == 0 ? p2ps_host_find(host, &b) : NULL;
}

/* "        Total                                          : 143771 MiB" -> bytes */
static bool total_mib(const char *line, uint64_t *bytes)
{
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "Total", 5))
		return false;
	p = strchr(p, ':');
	if (!p)
		return false;
	char *end;
	unsigned long long v = strtoull(p + 1, &end, 10);
	if (end == p + 1 || strncmp(end, " MiB", 4))
		return false;
	*bytes = (uint64_t)v << 20;
	return true;
}

void p2ps_nvsmi_parse_q(struct p2ps_host *host, const char *text)
{
	struct p2ps_dev *gpu = NULL;
	enum { NONE, FB, BAR1 } block = NONE;
	const char *line = text;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char buf[256];
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		if (!strncmp(buf, "GPU ", 4)) {
			gpu = section_gpu(host, buf);
			block = NONE;
		} else if (strstr(buf, "FB Memory Usage")) {
			block = FB;
		} else if (strstr(buf, "BAR1 Memory Usage")) {
			block = BAR1;
		} else if (gpu && block != NONE) {
			uint64_t v;
			if (total_mib(buf, &v)) {
				gpu->gpu.source = P2PS_GPU_SRC_NVIDIA_SMI;
				if (block == FB) {
					gpu->gpu.vram_bytes = v;
					gpu->gpu.vram_known = true;
				} else {
					gpu->gpu.bar1_total_bytes = v;
					gpu->gpu.bar1_known = true;
				}
				block = NONE;
			} else if (buf[0] && buf[0] != ' ' && buf[0] != '\t') {
				block = NONE;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* Removes ANSI escape sequences (nvidia-smi underlines the matrix header). */
static void strip_ansi(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r == '\x1b') {
			while (*r && !isalpha((unsigned char)*r))
				r++;
			if (!*r)
				break;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
}

void p2ps_nvsmi_parse_topo(struct p2ps_host *host, const char *text)
{
	struct p2ps_dev *gpus[NVSMI_MAX_GPUS];
	int ngpus = 0;
	for (size_t i = 0; i < host->n_devs && ngpus < NVSMI_MAX_GPUS; i++)
		if (p2ps_dev_is_nvidia_gpu(&host->devs[i]))
			gpus[ngpus++] = &host->devs[i];
	char *copy = strdup(text);
	if (!copy)
		return;
	strip_ansi(copy);
	char *save = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int row;
		int used = 0;
		if (sscanf(l, "GPU%d%n", &row, &used) != 1 || row < 0 || row >= ngpus)
			continue;
		/* Cells are tab-separated; column n (from 0) is GPUn while the header says so,
		 * and nvidia-smi always lists the GPU columns first. */
		char *save2 = NULL;
		int col = -1;
		for (char *cell = strtok_r(l + used, "\t", &save2); cell;
		     cell = strtok_r(NULL, "\t", &save2)) {
			while (*cell == ' ')
				cell++;
			col++;
			if (col >= ngpus)
				break;
			int links;
			if (sscanf(cell, "NV%d", &links) == 1 && col != row) {
				struct p2ps_gpu_facts *g = &gpus[row]->gpu;
				g->nvlink_known = true;
				if (g->n_nvlink_peers < P2PS_HOST_MAX_NVLINK) {
					g->nvlink_peers[g->n_nvlink_peers].bdf = gpus[col]->bdf;
					g->nvlink_peers[g->n_nvlink_peers++].links = links;
				}
			} else if (col != row) {
				gpus[row]->gpu.nvlink_known = true;
			}
		}
	}
	free(copy);
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
