/* SPDX-License-Identifier: MIT */
// fuzz-links: p2pshost
/* libFuzzer target for bar-inspect --paste: any bytes go through the paste reader (block
 * finder and every block parser, including pasted lspci -x rows through the dump
 * backend), the paste backend, the analysis, the paste findings and the three renderers.
 * Checked: loading fails only with a one-line message for binary data or memory, every
 * item of the evidence names a line of the input and a block that exists, observations
 * name GPUs that exist and are found by their lookup, matrices stay in their bounds, the
 * findings and asks are single lines, the JSON parses back with its "paste" member, the
 * DOT graph is closed. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_paste_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_paste_pipeline((const char *)data, size);
	return 0;
}
