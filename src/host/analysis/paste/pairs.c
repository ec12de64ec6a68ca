/* SPDX-License-Identifier: MIT */
/* The per-pair table: for every GPU pair, the analysis' verdict beside what nvidia-smi
 * (topo -m class, topo -p2p status) and CUDA (peer access, connectivity, P2P off/on
 * bandwidth and latency) said, NCCL's transport, whether the paste shows P2P working on
 * it, and a note where the sources disagree. GPUs with an address are the analysis' GPUs
 * (its numbering); GPUs the paste knows only by nvidia-smi index or CUDA ordinal follow.
 *
 * What shows P2P working, strongest first: a copy that checked its data (simpleP2P's
 * "Test passed" on its pair, nccl-tests' results with no wrong value), P2P copies faster
 * than copies through host memory, NCCL's P2P transport, NVLink between the pair. The
 * driver's word alone (CUDA grants peer access, topo -p2p says OK) counts where nothing
 * speaks against it and the boards are ones where that word says something: NVLink
 * boards, and the GeForce families whose P2P over PCIe depends on the driver (access
 * granted there means a driver that enables it). On PCIe boards whose stock driver grants
 * access everywhere, it says nothing about whether the copies arrive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe_internal.h"

struct ugpu {
	int gi; /* analysis GPU index, -1 */
	int e;  /* evidence GPU index, -1 */
	int smi, cuda;
	char label[40];
};

static void no_address_label(const struct p2ps_paste_gpu *g, char *buf, size_t size)
{
	if (g->smi >= 0)
		snprintf(buf, size, "GPU%d (no address)", g->smi);
	else if (g->cuda >= 0)
		snprintf(buf, size, "CUDA%d (no address)", g->cuda);
	else
		snprintf(buf, size, "listed GPU %d (no address)", g->listed + 1);
}

static int unified(const struct octx *c, struct ugpu *u, int max)
{
	int n = 0;
	for (size_t gi = 0; gi < c->a->n_gpus && n < max; gi++) {
		if (!c->a->gpus[gi].is_gpu)
			continue;
		const struct p2ps_dev *d = &c->h->devs[c->a->gpus[gi].dev_idx];
		struct ugpu *x = &u[n++];
		*x = (struct ugpu){(int)gi, -1, -1, -1, ""};
		for (size_t k = 0; k < c->ev->n_gpus; k++)
			if (c->ev->gpus[k].bdf_known &&
			    p2ps_bdf_equal(&c->ev->gpus[k].bdf, &d->bdf)) {
				x->e = (int)k;
				x->smi = c->ev->gpus[k].smi;
				x->cuda = c->ev->gpus[k].cuda;
			}
		snprintf(x->label, sizeof(x->label), "GPU%zu %s", gi, d->bdf_str);
	}
	for (size_t k = 0; k < c->ev->n_gpus && n < max; k++) {
		const struct p2ps_paste_gpu *g = &c->ev->gpus[k];
		if (g->bdf_known)
			continue;
		u[n] = (struct ugpu){-1, (int)k, g->smi, g->cuda, ""};
		no_address_label(g, u[n].label, sizeof(u[n].label));
		n++;
	}
	return n;
}

static void cell(const struct octx *c, enum p2ps_paste_matrix_kind k, int i, int j, char *out)
{
	const char *s = po_cell(c, k, i, j);
	snprintf(out, P2PS_PASTE_CELL, "%s", s ? s : "");
}

/* A 1/0 cell (peer access, connectivity): 1, 0, -1 when the paste has none. */
static int flag(const struct octx *c, enum p2ps_paste_matrix_kind k, int i, int j)
{
	const char *s = po_cell(c, k, i, j);
	return s ? s[0] == '1' : -1;
}

