/* bar-inspect's VFIO options. Everything that opens a VFIO device or maps a BAR
 * happens only here and only behind an explicit option:
 *   --vfio BDF[,BDF]   open devices bound to vfio-pci (CAN RESET THEM)
 *   --read-reg BAR:OFF map one page of a BAR read-only and read one 32-bit register
 *   --map-peer A,B[,BAR] map B's BAR into A's IOMMU context (opens both via VFIO)
 */
#include "vfio_cli.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "p2pscope/analysis.h"

static int fail(char *err, size_t n, const char *fmt, const char *arg)
{
	snprintf(err, n, fmt, arg);
	return -1;
}

/* Appends a BDF to the --vfio list unless it is there already. */
static int add_device(struct bi_vfio_cli *v, const char *bdf, char *err, size_t n)
{
	size_t len = strlen(v->devices);
	if (len + strlen(bdf) + 2 > sizeof(v->devices))
		return fail(err, n, "--vfio: too many devices (%s)", bdf);
	char *hit = strstr(v->devices, bdf);
	if (hit && (hit[strlen(bdf)] == ',' || hit[strlen(bdf)] == '\0'))
		return 0;
	snprintf(v->devices + len, sizeof(v->devices) - len, "%s%s", len ? "," : "", bdf);
	return 0;
}

int bi_vfio_opt_vfio(struct bi_vfio_cli *v, const char *arg, char *err, size_t n)
{
	if (!arg[0])
		return fail(err, n, "--vfio needs BDF[,BDF...]%s", "");
	char buf[512];
	if (strlen(arg) >= sizeof(buf))
		return fail(err, n, "--vfio: list too long%s", "");
	snprintf(buf, sizeof(buf), "%s", arg);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct p2ps_bdf b;
		if (!strcmp(t, "all")) {
			if (add_device(v, "all", err, n) < 0)
				return -1;
			continue;
		}
		if (p2ps_bdf_parse(t, &b) != 0)
			return fail(err, n, "--vfio: '%s' is not a PCI address (DDDD:BB:DD.F)", t);
		char norm[16];
		if (add_device(v, p2ps_bdf_format(&b, norm, sizeof(norm)), err, n) < 0)
			return -1;
	}
	v->vfio = true;
	return 0;
}

int bi_vfio_opt_flow(struct bi_vfio_cli *v, const char *arg, char *err, size_t n)
{
	if (!strcmp(arg, "auto"))
		v->flow = P2PS_VFIO_FLOW_AUTO;
	else if (!strcmp(arg, "legacy"))
		v->flow = P2PS_VFIO_FLOW_LEGACY;
	else if (!strcmp(arg, "cdev"))
		v->flow = P2PS_VFIO_FLOW_CDEV;
	else
		return fail(err, n, "--vfio-flow '%s': expected auto, legacy or cdev", arg);
	return 0;
}

int bi_vfio_opt_read_reg(struct bi_vfio_cli *v, const char *arg, char *err, size_t n)
{
	struct p2ps_error e = {0};
	if (p2ps_vfio_reg_spec_parse(arg, &v->reg_bar, &v->reg_off, &e) != 0)
		return fail(err, n, "%s", e.msg);
	v->read_reg = true;
	return 0;
}

