/* SPDX-License-Identifier: MIT */
/* pte-decode encode, decode (of values), p2p, formats: options into requests to libgmmu,
 * results through its renderings. */
#include "pte_decode.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/parse.h"

struct value_opts {
	struct pd_common c; /* first: the shared handlers take it */
	bool as_written;
	bool quiet;
	bool markdown; /* formats */
	/* p2p */
	struct gmmu_p2p_request rq;
	const char *kind;
	bool have_mode, have_bar1, have_fabric, have_peer;
	bool vol, cached;
	/* the driver row: --driver, --flavor, --path, --start-offset, --iova */
	unsigned series;
	enum p2ps_nv_flavor flavor;
	enum gmmu_bar1_path path;
	const struct p2ps_nv_driver *drv; /* the driver table's row for series and flavor */
	char assumed[224];                /* the fallback rule's line when drv is another's */
	uint64_t iova;
	bool have_series, have_flavor, have_path, have_start, have_iova;
};

/* "bad --offset: 0x1z" style: the option's own words, then the argument. */
static int bad_arg(const char *what, const char *arg, char *err, size_t err_size)
{
	snprintf(err, err_size, "%s %s", what, arg);
	return -1;
}

static int opt_mode(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	struct p2ps_error e = {0};
	o->have_mode = true;
	return pd_lib_err(gmmu_p2p_mode_parse(arg, &o->rq.mode, &e), &e, err, err_size);
}

static int opt_form(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	struct p2ps_error e = {0};
	return pd_lib_err(gmmu_bar1_form_parse(arg, &o->rq.bar1_form, &e), &e, err, err_size);
}

static int opt_peer(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	uint64_t v;
	if (p2ps_parse_uint(arg, UINT32_MAX, &v))
		return bad_arg("bad --peer (0..0xffffffff):", arg, err, err_size);
	o->rq.peer_index = (uint32_t)v;
	o->have_peer = true;
	return 0;
}

/* An address option into *dst, noting that it was given. */
static int address_arg(const char *arg, uint64_t *dst, bool *given, const char *what, char *err,
                       size_t err_size)
{
	*given = true;
	return p2ps_parse_uint(arg, UINT64_MAX, dst) ? bad_arg(what, arg, err, err_size) : 0;
}

static int opt_bar1(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	return address_arg(arg, &o->rq.bar1_base, &o->have_bar1, "bad --bar1 address:", err,
	                   err_size);
}

static int opt_driver(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	uint64_t v;
	if (p2ps_parse_uint(arg, 9999, &v))
		return bad_arg("bad --driver (a driver series: the first number of its version):",
		               arg, err, err_size);
	o->series = (unsigned)v;
	o->have_series = true;
	return 0;
}

static int opt_flavor(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	struct p2ps_error e = {0};
	o->have_flavor = true;
	return pd_lib_err(p2ps_nv_flavor_parse(arg, strlen(arg), &o->flavor, &e), &e, err,
	                  err_size);
}

static int opt_path(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	struct p2ps_error e = {0};
	o->have_path = true;
	return pd_lib_err(gmmu_bar1_path_parse(arg, &o->path, &e), &e, err, err_size);
}

static int opt_start(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	o->have_start = true;
	if (p2ps_parse_size(arg, &o->rq.bar1_start))
		return bad_arg("bad --start-offset:", arg, err, err_size);
	return 0;
}

static int opt_iova(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	return address_arg(arg, &o->iova, &o->have_iova, "bad --iova address:", err, err_size);
}

static int opt_fabric(void *ctx, const char *arg, char *err, size_t err_size)
{
	struct value_opts *o = ctx;
	return address_arg(arg, &o->rq.fabric_base, &o->have_fabric,
	                   "bad --fabric-base address:", err, err_size);
}

static int opt_offset(void *ctx, const char *arg, char *err, size_t err_size)
{
	if (p2ps_parse_size(arg, &((struct value_opts *)ctx)->rq.offset))
		return bad_arg("bad --offset:", arg, err, err_size);
	return 0;
}

static int opt_page_size(void *ctx, const char *arg, char *err, size_t err_size)
{
	if (p2ps_parse_size(arg, &((struct value_opts *)ctx)->rq.page_size))
		return bad_arg("bad --page-size:", arg, err, err_size);
	return 0;
}

