/* SPDX-License-Identifier: MIT */
/* NVIDIA facts through the driver's RM API (p2psrm): one client, one device and subdevice
 * per GPU of the model, read-only controls only, everything freed before returning (the
 * client's tree in one RM_FREE). Per GPU: chip, FB and BAR1 sizes, static BAR1, NVLink links
 * and their far ends; per pair: the driver's P2P caps per path (GET_P2P_CAPS_V2); once: the
 * CPU and chipset the driver recognised. NVLink peers follow the NVML backend's rule, so both give
 * the same model: a link whose far end is a GPU of the model counts for that GPU; links
 * to an NVSwitch connect every pair whose NVLink P2P status is OK, counted as the smaller
 * number of fabric links. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"
#include "p2pscope/host_load.h"
#include "p2pscope/rm.h"
#include "p2pscope/rm_ctrl.h"

#define RM_MAX_GPUS P2PS_RM_MAX_CARDS

struct rm_gpu {
	struct p2ps_rm_gpu g;
	struct p2ps_dev *dev;
	int fabric_links;
};

static void add_peer(struct p2ps_gpu_facts *g, const struct p2ps_bdf *bdf, int links)
{
	int k;
	for (k = 0; k < g->n_nvlink_peers; k++)
		if (p2ps_bdf_equal(&g->nvlink_peers[k].bdf, bdf))
			break;
	if (k == P2PS_HOST_MAX_NVLINK)
		return;
	if (k == g->n_nvlink_peers) {
		g->nvlink_peers[k] = (struct p2ps_nvlink_peer){*bdf, 0};
		g->n_nvlink_peers++;
	}
	g->nvlink_peers[k].links += links;
}

static void fb_facts(struct p2ps_rm *rm, struct rm_gpu *x)
{
	struct p2ps_gpu_facts *f = &x->dev->gpu;
	struct p2ps_rm_fb_info fb;
	if (p2ps_rm_ctrl_fb_info(rm, x->g.subdevice, &fb, NULL, NULL) == 0) {
		struct p2ps_gpu_rm *r = &f->rm;
		r->fb_known = true;
		r->fb_ram = fb.ram_kib << 10;
		r->fb_total_ram = fb.total_ram_kib << 10;
		r->fb_usable = fb.usable_ram_kib << 10;
		r->fb_heap = fb.heap_kib << 10;
		r->fb_heap_free = fb.heap_free_kib << 10;
		r->fb_tax = fb.fb_tax_kib << 10;
		/* nvidia-smi -q's FB Total is the total, its Reserved what the heap leaves of it
		 * (143771 and 616 MiB on a 2 x H200 host, 580.159.04: TOTAL_RAM_SIZE and
		 * TOTAL_RAM_SIZE - HEAP_SIZE; USABLE_RAM_SIZE was 143497). */
		r->fb_reserved = r->fb_total_ram > r->fb_heap ? r->fb_total_ram - r->fb_heap : 0;
		r->bar1_avail = fb.bar1_avail_kib << 10;
		f->vram_known = true;
		f->vram_bytes = r->fb_total_ram;
		f->bar1_known = true;
		f->bar1_total_bytes = fb.bar1_kib << 10;
	}
	struct p2ps_rm_static_bar1 sb;
	struct p2ps_error e = {0};
	uint32_t st = 0;
	if (p2ps_rm_ctrl_static_bar1(rm, x->g.subdevice, &sb, &st, &e) == 0) {
		f->rm.static_bar1_known = true;
		f->rm.static_bar1 = sb.enabled;
		f->rm.static_bar1_size = sb.size;
	} else {
		p2ps_strlcpy(f->rm.static_bar1_status, e.msg, sizeof(f->rm.static_bar1_status));
	}
}

