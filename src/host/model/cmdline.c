/* SPDX-License-Identifier: MIT */
/* The kernel command line's IOMMU flags as one state, per IOMMU driver. The values and
 * their meaning are those of the kernel's Documentation/admin-guide/kernel-parameters.txt:
 *   intel_iommu=  on | off | strict (same as iommu.strict=1) | sm_on | igfx_off ...
 *   amd_iommu=    off | force_enable | fullflush (same as iommu.strict=1) | ...
 *                 ("on" is no value of it: the AMD IOMMU runs whenever the firmware
 *                 enables it)
 *   iommu=        off | soft (bounce buffers, the hardware IOMMU unused) | pt | nopt |
 *                 force ...
 *   iommu.passthrough= 0 (translated) | 1 (bypass)
 *   iommu.strict=      0 (lazy unmapping) | 1 (strict)
 * Whether an Intel IOMMU is on without intel_iommu=on depends on the kernel's build
 * (CONFIG_INTEL_IOMMU_DEFAULT_ON), so that case stays "default". The live host, snapshots
 * and pastes all decide through p2ps_cmdline_iommu(). */
#include <stdio.h>
#include <string.h>

#include "p2pscope/host.h"

/* Whether the comma-separated list has the word w. */
static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, w, n))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

const char *p2ps_cmdline_iommu_state_name(enum p2ps_cmdline_iommu_state s)
{
	static const char *const names[] = {
	        [P2PS_CMDLINE_IOMMU_DEFAULT] = "default",
	        [P2PS_CMDLINE_IOMMU_OFF] = "off",
	        [P2PS_CMDLINE_IOMMU_SOFT] = "soft",
	        [P2PS_CMDLINE_IOMMU_TRANSLATING] = "translating",
	        [P2PS_CMDLINE_IOMMU_PASSTHROUGH] = "passthrough",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static void set(struct p2ps_cmdline_iommu *o, enum p2ps_cmdline_iommu_state s, const char *why)
{
	o->state = s;
	snprintf(o->why, sizeof(o->why), "%s", why);
}

void p2ps_cmdline_iommu(const struct p2ps_host_cmdline *c, struct p2ps_cmdline_iommu *out)
{
	memset(out, 0, sizeof(*out));
	if (!c || !c->known)
		return;
	const char *in = c->intel_iommu, *am = c->amd_iommu, *io = c->iommu;
	if (in[0])
		snprintf(out->kind, sizeof(out->kind), "intel");
	else if (am[0])
		snprintf(out->kind, sizeof(out->kind), "amd");
	out->strict = !strcmp(c->iommu_strict, "1") || has_word(in, "strict") ||
	              has_word(am, "fullflush");
	bool pt = has_word(io, "pt") || !strcmp(c->iommu_passthrough, "1");
	bool nopt = has_word(io, "nopt") || !strcmp(c->iommu_passthrough, "0");
	bool intel_on = has_word(in, "on");
	if (has_word(in, "off"))
		set(out, P2PS_CMDLINE_IOMMU_OFF, "intel_iommu=off: the Intel IOMMU is off");
	else if (has_word(am, "off"))
		set(out, P2PS_CMDLINE_IOMMU_OFF, "amd_iommu=off: the AMD IOMMU is off");
	else if (has_word(io, "off"))
		set(out, P2PS_CMDLINE_IOMMU_OFF, "iommu=off: no IOMMU is used");
	else if (has_word(io, "soft"))
		set(out, P2PS_CMDLINE_IOMMU_SOFT,
		    "iommu=soft: DMA goes through bounce buffers, the hardware IOMMU is unused");
	else if (pt)
		set(out, P2PS_CMDLINE_IOMMU_PASSTHROUGH,
		    has_word(io, "pt") ? "iommu=pt: where an IOMMU is on, it passes DMA through"
		                       : "iommu.passthrough=1: where an IOMMU is on, it passes DMA "
		                         "through");
	else if (intel_on)
		set(out, P2PS_CMDLINE_IOMMU_TRANSLATING,
		    nopt ? "intel_iommu=on with translation asked for: on and translating"
		         : "intel_iommu=on without iommu=pt: on and translating");
	else if (has_word(am, "force_enable"))
		set(out, P2PS_CMDLINE_IOMMU_TRANSLATING,
		    "amd_iommu=force_enable without iommu=pt: on and translating");
	else if (nopt)
		set(out, P2PS_CMDLINE_IOMMU_TRANSLATING,
		    "translation asked for (iommu=nopt or iommu.passthrough=0): an IOMMU that is "
		    "on translates");
	else if (am[0] && has_word(am, "on"))
		set(out, P2PS_CMDLINE_IOMMU_DEFAULT,
		    "amd_iommu=on is no value the kernel knows: the AMD IOMMU runs whenever the "
		    "firmware enables it, translating unless iommu=pt");
}
