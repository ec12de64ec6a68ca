/* SPDX-License-Identifier: MIT */
/* The verify report (render_internal.h): one line (or JSON object) per difference between
 * the mapped ranges and the SPEC, then the verdict. */
#include "render_internal.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>

struct verify_out {
	struct gmmu_out *o;
	const struct gmmu_format *fmt;
	bool json;
	unsigned long max_diffs, shown;
	json_object *jdiffs;
};

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	if (*n >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

/* The flags that differ: " vol expected 1 found 0 ...". */
static void describe_flags(const struct gmmu_diff *d, char *buf, size_t len, size_t *n)
{
	append(buf, len, n, "%swrong flags:", *n ? "; " : "");
	for (int i = 0; i < GMMU_FLAG_COUNT; i++)
		if (d->flags_wrong >> i & 1)
			append(buf, len, n, " %s expected %d found %d",
			       gmmu_flag_name((enum gmmu_flag)i), d->exp->flags_val >> i & 1,
			       !(d->exp->flags_val >> i & 1));
}

static void describe_diff(const struct gmmu_format *f, const struct gmmu_diff *d, char *buf,
                          size_t len)
{
	size_t n = 0;
	char a[32], b[32];
	buf[0] = '\0';
	if (d->what & GMMU_DIFF_MISSING)
		append(buf, len, &n, "missing: intended %s 0x%llx not mapped",
		       gmmu_aperture_name(d->exp->aperture), (unsigned long long)d->exp_target);
	if (d->what & GMMU_DIFF_EXTRA)
		append(buf, len, &n, "extra: mapped %s 0x%llx, not in the SPEC",
		       gmmu_aperture_name(d->act->v.aperture), (unsigned long long)d->act_target);
	if (d->what & GMMU_DIFF_PAGE_SIZE)
		append(buf, len, &n, "%swrong page size: expected %s, found %s", n ? "; " : "",
		       gmmu_size_str(1ull << d->exp->page_shift, a, sizeof(a)),
		       gmmu_size_str(1ull << d->act->page_shift, b, sizeof(b)));
	if (d->what & GMMU_DIFF_APERTURE)
		append(buf, len, &n, "%swrong aperture: expected %s, found %s", n ? "; " : "",
		       gmmu_aperture_name(d->exp->aperture),
		       gmmu_aperture_name(d->act->v.aperture));
	if (d->what & GMMU_DIFF_ADDRESS)
		append(buf, len, &n, "%swrong address: expected 0x%llx, found 0x%llx",
		       n ? "; " : "", (unsigned long long)d->exp_target,
		       (unsigned long long)d->act_target);
	if (d->what & GMMU_DIFF_PEER)
		append(buf, len, &n, "%swrong peer: expected %u, found %u", n ? "; " : "",
		       d->exp->peer_index, d->act->v.peer_index);
	if (d->what & GMMU_DIFF_KIND)
		append(buf, len, &n, "%swrong kind: expected %s, found %s", n ? "; " : "",
		       gmmu_kind_str(f, d->exp->kind, a, sizeof(a)),
		       gmmu_kind_str(f, d->act->v.kind, b, sizeof(b)));
	if (d->what & GMMU_DIFF_FLAGS)
		describe_flags(d, buf, len, &n);
}

static const char *hex(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "0x%llx", (unsigned long long)v);
	return buf;
}

static json_object *diff_json(const struct gmmu_diff *d, const char *name, const char *what)
{
	static const char *const names[] = {"missing",   "extra", "aperture", "address",
	                                    "page_size", "peer",  "kind",     "flags"};
	char buf[32];
	json_object *j = json_object_new_object();
	json_object_object_add(j, "va", json_object_new_string(hex(d->va, buf, 32)));
	json_object_object_add(j, "size", json_object_new_uint64(d->size));
	json_object_object_add(j, "mapping", json_object_new_string(name));
	json_object *kinds = json_object_new_array();
	for (unsigned i = 0; i < 8; i++)
		if (d->what >> i & 1)
			json_object_array_add(kinds, json_object_new_string(names[i]));
	json_object_object_add(j, "what", kinds);
	if (d->exp) {
		json_object_object_add(
		        j, "expected_aperture",
		        json_object_new_string(gmmu_aperture_name(d->exp->aperture)));
		json_object_object_add(j, "expected_target",
		                       json_object_new_string(hex(d->exp_target, buf, 32)));
	}
	if (d->act) {
		json_object_object_add(
		        j, "found_aperture",
		        json_object_new_string(gmmu_aperture_name(d->act->v.aperture)));
		json_object_object_add(j, "found_target",
		                       json_object_new_string(hex(d->act_target, buf, 32)));
		json_object_object_add(j, "found_page_size",
		                       json_object_new_uint64(1ull << d->act->page_shift));
	}
	json_object_object_add(j, "message", json_object_new_string(what));
	return j;
}

