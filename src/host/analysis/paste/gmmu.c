/* SPDX-License-Identifier: MIT */
/* Xid lines, and the one fault a BAR1-P2P port meets first: Xid 31 UNSUPPORTED_KIND after
 * the driver set up peer mappings. libgmmu builds the PEER-aperture entry the stock path
 * writes with NVRM's invalid peer id (0xffffffff) the way a release build stores it, and
 * reads back the KIND that results on this GPU's page-table format: the peer-id smear
 * (docs/gmmu.md). */
#include <stdio.h>
#include <string.h>

#include "observe_internal.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"
#include "p2pscope/nvidia_drivers.h"

static const struct gmmu_field *field_with_role(const struct gmmu_entry_format *ef,
                                                enum gmmu_role role)
{
	for (size_t i = 0; i < ef->n_fields; i++)
		if (ef->fields[i].role == role)
			return &ef->fields[i];
	return NULL;
}

/* What the stock peer entry with peer id 0xffffffff carries in KIND on format f, as a
 * sentence; "" when libgmmu cannot build it. */
static void smear(const struct gmmu_format *f, const char *chip, char *buf, size_t size)
{
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, GMMU_ENTRY_PTE);
	const struct gmmu_field *kind = ef ? field_with_role(ef, GMMU_ROLE_KIND) : NULL;
	const struct gmmu_field *peer = ef ? field_with_role(ef, GMMU_ROLE_PEER_INDEX) : NULL;
	struct gmmu_p2p_request rq = {.mode = GMMU_P2P_STOCK,
	                              .peer_index = 0xffffffffu,
	                              .kind = 6,
	                              .write_mode = GMMU_WRITE_AS_WRITTEN};
	struct gmmu_p2p_result res;
	buf[0] = '\0';
	if (!kind || !peer || gmmu_p2p_encode(f, &rq, &res, NULL) < 0)
		return;
	const uint64_t w[2] = {res.pte, 0};
	uint64_t k = gmmu_field_get(kind, w);
	const char *name = gmmu_field_value_name(kind, k, true);
	snprintf(
	        buf, size,
	        ". libgmmu (%s, %s): NVRM's invalid peer id 0xffffffff does not fit the %u-bit "
	        "%s (%u:%u); a release build writes the rest into its 32-bit word, so KIND becomes "
	        "0x%llx, %s%s",
	        chip, f->name, gmmu_field_width(peer), peer->name, peer->hi, peer->lo,
	        (unsigned long long)k, name ? "kind " : "a kind this GPU does not have",
	        name ? name : "");
}

/* The oldest stock row whose UVM writes a BAR1-P2P entry on generation g (NVIDIA's own
 * case), or NULL. */
static const struct p2ps_nv_driver *stock_bar1(enum gmmu_bar1_gen g)
{
	size_t n;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n), *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct gmmu_bar1_row *r = gmmu_bar1_row_of(&t[i], GMMU_BAR1_PATH_UVM, g);
		if (t[i].flavor == P2PS_NV_FLAVOR_STOCK && r && !r->refused &&
		    (!best || t[i].series < best->series))
			best = &t[i];
	}
	return best;
}

/* The patches whose UVM rewrite writes Turing..Ada peers' entries at the BAR1 bus address
 * (their rows' patched PEER field), by flavor: "tinygrad 550/565 or aikitoria 570". */
static void rewrite_patches(char *buf, size_t len)
{
	size_t n, used = 0;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	int last = -1;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < len; i++) {
		const struct gmmu_bar1_row *r =
		        gmmu_bar1_row_of(&t[i], GMMU_BAR1_PATH_UVM, GMMU_BAR1_GEN_V2);
		if (!r || r->refused || !r->peer_field_patched)
			continue;
		if ((int)t[i].flavor == last)
			snprintf(buf + used, len - used, "/%u", t[i].series);
		else
			snprintf(buf + used, len - used, "%s%s %u", last < 0 ? "" : " or ",
			         p2ps_nv_flavor_name(t[i].flavor), t[i].series);
		used = strlen(buf);
		last = (int)t[i].flavor;
	}
}

