/* SPDX-License-Identifier: MIT */
/* Small helpers of the fleet summary: growth, strings, the reading batch, output. */
#include "fleet_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fl_strdup(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

char *fl_printf(bool *oom, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0) {
		s = NULL;
		*oom = true;
	}
	va_end(ap);
	return s;
}

void fl_batch_skip(struct fl_batch *b, const char *source, enum p2ps_fleet_skip_kind kind,
                   const char *fmt, ...)
{
	if (!p2ps_grow((void **)&b->skips, &b->cap_skips, b->n_skips + 1, sizeof(*b->skips))) {
		b->oom = true;
		return;
	}
	struct p2ps_fleet_skip *s = &b->skips[b->n_skips];
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s->reason, fmt, ap) < 0)
		s->reason = NULL;
	va_end(ap);
	s->source = fl_strdup(source, &b->oom);
	s->kind = kind;
	if (!s->reason || !s->source) {
		b->oom = true;
		fl_skip_free(s);
		return;
	}
	b->n_skips++;
}

void fl_batch_host(struct fl_batch *b, struct p2ps_fleet_host *h)
{
	if (!p2ps_grow((void **)&b->hosts, &b->cap_hosts, b->n_hosts + 1, sizeof(*b->hosts))) {
		b->oom = true;
		fl_host_free(h);
		return;
	}
	b->hosts[b->n_hosts++] = *h;
	memset(h, 0, sizeof(*h));
}

bool fl_batch_merge(struct p2ps_fleet *f, struct fl_batch *b)
{
	struct p2ps_fleet_priv *p = f->priv;
	if (b->oom)
		return false;
	if (!p2ps_grow((void **)&f->hosts, &p->cap_hosts, f->n_hosts + b->n_hosts,
	               sizeof(*f->hosts)) ||
	    !p2ps_grow((void **)&f->skipped, &p->cap_skipped, f->n_skipped + b->n_skips,
	               sizeof(*f->skipped)))
		return false;
	if (b->n_hosts)
		memcpy(f->hosts + f->n_hosts, b->hosts, b->n_hosts * sizeof(*b->hosts));
	if (b->n_skips)
		memcpy(f->skipped + f->n_skipped, b->skips, b->n_skips * sizeof(*b->skips));
	f->n_hosts += b->n_hosts;
	f->n_skipped += b->n_skips;
	f->n_documents += b->n_hosts + b->n_skips;
	b->n_hosts = b->n_skips = 0;
	return true;
}

void fl_batch_free(struct fl_batch *b)
{
	for (size_t i = 0; i < b->n_hosts; i++)
		fl_host_free(&b->hosts[i]);
	for (size_t i = 0; i < b->n_skips; i++)
		fl_skip_free(&b->skips[i]);
	free(b->hosts);
	free(b->skips);
	memset(b, 0, sizeof(*b));
}

void fl_host_free(struct p2ps_fleet_host *h)
{
	char **strs[] = {&h->name,   &h->source, &h->boot_id, &h->time, &h->tool_version,
	                 &h->kernel, &h->driver, &h->backend, &h->iommu};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	for (size_t i = 0; i < h->n_gpus; i++) {
		free(h->gpus[i].bdf);
		free(h->gpus[i].model);
		free(h->gpus[i].iommu_mode);
	}
	for (size_t i = 0; i < h->n_causes; i++) {
		free(h->causes[i].code);
		free(h->causes[i].subject);
		free(h->causes[i].fix);
		free(h->causes[i].text);
	}
	for (size_t i = 0; i < h->n_gdr_reasons; i++)
		free(h->gdr_reasons[i].code);
	free(h->gpus);
	free(h->causes);
	free(h->gdr_reasons);
	memset(h, 0, sizeof(*h));
}

void fl_skip_free(struct p2ps_fleet_skip *s)
{
	free(s->source);
	free(s->reason);
	memset(s, 0, sizeof(*s));
}

void fl_emit(struct fl_out *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		o->sink(o->ctx, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return; /* the sink sees a shorter report; the caller checks its own buffer */
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->sink(o->ctx, big, (size_t)n);
	free(big);
}

void fl_emit_str(struct fl_out *o, const char *s)
{
	o->sink(o->ctx, s, strlen(s));
}

void fl_size_str(char *buf, size_t n, int64_t bytes)
{
	static const char units[] = "KMGTPE";
	if (bytes < 0) {
		snprintf(buf, n, "?");
		return;
	}
	double v = (double)bytes;
	int u = -1;
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(buf, n, "%lldB", (long long)bytes);
	else if (v == (double)(int64_t)v)
		snprintf(buf, n, "%lld%c", (long long)v, units[u]);
	else
		snprintf(buf, n, "%.1f%c", v, units[u]);
}

const char *fl_severity_name(enum p2ps_fleet_severity s)
{
	switch (s) {
	case P2PS_FLEET_SEV_BLOCKER: return "blocker";
	case P2PS_FLEET_SEV_UNKNOWN: return "unknown";
	case P2PS_FLEET_SEV_WARNING: return "warning";
	}
	return "?";
}

void fl_models_str(const struct p2ps_fleet_host *h, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < h->n_gpus; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(h->gpus[j].model, h->gpus[i].model);
		if (seen)
			continue;
		size_t count = 0;
		for (size_t j = i; j < h->n_gpus; j++)
			count += !strcmp(h->gpus[j].model, h->gpus[i].model);
		int w = snprintf(buf + len, n - len, "%s%zu x %s", len ? ", " : "", count,
		                 h->gpus[i].model);
		if (w < 0 || (size_t)w >= n - len)
			return; /* cut: the table column only needs the start */
		len += (size_t)w;
	}
	if (!h->n_gpus)
		snprintf(buf, n, "none");
}

const struct p2ps_fleet_gpu *fl_worst_bar1(const struct p2ps_fleet_host *h)
{
	const struct p2ps_fleet_gpu *unknown = NULL;
	for (size_t i = 0; i < h->n_gpus; i++) {
		if (h->gpus[i].bar1_covers_vram == 0)
			return &h->gpus[i];
		if (h->gpus[i].bar1_covers_vram < 0 && !unknown)
			unknown = &h->gpus[i];
	}
	if (unknown)
		return unknown;
	return h->n_gpus ? &h->gpus[0] : NULL;
}