#define FLAG(member) P2PS_OPT_FLAG(struct value_opts, member)
#define OPT_AS_WRITTEN(what)                                                                       \
	{                                                                                          \
		"as-written", 0, NULL, what, FLAG(as_written)                                      \
	}

/* The start of every value command: its options into o, and the format unless the command
 * needs none. Returns the index of the first operand, or -1 with *status the exit status
 * (0 after --help, 2 after an error line). */
static int begin(struct value_opts *o, const struct p2ps_opts *t, const char *usage,
                 bool need_format, int argc, char **argv, int *status)
{
	int first = pd_parse(t, usage, argc, argv, &o->c);
	*status = first < 0 ? PD_EXIT_BAD : 0;
	if (first <= 0)
		return -1;
	if (need_format && pd_need_format(&o->c)) {
		*status = PD_EXIT_BAD;
		return -1;
	}
	return first;
}

/* ---- encode ---------------------------------------------------------------------------- */

static const struct p2ps_opt encode_rows[] = {
        PD_OPT_CHIP,
        PD_OPT_FORMAT,
        PD_OPT_ENTRY("the entry to build (default pte)"),
        OPT_AS_WRITTEN("store what a release driver build stores for a value that does not\n"
                       "fit (unmasked values smear into neighbouring bits) instead of\n"
                       "refusing it, as the driver's assertion does"),
        PD_OPT_HELP,
};
const struct p2ps_opts pd_opts_encode = {P2PS_OPTS_ROWS(encode_rows), .help_width = 24};

static const char encode_usage[] =
        "usage: pte-decode encode (--chip CHIP | --format FMT) [--entry pte|pde|dual-pde]\n"
        "                         [--as-written] FIELD=VALUE ...\n"
        "Writes the fields in order into an all-zero entry and prints it as 0x + 16 hex\n"
        "digits (32 for a dual PDE, bit 127 first). Values: hwref names (PEER_MEMORY, TRUE,\n"
        "GENERIC_MEMORY ...) or numbers; address fields take byte addresses. Example:\n"
        "  pte-decode encode --chip AD102 VALID=TRUE APERTURE=PEER_MEMORY ADDRESS_VID=0x1000 \\\n"
        "      ADDRESS_VID_PEER=1 KIND=GENERIC_MEMORY\n"
        "options:\n";

/* One FIELD=VALUE operand into w. */
static int set_field(const struct value_opts *o, const struct gmmu_entry_format *ef,
                     const char *arg, uint64_t w[2])
{
	char field[64];
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	if (!eq || n == 0 || n >= sizeof(field))
		return pd_fail(o->c.cmd, "expected FIELD=VALUE, got %s", arg);
	memcpy(field, arg, n);
	field[n] = '\0';
	struct p2ps_error err = {0};
	enum gmmu_write_mode mode = o->as_written ? GMMU_WRITE_AS_WRITTEN : GMMU_WRITE_CHECKED;
	if (gmmu_entry_set(ef, field, eq + 1, mode, w, &err))
		return pd_fail(o->c.cmd, "%s", err.msg);
	return 0;
}

int pd_cmd_encode(int argc, char **argv)
{
	struct value_opts o = {.c = {.cmd = "encode", .entry = GMMU_ENTRY_PTE}};
	int status, first = begin(&o, &pd_opts_encode, encode_usage, true, argc, argv, &status);
	if (first < 0)
		return status;
	if (first >= argc)
		return pd_fail(o.c.cmd, "no FIELD=VALUE given");
	const struct gmmu_entry_format *ef = gmmu_format_entry(o.c.fmt, o.c.entry);
	uint64_t w[2] = {0, 0};
	for (int i = first; i < argc; i++)
		if (set_field(&o, ef, argv[i], w))
			return PD_EXIT_BAD;
	gmmu_render_entry_hex(pd_out_begin(), ef, w);
	return pd_out_end(o.c.cmd);
}

/* ---- decode (values) ------------------------------------------------------------------- */

