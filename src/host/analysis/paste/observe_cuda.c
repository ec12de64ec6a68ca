/* SPDX-License-Identifier: MIT */
/* Findings from what nvidia-smi and CUDA printed (their own view of each pair), and from
 * lspci lines the analysis cannot use (capabilities denied; a Resizable BAR capability of
 * a device the paste does not identify). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"
#include "p2pscope/parse.h"

#define TWO_GIB (2ull << 30)

/* GPUs nvidia-smi -q describes without an address (grep'd output): the analysis cannot
 * see them, so their BAR1 is held against their VRAM here. */
static void anonymous_bar1(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	int n = 0, small = 0;
	uint64_t bar1 = 0;
	struct p2ps_paste_where at = {-1, 0};
	char s1[32], s2[32];
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct p2ps_paste_gpu *g = &p->gpus[i];
		if (g->bdf_known || !g->bar1_known)
			continue;
		if (g->vram_known && g->bar1 < g->vram) {
			struct p2ps_reason *f = po_add(
			        c, P2PS_PF_BAR1_VS_VRAM, P2PS_SEV_BLOCKER, g->bar1_from,
			        "GPU%d (nvidia-smi): BAR1 is %s, smaller than its %s of VRAM",
			        g->smi, p2ps_size_format(g->bar1, s1, sizeof(s1)),
			        p2ps_size_format(g->vram, s2, sizeof(s2)));
			p2ps_an_fix(f, "a BAR1 that maps all VRAM: 'Above 4G Decoding' and "
			               "'Resizable BAR' "
			               "in "
			               "the firmware setup, if the GPU offers that size; else no "
			               "BAR1 P2P");
			continue;
		}
		if (g->vram_known)
			continue;
		small += g->bar1 < TWO_GIB;
		if (g->bar1 > bar1)
			bar1 = g->bar1;
		if (!n++)
			at = g->bar1_from;
	}
	if (n)
		po_add(c, P2PS_PF_BAR1_VS_VRAM, small ? P2PS_SEV_BLOCKER : P2PS_SEV_UNKNOWN, at,
		       "%d GPU%s (nvidia-smi, no address) with BAR1 %s%s; VRAM is not in the "
		       "paste, and "
		       "BAR1 P2P needs BAR1 to cover all of it",
		       n, n == 1 ? "" : "s", n > 1 ? "up to " : "",
		       p2ps_size_format(bar1, s1, sizeof(s1)));
	if (n && !small)
		po_ask(c, "nvidia-smi -q -d MEMORY",
		       "VRAM (FB Memory Usage) and BAR1 of every GPU");
}

