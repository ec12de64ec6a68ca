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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "nvfacts.h"
#include "p2pscope/host_load.h"
#include "p2pscope/rm.h"
#include "p2pscope/rm_ctrl.h"

#define RM_MAX_GPUS P2PS_RM_MAX_CARDS

/* ---- the session: what the driver answered, before it meets the model ------------------
 *
 * Every call of the session goes to the GPUs' firmware under the driver's lock of all GPUs
 * (device and subdevice objects, NVLink status, P2P caps: no GPU_LOCK_DEVICE_ONLY flag in
 * 580's g_subdevice_nvoc.c and g_client_resource_nvoc.c), so the calls cannot overlap one
 * another; they can overlap everything else a report reads. The session therefore runs on
 * its own thread from the start of loading (p2ps_rm_facts_start) and touches nothing of
 * the host: it reads every GPU the driver lists, in the driver's order, into the job; the
 * loader meets it once the PCI devices are known (p2ps_rm_facts_finish). */

struct rm_card {
	struct p2ps_rm_card card;
	bool opened;
	char open_err[160];
	struct p2ps_rm_gpu g;
	bool fb_ok, sb_ok, ns_ok;
	struct p2ps_rm_fb_info fb;
	struct p2ps_rm_static_bar1 sb;
	char sb_err[160];
	struct p2ps_rm_nvlink_status ns;
};

struct rm_pair {
	bool known;
	struct p2ps_rm_p2p_caps c;
	uint32_t rm_status;
};

struct p2ps_rm_facts_job {
	struct p2ps_rm_sys live;
	struct p2ps_rm_linux ctx;
	const struct p2ps_rm_sys *sys;
	pthread_t thread;
	bool threaded;
	struct p2ps_timings timings;
	/* What the session read. status: why it failed ("" when it answered). */
	char status[160];
	char driver_version[32];
	unsigned controls;
	size_t n_cards;
	struct rm_card cards[RM_MAX_GPUS];
	unsigned n_open; /* opened cards: open[0..n_open) index cards[] */
	unsigned open[RM_MAX_GPUS];
	bool cpu_ok, chipset_ok, group_ok;
	struct p2ps_rm_cpu_info cpu;
	struct p2ps_rm_chipset_info chipset;
	struct p2ps_rm_p2p_group group;
	struct rm_pair pairs[RM_MAX_GPUS * RM_MAX_GPUS]; /* [i * n_open + j], i < j */
};

static void read_card(struct p2ps_rm *rm, struct rm_card *c)
{
	struct p2ps_error e = {0};
	if (p2ps_rm_gpu_open(rm, &c->card, &c->g, &e)) {
		p2ps_strlcpy(c->open_err, e.msg, sizeof(c->open_err));
		return;
	}
	c->opened = true;
	c->fb_ok = p2ps_rm_ctrl_fb_info(rm, c->g.subdevice, &c->fb, NULL, NULL) == 0;
	uint32_t st = 0;
	c->sb_ok = p2ps_rm_ctrl_static_bar1(rm, c->g.subdevice, &c->sb, &st, &e) == 0;
	if (!c->sb_ok)
		p2ps_strlcpy(c->sb_err, e.msg, sizeof(c->sb_err));
	/* NOT_SUPPORTED: no NVLink on this GPU. */
	c->ns_ok = p2ps_rm_ctrl_nvlink_status(rm, c->g.subdevice, &c->ns, NULL, NULL) == 0;
}

/* The group of all opened GPUs in one GET_P2P_CAPS_V2, taken when its NVLink status is OK:
 * then every pair is NVLink-connected and each pair's answer is the group's
 * (CliGetSystemP2pCaps decides the status per path from the connectivity of the whole
 * mask). Else (or below 3 GPUs, where it saves nothing) GET_P2P_CAPS_V2 for each pair. The
 * matrix form (GET_P2P_CAPS_MATRIX) says less (no status per path) and costs two firmware
 * calls per GPU: it is not asked. */
