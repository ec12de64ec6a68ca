/* SPDX-License-Identifier: MIT */
/* GPUDirect RDMA: a third-party device (an RDMA NIC, an NVMe drive, an FPGA) reading and
 * writing a GPU's memory through its BAR1. Every rule is NVIDIA's "GPUDirect RDMA"
 * guide (CUDA 13.0 edition), cited by section beside it, or NCCL's own decision
 * (src/graph/paths.cc, ncclTopoCheckGdr); the pairs are every NVIDIA GPU with every RDMA
 * device found and every non-NVIDIA device named as an extra peer. */
#include "analysis_internal.h"

#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PCI functions that are RDMA devices by their IDs alone, for sources that cannot ask
 * the kernel (dumps, pastes) or hosts whose RDMA driver is not loaded. */
static const struct rdma_id {
	uint16_t vendor;     /* 0: any */
	uint32_t class_mask; /* compared against class_code >> 8 under this mask */
	uint32_t class_want;
	const char *source;
} rdma_ids[] = {
        {0, 0xffff, 0x0207, "class 02 07: InfiniBand controller (PCI Code and ID Assignment)"},
        {0x15b3, 0xff00, 0x0200,
         "vendor 15b3 (Mellanox, NVIDIA networking): ConnectX and BlueField "
         "network functions are RDMA-capable (RoCE or InfiniBand)"},
};

static const char *rdma_name_of(const struct p2ps_host *h, const struct p2ps_dev *d)
{
	for (int i = 0; h->rdma.known && i < h->rdma.n_devs; i++)
		if (p2ps_bdf_equal(&h->rdma.devs[i].bdf, &d->bdf))
			return h->rdma.devs[i].name;
	return NULL;
}

static bool is_rdma_dev(const struct p2ps_host *h, const struct p2ps_dev *d)
{
	if (p2ps_dev_is_nvidia_gpu(d) || p2ps_dev_is_bridge(d))
		return false;
	if (rdma_name_of(h, d))
		return true;
	for (size_t i = 0; i < sizeof(rdma_ids) / sizeof(rdma_ids[0]); i++)
		if ((!rdma_ids[i].vendor || rdma_ids[i].vendor == d->vendor_id) &&
		    ((d->class_code >> 8) & rdma_ids[i].class_mask) == rdma_ids[i].class_want)
			return true;
	return false;
}

static bool is_extra_peer(const struct p2ps_analysis_opts *o, const struct p2ps_dev *d)
{
	for (size_t k = 0; o && k < o->n_peers; k++)
		if (p2ps_bdf_equal(&o->peers[k], &d->bdf))
			return !p2ps_dev_is_nvidia_gpu(d);
	return false;
}

static void label(const struct p2ps_host *h, const struct p2ps_gdr_pair *p, char *buf, size_t n)
{
	const struct p2ps_dev *d = &h->devs[p->dev_idx];
	if (p->rdma_name)
		snprintf(buf, n, "%s %s", p->rdma_name, d->bdf_str);
	else
		snprintf(buf, n, "%s", d->bdf_str);
}

/* 5.4: "PCIe switches only" is best; "single CPU/IOH" works with poor peer reads on some
 * CPUs; "CPU/IOH <-> QPI/HT <-> CPU/IOH" may not work reliably at all. */
