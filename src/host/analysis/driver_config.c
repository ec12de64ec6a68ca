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

static int flavor_parse(const char *s, size_t n)
{
	for (int f = 0; f < P2PS_DF_COUNT; f++) {
		const char *name = p2ps_drv_flavor_name((enum p2ps_drv_flavor)f);
		if (strlen(name) == n && !strncasecmp(name, s, n))
			return f;
	}
	if (n == 3 && !strncasecmp(s, "p2p", 3))
		return P2PS_DF_TINYGRAD; /* "550.54.15-p2p": the tinygrad branch naming */
	return -1;
}

/* "580", "580.159.04", "565-tinygrad", "570.86.16-p2p". */
static int spec_parse(const char *spec, struct p2ps_drv_config *cfg, char *err, size_t es)
{
	size_t vn = strcspn(spec, "-");
	size_t dn = strspn(spec, "0123456789");
	if (dn < 3 || dn > 4 || (spec[dn] && spec[dn] != '.' && spec[dn] != '-')) {
		snprintf(err, es, "--driver %s: expected SERIES[-FLAVOR], e.g. 580 or 565-tinygrad",
		         spec);
		return -1;
	}
	for (size_t i = dn; i < vn; i++)
		if (!isdigit((unsigned char)spec[i]) && spec[i] != '.') {
			snprintf(err, es, "--driver %s: malformed version", spec);
			return -1;
		}
	cfg->series = 0;
	for (size_t i = 0; i < dn; i++)
		cfg->series = cfg->series * 10 + (spec[i] - '0');
	snprintf(cfg->version, sizeof(cfg->version), "%.*s", (int)(vn < 31 ? vn : 31), spec);
	if (spec[vn] == '-') {
		int f = flavor_parse(spec + vn + 1, strlen(spec + vn + 1));
		if (f < 0) {
			snprintf(err, es,
			         "--driver %s: unknown flavor (stock, tinygrad, aikitoria)", spec);
			return -1;
		}
		cfg->flavor = (enum p2ps_drv_flavor)f;
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
	if (!v[0] || strspn(v, "0123456789") < 3)
		return;
	uint64_t series;
	if (!p2ps_scan_uint(v, 10, 100000, &series))
		return;
	cfg->known = true;
	cfg->series = (int)series;
	snprintf(cfg->version, sizeof(cfg->version), "%.31s", v);
	snprintf(cfg->source, sizeof(cfg->source), "%s",
	         h->nvidia.proc_driver_version[0]   ? "/proc/driver/nvidia/version"
	         : h->nvidia.nvml_driver_version[0] ? "NVML"
	                                            : "/sys/module/nvidia/version");
	/* The patched modules keep NVIDIA's version string; a "-p2p" or a patch name in the
	 * build line is the only sign the driver gives. */
	if (strstr(h->nvidia.proc_version, "p2p") || strstr(h->nvidia.proc_version, "tinygrad")) {
		cfg->flavor = strstr(h->nvidia.proc_version, "aikitoria") ? P2PS_DF_AIKITORIA
		                                                          : P2PS_DF_TINYGRAD;
		cfg->flavor_guessed = false;
	}
}

int p2ps_drv_config_make(const struct p2ps_host *host, const char *spec, const char *flavor,
                         struct p2ps_drv_config *cfg, char *err, size_t es)
{
	memset(cfg, 0, sizeof(*cfg));
	reg_defaults(&cfg->reg);
	cfg->flavor = P2PS_DF_STOCK;
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
		int f = flavor_parse(flavor, strlen(flavor));
		if (f < 0) {
			snprintf(err, es,
			         "--driver-flavor %s: expected stock, tinygrad or aikitoria",
			         flavor);
			return -1;
		}
		cfg->flavor = (enum p2ps_drv_flavor)f;
		cfg->flavor_guessed = false;
	}
	if (!cfg->known)
		return 0;
	bool exact = false;
	const struct p2ps_drv_series *s = p2ps_drv_series_find(cfg->series, cfg->flavor, &exact);
	cfg->model_series = s->series;
	if (s->flavor != cfg->flavor)
		snprintf(cfg->note, sizeof(cfg->note), "no %s row: modelled as stock %d",
		         p2ps_drv_flavor_name(cfg->flavor), s->series);
	else if (!exact && cfg->series > s->series)
		snprintf(cfg->note, sizeof(cfg->note),
		         "%d is newer than the model knows: modelled as %d (%s)", cfg->series,
		         s->series, s->tag);
	else if (!exact)
		snprintf(cfg->note, sizeof(cfg->note),
		         "%d is not a row of the model: modelled as %d", cfg->series, s->series);
	return 0;
}