static void read_pairs(struct p2ps_rm *rm, struct p2ps_rm_facts_job *j)
{
	unsigned n = j->n_open;
	uint32_t ids[RM_MAX_GPUS];
	for (unsigned i = 0; i < n; i++)
		ids[i] = j->cards[j->open[i]].card.gpu_id;
	j->group_ok = n >= 3 &&
	              p2ps_rm_ctrl_p2p_caps_group(rm, ids, n, &j->group, NULL, NULL) == 0 &&
	              j->group.status[P2PS_NV_CAPS_NVLINK] == 0;
	for (unsigned i = 0; !j->group_ok && i < n; i++)
		for (unsigned k = i + 1; k < n; k++) {
			struct rm_pair *p = &j->pairs[i * n + k];
			p->known = p2ps_rm_ctrl_p2p_caps(rm, ids[i], ids[k], &p->c, &p->rm_status,
			                                 NULL) == 0;
		}
}

static void read_session(struct p2ps_rm *rm, struct p2ps_rm_facts_job *j)
{
	struct p2ps_rm_card cards[RM_MAX_GPUS];
	struct p2ps_error e = {0};
	if (p2ps_rm_cards(rm, cards, RM_MAX_GPUS, &j->n_cards, &e)) {
		p2ps_strlcpy(j->status, e.msg, sizeof(j->status));
		return;
	}
	for (size_t i = 0; i < j->n_cards; i++) {
		struct rm_card *c = &j->cards[i];
		c->card = cards[i];
		read_card(rm, c);
		if (c->opened)
			j->open[j->n_open++] = (unsigned)i;
	}
	j->cpu_ok = p2ps_rm_ctrl_cpu_info(rm, &j->cpu, NULL, NULL) == 0;
	j->chipset_ok = p2ps_rm_ctrl_chipset_info(rm, &j->chipset, NULL, NULL) == 0;
	read_pairs(rm, j);
}

static void run_session(struct p2ps_rm_facts_job *j)
{
	uint64_t lap = p2ps_clock_ns();
	struct p2ps_rm *rm;
	struct p2ps_error e = {0};
	if (p2ps_rm_open(&rm, j->sys, &e)) {
		p2ps_strlcpy(j->status, e.msg, sizeof(j->status));
		return;
	}
	p2ps_timings_lap(&j->timings, "RM: version, /dev/nvidiactl, client", &lap);
	p2ps_rm_set_timings(rm, &j->timings);
	/* Nothing is mapped: one RM_FREE of the client frees its devices and subdevices. */
	p2ps_rm_set_free_by_client(rm, true);
	p2ps_strlcpy(j->driver_version, p2ps_rm_driver(rm)->version, sizeof(j->driver_version));
	read_session(rm, j);
	struct p2ps_rm_stats st;
	p2ps_rm_get_stats(rm, &st);
	j->controls = st.controls;
	if (p2ps_rm_close(rm, NULL, &e) && !j->status[0])
		p2ps_strlcpy(j->status, e.msg, sizeof(j->status));
}

static void *session_thread(void *arg)
{
	run_session(arg);
	return NULL;
}

int p2ps_rm_facts_start(struct p2ps_rm_facts_job **out, const struct p2ps_rm_sys *sys,
                        const char *root)
{
	struct p2ps_rm_facts_job *j = calloc(1, sizeof(*j));
	*out = j;
	if (!j)
		return -1;
	if (!sys) {
		p2ps_rm_sys_linux(&j->live, &j->ctx, root ? root : "", -1);
		sys = &j->live;
	}
	j->sys = sys;
	/* Without a thread the session runs here, before the PCI devices: slower, the same. */
	j->threaded = pthread_create(&j->thread, NULL, session_thread, j) == 0;
	if (!j->threaded)
		run_session(j);
	return 0;
}

static void join(struct p2ps_rm_facts_job *j)
{
	if (j->threaded)
		pthread_join(j->thread, NULL);
	j->threaded = false;
}

void p2ps_rm_facts_discard(struct p2ps_rm_facts_job *j)
{
	if (!j)
		return;
	join(j);
	free(j);
}

/* ---- meeting the model ----------------------------------------------------------------- */

/* A GPU of the model met by an opened card, with its links to a fabric (an NVSwitch, or a
 * far end that is not one of the model's GPUs). */
