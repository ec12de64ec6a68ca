/* pte-decode encode / decode (values) / p2p. */
#include "value_cmds.h"

#include "p2pscope/gmmu.h"

#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Options shared by the value commands; static in this file, filled by parse_opts(). */
struct value_opts {
	const char *chip;
	const char *format;
	const struct gmmu_format *fmt;
	enum gmmu_entry_type entry;
	enum gmmu_write_mode mode;
	bool json;
	bool quiet;
	/* p2p */
	struct gmmu_p2p_request rq;
	const char *kind;
	bool have_mode, have_bar1, have_fabric, have_peer;
	int cache; /* p2p: 1 --vol, -1 --cached, 0 the modelled path's default */
};

static int fail(const char *cmd, const struct p2ps_error *err)
{
	fprintf(stderr, "pte-decode %s: %s\n", cmd, err->msg);
	return 2;
}

static int fail_msg(const char *cmd, const char *msg, const char *arg)
{
	fprintf(stderr, "pte-decode %s: %s%s%s\n", cmd, msg, arg ? " " : "", arg ? arg : "");
	return 2;
}

static int resolve_format(const char *cmd, struct value_opts *o)
{
	struct p2ps_error err;
	p2ps_error_clear(&err);
	if (o->chip && o->format)
		return fail_msg(cmd, "give --chip or --format, not both", NULL);
	if (!o->chip && !o->format)
		return fail_msg(cmd, "--chip CHIP or --format v2|v3 is required", NULL);
	int rc = o->chip ? gmmu_chip_lookup(o->chip, &o->fmt, &err)
	                 : gmmu_format_lookup(o->format, &o->fmt, &err);
	return rc ? fail(cmd, &err) : 0;
}

