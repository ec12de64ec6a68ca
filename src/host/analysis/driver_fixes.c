/* SPDX-License-Identifier: MIT */
/* Fixes that persist across reboots, for the gates that decided a pair: registry keys
 * (NVreg_RegistryDwords) with their risk, the kernel parameter that opens exactly the
 * bridges on the pair's path (pci=config_acs= from Linux 6.11, pci=disable_acs_redir=
 * from 4.19) beside the runtime setpci, iommu=pt and the 512 MiB alignment of 575+.
 * Printed, never applied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "driver_internal.h"
#include "p2pscope/analysis.h"

#define SZ_512M (512ull * 1024 * 1024)

static void add(struct p2ps_drv_pair *o, const char *fmt, const char *a1)
{
	size_t n = strlen(o->fix);
	if (n + 3 >= sizeof(o->fix))
		return;
	if (n)
		o->fix[n++] = ';', o->fix[n++] = ' ', o->fix[n] = '\0';
	snprintf(o->fix + n, sizeof(o->fix) - n, fmt, a1);
}

/* Bridges on either GPU's path below the lowest common bridge that redirect peer traffic. */
static void acs_fix(const struct p2ps_analysis *a, struct p2ps_drv_pair *o)
{
	const struct p2ps_host *h = a->host;
	char list[160] = "", one[40];
	int gis[2] = {o->a, o->b};
	const struct p2ps_pair *ap = p2ps_analysis_pair(a, (size_t)o->a, (size_t)o->b);
	bool config_acs = p2ps_an_version_at_least(h->kernel, 6, 11);
	for (int k = 0; k < 2; k++) {
		const struct p2ps_gpu_report *g = &a->gpus[gis[k]];
		for (int i = 0; i < g->path_len; i++) {
			const struct p2ps_dev *br = &h->devs[g->path[i]];
			if (ap && g->path[i] == ap->lca_idx)
				break;
			if (!br->acs.present || !p2ps_acs_redirect_bits(br->acs.ctl) ||
			    strstr(list, br->bdf_str))
				continue;
			/* config_acs flags: bit 6 (DT) leftmost; EC, CR, RR cleared, rest kept. */
			snprintf(one, sizeof(one), "%s%s%s", list[0] ? ";" : "",
			         config_acs ? "x0x00xx@" : "", br->bdf_str);
			size_t used = strlen(list), add_n = strlen(one);
			if (used + add_n < sizeof(list))
				memcpy(list + used, one, add_n + 1);
		}
	}
	if (!list[0])
		return;
	/* 47c8846a49ba ("PCI: Extend ACS configurability", 6.11) broke lists of several
	 * devices for both parameters until "PCI/ACS: Fix 'pci=config_acs=' parameter" (Dec
	 * 2024); quoted, as the semicolons would otherwise end the bootloader's word. */
	bool several = strchr(list, ';') != NULL;
	bool buggy = p2ps_an_version_at_least(h->kernel, 6, 11) &&
	             !p2ps_an_version_at_least(h->kernel, 6, 13);
	char buf[400]; /* the list (160) and the texts fit whole */
	snprintf(buf, sizeof(buf),
	         "\"%s%s\" (kernel command line, quoted; the runtime setpci is in the pair's "
	         "reasons)%s",
	         config_acs ? "pci=config_acs=" : "pci=disable_acs_redir=", list,
	         several && buggy ? "; a 6.11/6.12 kernel without the stable fix for "
	                            "multi-device ACS lists takes only one device"
	                          : "");
	add(o, "%s", buf);
}

/* 575+: _kbusCreateStaticBar1IOMMUMapping wants the peer DMA address 512 MiB aligned. */
static void iommu_fix(const struct p2ps_analysis *a, const struct p2ps_drv_report *r,
                      const struct p2ps_nv_driver *s, struct p2ps_drv_pair *o)
{
	int gis[2] = {o->a, o->b};
	bool translating = false;
	for (int k = 0; k < 2; k++)
		translating |= a->gpus[gis[k]].iommu == P2PS_IOMMU_TRANSLATING;
	if (translating)
		add(o, "%s",
		    "iommu=pt (and amd_iommu=on / intel_iommu=on kept) so peer BAR1 "
		    "addresses are not translated");
	if (!s->iommu_512m || o->chosen != P2PS_NV_PATH_PCIE_BAR1)
		return;
	for (int k = 0; k < 2; k++) {
		const struct p2ps_gpu_report *g = &a->gpus[gis[k]];
		const struct p2ps_dev *d = &a->host->devs[g->dev_idx];
		if (g->bar1_index < 0 || !d->bars[g->bar1_index].address)
			continue;
		uint64_t peer = d->bars[g->bar1_index].address + r->bar1[gis[k]].start;
		if (!translating && peer % SZ_512M)
			add(o,
			    "%s: the peer DMA address (BAR1 + static start) is not 512 MiB "
			    "aligned: the driver refuses the peer mapping; drive the display "
			    "elsewhere (no console offset) and let firmware place BAR1 aligned",
			    d->bdf_str);
	}
}

void p2ps_drv_pair_fixes(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                         const struct p2ps_drv_report *r, struct p2ps_drv_pair *o)
{
	const struct p2ps_nv_driver *s = p2ps_drv_row(cfg);
	const struct p2ps_drv_path_result *b1 = &o->path[P2PS_NV_PATH_PCIE_BAR1];
	char key[120];
	o->fix[0] = '\0';
	if (b1->tried && (b1->read.gate == P2PS_NV_GATE_PCIE_P2P_TYPE ||
	                  b1->read.gate == P2PS_NV_GATE_BAR1_BY_DEFAULT)) {
		if (s->pcie_type_key)
			snprintf(key, sizeof(key),
			         "NVreg_RegistryDwords=\"RMPcieP2PType=1\" (BAR1 P2P; "
			         "risk: no mailbox fallback if static BAR1 fails)");
		else
			snprintf(key, sizeof(key),
			         "NVreg_RegistryDwords=\"RMForceP2PType=%d\" (BAR1P2P; "
			         "risk: no mailbox fallback)",
			         s->ft_bar1);
		add(o, "%s", key);
	}
	if (b1->tried && b1->read.gate == P2PS_NV_GATE_STATIC_BAR1)
		for (int k = 0; k < 2; k++) {
			const struct p2ps_drv_static_bar1 *sb = &r->bar1[k ? o->b : o->a];
			if (sb->st == P2PS_NV_ST_NOT_SUPPORTED && sb->fix[0])
				add(o, "%s", sb->fix);
		}
	if (b1->tried && b1->read.gate == P2PS_NV_GATE_HOST_READ)
		add(o, "%s",
		    "reads need both GPUs under one supported switch (PLX 87xx/97xx, PMC) or a "
		    "RYZEN / XEON_SPR CPU; NVreg_RegistryDwords=\"ForceP2P=0x11\" forces reads "
		    "and writes on (risk: reads through a root complex that does not forward "
		    "them hang or corrupt)");
	if (o->path[P2PS_NV_PATH_PCIE_MAILBOX].read.gate == P2PS_NV_GATE_IOH)
		add(o, "%s", "put both GPUs under root ports of one I/O hub (one CPU socket)");
	acs_fix(a, o);
	iommu_fix(a, r, s, o);
}
