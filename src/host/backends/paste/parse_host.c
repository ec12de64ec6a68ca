/* SPDX-License-Identifier: MIT */
/* Host-wide blocks: /proc/cmdline (a wrapped one is joined back) and IOMMU group
 * listings in their three common shapes: `find /sys/kernel/iommu_groups -type l` paths,
 * the "IOMMU Group N:" listing with indented lspci lines (and their ACS lines), and the
 * one-line "IOMMU Group N BB:DD.F class: ..." loop. A listing that shows the directory
 * and nothing under it says there is no IOMMU group at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"

void pt_parse_cmdline(struct pctx *c, const struct pl_span *sp)
{
	struct p2ps_paste_host *h = &c->p->host;
	struct pl_iter it;
	struct pl_line l;
	char buf[sizeof(h->cmdline)] = "";
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l)) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? " " : "", pt_skip_ws(l.s));
	}
	if (h->cmdline_known && strcmp(h->cmdline, buf)) {
		pt_summary(c, "a second, different command line: not used");
		return;
	}
	h->cmdline_known = true;
	snprintf(h->cmdline, sizeof(h->cmdline), "%s", buf);
	h->cmdline_from = pt_where(c, sp->first);
	pt_summary(c, "kernel command line");
}

struct iommu_state {
	bool seen[1024]; /* group numbers listed */
	int groups, devices;
	bool dir_only; /* only the groups directory itself */
	long group;    /* the "IOMMU Group N:" being listed, -1 none */
	struct p2ps_paste_dev *dev;
	size_t dev_idx;
	int capctx;
};

static void in_group(struct pctx *c, struct iommu_state *st, struct p2ps_paste_dev *pd, long g,
                     int line)
{
	pd->d.iommu_group = (int)g;
	pd->from[P2PS_PD_IOMMU_GROUP] = pt_where(c, line);
	st->devices++;
	if (g >= 0 && g < 1024 && !st->seen[g]) {
		st->seen[g] = true;
		st->groups++;
	}
}

/* "/sys/kernel/iommu_groups/12/devices/0000:00:1c.0", or the directory alone. */
static void sys_path(struct pctx *c, struct iommu_state *st, const char *t, int line)
{
	const char *p = t + strlen("/sys/kernel/iommu_groups");
	long g;
	if (!strcmp(p, "") || !strcmp(p, "/")) {
		st->dir_only = !st->groups;
		return;
	}
	st->dir_only = false;
	if (*p != '/' || !pt_dec(p + 1, &g, &p))
		return;
	struct p2ps_bdf b;
	if (pt_starts(p, "/devices/") && pt_bdf(p + 9, &b, NULL, NULL)) {
		struct p2ps_paste_dev *pd = pt_dev(c, &b);
		if (pd)
			in_group(c, st, pd, g, line);
	} else if (g >= 0 && g < 1024 && !st->seen[g]) {
		st->seen[g] = true;
		st->groups++;
	}
}

static void iommu_line(struct pctx *c, struct iommu_state *st, const struct pl_line *l)
{
	const char *t = pt_skip_ws(l->s);
	if (pt_starts(t, "/sys/kernel/iommu_groups")) {
		sys_path(c, st, t, l->no);
		return;
	}
	long g;
	const char *p;
	if (pt_starts(t, "IOMMU ") && pt_dec(t + 12, &g, &p)) {
		st->group = g;
		st->dir_only = false;
		st->dev = NULL;
		p = pt_skip_ws(*p == ':' ? p + 1 : p);
		if (!*p)
			return;
		/* The one-line loop: "IOMMU Group 12 00:1c.0 PCI bridge [0604]: ..." */
		struct pl_line dl = {(char *)p, strlen(p), l->no};
		struct p2ps_paste_dev *pd = pt_lspci_header(c, &dl);
		if (pd)
			in_group(c, st, pd, g, l->no);
		return;
	}
	struct p2ps_paste_dev *pd = st->group >= 0 ? pt_lspci_header(c, l) : NULL;
	if (pd) {
		in_group(c, st, pd, st->group, l->no);
		st->dev = pd;
		st->dev_idx = (size_t)(pd - c->p->devs);
		st->capctx = 0;
	} else if (st->dev) {
		pt_lspci_detail(c, &c->p->devs[st->dev_idx], l, &st->capctx);
	}
}

void pt_parse_iommu(struct pctx *c, const struct pl_span *sp)
{
	struct iommu_state *st = calloc(1, sizeof(*st));
	if (!st) {
		c->oom = true;
		return;
	}
	st->group = -1;
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom)
		if (*pt_skip_ws(l.s))
			iommu_line(c, st, &l);
	struct p2ps_paste_host *h = &c->p->host;
	if (st->groups || st->dir_only) {
		h->iommu_known = true;
		h->iommu_present = st->groups > 0;
		h->iommu_groups = st->groups;
		h->iommu_from = pt_where(c, sp->first);
	}
	if (st->dir_only)
		pt_summary(c, "IOMMU groups directory with no group in it: no IOMMU is active");
	else
		pt_summary(c, "%d IOMMU group%s, %d device%s", st->groups,
		           st->groups == 1 ? "" : "s", st->devices, st->devices == 1 ? "" : "s");
	free(st);
}
