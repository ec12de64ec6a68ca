/* SPDX-License-Identifier: MIT */
/* p2pscope: the parsers for numbers that every tool and library shares, one per syntax.
 *
 *  - unsigned number: "0x" (or "0X") and hex digits, or decimal digits. A leading 0 is
 *    not octal ("010" is ten); no blanks, signs or trailing characters ("+16", " 16" and
 *    "16 " are errors), and a value beyond the caller's maximum is an error, not a wrap.
 *  - size in bytes: an unsigned number, then optionally K, M, G or T (any case; powers
 *    of 1024), then optionally "iB" or "B": "4K", "2MiB", "0x10M", "24GiB". A plain
 *    decimal may end in "B" ("512B"); in a hex number B is a digit ("0x1B" is 27).
 *  - entry value of up to 128 bits: an unsigned number as above, where the hex digits
 *    may be grouped with single '_' between digits ("0x0600_0002_0000_0103"); w[0] takes
 *    bits 63:0, w[1] bits 127:64. Decimal values are limited to 64 bits.
 *  - hex word: the syntax of page-table dumps and physical addresses (--pdb, --va, --mem):
 *    hex digits with "0x" optional ("7f97_9400_0001" and "0x7f9794000001" are the same
 *    value), single '_' between digits, up to 128 bits. Here "10" is sixteen: a dump is
 *    hex whether or not its words say so.
 *
 * So '_' groups hex digits only where long hex values are copied from logs (entry values
 * and hex words); plain numbers and sizes take no '_', and no number is ever octal.
 *
 * Each returns 0, P2PS_EINVAL for text of the wrong shape or P2PS_ERANGE for a value out
 * of range; *out is written only on success.
 */
#ifndef P2PSCOPE_PARSE_H
#define P2PSCOPE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An unsigned number no larger than max. */
int p2ps_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* A size in bytes (the product must fit 64 bits). */
int p2ps_parse_size(const char *s, uint64_t *out);

/* An entry value that fits bits (1..128) bits. */
int p2ps_parse_wide(const char *s, unsigned bits, uint64_t w[2]);

/* A hex word of a NUL-terminated string that fits bits (1..128) bits. */
int p2ps_parse_hex(const char *s, unsigned bits, uint64_t w[2]);

/* The same syntax for tokenizers: the n bytes at s (no NUL needed) as one hex word of up to
 * 128 bits. On success *digits is the number of significant hex digits (0 for the value 0).
 * On P2PS_EINVAL *bad is the offset of the first byte that cannot belong to a hex word, or n
 * when the word is empty, ends in '_' or doubles it; P2PS_ERANGE: more than 128 bits. */
int p2ps_scan_hex(const char *s, size_t n, uint64_t w[2], unsigned *digits, size_t *bad);

/* Scanners for a number inside other programs' text (sysfs files, kernel logs, lspci and
 * nvidia-smi output), where more text follows it. Each reads the number at the very start
 * of s (no blanks or '+' before it) and returns the first byte after it, or NULL when s does
 * not start with one or its value is out of range (*out is then not written).
 *  - p2ps_scan_uint: base 10, decimal digits ("010" is ten); base 16, hex digits with "0x"
 *    optional ("ff" and "0xff" are 255). No '_'. The value must be at most max.
 *  - p2ps_scan_double: a decimal fraction: an optional '-', digits with an optional '.'
 *    and fraction (at least one digit in all), an optional exponent ("63.02", "-1.5e3",
 *    ".5"); no hex, infinity or NaN. */
const char *p2ps_scan_uint(const char *s, unsigned base, uint64_t max, uint64_t *out);
const char *p2ps_scan_double(const char *s, double *out);

/* The value of a hex digit (any case), or -1. */
static inline int p2ps_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

#ifdef __cplusplus
}
#endif

#endif
