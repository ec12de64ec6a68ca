/* SPDX-License-Identifier: MIT */
/* Live and snapshot backends: one code path over a sysfs/proc tree. The live backend
 * reads "/", the snapshot backend the same relative paths under --root DIR, and
 * libpci's linux_sysfs method is pointed at DIR/sys/bus/pci through its sysfs.path
 * option. What libpci does not give (link attributes, resourceN_resize, boot_vga,
 * IOMMU group type, the root bus) is read here from the device directories. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <pci/pci.h>

#include "config_decode.h"
#include "hostfacts.h"
#include "backends.h"
#include "host_internal.h"
#include "nvfacts.h"
#include "pcilib.h"
#include "p2pscope/parse.h"
#include "io.h"

extern char **environ;

/* The upstream bridge and the root bus of a device, from its sysfs path:
 * ".../devices/pci0000:00/0000:00:01.0/0000:01:00.0" has parent 0000:00:01.0 and root
 * bus pci0000:00. A parent directory that is no BDF (the pciDDDD:BB node, or a
 * platform device such as VMD) means no upstream PCI bridge. */
static void parse_position(struct p2ps_dev *d, char *real)
{
	char *slash = strrchr(real, '/');
	if (slash && slash > real) {
		*slash = '\0';
		const char *pname = strrchr(real, '/');
		struct p2ps_bdf pb;
		if (pname && p2ps_bdf_parse(pname + 1, &pb) == 0 &&
		    strchr(pname + 1, ':') != strrchr(pname + 1, ':')) {
			d->has_parent = true;
			d->parent_bdf = pb;
		}
		*slash = '/';
	}
	const char *p = strstr(real, "/pci");
	while (p) {
		uint64_t dom, bus;
		const char *q = p2ps_scan_uint(p + 4, 16, UINT32_MAX, &dom);
		q = q && *q == ':' ? p2ps_scan_uint(q + 1, 16, UINT32_MAX, &bus) : NULL;
		if (q && *q == '/') {
			snprintf(d->root_bus, sizeof(d->root_bus), "pci%04x:%02x", (unsigned)dom,
			         (unsigned)bus);
			return;
		}
		p = strstr(p + 1, "/pci");
	}
}

/* The device entry is a link into /sys/devices whose text names the parent and the root
 * bus; resolving it component by component (realpath) would cost a dozen system calls.
 * dirfd >= 0 says the link resolves; an entry that is no link is resolved. */
static void read_position(struct p2ps_dev *d, const char *path, const char *rel, int dirfd)
{
	char real[PATH_MAX + 1];
	ssize_t n = dirfd >= 0 ? readlink(path, real + 1, PATH_MAX - 1) : -1;
	if (n > 0) {
		real[0] = '/';
		real[n + 1] = '\0';
	} else if (!realpath(path, real)) {
		p2ps_dev_set_unknown(d, P2PS_FACT_PARENT, "cannot resolve %s", rel);
		return;
	}
	parse_position(d, real);
}

/* A device's attribute files, read through one handle on its directory. */
struct attrs {
	int fd;  /* O_PATH handle of the device directory, or -1 */
	int err; /* when fd < 0: the error every read gets (-errno of the open) */
};

static int attr_text(const struct attrs *a, const char *name, char *buf, size_t size)
{
	if (a->fd >= 0)
		return p2ps_read_text_at(a->fd, name, buf, size);
	buf[0] = '\0';
	return a->err;
}

static int attr_link(const struct attrs *a, const char *name, char *buf, size_t size)
{
	if (a->fd >= 0)
		return p2ps_read_link_name_at(a->fd, name, buf, size);
	buf[0] = '\0';
	return a->err;
}

/* The kernel makes the link attributes only for PCIe functions (a PCIe capability in
 * the standard list): a complete walk of the list without one says there are none. */
static bool may_have_link_attrs(const struct p2ps_dev *d)
{
	enum p2ps_walk_end end;
	if (d->config_len < 256)
		return true;
	return p2ps_cfg_find_cap(d->config, d->config_len, PCI_CAP_ID_EXP, &end) ||
	       (end != P2PS_WALK_OK && end != P2PS_WALK_NONE);
}

/* ...and resourceN_resize only for a function with a Resizable BAR capability, which
 * lives in extended config space. */
