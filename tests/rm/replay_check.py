#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a replayed bar-inspect report (--json) against what nvidia-smi said on the same
machine in the same run: FB Total and Reserved and BAR1 Total per GPU (nvidia-smi -q), the
NV# of each pair (nvidia-smi topo -m) and the P2P status per path (nvidia-smi topo -p2p
r/w/n/a/p) against the driver's caps per pair. Golden values are the machine's own output.

  replay_check.py REPORT.json FIXTURE_DIR"""
import importlib.util
import json
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "rm_compare", os.path.join(here, "..", "..", "scripts", "device", "rm-compare.py"))
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)


def topo_m(path, ids):
    """{(bdf_i, bdf_j): 'NV18' | 'PHB' | ...} from `nvidia-smi topo -m`."""
    out, header = {}, None
    for line in open(path, errors="replace"):
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        toks = line.split()
        if toks and toks[0].startswith("GPU") and header is None and all(
                t.startswith("GPU") for t in toks[:2]):
            header = [t for t in toks if re.match(r"GPU\d+$", t)]
            continue
        if header and toks and re.match(r"GPU\d+$", toks[0]):
            i = int(toks[0][3:])
            for j, cell in enumerate(toks[1:1 + len(header)]):
                gj = int(header[j][3:])
                if i != gj and i in ids and gj in ids:
                    out[(ids[i], ids[gj])] = cell
    return out


def main(argv):
    rep = json.load(open(argv[1]))
    d = argv[2]
    errors, checks = [], 0

    def check(what, want, got):
        nonlocal checks
        checks += 1
        if want != got:
            errors.append("%s: nvidia-smi %r, replay %r" % (what, want, got))

    check("facts source", "rm", rep["host"]["nvidia"].get("facts_source"))
    ids = {}
    for line in open(os.path.join(d, "smi-ids.csv")):
        if "," in line:
            i, bus = line.split(",", 1)
            ids[int(i)] = rc.norm_bus(bus)
    gpus = rc.gpus(rep)
    check("GPUs", sorted(ids.values()), sorted(gpus))
    for bus, v in sorted(rc.smi_q(os.path.join(d, "smi-q.txt")).items()):
        g = gpus.get(bus, (None, {}))[1]
        fb = (g.get("rm") or {}).get("fb") or {}
        check("%s FB Total MiB" % bus, v.get("fb_total"), (g.get("vram") or 0) // rc.MIB)
        # nvidia-smi prints Reserved rounded up to a MiB (615.06 -> 616, and Free 143155.94 ->
        # 143156 on the 2 x H200 host).
        check("%s FB Reserved MiB" % bus, v.get("fb_reserved"), -(-(fb.get("reserved") or 0) // rc.MIB))
        check("%s BAR1 Total MiB" % bus, v.get("bar1_total"),
              (g.get("bar1_driver_total") or 0) // rc.MIB)
    pairs = {(p["a"].lower(), p["b"].lower()): p for p in rep.get("pairs", [])}
    for (a, b), cell in sorted(topo_m(os.path.join(d, "topo-m.txt"), ids).items()):
        p = pairs.get((a, b)) or pairs.get((b, a))
        if cell.startswith("NV"):
            check("pair %s-%s topology" % (a, b), cell, p and p.get("topology"))
    for kind, name in sorted(rc.SMI_PATH.items()):
        f = os.path.join(d, "topo-p2p-%s.txt" % kind)
        if not os.path.exists(f):
            continue
        for (a, b), code in sorted(rc.topo_p2p(f, ids).items()):
            p = pairs.get((a, b)) or pairs.get((b, a)) or {}
            st = (p.get("driver_p2p") or {}).get("status") or {}
            check("pair %s-%s %s" % (a, b, name), rc.SMI_CODE.get(code, code), st.get(name))
    for e in errors:
        print("replay_check: %s" % e)
    print("replay_check: %s: %d checks, %d differ" % (d, checks, len(errors)))
    return 1 if errors or checks < 4 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