/* The note for a pair whose sources disagree, "" when they do not. */
static void disagreement(struct p2ps_paste_pair *x)
{
	bool cannot = x->cuda_ab == 0 || x->cuda_ba == 0, can = x->cuda_ab == 1 && x->cuda_ba == 1;
	bool ok = !strcmp(x->p2p_ab, "OK") && (!x->p2p_ba[0] || !strcmp(x->p2p_ba, "OK"));
	bool not_ok = (x->p2p_ab[0] && strcmp(x->p2p_ab, "OK") && strcmp(x->p2p_ab, "X")) ||
	              (x->p2p_ba[0] && strcmp(x->p2p_ba, "OK") && strcmp(x->p2p_ba, "X"));
	enum p2ps_verdict v = x->ours ? x->ours->verdict : P2PS_VERDICT_UNKNOWN;
	if (x->ours && v == P2PS_VERDICT_READY && (cannot || not_ok))
		snprintf(x->note, sizeof(x->note),
		         "the analysis finds nothing blocking, but %s: the paste shows a cause the "
		         "analysis cannot see (driver policy, GPU model, a fault)",
		         cannot ? "CUDA cannot access the peer" : "nvidia-smi does not allow P2P");
	else if (x->ours && v == P2PS_VERDICT_NOT_READY && x->works && !x->works_weak)
		snprintf(x->note, sizeof(x->note),
		         "the paste shows P2P working on this pair (%.200s) although the analysis "
		         "names blockers: they are kept as the model's doubt, not as causes",
		         x->works_why);
	else if (ok && cannot)
		snprintf(x->note, sizeof(x->note),
		         "nvidia-smi reports OK but CUDA cannot access the peer: topo -p2p checks "
		         "the "
		         "chipset and the GPU, not whether the driver maps this pair");
	else if (not_ok && can)
		snprintf(x->note, sizeof(x->note),
		         "CUDA accesses the peer although nvidia-smi reports %s", x->p2p_ab);
}

/* Appends a piece of evidence to why ("; " between pieces), cut where why is full. */
static void append(char *why, size_t size, const char *text)
{
	size_t n = strlen(why);
	if (n + 3 >= size)
		return;
	if (n) {
		memcpy(why + n, "; ", 2);
		n += 2;
	}
	size_t k = strnlen(text, size - n - 1);
	memcpy(why + n, text, k);
	why[n + k] = '\0';
}

/* nccl-tests ran over this pair's GPUs and checked its results without a wrong value,
 * with NCCL free to use P2P (not disabled, not a transport other than P2P for the pair). */
static bool nccl_tests_checked(const struct octx *c, const struct p2ps_paste_pair *x,
                               const struct ugpu *u, const struct ugpu *v)
{
	const struct p2ps_evidence *ev = c->ev;
	if (strcmp(ev->cuda.test, "nccl-tests") || ev->cuda.nccl_rows < 1 || ev->cuda.nccl_wrong ||
	    u->cuda < 0 || v->cuda < 0 || (x->nccl[0] && strcmp(x->nccl, "P2P")))
		return false;
	for (int i = 0; i < ev->nccl.n_env; i++)
		if (!strncmp(ev->nccl.env[i], "NCCL_P2P_DISABLE=", 17) &&
		    p2ps_an_nccl_disables(ev->nccl.env[i] + 17))
			return false;
	return true;
}

/* simpleP2P checked the copies between this pair ("Test passed" with no verification
 * error): the pair it enabled, or the pair it found peer access on both ways. */
static bool simple_checked(const struct octx *c, const struct p2ps_paste_pair *x,
                           const struct ugpu *u, const struct ugpu *v)
{
	const struct p2ps_paste_cuda *cu = &c->ev->cuda;
	if (cu->result != 1 || cu->verify_errors || strcmp(cu->test, "simpleP2P"))
		return false;
	bool enabled = cu->enabled_a >= 0 && u->cuda >= 0 && v->cuda >= 0 &&
	               ((cu->enabled_a == u->cuda && cu->enabled_b == v->cuda) ||
	                (cu->enabled_a == v->cuda && cu->enabled_b == u->cuda));
	return enabled || (x->cuda_ab == 1 && x->cuda_ba == 1);
}

