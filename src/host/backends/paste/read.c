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

bool pt_dev_is_gpu(const struct p2ps_paste_dev *pd)
{
	return pd->d.vendor_id == 0x10de &&
	       ((pd->class_known && (pd->d.class_code >> 16) == 0x03) || pd->gpu_named);
}

/* Addresses of every NVIDIA GPU the paste names, sorted (nvidia-smi's order). */
static size_t gpu_addresses(const struct p2ps_paste *p, struct p2ps_bdf *out)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_devs && n < P2PS_PASTE_MAX_GPUS; i++)
		if (pt_dev_is_gpu(&p->devs[i]))
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
		bool gpu = pt_dev_is_gpu(&p->devs[r]);
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
	if (!t->name[0] || (strstr(t->name, "...") && f->name[0] && !strstr(f->name, "...")))
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

/* Whether two model names agree; nvidia-smi's table cuts long names with "...". */
static bool same_model(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	bool ca = na >= 3 && !strcmp(a + na - 3, "..."), cb = nb >= 3 && !strcmp(b + nb - 3, "...");
	if (!ca && !cb)
		return !strcmp(a, b);
	na -= ca ? 3 : 0;
	nb -= cb ? 3 : 0;
	while (na && a[na - 1] == ' ')
		na--;
	while (nb && b[nb - 1] == ' ')
		nb--;
	size_t n = ca && cb ? (na < nb ? na : nb) : ca ? na : nb;
	return (ca || nb >= n) && (cb || na >= n) && !strncmp(a, b, n);
}

/* Whether every GPU the paste names has one and the same model name (or none). */
static bool one_model(const struct p2ps_paste *p)
{
	const char *name = NULL;
	for (size_t i = 0; i < p->n_gpus; i++) {
		const char *n = p->gpus[i].name;
		if (!n[0])
			continue;
		if (name && !same_model(name, n))
			return false;
		name = n;
	}
	return true;
}

/* GPUs known only by CUDA ordinal (simpleP2P, NCCL) join the nvidia-smi index or address
 * of the same number where every GPU is the same model: CUDA's default order (fastest
 * first) is then the bus order nvidia-smi numbers by. */
static void tie_cuda(struct p2ps_paste *p)
{
	if (!one_model(p))
		return;
	struct p2ps_bdf addr[P2PS_PASTE_MAX_GPUS];
	size_t n = gpu_addresses(p, addr);
	for (size_t i = 0; i < p->n_gpus; i++) {
		struct p2ps_paste_gpu *g = &p->gpus[i];
		if (g->bdf_known || g->smi >= 0 || g->cuda < 0)
			continue;
		for (size_t k = 0; k < p->n_gpus; k++) {
			const struct p2ps_paste_gpu *o = &p->gpus[k];
			if (k != i && o->cuda < 0 && o->smi == g->cuda) {
				merge_gpu(p, k < i ? k : i, k < i ? i : k);
				i = (size_t)-1; /* the array moved: start over */
				break;
			}
		}
	}
	int cmax = -1;
	for (size_t i = 0; i < p->n_gpus; i++)
		if (p->gpus[i].cuda > cmax)
			cmax = p->gpus[i].cuda;
	if (!n || cmax + 1 != (int)n)
		return;
	for (size_t i = 0; i < p->n_gpus; i++) {
		struct p2ps_paste_gpu *g = &p->gpus[i];
		if (g->bdf_known || g->cuda < 0)
			continue;
		for (size_t k = 0; k < p->n_gpus; k++)
			if (k != i && p->gpus[k].bdf_known &&
			    p2ps_bdf_equal(&p->gpus[k].bdf, &addr[g->cuda])) {
				if (p->gpus[k].cuda >= 0 && p->gpus[k].cuda != g->cuda)
					return; /* the paste numbers them otherwise: no guess */
				p->gpus[k].cuda = g->cuda;
				merge_gpu(p, k, i);
				i = (size_t)-1;
				break;
			}
	}
}

/* Entries that name one GPU twice: the same nvidia-smi index (or CUDA ordinal) once with
 * an address and once without (a table cut after its first row, a topo -m before it) are
 * one GPU. */
static void same_index(struct p2ps_paste *p)
{
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct p2ps_paste_gpu *g = &p->gpus[i];
		for (size_t k = 0; k < p->n_gpus; k++) {
			const struct p2ps_paste_gpu *o = &p->gpus[k];
			bool smi = g->smi >= 0 && o->smi == g->smi;
			bool cuda = g->cuda >= 0 && o->cuda == g->cuda && g->smi < 0 && o->smi < 0;
			if (k == i || !(smi || cuda) || !g->bdf_known || o->bdf_known ||
			    (o->cuda >= 0 && g->cuda >= 0 && o->cuda != g->cuda))
				continue;
			merge_gpu(p, i, k);
			i = (size_t)-1; /* the array moved: start over */
			break;
		}
	}
}

/* Whether a GPU's name is the model a list names ("NVIDIA GeForce RTX 4090" and "RTX 4090"
 * written out the same way, or one inside the other). */
static bool names_model(const char *name, const char *model)
{
	return name[0] && (strstr(name, model) || strstr(model, name));
}

/* GPUs a list names by model only: their names go to GPUs other lines number without
 * naming; what is left becomes GPUs of their own (listed). */