struct rm_gpu {
	const struct rm_card *c;
	struct p2ps_dev *dev;
	int fabric_links;
};

static void fb_facts(struct rm_gpu *x)
{
	const struct rm_card *c = x->c;
	struct p2ps_gpu_facts *f = &x->dev->gpu;
	if (c->fb_ok) {
		const struct p2ps_rm_fb_info *fb = &c->fb;
		struct p2ps_gpu_rm *r = &f->rm;
		r->fb_known = true;
		r->fb_ram = fb->ram_kib << 10;
		r->fb_total_ram = fb->total_ram_kib << 10;
		r->fb_usable = fb->usable_ram_kib << 10;
		r->fb_heap = fb->heap_kib << 10;
		r->fb_heap_free = fb->heap_free_kib << 10;
		r->fb_tax = fb->fb_tax_kib << 10;
		/* nvidia-smi -q's FB Total is the total, its Reserved what the heap leaves of it
		 * (143771 and 616 MiB on a 2 x H200 host, 580.159.04: TOTAL_RAM_SIZE and
		 * TOTAL_RAM_SIZE - HEAP_SIZE; USABLE_RAM_SIZE was 143497). */
		r->fb_reserved = r->fb_total_ram > r->fb_heap ? r->fb_total_ram - r->fb_heap : 0;
		r->bar1_avail = fb->bar1_avail_kib << 10;
		f->vram_known = true;
		f->vram_bytes = r->fb_total_ram;
		f->bar1_known = true;
		f->bar1_total_bytes = fb->bar1_kib << 10;
	}
	if (c->sb_ok) {
		f->rm.static_bar1_known = true;
		f->rm.static_bar1 = c->sb.enabled;
		f->rm.static_bar1_size = c->sb.size;
	} else {
		p2ps_strlcpy(f->rm.static_bar1_status, c->sb_err, sizeof(f->rm.static_bar1_status));
	}
}

static void nvlink_facts(const struct p2ps_host *host, struct rm_gpu *x)
{
	struct p2ps_gpu_facts *f = &x->dev->gpu;
	const struct p2ps_rm_nvlink_status *ns = &x->c->ns;
	if (!x->c->ns_ok)
		return;
	f->nvlink_known = true;
	for (unsigned i = 0; i < ns->n && f->rm.n_links < P2PS_HOST_MAX_NVLINK; i++) {
		const struct p2ps_rm_nvlink *l = &ns->links[i];
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
			p2ps_gpu_add_nvlink_peer(f, &rb, 1);
	}
	f->nvswitch_links = x->fabric_links; /* as the NVML backend records them */
}

/* The model's GPU of card c, with the card's facts; NULL when the model lacks it. */
static struct p2ps_dev *gpu_facts(struct p2ps_host *host, const struct rm_card *c, struct rm_gpu *x)
{
	struct p2ps_bdf bdf = {c->card.domain, c->card.bus, c->card.slot, c->card.function};
	struct p2ps_dev *d = p2ps_host_find(host, &bdf);
	if (!d || !p2ps_dev_is_nvidia_gpu(d)) {
		struct p2ps_host_rm *h = &host->nvidia.rm;
		if (h->n_unmatched < P2PS_HOST_RM_UNMATCHED)
			h->unmatched[h->n_unmatched] = bdf;
		h->n_unmatched++;
		return NULL;
	}
	if (!c->opened) {
		p2ps_strlcpy(d->unknown[P2PS_FACT_VRAM], c->open_err,
		             sizeof(d->unknown[P2PS_FACT_VRAM]));
		return NULL;
	}
	*x = (struct rm_gpu){.c = c, .dev = d};
	struct p2ps_gpu_facts *f = &d->gpu;
	f->source = P2PS_GPU_SRC_RM;
	f->rm.known = true;
	f->rm.gpu_id = c->card.gpu_id;
	f->rm.arch = c->g.arch;
	f->rm.impl = c->g.impl;
	p2ps_strlcpy(f->rm.chip, c->g.chip, sizeof(f->rm.chip));
	/* CARD_INFO's ids (BUS_GET_PCI_INFO would ask the same of the GPU's firmware). */
	f->rm.pci_device_id = c->card.device_id;
	fb_facts(x);
	nvlink_facts(host, x);
	return d;
}

