/* SPDX-License-Identifier: MIT */
/* p2pscope: explicit little-endian loads and stores over byte buffers.
 * Entries and config space are always read through these, never by casting a
 * byte pointer to a wider integer type (alignment and host byte order). */
#ifndef P2PSCOPE_BYTES_H
#define P2PSCOPE_BYTES_H

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static inline uint16_t p2ps_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t p2ps_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t p2ps_le64(const uint8_t *p)
{
	return (uint64_t)p2ps_le32(p) | (uint64_t)p2ps_le32(p + 4) << 32;
}

static inline void p2ps_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void p2ps_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void p2ps_put_le64(uint8_t *p, uint64_t v)
{
	p2ps_put_le32(p, (uint32_t)v);
	p2ps_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* The 8 lower-case hex digits of v, most significant first, as the bytes of the
 * returned word in memory order: each nibble spread into a byte, then turned into its
 * digit with no branch and no table (the formatters of million-line dump summaries). */
static inline uint64_t p2ps_hex8(uint32_t v)
{
	uint64_t x = v;
	x = (x | x << 16) & 0x0000ffff0000ffffull;
	x = (x | x << 8) & 0x00ff00ff00ff00ffull;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full; /* nibble i in byte i, 7 the highest */
	uint64_t letter = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
	x += 0x3030303030303030ull + letter * ('a' - '0' - 10);
	uint64_t out = 0;
	for (int i = 0; i < 8; i++) /* most significant digit first; compiles to a bswap */
		((uint8_t *)&out)[i] = (uint8_t)(x >> (8 * (7 - i)));
	return out;
}

/* The 16 hex digits of v, zero-padded, into out (not NUL-terminated). With SSE2 (every
 * x86-64) all 16 at once: the bytes most significant first, each split into its two
 * nibbles, each nibble turned into its digit. */
static inline void p2ps_hex16(char out[16], uint64_t v)
{
#if defined(__SSE2__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                       \
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const __m128i nib = _mm_set1_epi8(0x0f);
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
	__m128i n =
	        _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), nib), _mm_and_si128(x, nib));
	__m128i letter =
	        _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
	_mm_storeu_si128((__m128i *)(void *)out,
	                 _mm_add_epi8(n, _mm_add_epi8(letter, _mm_set1_epi8('0'))));
#else
	uint64_t hi = p2ps_hex8((uint32_t)(v >> 32)), lo = p2ps_hex8((uint32_t)v);
	memcpy(out, &hi, 8);
	memcpy(out + 8, &lo, 8);
#endif
}

#endif
