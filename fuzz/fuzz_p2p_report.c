/* SPDX-License-Identifier: MIT */
// fuzz-links: p2p_bench_report
/* p2p-bench's report parsers: PCI addresses as NVML, lspci and bar-inspect
 * spell them, and the join of two JSON documents (a p2p-bench result and a
 * bar-inspect report) that may be anything at all.
 *
 * Input: a first byte 'B' makes the rest one PCI address; otherwise the input
 * is two documents separated by the first NUL byte (bench, then host). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static json_object *parse(const uint8_t *p, size_t n)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, (const char *)p, (int)n);
	json_tokener_free(tok);
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep;
	json_object *bench, *host, *out = NULL;
	struct p2ps_error err;

	if (size > 1 && data[0] == 'B') {
		char buf[64], bdf[PR_BDF_LEN];
		size_t n = size - 1 < sizeof(buf) - 1 ? size - 1 : sizeof(buf) - 1;
		memcpy(buf, data + 1, n);
		buf[n] = 0;
		if (pr_bdf_normalize(buf, bdf) == 0 && strlen(bdf) != 12)
			abort(); /* a success always yields dddd:bb:dd.f */
		return 0;
	}
	sep = memchr(data, 0, size);
	if (!sep || size > (1u << 20))
		return 0;
	bench = parse(data, (size_t)(sep - data));
	host = parse(sep + 1, size - (size_t)(sep - data) - 1);
	if (pr_combine(bench, host, &out, &err) == 0) {
		/* Rendering walks every value the join produced. */
		const char *s = json_object_to_json_string(out);
		if (!s)
			abort();
		json_object_put(out);
	}
	json_object_put(bench);
	json_object_put(host);
	return 0;
}
