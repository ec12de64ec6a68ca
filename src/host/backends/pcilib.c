/* SPDX-License-Identifier: MIT */
/* libpci glue: one scan over an access method, filling the host model. */
#include "pcilib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pci/pci.h>

#include "config_decode.h"
#include "config_fetch.h"
#include "host_internal.h"
#include "p2pscope/bytes.h"
#include "pciids.h"

/* State of one scan. libpci reports fatal errors through a hook that takes no context
 * argument and must not return, so the hook finds the scan through a thread-local
 * pointer and longjmps back to p2ps_pcilib_scan(). This pointer is the only static
 * state in the library and lives only while a scan runs on this thread. */
struct scan {
	jmp_buf jb;
	char msg[256];
	char warning[256];
	struct pci_access *acc;
	struct p2ps_host *host;
	size_t cap;
	const struct p2ps_pcilib_opts *o;
	uint64_t lap;    /* start of the phase being timed */
	long long limit; /* config bytes this process may read from a file; 0: not known yet */
	struct p2ps_cfg_fetch *fetch; /* the config reader, one device at a time */
};

static _Thread_local struct scan *current_scan;

__attribute__((noreturn)) static void pcilib_error(char *fmt, ...)
{
	struct scan *s = current_scan;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	longjmp(s->jb, 1);
}

static void pcilib_warning(char *fmt, ...)
{
	struct scan *s = current_scan;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->warning, sizeof(s->warning), fmt, ap);
	va_end(ap);
}

static void pcilib_debug(char *fmt, ...)
{
	(void)fmt;
}

/* pci.ids only: udev's hwdb answers differ between hosts (a snapshot's names would
 * depend on the reader's machine) and libpci 3.9 leaks a udev handle per hwdb lookup. */
#define NAME_FLAGS PCI_LOOKUP_NO_HWDB

static void lookup_names(struct pci_access *acc, struct p2ps_dev *d)
{
	char buf[P2PS_HOST_NAME_MAX];
	const char *n;
	n = pci_lookup_name(acc, buf, sizeof(buf),
	                    PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS | NAME_FLAGS, d->vendor_id);
	if (n)
		p2ps_strlcpy(d->vendor_name, n, sizeof(d->vendor_name));
	n = pci_lookup_name(acc, buf, sizeof(buf),
	                    PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS | NAME_FLAGS, d->vendor_id,
	                    d->device_id);
	if (n)
		p2ps_strlcpy(d->device_name, n, sizeof(d->device_name));
	if (d->subsys_vendor_id) {
		n = pci_lookup_name(acc, buf, sizeof(buf),
		                    PCI_LOOKUP_SUBSYSTEM | PCI_LOOKUP_DEVICE |
		                            PCI_LOOKUP_NO_NUMBERS | NAME_FLAGS,
		                    d->vendor_id, d->device_id, d->subsys_vendor_id, d->subsys_id);
		if (n)
			p2ps_strlcpy(d->subsys_name, n, sizeof(d->subsys_name));
	}
}

/* The kernel's view of BARs (sysfs resource file through libpci): addresses as the
 * kernel assigned them and sizes. Register types still come from config space. */