static void nvlink_facts(struct p2ps_host *host, struct p2ps_rm *rm, struct rm_gpu *x)
{
	struct p2ps_gpu_facts *f = &x->dev->gpu;
	struct p2ps_rm_nvlink_status ns;
	if (p2ps_rm_ctrl_nvlink_status(rm, x->g.subdevice, &ns, NULL, NULL))
		return; /* no NVLink on this GPU (the driver says NOT_SUPPORTED) */
	f->nvlink_known = true;
	for (unsigned i = 0; i < ns.n && f->rm.n_links < P2PS_HOST_MAX_NVLINK; i++) {
		const struct p2ps_rm_nvlink *l = &ns.links[i];
		struct p2ps_nvlink_link *o = &f->rm.links[f->rm.n_links++];
		*o = (struct p2ps_nvlink_link){
		        .link = (int)l->link,
		        .state = l->state,
		        .remote_type = l->remote_type,
		        .remote = {l->remote_domain, (uint8_t)l->remote_bus,
		                   (uint8_t)l->remote_device, (uint8_t)l->remote_function},
		        .remote_link = l->remote_link,
		};
		p2ps_strlcpy(o->state_name, p2ps_rm_nvlink_state_name(l->state),
		             sizeof(o->state_name));
		p2ps_strlcpy(o->remote_type_name, p2ps_rm_nvlink_dev_type_name(l->remote_type),
		             sizeof(o->remote_type_name));
		/* A link in a low-power state (SLEEP: L1) is up and trained; NVML counts it
		 * active too (on the 2 x H200 host 34 of 36 links slept between transfers). */
		if (l->state != P2PS_RM_NVLINK_STATE_ACTIVE &&
		    l->state != P2PS_RM_NVLINK_STATE_SLEEP)
			continue;
		struct p2ps_bdf rb = o->remote;
		rb.fn = 0;
		const struct p2ps_dev *far = p2ps_host_find(host, &rb);
		if (l->remote_type != P2PS_RM_NVLINK_DEV_GPU || !far ||
		    !p2ps_dev_is_nvidia_gpu(far))
			x->fabric_links++;
		else
			add_peer(f, &rb, 1);
	}
}

/* Opens the GPU of card c when the model has it, and reads its facts. */
static bool gpu_facts(struct p2ps_host *host, struct p2ps_rm *rm, const struct p2ps_rm_card *c,
                      struct rm_gpu *x)
{
	struct p2ps_bdf bdf = {c->domain, c->bus, c->slot, c->function};
	struct p2ps_dev *d = p2ps_host_find(host, &bdf);
	if (!d || !p2ps_dev_is_nvidia_gpu(d))
		return false;
	struct p2ps_error e = {0};
	if (p2ps_rm_gpu_open(rm, c, &x->g, &e)) {
		p2ps_strlcpy(d->unknown[P2PS_FACT_VRAM], e.msg, sizeof(d->unknown[P2PS_FACT_VRAM]));
		return false;
	}
	x->dev = d;
	struct p2ps_gpu_facts *f = &d->gpu;
	f->source = P2PS_GPU_SRC_RM;
	f->rm.known = true;
	f->rm.gpu_id = c->gpu_id;
	f->rm.arch = x->g.arch;
	f->rm.impl = x->g.impl;
	p2ps_strlcpy(f->rm.chip, x->g.chip, sizeof(f->rm.chip));
	/* CARD_INFO's ids (BUS_GET_PCI_INFO would ask the same of the GPU's firmware). */
	f->rm.pci_device_id = c->device_id;
	fb_facts(rm, x);
	nvlink_facts(host, rm, x);
	return true;
}

