/* SPDX-License-Identifier: MIT */
/* lspci dump backend: `lspci -x`, `-xxx` or `-xxxx` text (with or without -vvv
 * decoding around it) read through libpci's dump access method. A dump holds config
 * bytes only: no sizes, drivers, NUMA or IOMMU facts, and no parent links, so the
 * tree is rebuilt from bridge secondary/subordinate bus numbers as `lspci -t` does. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pci/pci.h>

#include "backends.h"
#include "host_internal.h"
#include "pcilib.h"
#include "p2pscope/parse.h"

static const char not_in_dump[] = "not recorded in an lspci dump";

/* The bridge whose bus range holds dev's bus most narrowly (the nearest one). */
static const struct p2ps_dev *bus_parent(const struct p2ps_host *host, const struct p2ps_dev *dev)
{
	const struct p2ps_dev *best = NULL;
	for (size_t i = 0; i < host->n_devs; i++) {
		const struct p2ps_dev *b = &host->devs[i];
		if (b == dev || !b->bridge.is_bridge || b->bdf.domain != dev->bdf.domain)
			continue;
		const struct p2ps_bridge *br = &b->bridge;
		/* A bridge never forwards to its own bus; ignore unconfigured (0/0) ranges. */
		if (!br->secondary || br->secondary > br->subordinate ||
		    b->bdf.bus >= br->secondary)
			continue;
		if (dev->bdf.bus < br->secondary || dev->bdf.bus > br->subordinate)
			continue;
		if (!best || br->secondary > best->bridge.secondary ||
		    (br->secondary == best->bridge.secondary &&
		     br->subordinate < best->bridge.subordinate))
			best = b;
	}
	return best;
}

void p2ps_host_tree_from_buses(struct p2ps_host *host)
{
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		if (d->has_parent)
			continue; /* a source that states the parent (a pasted lspci -t) wins */
		const struct p2ps_dev *p = bus_parent(host, d);
		if (p) {
			d->has_parent = true;
			d->parent_bdf = p->bdf;
		}
	}
	/* Root bus: follow parents up (bounded by the device count: bus ranges nest, but a
	 * corrupt dump could describe a cycle). */
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		const struct p2ps_dev *top = d;
		for (size_t hops = 0; top->has_parent && hops < host->n_devs; hops++) {
			const struct p2ps_dev *up = p2ps_host_find(host, &top->parent_bdf);
			if (!up)
				break;
			top = up;
		}
		snprintf(d->root_bus, sizeof(d->root_bus), "pci%04x:%02x", top->bdf.domain,
		         top->bdf.bus);
	}
}

/* libpci 3.9 stores a hex row at whatever offset its "%x:" prefix names and checks
 * only the upper bound, so an offset like 80ffffff (negative as an int) writes outside
 * its buffer and crashes lspci itself. Rows are checked here first: any line that
 * starts with hex digits, a colon and a space (a row; device lines continue with a
 * digit after the colon) must name an offset inside 4096 bytes. */
static int check_rows(FILE *f, const char *path, struct p2ps_error *err)
{
	char line[1024];
	unsigned long lineno = 0;
	bool at_start = true;
	while (fgets(line, sizeof(line), f)) {
		/* Only the start of a line can be a row; a long line arrives in pieces. */
		bool start = at_start;
		at_start = strchr(line, '\n') != NULL;
		if (!start)
			continue;
		lineno++;
		size_t n = strspn(line, "0123456789abcdefABCDEF");
		if (!n || line[n] != ':' ||
		    (line[n + 1] != ' ' && line[n + 1] != '\n' && line[n + 1] != '\0' &&
		     line[n + 1] != '\r'))
			continue;
		uint64_t off = UINT64_MAX;
		if (n <= 8)
			p2ps_scan_uint(line, 16, UINT32_MAX, &off);
		if (off >= P2PS_HOST_CONFIG_MAX)
			return p2ps_error_set(
			        err, P2PS_EINVAL,
			        "lspci dump %s: line %lu: config offset %.*s is beyond "
			        "4096 bytes",
			        path, lineno, (int)(n > 16 ? 16 : n), line);
	}
	if (ferror(f))
		return p2ps_error_set(err, P2PS_EIO, "lspci dump %s: %s", path, strerror(errno));
	return 0;
}

static int dump_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                     struct p2ps_error *err)
{
	struct stat st;
	if (!src->path || !*src->path)
		return p2ps_error_set(err, P2PS_EINVAL, "lspci dump: no file given");
	FILE *f = fopen(src->path, "r");
	if (!f)
		return p2ps_error_set(err, errno == EACCES ? P2PS_EACCES : P2PS_ENOENT,
		                      "lspci dump %s: %s", src->path, strerror(errno));
	int is_reg = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	if (!is_reg) {
		fclose(f);
		return p2ps_error_set(err, P2PS_EINVAL, "lspci dump %s: not a regular file",
		                      src->path);
	}
	int rc = check_rows(f, src->path, err);
	fclose(f);
	if (rc < 0)
		return rc;
	struct p2ps_pcilib_opts o = {
	        .method = PCI_ACCESS_DUMP,
	        .param = "dump.name",
	        .value = src->path,
	        .names = !(src->flags & P2PS_HOST_F_NO_NAMES),
	        .ids = src->ids_file,
	        .kernel_view = false,
	        .error_code = P2PS_EINVAL,
	};
	rc = p2ps_pcilib_scan(host, &o, err);
	if (rc < 0)
		return p2ps_error_prefix(err, "lspci dump %s", src->path);
	if (!host->n_devs)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "lspci dump %s: no devices (expected lspci -x/-xxx/-xxxx "
		                      "output: \"BB:DD.F ...\" lines followed by hex rows)",
		                      src->path);
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		if (d->config_len < 64)
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "lspci dump %s: device %s has %zu config bytes (a "
			                      "header needs 64)",
			                      src->path, d->bdf_str, d->config_len);
		p2ps_dev_set_unknown(d, P2PS_FACT_DRIVER, not_in_dump);
		p2ps_dev_set_unknown(d, P2PS_FACT_NUMA, not_in_dump);
		p2ps_dev_set_unknown(d, P2PS_FACT_IOMMU_GROUP, not_in_dump);
		if ((d->class_code >> 8) == 0x0300)
			p2ps_dev_set_unknown(d, P2PS_FACT_BOOT_VGA, not_in_dump);
	}
	p2ps_host_tree_from_buses(host);
	p2ps_strlcpy(host->nvidia.nvml_status, "not used for lspci dumps",
	             sizeof(host->nvidia.nvml_status));
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		if (p2ps_dev_is_nvidia_gpu(d)) {
			p2ps_dev_set_unknown(d, P2PS_FACT_VRAM, not_in_dump);
			p2ps_dev_set_unknown(d, P2PS_FACT_NVLINK, not_in_dump);
		}
	}
	return 0;
}

const struct p2ps_host_backend p2ps_host_backend_lspci_dump = {
        .name = "lspci-dump",
        .kind = P2PS_HOST_LSPCI_DUMP,
        .help = "lspci -x/-xxx/-xxxx output through libpci's dump method (--lspci-dump FILE)",
        .load = dump_load,
};
