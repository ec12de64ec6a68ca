/* SPDX-License-Identifier: MIT */
/* lspci -t / -tv: the tree as lspci draws it. Each bus's children hang off one column
 * ("+-" and "\-" in that column on the lines below); a bridge's secondary bus follows it
 * as "-[BB]" or "-[BB-SS]", a root as "-[DDDD:BB]". The parser keeps, per column, the bus
 * and the bridge whose children branch there, so it reads the drawing in one pass. With
 * -v a device's name follows it after two spaces. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"
#include "p2pscope/parse.h"

#define TREE_COLS 512

struct bus_ctx {
	bool used;
	uint32_t domain;
	uint8_t bus;
	uint8_t root_bus; /* bus of the hierarchy's root (for root_bus) */
	bool has_parent;
	struct p2ps_bdf parent;
};

struct tree_state {
	struct bus_ctx col[TREE_COLS];
	struct bus_ctx cur, pending;
	bool have_cur, have_pending;
	struct p2ps_bdf last; /* last device read on this line */
	bool have_last;
	uint32_t domain; /* domain of the current root */
	uint8_t root_bus;
	int devices;
};

/* "[DDDD:BB]", "[BB]" or "[BB-SS]" at s; returns the character after ']' or NULL. */
static void bridge_buses(struct pctx *c, const struct p2ps_bdf *b, uint8_t sec, uint8_t sub,
                         int line)
{
	struct p2ps_paste_dev *br = pt_dev(c, b);
	if (!br)
		return;
	br->d.bridge.is_bridge = true;
	br->d.header_type = 1;
	br->d.bridge.secondary = sec;
	br->d.bridge.subordinate = sub;
	br->from[P2PS_PD_BRIDGE] = pt_where(c, line);
}

static const char *bus_label(struct pctx *c, struct tree_state *st, const char *s, int line)
{
	uint64_t a, b = 0;
	const char *e;
	if (!pt_hex(s + 1, &a, &e))
		return NULL;
	struct bus_ctx n = {.used = true, .domain = st->domain};
	if (*e == ':' && pt_hex(e + 1, &b, &e) && *e == ']') { /* a root: [DDDD:BB] */
		st->domain = n.domain = (uint32_t)a;
		st->root_bus = n.bus = (uint8_t)b;
		st->have_last = false;
	} else if (*e == ']' || (*e == '-' && pt_hex(e + 1, &b, &e) && *e == ']')) {
		n.bus = (uint8_t)a;
		if (!st->have_last)
			return e + 1;
		n.has_parent = true;
		n.parent = st->last;
		bridge_buses(c, &st->last, (uint8_t)a, (uint8_t)(b ? b : a), line);
	} else {
		return NULL;
	}
	n.root_bus = st->root_bus;
	st->pending = n;
	st->have_pending = true;
	return e + 1;
}

static void device(struct pctx *c, struct tree_state *st, const char *s, int line)
{
	if (!st->have_cur && st->have_pending) { /* "----00.0": a bus's only child */
		st->cur = st->pending;
		st->have_cur = true;
		st->have_pending = false;
	}
	if (!st->have_cur)
		return;
	uint64_t dev = 0;
	p2ps_scan_uint(s, 16, UINT8_MAX, &dev);
	struct p2ps_bdf b = {st->cur.domain, st->cur.bus, (uint8_t)dev, (uint8_t)(s[3] - '0')};
	if (b.dev > 31 || b.fn > 7)
		return;
	struct p2ps_paste_dev *pd = pt_dev(c, &b);
	if (!pd)
		return;
	st->devices++;
	st->last = b;
	st->have_last = true;
	st->have_cur = false; /* a device ends the branch it sat on */
	snprintf(pd->d.root_bus, sizeof(pd->d.root_bus), "pci%04x:%02x", st->cur.domain,
	         st->cur.root_bus);
	pd->d.has_parent = st->cur.has_parent;
	pd->d.parent_bdf = st->cur.parent;
	pd->from[P2PS_PD_PARENT] = pt_where(c, line);
	const char *name = s + 4;
	if (name[0] == ' ' && name[1] == ' ' && name[2] && name[2] != ' ')
		pt_lspci_names(c, pd, name + 2, line);
}

static void tree_line(struct pctx *c, struct tree_state *st, const char *s, int line)
{
	st->have_cur = false;
	st->have_pending = false;
	for (size_t i = 0; s[i];) {
		if (s[i] == '[') {
			const char *e = bus_label(c, st, s + i, line);
			if (!e)
				return;
			i = (size_t)(e - s);
		} else if ((s[i] == '+' || s[i] == '\\') && s[i + 1] == '-') {
			if (st->have_pending && i < TREE_COLS) {
				st->col[i] = st->pending;
				st->have_pending = false;
			}
			st->have_cur = i < TREE_COLS && st->col[i].used;
			if (st->have_cur)
				st->cur = st->col[i];
			i += 2;
		} else if (i > 0 && s[i - 1] == '-' && isxdigit((unsigned char)s[i]) &&
		           isxdigit((unsigned char)s[i + 1]) && s[i + 2] == '.' &&
		           isdigit((unsigned char)s[i + 3])) {
			device(c, st, s + i, line);
			if (s[i + 4] == ' ' && s[i + 5] == ' ')
				return; /* the rest of the line is the device's name */
			i += 4;
		} else {
			i++;
		}
	}
}

void pt_parse_tree(struct pctx *c, const struct pl_span *sp)
{
	static struct tree_state zero;
	struct tree_state *st = malloc(sizeof(*st));
	if (!st) {
		c->oom = true;
		return;
	}
	*st = zero;
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom)
		tree_line(c, st, l.s, l.no);
	pt_summary(c, "tree of %d device%s", st->devices, st->devices == 1 ? "" : "s");
	free(st);
}