/* Byte counts with an optional K/M/G/T suffix (powers of 1024): "4K", "2M", "0x200000". */
static int parse_size(const char *s, uint64_t *out)
{
	char buf[64];
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	unsigned shift = 0;
	const char *units = "KMGT";
	/* Hex digits stop at F, so a trailing K/M/G/T is always a unit. */
	const char *u = strchr(units, buf[n - 1] & ~0x20);
	if (u && n > 1) {
		shift = 10u * (unsigned)(u - units + 1);
		buf[n - 1] = '\0';
	}
	uint64_t v;
	if (gmmu_parse_u64(buf, &v))
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

enum {
	OPT_CHIP = 256,
	OPT_FORMAT,
	OPT_ENTRY,
	OPT_AS_WRITTEN,
	OPT_JSON,
	OPT_MODE,
	OPT_PEER,
	OPT_BAR1,
	OPT_FABRIC,
	OPT_OFFSET,
	OPT_PAGE_SIZE,
	OPT_KIND,
	OPT_VOL,
	OPT_RO,
	OPT_PRIV,
	OPT_ATOMIC,
	OPT_ACE,
	OPT_NVSWITCH,
	OPT_FORM,
	OPT_CACHED,
	OPT_HELP,
};

static const struct option long_opts[] = {
        {"chip", required_argument, NULL, OPT_CHIP},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"entry", required_argument, NULL, OPT_ENTRY},
        {"as-written", no_argument, NULL, OPT_AS_WRITTEN},
        {"json", no_argument, NULL, OPT_JSON},
        {"mode", required_argument, NULL, OPT_MODE},
        {"peer", required_argument, NULL, OPT_PEER},
        {"bar1", required_argument, NULL, OPT_BAR1},
        {"fabric-base", required_argument, NULL, OPT_FABRIC},
        {"offset", required_argument, NULL, OPT_OFFSET},
        {"page-size", required_argument, NULL, OPT_PAGE_SIZE},
        {"kind", required_argument, NULL, OPT_KIND},
        {"vol", no_argument, NULL, OPT_VOL},
        {"read-only", no_argument, NULL, OPT_RO},
        {"privilege", no_argument, NULL, OPT_PRIV},
        {"atomic-disable", no_argument, NULL, OPT_ATOMIC},
        {"ace", no_argument, NULL, OPT_ACE},
        {"nvswitch", no_argument, NULL, OPT_NVSWITCH},
        {"bar1-form", required_argument, NULL, OPT_FORM},
        {"cached", no_argument, NULL, OPT_CACHED},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

/* Parses argv[1..]; returns -1 to continue (optind points at the operands), or an exit
 * status. `allowed` lists the OPT_* a command accepts, terminated by 0. */
static int parse_opts(int argc, char **argv, struct value_opts *o, const int *allowed,
                      const char *help)
{
	const char *cmd = argv[0];
	struct p2ps_error err;
	p2ps_error_clear(&err);
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "q", long_opts, NULL)) != -1) {
		if (c == OPT_HELP) {
			fputs(help, stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];
			return fail_msg(cmd, "unknown option or missing argument:", bad);
		}
		bool ok = false;
		for (const int *a = allowed; *a; a++)
			ok |= *a == c;
		if (!ok)
			return fail_msg(cmd, "option not valid here:", argv[optind - 1]);
		uint64_t v = 0;
		switch (c) {
		case OPT_CHIP: o->chip = optarg; break;
		case OPT_FORMAT: o->format = optarg; break;
		case OPT_ENTRY:
			if (gmmu_entry_type_parse(optarg, &o->entry, &err))
				return fail(cmd, &err);
			break;
		case OPT_AS_WRITTEN: o->mode = GMMU_WRITE_AS_WRITTEN; break;
		case OPT_JSON: o->json = true; break;
		case 'q': o->quiet = true; break;
		case OPT_MODE:
			if (gmmu_p2p_mode_parse(optarg, &o->rq.mode, &err))
				return fail(cmd, &err);
			o->have_mode = true;
			break;
		case OPT_PEER:
			if (gmmu_parse_u64(optarg, &v) || v > UINT32_MAX)
				return fail_msg(cmd, "bad --peer (0..0xffffffff):", optarg);
			o->rq.peer_index = (uint32_t)v;
			o->have_peer = true;
			break;
		case OPT_BAR1:
			if (gmmu_parse_u64(optarg, &o->rq.bar1_base))
				return fail_msg(cmd, "bad --bar1 address:", optarg);
			o->have_bar1 = true;
			break;
		case OPT_FABRIC:
			if (gmmu_parse_u64(optarg, &o->rq.fabric_base))
				return fail_msg(cmd, "bad --fabric-base address:", optarg);
			o->have_fabric = true;
			break;
		case OPT_OFFSET:
			if (parse_size(optarg, &o->rq.offset))
				return fail_msg(cmd, "bad --offset:", optarg);
			break;
		case OPT_PAGE_SIZE:
			if (parse_size(optarg, &o->rq.page_size))
				return fail_msg(cmd, "bad --page-size:", optarg);
			break;
		case OPT_KIND: o->kind = optarg; break;
		case OPT_VOL: o->cache = o->cache < 0 ? 2 : 1; break;
		case OPT_CACHED: o->cache = o->cache > 0 ? 2 : -1; break;
		case OPT_FORM:
			if (gmmu_bar1_form_parse(optarg, &o->rq.bar1_form, &err))
				return fail(cmd, &err);
			break;
		case OPT_RO: o->rq.read_only = true; break;
		case OPT_PRIV: o->rq.privilege = true; break;
		case OPT_ATOMIC: o->rq.atomic_disable = true; break;
		case OPT_ACE: o->rq.access_counting = true; break;
		case OPT_NVSWITCH: o->rq.nvswitch = true; break;
		default: return fail_msg(cmd, "unhandled option", NULL);
		}
	}
	return -1;
}

static void print_entry_hex(const struct gmmu_entry_format *ef, const uint64_t w[2])
{
	char buf[48];
	puts(gmmu_entry_hex_str(ef, w, buf, sizeof(buf)));
}

/* ---- encode ---- */

static const char encode_help[] =
        "usage: pte-decode encode (--chip CHIP | --format v2|v3|FMT) [--entry pte|pde|dual-pde]\n"
        "                         [--as-written] FIELD=VALUE ...\n"
        "Fields are written in order into an all-zero entry. Example:\n"
        "  pte-decode encode --chip AD102 VALID=TRUE APERTURE=PEER_MEMORY ADDRESS_VID=0x1000 \\\n"
        "      ADDRESS_VID_PEER=1 KIND=GENERIC_MEMORY\n";