static const struct p2ps_opt decode_rows[] = {
        PD_OPT_CHIP,
        PD_OPT_FORMAT,
        PD_OPT_ENTRY("what the values are (default pte)"),
        PD_OPT_JSON("one JSON object per entry, one per line"),
        PD_OPT_HELP,
};
const struct p2ps_opts pd_opts_decode = {P2PS_OPTS_ROWS(decode_rows), .help_width = 24};

static const char decode_usage[] =
        "usage: pte-decode decode (--chip CHIP | --format FMT) [--entry pte|pde|dual-pde]\n"
        "                         [--json] VALUE ...\n"
        "VALUE: 0x-hex ('_' may group the digits; up to 32 digits for a dual PDE, bit 127\n"
        "first) or decimal. Prints the fields of the entry's aperture; bits set outside them\n"
        "are shown as UNEXPLAINED_BITS. Dumps: pte-decode decode --raw|--text|--mem ... (see\n"
        "its --help).\n"
        "options:\n";

int pd_cmd_decode_values(int argc, char **argv)
{
	struct value_opts o = {.c = {.cmd = "decode", .entry = GMMU_ENTRY_PTE}};
	int status, first = begin(&o, &pd_opts_decode, decode_usage, true, argc, argv, &status);
	if (first < 0)
		return status;
	if (first >= argc)
		return pd_fail(o.c.cmd, "no VALUE given");
	const struct gmmu_entry_format *ef = gmmu_format_entry(o.c.fmt, o.c.entry);
	/* Parse everything first so that bad input prints nothing on stdout. */
	for (int i = first; i < argc; i++) {
		uint64_t w[2];
		if (p2ps_parse_wide(argv[i], ef->size * 8u, w))
			return pd_fail(o.c.cmd,
			               "bad %s value '%s' (0x + up to %u hex digits, or decimal)",
			               gmmu_entry_type_name(o.c.entry), argv[i], ef->size * 2u);
	}
	struct gmmu_out *out = pd_out_begin();
	struct p2ps_error err = {0};
	for (int i = first; i < argc; i++) {
		uint64_t w[2];
		struct gmmu_decoded d;
		p2ps_parse_wide(argv[i], ef->size * 8u, w);
		gmmu_entry_decode(ef, w, &d);
		if (o.c.json) {
			if (gmmu_render_decoded_json(out, o.c.fmt, &d, &err))
				return pd_out_end(o.c.cmd), pd_fail(o.c.cmd, "%s", err.msg);
			continue;
		}
		if (i > first)
			gmmu_out_put(out, "\n", 1);
		gmmu_render_decoded(out, &d);
	}
	return pd_out_end(o.c.cmd);
}

/* ---- p2p ------------------------------------------------------------------------------- */

