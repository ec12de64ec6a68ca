/* SPDX-License-Identifier: MIT */
/* Reading small files of sysfs-like trees (live /sys and /proc, or a snapshot under a
 * root dir): the sysfs backend, the NVIDIA facts readers and the VFIO code share them. */
#ifndef P2PS_HOST_IO_H
#define P2PS_HOST_IO_H

#include <stddef.h>

/* Reads up to size-1 bytes of root+rel into buf, NUL-terminated, trailing newlines
 * removed. Returns the length or a negative errno. */
int p2ps_read_text(const char *root, const char *rel, char *buf, size_t size);

/* The same for the file name under the directory dirfd (AT_FDCWD: name is a path):
 * the way to read many attributes of one sysfs device without walking its path each
 * time. */
int p2ps_read_text_at(int dirfd, const char *name, char *buf, size_t size);

/* Reads a whole (small) text file into a malloc'ed string (*out, caller frees).
 * max bounds the size. Returns the length or a negative errno. */
int p2ps_read_all(const char *root, const char *rel, size_t max, char **out);

/* The same, stopping once the text holds a whole line that starts with line (e.g.
 * "\nflags"): the rest of a large generated file such as /proc/cpuinfo, which the
 * kernel makes anew for every read, is then not made. */
int p2ps_read_head(const char *root, const char *rel, size_t max, const char *line, char **out);

/* The last path component of the symlink root+rel ("../../../bus/pci/drivers/nvidia"
 * -> "nvidia") into out, NUL-terminated. Returns its length or a negative errno. */
int p2ps_read_link_name(const char *root, const char *rel, char *out, size_t size);

/* The same for the link name under the directory dirfd (AT_FDCWD: name is a path). */
int p2ps_read_link_name_at(int dirfd, const char *name, char *out, size_t size);

/* Joins root and rel ("" root = live) into buf; returns buf or NULL if too long. */
char *p2ps_path_join(char *buf, size_t size, const char *root, const char *rel);

#endif
