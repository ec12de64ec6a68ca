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

/* What to run instead, by the GPU's generation (libgmmu's BAR1-P2P rows): NVIDIA's own
 * BAR1-P2P from 580 on Hopper (SYS_NONCOH) and Blackwell (SYS_COH,
 * nvGpuOpsGetExternalAllocAperture), the 550-570 patches on Turing..Ada (SYS_NONCOH, the peer's
 * BAR1 bus address, no peer id). */
static const char *fix_text(const struct gmmu_format *f, const char *chip, char *buf, size_t len)
{
	enum gmmu_bar1_gen g = f ? gmmu_bar1_gen_of(f) : GMMU_BAR1_GEN_V2;
	if (f && g != GMMU_BAR1_GEN_V2)
		snprintf(buf, len,
		         "use NVIDIA's own BAR1-P2P (driver 580 or later): on %s it writes peer "
		         "entries as %s with the peer's static BAR1 DMA address and no peer id; "
		         "`pte-decode p2p --chip %s --mode bar1 --driver 580` prints the entry",
		         gmmu_bar1_gen_name(g),
		         g == GMMU_BAR1_GEN_BLACKWELL ? "SYS_COH" : "SYS_NONCOH", chip);
	else
		snprintf(
		        buf, len,
		        "use a BAR1-P2P driver that writes peer entries as SYS_NONCOH with the "
		        "peer's BAR1 bus address and no peer id (the tinygrad 550/565 or aikitoria "
		        "570 patch); `pte-decode p2p --chip %s --mode bar1 --driver 565 --flavor "
		        "tinygrad` prints the entry it should write",
		        chip);
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
