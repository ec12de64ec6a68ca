/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4), to recognise a file by its digest (a known libcuda release). */
#ifndef P2PSCOPE_SHA256_H
#define P2PSCOPE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct p2ps_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t block[64];
	size_t used;
};
void p2ps_sha256_init(struct p2ps_sha256 *s);
void p2ps_sha256_update(struct p2ps_sha256 *s, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL into hex. */
void p2ps_sha256_hex(struct p2ps_sha256 *s, char hex[65]);

#ifdef __cplusplus
}
#endif

#endif