static void gdr_path(struct p2ps_an_ctx *c, struct p2ps_gdr_pair *p, const char *what)
{
	switch (p->topo) {
	case P2PS_TOPO_PIX:
	case P2PS_TOPO_PXB:
		p2ps_an_add(c, &p->reasons, P2PS_R_GDR_PATH, P2PS_SEV_INFO, -1,
		            "only PCIe switches between the GPU and %s (%s): the best case "
		            "(GPUDirect RDMA guide 5.4)",
		            what, p2ps_topo_name(p->topo));
		break;
	case P2PS_TOPO_PHB:
	case P2PS_TOPO_NODE: {
		struct p2ps_reason *x = p2ps_an_add(
		        c, &p->reasons, P2PS_R_GDR_PATH, P2PS_SEV_WARNING, -1,
		        "the path to %s crosses the CPU's root complex (%s): it works, but peer "
		        "reads can be slow on some CPUs (guide 5.4)",
		        what, p2ps_topo_name(p->topo));
		p2ps_an_fix(x, "put the device in a slot under the same PCIe switch as the GPU");
		break;
	}
	case P2PS_TOPO_SYS: {
		struct p2ps_reason *x = p2ps_an_add(
		        c, &p->reasons, P2PS_R_GDR_PATH, P2PS_SEV_BLOCKER, -1,
		        "the GPU and %s hang off different CPU sockets (SYS): across QPI/UPI/HT "
		        "GPUDirect RDMA may be very slow or not work reliably (guide 5.4)",
		        what);
		p2ps_an_fix(x, "use a GPU and a device of the same socket (nvidia-smi topo -m), or "
		               "move the device to a slot of the GPU's socket");
		break;
	}
	default:
		p2ps_an_add(c, &p->reasons, P2PS_R_TOPOLOGY_UNKNOWN, P2PS_SEV_UNKNOWN, -1,
		            "the path between the GPU and %s is unknown: the PCI tree or NUMA "
		            "facts are missing",
		            what);
	}
}

/* 5.4, IOMMUs: all physical addresses must be the same from every device's point of
 * view, so the IOMMU must be off or pass-through for both devices. */
static void gdr_iommu(struct p2ps_an_ctx *c, struct p2ps_gdr_pair *p, const struct p2ps_dev *gpu,
                      const struct p2ps_dev *dev)
{
	const struct p2ps_dev *ends[2] = {gpu, dev};
	for (int k = 0; k < 2; k++) {
		enum p2ps_iommu_mode m = p2ps_an_iommu_mode(c->host, ends[k]);
		if (m == P2PS_IOMMU_OFF || m == P2PS_IOMMU_IDENTITY)
			continue;
		if (m == P2PS_IOMMU_UNKNOWN) {
			p2ps_an_add(c, &p->reasons, P2PS_R_IOMMU_UNKNOWN, P2PS_SEV_UNKNOWN,
			            ends[k] - c->host->devs, "IOMMU mode of %s unknown",
			            ends[k]->bdf_str);
			continue;
		}
		struct p2ps_reason *x = p2ps_an_add(
		        c, &p->reasons, P2PS_R_IOMMU_TRANSLATING, P2PS_SEV_BLOCKER,
		        ends[k] - c->host->devs,
		        "the IOMMU %s %s's DMA: GPUDirect RDMA needs it off or 1:1 (guide 5.4)",
		        m == P2PS_IOMMU_TRANSLATING ? "translates" : "controls", ends[k]->bdf_str);
		p2ps_an_fix(x, "%s", p2ps_an_iommu_fix(c->host->iommu.kind));
	}
}

static bool open_modules(const struct p2ps_host *h)
{
	return h->nvidia.proc_known && strstr(h->nvidia.proc_version, "Open Kernel Module");
}

/* 6.7: nvidia-peermem gives Mellanox HCAs peer access; no service loads it. The dma-buf
 * path (4.1.2: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED) needs no module but the open kernel
 * modules and a kernel with dma-buf peer support (5.12 and later). */
