/* SPDX-License-Identifier: MIT */
/* Config-space decoders over a byte buffer. Register names come from libpci's
 * <pci/header.h>; the few it lacks (Resizable BAR) are defined here from the PCIe
 * base specification's register layout. */
#include "config_decode.h"

#include <string.h>

#include <pci/pci.h>

#include "host_internal.h"
#include "p2pscope/bytes.h"

/* Resizable BAR extended capability: entries of two registers from +4, 8 bytes each. */
#define REBAR_ENTRY0         0x04
#define REBAR_ENTRY_STRIDE   8
#define REBAR_CAP_SIZES_LO   4 /* capability bits 31:4: sizes 2^0..2^27 MiB */
#define REBAR_CTL_BAR_MASK   0x7u
#define REBAR_CTL_NBAR_SHIFT 5
#define REBAR_CTL_NBAR_MASK  0x7u
#define REBAR_CTL_SIZE_SHIFT 8
#define REBAR_CTL_SIZE_MASK  0x3fu
#define REBAR_CTL_SIZES_HI   16 /* control bits 31:16: sizes 2^28..2^43 MiB */

#define CFG_HEADER_LEN  0x40
#define CFG_LEGACY_LEN  0x100
#define EXT_CAP_NEXT(h) (((h) >> 20) & 0xffcu)

const char *p2ps_walk_end_name(enum p2ps_walk_end end)
{
	switch (end) {
	case P2PS_WALK_OK: return "ok";
	case P2PS_WALK_NONE: return "none";
	case P2PS_WALK_LOOPED: return "looped";
	case P2PS_WALK_BROKEN: return "broken";
	case P2PS_WALK_DENIED: return "denied";
	}
	return "?";
}

/* Returns 0 after recording how a walk ended (for the callers' "return 0" exits). */
static uint16_t end_walk(enum p2ps_walk_end *end, enum p2ps_walk_end v)
{
	if (end)
		*end = v;
	return 0;
}

/* One step of a walk to the entry of hdr bytes at off inside [lo, hi): it must be in
 * the list's space (else the chain is broken), readable (else denied) and not visited
 * before (else looped). false when the step may proceed; *end set otherwise. */
static bool step_bad(unsigned off, unsigned hdr, unsigned lo, unsigned hi, size_t len,
                     uint8_t *seen, enum p2ps_walk_end *end)
{
	enum p2ps_walk_end why;
	if (off < lo || off + hdr > hi)
		why = P2PS_WALK_BROKEN;
	else if (off + hdr > len)
		why = P2PS_WALK_DENIED;
	else if (seen[off / 4]++)
		why = P2PS_WALK_LOOPED;
	else
		return false;
	end_walk(end, why);
	return true;
}

