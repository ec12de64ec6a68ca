#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sets p2p-bench beside cuda-samples' p2pBandwidthLatencyTest, cell by cell.

usage: p2p-compare.py --blt-ce F... [--blt-sm F...] --bench J... [--json OUT] [--md OUT]

--blt-ce: text outputs of `p2pBandwidthLatencyTest` (copy engine), --blt-sm: of
`p2pBandwidthLatencyTest --sm_copy`, --bench: `p2p-bench --json` results taken
with the sample's size and repetitions. Each side's value per cell is the
median over its files; the difference is p2p-bench relative to the sample.
"""
import argparse
import json
import re
import statistics
import sys

# Sample headings -> p2p-bench matrix keys (copy-engine run, --sm_copy run).
HEADINGS = [
    ("Unidirectional P2P=Disabled Bandwidth Matrix", "ce_uni_p2p_off", "ce_uni_p2p_off"),
    ("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix", "ce_uni_p2p_on", "sm_write_uni_p2p_on"),
    ("Bidirectional P2P=Disabled Bandwidth Matrix", "ce_bi_p2p_off", "ce_bi_p2p_off"),
    ("Bidirectional P2P=Enabled Bandwidth Matrix", "ce_bi_p2p_on", "sm_write_bi_p2p_on"),
    ("P2P=Disabled Latency Matrix", "ce_lat_p2p_off", None),
    ("P2P=Enabled Latency (P2P Writes) Matrix", "ce_lat_p2p_on", "sm_lat_p2p_on"),
]


def parse_blt(path, sm):
    """Matrices of one sample output, keyed like p2p-bench's."""
    out, key, rows = {}, None, []
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        head = next((h for h in HEADINGS if line.startswith(h[0])), None)
        if head:
            if key and rows:
                out.setdefault(key, rows)
            key = head[2] if sm else head[1]
            rows = []
            continue
        if key is None:
            continue
        if re.match(r"^\s+(D\\D|GPU)\s", line):
            continue
        m = re.match(r"^\s+(\d+)\s+([\d.\s]+)$", line)
        if m:
            rows.append([float(v) for v in m.group(2).split()])
            continue
        # The sample's latency tables end at their CPU part; others at a blank line.
        if rows:
            out.setdefault(key, rows)
        key = None
    if key and rows:
        out.setdefault(key, rows)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blt-ce", nargs="+", required=True)
    ap.add_argument("--blt-sm", nargs="*", default=[])
    ap.add_argument("--bench", nargs="+", required=True)
    ap.add_argument("--json")
    ap.add_argument("--md")
    a = ap.parse_args()

    blt = {}
    for files, sm in ((a.blt_ce, False), (a.blt_sm, True)):
        for p in files:
            for k, m in parse_blt(p, sm).items():
                blt.setdefault(k, []).append(m)
    bench = {}
    for p in a.bench:
        with open(p) as f:
            for m in json.load(f)["matrices"]:
                bench.setdefault(m["key"], []).append(m["values"])

    rows = []
    for key in sorted(blt):
        if key not in bench:
            continue
        n = len(blt[key][0])
        for i in range(n):
            for j in range(n):
                s = [m[i][j] for m in blt[key]]
                b = [m[i][j] for m in bench[key] if m[i][j] is not None]
                if not b:
                    continue
                sm, bm = statistics.median(s), statistics.median(b)
                rows.append({
                    "matrix": key, "src": i, "dst": j,
                    "sample_median": round(sm, 2), "sample_min": min(s), "sample_max": max(s),
                    "bench_median": round(bm, 2), "bench_min": min(b), "bench_max": max(b),
                    "diff_pct": round(100.0 * (bm - sm) / sm, 2),
                    "runs": [len(s), len(b)],
                })
    if not rows:
        print("p2p-compare: no common matrices", file=sys.stderr)
        return 2
    md = ["| matrix | cell | p2pBandwidthLatencyTest median (min-max) | p2p-bench median (min-max) | difference |",
          "|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['matrix']} | {r['src']}->{r['dst']} | {r['sample_median']:.2f} "
                  f"({r['sample_min']:.2f}-{r['sample_max']:.2f}) | {r['bench_median']:.2f} "
                  f"({r['bench_min']:.2f}-{r['bench_max']:.2f}) | {r['diff_pct']:+.1f}% |")
    text = "\n".join(md) + "\n"
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cells": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
