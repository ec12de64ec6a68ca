/* SPDX-License-Identifier: MIT */
/* The paste as a host model: every device the paste names becomes a struct p2ps_dev
 * with the facts its blocks gave, GPUs known to nvidia-smi or CUDA only by address get a
 * device of their own, nvidia-smi's BAR1/VRAM/NV# become the GPU facts, and each fact
 * the paste lacks gets the reason a maintainer can act on ("capabilities denied: lspci
 * ran without root"). The analysis then runs on it as on any other source. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "host_internal.h"
#include "hostfacts.h"
#include "nvsmi_text.h"
#include "p2pscope/nvidia_chips.h"
#include "paste_internal.h"
#include "paste_names.h"

/* Why the paste cannot tell a config-space fact of pd, "" when it could. */
static void why_missing(const struct p2ps_paste_dev *pd, char *buf, size_t size)
{
	const char *b = pd->d.bdf_str;
	if (pd->caps_denied)
		snprintf(buf, size,
		         "capabilities denied: lspci ran without root (run sudo lspci -vvv -s %s)",
		         b);
	else if (!pd->in_text && !pd->from_hex)
		snprintf(buf, size, "the paste has no lspci -vvv block for %s", b);
	else if (pd->verbosity < 2 && !pd->from_hex)
		snprintf(buf, size, "lspci -v does not decode it for %s (sudo lspci -vvv does)", b);
	else if (pd->cut)
		snprintf(buf, size, "the paste's lspci block for %s is cut off before it", b);
	else
		snprintf(buf, size, "not in the paste's lspci output for %s", b);
}

/* Whether the paste shows pd's whole capability list (so an absent capability is absent). */
static bool caps_complete(const struct p2ps_paste_dev *pd)
{
	if (pd->from_hex)
		return pd->d.config_len >= P2PS_HOST_CONFIG_MAX;
	return pd->in_text && pd->verbosity >= 2 && !pd->caps_denied && !pd->cut && pd->complete &&
	       pd->ext_caps_seen;
}

static void device_reasons(const struct p2ps_paste *p, const struct p2ps_paste_dev *pd,
                           struct p2ps_dev *d)
{
	char why[P2PS_HOST_REASON_MAX];
	why_missing(pd, why, sizeof(why));
	if (!pd->from_hex)
		p2ps_dev_set_unknown(d, P2PS_FACT_CONFIG, "%s", why);
	bool any_bar = false;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		any_bar |= d->bars[i].present && d->bars[i].size_known;
	if (!any_bar)
		p2ps_dev_set_unknown(d, P2PS_FACT_BAR_SIZES, "%s", why);
	if (!d->pcie.cap_source)
		p2ps_dev_set_unknown(d, P2PS_FACT_LINK_CAP, "%s", why);
	if (!d->pcie.sta_source)
		p2ps_dev_set_unknown(d, P2PS_FACT_LINK_STATUS, "%s", why);
	if (!d->acs.present && !caps_complete(pd))
		p2ps_dev_set_unknown(d, P2PS_FACT_ACS, "%s", why);
	if (!d->rebar.present && !caps_complete(pd))
		p2ps_dev_set_unknown(d, P2PS_FACT_REBAR, "%s", why);
	if (pd->caps_denied)
		p2ps_dev_set_unknown(d, P2PS_FACT_CAPS, "%s", why);
	if (!d->driver[0] && !(pd->in_text && pd->complete))
		p2ps_dev_set_unknown(d, P2PS_FACT_DRIVER,
		                     "not in the paste (lspci -k -s %s shows it)", d->bdf_str);
	if (d->numa_node < 0 && !pd->from[P2PS_PD_NUMA].line)
		p2ps_dev_set_unknown(d, P2PS_FACT_NUMA, "not in the paste");
	if (d->iommu_group < 0 && !(p->host.iommu_known && !p->host.iommu_present))
		p2ps_dev_set_unknown(d, P2PS_FACT_IOMMU_GROUP, "not in the paste");
	if ((d->class_code >> 16) == 0x03)
		p2ps_dev_set_unknown(d, P2PS_FACT_BOOT_VGA, "not in a paste");
}

/* A function only `lspci -tv` names (no class, no NUMA node) that carries the very name
 * lspci gives another function of the same device takes that function's class and NUMA
 * node: the functions of one multi-function card (port 1 of a dual-port NIC) share the
 * card, and the kernel gives every device the node of its bus (pcibus_to_node(), set in
 * pci_device_add()). */
