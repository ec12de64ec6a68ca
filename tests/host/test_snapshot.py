#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a captured snapshot (scripts/capture-host.sh, extracted) against what the
tools said on that host at capture time:

- p2pscope/lspci-vvv.txt (lspci -D -vvv run live there): BAR addresses, sizes and
  types, LnkCap/LnkSta, ACS and Resizable BAR of every device, as loaded with --root;
- p2pscope/lspci-xxxx.txt (root captures): the same through the lspci-dump backend,
  against Debian's lspci decoding that dump here, plus the tree from lspci -t;
- p2pscope/nvidia-smi-q.txt: per GPU, one BAR of the model has the size nvidia-smi
  reports as BAR1 Total, the FB total is the model's VRAM, and the GPU's link
  capability equals nvidia-smi's "Device Max" generation and "Max" width.

Every model fact checked is read from bar-inspect's own JSON report (--all --json).

Usage: test_snapshot.py BAR_INSPECT_BINARY SNAPSHOT_DIR|SNAPSHOT.tar.gz
(a tarball from capture-host.sh is extracted to a temporary directory first)
"""
import os
import re
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_lspci  # noqa: E402

GEN_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}


def parse_nvsmi(text):
    """{bdf: {"bar1": bytes, "fb": bytes, "gen_max": n, "width_max": n}}"""
    gpus = {}
    cur = None
    block = None
    for line in text.splitlines():
        m = re.match(r"^GPU ([0-9A-Fa-f]{8}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])", line)
        if m:
            bdf = "%04x:%s:%s.%s" % (int(m.group(1), 16), m.group(2).lower(),
                                     m.group(3).lower(), m.group(4))
            cur = gpus.setdefault(bdf, {})
            block = None
            continue
        if cur is None:
            continue
        s = line.strip()
        if s and ":" not in s:
            block = s  # a section header ("BAR1 Memory Usage", "Link Width", ...)
            continue
        m = re.match(r"^(\w[\w ]*?)\s*: (.*)$", s)
        if not m:
            continue
        key, val = m.group(1), m.group(2)
        if block == "FB Memory Usage" and key == "Total":
            cur["fb"] = int(val.split()[0]) << 20
        elif block == "BAR1 Memory Usage" and key == "Total":
            cur["bar1"] = int(val.split()[0]) << 20
        elif block == "PCIe Generation" and key in ("Max", "Device Max") and val.isdigit():
            cur["gen_dev_max" if key == "Device Max" else "gen_max"] = int(val)
        elif block == "Link Width" and key == "Max" and val.endswith("x"):
            cur["width_max"] = int(val[:-1])
    return gpus


def extract(tarball, into):
    """Extracts a capture-host.sh tarball; returns the snapshot root inside it."""
    with tarfile.open(tarball) as t:
        for m in t.getmembers():
            if m.name.startswith("/") or ".." in m.name.split("/"):
                raise SystemExit("%s: unsafe member %s" % (tarball, m.name))
        t.extractall(into)
    tops = os.listdir(into)
    return os.path.join(into, tops[0]) if len(tops) == 1 else into


def main():
    tool, snap = sys.argv[1], sys.argv[2]
    if os.path.isfile(snap):
        tmp = tempfile.TemporaryDirectory()
        snap = extract(snap, tmp.name)
    meta = os.path.join(snap, "p2pscope")
    host = compare_lspci.run_bar_inspect(tool, "--root", snap)
    devices = {d["bdf"]: d for d in host["devices"]}
    errors = []
    ran = []
    vvv = os.path.join(meta, "lspci-vvv.txt")
    if os.path.exists(vvv):
        with open(vvv) as f:
            e, summary = compare_lspci.compare(host["devices"], f.read(), None,
                                               "live lspci -vvv")
        errors += e
        ran.append(summary)
    xxxx = os.path.join(meta, "lspci-xxxx.txt")
    if os.path.exists(xxxx):
        lspci = subprocess.run(["lspci", "-D", "-F", xxxx, "-vvv"], capture_output=True,
                               text=True)
        tree = subprocess.run(["lspci", "-F", xxxx, "-t"], capture_output=True, text=True)
        dump = compare_lspci.run_bar_inspect(tool, "--lspci-dump", xxxx)
        e, summary = compare_lspci.compare(dump["devices"], lspci.stdout, tree.stdout,
                                           "lspci-xxxx dump")
        errors += e
        ran.append(summary)
    q = os.path.join(meta, "nvidia-smi-q.txt")
    if os.path.exists(q):
        with open(q) as f:
            gpus = parse_nvsmi(f.read())
        for bdf, g in gpus.items():
            d = devices.get(bdf)
            if d is None:
                errors.append("%s: in nvidia-smi -q but not in the model" % bdf)
                continue
            sizes = [b["size"] for b in d["bars"]]
            if "bar1" in g and g["bar1"] not in sizes:
                errors.append("%s: nvidia-smi BAR1 Total %d MiB matches no BAR %r"
                              % (bdf, g["bar1"] >> 20, sizes))
            if "fb" in g and (d.get("gpu") or {}).get("vram") != g["fb"]:
                errors.append("%s: VRAM %r, nvidia-smi FB Total %d"
                              % (bdf, (d.get("gpu") or {}).get("vram"), g["fb"]))
            gen = g.get("gen_dev_max", g.get("gen_max"))
            link = d.get("link") or {}
            if gen and link.get("cap_speed_gts") != GEN_GTS.get(gen):
                errors.append("%s: link cap %r GT/s, nvidia-smi max generation %d"
                              % (bdf, link.get("cap_speed_gts"), gen))
            if "width_max" in g and link.get("cap_width") != g["width_max"]:
                errors.append("%s: link cap x%r, nvidia-smi max width x%d"
                              % (bdf, link.get("cap_width"), g["width_max"]))
        ran.append("nvidia-smi -q: %d GPUs" % len(gpus))
    for e in errors:
        print("MISMATCH " + e)
    print("%s: %d devices; %s; %d mismatches" % (snap, len(devices), "; ".join(ran) or
                                                  "no tool output captured", len(errors)))
    return 1 if errors or not devices else 0


if __name__ == "__main__":
    sys.exit(main())
