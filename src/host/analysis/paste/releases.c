/* SPDX-License-Identifier: MIT */
/* Releases of the driver and NCCL the paste names.
 *
 * A release with a known P2P or GPUDirect RDMA defect is a row of defects[] (the range it
 * is in, the sign the paste must show, what it does, the fix and the source); a finding
 * needs both the release and the sign, so a version number alone accuses nothing.
 *
 * An A/B: the paste names two releases of one piece of software, and the lines after one
 * show a run that worked while the lines after the other show one that failed, on the
 * same host. The release is then the variable: the failure is its cause, and what the
 * platform (IOMMU, ACS, BAR1) would block is cleared by the run that worked. */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"
#include "p2pscope/nvidia_drivers.h"

/* What in the paste shows a defect besides its release. */
enum defect_sign {
	SIGN_SHARED_MEM,      /* NCCL: "ncclMaxSharedMem N exceeds device/fn maxSharedMem M" */
	SIGN_GDR_OFF_PEERMEM, /* NCCL turned GPUDirect RDMA off while nvidia_peermem is loaded */
	SIGN_NS_H100,         /* topo -p2p NS between H100s (NVSwitch boards) */
};

static const struct defect {
	enum p2ps_paste_software sw;
	const char *from;  /* first release with the defect ("" every earlier one) */
	const char *fixed; /* first release without it ("" not fixed) */
	enum defect_sign sign;
	enum p2ps_severity sev;
	const char *what;
	const char *fix;
	const char *source;
} defects[] = {
        {P2PS_SW_NCCL, "", "2.23.4", SIGN_GDR_OFF_PEERMEM, P2PS_SEV_BLOCKER,
         "NCCL before 2.23.4 looks only for the older nv_peer_mem module, so with "
         "nvidia-peermem loaded it turns GPUDirect RDMA off",
         "NCCL 2.23.4 or later (or, on an older NCCL, the nv_peer_mem module)",
         "NVIDIA/nccl#1676; src/transport/net_ib.cc ncclIbGdrSupport(), v2.22.3-1 against "
         "v2.23.4-1"},
        {P2PS_SW_NCCL, "2.25", "2.26", SIGN_SHARED_MEM, P2PS_SEV_BLOCKER,
         "NCCL 2.25 asks more shared memory per block than Blackwell GeForce GPUs (sm_120) "
         "offer, so its kernels cannot run on them",
         "NCCL 2.26 or later", "NVIDIA/nccl#1637 (the maintainer: 2.26 works on these GPUs)"},
};

/* The driver's defects are rows of the driver table (nvidia_drivers.c); the sign each
 * needs in a paste is here. */
static const struct {
	enum p2ps_nv_defect_id id;
	enum defect_sign sign;
	enum p2ps_severity sev;
} driver_signs[] = {
        {P2PS_NV_DEFECT_NVSWITCH_NS, SIGN_NS_H100, P2PS_SEV_WARNING},
};