int bi_vfio_opt_map_peer(struct bi_vfio_cli *v, const char *arg, char *err, size_t n)
{
	char buf[96];
	if (strlen(arg) >= sizeof(buf))
		return fail(err, n, "--map-peer '%.40s...': too long", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	char *save = NULL;
	char *a = strtok_r(buf, ",", &save);
	char *b = strtok_r(NULL, ",", &save);
	char *bar = strtok_r(NULL, ",", &save);
	if (!a || !b || strtok_r(NULL, ",", &save))
		return fail(err, n, "--map-peer '%s': expected A,B or A,B,BAR", arg);
	struct p2ps_bdf ba, bb;
	if (p2ps_bdf_parse(a, &ba) != 0 || p2ps_bdf_parse(b, &bb) != 0)
		return fail(err, n, "--map-peer '%s': A and B must be PCI addresses", arg);
	p2ps_bdf_format(&ba, v->peer_a, sizeof(v->peer_a));
	p2ps_bdf_format(&bb, v->peer_b, sizeof(v->peer_b));
	v->peer_bar = -1;
	if (bar) {
		char *end;
		long x = strtol(bar, &end, 10);
		if (*end || x < 0 || x > 5)
			return fail(err, n, "--map-peer '%s': BAR must be 0..5", arg);
		v->peer_bar = (int)x;
	}
	if (add_device(v, v->peer_a, err, n) < 0 || add_device(v, v->peer_b, err, n) < 0)
		return -1;
	v->map_peer = true;
	return 0;
}

bool bi_vfio_wanted(const struct bi_vfio_cli *v)
{
	return v->vfio || v->read_reg || v->map_peer;
}

/* ---- output ---------------------------------------------------------------------- */

static void line_to_buf(void *ctx, const char *line)
{
	struct p2ps_strbuf *b = ctx;
	p2ps_strbuf_puts(b, line);
	p2ps_strbuf_puts(b, "\n");
}

struct reg_result {
	char bdf[16];
	bool ok;
	uint32_t value;
	char how[32];
	char error[P2PS_ERROR_MSG_MAX];
	bool nvidia_boot0;
	struct p2ps_nv_boot0 boot0;
};

static struct json_object *iommu_json(const struct p2ps_vfio_host *vh)
{
	struct json_object *o = json_object_new_object();
	const struct p2ps_vfio *s = &vh->session;
	json_object_object_add(o, "container_iommu_type",
	                       json_object_new_string(p2ps_vfio_iommu_type_name(s->iommu_type)));
	json_object_object_add(o, "api_version", json_object_new_int(s->api_version));
	struct json_object *ext = json_object_new_array();
	if (s->ext_type1)
		json_object_array_add(ext, json_object_new_string("Type1"));
	if (s->ext_type1v2)
		json_object_array_add(ext, json_object_new_string("Type1v2"));
	if (s->ext_noiommu)
		json_object_array_add(ext, json_object_new_string("no-IOMMU"));
	json_object_object_add(o, "extensions", ext);
	json_object_object_add(o, "known", json_object_new_boolean(vh->iommu_known));
	if (!vh->iommu_known) {
		json_object_object_add(o, "why", json_object_new_string(vh->iommu_why));
		return o;
	}
	char hex[24];
	snprintf(hex, sizeof(hex), "0x%" PRIx64, s->iommu.iova_pgsizes);
	json_object_object_add(o, "iova_pgsizes", json_object_new_string(hex));
	struct json_object *ranges = json_object_new_array();
	for (unsigned i = 0; i < s->iommu.n_ranges; i++) {
		struct json_object *r = json_object_new_object();
		snprintf(hex, sizeof(hex), "0x%" PRIx64, s->iommu.ranges[i].start);
		json_object_object_add(r, "start", json_object_new_string(hex));
		snprintf(hex, sizeof(hex), "0x%" PRIx64, s->iommu.ranges[i].end);
		json_object_object_add(r, "end", json_object_new_string(hex));
		json_object_array_add(ranges, r);
	}
	json_object_object_add(o, "iova_ranges", ranges);
	if (s->iommu.has_dma_avail)
		json_object_object_add(o, "dma_avail", json_object_new_int64(s->iommu.dma_avail));
	return o;
}

static struct json_object *reg_json(const struct reg_result *r, unsigned bar, uint64_t off)
{
	struct json_object *o = json_object_new_object();
	char hex[24];
	json_object_object_add(o, "bdf", json_object_new_string(r->bdf));
	json_object_object_add(o, "bar", json_object_new_int((int)bar));
	snprintf(hex, sizeof(hex), "0x%" PRIx64, off);
	json_object_object_add(o, "offset", json_object_new_string(hex));
	if (!r->ok) {
		json_object_object_add(o, "error", json_object_new_string(r->error));
		return o;
	}
	snprintf(hex, sizeof(hex), "0x%08x", r->value);
	json_object_object_add(o, "value", json_object_new_string(hex));
	json_object_object_add(o, "access", json_object_new_string(r->how));
	if (r->nvidia_boot0)
		json_object_object_add(o, "nv_pmc_boot_0", p2ps_nv_boot0_json(&r->boot0));
	return o;
}

/* Attaches "vfio" to each shown device object of the normal report, and adds
 * the top-level "vfio" object (always present with --vfio). */
static void json_attach(struct json_object *root, const struct bi_vfio_cli *v,
                        const struct p2ps_vfio_host *vh, const struct reg_result *regs,
                        size_t n_regs, const struct p2ps_vfio_peer_map *pm, const char *pm_err)
{
	struct json_object *top = json_object_new_object();
	struct json_object *devs = NULL;
	if (json_object_object_get_ex(root, "devices", &devs) &&
	    json_object_is_type(devs, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(devs); i++) {
			struct json_object *d = json_object_array_get_idx(devs, i);
			struct json_object *b = NULL;
			if (!json_object_object_get_ex(d, "bdf", &b))
				continue;
			const struct p2ps_vfio_dev_report *r =
			        p2ps_vfio_host_report(vh, json_object_get_string(b));
			if (r)
				json_object_object_add(d, "vfio", p2ps_vfio_report_json(r));
		}
	}
	if (vh) {
		json_object_object_add(top, "iommu", iommu_json(vh));
		struct json_object *arr = json_object_new_array();
		for (unsigned i = 0; i < vh->n_devs; i++) {
			struct json_object *o = p2ps_vfio_report_json(&vh->reports[i]);
			json_object_object_add(o, "bdf",
			                       json_object_new_string(vh->reports[i].bdf));
			json_object_array_add(arr, o);
		}
		json_object_object_add(top, "devices", arr);
	}
	if (v->read_reg) {
		struct json_object *arr = json_object_new_array();
		for (size_t i = 0; i < n_regs; i++)
			json_object_array_add(arr, reg_json(&regs[i], v->reg_bar, v->reg_off));
		json_object_object_add(top, "read_reg", arr);
	}
	if (v->map_peer) {
		if (pm_err) {
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "a", json_object_new_string(v->peer_a));
			json_object_object_add(o, "b", json_object_new_string(v->peer_b));
			json_object_object_add(o, "result", json_object_new_string("error"));
			json_object_object_add(o, "error", json_object_new_string(pm_err));
			json_object_object_add(top, "map_peer", o);
		} else {
			json_object_object_add(top, "map_peer", p2ps_vfio_peer_map_json(pm));
		}
	}
	json_object_object_add(root, "vfio", top);
}

