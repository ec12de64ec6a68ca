/* SPDX-License-Identifier: MIT */
/* bar-inspect --nccl-topo: the host's PCI tree in NCCL's XML topology format, the file
 * NCCL_TOPO_FILE reads and NCCL_TOPO_DUMP_FILE writes (NCCL src/graph/xml.cc,
 * ncclTopoXmlLoadSystem and the handlers below it; src/graph/topo.cc, ncclTopoAddCpu,
 * ncclTopoAddPci, ncclTopoAddGpu, ncclTopoAddNvLinks read the attributes).
 *
 *   <system version="1" name="...">
 *     <cpu numaid=N [arch vendor familyid modelid]>       one per NUMA node
 *       <pci busid class vendor device subsystem_vendor subsystem_device
 *            link_speed link_width>                       every bridge on a path, nested
 *         <pci ...>                                       a GPU
 *           <gpu dev sm rank>                             NVML index order
 *             <nvlink target count tclass/>
 *         <pci .../>                                      a NIC (NCCL's net plugin adds <nic>)
 *
 * What the model does not know is left out, and NCCL fills it in from the machine it runs
 * on (ncclTopoGetXmlFromCpu, ncclTopoGetXmlFromSys, ncclTopoGetXmlFromGpu only read what
 * is missing): the CPU's affinity, and gdr, which NCCL sets per rank (topo.cc
 * ncclTopoGetSystem, xmlInitAttrInt "gdr"). The format has no escapes: names only hold
 * characters that need none. */
#include "p2pscope/render.h"
#include "render_internal.h"

#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"

#define NCCL_TOPO_XML_VERSION 1 /* src/graph/xml.h NCCL_TOPO_XML_VERSION */

/* NVLink ends NCCL cannot see: the switch of an HGX board (xml.cc
 * ncclTopoGetXmlFromGpu's sentinel and PCI_NVSWITCH_CLASS, xml.h). */
#define NCCL_NVSWITCH_TARGET "fffffff:ffff:ff"
#define NCCL_NVSWITCH_CLASS  "0x068000"

/* Link speeds as NCCL spells them: the LnkCap/LnkSta code (host.h) to the strings of
 * topo.cc kvDictPciGen (the sysfs max_link_speed spelling of Linux >= 5.7). */
static const char *const pcie_speed_names[] = {
        "",
        "2.5 GT/s PCIe",
        "5.0 GT/s PCIe",
        "8.0 GT/s PCIe",
        "16.0 GT/s PCIe",
        "32.0 GT/s PCIe",
        "64.0 GT/s PCIe",
};

/* CUDA compute capability (major * 10 + minor, NCCL's "sm") per chip family, from the
 * CUDA C++ Programming Guide's table of compute capabilities; a chip named in the first
 * column wins over its family. */
static const struct {
	const char *chip; /* a chip name, or NULL */
	const char *arch; /* the chip table's family prefix, or NULL */
	int sm;
} compute_caps[] = {
        {"GB20B", NULL, 121}, /* GB10 */
        {NULL, "gm10x", 50},  {NULL, "gm20x", 52}, {NULL, "gp100", 60},  {NULL, "gp10x", 61},
        {NULL, "gv100", 70},  {NULL, "tu10x", 75}, {NULL, "ga100", 80},  {NULL, "ga10x", 86},
        {NULL, "ad10x", 89},  {NULL, "gh100", 90}, {NULL, "gb100", 100}, {NULL, "gb110", 103},
        {NULL, "gb20x", 120},
};

static int chip_sm(const struct p2ps_nvidia_chip *c)
{
	if (!c)
		return -1;
	for (size_t i = 0; i < sizeof(compute_caps) / sizeof(compute_caps[0]); i++)
		if (compute_caps[i].chip && !strcmp(compute_caps[i].chip, p2ps_nvidia_chip_name(c)))
			return compute_caps[i].sm;
	for (size_t i = 0; i < sizeof(compute_caps) / sizeof(compute_caps[0]); i++)
		if (compute_caps[i].arch && c->arch && !strcmp(compute_caps[i].arch, c->arch))
			return compute_caps[i].sm;
	return -1;
}

/* A device the file describes on its own: an NVIDIA GPU or a network controller. */
static bool is_leaf(const struct p2ps_dev *d)
{
	return p2ps_dev_is_nvidia_gpu(d) || (d->class_code >> 16) == 0x02;
}

/* The capability of the link between d and its upstream port, as NCCL reads it from
 * sysfs (xml.cc ncclTopoGetXmlFromSys: the lower of max_link_speed / max_link_width of
 * the device and of "..", its parent). */
static struct p2ps_link link_of(const struct p2ps_dev *d)
{
	struct p2ps_link l = d->pcie.cap;
	if (!l.speed && !l.width)
		l = d->pcie.sta;
	const struct p2ps_dev *p = d->parent;
	if (p && p->pcie.cap.speed && p->pcie.cap.speed < l.speed)
		l.speed = p->pcie.cap.speed;
	if (p && p->pcie.cap.width && p->pcie.cap.width < l.width)
		l.width = p->pcie.cap.width;
	return l;
}