static bool may_have_resize_attrs(const struct p2ps_dev *d)
{
	enum p2ps_walk_end end;
	if (d->rebar.present || (d->config_len != 256 && d->config_len < P2PS_HOST_CONFIG_MAX))
		return true;
	if (d->config_len == 256)
		return false;
	return p2ps_cfg_find_ext_cap(d->config, d->config_len, PCI_EXT_CAP_ID_REBAR, &end) ||
	       (end != P2PS_WALK_OK && end != P2PS_WALK_NONE);
}

static void read_link(struct p2ps_dev *d, const struct attrs *a)
{
	char buf[64];
	struct p2ps_pcie *p = &d->pcie;
	static const char *const names[4] = {"max_link_speed", "max_link_width",
	                                     "current_link_speed", "current_link_width"};
	uint8_t v[4] = {0};
	bool has_attrs = may_have_link_attrs(d);
	for (int i = 0; i < 4 && has_attrs; i++) {
		if (attr_text(a, names[i], buf, sizeof(buf)) <= 0)
			continue;
		uint64_t width = 0;
		if (i % 2 && p2ps_parse_uint(buf, UINT8_MAX, &width) != 0)
			width = 0; /* the kernel's "unknown" spellings */
		v[i] = (i % 2) ? (uint8_t)width : p2ps_link_speed_parse(buf);
	}
	p->sysfs_max = (struct p2ps_link){v[0], v[1]};
	p->sysfs_cur = (struct p2ps_link){v[2], v[3]};
	if (p->cap_source == P2PS_LINK_NONE && (v[0] || v[1])) {
		p->cap = p->sysfs_max;
		p->cap_source = P2PS_LINK_SYSFS;
	}
	if (p->sta_source == P2PS_LINK_NONE && (v[2] || v[3])) {
		p->sta = p->sysfs_cur;
		p->sta_source = P2PS_LINK_SYSFS;
	}
	if (d->config_limited) {
		if (p->cap_source == P2PS_LINK_NONE)
			p2ps_dev_set_unknown(d, P2PS_FACT_LINK_CAP,
			                     "needs root: PCIe capability past 64 config bytes and "
			                     "no max_link_* in sysfs");
		if (p->sta_source == P2PS_LINK_NONE)
			p2ps_dev_set_unknown(d, P2PS_FACT_LINK_STATUS,
			                     "needs root: PCIe capability past 64 config bytes and "
			                     "no current_link_* in sysfs");
	}
}

/* Driver and IOMMU group: links, read as text. libpci resolves them with realpath(),
 * which fails in a snapshot whose link targets (bus/pci/drivers/X) were not captured, so
 * take the last component of the link text. */
static void read_driver_group(struct p2ps_dev *d, const struct attrs *a, const char *root,
                              const char *dir)
{
	char buf[256], rel[256];
	int rc = attr_link(a, "driver", buf, sizeof(buf));
	if (rc > 0)
		p2ps_strlcpy(d->driver, buf, sizeof(d->driver));
	else if (rc != -ENOENT)
		p2ps_dev_set_unknown(d, P2PS_FACT_DRIVER, "cannot read %s/driver: %s", dir,
		                     strerror(-rc));
	rc = attr_link(a, "iommu_group", buf, sizeof(buf));
	uint64_t group;
	if (rc > 0 && p2ps_parse_uint(buf, INT_MAX, &group) == 0)
		d->iommu_group = (int)group;
	else if (rc > 0)
		p2ps_dev_set_unknown(d, P2PS_FACT_IOMMU_GROUP,
		                     "%s/iommu_group: '%s' is not a group number", dir, buf);
	else if (rc != -ENOENT)
		p2ps_dev_set_unknown(d, P2PS_FACT_IOMMU_GROUP, "cannot read %s/iommu_group: %s",
		                     dir, strerror(-rc));
	if (d->iommu_group >= 0) {
		snprintf(rel, sizeof(rel), "/sys/kernel/iommu_groups/%d/type", d->iommu_group);
		if (p2ps_read_text(root, rel, buf, sizeof(buf)) > 0)
			p2ps_strlcpy(d->iommu_domain_type, buf, sizeof(d->iommu_domain_type));
		else
			p2ps_dev_set_unknown(d, P2PS_FACT_IOMMU_GROUP,
			                     "group %d has no readable type attribute",
			                     d->iommu_group);
	}
}

