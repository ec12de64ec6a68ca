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
 *
 * Each returns 0, P2PS_EINVAL for text of the wrong shape or P2PS_ERANGE for a value out
 * of range; *out is written only on success.
 */
#ifndef P2PSCOPE_PARSE_H
#define P2PSCOPE_PARSE_H

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

#ifdef __cplusplus
}
#endif

#endif