/* What shows copies working on the pair (into why); false when nothing does. */
static bool strong(const struct octx *c, struct p2ps_paste_pair *x, const struct ugpu *u,
                   const struct ugpu *v, char *why, size_t size)
{
	const struct p2ps_evidence *ev = c->ev;
	char t[160];
	if (simple_checked(c, x, u, v))
		append(why, size,
		       "simpleP2P: peer access both ways and its copy checked (Test passed)");
	if (nccl_tests_checked(c, x, u, v))
		append(why, size, "nccl-tests ran over the pair with no wrong value");
	if (x->bw_off > 0 && x->bw_on > 1.15 * x->bw_off) {
		snprintf(t, sizeof(t), "%sP2P copies %.1f GB/s against %.1f through host memory",
		         x->bw_bidirectional ? "bidirectional: " : "", x->bw_on, x->bw_off);
		append(why, size, t);
	}
	/* nvbandwidth copies between two GPUs only where CUDA grants peer access: a figure
	 * in its device-to-device matrix is a copy that completed peer to peer. */
	if (x->d2d > 0) {
		snprintf(t, sizeof(t), "nvbandwidth copied device to device at %.1f GB/s", x->d2d);
		append(why, size, t);
	}
	x->works_copied = why[0] != 0;
	/* NCCL_P2P_LEVEL set by hand makes NCCL use P2P where it would not: no evidence. */
	bool forced = false;
	for (int i = 0; i < ev->nccl.n_env; i++)
		forced |= !strncmp(ev->nccl.env[i], "NCCL_P2P_LEVEL=", 15);
	if (!strcmp(x->nccl, "P2P") && !forced) {
		snprintf(t, sizeof(t), "NCCL connects the pair via %s",
		         ev->nccl.p2p_how[0] ? ev->nccl.p2p_how : "P2P");
		append(why, size, t);
	}
	if (x->nvlinks) {
		snprintf(t, sizeof(t), "NVLink joins the pair (nvidia-smi topo -m: %s)", x->topo);
		append(why, size, t);
	}
	return why[0] != 0;
}

/* Whether the GPUs sit on both halves of the bus numbers (below 0x80 and from 0x80 on):
 * the two root complexes of a two-socket server, where the root ports' ACS and the IOMMU
 * decide what peer writes do whatever the driver grants. */
static bool two_roots(const struct octx *c)
{
	bool low = false, high = false;
	for (size_t i = 0; i < c->ev->n_gpus; i++)
		if (c->ev->gpus[i].bdf_known) {
			low |= c->ev->gpus[i].bdf.bus < 0x80;
			high |= c->ev->gpus[i].bdf.bus >= 0x80;
		}
	return low && high;
}

/* Whether the driver's word (access granted, OK) says something on these boards: not on
 * PCIe boards whose stock driver grants access everywhere, nor across two root complexes. */
static bool word_counts(const struct octx *c, const struct p2ps_paste_pair *x)
{
	const char *na = x->ga >= 0 ? c->ev->gpus[x->ga].name : "";
	const char *nb = x->gb >= 0 ? c->ev->gpus[x->gb].name : "";
	if (x->nvlinks)
		return true;
	if (two_roots(c) || c->ev->several_hosts)
		return false;
	if (!na[0] || !nb[0])
		return true; /* boards not named: nothing says the word is empty */
	if (po_nvlink_board(na) && po_nvlink_board(nb))
		return true;
	/* On GeForce boards the grant is a P2P-patched driver's, given whatever the platform
	 * does with the copies; where the test measured copies without P2P and the excerpt
	 * stops before the figures with it, the very numbers that would say are left out. */
	const struct p2ps_paste_matrix_info *m = c->ev->matrix;
	bool off = m[P2PS_PM_BW_UNI_OFF].present || m[P2PS_PM_BW_BI_OFF].present ||
	           m[P2PS_PM_LAT_OFF].present;
	bool on = m[P2PS_PM_BW_UNI_ON].present || m[P2PS_PM_BW_BI_ON].present ||
	          m[P2PS_PM_LAT_ON].present;
	return po_geforce(na) && po_geforce(nb) && !(off && !on);
}

/* The driver's word that the pair may use P2P (into why); false when there is none. */
static bool weak(const struct p2ps_paste_pair *x, char *why, size_t size)
{
	if ((x->cuda_ab == 1 && x->cuda_ba == 1) ||
	    (x->cuda_ab < 0 && x->connect_ab == 1 && x->connect_ba != 0))
		append(why, size,
		       "CUDA grants peer access both ways and nothing in the paste speaks against "
		       "it");
	else if (!strcmp(x->p2p_ab, "OK") && (!x->p2p_ba[0] || !strcmp(x->p2p_ba, "OK")))
		append(why, size,
		       "the driver allows P2P between the pair (nvidia-smi topo -p2p OK) "
		       "and nothing in the paste speaks against it");
	return why[0] != 0;
}

