/* SPDX-License-Identifier: MIT */
/* p2p-bench report: link arithmetic and the join of a p2p-bench measurement
 * with bar-inspect's host facts. Pure functions over json-c objects, no CUDA,
 * so that the join works (and is tested) on machines without a GPU. */
#ifndef P2P_BENCH_REPORT_H
#define P2P_BENCH_REPORT_H

#include <json-c/json.h>

#include "p2pscope/error.h"

/* schema_version of p2p-bench's JSON documents, the measurements and the combined report
 * (schemas/p2p-bench.schema.json); raised only when a key changes meaning or goes away. */
#define PB_JSON_SCHEMA_VERSION 1

#define PR_BDF_LEN 16

/* Data rate of one direction of a PCIe link in GB/s (1e9 bytes/s) after the
 * line encoding of its generation (8b/10b up to 5 GT/s, 128b/130b for 8 to 32
 * GT/s, 236 TLP bytes per 256-byte flit at 64 GT/s). TLP headers and flow
 * control still come out of this, so real transfers stay below it. NAN for a
 * rate no PCIe generation uses or a width outside 1..32. */
double pr_pcie_gbps(double speed_gts, int width);

/* NVLink bandwidth of one direction: links x per-link rate in MB/s (NVML's
 * NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON), in GB/s. NAN when either is 0. */
double pr_nvlink_gbps(int links, unsigned mbps_per_link);

/* Parses a PCI address ("0000:3b:00.0", NVML's "00000000:3B:00.0", or lspci's
 * short "3b:00.0") into the canonical lower-case "dddd:bb:dd.f". Returns 0 or
 * P2PS_EINVAL. */
int pr_bdf_normalize(const char *in, char out[PR_BDF_LEN]);

/* A JSON number rounded to 3 decimals, printed that way; NULL (JSON null)
 * for NAN or infinity. */
json_object *pr_json_num(double v);

/* Joins bench (p2p-bench --json) with host (bar-inspect --json) by BDF. For
 * every ordered pair of measured devices: topology class, theoretical link
 * bandwidth per direction and its basis, the measured bandwidths and their
 * ratios to the link limit (bidirectional figures against twice the limit).
 * *out receives a new object {"pairs": [...]} the caller releases with
 * json_object_put. Returns 0 or P2PS_EINVAL (with err) when either document
 * lacks what the join needs. */
int pr_combine(json_object *bench, json_object *host, json_object **out, struct p2ps_error *err);

#endif