static void read_extras(struct p2ps_dev *d, const char *root)
{
	char dir[64], path[4096], name[32], buf[256];
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", d->bdf_str);
	struct attrs a = {-1, -ENAMETOOLONG};
	if (p2ps_path_join(path, sizeof(path), root, dir)) {
		a.fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		a.err = -errno;
		read_position(d, path, dir, a.fd);
	} else {
		p2ps_dev_set_unknown(d, P2PS_FACT_PARENT, "cannot resolve %s", dir);
	}
	read_link(d, &a);
	bool has_resize = may_have_resize_attrs(d);
	for (int i = 0; i < P2PS_HOST_MAX_BARS && has_resize; i++) {
		snprintf(name, sizeof(name), "resource%d_resize", i);
		if (attr_text(&a, name, buf, sizeof(buf)) > 0) {
			uint64_t v = 0;
			if (p2ps_scan_uint(buf, 16, UINT64_MAX, &v)) {
				d->rebar.sysfs_resize[i] = v;
				d->rebar.sysfs_resize_known[i] = true;
			}
		}
	}
	if (attr_text(&a, "boot_vga", buf, sizeof(buf)) > 0)
		d->boot_vga = buf[0] == '1';
	else if ((d->class_code >> 8) == 0x0300)
		p2ps_dev_set_unknown(d, P2PS_FACT_BOOT_VGA, "no boot_vga attribute in sysfs");
	read_driver_group(d, &a, root, dir);
	if (a.fd >= 0)
		close(a.fd);
	/* Devices directly on a root bus have no upstream bridge; the host bridge is the
	 * root bus itself. A device whose position could not be read is not known to be one. */
	if (!d->has_parent && !d->root_bus[0] && !p2ps_dev_unknown(d, P2PS_FACT_PARENT))
		snprintf(d->root_bus, sizeof(d->root_bus), "pci%04x:%02x", d->bdf.domain,
		         d->bdf.bus);
}

/* capture-host.sh's date (20261122T002701Z) in ISO 8601 (2026-11-22T00:27:01Z); anything
 * else leaves the time unknown. */
static void capture_time(struct p2ps_host *host, const char *d)
{
	if (strlen(d) != 16 || d[8] != 'T' || d[15] != 'Z' || strspn(d, "0123456789") != 8 ||
	    strspn(d + 9, "0123456789") != 6)
		return;
	snprintf(host->time, sizeof(host->time), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", d, d + 4, d + 6,
	         d + 9, d + 11, d + 13);
}