static void system_facts(struct p2ps_host_rm *h, struct p2ps_rm *rm)
{
	struct p2ps_rm_cpu_info cpu;
	if (p2ps_rm_ctrl_cpu_info(rm, &cpu, NULL, NULL) == 0) {
		h->cpu_known = true;
		h->cpu_type = cpu.type;
		const char *n = p2ps_rm_cpu_type_name(cpu.type);
		if (n)
			p2ps_strlcpy(h->cpu_type_name, n, sizeof(h->cpu_type_name));
		else
			snprintf(h->cpu_type_name, sizeof(h->cpu_type_name), "0x%" PRIx32,
			         cpu.type);
		p2ps_strlcpy(h->cpu_name, cpu.name, sizeof(h->cpu_name));
		h->cpu_clock_mhz = cpu.clock_mhz;
		h->cpu_logical = cpu.logical;
		h->cpu_physical = cpu.physical;
		h->cpu_family = cpu.family;
		h->cpu_model = cpu.model;
	}
	struct p2ps_rm_chipset_info cs;
	if (p2ps_rm_ctrl_chipset_info(rm, &cs, NULL, NULL) == 0) {
		h->chipset_known = true;
		h->chipset_vendor = cs.vendor_id;
		h->chipset_device = cs.device_id;
		h->hb_vendor = cs.hb_vendor_id;
		h->hb_device = cs.hb_device_id;
		p2ps_strlcpy(h->chipset_vendor_name, cs.vendor_name,
		             sizeof(h->chipset_vendor_name));
		p2ps_strlcpy(h->chipset_name, cs.chipset_name, sizeof(h->chipset_name));
		h->chipset_flags = cs.flags;
	}
}

/* The group of all n GPUs in one GET_P2P_CAPS_V2: when its NVLink status is OK every pair
 * is NVLink-connected and each pair's answer is the group's (CliGetSystemP2pCaps decides the
 * status per path from the connectivity of the whole mask), so the pairs take it. */
static bool group_caps(struct p2ps_host *host, struct p2ps_rm *rm, struct rm_gpu *x, unsigned n)
{
	struct p2ps_host_rm *h = &host->nvidia.rm;
	uint32_t ids[RM_MAX_GPUS];
	for (unsigned i = 0; i < n; i++)
		ids[i] = x[i].g.card.gpu_id;
	struct p2ps_rm_p2p_group *g = calloc(1, sizeof(*g));
	bool ok = g && p2ps_rm_ctrl_p2p_caps_group(rm, ids, n, g, NULL, NULL) == 0 &&
	          g->status[P2PS_RM_P2P_NVLINK] == 0;
	for (unsigned i = 0; ok && i < n; i++)
		for (unsigned j = i + 1; j < n && h->n_p2p < P2PS_HOST_MAX_DRIVER_P2P; j++) {
			struct p2ps_driver_p2p *p = &h->p2p[h->n_p2p++];
			*p = (struct p2ps_driver_p2p){.a = x[i].dev->bdf,
			                              .b = x[j].dev->bdf,
			                              .known = true,
			                              .caps = g->caps,
			                              .peer_id_ab = g->peer_ids[i * n + j],
			                              .peer_id_ba = g->peer_ids[j * n + i],
			                              .from_group = true};
			memcpy(p->status, g->status, sizeof(p->status));
		}
	free(g);
	return ok;
}

/* NVLink through a fabric: the pair's NVLink status OK and both with fabric links. */
static void fabric_pair(struct rm_gpu *a, struct rm_gpu *b, const struct p2ps_driver_p2p *p)
{
	if (!p->known || p->status[P2PS_P2P_PATH_NVLINK] != 0 || !a->fabric_links ||
	    !b->fabric_links)
		return;
	int links = a->fabric_links < b->fabric_links ? a->fabric_links : b->fabric_links;
	add_peer(&a->dev->gpu, &b->dev->bdf, links);
	add_peer(&b->dev->gpu, &a->dev->bdf, links);
}

/* Per pair (PCI order): the group's answer (3 GPUs or more, all on NVLink), else
 * GET_P2P_CAPS_V2 for each pair. The matrix form (GET_P2P_CAPS_MATRIX) says less (no status
 * per path) and costs two firmware calls per GPU: it is not asked (matrix_known stays
 * false). */