static void gdr_peer_memory(struct p2ps_an_ctx *c, struct p2ps_gdr_pair *p)
{
	const struct p2ps_host *h = c->host;
	if (!h->rdma.known) {
		p2ps_an_add(c, &p->reasons, P2PS_R_GDR_PEER_MEMORY, P2PS_SEV_UNKNOWN, -1,
		            "whether nvidia-peermem is loaded is unknown from a %s",
		            h->backend_name);
		return;
	}
	if (h->rdma.nvidia_peermem) {
		p2ps_an_add(c, &p->reasons, P2PS_R_GDR_PEER_MEMORY, P2PS_SEV_INFO, -1,
		            "nvidia-peermem is loaded (guide 6.7)");
		return;
	}
	if (h->rdma.nv_peer_mem) {
		struct p2ps_reason *x = p2ps_an_add(
		        c, &p->reasons, P2PS_R_GDR_PEER_MEMORY, P2PS_SEV_WARNING, -1,
		        "the out-of-tree nv_peer_mem is loaded: deprecated since R470, and without "
		        "persistent mappings (guide 4.2, 6.7)");
		p2ps_an_fix(x, "stop the nv_peer_mem service, then modprobe nvidia-peermem");
		return;
	}
	if (open_modules(h) && p2ps_an_version_at_least(h->kernel, 5, 12)) {
		p2ps_an_add(
		        c, &p->reasons, P2PS_R_GDR_PEER_MEMORY, P2PS_SEV_INFO, -1,
		        "nvidia-peermem is not loaded; the open kernel modules on kernel %s can "
		        "export GPU memory as dma-buf, which applications that ask for it "
		        "(NCCL, UCX, perftest --use_cuda_dmabuf) use instead",
		        h->kernel);
		return;
	}
	struct p2ps_reason *x = p2ps_an_add(
	        c, &p->reasons, P2PS_R_GDR_PEER_MEMORY, P2PS_SEV_BLOCKER, -1,
	        "nvidia-peermem is not loaded and dma-buf is not available (%s%s): no path lets "
	        "the device pin GPU memory",
	        open_modules(h) ? "kernel " : "proprietary kernel modules",
	        open_modules(h) ? h->kernel : "");
	p2ps_an_fix(x, "modprobe nvidia-peermem as root (no service loads it: guide 6.7), or "
	               "use the open kernel modules on a 5.12+ kernel for dma-buf");
}

/* The driver's version as major.minor.patch from /proc/driver/nvidia/version or NVML. */
static bool driver_version(const struct p2ps_host *h, struct p2ps_nv_version *v)
{
	const char *s = h->nvidia.proc_driver_version[0] ? h->nvidia.proc_driver_version
	                                                 : h->nvidia.nvml_driver_version;
	return p2ps_nv_version_scan(s, v) && v->parts >= 2;
}

/* The driver table's known defect: nvidia_p2p_put_pages racing the free callback. */
static void gdr_driver(struct p2ps_an_ctx *c, struct p2ps_gdr_pair *p)
{
	struct p2ps_nv_version v;
	if (!driver_version(c->host, &v))
		return;
	for (size_t i = 0; i < p2ps_nv_defect_count(); i++) {
		const struct p2ps_nv_defect *d = p2ps_nv_defect_at(i);
		if (d->id != P2PS_NV_DEFECT_GDR_PUT_PAGES_RACE || !p2ps_nv_defect_affects(d, &v))
			continue;
		struct p2ps_reason *x =
		        p2ps_an_add(c, &p->reasons, P2PS_R_GDR_DRIVER_RACE, P2PS_SEV_WARNING, -1,
		                    "driver %u.%u.%u has %s", v.series, v.minor, v.patch, d->what);
		p2ps_an_fix(x, "%s", d->fix);
		return;
	}
}

/* 5.5 and 6.1: BAR1 is what GPUDirect RDMA mappings are pinned in; the driver keeps some. */
static void gdr_bar1(struct p2ps_an_ctx *c, struct p2ps_gdr_pair *p,
                     const struct p2ps_gpu_report *g)
{
	char sz[32];
	if (!g->bar1_size_known)
		return;
	p2ps_size_format(g->bar1_size, sz, sizeof(sz));
	struct p2ps_reason *x = p2ps_an_add(
	        c, &p->reasons, P2PS_R_GDR_BAR1,
	        g->bar1_size <= (256ull << 20) ? P2PS_SEV_WARNING : P2PS_SEV_INFO, -1,
	        "BAR1 is %s: GPU memory pinned for GPUDirect RDMA at one time stays below that "
	        "(guide 5.5; nvidia-smi -q shows BAR1 Memory Usage)",
	        sz);
	if (g->bar1_size <= (256ull << 20))
		p2ps_an_fix(x, "enable Resizable BAR / Above 4G Decoding in the firmware setup");
}

/* NCCL (src/graph/paths.cc, ncclTopoCheckGdr): GPUDirect RDMA for a GPU-NIC pair when their
 * path is no farther than NCCL_NET_GDR_LEVEL (default PXB); NCCL_NET_GDR_LEVEL names or the
 * old numbers. Only for RDMA devices: NCCL's network plugins use no other. */
