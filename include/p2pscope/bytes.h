/* p2pscope: explicit little-endian loads and stores over byte buffers.
 * Entries and config space are always read through these, never by casting a
 * byte pointer to a wider integer type (alignment and host byte order). */
#ifndef P2PSCOPE_BYTES_H
#define P2PSCOPE_BYTES_H

#include <stdint.h>

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

#endif
