/* SPDX-License-Identifier: MIT */
/* The evidence of a paste (include/p2pscope/evidence.h) as the model keeps it: names,
 * lookups and freeing. The paste reader (src/host/backends/paste) builds it; the paste
 * findings, the driver model and the renderers read it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/evidence.h"

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
	        [P2PS_PASTE_ENVIRONMENT] = "environment",
	        [P2PS_PASTE_MODULES] = "kernel modules",
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
	        [P2PS_PS_NET_ERROR] = "net_error",
	        [P2PS_PS_GDR_PIN] = "gdr_pin",
	        [P2PS_PS_TOO_MANY_PEERS] = "too_many_peers",
	        [P2PS_PS_GDR_REG] = "gdr_register",
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
	        "nvbandwidth_d2d",
	};
	return (unsigned)k < P2PS_PM_COUNT ? names[k] : "?";
}

const char *p2ps_paste_software_name(enum p2ps_paste_software s)
{
	static const char *const names[P2PS_SW_COUNT] = {
	        [P2PS_SW_DRIVER] = "driver", [P2PS_SW_NCCL] = "NCCL"};
	return (unsigned)s < P2PS_SW_COUNT ? names[s] : "?";
}

char *p2ps_evidence_where_format(const struct p2ps_evidence *ev, struct p2ps_paste_where w,
                                 char *buf, size_t size)
{
	if (!w.line)
		snprintf(buf, size, "%s", "");
	else if (w.block >= 0 && (size_t)w.block < ev->n_blocks)
		snprintf(buf, size, "line %d (block %d, %s)", w.line, w.block + 1,
		         p2ps_paste_kind_name(ev->blocks[w.block].kind));
	else
		snprintf(buf, size, "line %d", w.line);
	return buf;
}

/* Order of the observations: kind, then row, then column, then path. */
static int obs_cmp_key(const struct p2ps_pair_obs *o, enum p2ps_paste_matrix_kind k, int a, int b)
{
	if (o->kind != k)
		return o->kind < k ? -1 : 1;
	if (o->a != a)
		return o->a < a ? -1 : 1;
	return (o->b > b) - (o->b < b);
}

const struct p2ps_pair_obs *p2ps_evidence_obs(const struct p2ps_evidence *ev,
                                              enum p2ps_paste_matrix_kind k, int a, int b)
{
	size_t lo = 0, hi = ev->n_obs; /* the first observation not below (k, a, b) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (obs_cmp_key(&ev->obs[mid], k, a, b) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ev->n_obs && !obs_cmp_key(&ev->obs[lo], k, a, b) ? &ev->obs[lo] : NULL;
}

const struct p2ps_pair_obs *p2ps_evidence_obs_path(const struct p2ps_evidence *ev, int a, int b,
                                                   char path)
{
	const struct p2ps_pair_obs *o = p2ps_evidence_obs(ev, P2PS_PM_P2P, a, b);
	const struct p2ps_pair_obs *end = ev->obs + ev->n_obs;
	for (; o && o < end && !obs_cmp_key(o, P2PS_PM_P2P, a, b); o++)
		if (o->path == path)
			return o;
	return NULL;
}

const char *p2ps_evidence_cell(const struct p2ps_evidence *ev, enum p2ps_paste_matrix_kind k, int a,
                               int b)
{
	const struct p2ps_pair_obs *o = a >= 0 && b >= 0 ? p2ps_evidence_obs(ev, k, a, b) : NULL;
	return o ? o->text : NULL;
}

int p2ps_evidence_gpu_smi(const struct p2ps_evidence *ev, int smi)
{
	for (size_t i = 0; smi >= 0 && i < ev->n_gpus; i++)
		if (ev->gpus[i].smi == smi)
			return (int)i;
	return -1;
}

int p2ps_evidence_gpu_cuda(const struct p2ps_evidence *ev, int cuda)
{
	for (size_t i = 0; cuda >= 0 && i < ev->n_gpus; i++)
		if (ev->gpus[i].cuda == cuda)
			return (int)i;
	return -1;
}

int p2ps_evidence_gpu_bdf(const struct p2ps_evidence *ev, const struct p2ps_bdf *b)
{
	for (size_t i = 0; i < ev->n_gpus; i++)
		if (ev->gpus[i].bdf_known && p2ps_bdf_equal(&ev->gpus[i].bdf, b))
			return (int)i;
	return -1;
}

const struct p2ps_paste_dev_facts *p2ps_evidence_dev(const struct p2ps_evidence *ev,
                                                     const struct p2ps_bdf *b)
{
	for (size_t i = 0; i < ev->n_devs; i++)
		if (p2ps_bdf_equal(&ev->devs[i].bdf, b))
			return &ev->devs[i];
	return NULL;
}

void p2ps_evidence_free(struct p2ps_evidence *ev)
{
	if (!ev)
		return;
	free(ev->blocks);
	free(ev->gpus);
	free(ev->obs);
	free(ev->devs);
	free(ev->events);
	memset(ev, 0, sizeof(*ev));
}