void po_devices(struct octx *c)
{
	anonymous_bar1(c);
	const struct p2ps_paste *p = c->p;
	char list[160] = "";
	int denied = 0;
	struct p2ps_paste_where at = {-1, 0};
	for (size_t i = 0; i < p->n_devs; i++) {
		const struct p2ps_paste_dev *pd = &p->devs[i];
		if (pd->caps_denied) {
			size_t n = strlen(list);
			snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", pd->d.bdf_str);
			if (!denied++)
				at = pd->from[P2PS_PD_CAPS];
		}
		if (pd->vendor_known || !pd->d.rebar.present)
			continue;
		for (int k = 0; k < pd->d.rebar.count; k++) {
			const struct p2ps_rebar_entry *e = &pd->d.rebar.e[k];
			uint64_t max = 0;
			for (int n = 43; n >= 0 && !max; n--)
				if (e->sizes & (1ull << n))
					max = p2ps_rebar_size_bytes((uint8_t)n);
			if (e->bar != 1 || !max || max >= TWO_GIB)
				continue;
			char s[32];
			struct p2ps_reason *f = po_add(
			        c, P2PS_PF_REBAR_CEILING, P2PS_SEV_BLOCKER, pd->from[P2PS_PD_REBAR],
			        "BAR 1 of %s can be resized to at most %s (its Resizable BAR "
			        "capability "
			        "stops there): no firmware setting makes it larger, and a GPU's "
			        "BAR1 of that "
			        "size cannot map its VRAM (the paste does not say what %s is)",
			        pd->d.bdf_str, p2ps_size_format(max, s, sizeof(s)), pd->d.bdf_str);
			p2ps_an_fix(
			        f,
			        "flash the board vendor's VBIOS with Resizable BAR support (same "
			        "board and "
			        "revision), then check that lspci lists 'supported: ... 32GB'; "
			        "read it on "
			        "the host, since a VM's QEMU may hide the capability");
			char cmd[64];
			snprintf(cmd, sizeof(cmd), "lspci -nn -s %s", pd->d.bdf_str);
			po_ask(c, cmd, "what %s is (vendor and device ids)", pd->d.bdf_str);
		}
	}
	if (denied) {
		po_add(c, P2PS_PF_CAPS_DENIED, P2PS_SEV_UNKNOWN, at,
		       "capabilities denied: lspci ran without root for %s, so %s ACS, Resizable "
		       "BAR "
		       "and PCIe link are unknown",
		       list, denied == 1 ? "its" : "their");
		po_ask(c, "sudo lspci -vvv",
		       "the capabilities lspci could not read without root (ACS, Resizable BAR, "
		       "link) of "
		       "%s: capabilities denied, run lspci as root",
		       list);
	}
	for (int k = 0; k < P2PS_PM_COUNT; k++)
		if (p->m[k].present && p->m[k].ragged)
			po_add(c, P2PS_PF_MALFORMED, P2PS_SEV_INFO, p->m[k].from,
			       "the %s matrix has rows whose cells do not match its header: read "
			       "what "
			       "was there",
			       p2ps_paste_matrix_name(k));
}

static const struct {
	enum p2ps_nv_status status;
	const char *meaning;
	const char *fix;
} p2p_status[] = {
        {P2PS_NV_ST_CHIPSET_NOT_SUPPORTED,
         "chipset not supported: the driver's allow-list does not have this root complex "
         "and the GPUs share no allow-listed PCIe switch (or a VM shows an emulated chipset)",
         "put each GPU pair under one PCIe switch (PLX/Broadcom), or in a VM give the hypervisor's "
         "P2P clique (QEMU x-nv-gpudirect-clique); the P2P patches (tinygrad, "
         "aikitoria) force the P2P override (p2pOverride 0x11), which answers OK before this "
         "chipset check: with one loaded, CNS means the module running is not the patched one"},
        {P2PS_NV_ST_GPU_NOT_SUPPORTED,
         "GPU not supported: a GeForce card on a driver without the P2P patch",
         "install the BAR1-P2P patched open kernel modules (tinygrad's or aikitoria's fork) "
         "for the installed driver version, and reload them"},
        {P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED,
         "topology not supported by the driver for this path", ""},
        {P2PS_NV_ST_NOT_SUPPORTED, "not supported", ""},
        {P2PS_NV_ST_DISABLED_BY_REGKEY, "disabled by a registry key (NVreg_RegistryDwords)",
         "remove the registry key"},
        {P2PS_NV_ST_UNKNOWN, "unknown to the driver", ""},
};

/* A topo -p2p cell that prints status st. */
static bool cell_is(const char *cell, enum p2ps_nv_status st)
{
	enum p2ps_nv_status v;
	return !p2ps_nv_status_from_code(cell, &v) && v == st;
}

