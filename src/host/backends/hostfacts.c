/* SPDX-License-Identifier: MIT */
/* Host-wide facts: IOMMU, kernel command line, NVIDIA module, hypervisor, NCCL env. */
#include "hostfacts.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "io.h"
#include "p2pscope/parse.h"

static void read_iommu(struct p2ps_host *host, const char *root, bool live)
{
	char path[4096];
	struct p2ps_host_iommu *io = &host->iommu;
	if (!p2ps_path_join(path, sizeof(path), root, "/sys/class/iommu"))
		return;
	DIR *dir = opendir(path);
	if (!dir) {
		/* A kernel without IOMMU drivers has no /sys/class/iommu at all. */
		io->known = live;
		return;
	}
	io->known = true;
	const struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		io->present = true;
		/* Space-separated names, each appended whole or not at all (with its NUL). */
		size_t used = strlen(io->units), n = strlen(e->d_name);
		if (used + n + 2 < sizeof(io->units)) {
			char *p = io->units + used;
			if (used)
				*p++ = ' ';
			memcpy(p, e->d_name, n + 1);
		}
		/* Unit names tell the driver: dmarN (Intel VT-d), ivhdN (AMD-Vi), smmu (Arm). */
		const char *kind = !strncmp(e->d_name, "dmar", 4)   ? "intel"
		                   : !strncmp(e->d_name, "ivhd", 4) ? "amd"
		                   : strstr(e->d_name, "smmu")      ? "arm-smmu"
		                   : strstr(e->d_name, "virtio")    ? "virtio"
		                                                    : "other";
		if (!io->kind[0])
			p2ps_strlcpy(io->kind, kind, sizeof(io->kind));
	}
	closedir(dir);
	if (p2ps_path_join(path, sizeof(path), root, "/sys/kernel/iommu_groups") &&
	    (dir = opendir(path))) {
		while ((e = readdir(dir)))
			if (isdigit((unsigned char)e->d_name[0]))
				io->n_groups++;
		closedir(dir);
	}
}

/* Copies the value of key=value from a space-separated command line (last wins, as
 * the kernel's parser lets later parameters override earlier ones). */
static void cmdline_value(const char *cmd, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	const char *p = cmd;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *tok = p;
		while (*p && *p != ' ')
			p++;
		/* Everything after "--" goes to init, not the kernel. */
		if (p - tok == 2 && !strncmp(tok, "--", 2))
			return;
		if ((size_t)(p - tok) > klen && !strncmp(tok, key, klen) && tok[klen] == '=') {
			size_t n = (size_t)(p - tok) - klen - 1;
			if (n >= size)
				n = size - 1;
			memcpy(out, tok + klen + 1, n);
			out[n] = '\0';
		}
	}
}

void p2ps_cmdline_parse(struct p2ps_host_cmdline *c)
{
	if (!c->raw)
		return;
	cmdline_value(c->raw, "iommu", c->iommu, sizeof(c->iommu));
	cmdline_value(c->raw, "intel_iommu", c->intel_iommu, sizeof(c->intel_iommu));
	cmdline_value(c->raw, "amd_iommu", c->amd_iommu, sizeof(c->amd_iommu));
	cmdline_value(c->raw, "iommu.passthrough", c->iommu_passthrough,
	              sizeof(c->iommu_passthrough));
	cmdline_value(c->raw, "pcie_acs_override", c->pcie_acs_override,
	              sizeof(c->pcie_acs_override));
	cmdline_value(c->raw, "pci", c->pci, sizeof(c->pci));
	cmdline_value(c->raw, "iommu.strict", c->iommu_strict, sizeof(c->iommu_strict));
}

void p2ps_nvidia_version_number(const char *line, char *out, size_t size)
{
	/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release ..."
	 * The version is the first token of digits and dots with at least one dot. */
	out[0] = '\0';
	for (const char *p = line; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > line && !isspace((unsigned char)p[-1])))
			continue;
		size_t n = strspn(p, "0123456789.");
		if (n > 2 && memchr(p, '.', n) && (p[n] == '\0' || isspace((unsigned char)p[n]))) {
			if (n >= size)
				n = size - 1;
			memcpy(out, p, n);
			out[n] = '\0';
			return;
		}
	}
}

