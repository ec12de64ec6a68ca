#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a real `p2p-bench --ipc --json` capture (2 x H200, NVLink through NVSwitch,
driver 580.159.04, committed under tests/fixtures/p2p-bench/): every copy verified, every
IPC matrix present for both ways of sharing, and every IPC cell within 5% of the
one-process matrix it is set beside (the figure the IPC mode is meant to reproduce)."""
import json
import math
import sys


def main(path):
    doc = json.load(open(path))
    mats = {m["key"]: m for m in doc["matrices"]}
    fails = []
    if doc["verification"]["mismatched_words"] != 0 or doc["verification"]["transfers"] == 0:
        fails.append("verification: %r" % doc["verification"])
    want = [k + s for k in ("ipc_ce_", "ipc_fd_ce_") for s in ("uni", "bi", "lat")]
    for key in want:
        m = mats.get(key)
        if not m:
            fails.append("missing matrix " + key)
            continue
        base = mats.get(m.get("set_beside", ""))
        if not base or base.get("sharing"):
            fails.append("%s: no one-process matrix beside it" % key)
            continue
        for i, row in enumerate(m["values"]):
            for j, v in enumerate(row):
                if i == j:
                    if v is not None:
                        fails.append("%s[%d][%d]: the diagonal shares nothing" % (key, i, j))
                    continue
                b = base["values"][i][j]
                if v is None or b is None or not math.isfinite(v) or abs(v / b - 1) > 0.05:
                    fails.append("%s[%d][%d] = %r, one process %r" % (key, i, j, v, b))
    for d in doc["devices"]:
        g = d.get("gpudirect") or {}
        for k in ("rdma_supported", "dma_buf", "posix_fd_handles"):
            if k not in g:
                fails.append("device %d lacks gpudirect.%s" % (d["index"], k))
    for f in fails:
        print("FAIL", f)
    n = len(want)
    print("%d passed, %d failed" % (n - min(n, len(fails)), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
