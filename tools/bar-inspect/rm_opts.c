/* SPDX-License-Identifier: MIT */
/* --nvidia-facts rm|nvml|none, --record FILE (save the RM API session as a capture) and
 * --replay FILE (answer the RM API from such a capture: with --root, the snapshot of the
 * same host, the report is the live one without a GPU). */
#include "rm_opts.h"

#include "p2pscope/host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bi_rm_opt_facts(struct bi_rm_opts *o, const char *arg, char *err, size_t err_size)
{
	if (strcmp(arg, "rm") && strcmp(arg, "nvml") && strcmp(arg, "none")) {
		snprintf(err, err_size, "--nvidia-facts: '%.32s' is none of rm, nvml, none", arg);
		return -1;
	}
	o->facts = arg;
	return 0;
}

static enum p2ps_nvidia_facts facts_mode(const char *s)
{
	if (!s)
		return P2PS_NV_FACTS_AUTO;
	if (!strcmp(s, "rm"))
		return P2PS_NV_FACTS_RM;
	return strcmp(s, "nvml") ? P2PS_NV_FACTS_NONE : P2PS_NV_FACTS_NVML;
}

int bi_rm_begin(struct bi_rm_opts *o, struct p2ps_host_source *src, const char *note, char *err,
                size_t err_size)
{
	src->nvidia_facts = facts_mode(o->facts);
	if (!o->record && !o->replay)
		return 0;
	const char *bad = o->record && o->replay ? "--record and --replay exclude each other"
	                  : o->facts && strcmp(o->facts, "rm")
	                          ? "--record and --replay are of the RM API: --nvidia-facts rm"
	                  : o->replay && src->kind != P2PS_HOST_SNAPSHOT
	                          ? "--replay needs --root SNAPSHOT (the capture's host)"
	                  : o->record && src->kind != P2PS_HOST_LIVE
	                          ? "--record reads this host's driver: no --root, --lspci-dump "
	                            "or --paste"
	                          : NULL;
	if (bad) {
		snprintf(err, err_size, "%s", bad);
		return -1;
	}
	struct p2ps_error e = {0};
	if (o->replay) {
		if (p2ps_rm_capture_load(o->replay, &o->cap, &e)) {
			snprintf(err, err_size, "--replay %s", e.msg);
			return -1;
		}
		if (p2ps_rm_replay_start(&o->rep, &o->cap, &o->sys, &e)) {
			snprintf(err, err_size, "%s", e.msg);
			return -1;
		}
	} else {
		p2ps_rm_sys_linux(&o->inner, &o->linux_ctx, "", -1);
		if (p2ps_rm_record_start(&o->rec, &o->inner, o->record, note, &o->sys, &e)) {
			snprintf(err, err_size, "%s", e.msg);
			return -1;
		}
	}
	src->rm_sys = &o->sys;
	return 0;
}

int bi_rm_end(struct bi_rm_opts *o, const struct p2ps_host *host, char *err, size_t err_size)
{
	struct p2ps_error e = {0};
	int rc = 0;
	if (o->rep && host && host->nvidia.rm.n_unmatched) {
		const struct p2ps_bdf *b = &host->nvidia.rm.unmatched[0];
		snprintf(err, err_size,
		         "--replay %s: the capture's GPU %04x:%02x:%02x.%x is not in the snapshot "
		         "(%d of its GPUs are not: --root must be the snapshot of the same host)",
		         o->replay, b->domain, b->bus, b->dev, b->fn, host->nvidia.rm.n_unmatched);
		rc = -1;
	}
	if (o->rec && p2ps_rm_record_finish(o->rec, &e)) {
		snprintf(err, err_size, "--record: %s", e.msg);
		rc = -1;
	}
	o->rec = NULL;
	if (o->rep && p2ps_rm_replay_finish(o->rep, &e) && rc == 0) {
		snprintf(err, err_size, "--replay: %s", e.msg);
		rc = -1;
	}
	o->rep = NULL;
	p2ps_rm_capture_cleanup(&o->cap);
	return rc;
}