static void system_facts(struct p2ps_host_rm *h, const struct p2ps_rm_facts_job *j)
{
	if (j->cpu_ok) {
		const struct p2ps_rm_cpu_info *cpu = &j->cpu;
		h->cpu_known = true;
		h->cpu_type = cpu->type;
		const char *n = p2ps_rm_cpu_type_name(cpu->type);
		if (n)
			p2ps_strlcpy(h->cpu_type_name, n, sizeof(h->cpu_type_name));
		else
			snprintf(h->cpu_type_name, sizeof(h->cpu_type_name), "0x%" PRIx32,
			         cpu->type);
		p2ps_strlcpy(h->cpu_name, cpu->name, sizeof(h->cpu_name));
		h->cpu_clock_mhz = cpu->clock_mhz;
		h->cpu_logical = cpu->logical;
		h->cpu_physical = cpu->physical;
		h->cpu_family = cpu->family;
		h->cpu_model = cpu->model;
	}
	if (j->chipset_ok) {
		const struct p2ps_rm_chipset_info *cs = &j->chipset;
		h->chipset_known = true;
		h->chipset_vendor = cs->vendor_id;
		h->chipset_device = cs->device_id;
		h->hb_vendor = cs->hb_vendor_id;
		h->hb_device = cs->hb_device_id;
		p2ps_strlcpy(h->chipset_vendor_name, cs->vendor_name,
		             sizeof(h->chipset_vendor_name));
		p2ps_strlcpy(h->chipset_name, cs->chipset_name, sizeof(h->chipset_name));
		h->chipset_flags = cs->flags;
	}
}

/* NVLink through a fabric: the pair's NVLink status OK and both with fabric links. */
static void fabric_pair(struct rm_gpu *a, struct rm_gpu *b, const struct p2ps_driver_p2p *p)
{
	if (!p->known || p->status[P2PS_NV_CAPS_NVLINK] != 0)
		return;
	p2ps_gpu_add_fabric_peer(a->dev, a->fabric_links, b->dev, b->fabric_links);
	p2ps_gpu_add_fabric_peer(b->dev, b->fabric_links, a->dev, a->fabric_links);
}

/* The pair (i, k) of opened cards, both met in the model as a and b. */
static void pair_fact(struct p2ps_host_rm *h, const struct p2ps_rm_facts_job *j, unsigned i,
                      unsigned k, struct rm_gpu *a, struct rm_gpu *b)
{
	struct p2ps_driver_p2p *p = &h->p2p[h->n_p2p++];
	*p = (struct p2ps_driver_p2p){.a = a->dev->bdf, .b = b->dev->bdf};
	unsigned n = j->n_open;
	if (j->group_ok) {
		p->known = p->from_group = true;
		p->caps = j->group.caps;
		memcpy(p->status, j->group.status, sizeof(p->status));
		p->peer_id_ab = j->group.peer_ids[i * n + k];
		p->peer_id_ba = j->group.peer_ids[k * n + i];
	} else if (j->pairs[i * n + k].known) {
		const struct p2ps_rm_p2p_caps *c = &j->pairs[i * n + k].c;
		p->known = true;
		p->caps = c->caps;
		memcpy(p->status, c->status, sizeof(p->status));
		p->peer_id_ab = c->peer_id_ab;
		p->peer_id_ba = c->peer_id_ba;
	} else {
		p->rm_status = j->pairs[i * n + k].rm_status;
		p2ps_rm_status_str(p->rm_status, p->rm_status_name, sizeof(p->rm_status_name));
	}
	fabric_pair(a, b, p);
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
		for (int i = 0; i < P2PS_NV_CAPS_COUNT && i < P2PS_HOST_DRVCAPS_INDEX; i++)
			dc->st[a][b][i] = dc->st[b][a][i] = p->status[i];
		dc->known = true;
	}
	if (dc->known)
		p2ps_strlcpy(dc->source, "RM GET_P2P_CAPS_V2", sizeof(dc->source));
	else
		memset(dc, 0, sizeof(*dc));
}

