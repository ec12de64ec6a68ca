/* SPDX-License-Identifier: MIT */
/* File helpers for sysfs-like trees (live /sys or a snapshot under a root dir). */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *p2ps_path_join(char *buf, size_t size, const char *root, const char *rel)
{
	int n = snprintf(buf, size, "%s%s%s", root ? root : "",
	                 (root && *root && rel[0] != '/') ? "/" : "", rel);
	if (n < 0 || (size_t)n >= size)
		return NULL;
	return buf;
}

#define PATH_SIZE 4096

/* root/rel into path, after what every reader into a caller's buffer does first: a
 * zero-size buffer is an error, and out is empty until something is read. */
static int path_for_read(char path[PATH_SIZE], const char *root, const char *rel, char *out,
                         size_t size)
{
	if (!size)
		return -EINVAL;
	out[0] = '\0';
	return p2ps_path_join(path, PATH_SIZE, root, rel) ? 0 : -ENAMETOOLONG;
}

int p2ps_read_text(const char *root, const char *rel, char *buf, size_t size)
{
	char path[PATH_SIZE];
	int rc = path_for_read(path, root, rel, buf, size);
	return rc ? rc : p2ps_read_text_at(AT_FDCWD, path, buf, size);
}

int p2ps_read_text_at(int dirfd, const char *name, char *buf, size_t size)
{
	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, size - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		return -e;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

int p2ps_read_all(const char *root, const char *rel, size_t max, char **out)
{
	return p2ps_read_head(root, rel, max, NULL, out);
}

/* Whether text (NUL-terminated) holds a whole line that starts with line. */
static bool has_line(const char *text, const char *line)
{
	const char *at = strstr(text, line);
	return at && strchr(at + 1, '\n');
}

int p2ps_read_head(const char *root, const char *rel, size_t max, const char *line, char **out)
{
	char path[PATH_SIZE];
	*out = NULL;
	if (!p2ps_path_join(path, sizeof(path), root, rel))
		return -ENAMETOOLONG;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (len == cap) {
			if (cap >= max)
				break;
			size_t ncap = cap * 2 > max ? max : cap * 2;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (line && has_line(buf, line))
			break;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return (int)len;
}

int p2ps_read_link_name(const char *root, const char *rel, char *out, size_t size)
{
	char path[PATH_SIZE];
	int rc = path_for_read(path, root, rel, out, size);
	return rc ? rc : p2ps_read_link_name_at(AT_FDCWD, path, out, size);
}

int p2ps_read_link_name_at(int dirfd, const char *name, char *out, size_t size)
{
	char target[PATH_MAX];
	if (!size)
		return -EINVAL;
	out[0] = '\0';
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	size_t len = strnlen(base, size - 1);
	memcpy(out, base, len);
	out[len] = '\0';
	return (int)len;
}