static int diff_print(void *ctx, const struct gmmu_diff *d, struct p2ps_error *err)
{
	(void)err;
	struct verify_out *v = ctx;
	if (v->max_diffs && v->shown >= v->max_diffs)
		return 0;
	v->shown++;
	char what[512], ps[24];
	describe_diff(v->fmt, d, what, sizeof(what));
	const char *name = d->exp ? d->exp->name : "-";
	/* A diff lacks act (MISSING) or exp (EXTRA), never both (struct gmmu_diff). */
	// NOLINTNEXTLINE(clang-analyzer-core.NullDereference): see above
	unsigned shift = d->act ? d->act->page_shift : d->exp->page_shift;
	if (v->json) {
		json_object_array_add(v->jdiffs, diff_json(d, name, what));
		return 0;
	}
	gmmu_out_printf(v->o, "VA 0x%llx-0x%llx", (unsigned long long)d->va,
	                (unsigned long long)(d->va + d->size - 1));
	if (shift)
		gmmu_out_printf(v->o, " (%llu x %s)", (unsigned long long)(d->size >> shift),
		                gmmu_size_str(1ull << shift, ps, sizeof(ps)));
	gmmu_out_printf(v->o, " [%s]: %s\n", name, what);
	return 0;
}

static int verify_document(struct verify_out *v, const struct gmmu_verify_stats *st,
                           struct p2ps_error *err)
{
	json_object *top = json_object_new_object();
	json_object_object_add(top, "schema_version",
	                       json_object_new_int(GMMU_JSON_SCHEMA_VERSION));
	json_object_object_add(top, "match", json_object_new_boolean(!st->diffs));
	json_object_object_add(top, "differences", json_object_new_uint64(st->diffs));
	json_object_object_add(top, "intended_bytes", json_object_new_uint64(st->intended_bytes));
	json_object_object_add(top, "matched_bytes", json_object_new_uint64(st->matched_bytes));
	json_object_object_add(top, "diffs", v->jdiffs);
	v->jdiffs = NULL;
	const char *s = json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
	                                                            JSON_C_TO_STRING_SPACED);
	int rc = s ? 0 : p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	if (s) {
		gmmu_out_puts(v->o, s);
		gmmu_out_put(v->o, "\n", 1);
	}
	json_object_put(top);
	return rc;
}

static void verify_verdict(struct verify_out *v, const struct gmmu_verify_stats *st, size_t n_maps)
{
	if (st->diffs > v->shown)
		gmmu_out_printf(v->o, "... %llu more differences (--max-diffs 0 lists all)\n",
		                (unsigned long long)(st->diffs - v->shown));
	gmmu_out_printf(v->o,
	                "verify: %s: %llu difference%s; %.3f of %.3f GiB intended mapped as "
	                "intended (%zu mapping%s)\n",
	                st->diffs ? "DIFFERENT" : "OK", (unsigned long long)st->diffs,
	                st->diffs == 1 ? "" : "s", (double)st->matched_bytes / (1 << 30),
	                (double)st->intended_bytes / (1 << 30), n_maps, n_maps == 1 ? "" : "s");
}

int gmmu_render_verify(struct gmmu_out *o, const struct gmmu_format *f, bool json,
                       unsigned long max_diffs, const struct gmmu_spec *spec,
                       struct gmmu_range_list *actual, struct gmmu_verify_stats *st,
                       struct p2ps_error *err)
{
	struct verify_out v = {.o = o, .fmt = f, .json = json, .max_diffs = max_diffs};
	if (json && !(v.jdiffs = json_object_new_array()))
		return p2ps_error_set(err, P2PS_ENOMEM, "out of memory");
	int rc = gmmu_verify(spec, actual, diff_print, &v, st, err);
	if (!rc && json)
		rc = verify_document(&v, st, err);
	else if (!rc)
		verify_verdict(&v, st, spec->n);
	json_object_put(v.jdiffs);
	return rc;
}
