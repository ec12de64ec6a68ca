/* SPDX-License-Identifier: MIT */
/* lspci text: device lines ("01:00.0 VGA compatible controller [0300]: NVIDIA ...") of
 * every verbosity (-v to -vvvv, with or without -nn, -k, -D), one-line listings
 * (`lspci | grep PLX`), detail lines (parse_lspci_caps.c) and hex rows (-x to -xxxx,
 * collected per device and read through the dump backend, parse_lspci_hex.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"
#include "paste_internal.h"
#include "paste_names.h"
#include "p2pscope/parse.h"

/* "[vvvv:dddd]" or "vvvv:dddd" at p. */
static bool ids_at(const char *p, uint16_t *ven, uint16_t *dev)
{
	bool br = *p == '[';
	p += br;
	for (int i = 0; i < 9; i++)
		if (i == 4 ? p[i] != ':' : !isxdigit((unsigned char)p[i]))
			return false;
	if (br ? p[9] != ']' : isxdigit((unsigned char)p[9]))
		return false;
	uint64_t v, d;
	if (!p2ps_scan_uint(p, 16, UINT16_MAX, &v) || !p2ps_scan_uint(p + 5, 16, UINT16_MAX, &d))
		return false;
	*ven = (uint16_t)v;
	*dev = (uint16_t)d;
	return true;
}

/* Class part "VGA compatible controller [0300]", "Class [0302]", "Class 0600". */
static void header_class(struct p2ps_paste_dev *pd, const char *s, size_t n)
{
	uint16_t code = 0;
	uint64_t v;
	const char *e;
	bool known = false;
	if ((n >= 6 && s[n - 1] == ']' && s[n - 6] == '[' && pt_hex(s + n - 5, &v, &e) &&
	     e == s + n - 1) ||
	    (pt_starts(s, "Class ") && pt_hex(s + 6, &v, &e) && e == s + n && v <= 0xffff))
		code = (uint16_t)v, known = true;
	else
		known = pt_class_by_name(s, n, &code);
	if (!known)
		return;
	pd->class_known = true;
	pd->d.class_code = (uint32_t)code << 8 | (pd->d.class_code & 0xff);
	if (code == 0x0604)
		pd->d.header_type = 1;
}

/* Vendor and device from the names when no numeric ids are printed. */
static void header_names(struct p2ps_paste_dev *pd, const char *rest)
{
	uint16_t ven;
	size_t n;
	if (!pd->ids_known && pt_vendor_by_name(rest, &ven, &n)) {
		pd->d.vendor_id = ven;
		pd->vendor_known = true;
		uint64_t v;
		const char *e;
		/* Old pci.ids: "NVIDIA Corporation Device 2684". */
		if (pt_starts(rest + n, " Device ") && pt_hex(rest + n + 8, &v, &e) &&
		    e - (rest + n + 8) == 4 && !isalnum((unsigned char)*e)) {
			pd->d.device_id = (uint16_t)v;
			pd->ids_known = true;
		}
	}
	if (pd->d.vendor_id == 0x10de && !pd->d.chip)
		pd->d.chip = pt_chip_by_name(rest);
}

/* Everything after "BDF Class: " — names, [ids], (rev xx), (prog-if xx [...]). */
void pt_lspci_names(struct pctx *c, struct p2ps_paste_dev *pd, const char *rest, int line)
{
	pd->from[P2PS_PD_IDENT] = pt_where(c, line);
	snprintf(pd->name, sizeof(pd->name), "%s", rest);
	char *cut = strstr(pd->name, " (rev ");
	if (cut)
		*cut = '\0';
	for (const char *p = rest; *p; p++) {
		uint16_t v, d;
		if ((*p == '[' || (p > rest && p[-1] == ' ')) && ids_at(p, &v, &d)) {
			pd->d.vendor_id = v;
			pd->d.device_id = d;
			pd->ids_known = pd->vendor_known = true;
			break;
		}
	}
	const char *r = strstr(rest, "(rev ");
	uint64_t v;
	if (r && pt_hex(r + 5, &v, NULL))
		pd->d.revision = (uint8_t)v;
	const char *pi = strstr(rest, "(prog-if ");
	if (pi && pt_hex(pi + 9, &v, NULL))
		pd->d.class_code = (pd->d.class_code & ~0xffu) | (uint8_t)v;
	header_names(pd, rest);
	if (pd->ids_known && pd->d.vendor_id == 0x10de) {
		const struct p2ps_nvidia_chip *ch = p2ps_nvidia_chip_lookup(pd->d.device_id);
		if (ch)
			pd->d.chip = ch;
	}
}