int pte_decode_cmd_encode(int argc, char **argv)
{
	static const int allowed[] = {OPT_CHIP, OPT_FORMAT, OPT_ENTRY, OPT_AS_WRITTEN, 0};
	struct value_opts o = {.entry = GMMU_ENTRY_PTE};
	int rc = parse_opts(argc, argv, &o, allowed, encode_help);
	if (rc >= 0)
		return rc;
	if ((rc = resolve_format("encode", &o)))
		return rc;
	if (optind >= argc)
		return fail_msg("encode", "no FIELD=VALUE given", NULL);
	const struct gmmu_entry_format *ef = gmmu_format_entry(o.fmt, o.entry);
	uint64_t w[2] = {0, 0};
	struct p2ps_error err;
	p2ps_error_clear(&err);
	for (int i = optind; i < argc; i++) {
		char field[64];
		const char *eq = strchr(argv[i], '=');
		size_t n = eq ? (size_t)(eq - argv[i]) : 0;
		if (!eq || n == 0 || n >= sizeof(field))
			return fail_msg("encode", "expected FIELD=VALUE, got", argv[i]);
		memcpy(field, argv[i], n);
		field[n] = '\0';
		if (gmmu_entry_set(ef, field, eq + 1, o.mode, w, &err))
			return fail("encode", &err);
	}
	print_entry_hex(ef, w);
	return 0;
}

/* ---- decode ---- */

static const char decode_help[] =
        "usage: pte-decode decode (--chip CHIP | --format v2|v3|FMT) [--entry pte|pde|dual-pde]\n"
        "                         [--json] VALUE ...\n"
        "VALUE: 0x-hex (up to 32 digits for a dual PDE, bit 127 first) or decimal.\n"
        "Prints the fields of the entry's aperture; bits set outside them are shown as\n"
        "UNEXPLAINED_BITS. Dumps: pte-decode decode --raw|--text|--mem ... (see its --help).\n";

static int parse_entry_value(const struct gmmu_entry_format *ef, const char *s, uint64_t w[2])
{
	w[0] = w[1] = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		const char *h = s + 2;
		size_t n = strlen(h);
		if (n == 0 || n > (size_t)ef->size * 2)
			return -1;
		for (size_t i = 0; i < n; i++) {
			char c = h[i];
			unsigned d;
			if (c >= '0' && c <= '9')
				d = (unsigned)(c - '0');
			else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
				d = (unsigned)((c | 0x20) - 'a' + 10);
			else
				return -1;
			/* Shift the 128-bit value left by one hex digit. */
			w[1] = (w[1] << 4) | (w[0] >> 60);
			w[0] = (w[0] << 4) | d;
		}
		return 0;
	}
	return gmmu_parse_u64(s, &w[0]) ? -1 : 0;
}

static void print_decoded_text(const struct gmmu_decoded *d)
{
	char buf[96];
	for (size_t i = 0; i < d->ef->n_fields; i++)
		if (d->shown[i])
			printf("%s=%s\n", d->ef->fields[i].name,
			       gmmu_decoded_value_str(d, i, buf, sizeof(buf)));
	if (d->unexplained[0] || d->unexplained[1]) {
		if (d->ef->size > 8)
			printf("UNEXPLAINED_BITS=0x%016" PRIx64 "%016" PRIx64 "\n",
			       d->unexplained[1], d->unexplained[0]);
		else
			printf("UNEXPLAINED_BITS=0x%016" PRIx64 "\n", d->unexplained[0]);
	}
}

