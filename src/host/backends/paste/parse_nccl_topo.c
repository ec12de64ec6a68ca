/* SPDX-License-Identifier: MIT */
/* NCCL's XML topology as users attach it (the file NCCL_TOPO_DUMP_FILE writes, or one
 * given to NCCL_TOPO_FILE): <system> > <cpu numaid> > nested <pci busid class vendor
 * device subsystem_* link_speed link_width> > <gpu dev sm rank> > <nvlink target count
 * tclass>. NCCL writes one element per line (src/graph/xml.cc ncclTopoDumpXmlRec); this
 * reader takes any number of elements per line but none that spans lines. Attribute values
 * are quoted and have no escapes, as in NCCL's reader (xmlGetValue). What it gives:
 *   - each <pci> a device: ids, class, the link NCCL read (the lower of the device's and
 *     its port's max_link_speed/max_link_width: a capability), its parent (the enclosing
 *     <pci>; one directly under <cpu> sits on a root bus), the NUMA node of its <cpu>;
 *   - each <gpu> the GPU at that address, with NVML's index (dev);
 *   - each <nvlink>: links to a GPU as NVLink peers, links to an NVSwitch (tclass
 *     0x068000, NCCL's PCI_NVSWITCH_CLASS) counted, and GPUs on the same switch fabric as
 *     peers of each other (as nvidia-smi topo -m shows them).
 * <nic>/<net> (the network plugin's view, no PCI facts) are counted only. */
#include <stdio.h>
#include <string.h>

#include "host_internal.h"
#include "paste_internal.h"

#define NT_DEPTH   16 /* nesting followed: system > cpu > pci... > gpu > nvlink */
#define NT_ATTRS   16 /* NCCL's MAX_ATTR_COUNT */
#define NT_VAL_MAX 256

struct nt_attr {
	char key[32];
	char val[NT_VAL_MAX];
};

struct nt_elem {
	char name[16];
	bool close;  /* </name> */
	bool single; /* <name .../> */
	int n;
	struct nt_attr a[NT_ATTRS];
};

struct nt_state {
	struct pctx *c;
	char stack[NT_DEPTH][16]; /* open element names */
	struct p2ps_paste_dev *pci[NT_DEPTH];
	int depth;
	int numa;    /* numaid of the open <cpu>, -1 */
	int gpu_dev; /* index into devs of the open <gpu>'s device, -1 */
	int devs, gpus, nvlinks, nets, bad;
};

static const char *attr(const struct nt_elem *e, const char *key)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->a[i].key, key))
			return e->a[i].val;
	return NULL;
}

