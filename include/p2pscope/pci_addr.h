/* SPDX-License-Identifier: MIT */
/* p2pscope: PCI addresses ("domain:bus:device.function"), the one parser every tool and
 * library uses for them.
 *
 * The accepted spellings are "BB:DD.F" (domain 0) and "DDDD:BB:DD.F", hexadecimal, any
 * case: a domain of up to 8 digits (NVML and nvidia-smi pad it to 8; Intel VMD domains
 * start at 0x10000), a bus of up to 2 digits, a device of up to 2 digits no larger than
 * 0x1f and a one-digit function no larger than 7. Nothing else: no "0x", blanks, signs or
 * trailing characters. Addresses travel through the libraries as struct p2ps_bdf and are
 * formatted back only for messages and output.
 */
#ifndef P2PSCOPE_PCI_ADDR_H
#define P2PSCOPE_PCI_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A PCI address. domain is 32-bit because VMD domains start at 0x10000. */
struct p2ps_bdf {
	uint32_t domain;
	uint8_t bus;
	uint8_t dev; /* 0..31 */
	uint8_t fn;  /* 0..7 */
};

/* Room for the longest formatted address, "ffffffff:ff:1f.7" and its NUL. */
#define P2PS_BDF_STR_MAX 20

/* Parses s (see above) into *out. Returns 0, or P2PS_EINVAL (out untouched). */
int p2ps_bdf_parse(const char *s, struct p2ps_bdf *out);

/* Formats "DDDD:BB:DD.F" (lower case, the domain at least 4 digits) into buf; returns buf. */
char *p2ps_bdf_format(const struct p2ps_bdf *bdf, char *buf, size_t size);

/* Orders addresses by domain, bus, device, function: <0, 0 or >0 as strcmp. */
int p2ps_bdf_compare(const struct p2ps_bdf *a, const struct p2ps_bdf *b);

/* Whether two addresses name the same function. */
bool p2ps_bdf_equal(const struct p2ps_bdf *a, const struct p2ps_bdf *b);

#ifdef __cplusplus
}
#endif

#endif