static void text_sections(struct p2ps_strbuf *out, const struct bi_vfio_cli *v,
                          const struct p2ps_vfio_host *vh, const struct reg_result *regs,
                          size_t n_regs, const struct p2ps_vfio_peer_map *pm, const char *pm_err)
{
	if (vh && vh->n_devs) {
		p2ps_strbuf_puts(out, "\nVFIO\n");
		const struct p2ps_vfio *s = &vh->session;
		if (s->container_fd >= 0)
			p2ps_strbuf_printf(
			        out, "  container: API %d, extensions%s%s%s, IOMMU model %s\n",
			        s->api_version, s->ext_type1 ? " Type1" : "",
			        s->ext_type1v2 ? " Type1v2" : "", s->ext_noiommu ? " no-IOMMU" : "",
			        p2ps_vfio_iommu_type_name(s->iommu_type));
		if (vh->iommu_known) {
			p2ps_strbuf_printf(out,
			                   "  IOMMU page sizes 0x%" PRIx64 ", %u IOVA range%s:",
			                   s->iommu.iova_pgsizes, s->iommu.n_ranges,
			                   s->iommu.n_ranges == 1 ? "" : "s");
			for (unsigned i = 0; i < s->iommu.n_ranges; i++)
				p2ps_strbuf_printf(out, " 0x%" PRIx64 "-0x%" PRIx64,
				                   s->iommu.ranges[i].start,
				                   s->iommu.ranges[i].end);
			p2ps_strbuf_puts(out, "\n");
		} else if (vh->iommu_why[0]) {
			p2ps_strbuf_printf(out, "  IOMMU info: %s\n", vh->iommu_why);
		}
		for (unsigned i = 0; i < vh->n_devs; i++) {
			p2ps_strbuf_printf(out, "%s\n", vh->reports[i].bdf);
			p2ps_vfio_report_text(&vh->reports[i], "  ", line_to_buf, out);
		}
	}
	for (size_t i = 0; v->read_reg && i < n_regs; i++) {
		const struct reg_result *r = &regs[i];
		if (!r->ok) {
			p2ps_strbuf_printf(out, "\nread-reg: %s\n", r->error);
			continue;
		}
		p2ps_strbuf_printf(out, "\n%s BAR%u+0x%" PRIx64 " = 0x%08x (%s, read-only)\n",
		                   r->bdf, v->reg_bar, v->reg_off, r->value, r->how);
		if (r->nvidia_boot0)
			p2ps_nv_boot0_text(&r->boot0, "  ", line_to_buf, out);
	}
	if (v->map_peer) {
		p2ps_strbuf_puts(out, "\n");
		if (pm_err)
			p2ps_strbuf_printf(out, "map-peer %s -> %s: %s\n", v->peer_b, v->peer_a,
			                   pm_err);
		else
			p2ps_vfio_peer_map_text(pm, "", line_to_buf, out);
	}
}

