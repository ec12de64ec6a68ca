/* SPDX-License-Identifier: MIT */
/* host-dump: loads a host model and prints it as JSON (json-c). A test driver for
 * the model itself, independent of bar-inspect's renderers: the fixture tests
 * compare its output with lspci's decoding and with sysfs.
 *
 * Usage: host-dump (--live | --root DIR | --lspci-dump FILE) [--no-nvml] [--numeric]
 * Exit status: 0 ok, 2 bad input (one line on stderr). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/nvidia_chips.h"

static json_object *jstr(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *link_obj(const struct p2ps_link *l)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "speed_gts",
	                       l->speed ? json_object_new_double(p2ps_link_speed_gts(l->speed))
	                                : NULL);
	json_object_object_add(o, "width", l->width ? json_object_new_int(l->width) : NULL);
	return o;
}

static json_object *window_obj(const struct p2ps_window *w)
{
	if (!w->present)
		return NULL;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "base", json_object_new_uint64(w->base));
	json_object_object_add(o, "limit", json_object_new_uint64(w->limit));
	json_object_object_add(o, "is_64bit", json_object_new_boolean(w->is_64bit));
	return o;
}

static json_object *chip_obj(const struct p2ps_nvidia_chip *chip)
{
	json_object *c = json_object_new_object();
	json_object_object_add(c, "name", json_object_new_string(p2ps_nvidia_chip_name(chip)));
	json_object_object_add(c, "generation",
	                       json_object_new_string(p2ps_nv_generation_name(chip->generation)));
	const struct gmmu_format *f = chip->gmmu.format;
	json_object_object_add(c, "gmmu_format", f ? json_object_new_string(f->name) : NULL);
	return c;
}

static json_object *bars_arr(const struct p2ps_dev *d)
{
	json_object *bars = json_object_new_array();
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &d->bars[i];
		if (!b->present)
			continue;
		json_object *jb = json_object_new_object();
		json_object_object_add(jb, "index", json_object_new_int(b->index));
		json_object_object_add(jb, "address", json_object_new_uint64(b->address));
		json_object_object_add(jb, "size",
		                       b->size_known ? json_object_new_uint64(b->size) : NULL);
		json_object_object_add(jb, "is_64bit", json_object_new_boolean(b->is_64bit));
		json_object_object_add(jb, "prefetchable",
		                       json_object_new_boolean(b->prefetchable));
		json_object_object_add(jb, "io", json_object_new_boolean(b->io));
		json_object_object_add(jb, "unassigned", json_object_new_boolean(b->unassigned));
		json_object_array_add(bars, jb);
	}
	return bars;
}

/* The capabilities: link, ACS, resizable BAR (null when absent), bridge (only bridges). */
static void add_caps(json_object *o, const struct p2ps_dev *d)
{
	json_object *l = NULL, *a = NULL, *r = NULL;
	if (d->pcie.present || d->pcie.cap_source || d->pcie.sta_source) {
		l = json_object_new_object();
		json_object_object_add(l, "port_type",
		                       d->pcie.present ? json_object_new_int(d->pcie.port_type)
		                                       : NULL);
		json_object_object_add(l, "cap", link_obj(&d->pcie.cap));
		json_object_object_add(l, "sta", link_obj(&d->pcie.sta));
		json_object_object_add(l, "sysfs_max", link_obj(&d->pcie.sysfs_max));
		json_object_object_add(l, "sysfs_cur", link_obj(&d->pcie.sysfs_cur));
		json_object_object_add(l, "gbps_cap",
		                       json_object_new_double(p2ps_link_gbps(&d->pcie.cap)));
	}
	json_object_object_add(o, "link", l);
	if (d->acs.present) {
		a = json_object_new_object();
		json_object_object_add(a, "cap", json_object_new_int(d->acs.cap));
		json_object_object_add(a, "ctl", json_object_new_int(d->acs.ctl));
		json_object_object_add(a, "offset", json_object_new_int(d->acs.offset));
	}
	json_object_object_add(o, "acs", a);
	if (d->rebar.present) {
		r = json_object_new_array();
		for (int i = 0; i < d->rebar.count; i++) {
			const struct p2ps_rebar_entry *e = &d->rebar.e[i];
			json_object *je = json_object_new_object();
			json_object_object_add(je, "bar", json_object_new_int(e->bar));
			json_object_object_add(je, "current_mib_log2",
			                       json_object_new_int(e->current));
			json_object_object_add(je, "sizes", json_object_new_uint64(e->sizes));
			json_object_array_add(r, je);
		}
	}
	json_object_object_add(o, "rebar", r);
	if (d->bridge.is_bridge) {
		json_object *b = json_object_new_object();
		json_object_object_add(b, "primary", json_object_new_int(d->bridge.primary));
		json_object_object_add(b, "secondary", json_object_new_int(d->bridge.secondary));
		json_object_object_add(b, "subordinate",
		                       json_object_new_int(d->bridge.subordinate));
		json_object_object_add(b, "io", window_obj(&d->bridge.io));
		json_object_object_add(b, "mem", window_obj(&d->bridge.mem));
		json_object_object_add(b, "pref", window_obj(&d->bridge.pref));
		json_object_object_add(o, "bridge", b);
	}
}

