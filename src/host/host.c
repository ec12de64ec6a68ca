/* Host model: backend registry, loading, lookups and unit helpers. */
#include "host_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"
#include "p2pscope/paste.h"

/* One line per backend this build knows; a new backend file adds its table here. */
static const struct p2ps_host_backend *const backends[] = {
        &p2ps_host_backend_sysfs, &p2ps_host_backend_snapshot, &p2ps_host_backend_lspci_dump,
        &p2ps_host_backend_vfio,  &p2ps_host_backend_paste,
};

const struct p2ps_host_backend *p2ps_host_backend_find(enum p2ps_host_backend_kind kind)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (backends[i]->kind == kind)
			return backends[i];
	return NULL;
}

void p2ps_strlcpy(char *dst, const char *src, size_t size)
{
	if (!size)
		return;
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void p2ps_dev_set_unknown(struct p2ps_dev *dev, enum p2ps_fact fact, const char *fmt, ...)
{
	if (fact < 0 || fact >= P2PS_FACT_COUNT)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dev->unknown[fact], sizeof(dev->unknown[fact]), fmt, ap);
	va_end(ap);
}

const char *p2ps_dev_unknown(const struct p2ps_dev *dev, enum p2ps_fact fact)
{
	if (!dev || fact < 0 || fact >= P2PS_FACT_COUNT || !dev->unknown[fact][0])
		return NULL;
	return dev->unknown[fact];
}

const char *p2ps_fact_name(enum p2ps_fact fact)
{
	static const char *const names[P2PS_FACT_COUNT] = {
	        [P2PS_FACT_CONFIG] = "config",
	        [P2PS_FACT_CAPS] = "caps",
	        [P2PS_FACT_BAR_SIZES] = "bar_sizes",
	        [P2PS_FACT_LINK_CAP] = "link_cap",
	        [P2PS_FACT_LINK_STATUS] = "link_status",
	        [P2PS_FACT_ACS] = "acs",
	        [P2PS_FACT_REBAR] = "rebar",
	        [P2PS_FACT_DRIVER] = "driver",
	        [P2PS_FACT_NUMA] = "numa_node",
	        [P2PS_FACT_IOMMU_GROUP] = "iommu_group",
	        [P2PS_FACT_BOOT_VGA] = "boot_vga",
	        [P2PS_FACT_PARENT] = "parent",
	        [P2PS_FACT_VRAM] = "vram",
	        [P2PS_FACT_NVLINK] = "nvlink",
	};
	if (fact < 0 || fact >= P2PS_FACT_COUNT)
		return "?";
	return names[fact];
}

struct p2ps_dev *p2ps_host_add_dev(struct p2ps_host *host, size_t *cap)
{
	if (host->n_devs == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct p2ps_dev *n = realloc(host->devs, ncap * sizeof(*n));
		if (!n)
			return NULL;
		host->devs = n;
		*cap = ncap;
	}
	struct p2ps_dev *d = &host->devs[host->n_devs++];
	memset(d, 0, sizeof(*d));
	d->parent_idx = -1;
	d->numa_node = -1;
	d->iommu_group = -1;
	d->boot_vga = -1;
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++)
		d->bars[i].index = (uint8_t)i;
	return d;
}

static int bdf_cmp(const struct p2ps_bdf *a, const struct p2ps_bdf *b)
{
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return 0;
}

static int dev_cmp(const void *a, const void *b)
{
	return bdf_cmp(&((const struct p2ps_dev *)a)->bdf, &((const struct p2ps_dev *)b)->bdf);
}

void p2ps_host_sort_and_link(struct p2ps_host *host)
{
	if (host->n_devs > 1)
		qsort(host->devs, host->n_devs, sizeof(host->devs[0]), dev_cmp);
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		d->parent = d->has_parent ? p2ps_host_find(host, &d->parent_bdf) : NULL;
		d->parent_idx = d->parent ? (int)(d->parent - host->devs) : -1;
	}
}

struct p2ps_dev *p2ps_host_find(const struct p2ps_host *host, const struct p2ps_bdf *bdf)
{
	if (!host || !bdf)
		return NULL;
	for (size_t i = 0; i < host->n_devs; i++)
		if (!bdf_cmp(&host->devs[i].bdf, bdf))
			return &host->devs[i];
	return NULL;
}

/* Reads exactly the hex digits up to the next delimiter (max digits); -1 if none or too many. */
static long hex_field(const char **p, int max, char delim)
{
	long v = 0;
	int n = 0;
	while (isxdigit((unsigned char)**p)) {
		if (++n > max)
			return -1;
		char c = (char)tolower((unsigned char)**p);
		v = v * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
		(*p)++;
	}
	if (!n || **p != delim)
		return -1;
	if (delim)
		(*p)++;
	return v;
}

int p2ps_bdf_parse(const char *s, struct p2ps_bdf *out)
{
	if (!s || !out)
		return P2PS_EINVAL;
	/* "DDDD:BB:DD.F" has two colons, "BB:DD.F" one; the domain may be up to 8 digits. */
	const char *c1 = strchr(s, ':');
	bool has_domain = c1 && strchr(c1 + 1, ':');
	const char *p = s;
	long dom = has_domain ? hex_field(&p, 8, ':') : 0;
	long bus = hex_field(&p, 2, ':');
	long dev = hex_field(&p, 2, '.');
	long fn = hex_field(&p, 1, '\0');
	if (dom < 0 || bus < 0 || dev < 0 || fn < 0 || dev > 0x1f || fn > 7)
		return P2PS_EINVAL;
	out->domain = (uint32_t)dom;
	out->bus = (uint8_t)bus;
	out->dev = (uint8_t)dev;
	out->fn = (uint8_t)fn;
	return 0;
}