/* Whether something in the paste speaks against P2P working on the pair. */
static bool against(const struct octx *c, const struct p2ps_paste_pair *x)
{
	bool slow = x->bw_on > 0 && x->bw_off > 0 && x->bw_on <= 1.15 * x->bw_off;
	bool stall = x->lat_on > 0 && x->lat_off > 0 && x->lat_on >= 100 * x->lat_off;
	bool refused = x->cuda_ab == 0 || x->cuda_ba == 0 || x->connect_ab == 0 ||
	               (x->p2p_ab[0] && strcmp(x->p2p_ab, "OK")) ||
	               (x->p2p_ba[0] && strcmp(x->p2p_ba, "OK"));
	return slow || stall || refused || po_failure_seen(c);
}

/* Whether the analysis names a blocker on the pair beyond the driver's decision which
 * GPUs may peer (the path: IOMMU, ACS, BAR1). */
static bool path_blocker(const struct p2ps_pair *p)
{
	for (size_t i = 0; p && i < p->reasons.n; i++)
		if (p->reasons.v[i].sev == P2PS_SEV_BLOCKER &&
		    !po_driver_decision(p->reasons.v[i].code))
			return true;
	return false;
}

/* Whether both GPUs are NVLink boards. */
static bool nvlink_boards(const struct octx *c, const struct p2ps_paste_pair *x)
{
	return x->ga >= 0 && x->gb >= 0 && po_nvlink_board(c->ev->gpus[x->ga].name) &&
	       po_nvlink_board(c->ev->gpus[x->gb].name);
}

static void works(const struct octx *c, struct p2ps_paste_pair *x, const struct ugpu *u,
                  const struct ugpu *v)
{
	char why[160] = "";
	if (against(c, x))
		return;
	if (strong(c, x, u, v, why, sizeof(why))) {
		x->works = 1;
	} else if (weak(x, why, sizeof(why)) && nvlink_boards(c, x)) {
		/* Between NVLink boards the access CUDA grants runs over NVLink. */
		append(why, sizeof(why), "NVLink boards: CUDA's peer access runs over NVLink");
		x->works = 1;
	} else if (why[0] && word_counts(c, x) && !path_blocker(x->ours)) {
		/* The driver's word does not outweigh a blocker the analysis finds on the path. */
		x->works = 1;
		x->works_weak = true;
	}
	if (x->works)
		snprintf(x->works_why, sizeof(x->works_why), "%s", why);
}

/* "NV4" -> 4, else 0. */
static int nvlinks(const char *topo)
{
	int n = 0;
	if (topo[0] != 'N' || topo[1] != 'V')
		return 0;
	for (const char *p = topo + 2; *p >= '0' && *p <= '9' && n < 100; p++)
		n = n * 10 + (*p - '0');
	return n;
}

/* Bandwidth of the pair: the unidirectional matrices, else the bidirectional ones. */
static void bandwidth(const struct octx *c, struct p2ps_paste_pair *x, int a, int b)
{
	x->bw_off = po_cell_num(c, P2PS_PM_BW_UNI_OFF, a, b);
	x->bw_on = po_cell_num(c, P2PS_PM_BW_UNI_ON, a, b);
	if (x->bw_off > 0 || x->bw_on > 0)
		return;
	x->bw_off = po_cell_num(c, P2PS_PM_BW_BI_OFF, a, b);
	x->bw_on = po_cell_num(c, P2PS_PM_BW_BI_ON, a, b);
	x->bw_bidirectional = x->bw_off > 0 || x->bw_on > 0;
}

/* The driver's status of a non-OK code of a pair's path, -1 for OK or no code ("X"). */
static int code_status(const char *ab, const char *ba)
{
	enum p2ps_nv_status st;
	if (ab[0] && strcmp(ab, "OK") && !p2ps_nv_status_from_code(ab, &st))
		return (int)st;
	if (ba[0] && strcmp(ba, "OK") && !p2ps_nv_status_from_code(ba, &st))
		return (int)st;
	return -1;
}

