/* SPDX-License-Identifier: MIT */
/* The RM API's facts in the reports: per GPU (FB sizes, static BAR1, NVLink links), per
 * pair (the driver's P2P caps per path) and for the host (the CPU and chipset the driver
 * recognised, which source gave the NVIDIA facts). Text, JSON and dot share these. */
#include <inttypes.h>
#include <stdio.h>

#include "render_internal.h"

static const char *size_str(uint64_t v, char *buf, size_t len)
{
	return p2ps_size_format(v, buf, len);
}

void p2ps_text_rm_gpu(struct p2ps_strbuf *b, const struct p2ps_dev *d, const char *ind)
{
	const struct p2ps_gpu_rm *r = &d->gpu.rm;
	if (!r->known)
		return;
	char s1[32], s2[32], s3[32];
	p2ps_strbuf_printf(b,
	                   "%sRM: GPU id 0x%" PRIx32 ", %s (arch 0x%" PRIx32 " impl 0x%" PRIx32 ")",
	                   ind, r->gpu_id, r->chip[0] ? r->chip : "chip unknown", r->arch, r->impl);
	if (r->fb_known)
		p2ps_strbuf_printf(b, "; FB usable %s, reserved %s, heap %s",
		                   size_str(r->fb_usable, s1, sizeof(s1)),
		                   size_str(r->fb_reserved, s2, sizeof(s2)),
		                   size_str(r->fb_heap, s3, sizeof(s3)));
	if (r->static_bar1_known)
		p2ps_strbuf_printf(b, "; static BAR1 %s", r->static_bar1 ? "on" : "off");
	p2ps_strbuf_puts(b, "\n");
	/* Runs of links alike (state, far end) on one line: "links 0-17 ACTIVE to SWITCH ...". */
	for (int i = 0; i < r->n_links && i < P2PS_HOST_MAX_NVLINK;) {
		const struct p2ps_nvlink_link *l = &r->links[i];
		int j = i + 1;
		while (j < r->n_links && j < P2PS_HOST_MAX_NVLINK &&
		       r->links[j].state == l->state && r->links[j].remote_type == l->remote_type &&
		       p2ps_bdf_equal(&r->links[j].remote, &l->remote) &&
		       r->links[j].link == r->links[j - 1].link + 1)
			j++;
		char bdf[20], span[24];
		if (j - i > 1)
			snprintf(span, sizeof(span), "links %d-%d", l->link, r->links[j - 1].link);
		else
			snprintf(span, sizeof(span), "link %d", l->link);
		/* A far end this host cannot see (an NVSwitch from a VM) reads all ones. */
		if (l->remote.domain == 0xffffffffu)
			snprintf(bdf, sizeof(bdf), "(not visible here)");
		else
			p2ps_bdf_format(&l->remote, bdf, sizeof(bdf));
		p2ps_strbuf_printf(b, "%s  NVLink %s: %s, to %s %s\n", ind, span, l->state_name,
		                   l->remote_type_name, bdf);
		i = j;
	}
}

void p2ps_text_rm_pair(struct p2ps_strbuf *b, const struct p2ps_host *h, const struct p2ps_dev *x,
                       const struct p2ps_dev *y)
{
	const struct p2ps_driver_p2p *p = p2ps_host_driver_p2p(h, &x->bdf, &y->bdf);
	if (!p)
		return;
	if (!p->known) {
		p2ps_strbuf_printf(b, "\tdriver P2P caps: unknown (%s)\n", p->rm_status_name);
		return;
	}
	p2ps_strbuf_puts(b, "\tdriver P2P caps:");
	for (int i = 0; i < P2PS_NV_CAPS_COUNT; i++)
		p2ps_strbuf_printf(b, "%s %s %s", i ? "," : "", p2ps_nv_caps_index_name(i),
		                   p2ps_nv_status_name(p->status[i]));
	p2ps_strbuf_printf(b, " (caps 0x%" PRIx32 "%s)\n", p->caps,
	                   p->from_group ? "; the driver's answer for all the GPUs at once" : "");
}

