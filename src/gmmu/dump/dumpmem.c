/* SPDX-License-Identifier: MIT */
/* The --mem chunk set: images of physical memory at given addresses, kept
 * sorted by (space, pa) so that a lookup is a binary search and overlaps are
 * found when a chunk is added (see gmmu_dump.h). */
#include "p2pscope/gmmu_dump.h"

#include "p2pscope/parse.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const space_names[P2PS_MEM_SPACES] = {"vid", "sys"};

const char *p2ps_mem_space_name(enum p2ps_mem_space space)
{
	return (unsigned)space < P2PS_MEM_SPACES ? space_names[space] : "?";
}

void p2ps_mem_set_init(struct p2ps_mem_set *s)
{
	memset(s, 0, sizeof(*s));
}

static void chunk_release(struct p2ps_mem_chunk *c)
{
	if (c->map && c->map_len)
		munmap(c->map, c->map_len);
	else
		free(c->map);
	free((void *)c->name);
}

void p2ps_mem_set_cleanup(struct p2ps_mem_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		chunk_release(&s->chunks[i]);
	free(s->chunks);
	memset(s, 0, sizeof(*s));
}

static int chunk_cmp(const struct p2ps_mem_chunk *a, enum p2ps_mem_space space, uint64_t pa)
{
	if (a->space != space)
		return a->space < space ? -1 : 1;
	if (a->pa != pa)
		return a->pa < pa ? -1 : 1;
	return 0;
}

/* Inserts c (taking ownership of its name and map) keeping the order; on
 * error releases c. */
static int insert_chunk(struct p2ps_mem_set *s, struct p2ps_mem_chunk *c, struct p2ps_error *err)
{
	int rc = 0;
	if (c->size == 0) {
		rc = p2ps_error_set(err, P2PS_EINVAL, "%s: empty memory chunk", c->name);
		goto fail;
	}
	if (c->pa + (c->size - 1) < c->pa) {
		rc = p2ps_error_set(
		        err, P2PS_ERANGE, "%s: chunk at PA 0x%llx of 0x%llx bytes runs past 2^64",
		        c->name, (unsigned long long)c->pa, (unsigned long long)c->size);
		goto fail;
	}
	size_t pos = 0;
	while (pos < s->n && chunk_cmp(&s->chunks[pos], c->space, c->pa) < 0)
		pos++;
	const struct p2ps_mem_chunk *prev = pos ? &s->chunks[pos - 1] : NULL;
	const struct p2ps_mem_chunk *next = pos < s->n ? &s->chunks[pos] : NULL;
	const struct p2ps_mem_chunk *hit = NULL;
	if (prev && prev->space == c->space && prev->pa + (prev->size - 1) >= c->pa)
		hit = prev;
	else if (next && next->space == c->space && c->pa + (c->size - 1) >= next->pa)
		hit = next;
	if (hit) {
		rc = p2ps_error_set(err, P2PS_EINVAL,
		                    "%s: %s PA 0x%llx-0x%llx overlaps %s at 0x%llx-0x%llx", c->name,
		                    p2ps_mem_space_name(c->space), (unsigned long long)c->pa,
		                    (unsigned long long)c->pa + (c->size - 1), hit->name,
		                    (unsigned long long)hit->pa,
		                    (unsigned long long)(hit->pa + (hit->size - 1)));
		goto fail;
	}
	if (!p2ps_grow((void **)&s->chunks, &s->cap, s->n + 1, sizeof(*s->chunks))) {
		rc = p2ps_error_set(err, P2PS_ENOMEM, "%s: out of memory", c->name);
		goto fail;
	}
	memmove(&s->chunks[pos + 1], &s->chunks[pos], (s->n - pos) * sizeof(*s->chunks));
	s->chunks[pos] = *c;
	s->n++;
	return 0;
fail:
	chunk_release(c);
	return rc;
}

int p2ps_mem_set_add_buffer(struct p2ps_mem_set *s, enum p2ps_mem_space space, uint64_t pa,
                            const uint8_t *data, uint64_t size, const char *name,
                            struct p2ps_error *err)
{
	struct p2ps_mem_chunk c = {.space = space, .pa = pa, .size = size, .data = data};
	c.name = strdup(name ? name : "buffer");
	if (!c.name)
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	return insert_chunk(s, &c, err);
}

static int map_file(struct p2ps_mem_chunk *c, const char *path, struct p2ps_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return p2ps_error_set(err, errno == ENOENT ? P2PS_ENOENT : P2PS_EIO, "%s: open: %s",
		                      path, strerror(errno));
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) < 0) {
		rc = p2ps_error_set(err, P2PS_EIO, "%s: fstat: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc = p2ps_error_set(err, P2PS_EINVAL,
		                    "%s: not a regular file (a memory image is mapped whole)",
		                    path);
	} else if (st.st_size == 0) {
		rc = p2ps_error_set(err, P2PS_EINVAL, "%s: empty memory chunk", path);
	} else if ((uint64_t)st.st_size > SIZE_MAX) {
		rc = p2ps_error_set(err, P2PS_ERANGE, "%s: too large to map", path);
	} else {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			rc = p2ps_error_set(err, P2PS_EIO, "%s: mmap: %s", path, strerror(errno));
		} else {
			c->map = m;
			c->map_len = (size_t)st.st_size;
			c->data = m;
			c->size = (uint64_t)st.st_size;
		}
	}
	close(fd);
	return rc;
}

int p2ps_mem_set_add_arg(struct p2ps_mem_set *s, const char *arg, struct p2ps_error *err)
{
	struct p2ps_mem_chunk c = {.space = P2PS_MEM_VID};
	const char *p = arg;
	if (!strncmp(p, "vid:", 4)) {
		p += 4;
	} else if (!strncmp(p, "sys:", 4)) {
		c.space = P2PS_MEM_SYS;
		p += 4;
	}
	const char *eq = strchr(p, '=');
	if (!eq || eq == p || !eq[1])
		return p2ps_error_set(
		        err, P2PS_EINVAL,
		        "memory image %s: expected [vid:|sys:]PA=FILE, e.g. 0x1000000=pd.bin", arg);
	char pa_text[64];
	size_t n = (size_t)(eq - p);
	if (n >= sizeof(pa_text))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "memory image %s: physical address too long", arg);
	memcpy(pa_text, p, n);
	pa_text[n] = '\0';
	uint64_t pa[2];
	int rc = p2ps_parse_hex(pa_text, 64, pa);
	c.pa = pa[0];
	if (rc)
		return p2ps_error_set(err, rc,
		                      "memory image %s: '%s' is not a hex physical address", arg,
		                      pa_text);
	rc = map_file(&c, eq + 1, err);
	if (rc)
		return rc;
	c.name = strdup(eq + 1);
	if (!c.name) {
		chunk_release(&c);
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	}
	return insert_chunk(s, &c, err);
}

const uint8_t *p2ps_mem_set_at(const struct p2ps_mem_set *s, enum p2ps_mem_space space, uint64_t pa,
                               uint64_t len)
{
	size_t lo = 0, hi = s->n;
	/* Last chunk whose (space, pa) is <= (space, pa). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (chunk_cmp(&s->chunks[mid], space, pa) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct p2ps_mem_chunk *c = &s->chunks[lo - 1];
	if (c->space != space || pa - c->pa >= c->size || len > c->size - (pa - c->pa))
		return NULL;
	return c->data + (pa - c->pa);
}

uint64_t p2ps_mem_set_bytes(const struct p2ps_mem_set *s)
{
	uint64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		t += s->chunks[i].size;
	return t;
}
