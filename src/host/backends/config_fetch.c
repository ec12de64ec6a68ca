/* SPDX-License-Identifier: MIT */
/* Config space read on demand (config_fetch.h).
 *
 * Each 32-bit config read of a device is a config cycle; in a virtual machine every one
 * traps to the hypervisor (about 11 us each on the H100 VM: a 4 KiB read of its GPU took
 * 23 ms) and the kernel serialises them all under one lock, so the only way to be fast
 * is to read less. A report needs the header, the two capability chains and three
 * capabilities' registers: about 20 to 50 dwords a device instead of 1024. */
#include "config_fetch.h"

#include <string.h>

#include <pci/pci.h>

#include "config_decode.h"
#include "p2pscope/bytes.h"

#define HEADER_DWORDS 16

void p2ps_cfg_fetch_reset(struct p2ps_cfg_fetch *f)
{
	memset(f->buf, 0xff, sizeof(f->buf));
	memset(f->done, 0, sizeof(f->done));
	f->len = 0;
}

void p2ps_cfg_fetch(struct p2ps_cfg_fetch *f, unsigned off, unsigned n)
{
	unsigned end = off + n < f->len ? off + n : (unsigned)f->len;
	unsigned w = off / 4;
	while (w * 4 < end) {
		if (f->done[w]) {
			w++;
			continue;
		}
		unsigned e = w;
		while (e * 4 < end && !f->done[e])
			e++;
		/* Inside the readable space reads succeed (the kernel answers a failed
		 * cycle with all-ones); a refusal leaves the 0xff fill. */
		(void)f->read(f->ctx, w * 4, f->buf + w * 4, (e - w) * 4);
		memset(f->done + w, 1, e - w);
		w = e;
	}
}

/* The readable length: 64, 256 or 4096 bytes, as far as the source holds them. */
static void find_len(struct p2ps_cfg_fetch *f)
{
	static const unsigned steps[] = {256, P2PS_HOST_CONFIG_MAX};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		unsigned end = steps[i];
		if (f->size >= 0 ? f->size < (long long)end
		                 : !f->read(f->ctx, end - 4, f->buf + end - 4, 4))
			break;
		if (f->size < 0)
			f->done[end / 4 - 1] = 1;
		f->len = end;
	}
}

void p2ps_cfg_fetch_header(struct p2ps_cfg_fetch *f, unsigned skip)
{
	if (f->size < 0) {
		/* No size known (an lspci dump, in memory): the whole header, then probes. */
		if (!f->read(f->ctx, 0, f->buf, 64))
			return;
		f->len = 64;
		memset(f->done, 1, HEADER_DWORDS);
		find_len(f);
		return;
	}
	/* Ids and command/status first: a source that refuses them has no config. */
	if (f->size < 64 || !f->read(f->ctx, 0, f->buf, 8))
		return;
	f->len = 64;
	f->done[0] = f->done[1] = 1;
	find_len(f);
	/* Then up to the last BAR, with the header type; what a type 0 header keeps
	 * past it (subsystem ids, ROM, capability pointer; not the CardBus CIS pointer,
	 * interrupt and latency registers) or any other type's rest. */
	if (!(skip & (1u << 2)))
		p2ps_cfg_fetch(f, 8, 4);
	p2ps_cfg_fetch(f, 12, 28);
	if ((f->buf[PCI_HEADER_TYPE] & 0x7f) != PCI_HEADER_TYPE_NORMAL)
		p2ps_cfg_fetch(f, 40, 24);
	else if (skip & (1u << 11))
		p2ps_cfg_fetch(f, PCI_ROM_ADDRESS, 8);
	else
		p2ps_cfg_fetch(f, PCI_SUBSYSTEM_VENDOR_ID, 12);
}

/* The registers of a capability the model decodes, at a header the walk passed. */
static void fetch_body(struct p2ps_cfg_fetch *f, unsigned id, bool extended, unsigned off)
{
	size_t n;
	const struct p2ps_cap_decoder *t = p2ps_cap_decoders(&n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].id != id || t[i].extended != extended)
			continue;
		p2ps_cfg_fetch(f, off, t[i].size);
		if (t[i].body_len && off + t[i].size <= f->len)
			p2ps_cfg_fetch(f, off, t[i].body_len(f->buf, off));
	}
}

void p2ps_cfg_fetch_caps(struct p2ps_cfg_fetch *f)
{
	uint8_t *c = f->buf;
	if (f->len < 64 || !(p2ps_le16(c + PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return;
	uint8_t seen[P2PS_HOST_CONFIG_MAX / 4] = {0};
	bool pcie = false;
	for (unsigned at = c[PCI_CAPABILITY_LIST] & ~3u; at; at = c[at + 1] & ~3u) {
		p2ps_cfg_fetch(f, at, 4);
		if (seen[at / 4]++ || c[at] == 0xff)
			break;
		pcie |= c[at] == PCI_CAP_ID_EXP;
		fetch_body(f, c[at], false, at);
	}
	if (!pcie)
		return;
	memset(seen, 0, sizeof(seen));
	unsigned at = 0x100;
	do {
		p2ps_cfg_fetch(f, at, 4);
		uint32_t hdr = p2ps_le32(c + at);
		if (!hdr || hdr == 0xffffffffu || seen[at / 4]++)
			break;
		fetch_body(f, hdr & 0xffffu, true, at);
		at = (hdr >> 20) & ~3u;
	} while (at);
}