static void merge_kernel_bars(struct pci_dev *pd, struct p2ps_dev *d, int known)
{
	int nbars = d->header_type == 0 ? 6 : d->header_type == 1 ? 2 : 1;
	for (int i = 0; i < nbars; i++) {
		struct p2ps_bar *b = &d->bars[i];
		pciaddr_t base = pd->base_addr[i];
		pciaddr_t size = (known & PCI_FILL_SIZES) ? pd->size[i] : 0;
		if (i > 0 && d->bars[i - 1].is_64bit)
			continue;
		if (!base && !size && !b->present)
			continue;
		if (!b->present) {
			/* Config space shows nothing (e.g. unreadable) but the kernel has a
			 * resource: take its type from the address flags libpci passes on. */
			b->present = true;
			b->io = (base & PCI_BASE_ADDRESS_SPACE) == PCI_BASE_ADDRESS_SPACE_IO;
			if (!b->io) {
				b->prefetchable = (base & PCI_BASE_ADDRESS_MEM_PREFETCH) != 0;
				b->is_64bit = (base & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
				              PCI_BASE_ADDRESS_MEM_TYPE_64;
			}
		}
		b->address = b->io ? (base & PCI_ADDR_IO_MASK) : (base & PCI_ADDR_MEM_MASK);
		b->unassigned = p2ps_bar_unassigned(d, b);
		if (known & PCI_FILL_SIZES) {
			b->size = size;
			b->size_known = true;
		}
	}
	if (known & PCI_FILL_ROM_BASE) {
		if (pd->rom_base_addr || pd->rom_size) {
			d->rom.present = true;
			d->rom.address = pd->rom_base_addr & PCI_ROM_ADDRESS_MASK;
		}
		if ((known & PCI_FILL_SIZES) && d->rom.present) {
			d->rom.size = pd->rom_size;
			d->rom.size_known = true;
		}
	}
}

static bool read_config(void *ctx, unsigned off, uint8_t *buf, unsigned n)
{
	return pci_read_block(ctx, (int)off, buf, (int)n) != 0;
}

/* The size of a device's config file as far as this process may read it (-1 when the
 * method has no files). The kernel lets only CAP_SYS_ADMIN read past 64 bytes of
 * config; one read of the last dword of 256 bytes, on the first device that has them,
 * tells which this process is. */
static long long config_size(struct scan *s, struct pci_dev *pd)
{
	char path[4096];
	struct stat st;
	if (!s->o->config_files)
		return -1;
	int n = snprintf(path, sizeof(path), "%s/devices/%04x:%02x:%02x.%d/config", s->o->value,
	                 pd->domain, pd->bus, pd->dev, pd->func);
	if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	if (st.st_size >= 256 && !s->limit) {
		uint8_t dw[4];
		s->limit = pci_read_block(pd, 252, dw, 4) ? P2PS_HOST_CONFIG_MAX : 64;
	}
	return s->limit && st.st_size > s->limit ? s->limit : st.st_size;
}

/* The header: config length, identity, BAR registers, bridge windows. Registers the
 * kernel already gave (class and revision, nonzero subsystem ids) are not read. */
static void fill_header(struct scan *s, struct p2ps_cfg_fetch *f, struct pci_dev *pd,
                        struct p2ps_dev *d, int known)
{
	unsigned skip = 0;
	if (s->o->kernel_view && (known & PCI_FILL_CLASS) && (known & PCI_FILL_CLASS_EXT))
		skip |= 1u << 2;
	if (s->o->kernel_view && (known & PCI_FILL_SUBSYS) &&
	    (pd->subsys_vendor_id || pd->subsys_id))
		skip |= 1u << 11;
	p2ps_cfg_fetch_reset(f);
	f->ctx = pd;
	f->size = config_size(s, pd);
	p2ps_cfg_fetch_header(f, skip);
	d->config_len = f->len;
	d->config_limited = d->config_len == 64;
	memcpy(d->config, f->buf, d->config_len);
	p2ps_cfg_decode_header(d);
	if (d->config_len == 0)
		p2ps_dev_set_unknown(d, P2PS_FACT_CONFIG, "config space not readable");
	else if (d->config_len == 64 && s->o->kernel_view)
		p2ps_dev_set_unknown(d, P2PS_FACT_CONFIG,
		                     "needs root: config space past 64 bytes is not readable");
	else if (d->config_len < P2PS_HOST_CONFIG_MAX && !s->o->kernel_view)
		p2ps_dev_set_unknown(d, P2PS_FACT_CONFIG, "the dump holds %zu config bytes",
		                     d->config_len);
	if (d->config_len >= 64 && d->header_type == 0x7f)
		p2ps_dev_set_unknown(d, P2PS_FACT_CONFIG,
		                     "config space reads as all-ones (device in D3cold or gone)");
}

/* What libpci knows besides config space (pci_fill_info): for sysfs the kernel's
 * identity (after quirks), BAR addresses and sizes, NUMA node; dumps only have config. */
static int fill_info(const struct p2ps_pcilib_opts *o, struct pci_dev *pd)
{
	int want = PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_BASES | PCI_FILL_ROM_BASE |
	           PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS;
	if (o->kernel_view)
		want |= PCI_FILL_SIZES | PCI_FILL_IO_FLAGS | PCI_FILL_NUMA_NODE;
	/* Not PCI_FILL_PARENT, _DRIVER or _IOMMU_GROUP: libpci 3.9 resolves those links
	 * with realpath(), which fails on a snapshot's dangling driver links and leaks
	 * the buffer behind PARENT; the sysfs backend reads the links itself. */
	return pci_fill_info(pd, want);
}

/* Lays what libpci knows over what the config header said. */
static void fill_kernel(struct scan *s, struct pci_dev *pd, struct p2ps_dev *d, int known)
{
	if (known & PCI_FILL_IDENT) {
		d->vendor_id = pd->vendor_id;
		d->device_id = pd->device_id;
	}
	if (known & PCI_FILL_CLASS) {
		uint8_t prog_if = (known & PCI_FILL_CLASS_EXT) ? pd->prog_if : d->class_code & 0xff;
		d->class_code = (uint32_t)pd->device_class << 8 | prog_if;
	}
	if (known & PCI_FILL_CLASS_EXT)
		d->revision = pd->rev_id;
	if ((known & PCI_FILL_SUBSYS) && (pd->subsys_vendor_id || pd->subsys_id)) {
		d->subsys_vendor_id = pd->subsys_vendor_id;
		d->subsys_id = pd->subsys_id;
	}
	if (!s->o->kernel_view) {
		p2ps_dev_set_unknown(d, P2PS_FACT_BAR_SIZES,
		                     "lspci dumps carry no BAR sizes (config registers only)");
		return;
	}
	merge_kernel_bars(pd, d, known);
	if (known & PCI_FILL_NUMA_NODE)
		d->numa_node = pd->numa_node;
}

/* Capability offsets from libpci's list (it follows id-0 extended entries too), decoded
 * from our copy; the bounded walks in decode.c then fill what libpci's list missed and
 * say how the chains ended. */
static void fill_caps(struct scan *s, struct p2ps_cfg_fetch *f, struct p2ps_dev *d)
{
	if (d->config_len > 64) {
		p2ps_cfg_fetch_caps(f);
		memcpy(d->config, f->buf, d->config_len);
		p2ps_timings_lap(s->host->timings, "libpci: config space reads", &s->lap);
		pci_setup_cache(f->ctx, f->buf, (int)d->config_len);
		size_t n;
		const struct p2ps_cap_decoder *t = p2ps_cap_decoders(&n);
		for (size_t i = 0; i < n; i++) {
			struct pci_cap *cap = pci_find_cap(
			        f->ctx, t[i].id, t[i].extended ? PCI_CAP_EXTENDED : PCI_CAP_NORMAL);
			if (cap)
				t[i].decode(d, (uint16_t)cap->addr);
		}
		pci_setup_cache(f->ctx, NULL, 0);
	}
	p2ps_cfg_decode_caps(d);
	p2ps_timings_lap(s->host->timings, "capability lists and decoding", &s->lap);
}

static void fill_one(struct scan *s, struct pci_dev *pd, struct p2ps_dev *d,
                     struct p2ps_cfg_fetch *f)
{
	struct p2ps_timings *t = s->host->timings;
	d->bdf.domain = (uint32_t)pd->domain;
	d->bdf.bus = pd->bus;
	d->bdf.dev = pd->dev;
	d->bdf.fn = pd->func;
	p2ps_bdf_format(&d->bdf, d->bdf_str, sizeof(d->bdf_str));
	int known = fill_info(s->o, pd);
	p2ps_timings_lap(t, "libpci: sysfs attributes", &s->lap);
	fill_header(s, f, pd, d, known);
	p2ps_timings_lap(t, "libpci: config space reads", &s->lap);
	fill_kernel(s, pd, d, known);
	fill_caps(s, f, d);
}

/* Names of every device, from one pass over pci.ids (pciids.c); libpci's own lookup
 * (which loads the whole list) only for a compressed list. */
static void fill_names(struct scan *s)
{
	struct p2ps_host *h = s->host;
	if (p2ps_pciids_fill(s->acc->id_file_name, h->devs, h->n_devs) == P2PS_PCIIDS_USE_LIBPCI)
		for (size_t i = 0; i < h->n_devs; i++)
			lookup_names(s->acc, &h->devs[i]);
	p2ps_timings_lap(h->timings, "pci.ids names", &s->lap);
}

static int scan_body(struct scan *s, struct p2ps_error *err)
{
	struct pci_access *acc = s->acc;
	if (pci_set_param(acc, (char *)s->o->param, (char *)s->o->value) < 0)
		return p2ps_error_set(err, P2PS_ENOTSUP, "libpci has no parameter %s", s->o->param);
	pci_init(acc);
	pci_scan_bus(acc);
	p2ps_timings_lap(s->host->timings, "libpci: init and device list", &s->lap);
	for (struct pci_dev *pd = acc->devices; pd; pd = pd->next) {
		struct p2ps_dev *d = p2ps_host_add_dev(s->host, &s->cap);
		if (!d)
			return p2ps_error_set(err, P2PS_ENOMEM, "out of memory for %zu devices",
			                      s->host->n_devs);
		fill_one(s, pd, d, s->fetch);
	}
	if (s->o->names)
		fill_names(s);
	return 0;
}

int p2ps_pcilib_scan(struct p2ps_host *host, const struct p2ps_pcilib_opts *o,
                     struct p2ps_error *err)
{
	struct scan s = {.host = host, .o = o, .lap = p2ps_clock_ns()};
	/* Outside the setjmp: libpci's errors jump past scan_body's end. */
	s.fetch = malloc(sizeof(*s.fetch));
	s.acc = s.fetch ? pci_alloc() : NULL;
	if (!s.acc) {
		free(s.fetch);
		return p2ps_error_set(err, P2PS_ENOMEM, "libpci: out of memory");
	}
	s.fetch->read = read_config;
	s.acc->method = (unsigned)o->method;
	s.acc->error = pcilib_error;
	s.acc->warning = pcilib_warning;
	s.acc->debug = pcilib_debug;
	/* Local pci.ids only: no DNS lookups, no ~/.pciids-cache, no hwdb. */
	s.acc->id_lookup_mode = NAME_FLAGS;
	if (o->ids)
		pci_set_name_list_path(s.acc, (char *)o->ids, 0);
	struct scan *volatile saved = current_scan;
	current_scan = &s;
	int rc;
	if (setjmp(s.jb)) {
		rc = p2ps_error_set(err, o->error_code ? o->error_code : P2PS_EIO, "libpci: %s",
		                    s.msg);
	} else {
		rc = scan_body(&s, err);
	}
	current_scan = saved;
	pci_cleanup(s.acc);
	free(s.fetch);
	return rc;
}
