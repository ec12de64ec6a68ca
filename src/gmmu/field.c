/* SPDX-License-Identifier: MIT */
/* Field access: lookup, named values, and the driver's two ways of writing a field.
 *
 * The write paths mirror src/nvidia/inc/libraries/field_desc.h: nvFieldSet32 for fields of
 * at most 32 bits inside one aligned 32-bit word (flags, KIND, peer index, PCF, COMPTAGLINE),
 * nvFieldSet64 for addresses. Only the assertions differ between a checked and a release
 * build, so GMMU_WRITE_AS_WRITTEN is the release build's arithmetic.
 */
#include "gmmu_internal.h"

#include "p2pscope/parse.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bits per word of the two access widths the driver uses. */
#define BITS32 32u
#define BITS64 64u

const struct gmmu_field *gmmu_field_find(const struct gmmu_entry_format *ef, const char *name)
{
	if (!ef || !name)
		return NULL;
	for (size_t i = 0; i < ef->n_fields; i++)
		if (!strcasecmp(ef->fields[i].name, name))
			return &ef->fields[i];
	return NULL;
}

const struct gmmu_field *gmmu_field_by_role(const struct gmmu_entry_format *ef, enum gmmu_role r,
                                            enum gmmu_half h)
{
	for (size_t i = 0; i < ef->n_fields; i++)
		if (ef->fields[i].role == r && ef->fields[i].half == h &&
		    !(ef->fields[i].flags & GMMU_FIELD_F_ALIAS))
			return &ef->fields[i];
	return NULL;
}

uint64_t gmmu_field_addr_max(const struct gmmu_field *fd)
{
	if (fd->kind != GMMU_FIELD_ADDR)
		return 0;
	uint64_t m = gmmu_field_mask(fd);
	/* Saturate (a 46-bit frame number shifted by 12 still fits, but be general). */
	if (m > (UINT64_MAX >> fd->addr_shift))
		return UINT64_MAX;
	return (m << fd->addr_shift) | ((1ull << fd->addr_shift) - 1);
}

static const char *lookup_name(const struct gmmu_value *t, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

const char *gmmu_field_value_name(const struct gmmu_field *fd, uint64_t value, bool entry_valid)
{
	if (!entry_valid && fd->values_invalid)
		return lookup_name(fd->values_invalid, fd->n_values_invalid, value);
	return lookup_name(fd->values, fd->n_values, value);
}

static int lookup_value(const struct gmmu_value *t, size_t n, const char *s, uint64_t *out)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(t[i].name, s)) {
			*out = t[i].value;
			return 1;
		}
	return 0;
}

int gmmu_parse_u64(const char *s, uint64_t *out)
{
	return p2ps_parse_uint(s, UINT64_MAX, out);
}

/* Appends ", name" (or "name" first) to buf holding *len bytes; stops quietly when full. */
static void join_name(char *buf, size_t cap, size_t *len, const char *name)
{
	if (*len >= cap)
		return;
	int n = snprintf(buf + *len, cap - *len, "%s%s", *len ? ", " : "", name);
	*len += n > 0 ? (size_t)n : 0;
}

int gmmu_field_value_parse(const struct gmmu_field *fd, const char *s, uint64_t *out,
                           struct p2ps_error *err)
{
	if (s && (lookup_value(fd->values, fd->n_values, s, out) ||
	          lookup_value(fd->values_invalid, fd->n_values_invalid, s, out)))
		return 0;
	if (s && gmmu_parse_u64(s, out) == 0)
		return 0;
	char known[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < fd->n_values; i++)
		join_name(known, sizeof(known), &len, fd->values[i].name);
	if (fd->n_values)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "bad value '%s' for %s (a number or one of: %s)", s ? s : "",
		                      fd->name, known);
	return p2ps_error_set(err, P2PS_EINVAL, "bad value '%s' for %s (expected a number%s)",
	                      s ? s : "", fd->name,
	                      fd->kind == GMMU_FIELD_ADDR ? ", a byte address" : "");
}

uint64_t gmmu_field_get(const struct gmmu_field *fd, const uint64_t w[2])
{
	unsigned word = fd->lo / BITS64;
	return (w[word] >> (fd->lo % BITS64)) & gmmu_field_mask(fd);
}

uint64_t gmmu_field_get_addr(const struct gmmu_field *fd, const uint64_t w[2])
{
	return gmmu_field_get(fd, w) << fd->addr_shift;
}

