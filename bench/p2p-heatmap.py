#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Renders the bandwidth matrices of a `p2p-bench --json` result as heatmaps.

usage: p2p-heatmap.py RESULT.json OUT.png [--title TEXT]

One panel per bandwidth matrix (copy engine and SM kernel, uni- and
bidirectional, peer access off and on); each cell is annotated with its GB/s.
The colour scale is logarithmic so that copies inside a GPU (TB/s) and across
the link (tens to hundreds of GB/s) both stay readable. Needs matplotlib
(Debian: apt install python3-matplotlib).
"""
import argparse
import json
import math
import sys

SHORT = {
    "ce_uni_p2p_off": "CE, one way, peer access off",
    "ce_uni_p2p_on": "CE, one way, peer access on",
    "sm_write_uni_p2p_on": "SM write, one way",
    "sm_read_uni_p2p_on": "SM read, one way",
    "ce_bi_p2p_off": "CE, both ways, peer access off",
    "ce_bi_p2p_on": "CE, both ways, peer access on",
    "sm_write_bi_p2p_on": "SM write, both ways",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("out")
    ap.add_argument("--title")
    a = ap.parse_args()
    try:
        with open(a.result) as f:
            d = json.load(f)
        mats = [m for m in d["matrices"] if m["metric"] == "bandwidth"]
        devs = d["devices"]
    except (OSError, ValueError, KeyError) as e:
        print(f"p2p-heatmap: {a.result}: not a p2p-bench result ({e})", file=sys.stderr)
        return 2
    if not mats:
        print(f"p2p-heatmap: {a.result}: no bandwidth matrices", file=sys.stderr)
        return 2
    try:  # only now: --help and a wrong input need no plotting library
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
    except ImportError as e:
        print(f"p2p-heatmap: needs matplotlib, which this python3 ({sys.executable}) cannot "
              f"import ({e}): apt install python3-matplotlib (Debian, Ubuntu), "
              f"dnf install python3-matplotlib (Fedora, RHEL) or pip install matplotlib",
              file=sys.stderr)
        return 2
    vals = [v for m in mats for row in m["values"] for v in row if v]
    norm = LogNorm(vmin=min(vals), vmax=max(vals))
    cols = min(4, len(mats))
    rows = math.ceil(len(mats) / cols)
    n = len(devs)
    side = 2.2 + 0.5 * n
    fig, axes = plt.subplots(rows, cols, figsize=(side * cols + 1.2, side * rows + 1.0),
                             squeeze=False, layout="constrained")
    labels = [str(x["index"]) for x in devs]
    for ax in axes.flat[len(mats):]:
        ax.axis("off")
    for ax, m in zip(axes.flat, mats):
        grid = [[(v if v else float("nan")) for v in row] for row in m["values"]]
        im = ax.imshow(grid, cmap="viridis", norm=norm)
        ax.set_title(SHORT.get(m["key"], m["key"]), fontsize=9)
        ax.set_xticks(range(n), labels, fontsize=8)
        ax.set_yticks(range(n), labels, fontsize=8)
        ax.set_xlabel("destination", fontsize=7)
        ax.set_ylabel("source", fontsize=7)
        for i, row in enumerate(m["values"]):
            for j, v in enumerate(row):
                txt = "n/a" if v is None else f"{v:.0f}"
                dark = v is not None and v < math.sqrt(norm.vmin * norm.vmax)
                ax.text(j, i, txt, ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.8, label="GB/s (log scale)")
    name = devs[0]["name"] if devs else "?"
    title = a.title or f"p2p-bench: {n} x {name}, {d['date']} ({d['options']['size_bytes'] >> 20} MiB copies)"
    fig.suptitle(title, fontsize=11)
    fig.supxlabel("GPUs: " + ", ".join(f"{x['index']} = {x['bdf']}" for x in devs), fontsize=8)
    fig.savefig(a.out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
