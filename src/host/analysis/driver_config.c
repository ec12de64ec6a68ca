/* SPDX-License-Identifier: MIT */
/* Which driver the model answers for: the series and flavor (from the host's
 * /proc/driver/nvidia/version or NVML, or asked with --driver SERIES[-FLAVOR] and
 * --driver-flavor) and the registry keys in effect (RegistryDwords, EnableResizableBar). */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "driver_internal.h"
#include "p2pscope/parse.h"

/* Registry keys by their names in nvrm_registry.h (and aikitoria PR #41). */
static long *reg_slot(struct p2ps_drv_regkeys *r, const char *name, size_t n)
{
	static const struct {
		const char *name;
		size_t off;
	} keys[] = {
	        {"ForceP2P", offsetof(struct p2ps_drv_regkeys, force_p2p)},
	        {"RMForceP2PType", offsetof(struct p2ps_drv_regkeys, force_p2p_type)},
	        {"RMPcieP2PType", offsetof(struct p2ps_drv_regkeys, pcie_p2p_type)},
	        {"RMForceStaticBar1", offsetof(struct p2ps_drv_regkeys, force_static_bar1)},
	        {"RMP2PFbTailReserveMb", offsetof(struct p2ps_drv_regkeys, tail_reserve_mb)},
	        {"EnableResizableBar", offsetof(struct p2ps_drv_regkeys, enable_rebar)},
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == n && !strncasecmp(keys[i].name, name, n))
			return (long *)((char *)r + keys[i].off);
	return NULL;
}

static void reg_defaults(struct p2ps_drv_regkeys *r)
{
	r->force_p2p = r->force_p2p_type = r->pcie_p2p_type = -1;
	r->force_static_bar1 = r->tail_reserve_mb = r->enable_rebar = -1;
}

int p2ps_drv_registry_parse(const char *text, struct p2ps_drv_regkeys *reg)
{
	int taken = 0;
	const char *p = text ? text : "";
	while (*p) {
		size_t len = strcspn(p, ";");
		const char *eq = memchr(p, '=', len);
		if (len && !eq)
			return -1;
		if (len) {
			const char *k = p;
			size_t kn = (size_t)(eq - p);
			while (kn && isspace((unsigned char)*k)) {
				k++;
				kn--;
			}
			while (kn && isspace((unsigned char)k[kn - 1]))
				kn--;
			char val[24];
			size_t vn = len - (size_t)(eq - p) - 1;
			if (vn == 0 || vn >= sizeof(val) || kn == 0)
				return -1;
			memcpy(val, eq + 1, vn);
			val[vn] = '\0';
			uint64_t v;
			if (p2ps_parse_uint(val, UINT32_MAX, &v) < 0)
				return -1;
			long *slot = reg_slot(reg, k, kn);
			if (slot) {
				*slot = (long)v;
				taken++;
			}
		}
		p += len;
		if (*p == ';')
			p++;
	}
	return taken;
}

static int flavor_parse(const char *s)
{
	enum p2ps_nv_flavor f;
	return p2ps_nv_flavor_parse(s, strlen(s), &f, NULL) ? -1 : (int)f;
}

/* The example of --driver's message: the newest stock row, and a patched one. */
static void spec_example(char *buf, size_t n)
{
	bool exact;
	const struct p2ps_nv_driver *s =
	        p2ps_nv_driver_find(P2PS_NV_SERIES_NONE, P2PS_NV_FLAVOR_STOCK, &exact);
	const struct p2ps_nv_driver *p = p2ps_nv_driver_reference();
	snprintf(buf, n, "e.g. %u or %u-%s", s->series, p->series, p2ps_nv_flavor_name(p->flavor));
}

/* "580", "580.159.04", "565-tinygrad", "570.86.16-p2p" (p2ps_nv_version_parse). */
static int spec_parse(const char *spec, struct p2ps_drv_config *cfg, char *err, size_t es)
{
	struct p2ps_nv_version v;
	char eg[48];
	switch (p2ps_nv_version_parse(spec, &v)) {
	case P2PS_NV_VERSION_OK: break;
	case P2PS_NV_VERSION_NO_SERIES:
		spec_example(eg, sizeof(eg));
		snprintf(err, es, "--driver %s: expected SERIES[-FLAVOR], %s", spec, eg);
		return -1;
	case P2PS_NV_VERSION_MALFORMED:
		snprintf(err, es, "--driver %s: malformed version", spec);
		return -1;
	case P2PS_NV_VERSION_FLAVOR:
	default:
		snprintf(err, es,
		         "--driver %s: unknown flavor or branch (%s; or a branch suffix "
		         "such as -p2p, -p2p-48g)",
		         spec, p2ps_nv_flavor_list(eg, sizeof(eg)));
		return -1;
	}
	cfg->series = (int)v.series;
	snprintf(cfg->version, sizeof(cfg->version), "%s", v.text);
	if (v.has_flavor) {
		cfg->flavor = v.flavor;
		cfg->flavor_guessed = false;
	}
	cfg->known = true;
	snprintf(cfg->source, sizeof(cfg->source), "--driver");
	return 0;
}