/* nvFieldSet32: word = (word & maskNeg) | (NvU32)(value << shift), value taken as NvU32. */
static void set_desc32(const struct gmmu_field *fd, uint64_t value, uint64_t w[2])
{
	unsigned k = fd->lo / BITS32; /* index of the 32-bit word */
	unsigned shift = fd->lo % BITS32;
	unsigned pos = (k % 2) * BITS32; /* where that word sits in its 64-bit word */
	uint64_t *q = &w[k / 2];
	uint32_t word = (uint32_t)(*q >> pos);
	uint32_t mask_pos = (uint32_t)(gmmu_field_mask(fd) << shift);
	uint32_t shifted = (uint32_t)value << shift;
	word = (word & ~mask_pos) | shifted;
	*q = (*q & ~((uint64_t)UINT32_MAX << pos)) | ((uint64_t)word << pos);
}

/* nvFieldSet64 (one region): the value is masked to the field. */
static void set_desc64(const struct gmmu_field *fd, uint64_t value, uint64_t w[2])
{
	unsigned shift = fd->lo % BITS64;
	uint64_t mask_pos = gmmu_field_mask(fd) << shift;
	uint64_t *q = &w[fd->lo / BITS64];
	*q = (*q & ~mask_pos) | ((value << shift) & mask_pos);
}

int gmmu_field_set(const struct gmmu_field *fd, uint64_t value, enum gmmu_write_mode mode,
                   uint64_t w[2], struct p2ps_error *err)
{
	if (mode == GMMU_WRITE_CHECKED && value > gmmu_field_mask(fd))
		return p2ps_error_set(
		        err, P2PS_ERANGE,
		        "value 0x%" PRIx64 " does not fit %s (%u:%u, %u bits, max 0x%" PRIx64 ")",
		        value, fd->name, fd->hi, fd->lo, gmmu_field_width(fd), gmmu_field_mask(fd));
	if (fd->setter == GMMU_SETTER_DESC32)
		set_desc32(fd, value, w);
	else
		set_desc64(fd, value, w);
	return 0;
}

int gmmu_field_set_addr(const struct gmmu_field *fd, uint64_t addr, enum gmmu_write_mode mode,
                        uint64_t w[2], struct p2ps_error *err)
{
	if (fd->kind != GMMU_FIELD_ADDR)
		return p2ps_error_set(err, P2PS_EINVAL, "%s is not an address field", fd->name);
	uint64_t align = (1ull << fd->addr_shift) - 1;
	if (mode == GMMU_WRITE_CHECKED) {
		if (addr & align)
			return p2ps_error_set(err, P2PS_EINVAL,
			                      "address 0x%" PRIx64 " is not aligned to %" PRIu64
			                      " bytes as %s (shift %u) needs",
			                      addr, align + 1, fd->name, fd->addr_shift);
		if ((addr >> fd->addr_shift) > gmmu_field_mask(fd))
			return p2ps_error_set(err, P2PS_ERANGE,
			                      "address 0x%" PRIx64
			                      " does not fit %s (%u:%u, %u bits of "
			                      "address >> %u: max 0x%" PRIx64 ")",
			                      addr, fd->name, fd->hi, fd->lo, gmmu_field_width(fd),
			                      fd->addr_shift, gmmu_field_addr_max(fd) & ~align);
	}
	set_desc64(fd, addr >> fd->addr_shift, w);
	return 0;
}

int gmmu_entry_set(const struct gmmu_entry_format *ef, const char *field, const char *value,
                   enum gmmu_write_mode mode, uint64_t w[2], struct p2ps_error *err)
{
	const struct gmmu_field *fd = gmmu_field_find(ef, field);
	if (!fd) {
		char known[512] = "";
		size_t len = 0;
		for (size_t i = 0; i < ef->n_fields; i++)
			join_name(known, sizeof(known), &len, ef->fields[i].name);
		return p2ps_error_set(err, P2PS_ENOENT, "unknown field '%s' of %s (fields: %s)",
		                      field ? field : "", ef->prefix, known);
	}
	uint64_t v;
	int rc = gmmu_field_value_parse(fd, value, &v, err);
	if (rc)
		return rc;
	if (fd->kind == GMMU_FIELD_ADDR)
		return gmmu_field_set_addr(fd, v, mode, w, err);
	return gmmu_field_set(fd, v, mode, w, err);
}