void po_nvidia_smi(struct octx *c)
{
	const struct p2ps_paste_matrix *m = &c->p->m[P2PS_PM_P2P];
	int ok = 0, cells = 0;
	for (size_t s = 0; m->present && s < sizeof(p2p_status) / sizeof(p2p_status[0]); s++) {
		int n = 0;
		for (int i = 0; i < m->n; i++)
			for (int j = 0; j < m->n; j++)
				n += i != j && cell_is(m->cell[i * m->n + j], p2p_status[s].status);
		if (!n)
			continue;
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_NVIDIA_P2P_STATUS, P2PS_SEV_BLOCKER, m->from,
		        "nvidia-smi topo -p2p%s%s reports %s for %d directed pair%s: %s",
		        m->mode[0] ? " " : "", m->mode, p2ps_nv_status_code(p2p_status[s].status),
		        n, n == 1 ? "" : "s", p2p_status[s].meaning);
		p2ps_an_fix(f, "%s", p2p_status[s].fix);
	}
	for (int i = 0; m->present && i < m->n; i++)
		for (int j = 0; j < m->n; j++)
			if (i != j && m->cell[i * m->n + j][0]) {
				cells++;
				ok += cell_is(m->cell[i * m->n + j], P2PS_NV_ST_OK);
			}
	if (cells && ok == cells)
		po_add(c, P2PS_PF_NVIDIA_P2P_STATUS, P2PS_SEV_INFO, m->from,
		       "nvidia-smi topo -p2p%s%s reports OK for all %d directed pairs (it checks "
		       "chipset "
		       "and GPU, not whether peer copies work)",
		       m->mode[0] ? " " : "", m->mode, cells);
	const struct p2ps_paste_matrix *t = &c->p->m[P2PS_PM_TOPO];
	int sys = 0;
	for (int i = 0; t->present && i < t->n; i++)
		for (int j = i + 1; j < t->n; j++)
			sys += !strcmp(t->cell[i * t->n + j], "SYS") ||
			       !strcmp(t->cell[i * t->n + j], "SOC");
	if (sys)
		po_add(c, P2PS_PF_NVIDIA_TOPOLOGY, P2PS_SEV_WARNING, t->from,
		       "nvidia-smi topo -m: %d GPU pair%s cross%s the CPU interconnect between "
		       "sockets "
		       "(SYS/SOC): Intel's UPI/QPI does not forward PCIe peer traffic, elsewhere "
		       "it is "
		       "a fraction of PCIe bandwidth",
		       sys, sys == 1 ? "" : "s", sys == 1 ? "es" : "");
}

static double cell_num(const struct p2ps_paste *p, enum p2ps_paste_matrix_kind k, int i, int j)
{
	const char *s = p2ps_paste_cell(p, k, i, j);
	double v = 0.0;
	if (s)
		p2ps_scan_double(s, &v);
	return v;
}

/* P2P on against off, per directed pair of the unidirectional matrices. */
static void bandwidth(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	const struct p2ps_paste_matrix *on = &p->m[P2PS_PM_BW_UNI_ON];
	int slower = 0, equal = 0, faster = 0;
	double on_min = 0, off_at = 0;
	for (int i = 0; on->present && i < on->n; i++)
		for (int j = 0; j < on->n; j++) {
			double a = cell_num(p, P2PS_PM_BW_UNI_ON, i, j),
			       b = cell_num(p, P2PS_PM_BW_UNI_OFF, i, j);
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
		               "directed pair%s "
		               "(down to %.2f GB/s against %.2f GB/s with P2P off): peer writes "
		               "take a detour, "
		               "typically ACS redirecting them to the root complex and the IOMMU "
		               "translating "
		               "them",
		               slower, slower == 1 ? "" : "s", on_min, off_at);
		p2ps_an_fix(
		        f,
		        "clear ACS redirect on the switch and root ports between the GPUs and put "
		        "the "
		        "IOMMU in pass-through or off (the lspci and command-line output asked for "
		        "below say which applies)");
	} else if (equal && !faster) {
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_WARNING, on->from,
		       "P2P enabled bandwidth equals disabled (%d directed pair%s): the copies go "
		       "through host memory",
		       equal, equal == 1 ? "" : "s");
	} else if (faster) {
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, on->from,
		       "P2P enabled beats copying through host memory for %d directed pair%s (the "
		       "slowest %.2f GB/s against %.2f GB/s with P2P off): peer copies are live",
		       faster, faster == 1 ? "" : "s", on_min, off_at);
	}
	const struct p2ps_paste_matrix *lon = &p->m[P2PS_PM_LAT_ON];
	double l_on = cell_num(p, P2PS_PM_LAT_ON, 0, 1), l_off = cell_num(p, P2PS_PM_LAT_OFF, 0, 1);
	if (lon->present && l_on > 0 && l_off > 0 && l_on * 3 < l_off)
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, lon->from,
		       "CUDA's P2P writes are live: GPU0 -> GPU1 latency %.2f us with P2P against "
		       "%.2f us "
		       "without",
		       l_on, l_off);
}

