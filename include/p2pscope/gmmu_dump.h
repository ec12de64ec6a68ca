/* SPDX-License-Identifier: MIT */
/* p2pscope: reading page-table dumps — the inputs of `pte-decode decode/verify`.
 *
 * Three kinds of input, none of which knows the GMMU format:
 *  - raw files: little-endian entries back to back (8 or 16 bytes each), read
 *    through a memory map when the file is regular, else streamed in chunks;
 *  - text: hex words as copied from a debug log, one or more per line, `0x`
 *    optional, `_` separators allowed, an optional `OFFSET:` prefix, `#` comments;
 *  - a memory-chunk set: raw images of physical memory (`--mem PA=FILE`) that a
 *    page-directory walk reads from with bounds-checked loads.
 *
 * Every function returns 0 or a negative P2PS_E* and fills struct p2ps_error
 * with one line that names where the input went wrong (file:line:column, or a
 * byte offset). Nothing here prints or allocates per entry.
 */
#ifndef P2PSCOPE_GMMU_DUMP_H
#define P2PSCOPE_GMMU_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- raw files ---------------------------------------------------------- */

/* An open raw input. Regular files are mapped whole (data/size describe the
 * map); pipes and terminals are read through an internal buffer in chunks. */
struct p2ps_dump_file {
	const char *name;     /* as given; borrowed, for messages */
	int fd;               /* -1 once closed */
	bool mapped;          /* true: data/size cover the whole file */
	const uint8_t *data;  /* mapped: the file; streamed: the current chunk */
	size_t size;          /* mapped: file size; streamed: bytes in the current chunk */
	uint64_t offset;      /* file offset of data[0] */
	uint64_t total;       /* bytes handed out so far (streamed) or file size (mapped) */
	unsigned entry_bytes; /* 8 or 16: chunks are always whole entries */
	uint8_t *buf;         /* streaming buffer (owned) */
	size_t buf_cap;
	size_t carry; /* bytes of a partial entry kept at buf[0] between reads */
	bool eof;
	bool handed_map; /* mapped: the one chunk was returned by p2ps_dump_file_next */
};

/* Opens name ("-" = standard input) for entries of entry_bytes (8 or 16).
 * A regular file whose size is not a multiple of entry_bytes is refused here,
 * naming the size and the offset of the trailing partial entry. */
int p2ps_dump_file_open(struct p2ps_dump_file *f, const char *name, unsigned entry_bytes,
                        struct p2ps_error *err);

/* Hands out the next chunk of whole entries in *data / *len (len a multiple of
 * entry_bytes, and *offset the file offset of data[0]). Returns 1 when a chunk
 * was produced, 0 at the end of input, negative on error (a read error, or a
 * stream that ended inside an entry). The chunk stays valid until the next call. */
int p2ps_dump_file_next(struct p2ps_dump_file *f, const uint8_t **data, size_t *len,
                        uint64_t *offset, struct p2ps_error *err);

/* Releases the map or buffer and closes the descriptor; safe to call twice. */
void p2ps_dump_file_close(struct p2ps_dump_file *f);

/* ---- text dumps --------------------------------------------------------- */

/* One hex word of a text dump. Values up to 128 bits (a dual PDE written as 32
 * hex digits, bit 127 first) are kept as hi:lo. */
struct p2ps_text_word {
	uint64_t lo, hi;
	unsigned digits;      /* significant hex digits (0 for the value 0) */
	size_t line;          /* 1-based line number */
	size_t column;        /* 1-based column of the word's first character */
	bool has_offset;      /* the line began with "OFFSET:" */
	uint64_t line_offset; /* that offset (bytes), when has_offset */
	unsigned index;       /* 0-based position of the word on its line */
};

/* Called once per word in input order; a non-zero return stops the parse and
 * is returned by p2ps_text_parse (the callback fills err itself). */
typedef int (*p2ps_text_word_fn)(void *ctx, const struct p2ps_text_word *w, struct p2ps_error *err);

/* Parses len bytes of text. name is used in messages ("name:line:col: ...").
 * Accepts: words of hex digits with an optional 0x/0X prefix and '_' between
 * digits; separators are blanks, tabs and commas; '#' starts a comment; a
 * first word ending in ':' is the line's offset (hex, 0x optional). Refuses
 * words with other characters, more than 128 bits, or an empty "0x". */
int p2ps_text_parse(const char *text, size_t len, const char *name, p2ps_text_word_fn fn, void *ctx,
                    struct p2ps_error *err);

/* Reads a whole file ("-" = standard input) into a NUL-terminated malloc'd
 * buffer for p2ps_text_parse. Refuses inputs over max_bytes. Free with free(). */
int p2ps_text_slurp(const char *name, size_t max_bytes, char **text, size_t *len,
                    struct p2ps_error *err);

/* ---- physical memory chunks --------------------------------------------- */

/* Address spaces a chunk can belong to: a page directory entry names the
 * aperture of the table it points to, and vidmem PA 0x1000 is not sysmem PA
 * 0x1000. */
enum p2ps_mem_space {
	P2PS_MEM_VID = 0,
	P2PS_MEM_SYS = 1,
	P2PS_MEM_SPACES = 2,
};

struct p2ps_mem_chunk {
	enum p2ps_mem_space space;
	uint64_t pa;
	uint64_t size;
	const uint8_t *data;
	const char *name; /* file name (owned copy) for messages */
	void *map;        /* mapping to release, or a malloc'd copy when map_len == 0 */
	size_t map_len;
};

/* A sorted, non-overlapping set of chunks per space. */
struct p2ps_mem_set {
	struct p2ps_mem_chunk *chunks;
	size_t n, cap;
};

void p2ps_mem_set_init(struct p2ps_mem_set *s);
void p2ps_mem_set_cleanup(struct p2ps_mem_set *s);

/* Parses a --mem argument "[vid:|sys:]PA=FILE" (PA a hex word, p2pscope/parse.h:
 * 0x optional, '_' groups; addresses are hex) and adds the file. Refuses empty files, PA+size
 * beyond 2^64, and overlaps (naming both). */
int p2ps_mem_set_add_arg(struct p2ps_mem_set *s, const char *arg, struct p2ps_error *err);

/* Adds a chunk whose bytes the caller keeps alive (tests, fuzzers). */
int p2ps_mem_set_add_buffer(struct p2ps_mem_set *s, enum p2ps_mem_space space, uint64_t pa,
                            const uint8_t *data, uint64_t size, const char *name,
                            struct p2ps_error *err);

/* Returns a pointer to len bytes at pa in space, or NULL when they do not lie
 * within one chunk. */
const uint8_t *p2ps_mem_set_at(const struct p2ps_mem_set *s, enum p2ps_mem_space space, uint64_t pa,
                               uint64_t len);

/* Total bytes held, over all spaces. */
uint64_t p2ps_mem_set_bytes(const struct p2ps_mem_set *s);

const char *p2ps_mem_space_name(enum p2ps_mem_space space);

#ifdef __cplusplus
}
#endif

#endif