static void read_nvidia(struct p2ps_host *host, const char *root)
{
	struct p2ps_host_nvidia *nv = &host->nvidia;
	char buf[1024];
	nv->module_known = p2ps_read_text(root, "/sys/module/nvidia/version", nv->module_version,
	                                  sizeof(nv->module_version)) > 0;
	if (p2ps_read_text(root, "/proc/driver/nvidia/version", buf, sizeof(buf)) > 0) {
		char *nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
		nv->proc_known = true;
		p2ps_strlcpy(nv->proc_version, buf, sizeof(nv->proc_version));
		p2ps_nvidia_version_number(buf, nv->proc_driver_version,
		                           sizeof(nv->proc_driver_version));
	}
}

static int rdma_by_name(const void *a, const void *b)
{
	return strcmp(((const struct p2ps_rdma_dev *)a)->name,
	              ((const struct p2ps_rdma_dev *)b)->name);
}

/* GPUDirect RDMA facts: the peer-memory modules and each RDMA device's PCI function. A
 * module is loaded when its /sys/module entry says "live". */
static void read_rdma(struct p2ps_host *host, const char *root)
{
	struct p2ps_host_rdma *r = &host->rdma;
	char buf[64], path[PATH_MAX];
	r->known = true;
	r->nvidia_peermem = p2ps_read_text(root, "/sys/module/nvidia_peermem/initstate", buf,
	                                   sizeof(buf)) > 0 &&
	                    !strcmp(buf, "live");
	r->nv_peer_mem =
	        p2ps_read_text(root, "/sys/module/nv_peer_mem/initstate", buf, sizeof(buf)) > 0 &&
	        !strcmp(buf, "live");
	DIR *dir = p2ps_path_join(path, sizeof(path), root, "/sys/class/infiniband") ? opendir(path)
	                                                                             : NULL;
	struct dirent *e;
	while (dir && (e = readdir(dir)) && r->n_devs < P2PS_HOST_MAX_RDMA) {
		struct p2ps_rdma_dev *d = &r->devs[r->n_devs];
		char rel[320];
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(d->name))
			continue;
		snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/device", e->d_name);
		if (p2ps_read_link_name(root, rel, buf, sizeof(buf)) <= 0 ||
		    p2ps_bdf_parse(buf, &d->bdf))
			continue;
		p2ps_strlcpy(d->name, e->d_name, sizeof(d->name));
		r->n_devs++;
	}
	if (dir)
		closedir(dir);
	qsort(r->devs, (size_t)r->n_devs, sizeof(r->devs[0]), rdma_by_name);
}

/* "Name: 123" (a name of letters, digits and '_', then a decimal or 0x number): kept. */
static void params_numeric(struct p2ps_host_nvidia *nv, const char *l, size_t len)
{
	const char *colon = memchr(l, ':', len);
	size_t kn = colon ? (size_t)(colon - l) : 0;
	if (!kn || kn >= sizeof(nv->params[0].name) || nv->n_params >= P2PS_HOST_MAX_PARAMS)
		return;
	for (size_t i = 0; i < kn; i++)
		if (!isalnum((unsigned char)l[i]) && l[i] != '_')
			return;
	char val[24];
	size_t vn = len - kn - 1;
	const char *v = colon + 1;
	while (vn && *v == ' ')
		v++, vn--;
	if (!vn || vn >= sizeof(val))
		return;
	memcpy(val, v, vn);
	val[vn] = '\0';
	uint64_t x;
	if (p2ps_parse_uint(val, UINT32_MAX, &x) < 0)
		return;
	struct p2ps_host_param *p = &nv->params[nv->n_params++];
	memcpy(p->name, l, kn);
	p->name[kn] = '\0';
	p->value = (long)x;
}

/* /proc/driver/nvidia/params: "RegistryDwords: \"...\"", "EnableResizableBar: N", and the
 * other numeric parameters. */