/* Copies s[0..n) into buf if it fits. */
static bool copy_token(char *buf, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

/* Reads one element at s ('<' ...) into e; *end after its '>'. false when it is not one
 * (no '>', an unquoted value, too many attributes). */
static bool read_elem(const char *s, struct nt_elem *e, const char **end)
{
	memset(e, 0, sizeof(*e));
	const char *p = s + 1;
	if (*p == '/') {
		e->close = true;
		p++;
	}
	size_t n = strcspn(p, " \t/>");
	if (!n || !copy_token(e->name, sizeof(e->name), p, n))
		return false;
	p += n;
	for (;;) {
		p = pt_skip_ws(p);
		if (*p == '>' || (p[0] == '/' && p[1] == '>'))
			break;
		if (e->close || e->n == NT_ATTRS)
			return false;
		n = strcspn(p, "= \t>");
		if (!n || p[n] != '=' || (p[n + 1] != '"' && p[n + 1] != '\''))
			return false;
		struct nt_attr *a = &e->a[e->n++];
		if (!copy_token(a->key, sizeof(a->key), p, n))
			return false;
		char q = p[n + 1];
		const char *v = p + n + 2, *ve = strchr(v, q);
		if (!ve || !copy_token(a->val, sizeof(a->val), v, (size_t)(ve - v)))
			return false;
		p = ve + 1;
	}
	e->single = *p == '/';
	*end = p + (e->single ? 2 : 1);
	return true;
}

static bool hex16(const char *s, uint16_t *out)
{
	uint64_t v;
	const char *e;
	if (!s || !pt_hex(s, &v, &e) || *e || v > 0xffff)
		return false;
	*out = (uint16_t)v;
	return true;
}

static void pci_elem(struct nt_state *st, const struct nt_elem *e, int line)
{
	struct p2ps_bdf b;
	const char *busid = attr(e, "busid"), *end;
	if (!busid || !pt_bdf(busid, &b, NULL, &end) || *end) {
		st->bad++;
		return;
	}
	struct p2ps_paste_dev *pd = pt_dev(st->c, &b);
	if (!pd)
		return;
	st->pci[st->depth] = pd;
	st->devs++;
	struct p2ps_paste_where w = pt_where(st->c, line);
	uint64_t cls;
	const char *v = attr(e, "class");
	if (v && pt_hex(v, &cls, &end) && !*end && cls <= 0xffffff) {
		pd->d.class_code = (uint32_t)cls;
		pd->class_known = true;
		pd->from[P2PS_PD_CLASS] = w;
	}
	if (hex16(attr(e, "vendor"), &pd->d.vendor_id) &&
	    hex16(attr(e, "device"), &pd->d.device_id)) {
		pd->ids_known = pd->vendor_known = true;
		pd->from[P2PS_PD_IDENT] = w;
	}
	hex16(attr(e, "subsystem_vendor"), &pd->d.subsys_vendor_id);
	hex16(attr(e, "subsystem_device"), &pd->d.subsys_id);
	uint8_t speed = (v = attr(e, "link_speed")) ? pt_speed(v) : 0;
	long width = 0;
	if ((v = attr(e, "link_width")) && *v && (!pt_dec(v, &width, &end) || *end || width > 32))
		width = 0;
	if (speed) {
		pd->d.pcie.cap = (struct p2ps_link){speed, (uint8_t)width};
		pd->d.pcie.cap_source = P2PS_LINK_SYSFS;
		pd->from[P2PS_PD_LINK] = w;
	}
	/* The enclosing <pci> is the upstream bridge; directly under <cpu>: a root bus. */
	const struct p2ps_paste_dev *up = st->depth > 0 ? st->pci[st->depth - 1] : NULL;
	pd->d.has_parent = up != NULL;
	if (up)
		pd->d.parent_bdf = up->d.bdf;
	pd->from[P2PS_PD_PARENT] = w;
	if (st->numa >= 0) {
		pd->d.numa_node = st->numa;
		pd->from[P2PS_PD_NUMA] = w;
	}
}

static void gpu_elem(struct nt_state *st, const struct nt_elem *e)
{
	struct p2ps_paste_dev *pd = st->depth > 0 ? st->pci[st->depth - 1] : NULL;
	if (!pd) {
		st->bad++;
		return;
	}
	pd->gpu_named = true;
	st->gpu_dev = (int)(pd - st->c->p->devs);
	st->gpus++;
	struct p2ps_bdf b = pd->d.bdf;
	struct p2ps_paste_gpu *g = pt_gpu_bdf(st->c, &b);
	long dev;
	const char *v = attr(e, "dev"), *end;
	if (g && v && pt_dec(v, &dev, &end) && !*end && dev >= 0 && dev < P2PS_PASTE_MAX_GPUS)
		g->smi = (int)dev;
}

static void nvlink_elem(struct nt_state *st, const struct nt_elem *e)
{
	long count;
	uint64_t cls;
	const char *v = attr(e, "count"), *t = attr(e, "tclass"), *end;
	if (st->gpu_dev < 0 || !v || !pt_dec(v, &count, &end) || *end || count < 1 ||
	    count > P2PS_HOST_MAX_NVLINK || !t || !pt_hex(t, &cls, &end) || *end) {
		st->bad++;
		return;
	}
	struct p2ps_gpu_facts *g = &st->c->p->devs[st->gpu_dev].d.gpu;
	g->nvlink_known = true;
	st->nvlinks++;
	struct p2ps_bdf b;
	const char *target = attr(e, "target");
	if ((cls >> 16) == 0x03 && target && pt_bdf(target, &b, NULL, &end) && !*end)
		p2ps_gpu_add_nvlink_peer(g, &b, (int)count);
	else if ((cls >> 8) == 0x0680)
		g->nvswitch_links = g->nvswitch_links + (int)count < P2PS_HOST_MAX_NVLINK
		                            ? g->nvswitch_links + (int)count
		                            : P2PS_HOST_MAX_NVLINK; /* a GPU has no more links */
}

/* GPUs with links to the NVSwitch fabric reach each other through it: each pair gets the
 * smaller of their link counts, as nvidia-smi topo -m's NV# on such boards. */
static void fabric_peers(struct p2ps_paste *p)
{
	for (size_t i = 0; i < p->n_devs; i++)
		for (size_t j = 0; j < p->n_devs; j++)
			if (i != j)
				p2ps_gpu_add_fabric_peer(
				        &p->devs[i].d, p->devs[i].d.gpu.nvswitch_links,
				        &p->devs[j].d, p->devs[j].d.gpu.nvswitch_links);
}

/* The first <cpu>'s processor, in NCCL's names (topo.cc kvDictCpuArch): the host's CPU. */
static void cpu_elem(struct nt_state *st, const struct nt_elem *e)
{
	struct p2ps_host_cpu *cpu = &st->c->p->host.cpu;
	const char *arch = attr(e, "arch"), *v, *end;
	if (cpu->known || !arch ||
	    (strcmp(arch, "x86_64") && strcmp(arch, "arm64") && strcmp(arch, "ppc64")))
		return;
	snprintf(cpu->arch, sizeof(cpu->arch), "%s", arch);
	v = attr(e, "vendor");
	if (v && !strpbrk(v, "\"'<>&"))
		snprintf(cpu->vendor, sizeof(cpu->vendor), "%s", v);
	long n;
	cpu->family = (v = attr(e, "familyid")) && pt_dec(v, &n, &end) && !*end && n <= 0xffff
	                      ? (int)n
	                      : -1;
	cpu->model = (v = attr(e, "modelid")) && pt_dec(v, &n, &end) && !*end && n <= 0xffff
	                     ? (int)n
	                     : -1;
	cpu->known = true;
}

static void open_elem(struct nt_state *st, const struct nt_elem *e, int line)
{
	if (st->depth == NT_DEPTH) {
		st->bad++;
		return;
	}
	st->pci[st->depth] = NULL;
	long v;
	const char *s, *end;
	if (!strcmp(e->name, "cpu")) {
		cpu_elem(st, e);
		st->numa = (s = attr(e, "numaid")) && pt_dec(s, &v, &end) && !*end && v >= 0 &&
		                           v < 1024
		                   ? (int)v
		                   : -1;
	} else if (!strcmp(e->name, "pci")) {
		pci_elem(st, e, line);
	} else if (!strcmp(e->name, "gpu")) {
		gpu_elem(st, e);
	} else if (!strcmp(e->name, "nvlink")) {
		nvlink_elem(st, e);
	} else if (!strcmp(e->name, "net")) {
		st->nets++;
	}
	if (e->single) {
		if (!strcmp(e->name, "gpu"))
			st->gpu_dev = -1;
		return;
	}
	memcpy(st->stack[st->depth], e->name, sizeof(st->stack[0]));
	st->depth++;
}

static void close_elem(struct nt_state *st, const struct nt_elem *e)
{
	if (!st->depth || strcmp(st->stack[st->depth - 1], e->name)) {
		st->bad++;
		return;
	}
	st->depth--;
	if (!strcmp(e->name, "gpu"))
		st->gpu_dev = -1;
	else if (!strcmp(e->name, "cpu"))
		st->numa = -1;
}

void pt_parse_nccl_topo(struct pctx *c, const struct pl_span *sp)
{
	struct nt_state st = {.c = c, .numa = -1, .gpu_dev = -1};
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom) {
		const char *p = pt_skip_ws(l.s);
		while (*p == '<') {
			struct nt_elem e;
			const char *end;
			if (!read_elem(p, &e, &end)) {
				st.bad++;
				break;
			}
			if (e.close)
				close_elem(&st, &e);
			else
				open_elem(&st, &e, l.no);
			p = pt_skip_ws(end);
		}
	}
	fabric_peers(c->p);
	pt_summary(c, "%d PCI device%s, %d GPU%s, %d NVLink entr%s", st.devs,
	           st.devs == 1 ? "" : "s", st.gpus, st.gpus == 1 ? "" : "s", st.nvlinks,
	           st.nvlinks == 1 ? "y" : "ies");
	if (st.nets)
		pt_summary(c, "%d network device%s (not used)", st.nets, st.nets == 1 ? "" : "s");
	if (st.bad || st.depth)
		pt_summary(c, "%d element%s not understood", st.bad + st.depth,
		           st.bad + st.depth == 1 ? "" : "s");
	if (c->block >= 0)
		c->p->blocks[c->block].facts += st.devs + st.gpus + st.nvlinks;
}