static json_object *decoded_json(const struct gmmu_format *f, const struct gmmu_decoded *d)
{
	char buf[96];
	json_object *o = json_object_new_object();
	json_object_object_add(o, "format", json_object_new_string(f->name));
	json_object_object_add(o, "entry",
	                       json_object_new_string(gmmu_entry_type_name(d->ef->type)));
	json_object_object_add(
	        o, "raw",
	        json_object_new_string(gmmu_entry_hex_str(d->ef, d->w, buf, sizeof(buf))));
	json_object_object_add(o, "valid", json_object_new_boolean(d->valid));
	json_object *fields = json_object_new_array();
	for (size_t i = 0; i < d->ef->n_fields; i++) {
		if (!d->shown[i])
			continue;
		const struct gmmu_field *fd = &d->ef->fields[i];
		json_object *jf = json_object_new_object();
		json_object_object_add(jf, "name", json_object_new_string(fd->name));
		json_object_object_add(jf, "hi", json_object_new_int(fd->hi));
		json_object_object_add(jf, "lo", json_object_new_int(fd->lo));
		json_object_object_add(jf, "raw", json_object_new_uint64(d->value[i]));
		json_object_object_add(
		        jf, "value",
		        json_object_new_string(gmmu_decoded_value_str(d, i, buf, sizeof(buf))));
		if (fd->kind == GMMU_FIELD_ENUM || fd->kind == GMMU_FIELD_BOOL) {
			/* "value" parses back either way; "value_name" says whether it has a name.
			 */
			const char *nm =
			        gmmu_field_value_name(fd, d->value[i], d->half_valid[fd->half]);
			json_object_object_add(jf, "value_name",
			                       json_object_new_string(nm ? nm : "unknown"));
		}
		json_object_array_add(fields, jf);
	}
	json_object_object_add(o, "fields", fields);
	uint64_t u[2] = {d->unexplained[0], d->unexplained[1]};
	json_object_object_add(
	        o, "unexplained_bits",
	        json_object_new_string(gmmu_entry_hex_str(d->ef, u, buf, sizeof(buf))));
	return o;
}