static const struct p2ps_opt p2p_rows[] = {
        PD_OPT_CHIP,
        PD_OPT_FORMAT,
        {"mode", 0, "stock|nvlink|bar1",
         "stock: the stock driver's PCIe peer entry; nvlink: its NVLink peer entry;\n"
         "bar1: a BAR1-P2P entry (required)",
         P2PS_OPT_CALL(opt_mode)},
        {"peer", 0, "N",
         "bus peer id written by stock/nvlink (default 0); with bar1 (patch forms):\n"
         "also write it, as a port that kept the stock peer write does (v2: the\n"
         "address write then overwrites it; v3: PEER_ID stays)",
         P2PS_OPT_CALL(opt_peer)},
        {"bar1", 0, "ADDR",
         "bar1: the peer's BAR1 bus address (required unless --iova; stock form: its\n"
         "DMA address as the mapping GPU sees it)",
         P2PS_OPT_CALL(opt_bar1)},
        {"bar1-form", 0, "FORM",
         "bar1: patch (default: the kernel patch, SYSTEM_NON_COHERENT),\n"
         "patch-as-published (its v3 branch keeps APERTURE=PEER), tinygrad (userspace\n"
         "driver: SYSTEM_COHERENT, access counting on), stock (GH100: SYS_NONCOH,\n"
         "Blackwell: SYS_COH)",
         P2PS_OPT_CALL(opt_form)},
        {"driver", 0, "SERIES",
         "the entry as driver series SERIES writes it: the BAR1-P2P row of (series,\n"
         "--flavor, --path, generation) in the driver table (a series without a row is\n"
         "modelled by the nearest older one, said \"assumed\"); with stock/nvlink, the\n"
         "flavor's gmmuFmtPtePhysAddrFld(PEER) patch where it has one",
         P2PS_OPT_CALL(opt_driver)},
        {"flavor", 0, "FLAVOR",
         "with --driver: stock (default), tinygrad, aikitoria, duanyll (the P2P forks'\n"
         "branches)",
         P2PS_OPT_CALL(opt_flavor)},
        {"path", 0, "uvm|rm",
         "with --driver: uvm (default: CUDA's peer mappings, nvGpuOpsBuildExternalAllocPtes)\n"
         "or rm (an RM map call through NV50_P2P, dmaAllocBar1P2PMapping_GH100)",
         P2PS_OPT_CALL(opt_path)},
        {"start-offset", 0, "OFF",
         "with --driver: the static-BAR1 start offset in the peer's BAR1 (default 0),\n"
         "added where the row adds it",
         P2PS_OPT_CALL(opt_start)},
        {"iova", 0, "ADDR",
         "with --driver: the peer BAR1 as the mapping GPU's IOMMU maps it, for rows whose\n"
         "base is kbusGetBar1P2PDmaInfo's (instead of --bar1)",
         P2PS_OPT_CALL(opt_iova)},
        {"fabric-base", 0, "ADDR", "nvlink: fabric base added to the offset (required)",
         P2PS_OPT_CALL(opt_fabric)},
        {"offset", 0, "OFF",
         "offset in the peer's framebuffer of the page's first byte (default 0;\n"
         "K/M/G suffixes)",
         P2PS_OPT_CALL(opt_offset)},
        {"page-size", 0, "SIZE",
         "4K (default), 64K, 128K (bigPageShift 17), 2M, 512M (GA10x, AD10x, v3),\n"
         "256G (GB10x, GB20x): a page size of the format ('pte-decode formats')",
         P2PS_OPT_CALL(opt_page_size)},
        {"kind", 0, "KIND", "default GENERIC_MEMORY (PITCH on Pascal/Volta)",
         P2PS_OPT_STRING(struct value_opts, kind)},
        {"vol", 0, NULL,
         "GPU-uncached (v3: PCF UNCACHED). The default: the driver maps peer memory\n"
         "that is not P2P-cacheable uncached (the stock driver on H200 NVLink peers)",
         FLAG(vol)},
        {"cached", 0, NULL, "GPU-cached; the default of the tinygrad form", FLAG(cached)},
        {"read-only", 0, NULL, "access flag", FLAG(rq.read_only)},
        {"privilege", 0, NULL, "access flag", FLAG(rq.privilege)},
        {"atomic-disable", 0, NULL, "access flag", FLAG(rq.atomic_disable)},
        {"ace", 0, NULL, "v3: access counting enabled (the driver's default is ACD)",
         FLAG(rq.access_counting)},
        {"nvswitch", 0, NULL,
         "nvlink on TU10x..AD10x: the NVSwitch peer address layout (ADDRESS_VID\n"
         "continued in COMPTAGLINE, 45 bits)",
         FLAG(rq.nvswitch)},
        OPT_AS_WRITTEN("store what a release driver build stores for values that do not fit,\n"
                       "instead of refusing them"),
        PD_OPT_JSON("one JSON object"),
        {"quiet", 'q', NULL, "only the entry", FLAG(quiet)},
        PD_OPT_HELP,
};
const struct p2ps_opts pd_opts_p2p = {P2PS_OPTS_ROWS(p2p_rows), .help_width = 24,
                                      .no_operands = true};

static const char p2p_usage[] =
        "usage: pte-decode p2p (--chip CHIP | --format FMT) --mode stock|nvlink|bar1 [options]\n"
        "Prints the entry, its fields, and the level and page size it is a PTE for.\n"
        "options:\n";