static void pair_facts(struct p2ps_host *host, struct p2ps_rm *rm, struct rm_gpu *x, unsigned n)
{
	struct p2ps_host_rm *h = &host->nvidia.rm;
	int first = h->n_p2p;
	if (n < 3 || !group_caps(host, rm, x, n)) {
		h->n_p2p = first;
		for (unsigned i = 0; i < n; i++)
			for (unsigned j = i + 1; j < n && h->n_p2p < P2PS_HOST_MAX_DRIVER_P2P;
			     j++) {
				struct p2ps_driver_p2p *p = &h->p2p[h->n_p2p++];
				*p = (struct p2ps_driver_p2p){.a = x[i].dev->bdf,
				                              .b = x[j].dev->bdf};
				struct p2ps_rm_p2p_caps c;
				if (p2ps_rm_ctrl_p2p_caps(rm, x[i].g.card.gpu_id,
				                          x[j].g.card.gpu_id, &c, &p->rm_status,
				                          NULL) == 0) {
					p->known = true;
					p->caps = c.caps;
					memcpy(p->status, c.status, sizeof(p->status));
					p->peer_id_ab = c.peer_id_ab;
					p->peer_id_ba = c.peer_id_ba;
				} else {
					p2ps_rm_status_str(p->rm_status, p->rm_status_name,
					                   sizeof(p->rm_status_name));
				}
			}
	}
	int k = first;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n && k < h->n_p2p; j++)
			fabric_pair(&x[i], &x[j], &h->p2p[k++]);
}

/* The driver-decision model (analysis/driver_report.c) reads the driver's statuses from
 * host->driver_caps: the RM API's answer per pair and path (all nine indices), both ways. */
static int caps_slot(struct p2ps_host_driver_caps *dc, const struct p2ps_bdf *b)
{
	for (int i = 0; i < dc->n_gpus; i++)
		if (p2ps_bdf_equal(&dc->gpu[i], b))
			return i;
	if (dc->n_gpus >= P2PS_HOST_DRVCAPS_GPUS)
		return -1;
	dc->gpu[dc->n_gpus] = *b;
	dc->gpu_known[dc->n_gpus] = true;
	return dc->n_gpus++;
}

static void driver_caps_from_rm(struct p2ps_host *host)
{
	const struct p2ps_host_rm *h = &host->nvidia.rm;
	struct p2ps_host_driver_caps *dc = &host->driver_caps;
	memset(dc, 0, sizeof(*dc));
	memset(dc->st, 0xff, sizeof(dc->st));
	for (int k = 0; k < h->n_p2p; k++) {
		const struct p2ps_driver_p2p *p = &h->p2p[k];
		int a = caps_slot(dc, &p->a), b = caps_slot(dc, &p->b);
		if (!p->known || a < 0 || b < 0)
			continue;
		for (int i = 0; i < P2PS_P2P_PATHS && i < P2PS_HOST_DRVCAPS_INDEX; i++)
			dc->st[a][b][i] = dc->st[b][a][i] = p->status[i];
		dc->known = true;
	}
	if (dc->known)
		p2ps_strlcpy(dc->source, "RM GET_P2P_CAPS_V2", sizeof(dc->source));
	else
		memset(dc, 0, sizeof(*dc));
}

static void query(struct p2ps_host *host, struct p2ps_rm *rm, uint64_t *lap)
{
	struct rm_gpu gpus[RM_MAX_GPUS];
	struct p2ps_rm_card cards[P2PS_RM_MAX_CARDS];
	size_t n_cards = 0;
	unsigned n = 0;
	memset(gpus, 0, sizeof(gpus));
	struct p2ps_error e = {0};
	if (p2ps_rm_cards(rm, cards, P2PS_RM_MAX_CARDS, &n_cards, &e)) {
		p2ps_strlcpy(host->nvidia.rm_status, e.msg, sizeof(host->nvidia.rm_status));
		return;
	}
	*lap = p2ps_clock_ns();
	for (size_t i = 0; i < n_cards && n < RM_MAX_GPUS; i++)
		n += gpu_facts(host, rm, &cards[i], &gpus[n]);
	system_facts(&host->nvidia.rm, rm);
	pair_facts(host, rm, gpus, n);
	driver_caps_from_rm(host);
	*lap = p2ps_clock_ns();
}