static void sibling_functions(const struct p2ps_paste *p, struct p2ps_host *host)
{
	for (size_t i = 0; i < p->n_devs; i++) {
		const struct p2ps_paste_dev *pd = &p->devs[i];
		struct p2ps_dev *d;
		if (pd->class_known || !pd->name[0] || !(d = p2ps_host_find(host, &pd->d.bdf)))
			continue;
		for (size_t k = 0; k < p->n_devs; k++) {
			const struct p2ps_paste_dev *s = &p->devs[k];
			if (k == i || !s->class_known || s->d.bdf.domain != d->bdf.domain ||
			    s->d.bdf.bus != d->bdf.bus || s->d.bdf.dev != d->bdf.dev ||
			    strcmp(s->name, pd->name))
				continue;
			d->class_code = s->d.class_code;
			if (d->numa_node < 0 && s->d.numa_node >= 0) {
				d->numa_node = s->d.numa_node;
				d->unknown[P2PS_FACT_NUMA][0] = '\0';
			}
			break;
		}
	}
}

/* A GPU nvidia-smi or CUDA names by address but no lspci block describes. */
static struct p2ps_dev *gpu_device(struct p2ps_host *host, size_t *cap,
                                   const struct p2ps_paste_gpu *g)
{
	struct p2ps_dev *d = p2ps_host_add_dev(host, cap);
	if (!d)
		return NULL;
	d->bdf = g->bdf;
	p2ps_bdf_format(&g->bdf, d->bdf_str, sizeof(d->bdf_str));
	d->vendor_id = 0x10de;
	d->class_code = 0x030000;
	d->chip = g->name[0] ? pt_chip_by_name(g->name) : NULL;
	snprintf(d->device_name, sizeof(d->device_name), "%s", g->name);
	const char *why = "the paste has no lspci -vvv block for this GPU";
	static const enum p2ps_fact facts[] = {
	        P2PS_FACT_CONFIG,      P2PS_FACT_BAR_SIZES,   P2PS_FACT_LINK_CAP,
	        P2PS_FACT_LINK_STATUS, P2PS_FACT_REBAR,       P2PS_FACT_DRIVER,
	        P2PS_FACT_NUMA,        P2PS_FACT_IOMMU_GROUP, P2PS_FACT_BOOT_VGA};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		p2ps_dev_set_unknown(d, facts[i], "%s", why);
	return d;
}

static void copy_device(const struct p2ps_paste *p, const struct p2ps_paste_dev *pd,
                        struct p2ps_dev *d)
{
	*d = pd->d;
	/* A device the paste knows only by its address (an IOMMU group line, a fault) that
	 * NCCL, CUDA or nvidia-smi name as a GPU is that GPU. */
	bool named = pd->gpu_named;
	for (size_t i = 0; !pd->vendor_known && i < p->n_gpus; i++)
		if (p->gpus[i].bdf_known && p2ps_bdf_equal(&p->gpus[i].bdf, &pd->d.bdf)) {
			d->vendor_id = 0x10de;
			named = true;
		}
	/* The driver itself named it a GPU (NVRM, nvidia-smi, CUDA): a display controller. */
	if (d->vendor_id == 0x10de && !pd->class_known && named)
		d->class_code = 0x030000;
	if (d->vendor_id == 0x10de && !d->chip && pd->name[0])
		d->chip = pt_chip_by_name(pd->name);
	snprintf(d->device_name, sizeof(d->device_name), "%s", pd->name);
	/* A hex dump's header holds the windows; a text block or a log only when it says them. */
	if (d->bridge.is_bridge && !pd->from_hex && !pd->windows_seen)
		d->bridge.windows_unknown = true;
	memset(d->unknown, 0, sizeof(d->unknown));
	device_reasons(p, pd, d);
}

/* nvidia-smi's facts (and the GPU's product name) on the device at g's address. */
static void gpu_facts(struct p2ps_dev *d, const struct p2ps_paste_gpu *g)
{
	if (g->vram_known || g->bar1_known)
		d->gpu.source = P2PS_GPU_SRC_NVIDIA_SMI;
	d->gpu.vram_known = g->vram_known;
	d->gpu.vram_bytes = g->vram;
	d->gpu.bar1_known = g->bar1_known;
	d->gpu.bar1_total_bytes = g->bar1;
	if (!d->chip && g->name[0])
		d->chip = pt_chip_by_name(g->name);
	if (!d->device_name[0])
		snprintf(d->device_name, sizeof(d->device_name), "%s", g->name);
}