/* The gates that answer status st on a path: its row's, or (path unknown) every row's. */
static unsigned code_gates(int st, char path, const struct p2ps_nv_status_why **why)
{
	*why = NULL;
	int k = p2ps_nv_caps_index_from_mode(path);
	if (k >= 0) {
		*why = p2ps_nv_status_why((unsigned)st, (unsigned)k);
		return *why ? (*why)->gates : 0;
	}
	unsigned gates = 0;
	for (unsigned i = 0; i < P2PS_NV_CAPS_COUNT; i++) {
		const struct p2ps_nv_status_why *w = p2ps_nv_status_why((unsigned)st, i);
		gates |= w ? w->gates : 0;
	}
	return gates;
}

/* One entry per topo -p2p path the paste printed for the pair. */
static void p2p_codes(const struct octx *c, struct p2ps_paste_pair *x, int ea, int eb)
{
	const struct p2ps_evidence *ev = c->ev;
	for (size_t i = 0; i < ev->n_obs && ea >= 0 && eb >= 0; i++) {
		const struct p2ps_pair_obs *o = &ev->obs[i];
		if (o->kind != P2PS_PM_P2P ||
		    !((o->a == ea && o->b == eb) || (o->a == eb && o->b == ea)))
			continue;
		size_t k = 0;
		while (k < x->n_p2p_codes && x->p2p_codes[k].path != o->path)
			k++;
		if (k == P2PS_PASTE_P2P_PATHS)
			continue;
		struct p2ps_paste_p2p_code *p = &x->p2p_codes[k];
		if (k == x->n_p2p_codes) {
			x->n_p2p_codes++;
			p->path = o->path;
			p->from = o->from;
		}
		snprintf(o->a == ea ? p->ab : p->ba, P2PS_PASTE_CELL, "%s", o->text);
		if (o->a == ea)
			p->from = o->from;
	}
	/* The driver's order of indices (r, w, n, a, p), the path not said first. */
	for (size_t k = 1; k < x->n_p2p_codes; k++)
		for (size_t j = k;
		     j > 0 && p2ps_nv_caps_index_from_mode(x->p2p_codes[j].path) <
		                      p2ps_nv_caps_index_from_mode(x->p2p_codes[j - 1].path);
		     j--) {
			struct p2ps_paste_p2p_code t = x->p2p_codes[j];
			x->p2p_codes[j] = x->p2p_codes[j - 1];
			x->p2p_codes[j - 1] = t;
		}
	for (size_t k = 0; k < x->n_p2p_codes; k++) {
		struct p2ps_paste_p2p_code *p = &x->p2p_codes[k];
		p->status = code_status(p->ab, p->ba);
		p->gates = p->status >= 0 ? code_gates(p->status, p->path, &p->why) : 0;
	}
}

/* The driver's word on the pair (p2p_ab, p2p_ba): the read path's codes, else the write
 * path's, else a matrix whose path the paste does not name. NVLINK, ATOMICS and PROP read
 * NOT_SUPPORTED on any pair that does not use that path (client_resource.c), so they speak
 * only when OK: P2P granted over NVLink, with atomics, or over the PCIe mailbox. */
static void p2p_word(struct p2ps_paste_pair *x)
{
	static const char order[] = {'r', 'w', 0, 'n', 'a', 'p'};
	for (size_t i = 0; i < sizeof(order); i++)
		for (size_t k = 0; k < x->n_p2p_codes; k++) {
			const struct p2ps_paste_p2p_code *p = &x->p2p_codes[k];
			bool speaks = i < 3 ||
			              (!strcmp(p->ab, "OK") && (!p->ba[0] || !strcmp(p->ba, "OK")));
			if (p->path != order[i] || !speaks)
				continue;
			snprintf(x->p2p_ab, sizeof(x->p2p_ab), "%s", p->ab);
			snprintf(x->p2p_ba, sizeof(x->p2p_ba), "%s", p->ba);
			return;
		}
}