struct topo_ctx {
	struct p2ps_strbuf *b;
	const struct p2ps_analysis *a;
	const bool *want;
	const int *gpu_ordinal; /* NVML index per device, -1 for others */
};

static void indent(struct p2ps_strbuf *b, int depth)
{
	p2ps_strbuf_printf(b, "%*s", depth * 2, "");
}

static void nvlinks(struct topo_ctx *t, const struct p2ps_dev *d, int depth)
{
	const struct p2ps_gpu_facts *g = &d->gpu;
	if (g->nvswitch_links > 0) {
		indent(t->b, depth);
		p2ps_strbuf_printf(t->b, "<nvlink target=\"%s\" count=\"%d\" tclass=\"%s\"/>\n",
		                   NCCL_NVSWITCH_TARGET, g->nvswitch_links, NCCL_NVSWITCH_CLASS);
		return;
	}
	for (int k = 0; k < g->n_nvlink_peers && k < P2PS_HOST_MAX_NVLINK; k++) {
		const struct p2ps_nvlink_peer *p = &g->nvlink_peers[k];
		const struct p2ps_dev *far = p2ps_host_find(t->a->host, &p->bdf);
		char bdf[16];
		p2ps_bdf_format(&p->bdf, bdf, sizeof(bdf));
		indent(t->b, depth);
		p2ps_strbuf_printf(t->b, "<nvlink target=\"%s\" count=\"%d\" tclass=\"", bdf,
		                   p->links);
		if (far)
			p2ps_strbuf_printf(t->b, "0x%06x\"/>\n", (unsigned)far->class_code);
		else
			p2ps_strbuf_printf(t->b, "%s\"/>\n", NCCL_NVSWITCH_CLASS);
	}
}

static void gpu_element(struct topo_ctx *t, int idx, int depth)
{
	const struct p2ps_dev *d = &t->a->host->devs[idx];
	int ord = t->gpu_ordinal[idx];
	int sm = chip_sm(d->chip);
	indent(t->b, depth);
	p2ps_strbuf_printf(t->b, "<gpu dev=\"%d\"", ord);
	if (sm > 0)
		p2ps_strbuf_printf(t->b, " sm=\"%d\"", sm);
	p2ps_strbuf_printf(t->b, " rank=\"%d\"", ord);
	bool links = d->gpu.nvswitch_links > 0 || d->gpu.n_nvlink_peers > 0;
	if (!links) {
		p2ps_strbuf_puts(t->b, "/>\n");
		return;
	}
	p2ps_strbuf_puts(t->b, ">\n");
	nvlinks(t, d, depth + 1);
	indent(t->b, depth);
	p2ps_strbuf_puts(t->b, "</gpu>\n");
}

static bool has_children(const struct topo_ctx *t, int idx)
{
	const struct p2ps_host *h = t->a->host;
	for (size_t i = 0; i < h->n_devs; i++)
		if (t->want[i] && h->devs[i].parent_idx == idx)
			return true;
	return false;
}

static void pci_element(struct topo_ctx *t, int idx, int depth)
{
	const struct p2ps_host *h = t->a->host;
	const struct p2ps_dev *d = &h->devs[idx];
	struct p2ps_link l = link_of(d);
	const char *speed = l.speed < sizeof(pcie_speed_names) / sizeof(pcie_speed_names[0])
	                            ? pcie_speed_names[l.speed]
	                            : "";
	indent(t->b, depth);
	p2ps_strbuf_printf(t->b,
	                   "<pci busid=\"%s\" class=\"0x%06x\" vendor=\"0x%04x\" device=\"0x%04x\" "
	                   "subsystem_vendor=\"0x%04x\" subsystem_device=\"0x%04x\" "
	                   "link_speed=\"%s\" link_width=\"",
	                   d->bdf_str, (unsigned)d->class_code, d->vendor_id, d->device_id,
	                   d->subsys_vendor_id, d->subsys_id, speed);
	if (l.width)
		p2ps_strbuf_printf(t->b, "%u", l.width);
	bool gpu = t->gpu_ordinal[idx] >= 0;
	bool kids = has_children(t, idx);
	if (!gpu && !kids) {
		p2ps_strbuf_puts(t->b, "\"/>\n");
		return;
	}
	p2ps_strbuf_puts(t->b, "\">\n");
	if (gpu)
		gpu_element(t, idx, depth + 1);
	for (size_t i = 0; i < h->n_devs; i++)
		if (t->want[i] && h->devs[i].parent_idx == idx)
			pci_element(t, (int)i, depth + 1);
	indent(t->b, depth);
	p2ps_strbuf_puts(t->b, "</pci>\n");
}

/* The NUMA node a top-level device's CPU element has: its own, else -1 (NCCL's "no
 * NUMA information", as in a VM). */