static void gdr_nccl(struct p2ps_an_ctx *c, struct p2ps_gdr_pair *p, bool rdma)
{
	if (!rdma)
		return;
	int rank = p2ps_an_nccl_rank(p->topo);
	if (rank < 0) {
		p->nccl_gdr = -1;
		return;
	}
	const char *lv = p2ps_an_nccl_var(c->host, "NCCL_NET_GDR_LEVEL");
	int level = p2ps_an_nccl_level(lv);
	const char *why = lv && level >= 0 ? "NCCL_NET_GDR_LEVEL" : "NCCL's default";
	if (level < 0)
		level = P2PS_NCCL_PXB;
	p->nccl_gdr = rank <= level;
	struct p2ps_reason *x =
	        p2ps_an_add(c, &p->reasons, P2PS_R_GDR_NCCL, P2PS_SEV_INFO, -1,
	                    "NCCL %s GPUDirect RDMA for this pair: path %s %s level %s (%s)",
	                    p->nccl_gdr ? "uses" : "does not use", p2ps_topo_name(p->topo),
	                    p->nccl_gdr ? "within" : "beyond", p2ps_an_nccl_level_name(level), why);
	if (!p->nccl_gdr)
		p2ps_an_fix(x,
		            "NCCL_NET_GDR_LEVEL=%s makes NCCL use it (at the speed the path "
		            "allows)",
		            p2ps_an_nccl_level_name(rank));
}

static void gdr_pair(struct p2ps_an_ctx *c, struct p2ps_gdr_pair *p)
{
	const struct p2ps_host *h = c->host;
	const struct p2ps_gpu_report *g = &c->a->gpus[p->gpu];
	const struct p2ps_dev *gpu = &h->devs[g->dev_idx], *dev = &h->devs[p->dev_idx];
	char what[64];
	label(h, p, what, sizeof(what));
	p->nccl_gdr = -1;
	p->topo = p2ps_topo_classify(h, g->dev_idx, p->dev_idx, &p->lca_idx, p->turn);
	gdr_path(c, p, what);
	if (p->topo != P2PS_TOPO_UNKNOWN && p->topo != P2PS_TOPO_SYS)
		p2ps_an_path_acs(c, &p->reasons, p->lca_idx, p->turn);
	gdr_iommu(c, p, gpu, dev);
	gdr_peer_memory(c, p);
	gdr_driver(c, p);
	gdr_bar1(c, p, g);
	gdr_nccl(c, p, is_rdma_dev(h, dev));
	p2ps_an_reasons_sort(&p->reasons);
	p->verdict = p2ps_an_verdict(&p->reasons);
}

void p2ps_an_gdr(struct p2ps_an_ctx *c, const struct p2ps_analysis_opts *opts)
{
	const struct p2ps_host *h = c->host;
	struct p2ps_analysis *a = c->a;
	size_t n_gpu = 0, n_dev = 0;
	for (size_t i = 0; i < a->n_gpus; i++)
		n_gpu += a->gpus[i].is_gpu;
	for (size_t i = 0; i < h->n_devs; i++) {
		bool rdma = is_rdma_dev(h, &h->devs[i]);
		a->n_rdma_devs += rdma;
		n_dev += rdma || is_extra_peer(opts, &h->devs[i]);
	}
	if (!n_gpu || !n_dev)
		return;
	a->gdr = calloc(n_gpu * n_dev, sizeof(*a->gdr));
	if (!a->gdr) {
		c->oom = true;
		return;
	}
	for (size_t gi = 0; gi < a->n_gpus; gi++) {
		if (!a->gpus[gi].is_gpu)
			continue;
		for (size_t i = 0; i < h->n_devs && !c->oom; i++) {
			if (!is_rdma_dev(h, &h->devs[i]) && !is_extra_peer(opts, &h->devs[i]))
				continue;
			struct p2ps_gdr_pair *p = &a->gdr[a->n_gdr++];
			p->gpu = (int)gi;
			p->dev_idx = (int)i;
			p->rdma_name = rdma_name_of(h, &h->devs[i]);
			gdr_pair(c, p);
		}
	}
}

void p2ps_an_gdr_free(struct p2ps_analysis *a)
{
	for (size_t i = 0; a->gdr && i < a->n_gdr; i++)
		p2ps_an_reasons_free(&a->gdr[i].reasons);
	free(a->gdr);
}
