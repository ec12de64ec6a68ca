/* SPDX-License-Identifier: MIT */
/* Host-wide findings: the IOMMU state and the command-line flags behind it, facts that
 * need root, a driver version mismatch, a VM, NCCL_* variables; and the host facts the
 * pair verdicts share (CPU vendor, NCCL settings). */
#include "analysis_internal.h"
#include "driver_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/parse.h"

/* Vendor of the first host bridge (class 0600) in the model, 0 if none is listed. */
uint16_t p2ps_an_host_bridge_vendor(const struct p2ps_host *h)
{
	for (size_t i = 0; i < h->n_devs; i++)
		if (h->devs[i].class_code >> 8 == 0x0600)
			return h->devs[i].vendor_id;
	return 0;
}

bool p2ps_an_is_intel_host(const struct p2ps_host *h)
{
	return !strcmp(h->iommu.kind, "intel") || p2ps_an_host_bridge_vendor(h) == 0x8086;
}

/* The value of NAME= among the captured NCCL variables, or NULL. */
const char *p2ps_an_nccl_var(const struct p2ps_host *h, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < h->n_nccl_env && i < P2PS_HOST_MAX_NCCL_ENV; i++)
		if (!strncmp(h->nccl_env[i], name, n) && h->nccl_env[i][n] == '=')
			return h->nccl_env[i] + n + 1;
	return NULL;
}

/* Whether a NCCL_P2P_DISABLE value turns P2P off: NCCL reads it as a number (decimal, or hex
 * with 0x) and disables P2P when that number is 1 (ncclGetLevel, src/graph/paths.cc); the pair
 * verdicts and the host findings share this one rule. */
bool p2ps_an_nccl_disables(const char *value)
{
	uint64_t v;
	while (value && (*value == ' ' || *value == '\t'))
		value++;
	if (!value)
		return false;
	bool hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
	return p2ps_scan_uint(value, hex ? 16 : 10, UINT32_MAX, &v) && v == 1;
}

static void cat(char *dst, size_t size, const char *name, const char *val)
{
	if (!val[0])
		return;
	size_t n = strlen(dst);
	snprintf(dst + n, size - n, "%s%s=%s", n ? " " : "", name, val);
}

/* The command-line flags that decide the IOMMU mode, and the summary line. */
static void iommu_summary(struct p2ps_an_ctx *c)
{
	const struct p2ps_host *h = c->host;
	struct p2ps_analysis *a = c->a;

	if (h->cmdline.known) {
		cat(a->iommu_flags, sizeof(a->iommu_flags), "iommu", h->cmdline.iommu);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "intel_iommu", h->cmdline.intel_iommu);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "amd_iommu", h->cmdline.amd_iommu);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "iommu.passthrough",
		    h->cmdline.iommu_passthrough);
		cat(a->iommu_flags, sizeof(a->iommu_flags), "pcie_acs_override",
		    h->cmdline.pcie_acs_override);
		/* pci= matters here only for its ACS options (config_acs, disable_acs_redir). */
		if (strstr(h->cmdline.pci, "acs"))
			cat(a->iommu_flags, sizeof(a->iommu_flags), "pci", h->cmdline.pci);
	}
	if (!h->iommu.known) {
		snprintf(a->iommu_summary, sizeof(a->iommu_summary), "unknown (%s)",
		         h->kind == P2PS_HOST_LSPCI_DUMP ? "an lspci dump carries no IOMMU state"
		         : h->kind == P2PS_HOST_PASTE    ? "not in the paste"
		                                         : "not captured");
	} else if (!h->iommu.present) {
		snprintf(a->iommu_summary, sizeof(a->iommu_summary),
		         "off (no IOMMU registered in /sys/class/iommu)");
	} else {
		/* Name the default domain types the GPUs' groups use. */
		char types[64] = "";
		for (size_t i = 0; i < a->n_gpus; i++) {
			const char *t = h->devs[a->gpus[i].dev_idx].iommu_domain_type;
			size_t len = strlen(types);
			if (t[0] && !strstr(types, t))
				snprintf(types + len, sizeof(types) - len, "%s%s", len ? "/" : "",
				         t);
		}
		snprintf(a->iommu_summary, sizeof(a->iommu_summary),
		         "on (%s%s%.160s, %d groups)%s%s",
		         h->iommu.kind[0] ? h->iommu.kind : "unknown kind",
		         h->iommu.units[0] ? ": " : "", h->iommu.units, h->iommu.n_groups,
		         types[0] ? ", default domain " : "", types);
	}
}

/* In a VM, the GPUDirect P2P clique the hypervisor gave each NVIDIA GPU (the virtual P2P
 * approval capability the driver's hypervisor branch reads, QEMU's x-nv-gpudirect-clique):
 * GPUs of one clique get PCIe P2P approved there; without one the driver's other host
 * checks decide (the pairs' driver model says which). */