void p2ps_text_rm_host(struct p2ps_strbuf *b, const struct p2ps_host *h)
{
	const struct p2ps_host_nvidia *nv = &h->nvidia;
	if (nv->facts_note[0])
		p2ps_strbuf_printf(b, "\tNVIDIA facts: %s\n", nv->facts_note);
	const struct p2ps_host_rm *r = &nv->rm;
	if (r->cpu_known)
		p2ps_strbuf_printf(b, "\tdriver's CPU: %s (%s, %" PRIu32 " logical)\n",
		                   r->cpu_type_name, r->cpu_name[0] ? r->cpu_name : "no name",
		                   r->cpu_logical);
	if (r->chipset_known && r->chipset_vendor == 0xffff) /* NV0000_SYSTEM_CHIPSET_INVALID_ID */
		p2ps_strbuf_puts(b, "\tdriver's chipset: not identified\n");
	else if (r->chipset_known)
		p2ps_strbuf_printf(b,
		                   "\tdriver's chipset: %04x:%04x %s %s, host bridge %04x:%04x%s\n",
		                   r->chipset_vendor, r->chipset_device, r->chipset_vendor_name,
		                   r->chipset_name, r->hb_vendor, r->hb_device,
		                   r->chipset_flags & 1 ? " (resizable BAR issue)" : "");
}

static struct json_object *u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

struct json_object *p2ps_json_rm_gpu(const struct p2ps_dev *d)
{
	const struct p2ps_gpu_rm *r = &d->gpu.rm;
	if (!r->known)
		return NULL;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "gpu_id", u64(r->gpu_id));
	p2ps_json_put(o, "arch", u64(r->arch));
	p2ps_json_put(o, "impl", u64(r->impl));
	p2ps_json_put(o, "chip", p2ps_json_str_or_null(r->chip));
	p2ps_json_put(o, "pci_device_id", u64(r->pci_device_id));
	struct json_object *fb = NULL;
	if (r->fb_known) {
		fb = json_object_new_object();
		const struct p2ps_json_int_row rows[] = {
		        {"ram", (int64_t)r->fb_ram},
		        {"total_ram", (int64_t)r->fb_total_ram},
		        {"usable", (int64_t)r->fb_usable},
		        {"reserved", (int64_t)r->fb_reserved},
		        {"heap", (int64_t)r->fb_heap},
		        {"heap_free", (int64_t)r->fb_heap_free},
		        {"tax", (int64_t)r->fb_tax},
		        {"bar1_total", (int64_t)d->gpu.bar1_total_bytes},
		        {"bar1_avail", (int64_t)r->bar1_avail}};
		p2ps_json_put_ints(fb, P2PS_JSON_ROWS(rows));
	}
	p2ps_json_put(o, "fb", fb);
	p2ps_json_put(o, "static_bar1",
	              r->static_bar1_known ? json_object_new_boolean(r->static_bar1) : NULL);
	p2ps_json_put(o, "static_bar1_size",
	              r->static_bar1_known ? u64(r->static_bar1_size) : NULL);
	p2ps_json_put(o, "static_bar1_status", p2ps_json_str_or_null(r->static_bar1_status));
	struct json_object *links = json_object_new_array();
	for (int i = 0; i < r->n_links && i < P2PS_HOST_MAX_NVLINK; i++) {
		const struct p2ps_nvlink_link *l = &r->links[i];
		char bdf[20];
		struct json_object *x = json_object_new_object();
		p2ps_json_put(x, "link", json_object_new_int(l->link));
		p2ps_json_put(x, "state", json_object_new_string(l->state_name));
		p2ps_json_put(x, "remote_type", json_object_new_string(l->remote_type_name));
		p2ps_json_put(
		        x, "remote",
		        json_object_new_string(p2ps_bdf_format(&l->remote, bdf, sizeof(bdf))));
		p2ps_json_put(x, "remote_link", json_object_new_int(l->remote_link));
		json_object_array_add(links, x);
	}
	p2ps_json_put(o, "nvlinks", links);
	return o;
}

