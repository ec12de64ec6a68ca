/* SPDX-License-Identifier: MIT */
/* What went wrong, as the paste shows it: the symptoms of error lines, NCCL's log and the
 * tests (a refused peer mapping, peer access not supported, an illegal access, wrong data,
 * a hang), what NCCL's log says, the ACS values of ports the paste does not name, GeForce
 * cards without the P2P-patched driver, blocks read but not understood. */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"

static void symptom_findings(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	for (int s = 0; s < P2PS_PS_COUNT; s++) {
		if (!ev->sym.count[s])
			continue;
		if (s == P2PS_PS_SHM) {
			struct p2ps_reason *f = po_add(
			        c, P2PS_PF_SHM, P2PS_SEV_BLOCKER, ev->sym.first[s],
			        "NCCL could not create its shared-memory segment (%d line%s, "
			        "first: "
			        "%.160s): /dev/shm is too small where it runs",
			        ev->sym.count[s], ev->sym.count[s] == 1 ? "" : "s",
			        ev->sym.text[s]);
			p2ps_an_fix(
			        f,
			        "give the container more shared memory (docker run --shm-size=16g, "
			        "or --ipc=host), or grow /dev/shm");
			continue;
		}
		po_add(c, P2PS_PF_SYMPTOM, P2PS_SEV_WARNING, ev->sym.first[s],
		       "%s (%d line%s, first: %.160s): %s", p2ps_paste_symptom_name(s),
		       ev->sym.count[s], ev->sym.count[s] == 1 ? "" : "s", ev->sym.text[s],
		       po_symptom_meaning(s));
	}
}

static bool pt_env_disables(const char *e)
{
	return !strncmp(e, "NCCL_P2P_DISABLE=", 17) && p2ps_an_nccl_disables(e + 17);
}

static void nccl_findings(struct octx *c)
{
	const struct p2ps_paste_nccl *n = &c->ev->nccl;
	if (!n->version[0] && !n->via[P2PS_NV_P2P] && !n->via[P2PS_NV_SHM] && n->intra_p2p < 0)
		return;
	po_add(c, P2PS_PF_NCCL, P2PS_SEV_INFO,
	       n->version[0] ? n->version_from : n->via_from[P2PS_NV_P2P],
	       "NCCL%s%s: channel connections via P2P %d%s%s%s, SHM %d, NET %d%s",
	       n->version[0] ? " " : "", n->version, n->via[P2PS_NV_P2P], n->p2p_how[0] ? " (" : "",
	       n->p2p_how, n->p2p_how[0] ? ")" : "", n->via[P2PS_NV_SHM], n->via[P2PS_NV_NET],
	       n->intra_p2p == 0 ? "; it found no intra-node P2P (intraNodeP2pSupport 0)" : "");
	bool off = false;
	for (int i = 0; i < n->n_env; i++)
		off |= pt_env_disables(n->env[i]);
	if (!n->via[P2PS_NV_P2P] && n->via[P2PS_NV_SHM])
		po_add(c, P2PS_PF_NCCL, P2PS_SEV_WARNING, n->via_from[P2PS_NV_SHM],
		       "NCCL moved data between the GPUs through host memory (SHM), not P2P: %s",
		       off ? "NCCL_P2P_DISABLE turned P2P off"
		           : "it found no usable peer path between them");
}

/* ACS values of ports the paste does not name (`lspci -vvv | grep ACSCtl`, setpci). */
static void acs_unplaced(struct octx *c)
{
	const struct p2ps_paste_acs_loose *a = &c->ev->acs_loose;
	if (!a->lines)
		return;
	if (!a->redirect) {
		po_add(c, P2PS_PF_ACS_UNPLACED, P2PS_SEV_INFO, a->first,
		       "%d ACS control value%s without a device, none redirecting requests or "
		       "completions",
		       a->lines, a->lines == 1 ? "" : "s");
		return;
	}
	struct p2ps_reason *f =
	        po_add(c, P2PS_PF_ACS_UNPLACED, P2PS_SEV_BLOCKER, a->first,
	               "ACS redirects peer requests at %d of %d port%s whose ACSCtl the paste "
	               "shows without the device (first: %s): peer writes between GPUs below "
	               "such a port go up to the root complex instead of across",
	               a->redirect, a->lines, a->lines == 1 ? "" : "s", a->first_text);
	p2ps_an_fix(f,
	            "clear ReqRedir and CmpltRedir on the switch and root ports between the GPUs "
	            "(setpci -s PORT ECAP_ACS+6.w=0000, or pcie_acs_override / firmware 'ACS "
	            "Enable' off); `sudo lspci -vvv` shows which ports they are");
}

static void geforce(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	const char *fam = NULL;
	int n = 0, others = 0;
	for (size_t i = 0; i < ev->n_gpus; i++) {
		const char *f = ev->gpus[i].name[0] ? po_geforce_family(ev->gpus[i].name) : NULL;
		n += f != NULL;
		others += ev->gpus[i].name[0] && !f;
		fam = fam ? fam : f;
	}
	bool patched = po_patched_driver(c);
	const struct p2ps_paste_matrix_info *m = &ev->matrix[P2PS_PM_CUDA_ACCESS];
	bool no_peer = ev->sym.count[P2PS_PS_PEER_UNSUPPORTED] ||
	               ev->sym.count[P2PS_PS_P2P_DISABLED] || ev->cuda.waived;
	for (int i = 0; m->present && i < m->n; i++)
		for (int j = 0; j < m->n; j++) {
			const char *s = po_cell(c, P2PS_PM_CUDA_ACCESS, i, j);
			no_peer |= s && !strcmp(s, "0");
		}
	if (n < 2 || others || patched || !no_peer)
		return;
	/* The patches modify the open modules: a proprietary module is the stock driver. A
	 * patched open build carries the stock version number, so otherwise it is likely,
	 * not certain, and the driver is asked for first. */
	bool stock = ev->host.driver_open == 0;
	struct p2ps_reason *f = po_add(
	        c, P2PS_PF_GEFORCE_STOCK, stock ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING,
	        m->present ? m->from : ev->cuda.from,
	        "%d %s cards and CUDA refuses peer access: NVIDIA's stock driver gives GeForce "
	        "cards of this family no P2P over PCIe%s",
	        n, fam,
	        stock ? ", and the paste shows the proprietary kernel module (the stock driver)"
	              : "; nothing in the paste shows a P2P-patched driver (which driver runs "
	                "decides it)");
	p2ps_an_fix(f,
	            "install the P2P-patched open kernel modules for the installed driver version "
	            "(tinygrad's or aikitoria's open-gpu-kernel-modules), with Resizable BAR on "
	            "and the IOMMU off or in pass-through");
	if (!stock)
		po_ask_fact(c, PO_F_DRIVER);
}

static void unread(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	if (!ev->unread_blocks)
		return;
	for (size_t i = 0; i < ev->n_blocks; i++)
		if (strstr(ev->blocks[i].summary, "not understood")) {
			po_add(c, P2PS_PF_UNREAD, P2PS_SEV_INFO,
			       (struct p2ps_paste_where){(int)i, ev->blocks[i].first_line},
			       "%d block%s recognised but not understood (first: %s)",
			       ev->unread_blocks, ev->unread_blocks == 1 ? "" : "s",
			       ev->blocks[i].summary);
			return;
		}
}

void po_symptoms(struct octx *c)
{
	symptom_findings(c);
	nccl_findings(c);
	acs_unplaced(c);
	geforce(c);
	unread(c);
}
