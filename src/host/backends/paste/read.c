/* SPDX-License-Identifier: MIT */
/* Reading a paste: the input checks, normalisation, the block finder, and the pass that
 * ties GPUs known by different names (nvidia-smi index, CUDA ordinal, PCI address)
 * together. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"

static int cmp_bdf(const void *a, const void *b)
{
	const struct p2ps_bdf *x = a, *y = b;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->fn > y->fn) - (x->fn < y->fn);
}

static bool dev_is_gpu(const struct p2ps_paste_dev *pd)
{
	return pd->d.vendor_id == 0x10de &&
	       ((pd->class_known && (pd->d.class_code >> 16) == 0x03) || pd->gpu_named);
}

/* Addresses of every NVIDIA GPU the paste names, sorted (nvidia-smi's order). */
static size_t gpu_addresses(const struct p2ps_paste *p, struct p2ps_bdf *out)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_devs && n < P2PS_PASTE_MAX_GPUS; i++)
		if (dev_is_gpu(&p->devs[i]))
			out[n++] = p->devs[i].d.bdf;
	for (size_t i = 0; i < p->n_gpus && n < P2PS_PASTE_MAX_GPUS; i++) {
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = p2ps_bdf_equal(&out[k], &p->gpus[i].bdf);
		if (p->gpus[i].bdf_known && !dup)
			out[n++] = p->gpus[i].bdf;
	}
	qsort(out, n, sizeof(*out), cmp_bdf);
	return n;
}

/* A paste that names more NVIDIA GPUs than any machine has is noise past the first
 * P2PS_PASTE_MAX_GPUS: the rest are dropped (and counted) so that the pairs stay few. */
static void limit_gpus(struct p2ps_paste *p)
{
	size_t w = 0, gpus = 0;
	for (size_t r = 0; r < p->n_devs; r++) {
		bool gpu = dev_is_gpu(&p->devs[r]);
		if (gpu && gpus == P2PS_PASTE_MAX_GPUS) {
			p->gpus_dropped++;
			continue;
		}
		gpus += gpu;
		if (w != r)
			p->devs[w] = p->devs[r];
		w++;
	}
	p->n_devs = w;
}

/* Moves what entry `from` knows into `to` and removes `from`. */
static void merge_gpu(struct p2ps_paste *p, size_t to, size_t from)
{
	struct p2ps_paste_gpu *t = &p->gpus[to], *f = &p->gpus[from];
	if (t->smi < 0)
		t->smi = f->smi;
	if (t->cuda < 0)
		t->cuda = f->cuda;
	if (!t->name[0])
		memcpy(t->name, f->name, sizeof(t->name));
	if (!t->bar1_known && f->bar1_known)
		t->bar1_known = true, t->bar1 = f->bar1, t->bar1_from = f->bar1_from;
	if (!t->vram_known && f->vram_known)
		t->vram_known = true, t->vram = f->vram, t->vram_from = f->vram_from;
	if (!t->link_max.speed && f->link_max.speed)
		t->link_max = f->link_max, t->link_cur = f->link_cur, t->link_from = f->link_from;
	if (t->display < 0)
		t->display = f->display;
	memmove(f, f + 1, (p->n_gpus - from - 1) * sizeof(*f));
	p->n_gpus--;
}

/* GPUs known only by nvidia-smi index get the address of the n-th GPU in bus order when
 * the paste names as many GPU addresses as nvidia-smi shows GPUs. */
static void tie_gpus(struct p2ps_paste *p)
{
	struct p2ps_bdf addr[P2PS_PASTE_MAX_GPUS];
	size_t n = gpu_addresses(p, addr);
	int smi_max = -1;
	for (size_t i = 0; i < p->n_gpus; i++)
		if (p->gpus[i].smi > smi_max)
			smi_max = p->gpus[i].smi;
	if (!n || smi_max + 1 != (int)n)
		return;
	for (size_t i = 0; i < p->n_gpus; i++) {
		struct p2ps_paste_gpu *g = &p->gpus[i];
		if (g->bdf_known || g->smi < 0)
			continue;
		g->bdf = addr[g->smi];
		g->bdf_known = true;
		for (size_t k = 0; k < p->n_gpus; k++)
			if (k != i && p->gpus[k].bdf_known &&
			    p2ps_bdf_equal(&p->gpus[k].bdf, &g->bdf)) {
				merge_gpu(p, k, i);
				i--; /* entry i is gone: look at the one that moved in */
				break;
			}
	}
	for (size_t i = 0; i < p->n_gpus; i++)
		for (size_t k = 0; k < n; k++)
			if (p->gpus[i].smi < 0 && p->gpus[i].bdf_known &&
			    p2ps_bdf_equal(&p->gpus[i].bdf, &addr[k]))
				p->gpus[i].smi = (int)k;
}

int p2ps_paste_parse(const char *text, size_t len, const char *source, struct p2ps_paste *out,
                     struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	out->cuda.result = -1;
	out->cuda.first_error.block = out->cuda.from.block = -1;
	out->host.iommu_groups = -1;
	out->host.driver_open = -1;
	out->host.cmdline_from.block = out->host.iommu_from.block = out->host.driver_from.block =
	        -1;
	snprintf(out->source, sizeof(out->source), "%s", source ? source : "paste");
	if (len > P2PS_PASTE_MAX_BYTES)
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "paste %s: %zu bytes, more than the %u MiB read", out->source,
		                      len, P2PS_PASTE_MAX_BYTES >> 20);
	if (pt_is_binary(text, len))
		return p2ps_error_set(err, P2PS_EINVAL,
		                      "paste %s: binary data, not text (expected what lspci, "
		                      "nvidia-smi, dmesg or a CUDA sample printed)",
		                      out->source);
	char *buf = malloc(len + 2);
	if (!buf)
		return p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory", out->source);
	if (len) /* text may be NULL when empty; memcpy's source may not */
		memcpy(buf, text, len);
	buf[len] = buf[len + 1] = '\0';
	out->lines = pt_normalize(buf, len);
	struct pctx c = {.p = out, .block = -1, .err = err, .lspci_cut_dev = -1};
	c.dev_index = calloc(PT_DEV_SLOTS, sizeof(*c.dev_index));
	int rc = c.dev_index ? pt_find_blocks(&c, buf, out->lines) : P2PS_ENOMEM;
	free(c.dev_index);
	free(buf);
	if (rc < 0) {
		p2ps_paste_free(out);
		return p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory", source);
	}
	limit_gpus(out);
	tie_gpus(out);
	return 0;
}

int p2ps_paste_load(const char *path, struct p2ps_paste *out, struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "rb");
	if (!f)
		return p2ps_error_set(err, errno == EACCES ? P2PS_EACCES : P2PS_ENOENT,
		                      "paste %s: %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len > P2PS_PASTE_MAX_BYTES)
			break;
		if (n == 0)
			break;
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf)
		rc = p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory", path);
	else if (ferror(f))
		rc = p2ps_error_set(err, P2PS_EIO, "paste %s: %s", path, strerror(errno));
	if (!in)
		fclose(f);
	if (!rc)
		rc = p2ps_paste_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
