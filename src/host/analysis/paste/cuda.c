/* SPDX-License-Identifier: MIT */
/* Findings from what CUDA measured: peer access per pair, P2P on against off (bandwidth
 * and latency), copies that delivered wrong data, the rates simpleP2P and nccl-tests
 * report. */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"

/* P2P on against off, per directed pair of the unidirectional matrices, or of the
 * bidirectional ones where the paste has only those. */
static void bandwidth(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	bool uni = ev->matrix[P2PS_PM_BW_UNI_ON].present;
	enum p2ps_paste_matrix_kind kon = uni ? P2PS_PM_BW_UNI_ON : P2PS_PM_BW_BI_ON,
	                            koff = uni ? P2PS_PM_BW_UNI_OFF : P2PS_PM_BW_BI_OFF;
	const struct p2ps_paste_matrix_info *on = &ev->matrix[kon];
	const char *how = uni ? "" : " (bidirectional)";
	int slower = 0, equal = 0, faster = 0;
	double on_min = 0, off_at = 0;
	for (int i = 0; on->present && i < on->n; i++)
		for (int j = 0; j < on->n; j++) {
			double a = po_cell_num(c, kon, i, j), b = po_cell_num(c, koff, i, j);
			if (i == j || a <= 0 || b <= 0)
				continue;
			slower += a < 0.5 * b;
			equal += a >= 0.5 * b && a <= 1.15 * b;
			faster += a > 1.15 * b;
			if (!on_min || a < on_min)
				on_min = a, off_at = b;
		}
	if (slower) {
		struct p2ps_reason *f =
		        po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_BLOCKER, on->from,
		               "P2P enabled is slower than copying through host memory for %d "
		               "directed pair%s%s "
		               "(down to %.2f GB/s against %.2f GB/s with P2P off): peer writes "
		               "take a detour, "
		               "typically ACS redirecting them to the root complex and the IOMMU "
		               "translating "
		               "them",
		               slower, slower == 1 ? "" : "s", how, on_min, off_at);
		p2ps_an_fix(
		        f,
		        "clear ACS redirect on the switch and root ports between the GPUs and put "
		        "the "
		        "IOMMU in pass-through or off (the lspci and command-line output asked for "
		        "below say which applies)");
	} else if (equal && !faster) {
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_WARNING, on->from,
		       "P2P enabled bandwidth equals disabled (%d directed pair%s%s): the copies "
		       "go "
		       "through host memory",
		       equal, equal == 1 ? "" : "s", how);
	} else if (faster) {
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, on->from,
		       "P2P enabled beats copying through host memory for %d directed pair%s%s "
		       "(the "
		       "slowest %.2f GB/s against %.2f GB/s with P2P off): peer copies are live",
		       faster, faster == 1 ? "" : "s", how, on_min, off_at);
	}
}

/* P2P on against off in the latency matrices, per directed pair. A P2P write that takes a
 * hundred times as long as a copy through host memory is not a slow path but a stalled
 * one: writes that time out and are retried or dropped (the failures ACS and IOMMU
 * translation cause), so P2P does not work there whatever the access matrix says. */
static void latency(struct octx *c)
{
	const struct p2ps_paste_matrix_info *on = &c->ev->matrix[P2PS_PM_LAT_ON];
	int stalled = 0, live = 0;
	double worst = 0, w_on = 0, w_off = 0, l_on = 0, l_off = 0;
	for (int i = 0; on->present && i < on->n; i++)
		for (int j = 0; j < on->n; j++) {
			double a = po_cell_num(c, P2PS_PM_LAT_ON, i, j),
			       b = po_cell_num(c, P2PS_PM_LAT_OFF, i, j);
			if (i == j || a <= 0 || b <= 0)
				continue;
			if (a >= 100 * b) {
				stalled++;
				if (a / b > worst)
					worst = a / b, w_on = a, w_off = b;
			} else if (a * 3 < b && !live++) {
				l_on = a, l_off = b;
			}
		}
	if (stalled) {
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_P2P_LATENCY, P2PS_SEV_BLOCKER, on->from,
		        "P2P writes stall for %d directed pair%s: latency up to %.0f times the "
		        "P2P-off "
		        "one (%.2f us against %.2f us): peer writes time out rather than arrive",
		        stalled, stalled == 1 ? "" : "s", worst, w_on, w_off);
		p2ps_an_fix(f, "clear ACS redirect on the ports between the GPUs and put the IOMMU "
		               "in pass-through or off; on a P2P-patched driver, check that every "
		               "GPU has its static BAR1 mapping (sudo dmesg | grep NVRM)");
	} else if (live) {
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, on->from,
		       "CUDA's P2P writes are live: latency %.2f us with P2P against %.2f us "
		       "without (%d directed pair%s)",
		       l_on, l_off, live, live == 1 ? "" : "s");
	}
}