static void join_listed(struct p2ps_paste *p)
{
	for (int k = 0; k < p->n_listed; k++) {
		const struct p2ps_paste_listed *l = &p->listed[k];
		int have = 0;
		for (size_t i = 0; i < p->n_gpus; i++)
			have += names_model(p->gpus[i].name, l->name);
		for (size_t i = 0; i < p->n_gpus && have < l->count; i++)
			if (!p->gpus[i].name[0]) {
				snprintf(p->gpus[i].name, sizeof(p->gpus[i].name), "%s", l->name);
				have++;
			}
		for (int n = have; n < l->count && p->n_gpus < P2PS_PASTE_MAX_GPUS; n++) {
			struct p2ps_paste_gpu *g = &p->gpus[p->n_gpus++];
			memset(g, 0, sizeof(*g));
			g->smi = g->cuda = g->display = -1;
			g->listed = n;
			g->bar1_from.block = g->vram_from.block = g->link_from.block = -1;
			g->named_from = l->from;
			snprintf(g->name, sizeof(g->name), "%s", l->name);
		}
	}
}

/* A module list that names no peer-memory module says it is not loaded. */
static void modules(struct p2ps_paste_host *h)
{
	if (h->modules_listed != 1)
		return;
	h->nvidia_peermem = h->nvidia_peermem == 1;
	h->nv_peer_mem = h->nv_peer_mem == 1;
}

/* GPUs that all sit on the root bus of their segment, none at device 0 ("0000:00:09.0",
 * "0000:00:1e.0"): a virtual machine's layout (a hypervisor's bus, a cloud instance). A
 * discrete GPU on a physical host sits behind a root port, never on bus 0. */
static void root_bus_gpus(struct p2ps_paste *p)
{
	int on_root = 0, addressed = 0;
	for (size_t i = 0; i < p->n_gpus; i++) {
		if (!p->gpus[i].bdf_known)
			continue;
		addressed++;
		on_root += p->gpus[i].bdf.bus == 0 && p->gpus[i].bdf.dev != 0;
	}
	if (p->host.vm || !addressed || on_root != addressed)
		return;
	p->host.vm = true;
	snprintf(p->host.hypervisor, sizeof(p->host.hypervisor), "%s", "unknown");
	snprintf(p->host.vm_from, sizeof(p->host.vm_from), "GPUs on bus 0");
}

/* nccl-tests that printed its result table's header and then nothing: it stopped there
 * (a hang, or the paste stops there; the symptom says both). */
static void stalled(struct p2ps_paste *p)
{
	const struct p2ps_paste_cuda *cu = &p->cuda;
	struct p2ps_paste_symptoms *sy = &p->sym;
	if (!cu->nccl_header.line || cu->nccl_rows || cu->nccl_busbw > 0 || sy->count[P2PS_PS_HANG])
		return;
	sy->count[P2PS_PS_HANG] = 1;
	sy->first[P2PS_PS_HANG] = cu->nccl_header;
	snprintf(sy->text[P2PS_PS_HANG], sizeof(sy->text[0]), "%s",
	         "nccl-tests printed its result header and no row after it (it stopped there, or "
	         "the paste does)");
}

static int parse_text(const char *text, size_t len, const char *source, struct p2ps_paste *out,
                      struct p2ps_error *err);

int p2ps_paste_parse(const char *text, size_t len, const char *source, struct p2ps_paste *out,
                     struct p2ps_error *err)
{
	if (!pt_is_gzip(text, len))
		return parse_text(text, len, source, out, err);
	char *plain;
	size_t n;
	memset(out, 0, sizeof(*out));
	int rc = pt_gunzip(text, len, source ? source : "paste", &plain, &n, err);
	if (rc < 0)
		return rc;
	rc = parse_text(plain, n, source, out, err);
	free(plain);
	return rc;
}

/* The text of a paste (a compressed one inflated) into *out. */
static int parse_text(const char *text, size_t len, const char *source, struct p2ps_paste *out,
                      struct p2ps_error *err)
{
	memset(out, 0, sizeof(*out));
	out->cuda.result = -1;
	out->cuda.first_error.block = out->cuda.from.block = out->cuda.nccl_header.block = -1;
	out->host.iommu_groups = -1;
	out->host.driver_open = -1;
	out->nccl.intra_p2p = -1;
	out->nccl.version_from.block = out->acs_loose.first.block = -1;
	for (int i = 0; i < P2PS_PS_COUNT; i++)
		out->sym.first[i].block = -1;
	for (int i = 0; i < P2PS_NV_COUNT; i++)
		out->nccl.via_from[i].block = -1;
	out->host.cmdline_from.block = out->host.iommu_from.block = out->host.driver_from.block =
	        out->host.modules_from.block = -1;
	out->host.modules_listed = out->host.nvidia_peermem = out->host.nv_peer_mem = -1;
	out->cuda.enabled_a = out->cuda.enabled_b = out->cuda.nccl_wrong = -1;
	out->cuda.enabled_from.block = out->cuda.result_from.block = -1;
	out->nccl.gdr_disabled_from.block = out->nccl.shared_mem_from.block = -1;
	out->nccl.recv_no_gdr_from.block = -1;
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
	for (int sw = 0; sw < P2PS_SW_COUNT; sw++)
		c.release[sw] = -1;
	c.dev_index = calloc(PT_DEV_SLOTS, sizeof(*c.dev_index));
	int rc = c.dev_index ? pt_find_blocks(&c, buf, out->lines) : P2PS_ENOMEM;
	free(c.dev_index);
	free(buf);
	if (rc < 0) {
		p2ps_paste_free(out);
		return p2ps_error_set(err, P2PS_ENOMEM, "paste %s: out of memory", source);
	}
	limit_gpus(out);
	same_index(out);
	tie_gpus(out);
	tie_cuda(out);
	join_listed(out);
	modules(&out->host);
	stalled(out);
	root_bus_gpus(out);
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
