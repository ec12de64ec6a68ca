/* SPDX-License-Identifier: MIT */
/* The driver model's part of the text and DOT reports (bar-inspect --driver): which
 * driver, the CPU type it will recognise, static BAR1 per GPU, and per pair the path,
 * the statuses nvidia-smi topo -p2p r/w/n/a/p will print, the gate behind each, what
 * the driver itself reported beside them, and the persistent fixes. */
#include <stdio.h>
#include <string.h>

#include "p2pscope/driver_model.h"
#include "render_internal.h"

static const char idx_letter[P2PS_NV_CAPS_COUNT] = {'r', 'w', 'n', 'a', 'p', 'l', 'P', 'c', 'b'};
static const int shown[] = {P2PS_NV_CAPS_READ, P2PS_NV_CAPS_WRITE, P2PS_NV_CAPS_NVLINK,
                            P2PS_NV_CAPS_ATOMICS, P2PS_NV_CAPS_PROP};

static void label(const struct p2ps_analysis *a, size_t gi, char *buf, size_t n)
{
	snprintf(buf, n, "%s%zu %s", p2ps_endpoint_prefix(a, gi), gi,
	         a->host->devs[a->gpus[gi].dev_idx].bdf_str);
}

/* What the row's fork adds: columns it took from another row, its module parameters as the
 * params file shows them, and libcuda's patch state. */
static void fork_lines(struct p2ps_strbuf *b, const struct p2ps_drv_config *c,
                       const struct p2ps_host *h)
{
	const struct p2ps_nv_driver *r = c->row;
	if (!r || r->flavor == P2PS_NV_FLAVOR_STOCK)
		return;
	p2ps_strbuf_printf(b, "\tfork: %s %s (%s)", p2ps_nv_flavor_name(r->flavor), r->ref,
	                   r->repo ? r->repo : p2ps_nv_flavor_row(r->flavor)->repo);
	for (unsigned k = 0; k < P2PS_NV_FP_COUNT; k++)
		if (r->props & (1u << k))
			p2ps_strbuf_printf(b, ", %s", p2ps_nv_flavor_prop_name(k));
	p2ps_strbuf_puts(b, "\n");
	if (r->assumed)
		p2ps_strbuf_printf(b, "\t  assumed: %s\n", r->assumed);
	if (r->dmabuf_key) {
		if (c->dmabuf_p2p >= 0)
			p2ps_strbuf_printf(
			        b, "\t  DMA-BUF P2P: %s: %ld (/proc/driver/nvidia/params)\n",
			        r->dmabuf_key, c->dmabuf_p2p);
		else
			p2ps_strbuf_printf(
			        b, "\t  DMA-BUF P2P: %s: unknown (not in the params read)\n",
			        r->dmabuf_key);
	}
	if (r->uvm_managed_param)
		p2ps_strbuf_printf(b,
		                   "\t  UVM managed memory over BAR1 peers: opt-in, nvidia_uvm "
		                   "%s=1 (default 0; before Hopper a managed page over a BAR1 peer "
		                   "faults with Xid 31)\n",
		                   r->uvm_managed_param);
	if (c->libcuda_row)
		p2ps_strbuf_printf(b, "\t  libcuda: %s: %s (%s)\n",
		                   p2ps_nv_libcuda_state_name(c->libcuda), c->libcuda_row->what,
		                   h->nvidia.libcuda_path);
	else
		p2ps_strbuf_printf(b, "\t  libcuda: unknown%s%s\n",
		                   h->nvidia.libcuda_sha256[0] ? ": no known digest: "
		                                               : " (not hashed)",
		                   h->nvidia.libcuda_sha256);
}