/* What to run instead, by the GPU's generation (libgmmu's BAR1-P2P rows): NVIDIA's own
 * BAR1-P2P on Hopper (SYS_NONCOH) and Blackwell (SYS_COH, nvGpuOpsGetExternalAllocAperture),
 * the patches' UVM rewrite on Turing..Ada (SYS_NONCOH, the peer's BAR1 bus address, no peer
 * id). */
static const char *fix_text(const struct gmmu_format *f, const char *chip, char *buf, size_t len)
{
	enum gmmu_bar1_gen g = f ? gmmu_bar1_gen_of(f) : GMMU_BAR1_GEN_V2;
	const struct p2ps_nv_driver *stock = stock_bar1(g);
	if (f && g != GMMU_BAR1_GEN_V2 && stock) {
		snprintf(buf, len,
		         "use NVIDIA's own BAR1-P2P (driver %u or later): on %s it writes peer "
		         "entries as %s with the peer's static BAR1 DMA address and no peer id; "
		         "`pte-decode p2p --chip %s --mode bar1 --driver %u` prints the entry",
		         stock->series, gmmu_bar1_gen_name(g),
		         g == GMMU_BAR1_GEN_BLACKWELL ? "SYS_COH" : "SYS_NONCOH", chip,
		         stock->series);
		return buf;
	}
	char patches[96];
	const struct p2ps_nv_driver *ref = p2ps_nv_driver_reference();
	rewrite_patches(patches, sizeof(patches));
	snprintf(buf, len,
	         "use a BAR1-P2P driver that writes peer entries as SYS_NONCOH with the "
	         "peer's BAR1 bus address and no peer id (the %s patch); `pte-decode p2p --chip "
	         "%s --mode bar1 --driver %u --flavor %s` prints the entry it should write",
	         patches, chip, ref->series, p2ps_nv_flavor_name(ref->flavor));
	return buf;
}

void po_gmmu_fault(struct octx *c, const struct p2ps_paste_event *ev)
{
	char lbl[48];
	const char *who = ev->bdf_known ? po_gpu_label(c, &ev->bdf, lbl, sizeof(lbl)) : "a GPU";
	if (ev->a != 31) {
		po_add(c, P2PS_PF_XID, P2PS_SEV_WARNING, ev->from, "Xid %llu on %s: %s",
		       (unsigned long long)ev->a, who, ev->text);
		return;
	}
	bool peer = c->ev->event_count[P2PS_PE_BAR1_P2P_MAPPING] > 0;
	bool kind = !strncmp(ev->detail, "UNSUPPORTED_KIND", 16);
	const struct p2ps_dev *d = ev->bdf_known ? p2ps_host_find(c->h, &ev->bdf) : NULL;
	const struct gmmu_format *f =
	        d && d->chip ? p2ps_nvidia_chip_gmmu(p2ps_nvidia_chip_name(d->chip)) : NULL;
	char dec[320] = "";
	if (kind && f)
		smear(f, p2ps_nvidia_chip_name(d->chip), dec, sizeof(dec));
	else if (kind)
		snprintf(dec, sizeof(dec),
		         "; the decode needs the GPU's chip, which the paste does "
		         "not name (lspci -nn does)");
	struct p2ps_reason *x =
	        po_add(c, P2PS_PF_MMU_FAULT, peer || kind ? P2PS_SEV_BLOCKER : P2PS_SEV_WARNING,
	               ev->from, "Xid 31 MMU fault on %s (%s at 0x%llx)%s%s", who,
	               ev->detail[0] ? ev->detail : "fault", (unsigned long long)ev->b,
	               peer ? " after the driver added BAR1 P2P mappings" : "",
	               kind && peer ? ": the peer-id smear" : "");
	if (x) {
		size_t n = strlen(x->text);
		snprintf(x->text + n, sizeof(x->text) - n, "%s", dec);
	}
	if (kind)
		p2ps_an_fix(x, "%s",
		            fix_text(f, d && d->chip ? p2ps_nvidia_chip_name(d->chip) : "CHIP", dec,
		                     sizeof(dec)));
}