void po_cuda(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	const struct p2ps_paste_matrix_info *m = &ev->matrix[P2PS_PM_CUDA_ACCESS];
	char list[200] = "";
	int cannot = 0;
	for (int i = 0; m->present && i < m->n; i++)
		for (int j = i + 1; j < m->n; j++) {
			const char *ab = po_cell(c, P2PS_PM_CUDA_ACCESS, i, j);
			const char *ba = po_cell(c, P2PS_PM_CUDA_ACCESS, j, i);
			if (!(ab && !strcmp(ab, "0")) && !(ba && !strcmp(ba, "0")))
				continue;
			size_t n = strlen(list);
			int ei = p2ps_evidence_gpu_cuda(ev, i), ej = p2ps_evidence_gpu_cuda(ev, j);
			const struct p2ps_paste_gpu *gi = ei >= 0 ? &ev->gpus[ei] : NULL,
			                            *gj = ej >= 0 ? &ev->gpus[ej] : NULL;
			if (n < sizeof(list) - 32 && gi && gj && gi->bdf_known && gj->bdf_known)
				snprintf(list + n, sizeof(list) - n, "%s%02x<->%02x", n ? ", " : "",
				         gi->bdf.bus, gj->bdf.bus);
			else if (n < sizeof(list) - 32)
				snprintf(list + n, sizeof(list) - n, "%sCUDA %d<->%d",
				         n ? ", " : "", i, j);
			cannot++;
		}
	if (cannot || ev->cuda.waived)
		po_add(c, P2PS_PF_CUDA_NO_PEER, P2PS_SEV_BLOCKER,
		       m->present ? m->from : ev->cuda.from,
		       "CUDA cannot access the peer for %d GPU pair%s%s%s (by bus number)%s",
		       cannot, cannot == 1 ? "" : "s", cannot ? ": " : "", list,
		       ev->cuda.waived ? "; simpleP2P waived its test" : "");
	bandwidth(c);
	latency(c);
	if (ev->cuda.verify_errors || ev->cuda.result == 0) {
		struct p2ps_reason *f =
		        po_add(c, P2PS_PF_DATA_MISMATCH, P2PS_SEV_BLOCKER, ev->cuda.first_error,
		               "peer copies deliver wrong data: %d verification error%s%s%s%s",
		               ev->cuda.verify_errors, ev->cuda.verify_errors == 1 ? "" : "s",
		               ev->cuda.first_error_text[0] ? " (first: " : "",
		               ev->cuda.first_error_text, ev->cuda.first_error_text[0] ? ")" : "");
		p2ps_an_fix(
		        f,
		        "check `sudo dmesg | grep NVRM` for the static BAR1 mapping of every GPU: "
		        "without it (a GPU driving a display, BAR1 smaller than VRAM) peer writes "
		        "land "
		        "elsewhere");
	}
	if (ev->cuda.memcpy_gbps > 0)
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, ev->cuda.from,
		       "simpleP2P measured %.2f GB/s for cudaMemcpyPeer", ev->cuda.memcpy_gbps);
	if (ev->cuda.nccl_busbw > 0)
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, ev->cuda.from,
		       "nccl-tests average bus bandwidth %.2f GB/s", ev->cuda.nccl_busbw);
}