static void header(struct p2ps_strbuf *b, const struct p2ps_drv_report *r,
                   const struct p2ps_analysis *a)
{
	const struct p2ps_drv_config *c = &r->cfg;
	const struct p2ps_host_cpu *cpu = &a->host->cpu;
	if (!c->known) {
		p2ps_strbuf_puts(b,
		                 "Driver model: unknown: needs the driver series (--driver SERIES, "
		                 "or /proc/driver/nvidia/version)\n");
		return;
	}
	p2ps_strbuf_printf(b, "Driver model: NVIDIA %s %s%s (from %s), modelled as %d\n",
	                   c->version[0] ? c->version : "?", p2ps_nv_flavor_name(c->flavor),
	                   c->flavor_guessed ? " (assumed)" : "", c->source, c->model_series);
	if (c->note[0])
		p2ps_strbuf_printf(b, "\tnote: %s\n", c->note);
	p2ps_strbuf_printf(b, "\tregistry: %s\n",
	                   c->reg_source[0] ? c->reg_source
	                                    : "not known (driver defaults assumed)");
	fork_lines(b, c, a->host);
	if (cpu->known)
		p2ps_strbuf_printf(b, "\tCPU: %s family %d model %d: driver CPU type %s\n",
		                   cpu->vendor, cpu->family, cpu->model, r->cpu_type);
	else
		p2ps_strbuf_puts(b, "\tCPU: unknown (needs /proc/cpuinfo): BAR1 reads undecided "
		                    "without a common switch\n");
}

static void bar1_lines(struct p2ps_strbuf *b, const struct p2ps_drv_report *r,
                       const struct p2ps_analysis *a)
{
	char lbl[48], s1[24];
	p2ps_strbuf_puts(b, "\tStatic BAR1 (what BAR1 P2P rests on):\n");
	for (size_t gi = 0; gi < r->n_gpus; gi++) {
		const struct p2ps_drv_static_bar1 *sb = &r->bar1[gi];
		if (!a->gpus[gi].is_gpu)
			continue;
		label(a, gi, lbl, sizeof(lbl));
		p2ps_strbuf_printf(b, "\t  %s: %s: %s%s\n", lbl,
		                   sb->st == P2PS_NV_ST_OK              ? "enabled"
		                   : sb->st == P2PS_NV_ST_NOT_SUPPORTED ? "not enabled"
		                                                        : "unknown",
		                   sb->why,
		                   sb->estimated ? " [FB size and reserves estimated]" : "");
		if (sb->resized)
			p2ps_strbuf_printf(b, "\t    the driver will resize BAR1 to %s at load\n",
			                   p2ps_size_format(sb->rebar_to, s1, sizeof(s1)));
		if (sb->fix[0])
			p2ps_strbuf_printf(b, "\t    fix: %s\n", sb->fix);
	}
}

static void statuses(struct p2ps_strbuf *b, const enum p2ps_nv_status *st)
{
	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		p2ps_strbuf_printf(b, " %c %-3s", idx_letter[shown[k]],
		                   p2ps_nv_status_code(st[shown[k]]));
}