static void vm_cliques(struct p2ps_an_ctx *c, struct p2ps_reasons *r)
{
	const struct p2ps_analysis *a = c->a;
	char list[400] = "";
	int none = 0, n = 0;
	for (size_t i = 0; i < a->n_gpus; i++) {
		const struct p2ps_dev *d = &c->host->devs[a->gpus[i].dev_idx];
		if (!a->gpus[i].is_gpu || d->vendor_id != 0x10de)
			continue;
		int q = p2ps_drv_p2p_clique(d);
		char one[64];
		if (q >= 0)
			snprintf(one, sizeof(one), "%s clique %d", d->bdf_str, q);
		else
			snprintf(one, sizeof(one), "%s %s", d->bdf_str,
			         q == -1 ? "none" : "unknown (config space past 64 bytes unread)");
		none += q == -1;
		n++;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
		         n > 1 ? ", " : "", one);
	}
	if (!n)
		return;
	struct p2ps_reason *x = p2ps_an_add(
	        c, r, P2PS_R_VM_P2P_CLIQUE, P2PS_SEV_INFO, -1,
	        "the hypervisor's GPUDirect P2P clique of each GPU (the capability the driver's "
	        "hypervisor branch reads): %s",
	        list);
	if (none && n > 1)
		p2ps_an_fix(
		        x,
		        "for PCIe P2P in a guest, put the GPUs that may peer in one clique: QEMU "
		        "-device vfio-pci,...,x-nv-gpudirect-clique=N (libvirt: the same option "
		        "through <qemu:override>); NVLink peers do not need it");
}

void p2ps_an_host_findings(struct p2ps_an_ctx *c)
{
	const struct p2ps_host *h = c->host;
	struct p2ps_analysis *a = c->a;
	struct p2ps_reasons *r = &a->host_reasons;

	iommu_summary(c);
	struct p2ps_cmdline_iommu ci;
	p2ps_cmdline_iommu(&h->cmdline, &ci);
	p2ps_an_add(c, r, P2PS_R_IOMMU_STATE, P2PS_SEV_INFO, -1, "IOMMU: %s%s%s%s%s%s",
	            a->iommu_summary, a->iommu_flags[0] ? "; kernel command line: " : "",
	            a->iommu_flags, ci.why[0] ? " (" : "", ci.why, ci.why[0] ? ")" : "");

	if (h->config_limited_any) {
		struct p2ps_reason *x = p2ps_an_add(
		        c, r, P2PS_R_NEEDS_ROOT, P2PS_SEV_INFO, -1,
		        "config space past 64 bytes is readable only by root: ACS, Resizable BAR "
		        "and PCIe link registers come from sysfs or stay unknown");
		p2ps_an_fix(x, "run as root (sudo bar-inspect) for the full report");
	}
	if (h->nvidia.module_known && h->nvidia.proc_known && h->nvidia.module_version[0] &&
	    h->nvidia.proc_driver_version[0] &&
	    strcmp(h->nvidia.module_version, h->nvidia.proc_driver_version)) {
		struct p2ps_reason *x = p2ps_an_add(
		        c, r, P2PS_R_DRIVER_VERSION_MISMATCH, P2PS_SEV_WARNING, -1,
		        "loaded nvidia module is %s but /proc/driver/nvidia/version says %s",
		        h->nvidia.module_version, h->nvidia.proc_driver_version);
		p2ps_an_fix(x,
		            "build the patched modules from the same release as the installed user "
		            "space (.run --no-kernel-modules) and reload them");
	}
	if (h->vm.known && h->vm.in_vm)
		p2ps_an_add(
		        c, r, P2PS_R_VM, P2PS_SEV_WARNING, -1,
		        "running in a virtual machine (%s%s%s): the PCI tree is the guest's, so "
		        "classes "
		        "and ACS describe the virtual topology, not the host's",
		        h->vm.hypervisor[0] ? h->vm.hypervisor : "hypervisor",
		        h->vm.evidence[0] ? ", " : "", h->vm.evidence);
	if (h->vm.known && h->vm.in_vm)
		vm_cliques(c, r);
	for (int i = 0; i < h->n_nccl_env && i < P2PS_HOST_MAX_NCCL_ENV; i++) {
		const char *e = h->nccl_env[i];
		bool disables =
		        !strncmp(e, "NCCL_P2P_DISABLE=", 17) && p2ps_an_nccl_disables(e + 17);
		struct p2ps_reason *x = p2ps_an_add(
		        c, r, P2PS_R_NCCL_ENV, disables ? P2PS_SEV_WARNING : P2PS_SEV_INFO, -1,
		        "%s is set%s", e, disables ? ": NCCL will not use P2P at all" : "");
		if (disables)
			p2ps_an_fix(x, "unset NCCL_P2P_DISABLE once the pair is ready");
	}
	p2ps_an_reasons_sort(r);
}
