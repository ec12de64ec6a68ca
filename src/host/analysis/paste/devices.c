/* SPDX-License-Identifier: MIT */
/* Findings from what nvidia-smi printed (its own topology class and P2P status per pair;
 * BAR1 of GPUs it names without an address) and from lspci lines the analysis cannot use
 * (capabilities denied; a Resizable BAR capability of a device the paste does not
 * identify; matrices whose rows do not match their header). */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"
#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/parse.h"

/* Whether cell s (NULL: not in the paste) reads t. */
static bool is(const char *s, const char *t)
{
	return s && !strcmp(s, t);
}

#define TWO_GIB (2ull << 30)

/* GPUs nvidia-smi -q describes without an address (grep'd output): the analysis cannot
 * see them, so their BAR1 is held against their VRAM here. */
static void anonymous_bar1(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	int n = 0, small = 0;
	uint64_t bar1 = 0;
	struct p2ps_paste_where at = {-1, 0};
	char s1[32], s2[32];
	for (size_t i = 0; i < ev->n_gpus; i++) {
		const struct p2ps_paste_gpu *g = &ev->gpus[i];
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
	const struct p2ps_evidence *ev = c->ev;
	char list[160] = "";
	int denied = 0;
	struct p2ps_paste_where at = {-1, 0};
	for (size_t i = 0; i < ev->n_devs; i++) {
		const struct p2ps_paste_dev_facts *pd = &ev->devs[i];
		if (pd->caps_denied) {
			size_t n = strlen(list);
			snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", pd->bdf_str);
			if (!denied++)
				at = pd->from[P2PS_PD_CAPS];
		}
		if (pd->vendor_known || !pd->rebar.present)
			continue;
		for (int k = 0; k < pd->rebar.count; k++) {
			const struct p2ps_rebar_entry *e = &pd->rebar.e[k];
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
			        pd->bdf_str, p2ps_size_format(max, s, sizeof(s)), pd->bdf_str);
			p2ps_an_fix(
			        f,
			        "flash the board vendor's VBIOS with Resizable BAR support (same "
			        "board and "
			        "revision), then check that lspci lists 'supported: ... 32GB'; "
			        "read it on "
			        "the host, since a VM's QEMU may hide the capability");
			char cmd[64];
			snprintf(cmd, sizeof(cmd), "lspci -nn -s %s", pd->bdf_str);
			po_ask(c, cmd, "what %s is (vendor and device ids)", pd->bdf_str);
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
		if (ev->matrix[k].present && ev->matrix[k].ragged)
			po_add(c, P2PS_PF_MALFORMED, P2PS_SEV_INFO, ev->matrix[k].from,
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

/* Directed cells of topo -p2p for one path ('r', ..., 0 not said) that print status st
 * (any status: st < 0); where the first of them is into *at (when set). */
static int p2p_cells(const struct octx *c, char path, int st, struct p2ps_paste_where *at)
{
	int n = 0;
	for (size_t i = 0; i < c->ev->n_obs; i++) {
		const struct p2ps_pair_obs *o = &c->ev->obs[i];
		enum p2ps_nv_status v;
		if (o->kind == P2PS_PM_P2P && o->path == path && o->a != o->b &&
		    !p2ps_nv_status_from_code(o->text, &v) && (st < 0 || (int)v == st) && !n++ &&
		    at)
			*at = o->from;
	}
	return n;
}

/* The findings of one path of topo -p2p. NVLINK, ATOMICS and PROP read NOT_SUPPORTED on
 * every pair that does not use that path (the driver table says so: expected), so their
 * NS is information, never a blocker. */
static void p2p_path(struct octx *c, const struct p2ps_paste_matrix_info *m, char path)
{
	struct p2ps_paste_where at = m->from;
	int cells = p2p_cells(c, path, -1, &at), ok = p2p_cells(c, path, P2PS_NV_ST_OK, NULL);
	int index = p2ps_nv_caps_index_from_mode(path);
	char mode[12] = {' ', path, 0};
	if (!path)
		snprintf(mode, sizeof(mode), "%s%.8s", m->mode[0] ? " " : "", m->mode);
	for (size_t s = 0; s < sizeof(p2p_status) / sizeof(p2p_status[0]); s++) {
		int n = p2p_cells(c, path, (int)p2p_status[s].status, NULL);
		if (!n)
			continue;
		const struct p2ps_nv_status_why *w =
		        index >= 0 ? p2ps_nv_status_why(p2p_status[s].status, (unsigned)index)
		                   : NULL;
		/* NS beside OK: pairs the driver has no peer path for (NVLink-only boards whose
		 * pairs without a link, GPUs on other sockets), not a fault of the host. */
		bool beside_ok = ok && p2p_status[s].status == P2PS_NV_ST_NOT_SUPPORTED;
		bool normal = w && w->expected;
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_NVIDIA_P2P_STATUS,
		        normal      ? P2PS_SEV_INFO
		        : beside_ok ? P2PS_SEV_WARNING
		                    : P2PS_SEV_BLOCKER,
		        at, "nvidia-smi topo -p2p%s reports %s for %d directed pair%s: %s%s%s%s",
		        mode, p2ps_nv_status_code(p2p_status[s].status), n, n == 1 ? "" : "s",
		        p2p_status[s].meaning, normal ? "; " : "", normal ? w->fix : "",
		        beside_ok && !normal
		                ? "; the driver allows the other pairs (OK), so these are pairs "
		                  "without a peer path rather than a fault of the host"
		                : "");
		p2ps_an_fix(f, "%s", normal ? "" : p2p_status[s].fix);
	}
	if (cells && ok == cells)
		po_add(c, P2PS_PF_NVIDIA_P2P_STATUS, P2PS_SEV_INFO, at,
		       "nvidia-smi topo -p2p%s reports OK for all %d directed pairs (it checks "
		       "chipset and GPU, not whether peer copies work)",
		       mode, cells);
}

void po_nvidia_smi(struct octx *c)
{
	const struct p2ps_paste_matrix_info *m = &c->ev->matrix[P2PS_PM_P2P];
	static const char paths[] = {0, 'r', 'w', 'n', 'a', 'p'};
	for (size_t i = 0; m->present && i < sizeof(paths); i++)
		p2p_path(c, m, paths[i]);
	const struct p2ps_paste_matrix_info *t = &c->ev->matrix[P2PS_PM_TOPO];
	int sys = 0;
	for (int i = 0; t->present && i < t->n; i++)
		for (int j = i + 1; j < t->n; j++)
			sys += is(po_cell(c, P2PS_PM_TOPO, i, j), "SYS") ||
			       is(po_cell(c, P2PS_PM_TOPO, i, j), "SOC");
	if (sys)
		po_add(c, P2PS_PF_NVIDIA_TOPOLOGY, P2PS_SEV_WARNING, t->from,
		       "nvidia-smi topo -m: %d GPU pair%s cross%s the CPU interconnect between "
		       "sockets "
		       "(SYS/SOC): Intel's UPI/QPI does not forward PCIe peer traffic, elsewhere "
		       "it is "
		       "a fraction of PCIe bandwidth",
		       sys, sys == 1 ? "" : "s", sys == 1 ? "es" : "");
}
