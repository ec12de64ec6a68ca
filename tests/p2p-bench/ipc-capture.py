#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""p2p-bench's report path on a real `p2p-bench --ipc --json` capture (2 x H200, NVLink
through NVSwitch, driver 580.159.04, committed under tests/fixtures/p2p-bench/) joined with
bar-inspect's report of the same machine: `p2p-bench report` (text and --json) must take
the one-process matrices, not the IPC ones that follow them, set each pair against the
link's limit (18 NVLinks x the per-link rate NVML gave, from the capture's own devices),
and the IPC matrices, the figure the IPC mode is meant to reproduce, must lie within 5% of
what the report prints. The capture itself: every copy verified, every IPC matrix present
for both ways of sharing, beside a one-process matrix, and the GPUDirect facts per device.

  ipc-capture.py P2P-BENCH IPC-CAPTURE.json HOST-REPORT.json"""
import json
import math
import subprocess
import sys


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL {' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def main(bench, capture, host):
    doc = json.load(open(capture))
    hostdoc = json.load(open(host))
    mats = {m["key"]: m for m in doc["matrices"]}
    fails, checks = [], 0

    def check(ok, what):
        nonlocal checks
        checks += 1
        if not ok:
            fails.append(what)

    # The capture as the IPC mode wrote it.
    v = doc["verification"]
    check(v["mismatched_words"] == 0 and v["transfers"] > 0, "verification: %r" % v)
    ipc_keys = [k + s for k in ("ipc_ce_", "ipc_fd_ce_") for s in ("uni", "bi", "lat")]
    for key in ipc_keys:
        m = mats.get(key)
        base = mats.get((m or {}).get("set_beside", ""))
        check(m is not None and base is not None and not base.get("sharing"),
              "%s: missing, or no one-process matrix beside it" % key)
    for d in doc["devices"]:
        g = d.get("gpudirect") or {}
        for k in ("rdma_supported", "dma_buf", "posix_fd_handles"):
            check(k in g, "device %d lacks gpudirect.%s" % (d["index"], k))

    # The report code on it.
    combined = json.loads(run([bench, "report", "--json", "--bench", capture, "--host", host]))
    text = run([bench, "report", "--bench", capture, "--host", host])
    n = len(doc["devices"])
    pairs = combined["pairs"]
    check(len(pairs) == n * (n - 1), "%d pairs reported, %d devices" % (len(pairs), n))
    hpairs = {frozenset((p["a"].lower(), p["b"].lower())): p for p in hostdoc["pairs"]}
    for p in pairs:
        i, j = p["src_index"], p["dst_index"]
        where = "%s -> %s" % (p["src"], p["dst"])
        bdev = doc["devices"][i]
        check(p["src"] == bdev["bdf"].lower() and p["dst"] == doc["devices"][j]["bdf"].lower(),
              "%s: not the capture's devices %d -> %d" % (where, i, j))
        hp = hpairs.get(frozenset((p["src"], p["dst"])), {})
        check(p["topology"] == hp.get("topology") == "NV18",
              "%s: topology %r, host report %r" % (where, p["topology"], hp.get("topology")))
        # NVML hides the remote ends in this VM: 18 links (NV18) x the per-link rate.
        limit = 18 * bdev["nvlink"]["speed_mbps"] / 1000.0
        check(abs(p["theoretical_gbps"] - limit) < 0.001,
              "%s: limit %r, expected 18 x %r MB/s" % (where, p["theoretical_gbps"],
                                                      bdev["nvlink"]["speed_mbps"]))
        for name, key, ways in (("ce_uni", "ce_uni_p2p_on", 1), ("ce_bi", "ce_bi_p2p_on", 2),
                                ("sm_write_uni", "sm_write_uni_p2p_on", 1),
                                ("sm_read_uni", "sm_read_uni_p2p_on", 1),
                                ("sm_write_bi", "sm_write_bi_p2p_on", 2)):
            got, cell = p["measured_gbps"][name], mats[key]["values"][i][j]
            check(abs(got - cell) < 0.0006, "%s %s: %r, capture's %s cell %r"
                  % (where, name, got, key, cell))
            check(abs(p["ratio"][name] - cell / (ways * limit)) < 0.0006,
                  "%s %s ratio: %r" % (where, name, p["ratio"][name]))
        row = "%s -> %s" % (p["src"], p["dst"])
        line = [l for l in text.splitlines() if l.startswith(row)]
        check(len(line) == 1 and " NV18 " in line[0] and "%.1f" % limit in line[0]
              and "%.1f" % p["measured_gbps"]["ce_uni"] in line[0],
              "text report line for %s: %r" % (row, line))
        # The IPC mode reproduces the one-process copies the report printed.
        for key, name in (("ipc_ce_uni", "ce_uni"), ("ipc_fd_ce_uni", "ce_uni"),
                          ("ipc_ce_bi", "ce_bi"), ("ipc_fd_ce_bi", "ce_bi")):
            ipc = mats[key]["values"][i][j]
            got = p["measured_gbps"][name]
            check(ipc is not None and math.isfinite(ipc) and abs(ipc / got - 1) <= 0.05,
                  "%s %s = %r, the report's %s %r" % (where, key, ipc, name, got))
    for f in fails:
        print("FAIL", f)
    print("ipc-capture: %d checks, %d failed" % (checks, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