static void fill(const struct octx *c, struct p2ps_paste_pair *x, const struct ugpu *u,
                 const struct ugpu *v)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->a, sizeof(x->a), "%s", u->label);
	snprintf(x->b, sizeof(x->b), "%s", v->label);
	x->ga = u->e;
	x->gb = v->e;
	if (u->gi >= 0 && v->gi >= 0)
		x->ours = p2ps_analysis_pair(c->a, (size_t)u->gi, (size_t)v->gi);
	cell(c, P2PS_PM_TOPO, u->smi, v->smi, x->topo);
	p2p_codes(c, x, po_gpu_of(c, P2PS_PM_P2P, u->smi), po_gpu_of(c, P2PS_PM_P2P, v->smi));
	p2p_word(x);
	x->nvlinks = nvlinks(x->topo);
	x->cuda_ab = flag(c, P2PS_PM_CUDA_ACCESS, u->cuda, v->cuda);
	x->cuda_ba = flag(c, P2PS_PM_CUDA_ACCESS, v->cuda, u->cuda);
	x->connect_ab = flag(c, P2PS_PM_CUDA_CONNECT, u->cuda, v->cuda);
	x->connect_ba = flag(c, P2PS_PM_CUDA_CONNECT, v->cuda, u->cuda);
	bandwidth(c, x, u->cuda, v->cuda);
	x->lat_off = po_cell_num(c, P2PS_PM_LAT_OFF, u->cuda, v->cuda);
	x->lat_on = po_cell_num(c, P2PS_PM_LAT_ON, u->cuda, v->cuda);
	x->d2d = po_cell_num(c, P2PS_PM_D2D, u->cuda, v->cuda);
	if (x->d2d <= 0)
		x->d2d = po_cell_num(c, P2PS_PM_D2D, v->cuda, u->cuda);
	cell(c, P2PS_PM_NCCL, u->cuda, v->cuda, x->nccl);
	if (!x->nccl[0])
		cell(c, P2PS_PM_NCCL, v->cuda, u->cuda, x->nccl);
	works(c, x, u, v);
	disagreement(x);
}

/* Whether any source speaks about the pair (a pair only the analysis speaks about is in
 * its own pair list already), or the pair is one nccl-tests or simpleP2P ran over. */
static bool spoken(const struct octx *c, const struct p2ps_paste_pair *x)
{
	return x->topo[0] || x->p2p_ab[0] || x->cuda_ab >= 0 || x->cuda_ba >= 0 || x->bw_on > 0 ||
	       x->bw_off > 0 || x->nccl[0] || x->connect_ab >= 0 || x->lat_on > 0 ||
	       (x->works && !x->works_weak) || (c->ev->cuda.nccl_rows && x->works);
}

int po_pairs(struct octx *c)
{
	struct ugpu u[P2PS_PASTE_MAX_GPUS];
	int n = unified(c, u, P2PS_PASTE_MAX_GPUS);
	if (n < 2)
		return 0;
	c->r->pairs = calloc((size_t)n * (size_t)(n - 1) / 2, sizeof(*c->r->pairs));
	if (!c->r->pairs)
		return P2PS_ENOMEM;
	int notes = 0;
	struct p2ps_paste_where at = {-1, 0};
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			struct p2ps_paste_pair *x = &c->r->pairs[c->r->n_pairs];
			fill(c, x, &u[i], &u[j]);
			if (!spoken(c, x))
				continue;
			c->r->n_pairs++;
			notes += x->note[0] != 0;
			if (x->note[0] && !at.line)
				at = c->ev->matrix[P2PS_PM_CUDA_ACCESS].from;
		}
	int ok = 0;
	const struct p2ps_paste_pair *first = NULL;
	for (size_t i = 0; i < c->r->n_pairs; i++)
		if (c->r->pairs[i].works && !ok++)
			first = &c->r->pairs[i];
	if (ok)
		po_add(c, P2PS_PF_P2P_WORKS, P2PS_SEV_INFO, c->ev->cuda.from,
		       "P2P works on %d pair%s (first: %s <-> %s: %s)", ok, ok == 1 ? "" : "s",
		       first->a, first->b, first->works_why);
	if (notes)
		po_add(c, P2PS_PF_DISAGREEMENT, P2PS_SEV_WARNING, at,
		       "%d pair%s where the sources disagree (see the pair table)", notes,
		       notes == 1 ? "" : "s");
	return 0;
}