void po_cuda(struct octx *c)
{
	const struct p2ps_paste *p = c->p;
	const struct p2ps_paste_matrix *m = &p->m[P2PS_PM_CUDA_ACCESS];
	char list[200] = "";
	int cannot = 0;
	for (int i = 0; m->present && i < m->n; i++)
		for (int j = i + 1; j < m->n; j++) {
			const char *ab = p2ps_paste_cell(p, P2PS_PM_CUDA_ACCESS, i, j);
			const char *ba = p2ps_paste_cell(p, P2PS_PM_CUDA_ACCESS, j, i);
			if (!(ab && !strcmp(ab, "0")) && !(ba && !strcmp(ba, "0")))
				continue;
			size_t n = strlen(list);
			const struct p2ps_paste_gpu *gi = p2ps_paste_gpu_cuda(p, i),
			                            *gj = p2ps_paste_gpu_cuda(p, j);
			if (n < sizeof(list) - 32 && gi && gj && gi->bdf_known && gj->bdf_known)
				snprintf(list + n, sizeof(list) - n, "%s%02x<->%02x", n ? ", " : "",
				         gi->bdf.bus, gj->bdf.bus);
			else if (n < sizeof(list) - 32)
				snprintf(list + n, sizeof(list) - n, "%sCUDA %d<->%d",
				         n ? ", " : "", i, j);
			cannot++;
		}
	if (cannot || p->cuda.waived)
		po_add(c, P2PS_PF_CUDA_NO_PEER, P2PS_SEV_BLOCKER,
		       m->present ? m->from : p->cuda.from,
		       "CUDA cannot access the peer for %d GPU pair%s%s%s (by bus number)%s",
		       cannot, cannot == 1 ? "" : "s", cannot ? ": " : "", list,
		       p->cuda.waived ? "; simpleP2P waived its test" : "");
	bandwidth(c);
	if (p->cuda.verify_errors || p->cuda.result == 0) {
		struct p2ps_reason *f =
		        po_add(c, P2PS_PF_DATA_MISMATCH, P2PS_SEV_BLOCKER, p->cuda.first_error,
		               "peer copies deliver wrong data: %d verification error%s%s%s%s",
		               p->cuda.verify_errors, p->cuda.verify_errors == 1 ? "" : "s",
		               p->cuda.first_error_text[0] ? " (first: " : "",
		               p->cuda.first_error_text, p->cuda.first_error_text[0] ? ")" : "");
		p2ps_an_fix(
		        f,
		        "check `sudo dmesg | grep NVRM` for the static BAR1 mapping of every GPU: "
		        "without it (a GPU driving a display, BAR1 smaller than VRAM) peer writes "
		        "land "
		        "elsewhere");
	}
	if (p->cuda.memcpy_gbps > 0)
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, p->cuda.from,
		       "simpleP2P measured %.2f GB/s for cudaMemcpyPeer", p->cuda.memcpy_gbps);
	if (p->cuda.nccl_busbw > 0)
		po_add(c, P2PS_PF_P2P_NO_GAIN, P2PS_SEV_INFO, p->cuda.from,
		       "nccl-tests average bus bandwidth %.2f GB/s", p->cuda.nccl_busbw);
}