/* a < b for dotted release numbers (missing parts are 0). */
static int version_cmp(const char *a, const char *b)
{
	int x[3], y[3];
	p2ps_an_version(a, x);
	p2ps_an_version(b, y);
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Whether release v lies in [from, fixed). */
static bool in_range(const char *v, const struct defect *d)
{
	int x[3];
	if (p2ps_an_version(v, x) < 1)
		return false;
	return (!d->from[0] || version_cmp(v, d->from) >= 0) &&
	       (!d->fixed[0] || version_cmp(v, d->fixed) < 0);
}

static bool is_not_supported(const char *code)
{
	enum p2ps_nv_status st;
	return !p2ps_nv_status_from_code(code, &st) && st == P2PS_NV_ST_NOT_SUPPORTED;
}

static bool sign_shown(const struct octx *c, enum defect_sign s, struct p2ps_paste_where *at)
{
	const struct p2ps_evidence *ev = c->ev;
	switch (s) {
	case SIGN_SHARED_MEM: *at = ev->nccl.shared_mem_from; return ev->nccl.shared_mem_short > 0;
	case SIGN_GDR_OFF_PEERMEM:
		*at = ev->nccl.gdr_disabled_from;
		return ev->nccl.gdr_disabled && !ev->nccl.gdr_enabled &&
		       ev->host.nvidia_peermem == 1;
	case SIGN_NS_H100:
		*at = ev->matrix[P2PS_PM_P2P].from;
		for (size_t i = 0; i < ev->n_obs; i++)
			if (ev->obs[i].kind == P2PS_PM_P2P && is_not_supported(ev->obs[i].text) &&
			    strstr(ev->gpus[ev->obs[i].a].name, "H100"))
				return true;
		return false;
	}
	return false;
}

/* The release the paste names for a piece of software: the first one. */
static const char *release_of(const struct octx *c, enum p2ps_paste_software sw)
{
	const struct p2ps_evidence *ev = c->ev;
	for (size_t i = 0; i < ev->n_releases; i++)
		if (ev->releases[i].sw == sw)
			return ev->releases[i].version;
	return sw == P2PS_SW_NCCL ? ev->nccl.version : ev->host.driver_version;
}

static void known_defects(struct octx *c)
{
	for (size_t i = 0; i < sizeof(defects) / sizeof(defects[0]); i++) {
		const struct defect *d = &defects[i];
		const char *v = release_of(c, d->sw);
		struct p2ps_paste_where at = {-1, 0};
		if (!v[0] || !in_range(v, d) || !sign_shown(c, d->sign, &at))
			continue;
		struct p2ps_reason *f = po_add(
		        c, P2PS_PF_RELEASE_DEFECT, d->sev, at, "%s %s has a known defect: %s (%s)",
		        p2ps_paste_software_name(d->sw), v, d->what, d->source);
		p2ps_an_fix(f, "%s", d->fix);
	}
	const char *v = release_of(c, P2PS_SW_DRIVER);
	struct p2ps_nv_version ver;
	if (!v[0] || !p2ps_nv_version_scan(v, &ver))
		return;
	for (size_t i = 0; i < p2ps_nv_defect_count(); i++) {
		const struct p2ps_nv_defect *d = p2ps_nv_defect_at(i);
		for (size_t k = 0; k < sizeof(driver_signs) / sizeof(driver_signs[0]); k++) {
			struct p2ps_paste_where at = {-1, 0};
			if (driver_signs[k].id != d->id || !p2ps_nv_defect_affects(d, &ver) ||
			    !sign_shown(c, driver_signs[k].sign, &at))
				continue;
			struct p2ps_reason *f = po_add(
			        c, P2PS_PF_RELEASE_DEFECT, driver_signs[k].sev, at,
			        "%s %s has a known defect: %s (%s)",
			        p2ps_paste_software_name(P2PS_SW_DRIVER), v, d->what, d->source);
			p2ps_an_fix(f, "%s", d->fix);
		}
	}
}

/* Two releases of one piece of software, one whose run worked and one whose run failed. */
static void ab(struct octx *c)
{
	const struct p2ps_evidence *ev = c->ev;
	for (int sw = 0; sw < P2PS_SW_COUNT; sw++) {
		const struct p2ps_paste_release *good = NULL, *bad = NULL;
		for (size_t i = 0; i < ev->n_releases; i++) {
			const struct p2ps_paste_release *r = &ev->releases[i];
			if ((int)r->sw != sw)
				continue;
			if (r->worked && !r->failed && !good)
				good = r;
			if (r->failed && !r->worked && !bad)
				bad = r;
		}
		if (!good || !bad)
			continue;
		struct p2ps_reason *f =
		        po_add(c, P2PS_PF_RELEASE_AB, P2PS_SEV_BLOCKER, bad->failed_from,
		               "the paste is an A/B of %s releases on one host: runs with %s work, "
		               "runs with "
		               "%s fail; the release is the variable, so the platform (IOMMU, ACS, "
		               "BAR1) is "
		               "not the cause",
		               p2ps_paste_software_name(sw), good->version, bad->version);
		p2ps_an_fix(f,
		            "%s %s (the release that works here), and report the regression in %s",
		            p2ps_paste_software_name(sw), good->version, bad->version);
		c->platform_cleared = true;
	}
}

void po_releases(struct octx *c)
{
	known_defects(c);
	ab(c);
}