/* NV# cells of topo -m as NVLink peers, for GPUs whose addresses are known. */
static void nvlinks(const struct p2ps_paste *p, struct p2ps_host *host)
{
	const struct p2ps_paste_matrix *m = &p->m[P2PS_PM_TOPO];
	struct p2ps_dev *gpus[P2PS_PASTE_MAX_GPUS] = {NULL};
	for (int i = 0; m->present && i < m->n; i++) {
		const struct p2ps_paste_gpu *g = p2ps_paste_gpu_smi(p, i);
		gpus[i] = g && g->bdf_known ? p2ps_host_find(host, &g->bdf) : NULL;
	}
	if (m->present)
		p2ps_nvsmi_nvlinks(m->n, (const char(*)[P2PS_NVSMI_CELL])m->cell, gpus);
}

/* Devices on a root bus where the paste draws no tree above them, and missing parents. */
static void parents(const struct p2ps_paste *p, struct p2ps_host *host)
{
	p2ps_host_tree_from_buses(host);
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		const struct p2ps_paste_dev *pd = p2ps_paste_find_dev(p, &d->bdf);
		bool stated = pd && pd->from[P2PS_PD_PARENT].line;
		if (!d->has_parent && !stated && d->bdf.bus != 0) {
			/* No root bus either: a bus number alone does not rule out a bridge. */
			d->root_bus[0] = '\0';
			p2ps_dev_set_unknown(d, P2PS_FACT_PARENT,
			                     "the paste shows no bridge above %s (lspci -tv does)",
			                     d->bdf_str);
		}
	}
}

static void host_facts(const struct p2ps_paste *p, struct p2ps_host *host)
{
	const struct p2ps_paste_host *ph = &p->host;
	host->iommu.known = ph->iommu_known;
	host->iommu.present = ph->iommu_present;
	snprintf(host->iommu.kind, sizeof(host->iommu.kind), "%s", ph->iommu_kind);
	host->iommu.n_groups = ph->iommu_groups > 0 ? ph->iommu_groups : 0;
	/* lspci prints "IOMMU group: N" only when an IOMMU registered the device. */
	for (size_t i = 0; !host->iommu.known && i < p->n_devs; i++)
		if (p->devs[i].d.iommu_group >= 0)
			host->iommu.known = host->iommu.present = true;
	if (ph->cmdline_known) {
		host->cmdline.known = true;
		host->cmdline.raw = strdup(ph->cmdline);
		p2ps_cmdline_parse(&host->cmdline);
	}
	/* Neither groups nor the kernel log say whether an IOMMU translates: the command
	 * line does where it is decisive (the same rule as a live host's). */
	struct p2ps_cmdline_iommu ci;
	p2ps_cmdline_iommu(&host->cmdline, &ci);
	if (!host->iommu.known && ci.state != P2PS_CMDLINE_IOMMU_DEFAULT) {
		host->iommu.known = true;
		host->iommu.present = ci.state == P2PS_CMDLINE_IOMMU_TRANSLATING ||
		                      ci.state == P2PS_CMDLINE_IOMMU_PASSTHROUGH;
		if (!host->iommu.kind[0])
			snprintf(host->iommu.kind, sizeof(host->iommu.kind), "%s", ci.kind);
	}
	if (ph->driver_version[0]) {
		host->nvidia.proc_known = true;
		snprintf(host->nvidia.proc_driver_version, sizeof(host->nvidia.proc_driver_version),
		         "%s", ph->driver_version);
	}
	snprintf(host->nvidia.nvml_status, sizeof(host->nvidia.nvml_status), "%s",
	         "not used for pastes");
	host->cpu = ph->cpu;
	if (ph->kernel[0])
		snprintf(host->kernel, sizeof(host->kernel), "%s", ph->kernel);
	/* The NCCL variables NCCL logged as set: the analysis' NCCL rules apply to them. */
	for (int i = 0; i < p->nccl.n_env && host->n_nccl_env < P2PS_HOST_MAX_NCCL_ENV; i++)
		snprintf(host->nccl_env[host->n_nccl_env++], sizeof(host->nccl_env[0]), "%s",
		         p->nccl.env[i]);
	/* A module list says whether a peer-memory module is loaded (GPUDirect RDMA). */
	host->rdma.known = ph->modules_listed == 1;
	host->rdma.nvidia_peermem = ph->nvidia_peermem == 1;
	host->rdma.nv_peer_mem = ph->nv_peer_mem == 1;
	host->vm.known = ph->vm;
	host->vm.in_vm = ph->vm;
	snprintf(host->vm.hypervisor, sizeof(host->vm.hypervisor), "%s", ph->hypervisor);
	if (ph->vm)
		snprintf(host->vm.evidence, sizeof(host->vm.evidence), "%s",
		         ph->vm_from[0] ? ph->vm_from : "kernel log");
}