struct p2ps_paste_dev *pt_lspci_header(struct pctx *c, const struct pl_line *l)
{
	const char *t = pt_skip_ws(l->s);
	struct p2ps_bdf b, up = {0};
	bool dom, have_up = false;
	const char *p;
	if (!pt_bdf(t, &b, &dom, &p))
		return NULL;
	/* IOMMU listings print the path: "0000:00:1c.3/08:00.0/09:01.0". */
	while (*p == '/') {
		struct p2ps_bdf nx;
		if (!pt_bdf(p + 1, &nx, NULL, &p))
			return NULL;
		nx.domain = b.domain;
		up = b;
		have_up = true;
		b = nx;
	}
	const char *colon = strstr(p, ": ");
	if (*p != ' ' || !colon)
		return NULL;
	struct p2ps_paste_dev *pd = pt_dev(c, &b);
	if (!pd)
		return NULL;
	if (have_up) {
		pd->d.has_parent = true;
		pd->d.parent_bdf = up;
		pd->from[P2PS_PD_PARENT] = pt_where(c, l->no);
	}
	header_class(pd, p + 1, (size_t)(colon - p - 1));
	pt_lspci_names(c, pd, colon + 2, l->no);
	if (pd->class_known)
		pd->from[P2PS_PD_CLASS] = pt_where(c, l->no);
	return pd;
}

/* The device lines without a device line belong to: the -s SLOT of the command, or the
 * device whose block a "[...]" interrupted. */
static struct p2ps_paste_dev *orphan_owner(struct pctx *c)
{
	const struct p2ps_paste_block *b = c->block >= 0 ? &c->p->blocks[c->block] : NULL;
	char slot[32];
	struct p2ps_bdf bdf;
	if (b && pt_command_opt(b->command, "-s", slot, sizeof(slot)) && !strchr(slot, '*') &&
	    p2ps_bdf_parse(slot, &bdf) == 0)
		return pt_dev(c, &bdf);
	if (c->lspci_cut_dev >= 0 && (size_t)c->lspci_cut_dev < c->p->n_devs)
		return &c->p->devs[c->lspci_cut_dev];
	return NULL;
}

/* Appends a device line and its hex rows to the dump text for the hex path. */
static void dump_append(struct pctx *c, char **dump, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 2 > *cap) {
		size_t ncap = (*cap ? *cap * 2 : 4096) + n + 2;
		char *nd = realloc(*dump, ncap);
		if (!nd) {
			c->oom = true;
			return;
		}
		*dump = nd;
		*cap = ncap;
	}
	memcpy(*dump + *len, s, n);
	(*dump)[*len + n] = '\n';
	*len += n + 1;
	(*dump)[*len] = '\0';
}

struct lspci_state {
	struct p2ps_paste_dev *dev; /* device being read (NULL: none) */
	size_t dev_idx;
	char *dump;
	size_t dump_len, dump_cap;
	int dump_first;
	bool dev_in_dump;
	int capctx; /* capability being read (pt_lspci_detail) */
	int devices, details, orphans;
};

