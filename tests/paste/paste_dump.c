/* SPDX-License-Identifier: MIT */
/* paste-dump FILE: every fact the paste reader took from FILE, one per line with where it
 * came from. Tests compare its lines with what the paste says; people use it to see why
 * a paste was read the way it was. */
#include <stdio.h>
#include <string.h>

#include "p2pscope/nvidia_chips.h"
#include "p2pscope/paste.h"

/* "line 12 (block 3, lspci)", as the report prints where a fact came from. */
static const char *where(const struct p2ps_paste *p, struct p2ps_paste_where w, char *buf,
                         size_t size)
{
	if (w.block >= 0 && (size_t)w.block < p->n_blocks)
		snprintf(buf, size, "line %d (block %d, %s)", w.line, w.block + 1,
		         p2ps_paste_kind_name(p->blocks[w.block].kind));
	else
		snprintf(buf, size, "line %d", w.line);
	return buf;
}

/* The evidence the analysis reads: the GPUs joined and one line per pair observation. */
static void evidence(const struct p2ps_paste *p)
{
	struct p2ps_evidence ev;
	struct p2ps_error err = {0};
	if (p2ps_paste_evidence(p, &ev, &err) < 0) {
		printf("evidence: %s\n", err.msg);
		return;
	}
	for (size_t i = 0; i < ev.n_gpus; i++)
		printf("ev-gpu %zu smi=%d cuda=%d listed=%d bdf=%s name=\"%s\"\n", i,
		       ev.gpus[i].smi, ev.gpus[i].cuda, ev.gpus[i].listed,
		       ev.gpus[i].bdf_known ? "yes" : "no", ev.gpus[i].name);
	for (size_t i = 0; i < ev.n_obs; i++) {
		const struct p2ps_pair_obs *o = &ev.obs[i];
		printf("obs %s %d->%d%s%c %s line %d\n", p2ps_paste_matrix_name(o->kind), o->a,
		       o->b, o->path ? " path " : "", o->path ? o->path : ' ', o->text,
		       o->from.line);
	}
	for (size_t i = 0; i < ev.n_releases; i++)
		printf("release %s %s line %d worked=%d failed=%d\n",
		       p2ps_paste_software_name(ev.releases[i].sw), ev.releases[i].version,
		       ev.releases[i].from.line, ev.releases[i].worked, ev.releases[i].failed);
	p2ps_evidence_free(&ev);
}

static void dev_line(const struct p2ps_paste *p, const struct p2ps_paste_dev *pd)
{
	const struct p2ps_dev *d = &pd->d;
	char w[96];
	printf("dev %s ids=%04x:%04x%s class=%06x%s hdr=%u name=\"%s\" chip=%s v=%d%s%s%s%s\n",
	       d->bdf_str, d->vendor_id, d->device_id, pd->ids_known ? "" : "?", d->class_code,
	       pd->class_known ? "" : "?", d->header_type, pd->name,
	       d->chip ? p2ps_nvidia_chip_name(d->chip) : "-", pd->verbosity,
	       pd->caps_denied ? " denied" : "", pd->cut ? " cut" : "",
	       pd->complete ? " complete" : "", pd->gpu_named ? " gpu-named" : "");
	for (int i = 0; i < P2PS_HOST_MAX_BARS; i++) {
		const struct p2ps_bar *b = &d->bars[i];
		if (b->present)
			printf("  bar %d addr=%llx size=%llu%s 64=%d pref=%d io=%d unassigned=%d\n",
			       i, (unsigned long long)b->address, (unsigned long long)b->size,
			       b->size_known ? "" : "?", b->is_64bit, b->prefetchable, b->io,
			       b->unassigned);
	}
	if (d->pcie.present)
		printf("  pcie type=%u cap=%u/x%u sta=%u/x%u\n", d->pcie.port_type,
		       d->pcie.cap.speed, d->pcie.cap.width, d->pcie.sta.speed, d->pcie.sta.width);
	if (d->acs.present)
		printf("  acs cap=%02x ctl=%02x\n", d->acs.cap, d->acs.ctl);
	for (int k = 0; k < d->rebar.count; k++)
		printf("  rebar bar=%u cur=%u sizes=%llx\n", d->rebar.e[k].bar,
		       d->rebar.e[k].current, (unsigned long long)d->rebar.e[k].sizes);
	if (d->bridge.is_bridge)
		printf("  bridge %02x-%02x pref=%d %llx-%llx\n", d->bridge.secondary,
		       d->bridge.subordinate, d->bridge.pref.present,
		       (unsigned long long)d->bridge.pref.base,
		       (unsigned long long)d->bridge.pref.limit);
	if (d->has_parent)
		printf("  parent %04x:%02x:%02x.%x\n", d->parent_bdf.domain, d->parent_bdf.bus,
		       d->parent_bdf.dev, d->parent_bdf.fn);
	printf("  driver=%s numa=%d group=%d faults=%d\n", d->driver, d->numa_node, d->iommu_group,
	       pd->iommu_faults);
	for (int f = 0; f < P2PS_PD_COUNT; f++)
		if (pd->from[f].line)
			printf("  from %s: %s\n", p2ps_paste_dfact_name(f),
			       where(p, pd->from[f], w, sizeof(w)));
}

