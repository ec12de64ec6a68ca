/* SPDX-License-Identifier: MIT */
/* bar-inspect's VFIO options (vfio_opts.h):
 *   --vfio BDF[,BDF]|all  open devices bound to vfio-pci (CAN RESET THEM)
 *   --read-reg BAR:OFF    map one page of a BAR read-only and read one 32-bit register
 *   --map-peer A,B[,BAR]  map B's BAR into A's IOMMU context (opens both via VFIO)
 */
#include "vfio_opts.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "p2pscope/parse.h"
#include "p2pscope/vfio.h"

struct vfio_arg {
	struct bi_vfio_opts *v;
	char *err;
	size_t n;
};

/* Appends a target unless it is there already. */
static int add_target(struct bi_vfio_opts *v, bool all, const struct p2ps_bdf *bdf, char *err,
                      size_t n)
{
	for (size_t i = 0; i < v->n_targets; i++)
		if (v->targets[i].all_bound == all &&
		    (all || p2ps_bdf_equal(&v->targets[i].bdf, bdf)))
			return 0;
	if (v->n_targets == BI_MAX_VFIO_TARGETS) {
		char b[P2PS_BDF_STR_MAX];
		snprintf(err, n, "--vfio: too many devices (%s)",
		         all ? "all" : p2ps_bdf_format(bdf, b, sizeof(b)));
		return -1;
	}
	v->targets[v->n_targets].all_bound = all;
	if (!all)
		v->targets[v->n_targets].bdf = *bdf;
	v->n_targets++;
	return 0;
}

static int vfio_token(void *ctx, const char *t)
{
	struct vfio_arg *a = ctx;
	struct p2ps_bdf b;
	if (!strcmp(t, "all"))
		return add_target(a->v, true, NULL, a->err, a->n);
	if (p2ps_bdf_parse(t, &b) != 0) {
		snprintf(a->err, a->n, "--vfio: '%s' is not a PCI address (DDDD:BB:DD.F)", t);
		return -1;
	}
	return add_target(a->v, false, &b, a->err, a->n);
}

int bi_vfio_opt_vfio(struct bi_vfio_opts *v, const char *arg, char *err, size_t n)
{
	if (!arg[0]) {
		snprintf(err, n, "--vfio needs BDF[,BDF...]");
		return -1;
	}
	struct vfio_arg a = {v, err, n};
	if (bi_each_token("--vfio", arg, vfio_token, &a, err, n))
		return -1;
	v->vfio = true;
	return 0;
}

int bi_vfio_opt_flow(struct bi_vfio_opts *v, const char *arg, char *err, size_t n)
{
	static const enum p2ps_vfio_flow flows[] = {P2PS_VFIO_FLOW_AUTO, P2PS_VFIO_FLOW_LEGACY,
	                                            P2PS_VFIO_FLOW_CDEV};
	for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++)
		if (!strcmp(arg, p2ps_vfio_flow_name(flows[i]))) {
			v->flow = flows[i];
			return 0;
		}
	snprintf(err, n, "--vfio-flow '%s': expected auto, legacy or cdev", arg);
	return -1;
}

int bi_vfio_opt_read_reg(struct bi_vfio_opts *v, const char *arg, char *err, size_t n)
{
	struct p2ps_error e = {0};
	if (p2ps_vfio_reg_spec_parse(arg, &v->asked.reg_bar, &v->asked.reg_off, &e) != 0) {
		snprintf(err, n, "--read-reg %s", e.msg);
		return -1;
	}
	v->asked.read_reg = true;
	return 0;
}

int bi_vfio_opt_map_peer(struct bi_vfio_opts *v, const char *arg, char *err, size_t n)
{
	char buf[96];
	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, n, "--map-peer '%.40s...': too long", arg);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	char *save = NULL;
	char *a = strtok_r(buf, ",", &save);
	char *b = strtok_r(NULL, ",", &save);
	char *bar = strtok_r(NULL, ",", &save);
	uint64_t x = 0;
	if (!a || !b || strtok_r(NULL, ",", &save))
		snprintf(err, n, "--map-peer '%s': expected A,B or A,B,BAR", arg);
	else if (p2ps_bdf_parse(a, &v->asked.peer_a) != 0 ||
	         p2ps_bdf_parse(b, &v->asked.peer_b) != 0)
		snprintf(err, n, "--map-peer '%s': A and B must be PCI addresses", arg);
	else if (bar && p2ps_parse_uint(bar, 5, &x) != 0)
		snprintf(err, n, "--map-peer '%s': BAR must be 0..5", arg);
	else
		err[0] = '\0';
	if (err[0])
		return -1;
	v->asked.peer_bar = bar ? (int)x : -1;
	if (add_target(v, false, &v->asked.peer_a, err, n) < 0 ||
	    add_target(v, false, &v->asked.peer_b, err, n) < 0)
		return -1;
	v->asked.map_peer = true;
	return 0;
}

static int refuse(char *err, size_t n, const char *msg)
{
	snprintf(err, n, "%s", msg);
	return -1;
}

int bi_vfio_request(struct bi_vfio_opts *v, struct p2ps_host_source *src, bool dot,
                    const struct p2ps_slot_filter *filter, struct p2ps_vfio_request *req, char *err,
                    size_t n)
{
	if (!v->vfio && !v->asked.read_reg && !v->asked.map_peer)
		return 0;
	if (dot)
		return refuse(err, n,
		              "--dot cannot be combined with --vfio, --read-reg or --map-peer");
	if (v->asked.map_peer)
		v->vfio = true; /* --map-peer implies opening A and B through VFIO */
	if (v->vfio && src->kind != P2PS_HOST_LIVE)
		return refuse(err, n,
		              "--vfio and --map-peer work on this host only, not with --root, "
		              "--lspci-dump or --paste");
	if (v->asked.read_reg && src->kind != P2PS_HOST_LIVE)
		return refuse(err, n,
		              "--read-reg reads this host's hardware; it cannot be combined with "
		              "--root, --lspci-dump or --paste");
	if (v->asked.read_reg && !v->vfio && !filter)
		return refuse(
		        err, n,
		        "--read-reg needs a device: -s SLOT (sysfs resourceN, root) or --vfio "
		        "BDF");
	*req = (struct p2ps_vfio_request){
	        .targets = v->targets,
	        .n_targets = v->vfio ? v->n_targets : 0,
	        .flow = v->flow,
	        .asked = v->asked,
	        .reg_filter = filter,
	};
	if (v->vfio)
		src->kind = P2PS_HOST_VFIO;
	src->vfio = req;
	return 0;
}

int bi_vfio_status(const struct p2ps_host *host)
{
	const struct p2ps_vfio_facts *f = host->vfio;
	if (!f)
		return 0;
	/* A register that could not be read, or a map-peer that could not even be
	 * attempted, is an error of the run (the report still says why). */
	for (size_t i = 0; i < f->n_regs; i++)
		if (!f->regs[i].ok)
			return bi_die(f->regs[i].error);
	if (f->asked.read_reg && f->n_regs == 0)
		return bi_die("--read-reg: no device matched");
	if (f->asked.map_peer && f->peer_error[0])
		return bi_die(f->peer_error);
	return 0;
}