static int top_numa(const struct p2ps_dev *d)
{
	return d->numa_node >= 0 ? d->numa_node : -1;
}

static void cpu_element(struct topo_ctx *t, int numa)
{
	const struct p2ps_host *h = t->a->host;
	const struct p2ps_host_cpu *c = &h->cpu;
	p2ps_strbuf_printf(t->b, "  <cpu numaid=\"%d\"", numa);
	if (c->known) {
		p2ps_strbuf_printf(t->b, " arch=\"%s\"", c->arch);
		/* NCCL's values have no quotes or markup; a capture's text might. */
		if (c->vendor[0] && !strpbrk(c->vendor, "\"'<>&"))
			p2ps_strbuf_printf(t->b, " vendor=\"%s\"", c->vendor);
		if (c->family >= 0 && c->model >= 0)
			p2ps_strbuf_printf(t->b, " familyid=\"%d\" modelid=\"%d\"", c->family,
			                   c->model);
	}
	p2ps_strbuf_puts(t->b, ">\n");
	for (size_t i = 0; i < h->n_devs; i++)
		if (t->want[i] && h->devs[i].parent_idx < 0 && top_numa(&h->devs[i]) == numa)
			pci_element(t, (int)i, 2);
	p2ps_strbuf_puts(t->b, "  </cpu>\n");
}

/* The system element's name: the host name when it needs no escaping. */
static void system_name(struct p2ps_strbuf *b, const struct p2ps_host *h,
                        const struct p2ps_render_opts *o)
{
	p2ps_strbuf_printf(b, " name=\"bar-inspect%s%s", o && o->version ? " " : "",
	                   o && o->version ? o->version : "");
	bool plain = h->hostname[0] != '\0';
	for (const char *s = h->hostname; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_",
		            *s))
			plain = false;
	if (plain)
		p2ps_strbuf_printf(b, " %s", h->hostname);
	p2ps_strbuf_puts(b, "\"");
}

/* Marks the devices to describe (GPUs, NICs, -s) and every bridge above them; numbers
 * the NVIDIA GPUs in bus order, as NVML does. */
static void select_devices(const struct p2ps_host *h, const struct p2ps_render_opts *o, bool *want,
                           int *ordinal)
{
	int n = 0;
	for (size_t i = 0; i < h->n_devs; i++) {
		const struct p2ps_dev *d = &h->devs[i];
		ordinal[i] = p2ps_dev_is_nvidia_gpu(d) ? n++ : -1;
		if (!is_leaf(d) || (o && o->filter && !p2ps_slot_match(o->filter, &d->bdf)))
			continue;
		want[i] = true;
		int p = d->parent_idx, depth = 0;
		while (p >= 0 && (size_t)p < h->n_devs && depth++ < P2PS_PATH_MAX) {
			want[p] = true;
			p = h->devs[p].parent_idx;
		}
	}
	/* A device whose bridge chain loops has no top: it is left out. */
	for (size_t i = 0; i < h->n_devs; i++) {
		int p = (int)i, depth = 0;
		while (want[i] && h->devs[p].parent_idx >= 0 && depth++ < P2PS_PATH_MAX)
			p = h->devs[p].parent_idx;
		if (depth > P2PS_PATH_MAX)
			want[i] = false;
	}
}

int p2ps_render_nccl_topo(const struct p2ps_analysis *a, const struct p2ps_render_opts *o,
                          struct p2ps_strbuf *b, struct p2ps_error *err)
{
	const struct p2ps_host *h = a->host;
	size_t n = h->n_devs ? h->n_devs : 1;
	bool *want = calloc(n, sizeof(*want));
	int *ordinal = calloc(n, sizeof(*ordinal));
	if (!want || !ordinal) {
		free(want);
		free(ordinal);
		return p2ps_error_set(err, P2PS_ENOMEM, "nccl-topo: out of memory");
	}
	select_devices(h, o, want, ordinal);
	struct topo_ctx t = {b, a, want, ordinal};
	p2ps_strbuf_printf(b, "<system version=\"%d\"", NCCL_TOPO_XML_VERSION);
	system_name(b, h, o);
	p2ps_strbuf_puts(b, ">\n");
	/* One CPU element per NUMA node, in the order the nodes first appear. */
	for (size_t i = 0; i < h->n_devs; i++) {
		if (!want[i] || h->devs[i].parent_idx >= 0)
			continue;
		int numa = top_numa(&h->devs[i]);
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			if (want[j] && h->devs[j].parent_idx < 0 && top_numa(&h->devs[j]) == numa)
				seen = true;
		if (!seen)
			cpu_element(&t, numa);
	}
	p2ps_strbuf_puts(b, "</system>\n");
	free(want);
	free(ordinal);
	if (b->oom)
		return p2ps_error_set(err, P2PS_ENOMEM, "nccl-topo: out of memory");
	return 0;
}