int main(int argc, char **argv)
{
	struct p2ps_paste p;
	struct p2ps_error err = {0};
	if (argc != 2) {
		fprintf(stderr, "usage: paste-dump FILE\n");
		return 2;
	}
	if (p2ps_paste_load(argv[1], &p, &err) < 0) {
		fprintf(stderr, "paste-dump: %s\n", err.msg);
		return 2;
	}
	for (size_t i = 0; i < p.n_blocks; i++) {
		const struct p2ps_paste_block *b = &p.blocks[i];
		printf("block %zu %s lines %d-%d%s cmd=\"%s\": %s\n", i + 1,
		       p2ps_paste_kind_name(b->kind), b->first_line, b->last_line,
		       b->cut ? " cut" : "", b->command, b->summary);
	}
	for (size_t i = 0; i < p.n_devs; i++)
		dev_line(&p, &p.devs[i]);
	for (size_t i = 0; i < p.n_gpus; i++) {
		const struct p2ps_paste_gpu *g = &p.gpus[i];
		printf("gpu smi=%d cuda=%d bdf=%s%04x:%02x:%02x.%x name=\"%s\" bar1=%llu%s "
		       "vram=%llu%s "
		       "link=%u/x%u cur=%u/x%u display=%d\n",
		       g->smi, g->cuda, g->bdf_known ? "" : "?", g->bdf.domain, g->bdf.bus,
		       g->bdf.dev, g->bdf.fn, g->name, (unsigned long long)g->bar1,
		       g->bar1_known ? "" : "?", (unsigned long long)g->vram,
		       g->vram_known ? "" : "?", g->link_max.speed, g->link_max.width,
		       g->link_cur.speed, g->link_cur.width, g->display);
	}
	for (int k = 0; k < P2PS_PM_COUNT; k++) {
		const struct p2ps_paste_matrix *m = &p.m[k];
		if (!m->present)
			continue;
		printf("matrix %s n=%d rows=%d%s mode=%s\n", p2ps_paste_matrix_name(k), m->n,
		       m->rows, m->ragged ? " ragged" : "", m->mode);
		for (int i = 0; i < m->n; i++) {
			printf("  ");
			for (int j = 0; j < m->n; j++)
				printf(" %s",
				       m->cell[i * m->n + j][0] ? m->cell[i * m->n + j] : ".");
			printf("\n");
		}
	}
	for (size_t i = 0; i < p.n_events; i++) {
		const struct p2ps_paste_event *e = &p.events[i];
		printf("event %d line %d bdf=%s%s a=%llx b=%llx gpus=%d,%d detail=\"%s\"\n",
		       e->kind, e->from.line, e->bdf_known ? "" : "?", "", (unsigned long long)e->a,
		       (unsigned long long)e->b, e->gpu_a, e->gpu_b, e->detail);
	}
	const struct p2ps_paste_host *h = &p.host;
	printf("host cmdline=%d \"%.60s\" iommu known=%d present=%d kind=%s groups=%d domain=%s "
	       "driver=%s open=%d vm=%d %s\n",
	       h->cmdline_known, h->cmdline, h->iommu_known, h->iommu_present, h->iommu_kind,
	       h->iommu_groups, h->default_domain, h->driver_version, h->driver_open, h->vm,
	       h->hypervisor);
	printf("cuda test=%s result=%d waived=%d errors=%d memcpy=%.2f busbw=%.2f\n", p.cuda.test,
	       p.cuda.result, p.cuda.waived, p.cuda.verify_errors, p.cuda.memcpy_gbps,
	       p.cuda.nccl_busbw);
	evidence(&p);
	p2ps_paste_free(&p);
	return 0;
}