void p2ps_nvidia_params_parse(struct p2ps_host_nvidia *nv, const char *text)
{
	nv->params_known = true;
	nv->enable_resizable_bar = -1;
	nv->n_params = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *eol = strchr(l, '\n');
		size_t len = eol ? (size_t)(eol - l) : strlen(l);
		if (len > 17 && !strncmp(l, "RegistryDwords: ", 16)) {
			const char *v = l + 16;
			size_t n = len - 16;
			if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
				v++;
				n -= 2;
			}
			if (n >= sizeof(nv->registry_dwords))
				n = sizeof(nv->registry_dwords) - 1;
			memcpy(nv->registry_dwords, v, n);
			nv->registry_dwords[n] = '\0';
		} else if (len > 20 && !strncmp(l, "EnableResizableBar: ", 20)) {
			nv->enable_resizable_bar = l[20] == '1' ? 1 : l[20] == '0' ? 0 : -1;
		} else {
			params_numeric(nv, l, len);
		}
	}
}

static void read_params(struct p2ps_host *host, const char *root)
{
	char *text = NULL;
	if (p2ps_read_all(root, "/proc/driver/nvidia/params", 1 << 16, &text) >= 0) {
		p2ps_nvidia_params_parse(&host->nvidia, text);
		free(text);
	}
}

static void read_vm(struct p2ps_host *host, const char *root, bool live)
{
	struct p2ps_host_vm *vm = &host->vm;
	char buf[256];
	/* Ordered from the most specific evidence to the most generic. */
	if (p2ps_read_text(root, "/sys/hypervisor/type", buf, sizeof(buf)) > 0) {
		vm->known = vm->in_vm = true;
		p2ps_strlcpy(vm->hypervisor, buf, sizeof(vm->hypervisor));
		p2ps_strlcpy(vm->evidence, "/sys/hypervisor/type", sizeof(vm->evidence));
		return;
	}
	static const struct {
		const char *needle;
		const char *name;
	} dmi[] = {{"QEMU", "QEMU"},
	           {"KVM", "KVM"},
	           {"VMware", "VMware"},
	           {"VirtualBox", "VirtualBox"},
	           {"innotek", "VirtualBox"},
	           {"Microsoft Corporation", "Hyper-V"},
	           {"Xen", "Xen"},
	           {"Amazon EC2", "Amazon EC2"},
	           {"Google Compute Engine", "Google Compute Engine"},
	           {"Firecracker", "Firecracker"},
	           {"Cloud Hypervisor", "Cloud Hypervisor"},
	           {"Parallels", "Parallels"}};
	static const char *const dmi_files[] = {"/sys/class/dmi/id/sys_vendor",
	                                        "/sys/class/dmi/id/product_name"};
	bool any_dmi = false;
	for (size_t f = 0; f < 2; f++) {
		if (p2ps_read_text(root, dmi_files[f], buf, sizeof(buf)) < 0)
			continue;
		any_dmi = true;
		for (size_t i = 0; i < sizeof(dmi) / sizeof(dmi[0]); i++) {
			if (strstr(buf, dmi[i].needle)) {
				vm->known = vm->in_vm = true;
				p2ps_strlcpy(vm->hypervisor, dmi[i].name, sizeof(vm->hypervisor));
				p2ps_strlcpy(vm->evidence, dmi_files[f], sizeof(vm->evidence));
				return;
			}
		}
	}
	char *cpuinfo = NULL;
	/* Only the first CPU's flags are looked at: the text up to that line will do. */
	if (p2ps_read_head(root, "/proc/cpuinfo", 1 << 16, "\nflags", &cpuinfo) >= 0) {
		/* The CPUID hypervisor bit shows as the "hypervisor" flag on x86. */
		const char *flags = strstr(cpuinfo, "\nflags");
		const char *eol = flags ? strchr(flags + 1, '\n') : NULL;
		const char *hv = flags ? strstr(flags, " hypervisor") : NULL;
		vm->known = flags != NULL;
		if (hv && (!eol || hv < eol)) {
			vm->in_vm = true;
			p2ps_strlcpy(vm->hypervisor, any_dmi ? "unknown" : "unknown (no DMI)",
			             sizeof(vm->hypervisor));
			p2ps_strlcpy(vm->evidence, "/proc/cpuinfo hypervisor flag",
			             sizeof(vm->evidence));
		}
		free(cpuinfo);
	} else if (live) {
		vm->known = any_dmi;
	}
}