static json_object *gpu_obj(const struct p2ps_dev *d)
{
	json_object *g = json_object_new_object();
	json_object_object_add(
	        g, "vram", d->gpu.vram_known ? json_object_new_uint64(d->gpu.vram_bytes) : NULL);
	json_object_object_add(g, "bar1_total",
	                       d->gpu.bar1_known ? json_object_new_uint64(d->gpu.bar1_total_bytes)
	                                         : NULL);
	json_object *peers = json_object_new_array();
	for (int i = 0; i < d->gpu.n_nvlink_peers; i++) {
		char b[16];
		json_object *p = json_object_new_object();
		json_object_object_add(p, "bdf",
		                       json_object_new_string(p2ps_bdf_format(
		                               &d->gpu.nvlink_peers[i].bdf, b, sizeof(b))));
		json_object_object_add(p, "links",
		                       json_object_new_int(d->gpu.nvlink_peers[i].links));
		json_object_array_add(peers, p);
	}
	json_object_object_add(g, "nvlink_peers", d->gpu.nvlink_known ? peers : NULL);
	if (!d->gpu.nvlink_known)
		json_object_put(peers);
	return g;
}

static json_object *dev_obj(const struct p2ps_dev *d)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "bdf", json_object_new_string(d->bdf_str));
	json_object_object_add(o, "vendor_id", json_object_new_int(d->vendor_id));
	json_object_object_add(o, "device_id", json_object_new_int(d->device_id));
	json_object_object_add(o, "subsys_vendor_id", json_object_new_int(d->subsys_vendor_id));
	json_object_object_add(o, "subsys_id", json_object_new_int(d->subsys_id));
	json_object_object_add(o, "class", json_object_new_int((int)d->class_code));
	json_object_object_add(o, "revision", json_object_new_int(d->revision));
	json_object_object_add(o, "header_type", json_object_new_int(d->header_type));
	json_object_object_add(o, "vendor_name", jstr(d->vendor_name));
	json_object_object_add(o, "device_name", jstr(d->device_name));
	if (d->chip)
		json_object_object_add(o, "chip", chip_obj(d->chip));
	json_object_object_add(o, "bars", bars_arr(d));
	add_caps(o, d);
	json_object_object_add(o, "parent",
	                       d->parent ? json_object_new_string(d->parent->bdf_str) : NULL);
	json_object_object_add(o, "root_bus", jstr(d->root_bus));
	json_object_object_add(o, "driver", jstr(d->driver));
	json_object_object_add(o, "numa_node", json_object_new_int(d->numa_node));
	json_object_object_add(o, "iommu_group",
	                       d->iommu_group >= 0 ? json_object_new_int(d->iommu_group) : NULL);
	json_object_object_add(o, "iommu_domain_type", jstr(d->iommu_domain_type));
	json_object_object_add(o, "boot_vga",
	                       d->boot_vga >= 0 ? json_object_new_int(d->boot_vga) : NULL);
	json_object_object_add(o, "config_len", json_object_new_int((int)d->config_len));
	json_object_object_add(o, "ext_cap_walk", jstr(d->ext_cap_walk));
	if (p2ps_dev_is_nvidia_gpu(d))
		json_object_object_add(o, "gpu", gpu_obj(d));
	json_object *u = json_object_new_object();
	for (int f = 0; f < P2PS_FACT_COUNT; f++)
		if (p2ps_dev_unknown(d, (enum p2ps_fact)f))
			json_object_object_add(u, p2ps_fact_name((enum p2ps_fact)f),
			                       json_object_new_string(d->unknown[f]));
	json_object_object_add(o, "unknown", u);
	return o;
}