static void end_device(struct pctx *c, struct lspci_state *st, bool natural)
{
	if (!st->dev)
		return;
	struct p2ps_paste_dev *pd = &c->p->devs[st->dev_idx];
	pd->complete |= natural || pd->driver_line;
	pd->cut |= !pd->complete;
	st->dev = NULL;
}

static void on_device_line(struct pctx *c, struct lspci_state *st, const struct pl_line *l)
{
	end_device(c, st, true);
	st->dev = pt_lspci_header(c, l);
	st->dev_in_dump = false;
	st->capctx = 0;
	if (!st->dev)
		return;
	st->dev_idx = (size_t)(st->dev - c->p->devs);
	st->devices++;
}

static void on_hex_row(struct pctx *c, struct lspci_state *st, const struct pl_line *l)
{
	if (!st->dev)
		return;
	struct p2ps_paste_dev *pd = &c->p->devs[st->dev_idx];
	if (!st->dev_in_dump) {
		char hdr[64];
		snprintf(hdr, sizeof(hdr), "%s Class", pd->d.bdf_str);
		if (st->dump_len)
			dump_append(c, &st->dump, &st->dump_len, &st->dump_cap, "");
		else
			st->dump_first = l->no;
		dump_append(c, &st->dump, &st->dump_len, &st->dump_cap, hdr);
		st->dev_in_dump = true;
	}
	dump_append(c, &st->dump, &st->dump_len, &st->dump_cap, l->s);
}

/* "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ ..." with no device line above it
 * (`lspci -vvv | grep ACSCtl`): kept as ACS of a port the paste does not name. */
static bool loose_acs(struct pctx *c, const struct pl_line *l)
{
	const char *t = pt_skip_ws(l->s);
	if (!pt_starts(t, "ACSCtl:"))
		return false;
	struct p2ps_paste_acs_loose *a = &c->p->acs_loose;
	if (!a->lines++) {
		a->first = pt_where(c, l->no);
		snprintf(a->first_text, sizeof(a->first_text), "%s", t);
	}
	bool redir = strstr(t, "ReqRedir+") || strstr(t, "CmpltRedir+");
	if (redir && !a->redirect++) { /* name a redirecting port's line */
		a->first = pt_where(c, l->no);
		snprintf(a->first_text, sizeof(a->first_text), "%s", t);
	}
	return true;
}

void pt_parse_lspci(struct pctx *c, const struct pl_span *sp)
{
	struct lspci_state st = {0};
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom) {
		enum pt_class cls = pt_classify(l.s, PT_LSPCI_DETAIL);
		if (cls == PT_LSPCI_DEV) {
			on_device_line(c, &st, &l);
		} else if (cls == PT_HEX) {
			on_hex_row(c, &st, &l);
		} else if (*pt_skip_ws(l.s)) {
			if (!st.dev && !st.orphans && (st.dev = orphan_owner(c)) != NULL)
				st.dev_idx = (size_t)(st.dev - c->p->devs);
			if (st.dev)
				st.dev = &c->p->devs[st.dev_idx]; /* pt_dev may have moved the array
				                                   */
			bool read = st.dev ? pt_lspci_detail(c, st.dev, &l, &st.capctx)
			                   : loose_acs(c, &l);
			st.details += read;
			st.orphans += !st.dev && !read;
		}
	}
	bool cut = c->block >= 0 && c->p->blocks[c->block].cut;
	end_device(c, &st, !cut && !c->at_eof);
	c->lspci_cut_dev = cut && st.devices ? (int)st.dev_idx : -1;
	if (st.dump_len)
		pt_lspci_hex(c, st.dump, st.dump_len, st.dump_first);
	free(st.dump);
	if (st.devices || st.details)
		pt_summary(c, "%d device%s, %d detail line%s", st.devices,
		           st.devices == 1 ? "" : "s", st.details, st.details == 1 ? "" : "s");
	if (st.orphans)
		pt_summary(c, "%d lspci line%s without a device line (no -s SLOT): skipped",
		           st.orphans, st.orphans == 1 ? "" : "s");
}