static void read_snapshot_info(struct p2ps_host *host, const char *root)
{
	char *info = NULL;
	if (p2ps_read_all(root, "/p2pscope/snapshot-info", 1 << 16, &info) < 0)
		return;
	char *save = NULL;
	for (char *l = strtok_r(info, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		uint64_t uid;
		if (!strncmp(l, "uid=", 4))
			host->is_root = p2ps_parse_uint(l + 4, UINT32_MAX, &uid) == 0 && uid == 0;
		else if (!strncmp(l, "hostname=", 9))
			p2ps_strlcpy(host->hostname, l + 9, sizeof(host->hostname));
		else if (!strncmp(l, "kernel=", 7))
			p2ps_strlcpy(host->kernel, l + 7, sizeof(host->kernel));
		else if (!strncmp(l, "date=", 5))
			capture_time(host, l + 5);
	}
	free(info);
}

/* Which boot, which kernel, when: the boot id from the tree (capture-host.sh keeps it;
 * older captures lack it); for a live host also uname's release and the current time. */
static void read_identity(struct p2ps_host *host, const char *root, bool live)
{
	char buf[64];
	if (p2ps_read_text(root, "/proc/sys/kernel/random/boot_id", buf, sizeof(buf)) > 0)
		p2ps_strlcpy(host->boot_id, buf, sizeof(host->boot_id));
	if (!live)
		return;
	struct utsname u;
	if (uname(&u) == 0)
		p2ps_strlcpy(host->kernel, u.release, sizeof(host->kernel));
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(host->time, sizeof(host->time), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int load_tree(struct p2ps_host *host, const struct p2ps_host_source *src, const char *root,
                     bool live, struct p2ps_error *err)
{
	char devices[4096], sysfs_path[4096];
	struct stat st;
	if (!p2ps_path_join(devices, sizeof(devices), root, "/sys/bus/pci/devices") ||
	    !p2ps_path_join(sysfs_path, sizeof(sysfs_path), root, "/sys/bus/pci"))
		return p2ps_error_set(err, P2PS_EINVAL, "%s: path too long", root);
	if (!live && stat(root, &st) != 0)
		return p2ps_error_set(err, errno == EACCES ? P2PS_EACCES : P2PS_ENOENT,
		                      "snapshot %s: %s", root, strerror(errno));
	if (!live && !S_ISDIR(st.st_mode))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "snapshot %s: not a directory (extract the tarball of "
		                      "p2pscope-capture-host first: tar xf FILE -C DIR)",
		                      root);
	if (stat(devices, &st) != 0 || !S_ISDIR(st.st_mode))
		return p2ps_error_set(err, P2PS_ENOENT, "%s%s: no sys/bus/pci/devices directory",
		                      live ? "" : "snapshot ", live ? "/sys" : root);
	if (access(devices, R_OK | X_OK) != 0)
		return p2ps_error_set(err, P2PS_EACCES, "%s: %s", devices, strerror(errno));

	struct p2ps_pcilib_opts o = {
	        .method = PCI_ACCESS_SYS_BUS_PCI,
	        .param = "sysfs.path",
	        .value = sysfs_path,
	        .names = !(src->flags & P2PS_HOST_F_NO_NAMES),
	        .ids = src->ids_file,
	        .kernel_view = true,
	        .config_files = true,
	        /* A snapshot's bad file is bad input; on a live host it is a failed read. */
	        .error_code = live ? P2PS_EIO : P2PS_EINVAL,
	};
	/* The RM session waits on the GPUs' firmware; the PCI devices are read meanwhile. */
	struct p2ps_rm_facts_job *rm_job = NULL;
	if ((live || src->rm_sys) && p2ps_nvidia_facts_use_rm(src))
		p2ps_rm_facts_start(&rm_job, src->rm_sys, root);
	int rc = p2ps_pcilib_scan(host, &o, err);
	if (rc < 0) {
		p2ps_rm_facts_discard(rm_job);
		return p2ps_error_prefix(err, "%s", live ? "/sys" : root);
	}
	uint64_t lap = p2ps_clock_ns();
	for (size_t i = 0; i < host->n_devs; i++) {
		struct p2ps_dev *d = &host->devs[i];
		read_extras(d, root);
		if (d->config_limited)
			host->config_limited_any = true;
	}
	p2ps_timings_lap(host->timings, "sysfs: position, links, resize, driver, group", &lap);
	p2ps_hostfacts_read(host, root, live);
	read_identity(host, root, live);
	p2ps_timings_lap(host->timings, "host facts: IOMMU, cmdline, NVIDIA, VM", &lap);
	if (live) {
		host->is_root = geteuid() == 0;
		/* The name only labels the report; a failure leaves it empty. */
		if (gethostname(host->hostname, sizeof(host->hostname) - 1) != 0)
			host->hostname[0] = '\0';
		p2ps_hostfacts_nccl_env(host, src->envp ? src->envp : (const char *const *)environ);
		p2ps_nvidia_facts_fill(host, src, rm_job);
	} else {
		read_snapshot_info(host, root);
		if (src->envp)
			p2ps_hostfacts_nccl_env(host, src->envp);
		else
			p2ps_hostfacts_nccl_env_file(host, root);
		if (src->rm_sys) /* a replay: the RM API's answers, as live */
			p2ps_nvidia_facts_fill(host, src, rm_job);
		else
			p2ps_nvsmi_fill(host, root);
	}
	p2ps_timings_lap(host->timings, "NCCL env, NVIDIA facts (RM, NVML or nvidia-smi files)",
	                 &lap);
	p2ps_gpu_facts_finish(host);
	return 0;
}

static int sysfs_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                      struct p2ps_error *err)
{
	const char *root = src->path && strcmp(src->path, "/") ? src->path : "";
	return load_tree(host, src, root, true, err);
}

static int snapshot_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                         struct p2ps_error *err)
{
	if (!src->path || !*src->path)
		return p2ps_error_set(err, P2PS_EINVAL, "snapshot: no root directory given");
	return load_tree(host, src, src->path, false, err);
}

const struct p2ps_host_backend p2ps_host_backend_sysfs = {
        .name = "sysfs",
        .kind = P2PS_HOST_LIVE,
        .help = "this machine: libpci linux_sysfs plus /sys and /proc attributes",
        .load = sysfs_load,
};

const struct p2ps_host_backend p2ps_host_backend_snapshot = {
        .name = "snapshot",
        .kind = P2PS_HOST_SNAPSHOT,
        .help = "a captured tree (p2pscope-capture-host): DIR/sys/..., DIR/proc/...",
        .load = snapshot_load,
};