/* ---- the run ------------------------------------------------------------------------ */

/* Reads the register on one device, through VFIO when the device is open
 * there, else through sysfs resourceN. */
static void read_one(const struct bi_vfio_cli *v, struct p2ps_vfio_host *vh,
                     const struct p2ps_dev *dev, struct reg_result *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->bdf, sizeof(r->bdf), "%s", dev->bdf_str);
	struct p2ps_error e = {0};
	struct p2ps_vfio_device *vd = vh ? p2ps_vfio_host_device(vh, dev->bdf_str) : NULL;
	if (p2ps_vfio_read_reg(vd, NULL, dev->bdf_str, v->reg_bar, v->reg_off, &r->value, r->how,
	                       sizeof(r->how), &e) != 0) {
		snprintf(r->error, sizeof(r->error), "%s", e.msg);
		return;
	}
	r->ok = true;
	/* NV_PMC_BOOT_0 lives at BAR0 + 0 on every NVIDIA GPU since NV1. */
	if (dev->vendor_id == 0x10de && v->reg_bar == 0 && v->reg_off == 0) {
		r->nvidia_boot0 = true;
		p2ps_nv_boot0_decode(r->value, &r->boot0);
	}
}

int bi_vfio_run(struct bi_vfio_cli *v, struct p2ps_host_source *src,
                const struct p2ps_render_opts *ro, const struct p2ps_analysis_opts *ao, bool json,
                bool dot)
{
	if (dot)
		return bi_die("--dot cannot be combined with --vfio, --read-reg or --map-peer");
	if (v->map_peer && !v->vfio)
		v->vfio = true; /* --map-peer implies opening A and B through VFIO */
	if ((v->vfio || v->map_peer) && src->kind != P2PS_HOST_LIVE)
		return bi_die("--vfio and --map-peer work on this host only, not with --root or "
		              "--lspci-dump");
	if (v->read_reg && src->kind != P2PS_HOST_LIVE)
		return bi_die(
		        "--read-reg reads this host's hardware; it cannot be combined with --root "
		        "or --lspci-dump");
	if (v->read_reg && !v->vfio && !ro->filter)
		return bi_die(
		        "--read-reg needs a device: -s SLOT (sysfs resourceN, root) or --vfio BDF");

	struct p2ps_error err = {0};
	struct p2ps_host host;
	struct p2ps_vfio_host *vh = NULL;
	if (v->vfio) {
		vh = calloc(1, sizeof(*vh));
		if (!vh)
			return bi_die("out of memory");
		src->vfio_bdfs = v->devices;
		struct p2ps_vfio_opts vo = {.flow = v->flow};
		if (p2ps_vfio_host_load(&host, src, &vo, vh, &err) < 0) {
			free(vh);
			return bi_die(err.msg);
		}
	} else if (p2ps_host_load(&host, src, &err) < 0) {
		return bi_die(err.msg);
	}

	/* Registers: every --vfio device, or every device -s selects. */
	struct reg_result *regs = NULL;
	size_t n_regs = 0;
	if (v->read_reg) {
		regs = calloc(host.n_devs ? host.n_devs : 1, sizeof(*regs));
		for (size_t i = 0; regs && i < host.n_devs; i++) {
			const struct p2ps_dev *dev = &host.devs[i];
			/* With --vfio: its devices (narrowed by -s if given); else -s. */
			bool pick = (!ro->filter || p2ps_slot_match(ro->filter, &dev->bdf)) &&
			            (!vh || p2ps_vfio_host_device(vh, dev->bdf_str) != NULL);
			if (pick)
				read_one(v, vh, dev, &regs[n_regs++]);
		}
	}

	struct p2ps_vfio_peer_map pm;
	char pm_err[P2PS_ERROR_MSG_MAX] = "";
	if (v->map_peer) {
		struct p2ps_error e = {0};
		struct p2ps_vfio_device *a = p2ps_vfio_host_device(vh, v->peer_a);
		struct p2ps_vfio_device *b = p2ps_vfio_host_device(vh, v->peer_b);
		if (p2ps_vfio_map_peer(a, b, v->peer_bar, &pm, &e) != 0)
			snprintf(pm_err, sizeof(pm_err), "%s", e.msg);
	}

	int status = 0;
	struct p2ps_analysis an;
	struct p2ps_strbuf out = {0};
	if (p2ps_analysis_run_opts(&host, ao, &an, &err) < 0) {
		status = bi_die(err.msg);
		goto done;
	}
	if (json) {
		struct json_object *root = NULL;
		if (p2ps_render_json(&an, ro, &root, &err) < 0) {
			status = bi_die(err.msg);
			goto done_an;
		}
		json_attach(root, v, vh, regs, n_regs, &pm, pm_err[0] ? pm_err : NULL);
		int rc = p2ps_render_json_append(root, &out, &err);
		json_object_put(root);
		if (rc < 0) {
			status = bi_die(err.msg);
			goto done_an;
		}
	} else {
		if (p2ps_render_text(&an, ro, &out, &err) < 0) {
			status = bi_die(err.msg);
			goto done_an;
		}
		text_sections(&out, v, vh, regs, n_regs, &pm, pm_err[0] ? pm_err : NULL);
	}
	status = bi_write_report(&out);
	/* A register that could not be read, or a map-peer that could not even be
	 * attempted, is an error of the run (the report above still says why). */
	for (size_t i = 0; status == 0 && i < n_regs; i++)
		if (!regs[i].ok)
			status = bi_die(regs[i].error);
	if (status == 0 && v->read_reg && n_regs == 0)
		status = bi_die("--read-reg: no device matched");
	if (status == 0 && pm_err[0])
		status = bi_die(pm_err);
done_an:
	p2ps_analysis_free(&an);
done:
	p2ps_strbuf_free(&out);
	free(regs);
	if (vh) {
		p2ps_vfio_host_close(vh);
		free(vh);
	}
	p2ps_host_free(&host);
	return status;
}