bool p2ps_bdf_equal(const struct p2ps_bdf *a, const struct p2ps_bdf *b)
{
	return !bdf_cmp(a, b);
}

char *p2ps_bdf_format(const struct p2ps_bdf *bdf, char *buf, size_t size)
{
	snprintf(buf, size, "%04x:%02x:%02x.%x", (unsigned)bdf->domain, bdf->bus, bdf->dev,
	         bdf->fn);
	return buf;
}

bool p2ps_dev_is_bridge(const struct p2ps_dev *dev)
{
	return dev && dev->header_type == 1;
}

bool p2ps_dev_is_nvidia_gpu(const struct p2ps_dev *dev)
{
	return dev && dev->vendor_id == 0x10de && (dev->class_code >> 16) == 0x03;
}

double p2ps_link_speed_gts(uint8_t speed)
{
	static const double gts[] = {0.0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
	return speed < sizeof(gts) / sizeof(gts[0]) ? gts[speed] : 0.0;
}

double p2ps_link_gbps(const struct p2ps_link *link)
{
	if (!link || !link->width)
		return 0.0;
	double gts = p2ps_link_speed_gts(link->speed);
	/* Line-code efficiency per generation: 8b/10b (Gen1/2), 128b/130b (Gen3..5),
	 * FLIT mode with 236 payload bytes of each 256-byte flit at Gen6. */
	double eff = link->speed <= 2 ? 0.8 : link->speed <= 5 ? 128.0 / 130.0 : 236.0 / 256.0;
	return gts * eff * link->width / 8.0;
}

uint8_t p2ps_link_speed_parse(const char *s)
{
	static const struct {
		const char *prefix;
		uint8_t code;
	} speeds[] = {{"2.5 GT/s", 1}, {"5.0 GT/s", 2},  {"5 GT/s", 2},  {"8.0 GT/s", 3},
	              {"8 GT/s", 3},   {"16.0 GT/s", 4}, {"16 GT/s", 4}, {"32.0 GT/s", 5},
	              {"32 GT/s", 5},  {"64.0 GT/s", 6}, {"64 GT/s", 6}};
	if (!s)
		return 0;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (!strncmp(s, speeds[i].prefix, strlen(speeds[i].prefix)))
			return speeds[i].code;
	return 0;
}

const char *p2ps_pcie_type_name(uint8_t port_type)
{
	switch (port_type) {
	case P2PS_PCIE_ENDPOINT: return "Endpoint";
	case P2PS_PCIE_LEGACY_ENDPOINT: return "Legacy Endpoint";
	case P2PS_PCIE_ROOT_PORT: return "Root Port";
	case P2PS_PCIE_SWITCH_UPSTREAM: return "Upstream Port";
	case P2PS_PCIE_SWITCH_DOWNSTREAM: return "Downstream Port";
	case P2PS_PCIE_PCIE_TO_PCI: return "PCI-Express to PCI/PCI-X Bridge";
	case P2PS_PCIE_PCI_TO_PCIE: return "PCI/PCI-X to PCI-Express Bridge";
	case P2PS_PCIE_RC_ENDPOINT: return "Root Complex Integrated Endpoint";
	case P2PS_PCIE_RC_EVENT_COLLECTOR: return "Root Complex Event Collector";
	default: return "Unknown type";
	}
}

uint64_t p2ps_rebar_size_bytes(uint8_t log2_mib)
{
	/* ReBAR sizes run from 1 MiB (index 0) to 2^43 MiB; beyond 2^63 bytes is nonsense. */
	if (log2_mib > 43)
		return 0;
	return (uint64_t)1 << (20 + log2_mib);
}

int p2ps_host_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                   struct p2ps_error *err)
{
	if (!host || !src)
		return p2ps_error_set(err, P2PS_EINVAL, "p2ps_host_load: no host or source");
	memset(host, 0, sizeof(*host));
	const struct p2ps_host_backend *be = p2ps_host_backend_find(src->kind);
	if (!be)
		return p2ps_error_set(err, P2PS_ENOTSUP, "host backend %d is not in this build",
		                      (int)src->kind);
	host->kind = src->kind;
	host->backend_name = be->name;
	if (src->path)
		p2ps_strlcpy(host->source_path, src->path, sizeof(host->source_path));
	int rc = be->load(host, src, err);
	if (rc < 0) {
		p2ps_host_free(host);
		return rc;
	}
	p2ps_host_sort_and_link(host);
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		/* A backend may know the chip without a device id (a paste names the board). */
		if (d->vendor_id == 0x10de && p2ps_nvidia_chip_lookup(d->device_id))
			d->chip = p2ps_nvidia_chip_lookup(d->device_id);
	}
	return 0;
}

void p2ps_host_free(struct p2ps_host *host)
{
	if (!host)
		return;
	free(host->devs);
	free(host->cmdline.raw);
	if (host->paste) {
		p2ps_paste_free(host->paste);
		free(host->paste);
	}
	memset(host, 0, sizeof(*host));
}