int pte_decode_cmd_decode_values(int argc, char **argv)
{
	static const int allowed[] = {OPT_CHIP, OPT_FORMAT, OPT_ENTRY, OPT_JSON, 0};
	struct value_opts o = {.entry = GMMU_ENTRY_PTE};
	int rc = parse_opts(argc, argv, &o, allowed, decode_help);
	if (rc >= 0)
		return rc;
	if ((rc = resolve_format("decode", &o)))
		return rc;
	if (optind >= argc)
		return fail_msg("decode", "no VALUE given", NULL);
	const struct gmmu_entry_format *ef = gmmu_format_entry(o.fmt, o.entry);
	/* Parse everything first so that bad input prints nothing on stdout. */
	for (int i = optind; i < argc; i++) {
		uint64_t w[2];
		if (parse_entry_value(ef, argv[i], w)) {
			fprintf(stderr,
			        "pte-decode decode: bad %s value '%s' (0x + up to %u hex digits, "
			        "or "
			        "decimal)\n",
			        gmmu_entry_type_name(o.entry), argv[i], ef->size * 2u);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		uint64_t w[2];
		struct gmmu_decoded d;
		parse_entry_value(ef, argv[i], w);
		gmmu_entry_decode(ef, w, &d);
		if (o.json) {
			json_object *j = decoded_json(o.fmt, &d);
			puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
			json_object_put(j);
		} else {
			if (i > optind)
				putchar('\n');
			print_decoded_text(&d);
		}
	}
	return 0;
}

/* ---- p2p ---- */

static const char p2p_help[] =
        "usage: pte-decode p2p (--chip CHIP | --format FMT) --mode stock|nvlink|bar1 [options]\n"
        "  --peer N            bus peer id written by stock/nvlink (default 0); with bar1\n"
        "                      (patch forms): also write it, as a port that kept the stock\n"
        "                      peer write does (v2: the address write then overwrites it;\n"
        "                      v3: PEER_ID stays)\n"
        "  --bar1 ADDR         bar1: the peer's BAR1 bus address (required; stock form: its\n"
        "                      DMA address as the mapping GPU sees it)\n"
        "  --bar1-form FORM    bar1: patch (default: the kernel patch, SYSTEM_NON_COHERENT),\n"
        "                      patch-as-published (its v3 branch keeps APERTURE=PEER),\n"
        "                      tinygrad (userspace driver: SYSTEM_COHERENT, access counting\n"
        "                      on), stock (GH100: SYS_NONCOH, Blackwell: SYS_COH)\n"
        "  --fabric-base ADDR  nvlink: fabric base added to the offset (required)\n"
        "  --offset OFF        offset in the peer's framebuffer of the page's first byte\n"
        "                      (default 0; K/M/G suffixes)\n"
        "  --page-size SIZE    4K (default), 64K, 128K (bigPageShift 17), 2M,\n"
        "                      512M (GA10x, AD10x, v3), 256G (GB10x, GB20x)\n"
        "  --kind KIND         default GENERIC_MEMORY (PITCH on Pascal/Volta)\n"
        "  --vol / --cached    GPU-uncached (v3: PCF UNCACHED) or not. Default: uncached,\n"
        "                      as the driver maps peer memory that is not P2P-cacheable\n"
        "                      (580 driver, H200 NVLink peers); tinygrad form: cached\n"
        "  --read-only --privilege --atomic-disable   access flags\n"
        "  --ace               v3: access counting enabled (the driver's default is ACD)\n"
        "  --nvswitch          nvlink on TU10x..AD10x: the NVSwitch peer address layout\n"
        "                      (ADDRESS_VID continued in COMPTAGLINE, 45 bits)\n"
        "  --as-written        store what a release driver build stores for values that do\n"
        "                      not fit, instead of refusing them\n"
        "  --json              one JSON object;  -q: only the entry\n"
        "Prints the entry, its fields, and the level and page size it is a PTE for.\n";

static void size_name(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	unsigned u = 0;
	while (bytes >= 1024 && bytes % 1024 == 0 && u < 4) {
		bytes /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, len, "%" PRIu64 "%c", bytes, units[u - 1]);
	else
		snprintf(buf, len, "%" PRIu64, bytes);
}

/* "4K, 64K, 128K, 2M": every PTE page size of the format, smallest first. */
static void page_sizes(const struct gmmu_format *f, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (unsigned shift = 12; shift < 64 && n < len; shift++) {
		const struct gmmu_level *lv = gmmu_level_for_page(f, shift);
		if (!lv)
			continue;
		char one[24];
		size_name(1ull << shift, one, sizeof(one));
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", one);
	}
}

/* The level line: which table the entry is a PTE of, and that the bits do not depend on the
 * page size (every format stores address >> 12 whatever the page: the size only picks the
 * level and the alignment). */
static void print_level(const struct gmmu_format *f, const struct gmmu_p2p_result *res)
{
	char ps[24], all[128];
	size_name(res->page_size, ps, sizeof(ps));
	page_sizes(f, all, sizeof(all));
	/* 128 KiB big pages: PT_BIG indexes fewer VA bits. */
	unsigned va_lo = res->page_size > (1ull << res->level->page_shift) ? res->level->alt_va_lo
	                                                                   : res->level->va_lo;
	printf("# PTE of a %s page at level %s (VA %u:%u)\n", ps, res->level->name,
	       (unsigned)res->level->va_hi, va_lo);
	printf("# the same bits for every page size of %s (%s): the page size only picks the "
	       "level and the alignment\n",
	       f->name, all);
}

/* Options into the request: defaults of the modelled path, then the checks. */
static int p2p_request(struct value_opts *o)
{
	if (!o->have_mode)
		return fail_msg("p2p", "--mode stock|nvlink|bar1 is required", NULL);
	bool bar1 = o->rq.mode == GMMU_P2P_BAR1;
	if (bar1 && !o->have_bar1)
		return fail_msg(
		        "p2p", "--mode bar1 needs --bar1 ADDR (the peer's BAR1 bus address)", NULL);
	if (o->rq.mode == GMMU_P2P_NVLINK && !o->have_fabric)
		return fail_msg("p2p", "--mode nvlink needs --fabric-base ADDR", NULL);
	if (o->cache == 2)
		return fail_msg("p2p", "give --vol or --cached, not both", NULL);
	if (!bar1 && o->rq.bar1_form != GMMU_BAR1_PATCH)
		return fail_msg("p2p", "--bar1-form applies to --mode bar1", NULL);
	/* Every driver path takes VOL from the peer memory's P2P cacheability, which is "not
	 * cacheable" unless the allocation asked otherwise (the 580 driver's NVLink peer entries
	 * on two H200s are PCF UNCACHED, tests/fixtures/pte-probe/h200-*-peer*.json); tinygrad's
	 * userspace driver maps peer buffers cached. */
	bool uncached = !(bar1 && o->rq.bar1_form == GMMU_BAR1_TINYGRAD);
	o->rq.vol = o->cache ? o->cache > 0 : uncached;
	o->rq.bar1_peer_index = bar1 && o->have_peer;
	o->rq.write_mode = o->mode;

	const struct gmmu_entry_format *ef = gmmu_format_entry(o->fmt, GMMU_ENTRY_PTE);
	const struct gmmu_field *kf = gmmu_field_find(ef, "KIND");
	struct p2ps_error err;
	p2ps_error_clear(&err);
	uint64_t kind = 0;
	const char *kind_s = o->kind;
	/* The driver maps peer memory with the memory's uncompressed kind; GENERIC_MEMORY on
	 * TU10x and later, PITCH where the format has no such kind (Pascal, Volta). */
	if (!kind_s)
		kind_s = gmmu_field_value_parse(kf, "GENERIC_MEMORY", &kind, NULL) == 0
		                 ? "GENERIC_MEMORY"
		                 : "PITCH";
	if (gmmu_field_value_parse(kf, kind_s, &kind, &err))
		return fail("p2p", &err);
	if (kind > UINT32_MAX)
		return fail_msg("p2p", "--kind out of range:", kind_s);
	o->rq.kind = (uint32_t)kind;
	return 0;
}

static void p2p_json(const struct value_opts *o, const struct gmmu_decoded *d,
                     const struct gmmu_p2p_result *res)
{
	char buf[32];
	json_object *j = decoded_json(o->fmt, d);
	json_object_object_add(j, "mode", json_object_new_string(gmmu_p2p_mode_name(o->rq.mode)));
	if (o->rq.mode == GMMU_P2P_BAR1)
		json_object_object_add(
		        j, "bar1_form",
		        json_object_new_string(gmmu_bar1_form_name(o->rq.bar1_form)));
	json_object_object_add(j, "level", json_object_new_string(res->level->name));
	json_object_object_add(j, "page_size", json_object_new_uint64(res->page_size));
	json_object_object_add(j, "same_for_every_page_size", json_object_new_boolean(1));
	json_object_object_add(j, "address_field", json_object_new_string(res->addr_field->name));
	snprintf(buf, sizeof(buf), "0x%" PRIx64, res->addr);
	json_object_object_add(j, "address", json_object_new_string(buf));
	puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
}

int pte_decode_cmd_p2p(int argc, char **argv)
{
	static const int allowed[] = {OPT_CHIP,   OPT_FORMAT,   OPT_AS_WRITTEN, OPT_JSON,
	                              'q',        OPT_MODE,     OPT_PEER,       OPT_BAR1,
	                              OPT_FABRIC, OPT_OFFSET,   OPT_KIND,       OPT_PAGE_SIZE,
	                              OPT_VOL,    OPT_RO,       OPT_PRIV,       OPT_ATOMIC,
	                              OPT_ACE,    OPT_NVSWITCH, OPT_FORM,       OPT_CACHED,
	                              0};
	struct value_opts o = {.entry = GMMU_ENTRY_PTE};
	int rc = parse_opts(argc, argv, &o, allowed, p2p_help);
	if (rc >= 0)
		return rc;
	if ((rc = resolve_format("p2p", &o)))
		return rc;
	if (optind < argc)
		return fail_msg("p2p", "unexpected argument:", argv[optind]);
	if ((rc = p2p_request(&o)))
		return rc;

	const struct gmmu_entry_format *ef = gmmu_format_entry(o.fmt, GMMU_ENTRY_PTE);
	struct p2ps_error err;
	p2ps_error_clear(&err);
	struct gmmu_p2p_result res;
	if (gmmu_p2p_encode(o.fmt, &o.rq, &res, &err))
		return fail("p2p", &err);
	uint64_t w[2] = {res.pte, 0};
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, w, &d);
	if (o.json) {
		p2p_json(&o, &d, &res);
		return 0;
	}
	print_entry_hex(ef, w);
	if (!o.quiet) {
		print_decoded_text(&d);
		print_level(o.fmt, &res);
	}
	return 0;
}