/* --driver and its companions into the request: the row, its base and start. */
static int p2p_row(struct value_opts *o)
{
	const char *cmd = o->c.cmd;
	bool bar1 = o->rq.mode == GMMU_P2P_BAR1;
	if (!o->have_series) {
		if (o->have_flavor || o->have_path || o->have_start || o->have_iova)
			return pd_fail(cmd, "--flavor, --path, --start-offset and --iova need "
			                    "--driver SERIES");
		return 0;
	}
	bool exact;
	o->drv = p2ps_nv_driver_find(o->series, o->flavor, &exact);
	if (!exact) {
		p2ps_nv_driver_assumed(o->series, o->flavor, o->drv, o->assumed,
		                       sizeof(o->assumed));
		o->rq.driver_assumed = o->assumed;
	}
	if (!bar1) {
		if (o->have_path || o->have_start || o->have_iova)
			return pd_fail(cmd,
			               "--path, --start-offset and --iova apply to --mode bar1");
		o->rq.peer_addr_sysmem = gmmu_bar1_peer_field_patched(o->drv);
		return 0;
	}
	if (o->rq.bar1_form != GMMU_BAR1_PATCH)
		return pd_fail(cmd, "give --bar1-form or --driver, not both");
	struct p2ps_error err = {0};
	const struct gmmu_bar1_row *r;
	if (gmmu_bar1_row_find(o->drv, o->path, o->c.fmt, &r, &err))
		return pd_fail(cmd, "%s%s%s", err.msg, exact ? "" : "; ", exact ? "" : o->assumed);
	char name[96];
	gmmu_bar1_row_str(r, gmmu_bar1_gen_of(o->c.fmt), name, sizeof(name));
	if (o->have_iova && !r->iova)
		return pd_fail(cmd,
		               "row %s takes the peer's BAR1 bus address (gpumgrGetGpuPhysFbAddr), "
		               "never an IOVA: give --bar1",
		               name);
	if (o->have_iova && o->have_bar1)
		return pd_fail(cmd, "give --bar1 or --iova, not both");
	if (o->have_iova && o->have_start)
		return pd_fail(cmd, "--iova is the static BAR1's own DMA address, its start "
		                    "included: --start-offset goes with --bar1");
	if (o->have_iova)
		o->rq.bar1_base = o->iova;
	o->rq.bar1_row = r;
	return 0;
}

/* The row used, under the entry: which one, where it comes from, and the address's parts. */
static void p2p_row_lines(struct gmmu_out *out, const struct value_opts *o,
                          const struct gmmu_p2p_result *res)
{
	const struct gmmu_bar1_row *r = o->rq.bar1_row;
	char name[96];
	gmmu_bar1_row_str(r, gmmu_bar1_gen_of(o->c.fmt), name, sizeof(name));
	gmmu_out_printf(out, "row: %s: %s (%s)\n", name, gmmu_aperture_name(r->aperture),
	                r->source);
	gmmu_out_printf(out, "address: 0x%" PRIx64 " = %s 0x%" PRIx64, res->addr,
	                o->have_iova ? "IOVA" : "bus address", o->rq.bar1_base);
	if (r->adds_start && !o->have_iova)
		gmmu_out_printf(out, " + start 0x%" PRIx64, o->rq.bar1_start);
	gmmu_out_printf(out, " + offset 0x%" PRIx64 "\n", o->rq.offset);
	if (!r->adds_start && o->rq.bar1_start)
		gmmu_out_printf(out,
		                "note: this row adds no start offset: the entry misses the static "
		                "BAR1 placed at 0x%" PRIx64 "\n",
		                o->rq.bar1_start);
	if (r->dynamic_offset)
		gmmu_out_printf(out, "note: this row maps at a BAR1 offset allocated per mapping, "
		                     "not at start + FB offset\n");
}