static void from_host(const struct p2ps_host *h, struct p2ps_drv_config *cfg)
{
	const char *v = h->nvidia.proc_driver_version[0]   ? h->nvidia.proc_driver_version
	                : h->nvidia.nvml_driver_version[0] ? h->nvidia.nvml_driver_version
	                                                   : h->nvidia.module_version;
	struct p2ps_nv_version ver;
	if (!p2ps_nv_version_scan(v, &ver))
		return;
	cfg->known = true;
	cfg->series = (int)ver.series;
	snprintf(cfg->version, sizeof(cfg->version), "%.31s", v);
	snprintf(cfg->source, sizeof(cfg->source), "%s",
	         h->nvidia.proc_driver_version[0]   ? "/proc/driver/nvidia/version"
	         : h->nvidia.nvml_driver_version[0] ? "NVML"
	                                            : "/sys/module/nvidia/version");
	/* The patched modules keep NVIDIA's version number; the build line may still name
	 * the branch the module was built from (a fork's branch suffix, "-p2p-48g", in the
	 * source path) or the fork by name. Nothing else is a sign: no fork is guessed. */
	enum p2ps_nv_flavor named;
	bool seen = p2ps_nv_branch_find(h->nvidia.proc_version, ver.series, &named) != NULL;
	for (int f = P2PS_NV_FLAVOR_STOCK + 1; !seen && f < P2PS_NV_FLAVOR_COUNT; f++)
		if (strcasestr(h->nvidia.proc_version,
		               p2ps_nv_flavor_name((enum p2ps_nv_flavor)f))) {
			named = (enum p2ps_nv_flavor)f;
			seen = true;
		}
	if (seen) {
		cfg->flavor = named;
		cfg->flavor_guessed = false;
	}
}

/* The value of module parameter name in the host's params, -1 when absent or not read. */
static long param_value(const struct p2ps_host *h, const char *name)
{
	for (int i = 0; h && name && h->nvidia.params_known && i < h->nvidia.n_params; i++)
		if (!strcmp(h->nvidia.params[i].name, name))
			return h->nvidia.params[i].value;
	return -1;
}

/* What the row adds beyond NVIDIA's: its parameters' values, and libcuda by its digest. */
static void fork_facts(const struct p2ps_host *h, struct p2ps_drv_config *cfg)
{
	cfg->dmabuf_p2p = param_value(h, cfg->row->dmabuf_key);
	cfg->pcie_p2p = param_value(h, cfg->row->pcie_p2p_key);
	cfg->libcuda = h && h->nvidia.libcuda_sha256[0]
	                       ? p2ps_nv_libcuda_state(h->nvidia.libcuda_sha256, &cfg->libcuda_row)
	                       : P2PS_NV_LIBCUDA_UNKNOWN;
}

/* The row the model reads: the series' own or the fallback rule's, said in the note. */
static void pick_row(struct p2ps_drv_config *cfg)
{
	unsigned want = cfg->known ? (unsigned)cfg->series : P2PS_NV_SERIES_NONE;
	cfg->row = p2ps_nv_driver_find(want, cfg->flavor, &cfg->row_exact);
	cfg->model_series = (int)cfg->row->series;
	if (cfg->known && !cfg->row_exact)
		p2ps_nv_driver_assumed(want, cfg->flavor, cfg->row, cfg->note, sizeof(cfg->note));
	else if (cfg->known && cfg->row->assumed) {
		/* The series' own row, with columns taken from another tree: said as such. */
		size_t used = strlen(cfg->note);
		snprintf(cfg->note + used, sizeof(cfg->note) - used, "%s%s (assumed)",
		         used ? "; " : "", cfg->row->assumed);
	}
}

int p2ps_drv_config_make(const struct p2ps_host *host, const char *spec, const char *flavor,
                         struct p2ps_drv_config *cfg, char *err, size_t es)
{
	memset(cfg, 0, sizeof(*cfg));
	reg_defaults(&cfg->reg);
	cfg->flavor = P2PS_NV_FLAVOR_STOCK;
	cfg->flavor_guessed = true;
	if (host) {
		from_host(host, cfg);
		if (host->nvidia.params_known) {
			if (p2ps_drv_registry_parse(host->nvidia.registry_dwords, &cfg->reg) < 0)
				snprintf(cfg->note, sizeof(cfg->note),
				         "RegistryDwords not understood: \"%.100s\"",
				         host->nvidia.registry_dwords);
			if (cfg->reg.enable_rebar < 0)
				cfg->reg.enable_rebar = host->nvidia.enable_resizable_bar;
			snprintf(cfg->reg_source, sizeof(cfg->reg_source),
			         "/proc/driver/nvidia/params");
		}
	}
	if (spec && spec_parse(spec, cfg, err, es) < 0)
		return -1;
	if (flavor) {
		int f = flavor_parse(flavor);
		if (f < 0) {
			char list[96];
			snprintf(err, es, "--driver-flavor %s: expected one of %s", flavor,
			         p2ps_nv_flavor_list(list, sizeof(list)));
			return -1;
		}
		cfg->flavor = (enum p2ps_nv_flavor)f;
		cfg->flavor_guessed = false;
	}
	pick_row(cfg);
	fork_facts(host, cfg);
	return 0;
}
