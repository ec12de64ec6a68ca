/* SPDX-License-Identifier: MIT */
/* The paste facts (include/p2pscope/paste.h) as the model keeps them: names, lookups
 * and freeing. The paste backend (src/host/backends/paste) fills them; the findings and
 * renderers read them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/paste.h"

const char *p2ps_paste_kind_name(enum p2ps_paste_kind k)
{
	static const char *const names[P2PS_PASTE_KIND_COUNT] = {
	        [P2PS_PASTE_LSPCI] = "lspci",
	        [P2PS_PASTE_LSPCI_TREE] = "lspci -t",
	        [P2PS_PASTE_NVSMI_Q] = "nvidia-smi -q",
	        [P2PS_PASTE_NVSMI_TOPO] = "nvidia-smi topo -m",
	        [P2PS_PASTE_NVSMI_P2P] = "nvidia-smi topo -p2p",
	        [P2PS_PASTE_KERNEL] = "kernel log",
	        [P2PS_PASTE_CMDLINE] = "/proc/cmdline",
	        [P2PS_PASTE_IOMMU_GROUPS] = "IOMMU groups",
	        [P2PS_PASTE_CUDA] = "CUDA samples",
	        [P2PS_PASTE_NVSMI_TABLE] = "nvidia-smi",
	        [P2PS_PASTE_NCCL] = "NCCL log",
	        [P2PS_PASTE_ERRORS] = "error lines",
	        [P2PS_PASTE_SETPCI] = "setpci",
	        [P2PS_PASTE_COLLECT_ENV] = "collect_env",
	        [P2PS_PASTE_NCCL_TOPO] = "NCCL topology",
	        [P2PS_PASTE_TEXT] = "text",
	};
	return (unsigned)k < P2PS_PASTE_KIND_COUNT ? names[k] : "?";
}

const char *p2ps_paste_symptom_name(enum p2ps_paste_symptom s)
{
	static const char *const names[P2PS_PS_COUNT] = {
	        [P2PS_PS_MAP_FAILED] = "map_failed",
	        [P2PS_PS_PEER_UNSUPPORTED] = "peer_unsupported",
	        [P2PS_PS_ILLEGAL_ACCESS] = "illegal_access",
	        [P2PS_PS_WRONG_DATA] = "wrong_data",
	        [P2PS_PS_HANG] = "hang",
	        [P2PS_PS_P2P_DISABLED] = "p2p_disabled",
	        [P2PS_PS_SHM] = "shm",
	        [P2PS_PS_CUDA_ERROR] = "cuda_error",
	};
	return (unsigned)s < P2PS_PS_COUNT ? names[s] : "?";
}

const char *p2ps_paste_dfact_name(enum p2ps_paste_dfact f)
{
	static const char *const names[P2PS_PD_COUNT] = {
	        "ident",  "class",  "bars",      "link",        "acs",    "rebar",
	        "bridge", "driver", "numa_node", "iommu_group", "parent", "caps",
	};
	return (unsigned)f < P2PS_PD_COUNT ? names[f] : "?";
}

const char *p2ps_paste_matrix_name(enum p2ps_paste_matrix_kind k)
{
	static const char *const names[P2PS_PM_COUNT] = {
	        "topo",
	        "p2p",
	        "cuda_access",
	        "cuda_connectivity",
	        "bw_uni_p2p_off",
	        "bw_uni_p2p_on",
	        "bw_bi_p2p_off",
	        "bw_bi_p2p_on",
	        "latency_p2p_off",
	        "latency_p2p_on",
	        "nccl_transport",
	};
	return (unsigned)k < P2PS_PM_COUNT ? names[k] : "?";
}

char *p2ps_paste_where_format(const struct p2ps_paste *p, struct p2ps_paste_where w, char *buf,
                              size_t size)
{
	if (!w.line)
		snprintf(buf, size, "%s", "");
	else if (w.block >= 0 && (size_t)w.block < p->n_blocks)
		snprintf(buf, size, "line %d (block %d, %s)", w.line, w.block + 1,
		         p2ps_paste_kind_name(p->blocks[w.block].kind));
	else
		snprintf(buf, size, "line %d", w.line);
	return buf;
}

struct p2ps_paste_dev *p2ps_paste_find_dev(const struct p2ps_paste *p, const struct p2ps_bdf *b)
{
	for (size_t i = 0; i < p->n_devs; i++)
		if (p2ps_bdf_equal(&p->devs[i].d.bdf, b))
			return &p->devs[i];
	return NULL;
}

const struct p2ps_paste_gpu *p2ps_paste_gpu_smi(const struct p2ps_paste *p, int i)
{
	for (size_t k = 0; k < p->n_gpus; k++)
		if (p->gpus[k].smi == i)
			return &p->gpus[k];
	return NULL;
}

const struct p2ps_paste_gpu *p2ps_paste_gpu_cuda(const struct p2ps_paste *p, int i)
{
	for (size_t k = 0; k < p->n_gpus; k++)
		if (p->gpus[k].cuda == i)
			return &p->gpus[k];
	return NULL;
}

const char *p2ps_paste_cell(const struct p2ps_paste *p, enum p2ps_paste_matrix_kind k, int i, int j)
{
	const struct p2ps_paste_matrix *m = (unsigned)k < P2PS_PM_COUNT ? &p->m[k] : NULL;
	if (!m || !m->present || i < 0 || j < 0 || i >= m->n || j >= m->n ||
	    !m->cell[i * m->n + j][0])
		return NULL;
	return m->cell[i * m->n + j];
}

void p2ps_paste_free(struct p2ps_paste *p)
{
	if (!p)
		return;
	free(p->blocks);
	free(p->devs);
	free(p->events);
	for (int k = 0; k < P2PS_PM_COUNT; k++)
		free(p->m[k].cell);
	memset(p, 0, sizeof(*p));
}