/* The value of the first "key<tabs>: value" line of text whose key is key, into buf. */
static bool cpuinfo_value(const char *text, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, klen))
			continue;
		const char *v = l + klen;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != ':')
			continue;
		const char *eol = strchr(l, '\n');
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t n = eol ? (size_t)(eol - v) : strlen(v);
		if (n >= size)
			n = size - 1;
		memcpy(buf, v, n);
		buf[n] = '\0';
		return true;
	}
	return false;
}

/* Which architecture a cpuinfo is from, by a key only that architecture's kernel writes
 * (arch/x86/kernel/cpu/proc.c "vendor_id", arch/arm64/kernel/cpuinfo.c "CPU implementer",
 * arch/powerpc/kernel/setup-common.c "cpu" of "POWER..."); the names are NCCL's
 * (src/graph/topo.cc kvDictCpuArch). */
static const struct {
	const char *key;
	const char *arch;
} cpu_arch_keys[] = {
        {"vendor_id", "x86_64"},
        {"CPU implementer", "arm64"},
        {"cpu", "ppc64"},
};

static int cpuinfo_int(const char *text, const char *key)
{
	char v[32];
	uint64_t n;
	if (!cpuinfo_value(text, key, v, sizeof(v)) || p2ps_parse_uint(v, 0xffff, &n) < 0)
		return -1;
	return (int)n;
}

void p2ps_cpuinfo_parse(struct p2ps_host_cpu *c, const char *info)
{
	char v[96];
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(cpu_arch_keys) / sizeof(cpu_arch_keys[0]); i++) {
		if (!cpuinfo_value(info, cpu_arch_keys[i].key, v, sizeof(v)))
			continue;
		if (!strcmp(cpu_arch_keys[i].key, "cpu") && strncmp(v, "POWER", 5))
			continue;
		p2ps_strlcpy(c->arch, cpu_arch_keys[i].arch, sizeof(c->arch));
		break;
	}
	if (cpuinfo_value(info, "vendor_id", v, sizeof(v)))
		p2ps_strlcpy(c->vendor, v, sizeof(c->vendor));
	if (cpuinfo_value(info, "model name", v, sizeof(v)))
		p2ps_strlcpy(c->model_name, v, sizeof(c->model_name));
	c->family = cpuinfo_int(info, "cpu family");
	c->model = cpuinfo_int(info, "model");
	c->known = c->arch[0] != '\0';
}

static void read_cpu(struct p2ps_host *host, const char *root)
{
	char *info = NULL;
	if (p2ps_read_head(root, "/proc/cpuinfo", 1 << 16, "\nflags", &info) < 0)
		return;
	p2ps_cpuinfo_parse(&host->cpu, info);
	free(info);
}

void p2ps_hostfacts_read(struct p2ps_host *host, const char *root, bool live)
{
	read_cpu(host, root);
	read_iommu(host, root, live);
	char *cmd = NULL;
	if (p2ps_read_all(root, "/proc/cmdline", 1 << 16, &cmd) >= 0) {
		size_t n = strlen(cmd);
		while (n && (cmd[n - 1] == '\n' || cmd[n - 1] == ' '))
			cmd[--n] = '\0';
		host->cmdline.known = true;
		host->cmdline.raw = cmd;
		p2ps_cmdline_parse(&host->cmdline);
	}
	read_nvidia(host, root);
	read_vm(host, root, live);
	read_rdma(host, root);
	read_params(host, root);
}

/* Keeps one NAME=value entry if it is an NCCL_* variable and there is room. */
static void nccl_env_add(struct p2ps_host *host, const char *entry)
{
	if (strncmp(entry, "NCCL_", 5) || host->n_nccl_env >= P2PS_HOST_MAX_NCCL_ENV)
		return;
	p2ps_strlcpy(host->nccl_env[host->n_nccl_env++], entry, sizeof(host->nccl_env[0]));
}

void p2ps_hostfacts_nccl_env(struct p2ps_host *host, const char *const *envp)
{
	for (size_t i = 0; envp && envp[i]; i++)
		nccl_env_add(host, envp[i]);
}

void p2ps_hostfacts_nccl_env_file(struct p2ps_host *host, const char *root)
{
	char *env = NULL;
	if (p2ps_read_all(root, "/p2pscope/env", 1 << 16, &env) < 0)
		return;
	char *save = NULL;
	for (char *line = strtok_r(env, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		nccl_env_add(host, line);
	free(env);
}
