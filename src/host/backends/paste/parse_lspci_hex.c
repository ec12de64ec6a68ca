/* SPDX-License-Identifier: MIT */
/* lspci -x / -xxx / -xxxx rows in a paste go through the existing dump path: the rows of
 * each device are written to an in-memory file and read by the lspci-dump backend
 * (libpci's dump method and the shared config decoders), so a pasted hex dump decodes
 * exactly as `bar-inspect --lspci-dump` decodes it. What the config bytes say replaces
 * what the text around them said; what only the text has (BAR sizes, driver, NUMA node,
 * IOMMU group) stays. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p2pscope/host_load.h"
#include "paste_internal.h"

/* Copies the config-space facts of hd (from the dump) into pd. */
static void merge(struct p2ps_paste_dev *pd, const struct p2ps_dev *hd, struct p2ps_paste_where w)
{
	struct p2ps_dev *d = &pd->d;
	struct p2ps_bar text_bars[P2PS_HOST_MAX_BARS];
	memcpy(text_bars, d->bars, sizeof(text_bars));
	d->vendor_id = hd->vendor_id;
	d->device_id = hd->device_id;
	d->subsys_vendor_id = hd->subsys_vendor_id;
	d->subsys_id = hd->subsys_id;
	d->class_code = hd->class_code;
	d->revision = hd->revision;
	d->header_type = hd->header_type;
	if (hd->chip)
		d->chip = hd->chip;
	memcpy(d->bars, hd->bars, sizeof(d->bars));
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) /* dumps carry no sizes: keep the text's */
		if (!d->bars[i].size_known && text_bars[i].size_known &&
		    text_bars[i].is_64bit == d->bars[i].is_64bit) {
			d->bars[i].size = text_bars[i].size;
			d->bars[i].size_known = true;
		}
	d->rom = hd->rom;
	d->pcie = hd->pcie;
	d->acs = hd->acs;
	d->rebar = hd->rebar;
	d->bridge = hd->bridge;
	memcpy(d->config, hd->config, sizeof(d->config));
	d->config_len = hd->config_len;
	memcpy(d->ext_cap_walk, hd->ext_cap_walk, sizeof(d->ext_cap_walk));
	pd->ids_known = pd->vendor_known = pd->class_known = true;
	pd->from_hex = true;
	pd->caps_seen = true;
	pd->ext_caps_seen |= hd->config_len > 256;
	pd->express_seen |= hd->pcie.present;
	static const enum p2ps_paste_dfact facts[] = {P2PS_PD_IDENT, P2PS_PD_CLASS, P2PS_PD_LINK,
	                                              P2PS_PD_ACS,   P2PS_PD_REBAR, P2PS_PD_BRIDGE,
	                                              P2PS_PD_CAPS};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		pd->from[facts[i]] = w;
	if (pd->from[P2PS_PD_BARS].line == 0)
		pd->from[P2PS_PD_BARS] = w;
}

void pt_lspci_hex(struct pctx *c, const char *dump, size_t len, int first_line)
{
	int fd = memfd_create("p2ps-paste-dump", MFD_CLOEXEC);
	if (fd < 0) {
		pt_summary(c, "hex rows not read: no in-memory file");
		return;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct p2ps_host h;
	struct p2ps_error err = {0};
	struct p2ps_host_source src = {
	        .kind = P2PS_HOST_LSPCI_DUMP, .path = path, .flags = P2PS_HOST_F_NO_NAMES};
	if (write(fd, dump, len) != (ssize_t)len || p2ps_host_load(&h, &src, &err) < 0) {
		/* The dump backend names /proc/self/fd/N: say what matters instead. */
		const char *why = strstr(err.msg, ": ");
		pt_summary(c, "hex rows not read%s", why ? why : ": write failed");
		close(fd);
		return;
	}
	close(fd);
	struct p2ps_paste_where w = pt_where(c, first_line);
	for (size_t i = 0; i < h.n_devs; i++) {
		struct p2ps_paste_dev *pd = pt_dev(c, &h.devs[i].bdf);
		if (!pd)
			break;
		merge(pd, &h.devs[i], w);
	}
	pt_summary(c, "config bytes of %zu device%s (lspci -x rows, decoded as --lspci-dump)",
	           h.n_devs, h.n_devs == 1 ? "" : "s");
	p2ps_host_free(&h);
}
