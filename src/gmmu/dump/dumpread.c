/* SPDX-License-Identifier: MIT */
/* Raw page-table dumps and physical-memory chunks (see gmmu_dump.h).
 *
 * Regular files are mapped, not read: a 1 GiB dump of PTEs is then decoded
 * straight out of the page cache without the copy that read() costs, which is
 * what lets `decode --summary` keep pace with `cat`. Pipes are streamed through
 * a fixed buffer, so memory stays flat either way. */
#include "p2pscope/gmmu_dump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Streaming buffer: large enough that read() overhead is small, small enough
 * to stay in L2 while the decoder walks it. */
#define DUMP_STREAM_BUF (1024u * 1024u)

static int open_input(const char *name, int *fd, struct p2ps_error *err)
{
	if (!strcmp(name, "-")) {
		*fd = dup(STDIN_FILENO);
		if (*fd < 0)
			return p2ps_error_set(err, P2PS_EIO, "standard input: dup: %s",
			                      strerror(errno));
		return 0;
	}
	*fd = open(name, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return p2ps_error_set(err, errno == ENOENT ? P2PS_ENOENT : P2PS_EIO, "%s: open: %s",
		                      name, strerror(errno));
	return 0;
}

int p2ps_dump_file_open(struct p2ps_dump_file *f, const char *name, unsigned entry_bytes,
                        struct p2ps_error *err)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->name = name;
	f->entry_bytes = entry_bytes;
	if (entry_bytes != 8 && entry_bytes != 16)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: entry size %u is not 8 or 16 bytes",
		                      name, entry_bytes);
	int rc = open_input(name, &f->fd, err);
	if (rc)
		return rc;
	struct stat st;
	if (fstat(f->fd, &st) < 0) {
		rc = p2ps_error_set(err, P2PS_EIO, "%s: fstat: %s", name, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = p2ps_error_set(err, P2PS_EINVAL, "%s: is a directory", name);
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		uint64_t size = (uint64_t)st.st_size;
		if (size == 0) {
			rc = p2ps_error_set(err, P2PS_EINVAL, "%s: empty file, no entries", name);
			goto fail;
		}
		if (size % entry_bytes) {
			rc = p2ps_error_set(
			        err, P2PS_EINVAL,
			        "%s: size %llu is not a multiple of %u-byte entries (%llu trailing "
			        "bytes at offset 0x%llx)",
			        name, (unsigned long long)size, entry_bytes,
			        (unsigned long long)(size % entry_bytes),
			        (unsigned long long)(size - size % entry_bytes));
			goto fail;
		}
		if (size > SIZE_MAX) {
			rc = p2ps_error_set(err, P2PS_ERANGE, "%s: too large to map", name);
			goto fail;
		}
		/* MAP_POPULATE: one pass over the page cache up front instead of
		 * a fault per 64 KiB while decoding. */
		void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, f->fd, 0);
		if (m == MAP_FAILED) {
			rc = p2ps_error_set(err, P2PS_EIO, "%s: mmap of %llu bytes: %s", name,
			                    (unsigned long long)size, strerror(errno));
			goto fail;
		}
		(void)madvise(m, (size_t)size, MADV_SEQUENTIAL);
		f->mapped = true;
		f->data = m;
		f->size = (size_t)size;
		f->total = size;
		return 0;
	}
	f->buf_cap = DUMP_STREAM_BUF;
	f->buf = malloc(f->buf_cap);
	if (!f->buf) {
		rc = p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", name);
		goto fail;
	}
	return 0;
fail:
	p2ps_dump_file_close(f);
	return rc;
}

int p2ps_dump_file_next(struct p2ps_dump_file *f, const uint8_t **data, size_t *len,
                        uint64_t *offset, struct p2ps_error *err)
{
	if (f->mapped) {
		if (f->handed_map)
			return 0;
		f->handed_map = true;
		*data = f->data;
		*len = f->size;
		*offset = 0;
		return 1;
	}
	if (f->eof)
		return 0;
	/* The partial entry left after the previous chunk moves to the front;
	 * the caller is done with that chunk once it calls again. */
	if (f->carry)
		memmove(f->buf, f->buf + f->size, f->carry);
	size_t have = f->carry;
	/* Fill the buffer as far as the stream gives, so that chunks are large. */
	while (have < f->buf_cap) {
		ssize_t n = read(f->fd, f->buf + have, f->buf_cap - have);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return p2ps_error_set(err, P2PS_EIO, "%s: read at offset 0x%llx: %s",
			                      f->name, (unsigned long long)f->total + have,
			                      strerror(errno));
		}
		if (n == 0) {
			f->eof = true;
			break;
		}
		have += (size_t)n;
	}
	size_t whole = have - have % f->entry_bytes;
	if (f->eof && whole != have)
		return p2ps_error_set(
		        err, P2PS_EINVAL,
		        "%s: input ends inside an entry: %llu bytes is not a multiple "
		        "of %u-byte entries (%zu trailing bytes at offset 0x%llx)",
		        f->name, (unsigned long long)f->total + have, f->entry_bytes, have - whole,
		        (unsigned long long)(f->total + whole));
	if (f->eof && f->total == 0 && have == 0)
		return p2ps_error_set(err, P2PS_EINVAL, "%s: empty input, no entries", f->name);
	if (whole == 0)
		return 0;
	*data = f->buf;
	*len = whole;
	*offset = f->total;
	f->offset = f->total;
	f->total += whole;
	f->carry = have - whole;
	f->data = f->buf;
	f->size = whole;
	return 1;
}

void p2ps_dump_file_close(struct p2ps_dump_file *f)
{
	if (f->mapped && f->data)
		munmap((void *)f->data, f->size);
	f->mapped = false;
	f->data = NULL;
	free(f->buf);
	f->buf = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}