static void pair_lines(struct p2ps_strbuf *b, const struct p2ps_drv_pair *p,
                       const struct p2ps_analysis *a)
{
	char l1[48], l2[48];
	label(a, (size_t)p->a, l1, sizeof(l1));
	label(a, (size_t)p->b, l2, sizeof(l2));
	p2ps_strbuf_printf(b, "\t%s <-> %s: path %s;", l1, l2, p2ps_nv_path_name(p->chosen));
	statuses(b, p->st);
	p2ps_strbuf_puts(b, "\n");
	for (int k = 0; k < P2PS_NV_PATH_COUNT; k++) {
		const struct p2ps_drv_path_result *r = &p->path[k];
		if (!r->tried)
			continue;
		p2ps_strbuf_printf(
		        b, "\t  %-15s read %s [%s], write %s [%s], atomics %s [%s]%s%s\n",
		        p2ps_nv_path_name((enum p2ps_nv_path)k), p2ps_nv_status_code(r->read.st),
		        p2ps_nv_gate_name(r->read.gate), p2ps_nv_status_code(r->write.st),
		        p2ps_nv_gate_name(r->write.gate), p2ps_nv_status_code(r->atomics.st),
		        p2ps_nv_gate_name(r->atomics.gate), r->why[0] ? ": " : "", r->why);
	}
	if (p->reported.known) {
		p2ps_strbuf_printf(b, "\t  driver reported (%s):", p->reported.source);
		statuses(b, p->reported.st);
		p2ps_strbuf_printf(b, ": %s\n",
		                   p->agree > 0    ? "agrees"
		                   : p->agree == 0 ? "differs"
		                                   : "nothing to compare");
		for (int k = 0; p->agree == 0 && k < P2PS_NV_CAPS_COUNT; k++)
			if (p->reported.st[k] != P2PS_NV_ST_UNKNOWN &&
			    p->st[k] != P2PS_NV_ST_UNKNOWN && p->reported.st[k] != p->st[k])
				p2ps_strbuf_printf(
				        b, "\t    index %c: model %s (gate %s), driver %s\n",
				        idx_letter[k], p2ps_nv_status_code(p->st[k]),
				        p2ps_nv_gate_name(p->gate[k]),
				        p2ps_nv_status_code(p->reported.st[k]));
	}
	if (p->fix[0])
		p2ps_strbuf_printf(b, "\t  fix (persistent; printed, never applied): %s\n", p->fix);
}

void p2ps_render_driver_text(const struct p2ps_analysis *a, struct p2ps_strbuf *b)
{
	const struct p2ps_drv_report *r = a->driver;
	if (!r)
		return;
	header(b, r, a);
	if (r->cfg.known && r->n_gpus)
		bar1_lines(b, r, a);
	size_t gpus = 0;
	for (size_t gi = 0; gi < a->n_gpus; gi++)
		gpus += a->gpus[gi].is_gpu;
	if (r->cfg.known && !r->n_pairs && gpus == 1)
		p2ps_strbuf_puts(b, "\tPairs: none (one NVIDIA GPU)\n");
	else if (r->cfg.known && !r->n_pairs)
		p2ps_strbuf_puts(b, "\tPairs: unknown: needs two GPUs with their PCI facts (lspci "
		                    "-vvv, nvidia-smi -q)\n");
	if (r->n_pairs)
		p2ps_strbuf_puts(b, "\tPairs (r w n a p: the codes nvidia-smi topo -p2p prints; "
		                    "[gate] decided each; sources in docs/bar-inspect.md):\n");
	for (size_t k = 0; k < r->n_pairs; k++)
		pair_lines(b, &r->pairs[k], a);
	p2ps_strbuf_puts(b, "\n");
}

void p2ps_render_driver_dot(const struct p2ps_analysis *a, struct p2ps_strbuf *b)
{
	const struct p2ps_drv_report *r = a->driver;
	for (size_t k = 0; r && k < r->n_pairs; k++) {
		const struct p2ps_drv_pair *p = &r->pairs[k];
		const struct p2ps_host *h = a->host;
		p2ps_strbuf_printf(b,
		                   "  \"%s\" -> \"%s\" [dir=both, style=dashed, color=%s, "
		                   "label=\"driver: %s r %s w %s",
		                   h->devs[a->gpus[p->a].dev_idx].bdf_str,
		                   h->devs[a->gpus[p->b].dev_idx].bdf_str,
		                   p->st[P2PS_NV_CAPS_READ] == P2PS_NV_ST_OK ? "darkgreen" : "red",
		                   p2ps_nv_path_name(p->chosen),
		                   p2ps_nv_status_code(p->st[P2PS_NV_CAPS_READ]),
		                   p2ps_nv_status_code(p->st[P2PS_NV_CAPS_WRITE]));
		if (p->agree >= 0)
			p2ps_strbuf_printf(b, "\\n%s", p->agree ? "agrees" : "differs");
		p2ps_strbuf_puts(b, "\"];\n");
	}
}