static json_object *host_obj(const struct p2ps_host *h)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "backend", json_object_new_string(h->backend_name));
	json_object *io = json_object_new_object();
	json_object_object_add(io, "known", json_object_new_boolean(h->iommu.known));
	json_object_object_add(io, "present", json_object_new_boolean(h->iommu.present));
	json_object_object_add(io, "units", jstr(h->iommu.units));
	json_object_object_add(io, "kind", jstr(h->iommu.kind));
	json_object_object_add(io, "groups", json_object_new_int(h->iommu.n_groups));
	json_object_object_add(o, "iommu", io);
	json_object *c = json_object_new_object();
	json_object_object_add(c, "raw", jstr(h->cmdline.raw));
	json_object_object_add(c, "iommu", jstr(h->cmdline.iommu));
	json_object_object_add(c, "intel_iommu", jstr(h->cmdline.intel_iommu));
	json_object_object_add(c, "amd_iommu", jstr(h->cmdline.amd_iommu));
	json_object_object_add(c, "pcie_acs_override", jstr(h->cmdline.pcie_acs_override));
	json_object_object_add(c, "pci", jstr(h->cmdline.pci));
	json_object_object_add(o, "cmdline", c);
	json_object *nv = json_object_new_object();
	json_object_object_add(nv, "module_version", jstr(h->nvidia.module_version));
	json_object_object_add(nv, "proc_driver_version", jstr(h->nvidia.proc_driver_version));
	json_object_object_add(nv, "nvml_loaded", json_object_new_boolean(h->nvidia.nvml_loaded));
	json_object_object_add(nv, "nvml_status", jstr(h->nvidia.nvml_status));
	json_object_object_add(o, "nvidia", nv);
	json_object *vm = json_object_new_object();
	json_object_object_add(vm, "known", json_object_new_boolean(h->vm.known));
	json_object_object_add(vm, "in_vm", json_object_new_boolean(h->vm.in_vm));
	json_object_object_add(vm, "hypervisor", jstr(h->vm.hypervisor));
	json_object_object_add(vm, "evidence", jstr(h->vm.evidence));
	json_object_object_add(o, "vm", vm);
	json_object *env = json_object_new_array();
	for (int i = 0; i < h->n_nccl_env; i++)
		json_object_array_add(env, json_object_new_string(h->nccl_env[i]));
	json_object_object_add(o, "nccl_env", env);
	json_object_object_add(o, "config_limited_any",
	                       json_object_new_boolean(h->config_limited_any));
	json_object_object_add(o, "is_root", json_object_new_boolean(h->is_root));
	json_object *devs = json_object_new_array();
	for (size_t i = 0; i < h->n_devs; i++)
		json_object_array_add(devs, dev_obj(&h->devs[i]));
	json_object_object_add(o, "devices", devs);
	return o;
}

int main(int argc, char **argv)
{
	struct p2ps_host_source src = {.kind = P2PS_HOST_LIVE};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--live")) {
			src.kind = P2PS_HOST_LIVE;
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			src.kind = P2PS_HOST_SNAPSHOT;
			src.path = argv[++i];
		} else if (!strcmp(argv[i], "--lspci-dump") && i + 1 < argc) {
			src.kind = P2PS_HOST_LSPCI_DUMP;
			src.path = argv[++i];
		} else if (!strcmp(argv[i], "--no-nvml")) {
			src.flags |= P2PS_HOST_F_NO_NVML;
		} else if (!strcmp(argv[i], "--numeric")) {
			src.flags |= P2PS_HOST_F_NO_NAMES;
		} else {
			fprintf(stderr, "host-dump: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	struct p2ps_host host;
	struct p2ps_error err = {0};
	if (p2ps_host_load(&host, &src, &err) < 0) {
		fprintf(stderr, "host-dump: %s\n", err.msg);
		return 2;
	}
	json_object *o = host_obj(&host);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	p2ps_host_free(&host);
	return 0;
}
