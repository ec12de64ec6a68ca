#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The text and --dot replays of an RM capture say what its JSON replay says: every GPU
(index, address, chip, BAR1 size), the topology class of every pair in the matrix and on
the pair's line, each pair's verdict (and "moot" where NVLink joins the pair), the RM
facts line; and the text matrix agrees with what nvidia-smi topo -m printed on the
machine in the same run (the fixture's topo-m.txt, golden). A renderer that dropped or
garbled a fact fails here while the replay still exits 0.

  replay_formats.py REPORT.json REPORT.txt REPORT.dot FIXTURE_DIR"""
import json
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import replay_check  # noqa: E402  (topo_m: nvidia-smi topo -m as the machine printed it)


def main(argv):
    rep = json.load(open(argv[1]))
    text = open(argv[2]).read().split("\n")
    dot = open(argv[3]).read().split("\n")
    fixture = argv[4]
    errors, checks = [], 0

    def check(ok, what):
        nonlocal checks
        checks += 1
        if not ok:
            errors.append(what)

    gpus = {d["bdf"]: d for d in rep["devices"] if d.get("gpu")}
    by_index = {d["gpu"]["index"]: bdf for bdf, d in gpus.items()}
    pairs = {frozenset((p["a"], p["b"])): p for p in rep.get("pairs", [])}
    check(gpus, "the JSON replay names no GPU")

    # Every GPU: its heading in the text, its node in the picture.
    for bdf, d in gpus.items():
        i, chip = d["gpu"]["index"], d["chip"]["name"]
        check(any(l.startswith("GPU%d %s " % (i, bdf)) for l in text),
              "text: no heading 'GPU%d %s'" % (i, bdf))
        gib = d["gpu"]["bar1_size"] / (1 << 30)
        label = 'label="GPU%d %s\\n%s\\nBAR1 %g GiB' % (i, bdf, chip, gib)
        check(any(l.startswith('  "%s" [' % bdf) and label in l for l in dot),
              "dot: no node for %s labelled %r" % (bdf, label))
    check(any(re.match(r"\tNVIDIA facts: the driver's RM API \([0-9.]+, \d+ controls\)$", l)
              for l in text), "text: no RM facts line")

    # The text matrix: a row per GPU, its class for each other GPU, its address last.
    rows = {}
    start = next((k for k, l in enumerate(text) if l.startswith("Topology (")), None)
    check(start is not None or len(gpus) < 2, "text: no topology matrix")
    if start is not None:
        header = text[start + 1].split("\t")
        cols = [c for c in header if re.match(r"GPU\d+$", c)]
        for l in text[start + 2:start + 2 + len(cols)]:
            cells = [c.strip() for c in l.split("\t")]
            rows[cells[0]] = (cells[1:1 + len(cols)], cells[-1])
        check(len(rows) == len(gpus), "text matrix: %d rows, %d GPUs" % (len(rows), len(gpus)))
        for name, (cells, bdf) in rows.items():
            check(by_index.get(int(name[3:])) == bdf, "text matrix: row %s ends in %s" % (name, bdf))
            for j, cell in enumerate(cells):
                other = by_index.get(int(cols[j][3:]))
                if other == bdf:
                    check(cell == "X", "text matrix: %s's own cell is %r" % (name, cell))
                    continue
                p = pairs.get(frozenset((bdf, other)), {})
                check(cell == p.get("topology"), "text matrix %s/%s: %r, JSON %r"
                      % (name, cols[j], cell, p.get("topology")))
    # ... and nvidia-smi's own matrix of the same run, where it names NVLink.
    ids = {}
    for line in open(os.path.join(fixture, "smi-ids.csv")):
        if "," in line:
            k, bus = line.split(",", 1)
            ids[int(k)] = replay_check.rc.norm_bus(bus)
    for (a, b), cell in sorted(replay_check.topo_m(os.path.join(fixture, "topo-m.txt"),
                                                   ids).items()):
        if not cell.startswith("NV"):
            continue
        ours = [r[0] for r in rows.values() if r[1] == a]
        j = next((k for k, c in enumerate(cols) if by_index.get(int(c[3:])) == b), None)
        check(ours and j is not None and ours[0][j] == cell,
              "text matrix %s/%s: not nvidia-smi's %s" % (a, b, cell))

    # Every pair: its line in the text, its edge in the picture.
    for key, p in pairs.items():
        a, b = p["a"], p["b"]
        line = [l for l in text if l.startswith("GPU%d <-> GPU%d (%s <-> %s)  %s "
                                                % (p["gpu_a"], p["gpu_b"], a, b, p["topology"]))]
        check(len(line) == 1, "text: %s <-> %s: %d pair lines" % (a, b, len(line)))
        if line:
            m = re.search(r"BAR1 P2P: (ready|not ready|unknown)", line[0])
            check(m and m.group(1) == p["verdict"], "text %s <-> %s: %r, JSON verdict %r"
                  % (a, b, m and m.group(1), p["verdict"]))
            check(("(moot: " in line[0]) == bool(p["moot"]), "text %s <-> %s: moot %r"
                  % (a, b, p["moot"]))
        edge = [l for l in dot if re.match(r'  "(%s|%s)" -> "(%s|%s)" \[dir=none' % (a, b, a, b), l)]
        check(len(edge) == 1, "dot: %s -- %s: %d edges" % (a, b, len(edge)))
        if edge:
            label = re.search(r'label="([^"]*)"', edge[0]).group(1).split("\\n")
            want = "moot (" if p["moot"] else p["verdict"]
            check(label[0] == p["topology"] and label[1].startswith(want),
                  "dot %s -- %s: label %r, JSON %s %s" % (a, b, label, p["topology"], want))
    for e in errors:
        print("FAIL", e)
    print("replay formats: %d checks, %d failed" % (checks, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