static void meet_model(struct p2ps_host *host, const struct p2ps_rm_facts_job *j)
{
	struct rm_gpu x[RM_MAX_GPUS];
	bool met[RM_MAX_GPUS] = {false};
	unsigned o = 0;
	for (size_t i = 0; i < j->n_cards; i++) {
		bool opened = j->cards[i].opened;
		struct rm_gpu g = {0};
		bool in_model = gpu_facts(host, &j->cards[i], &g) != NULL;
		if (opened) {
			x[o] = g;
			met[o++] = in_model;
		}
	}
	struct p2ps_host_rm *h = &host->nvidia.rm;
	system_facts(h, j);
	for (unsigned i = 0; i < j->n_open; i++)
		for (unsigned k = i + 1; k < j->n_open && h->n_p2p < P2PS_HOST_MAX_DRIVER_P2P; k++)
			if (met[i] && met[k])
				pair_fact(h, j, i, k, &x[i], &x[k]);
	driver_caps_from_rm(host);
}

int p2ps_rm_facts_finish(struct p2ps_host *host, struct p2ps_rm_facts_job *j)
{
	struct p2ps_host_nvidia *nv = &host->nvidia;
	if (!j) {
		p2ps_strlcpy(nv->rm_status, "out of memory", sizeof(nv->rm_status));
		return -1;
	}
	uint64_t lap = p2ps_clock_ns();
	join(j);
	p2ps_timings_lap(host->timings, "RM: waiting for the session's thread", &lap);
	for (size_t i = 0; host->timings && i < j->timings.n; i++)
		p2ps_timings_add(host->timings, &j->timings.t[i]);
	p2ps_strlcpy(nv->rm_driver_version, j->driver_version, sizeof(nv->rm_driver_version));
	if (!j->status[0])
		meet_model(host, j);
	nv->rm.controls = j->controls;
	if (j->status[0])
		p2ps_strlcpy(nv->rm_status, j->status, sizeof(nv->rm_status));
	nv->rm_loaded = !nv->rm_status[0];
	free(j);
	return nv->rm_loaded ? 0 : -1;
}

int p2ps_rm_facts_fill(struct p2ps_host *host, const struct p2ps_rm_sys *sys)
{
	struct p2ps_rm_facts_job *j;
	p2ps_rm_facts_start(&j, sys, "");
	return p2ps_rm_facts_finish(host, j);
}

/* The source src asks for: a recording or a replay is of the RM API; --no-nvml is none. */
static enum p2ps_nvidia_facts facts_mode(const struct p2ps_host_source *src)
{
	if (src->rm_sys)
		return P2PS_NV_FACTS_RM;
	if (src->flags & P2PS_HOST_F_NO_NVML)
		return P2PS_NV_FACTS_NONE;
	return src->nvidia_facts;
}

bool p2ps_nvidia_facts_use_rm(const struct p2ps_host_source *src)
{
	enum p2ps_nvidia_facts m = facts_mode(src);
	return m == P2PS_NV_FACTS_RM || m == P2PS_NV_FACTS_AUTO;
}

static void nvml_facts(struct p2ps_host *host, const struct p2ps_host_source *src)
{
	if (src->flags & P2PS_HOST_F_NVML_CACHE)
		p2ps_nvml_fill_cached(host);
	else
		p2ps_nvml_fill(host);
}

void p2ps_nvidia_facts_fill(struct p2ps_host *host, const struct p2ps_host_source *src,
                            struct p2ps_rm_facts_job *job)
{
	struct p2ps_host_nvidia *nv = &host->nvidia;
	enum p2ps_nvidia_facts mode = facts_mode(src);
	if (!p2ps_nvidia_facts_use_rm(src))
		p2ps_rm_facts_discard(job); /* not asked for: nothing to wait for but the thread */
	switch (mode) {
	case P2PS_NV_FACTS_NONE:
		p2ps_strlcpy(nv->facts_source, "none", sizeof(nv->facts_source));
		p2ps_strlcpy(nv->facts_note, "none, as asked", sizeof(nv->facts_note));
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
	if (!job)
		p2ps_rm_facts_start(&job, src->rm_sys, "");
	if (p2ps_rm_facts_finish(host, job) == 0) {
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
