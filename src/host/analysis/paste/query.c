/* SPDX-License-Identifier: MIT */
/* Questions the paste findings ask of the evidence: cells by a matrix's own numbering,
 * events, blocks, GPU names, whether something failed, which driver runs. */
#include <string.h>

#include "observe_internal.h"
#include "p2pscope/parse.h"

int po_gpu_of(const struct octx *c, enum p2ps_paste_matrix_kind k, int i)
{
	if (i < 0 || i >= P2PS_PASTE_MAX_GPUS)
		return -1;
	return k == P2PS_PM_TOPO || k == P2PS_PM_P2P ? c->by_smi[i] : c->by_cuda[i];
}

const char *po_cell(const struct octx *c, enum p2ps_paste_matrix_kind k, int i, int j)
{
	return p2ps_evidence_cell(c->ev, k, po_gpu_of(c, k, i), po_gpu_of(c, k, j));
}

double po_cell_num(const struct octx *c, enum p2ps_paste_matrix_kind k, int i, int j)
{
	const char *s = po_cell(c, k, i, j);
	double v = 0.0;
	if (s)
		p2ps_scan_double(s, &v);
	return v;
}

const struct p2ps_paste_event *po_first_event(const struct octx *c, enum p2ps_paste_event_kind k)
{
	for (size_t i = 0; i < c->ev->n_events; i++)
		if (c->ev->events[i].kind == k)
			return &c->ev->events[i];
	return NULL;
}

bool po_block_read(const struct octx *c, enum p2ps_paste_kind k)
{
	for (size_t i = 0; i < c->ev->n_blocks; i++)
		if (c->ev->blocks[i].kind == k)
			return true;
	return false;
}

bool po_any_gpu_named(const struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_gpus; i++)
		if (c->ev->gpus[i].name[0])
			return true;
	return false;
}

bool po_failure_seen(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	static const enum p2ps_paste_symptom bad[] = {
	        P2PS_PS_MAP_FAILED,     P2PS_PS_PEER_UNSUPPORTED,
	        P2PS_PS_ILLEGAL_ACCESS, P2PS_PS_WRONG_DATA,
	        P2PS_PS_HANG,           P2PS_PS_P2P_DISABLED,
	        P2PS_PS_GDR_PIN,        P2PS_PS_TOO_MANY_PEERS,
	        P2PS_PS_GDR_REG};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ev->sym.count[bad[i]])
			return true;
	return ev->cuda.verify_errors || ev->cuda.result == 0;
}

/* GeForce families whose P2P over PCIe depends on the driver: NVIDIA's stock driver
 * gives RTX 40 and 50 cards no CUDA peer access over PCIe, the P2P-patched open kernel
 * modules do (tinygrad/open-gpu-kernel-modules README, aikitoria/open-gpu-kernel-modules
 * README); on RTX 30 cards stock releases differ (NVIDIA/nccl#1127: peer access on 535,
 * none on 545). */
static const struct po_geforce geforce_rows[] = {
        {"GeForce RTX 30", "Ampere GeForce (RTX 30)", false},
        {"GeForce RTX 40", "Ada GeForce (RTX 40)", true},
        {"GeForce RTX 50", "Blackwell GeForce (RTX 50)", true},
};

const struct po_geforce *po_geforce(const char *model)
{
	for (size_t i = 0; i < sizeof(geforce_rows) / sizeof(geforce_rows[0]); i++)
		if (strstr(model, geforce_rows[i].name))
			return &geforce_rows[i];
	return NULL;
}

const char *po_geforce_family(const char *name)
{
	const struct po_geforce *g = po_geforce(name);
	return g && g->stock_refuses ? g->family : NULL;
}

/* Boards whose GPUs talk over NVLink (or NVSwitch) as they come, by the product name
 * nvidia-smi and CUDA print: the SXM modules ("Tesla V100-SXM2-16GB", "NVIDIA
 * A100-SXM4-80GB", "NVIDIA H100 80GB HBM3" is the SXM5 board; the PCIe card prints
 * "H100 PCIe") and the superchips and HGX boards named below. */
static const char *const nvlink_boards[] = {"SXM",   "HBM3", "H200", "GH200",
                                            "GB200", "B200", "B300"};

bool po_nvlink_board(const char *model)
{
	for (size_t i = 0; i < sizeof(nvlink_boards) / sizeof(nvlink_boards[0]); i++)
		if (strstr(model, nvlink_boards[i]))
			return true;
	return false;
}

bool po_nvlink_boards_only(const struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_gpus; i++)
		if (!po_nvlink_board(c->ev->gpus[i].name))
			return false;
	return c->ev->n_gpus > 0;
}

bool po_patched_driver(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	return strstr(ev->host.driver_version, "p2p") || ev->event_count[P2PS_PE_STATIC_BAR1] ||
	       ev->event_count[P2PS_PE_BAR1_P2P_MAPPING];
}

