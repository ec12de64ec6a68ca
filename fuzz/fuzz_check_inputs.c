/* SPDX-License-Identifier: MIT */
// fuzz-links: p2ps_check
/* p2p-bench check's two readers: NCCL's INFO log (p2ps_chk_nccl_parse) and a saved
 * `p2p-bench check --json` (p2ps_chk_result_read), whose result is then judged and rendered
 * in every format, whatever the input held.
 *
 * Input: a first byte 'N' makes the rest an NCCL log; otherwise it is a saved check. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	if (size > 0 && data[0] == 'N') {
		struct p2ps_chk_nccl n;
		memset(&n, 0, sizeof(n));
		p2ps_chk_nccl_parse((const char *)data + 1, size - 1, &n);
		for (int a = 0; a < P2PS_CHK_MAX_GPUS; a++)
			for (int b = 0; b < P2PS_CHK_MAX_GPUS; b++)
				if (strlen(n.transport[a][b]) >= sizeof(n.transport[a][b]))
					abort();
		return 0;
	}
	struct p2ps_chk_result *res = calloc(1, sizeof(*res));
	struct p2ps_error err;
	if (!res)
		return 0;
	if (p2ps_chk_result_read((const char *)data, size, res, &err) == 0) {
		struct p2ps_chk_report rep;
		struct p2ps_strbuf out = {0};
		memset(&rep, 0, sizeof(rep));
		if (p2ps_chk_report_make(res, NULL, NULL, NULL, &rep, &err) == 0) {
			p2ps_chk_render_text(&rep, NULL, &out);
			p2ps_chk_render_line(&rep, NULL, &out);
			p2ps_chk_render_prometheus(&rep, NULL, &out);
			p2ps_chk_render_json(&rep, NULL, &out, &err);
			if (rep.exit_status != 0 && rep.exit_status != 1 && rep.exit_status != 3)
				abort();
		}
		p2ps_strbuf_free(&out);
		p2ps_chk_report_free(&rep);
	}
	free(res);
	return 0;
}