uint16_t p2ps_cfg_find_cap(const uint8_t *cfg, size_t len, uint8_t id, enum p2ps_walk_end *end)
{
	uint8_t seen[CFG_LEGACY_LEN / 4] = {0};
	if (len < CFG_HEADER_LEN || !(p2ps_le16(cfg + PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return end_walk(end, len < CFG_HEADER_LEN ? P2PS_WALK_DENIED : P2PS_WALK_NONE);
	unsigned off = cfg[PCI_CAPABILITY_LIST] & ~3u;
	if (!off)
		return end_walk(end, P2PS_WALK_NONE);
	/* The standard list lives in 0x40..0xff; each entry is at least 4 bytes, so the
	 * visited set also bounds the walk to 48 steps. */
	while (off) {
		if (step_bad(off, 2, CFG_HEADER_LEN, CFG_LEGACY_LEN, len, seen, end))
			return 0;
		if (cfg[off] == 0xff)
			return end_walk(end, P2PS_WALK_BROKEN);
		if (cfg[off] == id) {
			end_walk(end, P2PS_WALK_OK);
			return (uint16_t)off;
		}
		off = cfg[off + 1] & ~3u;
	}
	return end_walk(end, P2PS_WALK_OK);
}

uint16_t p2ps_cfg_find_ext_cap(const uint8_t *cfg, size_t len, uint16_t id, enum p2ps_walk_end *end)
{
	uint8_t seen[P2PS_HOST_CONFIG_MAX / 4] = {0};
	unsigned off = CFG_LEGACY_LEN;
	if (len <= CFG_LEGACY_LEN)
		return end_walk(end, P2PS_WALK_DENIED);
	while (off) {
		if (step_bad(off, 4, CFG_LEGACY_LEN, P2PS_HOST_CONFIG_MAX, len, seen, end))
			return 0;
		uint32_t hdr = p2ps_le32(cfg + off);
		/* An all-zero header: an empty list at 0x100, a broken link elsewhere. */
		if (hdr == 0)
			return end_walk(end,
			                off == CFG_LEGACY_LEN ? P2PS_WALK_NONE : P2PS_WALK_BROKEN);
		if (hdr == 0xffffffffu)
			return end_walk(end, P2PS_WALK_BROKEN);
		/* Id 0 is a placeholder (seen on passed-through GPUs): keep following next. */
		if ((hdr & 0xffffu) == id && id != 0) {
			end_walk(end, P2PS_WALK_OK);
			return (uint16_t)off;
		}
		off = EXT_CAP_NEXT(hdr);
	}
	return end_walk(end, P2PS_WALK_OK);
}

bool p2ps_bar_unassigned(const struct p2ps_dev *d, const struct p2ps_bar *b)
{
	if (b->address)
		return false;
	if (b->io && d->config_len >= CFG_HEADER_LEN)
		return !(p2ps_le16(d->config + PCI_COMMAND) & PCI_COMMAND_IO);
	return true;
}

static void decode_bars(struct p2ps_dev *d, int nbars)
{
	const uint8_t *c = d->config;
	for (int i = 0; i < nbars; i++) {
		struct p2ps_bar *b = &d->bars[i];
		uint32_t lo = p2ps_le32(c + PCI_BASE_ADDRESS_0 + 4 * i);
		if (lo == 0xffffffffu)
			lo = 0;
		b->raw = lo;
		if (!lo)
			continue;
		b->present = true;
		if (lo & PCI_BASE_ADDRESS_SPACE_IO) {
			b->io = true;
			b->address = lo & PCI_BASE_ADDRESS_IO_MASK;
		} else {
			b->prefetchable = (lo & PCI_BASE_ADDRESS_MEM_PREFETCH) != 0;
			b->address = lo & PCI_BASE_ADDRESS_MEM_MASK;
			if ((lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64 &&
			    i + 1 < nbars) {
				b->is_64bit = true;
				uint32_t hi = p2ps_le32(c + PCI_BASE_ADDRESS_0 + 4 * (i + 1));
				b->address |= (uint64_t)hi << 32;
				i++; /* the upper half is not a BAR of its own */
			}
		}
		b->unassigned = p2ps_bar_unassigned(d, b);
	}
}

static void decode_windows(struct p2ps_dev *d)
{
	const uint8_t *c = d->config;
	struct p2ps_bridge *br = &d->bridge;
	br->is_bridge = true;
	br->primary = c[PCI_PRIMARY_BUS];
	br->secondary = c[PCI_SECONDARY_BUS];
	br->subordinate = c[PCI_SUBORDINATE_BUS];

	uint8_t iob = c[PCI_IO_BASE], iol = c[PCI_IO_LIMIT];
	uint64_t io_base = (uint64_t)(iob & PCI_IO_RANGE_MASK & 0xff) << 8;
	uint64_t io_limit = (uint64_t)(iol & PCI_IO_RANGE_MASK & 0xff) << 8 | 0xfff;
	if ((iob & PCI_IO_RANGE_TYPE_MASK) == PCI_IO_RANGE_TYPE_32) {
		io_base |= (uint64_t)p2ps_le16(c + PCI_IO_BASE_UPPER16) << 16;
		io_limit |= (uint64_t)p2ps_le16(c + PCI_IO_LIMIT_UPPER16) << 16;
	}
	br->io = (struct p2ps_window){io_base <= io_limit, io_base, io_limit, false};

	/* Memory windows are 1 MiB granular: base/limit registers hold address bits 31:20. */
	uint64_t mb = (uint64_t)(p2ps_le16(c + PCI_MEMORY_BASE) & 0xfff0u) << 16;
	uint64_t ml = (uint64_t)(p2ps_le16(c + PCI_MEMORY_LIMIT) & 0xfff0u) << 16 | 0xfffff;
	br->mem = (struct p2ps_window){mb <= ml, mb, ml, false};

	uint16_t pb = p2ps_le16(c + PCI_PREF_MEMORY_BASE),
	         pl = p2ps_le16(c + PCI_PREF_MEMORY_LIMIT);
	uint64_t pbase = (uint64_t)(pb & 0xfff0u) << 16;
	uint64_t plim = (uint64_t)(pl & 0xfff0u) << 16 | 0xfffff;
	bool p64 = (pb & PCI_PREF_RANGE_TYPE_MASK) == PCI_PREF_RANGE_TYPE_64;
	if (p64) {
		pbase |= (uint64_t)p2ps_le32(c + PCI_PREF_BASE_UPPER32) << 32;
		plim |= (uint64_t)p2ps_le32(c + PCI_PREF_LIMIT_UPPER32) << 32;
	}
	br->pref = (struct p2ps_window){pbase <= plim, pbase, plim, p64};
}

void p2ps_cfg_decode_header(struct p2ps_dev *d)
{
	const uint8_t *c = d->config;
	if (d->config_len < CFG_HEADER_LEN)
		return;
	d->vendor_id = p2ps_le16(c + PCI_VENDOR_ID);
	d->device_id = p2ps_le16(c + PCI_DEVICE_ID);
	d->revision = c[PCI_REVISION_ID];
	d->class_code = p2ps_le32(c + PCI_CLASS_REVISION) >> 8;
	d->header_type = c[PCI_HEADER_TYPE] & 0x7f;
	uint32_t rom = 0;
	switch (d->header_type) {
	case PCI_HEADER_TYPE_NORMAL:
		decode_bars(d, 6);
		d->subsys_vendor_id = p2ps_le16(c + PCI_SUBSYSTEM_VENDOR_ID);
		d->subsys_id = p2ps_le16(c + PCI_SUBSYSTEM_ID);
		rom = p2ps_le32(c + PCI_ROM_ADDRESS);
		break;
	case PCI_HEADER_TYPE_BRIDGE:
		decode_bars(d, 2);
		decode_windows(d);
		rom = p2ps_le32(c + PCI_ROM_ADDRESS1);
		break;
	case PCI_HEADER_TYPE_CARDBUS:
		/* CardBus bridges keep their bus numbers at the same offsets as PCI bridges;
		 * their windows have another layout and are not decoded. */
		decode_bars(d, 1);
		d->bridge.is_bridge = true;
		d->bridge.windows_unknown = true;
		d->bridge.primary = c[PCI_PRIMARY_BUS];
		d->bridge.secondary = c[PCI_SECONDARY_BUS];
		d->bridge.subordinate = c[PCI_SUBORDINATE_BUS];
		break;
	default: break;
	}
	if (rom && rom != 0xffffffffu) {
		d->rom.present = true;
		d->rom.address = rom & 0xfffff800u;
		d->rom.enabled = rom & PCI_ROM_ADDRESS_ENABLE;
	}
}

void p2ps_cap_pcie(struct p2ps_dev *d, uint16_t off)
{
	const uint8_t *c = d->config;
	struct p2ps_pcie *p = &d->pcie;
	if (!off || (size_t)off + PCI_EXP_LNKSTA + 2 > d->config_len)
		return;
	uint16_t flags = p2ps_le16(c + off + PCI_EXP_FLAGS);
	p->present = true;
	p->offset = off;
	p->version = flags & PCI_EXP_FLAGS_VERS;
	p->port_type = (flags & PCI_EXP_FLAGS_TYPE) >> 4;
	/* Root-complex integrated endpoints and event collectors have no link. */
	if (p->port_type == PCI_EXP_TYPE_ROOT_INT_EP || p->port_type == PCI_EXP_TYPE_ROOT_EC)
		return;
	p->lnkcap_raw = p2ps_le32(c + off + PCI_EXP_LNKCAP);
	p->lnksta_raw = p2ps_le16(c + off + PCI_EXP_LNKSTA);
	p->cap.speed = p->lnkcap_raw & PCI_EXP_LNKCAP_SPEED;
	p->cap.width = (p->lnkcap_raw & PCI_EXP_LNKCAP_WIDTH) >> 4;
	p->sta.speed = p->lnksta_raw & PCI_EXP_LNKSTA_SPEED;
	p->sta.width = (p->lnksta_raw & PCI_EXP_LNKSTA_WIDTH) >> 4;
	p->cap_source = P2PS_LINK_CONFIG;
	p->sta_source = P2PS_LINK_CONFIG;
}

void p2ps_ecap_acs(struct p2ps_dev *d, uint16_t off)
{
	if (!off || (size_t)off + PCI_ACS_CTRL + 2 > d->config_len)
		return;
	d->acs.present = true;
	d->acs.offset = off;
	d->acs.cap = p2ps_le16(d->config + off + PCI_ACS_CAP);
	d->acs.ctl = p2ps_le16(d->config + off + PCI_ACS_CTRL);
}

void p2ps_ecap_rebar(struct p2ps_dev *d, uint16_t off)
{
	struct p2ps_rebar *r = &d->rebar;
	if (!off || (size_t)off + REBAR_ENTRY0 + REBAR_ENTRY_STRIDE > d->config_len)
		return;
	r->present = true;
	r->offset = off;
	uint32_t ctl0 = p2ps_le32(d->config + off + REBAR_ENTRY0 + 4);
	unsigned n = (ctl0 >> REBAR_CTL_NBAR_SHIFT) & REBAR_CTL_NBAR_MASK;
	if (n < 1 || n > P2PS_HOST_MAX_REBAR) {
		/* Out of specification: keep the capability, report no entries. */
		p2ps_dev_set_unknown(d, P2PS_FACT_REBAR,
		                     "Resizable BAR capability claims %u BARs (spec: 1..6)", n);
		r->count = 0;
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned e = off + REBAR_ENTRY0 + REBAR_ENTRY_STRIDE * i;
		if (e + REBAR_ENTRY_STRIDE > d->config_len)
			break;
		struct p2ps_rebar_entry *en = &r->e[r->count++];
		en->cap_raw = p2ps_le32(d->config + e);
		en->ctl_raw = p2ps_le32(d->config + e + 4);
		en->bar = en->ctl_raw & REBAR_CTL_BAR_MASK;
		en->current = (en->ctl_raw >> REBAR_CTL_SIZE_SHIFT) & REBAR_CTL_SIZE_MASK;
		en->sizes = (uint64_t)(en->cap_raw >> REBAR_CAP_SIZES_LO) |
		            (uint64_t)(en->ctl_raw >> REBAR_CTL_SIZES_HI) << 28;
		/* The current size is the size the BAR decodes: it fills in what dumps lack. */
		if (en->bar < P2PS_HOST_MAX_BARS && !d->bars[en->bar].size_known &&
		    d->bars[en->bar].present) {
			d->bars[en->bar].size = p2ps_rebar_size_bytes(en->current);
			d->bars[en->bar].size_known = d->bars[en->bar].size != 0;
		}
	}
}

static bool pcie_present(const struct p2ps_dev *d)
{
	return d->pcie.present;
}

static bool acs_present(const struct p2ps_dev *d)
{
	return d->acs.present;
}

static bool rebar_present(const struct p2ps_dev *d)
{
	return d->rebar.present;
}

/* The bytes the ReBAR decoder reads: the first entry says how many entries follow. */
static unsigned rebar_len(const uint8_t *cfg, unsigned off)
{
	unsigned n = (p2ps_le32(cfg + off + REBAR_ENTRY0 + 4) >> REBAR_CTL_NBAR_SHIFT) &
	             REBAR_CTL_NBAR_MASK;
	if (n < 1 || n > P2PS_HOST_MAX_REBAR)
		n = 1; /* out of specification: the decoder reads no entry past the first */
	return REBAR_ENTRY0 + REBAR_ENTRY_STRIDE * n;
}

/* Sizes: the bytes from the capability's offset that its decoder reads first. */
static const struct p2ps_cap_decoder decoders[] = {
        {PCI_CAP_ID_EXP, false, PCI_EXP_LNKSTA + 2, NULL, P2PS_FACT_LINK_CAP, p2ps_cap_pcie,
         pcie_present},
        {PCI_EXT_CAP_ID_ACS, true, PCI_ACS_CTRL + 2, NULL, P2PS_FACT_ACS, p2ps_ecap_acs,
         acs_present},
        {PCI_EXT_CAP_ID_REBAR, true, REBAR_ENTRY0 + REBAR_ENTRY_STRIDE, rebar_len, P2PS_FACT_REBAR,
         p2ps_ecap_rebar, rebar_present},
};

const struct p2ps_cap_decoder *p2ps_cap_decoders(size_t *count)
{
	*count = sizeof(decoders) / sizeof(decoders[0]);
	return decoders;
}

void p2ps_cfg_decode_caps(struct p2ps_dev *d)
{
	enum p2ps_walk_end end = P2PS_WALK_NONE;
	if (d->config_len < CFG_HEADER_LEN) {
		p2ps_dev_set_unknown(d, P2PS_FACT_CAPS, "config space header not readable");
		return;
	}
	/* An all-ones header means the reads failed (device in D3cold, gone, or a dump
	 * row missing): whatever follows is not a capability list. */
	if (p2ps_le16(d->config + PCI_VENDOR_ID) == 0xffff ||
	    (d->config[PCI_HEADER_TYPE] & 0x7f) == 0x7f) {
		memset(&d->pcie, 0, sizeof(d->pcie));
		memset(&d->acs, 0, sizeof(d->acs));
		memset(&d->rebar, 0, sizeof(d->rebar));
		p2ps_dev_set_unknown(d, P2PS_FACT_CAPS, "config header reads as all-ones");
		p2ps_strlcpy(d->ext_cap_walk, "denied", sizeof(d->ext_cap_walk));
		return;
	}
	enum p2ps_walk_end xend = P2PS_WALK_NONE;
	size_t n;
	const struct p2ps_cap_decoder *t = p2ps_cap_decoders(&n);
	/* The standard list first: extended capabilities exist only on PCIe functions. */
	for (size_t i = 0; i < n; i++) {
		if (t[i].extended)
			continue;
		uint16_t off = p2ps_cfg_find_cap(d->config, d->config_len, (uint8_t)t[i].id, &end);
		if (!t[i].present(d))
			t[i].decode(d, off);
	}
	if (end == P2PS_WALK_DENIED)
		p2ps_dev_set_unknown(d, P2PS_FACT_CAPS,
		                     "capability list lies past the %zu readable config bytes",
		                     d->config_len);
	else if (end == P2PS_WALK_LOOPED || end == P2PS_WALK_BROKEN)
		p2ps_dev_set_unknown(d, P2PS_FACT_CAPS, "capability list %s",
		                     p2ps_walk_end_name(end));
	if (!d->pcie.present && end != P2PS_WALK_DENIED) {
		p2ps_strlcpy(d->ext_cap_walk, "none", sizeof(d->ext_cap_walk));
		return;
	}
	const char *why = d->config_len <= CFG_HEADER_LEN
	                          ? "needs root: config space past 64 bytes is not readable"
	                          : "extended config space (offset 0x100+) is not in the data (an "
	                            "lspci -xxx dump holds 256 bytes; use -xxxx)";
	for (size_t i = 0; i < n; i++) {
		if (!t[i].extended)
			continue;
		uint16_t off = p2ps_cfg_find_ext_cap(d->config, d->config_len, t[i].id, &xend);
		if (!t[i].present(d))
			t[i].decode(d, off);
		if (t[i].present(d))
			continue;
		if (xend == P2PS_WALK_DENIED)
			p2ps_dev_set_unknown(d, t[i].fact, "%s", why);
		else if (xend == P2PS_WALK_LOOPED || xend == P2PS_WALK_BROKEN)
			p2ps_dev_set_unknown(d, t[i].fact, "extended capability list %s",
			                     p2ps_walk_end_name(xend));
	}
	p2ps_strlcpy(d->ext_cap_walk, p2ps_walk_end_name(xend), sizeof(d->ext_cap_walk));
}
