/* SPDX-License-Identifier: MIT */
/* Field-by-field decode of one entry: which fields apply to it and how to show them.
 *
 * In v2 several fields share bits (ADDRESS_SYS 53:8 covers ADDRESS_VID, ADDRESS_VID_PEER and
 * part of COMPTAGLINE); each field lists the apertures that use it, and decode shows the
 * fields of the entry's own aperture, so a sysmem PTE shows ADDRESS_SYS and a peer PTE shows
 * ADDRESS_VID + ADDRESS_VID_PEER + COMPTAGLINE.
 */
#include "gmmu_internal.h"

#include <inttypes.h>
#include <stdio.h>

void gmmu_entry_decode(const struct gmmu_entry_format *ef, const uint64_t w[2],
                       struct gmmu_decoded *out)
{
	const uint64_t w2[2] = {w[0], ef->size > 8 ? w[1] : 0};
	*out = (struct gmmu_decoded){.ef = ef, .w = {w2[0], w2[1]}};

	/* Aperture and validity of each part (whole entry, big half, small half). */
	for (unsigned h = GMMU_HALF_NONE; h <= GMMU_HALF_SMALL; h++) {
		const struct gmmu_field *ap = gmmu_field_by_role(ef, GMMU_ROLE_APERTURE, h);
		out->aperture_hw[h] = ap ? (unsigned)gmmu_field_get(ap, w2) : 0;
		if (ef->type == GMMU_ENTRY_PTE) {
			const struct gmmu_field *v = gmmu_field_by_role(ef, GMMU_ROLE_VALID, h);
			out->half_valid[h] = v && gmmu_field_get(v, w2);
		} else {
			/* A PDE (half) is valid when its aperture is not INVALID; the fast path
			 * of that part (dual PDE: fast[0] big, fast[1] small) maps the numbers. */
			const struct gmmu_fast *x = &ef->fast[h ? h - 1 : 0];
			out->half_valid[h] = ap && x->aperture_sw[out->aperture_hw[h] & 3] !=
			                                   GMMU_APERTURE_INVALID;
		}
	}
	out->valid = ef->type == GMMU_ENTRY_DUAL_PDE
	                     ? out->half_valid[GMMU_HALF_BIG] || out->half_valid[GMMU_HALF_SMALL]
	                     : out->half_valid[GMMU_HALF_NONE];

	uint64_t covered[2] = {0, 0};
	for (size_t i = 0; i < ef->n_fields && i < GMMU_MAX_FIELDS; i++) {
		const struct gmmu_field *fd = &ef->fields[i];
		out->value[i] = gmmu_field_get(fd, w2);
		if (fd->flags & GMMU_FIELD_F_ALIAS)
			continue;
		bool shown = fd->apertures == GMMU_APER_ALL ||
		             (fd->apertures & GMMU_APER_HW(out->aperture_hw[fd->half]));
		if ((fd->flags & GMMU_FIELD_F_IF_SET) && !out->value[i])
			shown = false; /* a zero of a field no writer sets says nothing */
		out->shown[i] = shown;
		if (shown)
			gmmu_field_bits(fd, covered);
	}
	out->unexplained[0] = w2[0] & ~covered[0];
	out->unexplained[1] = w2[1] & ~covered[1];
}

const char *gmmu_decoded_value_str(const struct gmmu_decoded *d, size_t i, char *buf, size_t len)
{
	const struct gmmu_field *fd = &d->ef->fields[i];
	uint64_t v = d->value[i];
	const char *name;
	switch (fd->kind) {
	case GMMU_FIELD_ADDR: snprintf(buf, len, "0x%" PRIx64, v << fd->addr_shift); break;
	case GMMU_FIELD_INT:
		if (gmmu_field_width(fd) > 8)
			snprintf(buf, len, "0x%" PRIx64, v);
		else
			snprintf(buf, len, "%" PRIu64, v);
		break;
	case GMMU_FIELD_BOOL:
	case GMMU_FIELD_ENUM:
		/* A value without a name prints as its number, which parses back. */
		name = gmmu_field_value_name(fd, v, d->half_valid[fd->half]);
		if (name)
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "0x%" PRIx64, v);
		break;
	}
	return buf;
}

const char *gmmu_entry_hex_str(const struct gmmu_entry_format *ef, const uint64_t w[2], char *buf,
                               size_t len)
{
	if (ef->size > 8)
		snprintf(buf, len, "0x%016" PRIx64 "%016" PRIx64, w[1], w[0]);
	else
		snprintf(buf, len, "0x%016" PRIx64, w[0]);
	return buf;
}