/* Whether CUDA's access or connectivity matrix prints value for some pair. */
static bool access_cell(const struct octx *c, const char *value)
{
	const struct p2ps_evidence *ev = c->ev;
	for (size_t i = 0; i < ev->n_obs; i++) {
		const struct p2ps_pair_obs *o = &ev->obs[i];
		if ((o->kind == P2PS_PM_CUDA_ACCESS || o->kind == P2PS_PM_CUDA_CONNECT) &&
		    !strcmp(o->text, value))
			return true;
	}
	return false;
}

bool po_refused_explicitly(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	return ev->sym.count[P2PS_PS_PEER_UNSUPPORTED] || ev->sym.count[P2PS_PS_P2P_DISABLED] ||
	       ev->cuda.waived || ev->nccl.intra_p2p == 0 || access_cell(c, "0");
}

bool po_gdr_paste(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	return ev->host.nvidia_peermem == 1 || ev->host.nv_peer_mem == 1 || ev->nccl.gdr_disabled ||
	       ev->nccl.gdr_enabled || ev->nccl.via_gdr || ev->sym.count[P2PS_PS_NET_ERROR] ||
	       ev->sym.count[P2PS_PS_GDR_PIN] || ev->sym.count[P2PS_PS_GDR_REG];
}

bool po_refused(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	if (po_refused_explicitly(c))
		return true;
	/* NCCL put local GPUs on host memory without being told to. */
	bool off = false;
	for (int i = 0; i < ev->nccl.n_env; i++)
		off |= !strncmp(ev->nccl.env[i], "NCCL_P2P_DISABLE=", 17);
	return ev->nccl.via[P2PS_NV_SHM] && !ev->nccl.via[P2PS_NV_P2P] && !off;
}

bool po_granted(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	return ev->nccl.via[P2PS_NV_P2P] || ev->cuda.enabled_from.line || access_cell(c, "1");
}

bool po_measured(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	return ev->matrix[P2PS_PM_BW_UNI_ON].present || ev->matrix[P2PS_PM_BW_BI_ON].present ||
	       ev->cuda.result >= 0 || ev->cuda.verify_errors || ev->cuda.nccl_wrong >= 0;
}

bool po_switch_pairs(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	/* nvidia-smi's own word: PIX (one switch) or PXB (several) between two GPUs. */
	int n = ev->matrix[P2PS_PM_TOPO].n;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			const char *s = i != j ? po_cell(c, P2PS_PM_TOPO, i, j) : NULL;
			if (s && (!strcmp(s, "PIX") || !strcmp(s, "PXB")))
				return true;
		}
	for (size_t i = 0; i < ev->n_gpus; i++)
		for (size_t k = i + 1; k < ev->n_gpus; k++) {
			const struct p2ps_paste_gpu *a = &ev->gpus[i], *b = &ev->gpus[k];
			int d = (int)a->bdf.bus - (int)b->bdf.bus;
			if (a->bdf_known && b->bdf_known && a->bdf.domain == b->bdf.domain &&
			    d != 0 && d >= -4 && d <= 4)
				return true;
		}
	return false;
}

bool po_driver_dependent(const struct octx *c)
{
	for (size_t i = 0; i < c->ev->n_gpus; i++)
		if (po_geforce(c->ev->gpus[i].name))
			return true;
	return false;
}

bool po_driver_known(const struct octx *c)
{
	return c->ev->host.driver_version[0] || c->ev->host.driver_open >= 0;
}

bool po_nccl_tuned(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	for (int i = 0; i < ev->nccl.n_env; i++)
		if (strncmp(ev->nccl.env[i], "NCCL_DEBUG", 10) &&
		    strncmp(ev->nccl.env[i], "NCCL_SOCKET_IFNAME", 18) &&
		    strncmp(ev->nccl.env[i], "NCCL_IB", 7))
			return true;
	return false;
}

/* Blockers about the driver's own decision (which GPUs it lets peer): CUDA granting peer
 * access contradicts them. The others (the path: IOMMU, ACS, BAR1, the root complex) stay
 * blockers unless the paste shows copies actually working. */
static const enum p2ps_reason_code driver_decisions[] = {
        P2PS_R_GENERATION_UNSUPPORTED, P2PS_R_MIXED_GENERATIONS, P2PS_R_MIXED_CHIPS,
        P2PS_R_MIXED_MODELS,           P2PS_R_CHIP_UNKNOWN,      P2PS_R_PATH_CPU_INTERCONNECT,
        P2PS_R_PATH_HOST_BRIDGE,
};

bool po_driver_decision(enum p2ps_reason_code code)
{
	for (size_t i = 0; i < sizeof(driver_decisions) / sizeof(driver_decisions[0]); i++)
		if (driver_decisions[i] == code)
			return true;
	return false;
}
