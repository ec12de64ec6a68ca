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
	        P2PS_PS_HANG,           P2PS_PS_P2P_DISABLED};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ev->sym.count[bad[i]])
			return true;
	return ev->cuda.verify_errors || ev->cuda.result == 0;
}

/* GeForce RTX 40 and 50 cards: NVIDIA's stock driver gives them no CUDA peer access over
 * PCIe; the P2P-patched open kernel modules (tinygrad/open-gpu-kernel-modules README,
 * aikitoria/open-gpu-kernel-modules README) do. */
static const struct {
	const char *name;
	const char *family;
} geforce_no_p2p[] = {
        {"GeForce RTX 40", "Ada GeForce (RTX 40)"},
        {"GeForce RTX 50", "Blackwell GeForce (RTX 50)"},
};

const char *po_geforce_family(const char *name)
{
	for (size_t i = 0; i < sizeof(geforce_no_p2p) / sizeof(geforce_no_p2p[0]); i++)
		if (strstr(name, geforce_no_p2p[i].name))
			return geforce_no_p2p[i].family;
	return NULL;
}

bool po_patched_driver(const struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	return strstr(ev->host.driver_version, "p2p") || ev->event_count[P2PS_PE_STATIC_BAR1] ||
	       ev->event_count[P2PS_PE_BAR1_P2P_MAPPING];
}
