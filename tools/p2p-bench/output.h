/* SPDX-License-Identifier: MIT */
/* p2p-bench output: the measurement as text (p2pBandwidthLatencyTest's matrix
 * layout) or JSON, and the combined report as text. */
#ifndef P2P_BENCH_OUTPUT_H
#define P2P_BENCH_OUTPUT_H

#include <stdio.h>

#include <json-c/json.h>

#include "bench.h"

void pb_print_text(FILE *f, const struct pb_result *r, const struct pb_options *o);

/* A new JSON document for r (schema in docs/p2p-bench.md); NULL if out of memory. */
json_object *pb_to_json(const struct pb_result *r, const struct pb_options *o);

/* Prints the {"pairs": [...]} object that pr_combine built. */
void pb_print_combined(FILE *f, json_object *combined);

#endif