int p2ps_rm_facts_fill(struct p2ps_host *host, const struct p2ps_rm_sys *sys)
{
	uint64_t lap = p2ps_clock_ns();
	struct p2ps_rm_sys live;
	struct p2ps_rm_linux ctx;
	if (!sys) {
		p2ps_rm_sys_linux(&live, &ctx, "", -1);
		sys = &live;
	}
	struct p2ps_host_nvidia *nv = &host->nvidia;
	struct p2ps_rm *rm;
	struct p2ps_error e = {0};
	if (p2ps_rm_open(&rm, sys, &e)) {
		p2ps_strlcpy(nv->rm_status, e.msg, sizeof(nv->rm_status));
		return -1;
	}
	p2ps_timings_lap(host->timings, "RM: version, /dev/nvidiactl, client", &lap);
	p2ps_rm_set_timings(rm, host->timings);
	/* Nothing is mapped: one RM_FREE of the client frees its devices and subdevices. */
	p2ps_rm_set_free_by_client(rm, true);
	p2ps_strlcpy(nv->rm_driver_version, p2ps_rm_driver(rm)->version,
	             sizeof(nv->rm_driver_version));
	query(host, rm, &lap);
	struct p2ps_rm_stats st;
	p2ps_rm_get_stats(rm, &st);
	nv->rm.controls = st.controls;
	struct p2ps_error e2 = {0};
	lap = p2ps_clock_ns();
	int rc = p2ps_rm_close(rm, NULL, &e2);
	if (rc && !nv->rm_status[0])
		p2ps_strlcpy(nv->rm_status, e2.msg, sizeof(nv->rm_status));
	nv->rm_loaded = !nv->rm_status[0];
	return nv->rm_loaded ? 0 : -1;
}

static void nvml_facts(struct p2ps_host *host, const struct p2ps_host_source *src)
{
	if (src->flags & P2PS_HOST_F_NVML_CACHE)
		p2ps_nvml_fill_cached(host);
	else
		p2ps_nvml_fill(host);
}

void p2ps_nvidia_facts_fill(struct p2ps_host *host, const struct p2ps_host_source *src)
{
	struct p2ps_host_nvidia *nv = &host->nvidia;
	enum p2ps_nvidia_facts mode = src->nvidia_facts;
	if (src->flags & P2PS_HOST_F_NO_NVML)
		mode = P2PS_NV_FACTS_NONE;
	if (src->rm_sys)
		mode = P2PS_NV_FACTS_RM; /* a recording or a replay is of the RM API */
	switch (mode) {
	case P2PS_NV_FACTS_NONE:
		p2ps_strlcpy(nv->facts_source, "none", sizeof(nv->facts_source));
		p2ps_strlcpy(nv->nvml_status, "NVML disabled by the caller",
		             sizeof(nv->nvml_status));
		return;
	case P2PS_NV_FACTS_NVML:
		p2ps_strlcpy(nv->facts_source, "nvml", sizeof(nv->facts_source));
		p2ps_strlcpy(nv->facts_note, "NVML, as asked", sizeof(nv->facts_note));
		nvml_facts(host, src);
		return;
	case P2PS_NV_FACTS_RM:
	case P2PS_NV_FACTS_AUTO: break;
	}
	if (p2ps_rm_facts_fill(host, src->rm_sys) == 0) {
		p2ps_strlcpy(nv->facts_source, "rm", sizeof(nv->facts_source));
		snprintf(nv->facts_note, sizeof(nv->facts_note),
		         "the driver's RM API (%s, %u controls)", nv->rm_driver_version,
		         nv->rm.controls);
		return;
	}
	if (mode == P2PS_NV_FACTS_RM) {
		p2ps_strlcpy(nv->facts_source, "none", sizeof(nv->facts_source));
		snprintf(nv->facts_note, sizeof(nv->facts_note), "none: the RM API failed: %.160s",
		         nv->rm_status);
		p2ps_strlcpy(nv->nvml_status, "NVML not asked (--nvidia-facts rm)",
		             sizeof(nv->nvml_status));
		return;
	}
	p2ps_strlcpy(nv->facts_source, "nvml", sizeof(nv->facts_source));
	snprintf(nv->facts_note, sizeof(nv->facts_note), "NVML, as the RM API failed: %.150s",
	         nv->rm_status);
	nvml_facts(host, src);
}