struct json_object *p2ps_json_rm_pair(const struct p2ps_host *h, const struct p2ps_dev *x,
                                      const struct p2ps_dev *y)
{
	const struct p2ps_driver_p2p *p = p2ps_host_driver_p2p(h, &x->bdf, &y->bdf);
	if (!p)
		return NULL;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "known", json_object_new_boolean(p->known));
	p2ps_json_put(o, "rm_status", p->known ? NULL : json_object_new_string(p->rm_status_name));
	p2ps_json_put(o, "caps", p->known ? u64(p->caps) : NULL);
	struct json_object *st = NULL;
	if (p->known) {
		st = json_object_new_object();
		for (int i = 0; i < P2PS_NV_CAPS_COUNT; i++)
			p2ps_json_put(st, p2ps_nv_caps_index_name(i),
			              json_object_new_string(p2ps_nv_status_name(p->status[i])));
	}
	p2ps_json_put(o, "status", st);
	bool fwd = p2ps_bdf_equal(&p->a, &x->bdf);
	p2ps_json_put(o, "peer_id_ab", p->known ? u64(fwd ? p->peer_id_ab : p->peer_id_ba) : NULL);
	p2ps_json_put(o, "peer_id_ba", p->known ? u64(fwd ? p->peer_id_ba : p->peer_id_ab) : NULL);
	p2ps_json_put(o, "matrix_caps", p->matrix_known ? u64(p->matrix_caps) : NULL);
	p2ps_json_put(o, "from_group", json_object_new_boolean(p->from_group));
	return o;
}

struct json_object *p2ps_json_rm_host(const struct p2ps_host *h)
{
	const struct p2ps_host_nvidia *nv = &h->nvidia;
	const struct p2ps_host_rm *r = &nv->rm;
	struct json_object *o = json_object_new_object();
	p2ps_json_put(o, "loaded", json_object_new_boolean(nv->rm_loaded));
	p2ps_json_put(o, "status", p2ps_json_str_or_null(nv->rm_status));
	p2ps_json_put(o, "driver_version", p2ps_json_str_or_null(nv->rm_driver_version));
	p2ps_json_put(o, "controls", nv->rm_loaded ? u64(r->controls) : NULL);
	struct json_object *cpu = NULL, *cs = NULL;
	if (r->cpu_known) {
		cpu = json_object_new_object();
		p2ps_json_put(cpu, "type", u64(r->cpu_type));
		p2ps_json_put(cpu, "type_name", json_object_new_string(r->cpu_type_name));
		p2ps_json_put(cpu, "name", json_object_new_string(r->cpu_name));
		const struct p2ps_json_int_row rows[] = {{"clock_mhz", r->cpu_clock_mhz},
		                                         {"logical", r->cpu_logical},
		                                         {"physical", r->cpu_physical},
		                                         {"family", r->cpu_family},
		                                         {"model", r->cpu_model}};
		p2ps_json_put_ints(cpu, P2PS_JSON_ROWS(rows));
	}
	if (r->chipset_known) {
		cs = json_object_new_object();
		const struct p2ps_json_int_row rows[] = {{"vendor_id", r->chipset_vendor},
		                                         {"device_id", r->chipset_device},
		                                         {"host_bridge_vendor_id", r->hb_vendor},
		                                         {"host_bridge_device_id", r->hb_device}};
		p2ps_json_put_ints(cs, P2PS_JSON_ROWS(rows));
		p2ps_json_put(cs, "vendor_name", json_object_new_string(r->chipset_vendor_name));
		p2ps_json_put(cs, "name", json_object_new_string(r->chipset_name));
		p2ps_json_put(cs, "flags", u64(r->chipset_flags));
	}
	p2ps_json_put(o, "cpu", cpu);
	p2ps_json_put(o, "chipset", cs);
	return o;
}

void p2ps_dot_rm_pair(struct p2ps_strbuf *b, const struct p2ps_host *h, const struct p2ps_dev *x,
                      const struct p2ps_dev *y)
{
	const struct p2ps_driver_p2p *p = p2ps_host_driver_p2p(h, &x->bdf, &y->bdf);
	if (!p || !p->known)
		return;
	p2ps_strbuf_puts(b, "\\ndriver:");
	int shown = 0;
	static const int paths[] = {P2PS_NV_CAPS_NVLINK, P2PS_NV_CAPS_PCI, P2PS_NV_CAPS_PCI_BAR1,
	                            P2PS_NV_CAPS_C2C};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (p->status[paths[i]] == 0)
			p2ps_strbuf_printf(b, "%s%s", shown++ ? "," : " ",
			                   p2ps_nv_caps_index_name((unsigned)paths[i]));
	if (!shown)
		p2ps_strbuf_puts(b, " no path");
}