/* The IOMMU domain of each device: a device the IOMMU faulted is translated; otherwise the
 * kernel's default domain or the command line's iommu=pt, where the paste has them. */
static void iommu_domains(const struct p2ps_paste *p, struct p2ps_host *host)
{
	const char *def = p->host.default_domain;
	struct p2ps_cmdline_iommu ci;
	p2ps_cmdline_iommu(&host->cmdline, &ci);
	if (!def[0] && ci.state == P2PS_CMDLINE_IOMMU_PASSTHROUGH)
		def = "identity";
	else if (!def[0] && ci.state == P2PS_CMDLINE_IOMMU_TRANSLATING)
		def = "DMA";
	for (size_t i = 0; host->iommu.present && i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		const struct p2ps_paste_dev *pd = p2ps_paste_find_dev(p, &d->bdf);
		const char *t = pd && pd->iommu_faults ? "DMA" : def;
		snprintf(d->iommu_domain_type, sizeof(d->iommu_domain_type), "%s", t);
		if (t[0])
			d->unknown[P2PS_FACT_IOMMU_GROUP][0] = '\0';
	}
}

static int to_host(const struct p2ps_paste *p, struct p2ps_host *host, struct p2ps_error *err)
{
	size_t cap = 0;
	for (size_t i = 0; i < p->n_devs; i++) {
		struct p2ps_dev *d = p2ps_host_add_dev(host, &cap);
		if (!d)
			return p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory",
			                      p->source);
		copy_device(p, &p->devs[i], d);
	}
	sibling_functions(p, host);
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct p2ps_paste_gpu *g = &p->gpus[i];
		if (!g->bdf_known)
			continue;
		struct p2ps_dev *d = p2ps_host_find(host, &g->bdf);
		if (!d && !(d = gpu_device(host, &cap, g)))
			return p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory",
			                      p->source);
		gpu_facts(d, g);
	}
	nvlinks(p, host);
	host_facts(p, host);
	iommu_domains(p, host);
	parents(p, host);
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		if (!p2ps_dev_is_nvidia_gpu(d))
			continue;
		if (!d->gpu.vram_known)
			p2ps_dev_set_unknown(
			        d, P2PS_FACT_VRAM,
			        "not in the paste (nvidia-smi -q shows FB Memory Usage)");
		if (!d->gpu.nvlink_known)
			p2ps_dev_set_unknown(d, P2PS_FACT_NVLINK,
			                     "not in the paste (nvidia-smi topo -m shows it)");
	}
	return 0;
}

static int paste_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                      struct p2ps_error *err)
{
	if (!src->text && (!src->path || !*src->path))
		return p2ps_error_set(err, P2PS_EINVAL, "paste: no file given");
	struct p2ps_paste *p = calloc(1, sizeof(*p));
	host->evidence = calloc(1, sizeof(*host->evidence));
	if (!p || !host->evidence) {
		free(p);
		return p2ps_error_set(err, P2PS_ENOMEM, "paste: out of memory");
	}
	int rc = src->text ? p2ps_paste_parse(src->text, src->text_len, src->path, p, err)
	                   : p2ps_paste_load(src->path, p, err);
	if (rc == 0)
		rc = to_host(p, host, err);
	/* The model keeps the evidence (p2ps_host_free), not the reader's working facts. */
	if (rc == 0)
		rc = p2ps_paste_evidence(p, host->evidence, err);
	p2ps_paste_free(p);
	free(p);
	return rc;
}

const struct p2ps_host_backend p2ps_host_backend_paste = {
        .name = "paste",
        .kind = P2PS_HOST_PASTE,
        .help = "text pasted into a bug report: lspci, nvidia-smi, dmesg, CUDA samples "
                "(--paste FILE|-)",
        .load = paste_load,
};