/* Options into the request: defaults of the modelled path, then the checks. */
static int p2p_request(struct value_opts *o)
{
	const char *cmd = o->c.cmd;
	if (!o->have_mode)
		return pd_fail(cmd, "--mode stock|nvlink|bar1 is required");
	bool bar1 = o->rq.mode == GMMU_P2P_BAR1;
	if (bar1 && !o->have_bar1 && !o->have_iova)
		return pd_fail(cmd, "--mode bar1 needs --bar1 ADDR (the peer's BAR1 bus address)");
	if (o->rq.mode == GMMU_P2P_NVLINK && !o->have_fabric)
		return pd_fail(cmd, "--mode nvlink needs --fabric-base ADDR");
	if (o->vol && o->cached)
		return pd_fail(cmd, "give --vol or --cached, not both");
	if (p2p_row(o))
		return -1;
	if (!bar1 && o->rq.bar1_form != GMMU_BAR1_PATCH)
		return pd_fail(cmd, "--bar1-form applies to --mode bar1");
	o->rq.vol = o->vol || (!o->cached && gmmu_p2p_default_vol(&o->rq));
	o->rq.bar1_peer_index = bar1 && o->have_peer;
	o->rq.write_mode = o->as_written ? GMMU_WRITE_AS_WRITTEN : GMMU_WRITE_CHECKED;
	const struct gmmu_field *kf =
	        gmmu_field_find(gmmu_format_entry(o->c.fmt, GMMU_ENTRY_PTE), "KIND");
	struct p2ps_error err = {0};
	uint64_t kind = gmmu_p2p_default_kind(o->c.fmt);
	if (o->kind && gmmu_field_value_parse(kf, o->kind, &kind, &err))
		return pd_fail(cmd, "%s", err.msg);
	if (kind > UINT32_MAX)
		return pd_fail(cmd, "--kind out of range: %s", o->kind);
	o->rq.kind = (uint32_t)kind;
	return 0;
}

int pd_cmd_p2p(int argc, char **argv)
{
	struct value_opts o = {.c = {.cmd = "p2p", .entry = GMMU_ENTRY_PTE}};
	int status, first = begin(&o, &pd_opts_p2p, p2p_usage, true, argc, argv, &status);
	if (first < 0)
		return status;
	if (p2p_request(&o))
		return PD_EXIT_BAD;
	struct p2ps_error err = {0};
	struct gmmu_p2p_result res;
	if (gmmu_p2p_encode(o.c.fmt, &o.rq, &res, &err))
		return pd_fail(o.c.cmd, "%s", err.msg);
	struct gmmu_out *out = pd_out_begin();
	if (!o.c.json) {
		gmmu_render_p2p(out, o.c.fmt, &res, o.quiet);
		if (!o.quiet && o.rq.bar1_row)
			p2p_row_lines(out, &o, &res);
		if (!o.quiet && o.rq.peer_addr_sysmem)
			gmmu_out_printf(
			        out,
			        "row: %s %u patches gmmuFmtPtePhysAddrFld(PEER): the address "
			        "goes to the sysmem field%s\n",
			        p2ps_nv_flavor_name(o.flavor), o.series,
			        o.c.fmt->version < 3 ? ", over the peer index (35:33)" : "");
		if (!o.quiet && o.rq.driver_assumed)
			gmmu_out_printf(out, "driver: %s\n", o.rq.driver_assumed);
	} else if (gmmu_render_p2p_json(out, o.c.fmt, &o.rq, &res, &err))
		return pd_out_end(o.c.cmd), pd_fail(o.c.cmd, "%s", err.msg);
	return pd_out_end(o.c.cmd);
}

/* ---- formats --------------------------------------------------------------------------- */

static const struct p2ps_opt formats_rows[] = {
        {"markdown", 0, NULL, "Markdown: docs/gmmu-formats.md", FLAG(markdown)},
        PD_OPT_JSON("JSON: every field and value (scripts/gmmu-golden.py compares it)"),
        PD_OPT_HELP,
};
const struct p2ps_opts pd_opts_formats = {P2PS_OPTS_ROWS(formats_rows), .help_width = 24,
                                          .no_operands = true};

int pd_cmd_formats(int argc, char **argv)
{
	struct value_opts o = {.c = {.cmd = "formats"}};
	int status, first = begin(&o, &pd_opts_formats,
	                          "usage: pte-decode formats [--markdown | --json]\n", false, argc,
	                          argv, &status);
	if (first < 0)
		return status;
	if (o.markdown && o.c.json)
		return pd_fail(o.c.cmd, "give at most one of --markdown, --json");
	enum gmmu_formats_style style = o.markdown ? GMMU_FORMATS_MARKDOWN
	                                : o.c.json ? GMMU_FORMATS_JSON
	                                           : GMMU_FORMATS_TEXT;
	struct p2ps_error err = {0};
	if (gmmu_render_formats(pd_out_begin(), style, &err))
		return pd_out_end(o.c.cmd), pd_fail(o.c.cmd, "%s", err.msg);
	return pd_out_end(o.c.cmd);
}
