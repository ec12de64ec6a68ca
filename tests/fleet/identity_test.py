#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A report names the host it came from: host.hostname, boot_id, time and kernel in
bar-inspect --json, and the bridges on the GPUs' paths ("bridges"), which the fleet
summary needs (docs/bar-inspect.md). Checked against independent sources:

  - live: /proc/sys/kernel/random/boot_id, uname -r, hostname, the clock around the run;
  - a capture-host.sh capture of this machine: the same boot id, kernel and host name as
    live, and the capture's time within the run;
  - the committed 2 x H200 capture: its snapshot-info (date, kernel), no boot id (captured
    before boot ids were);
  - the QEMU guest capture: "bridges" holds exactly the bridges on the endpoints' paths,
    each with the ACS control bits the guest's own lspci -vvv printed.

Usage: identity_test.py BAR_INSPECT SOURCE_DIR
"""
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import tarfile
import tempfile

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def report(bi, *args):
    out = subprocess.run([bi, "--json", "--no-nvml", *args], check=True, capture_output=True)
    return json.loads(out.stdout)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def parse_time(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


def check_live(bi):
    start = utc_now()
    h = report(bi)["host"]
    end = utc_now()
    boot = open("/proc/sys/kernel/random/boot_id").read().strip()
    check(h["boot_id"] == boot, f"live boot_id {h['boot_id']!r}, /proc says {boot!r}")
    check(h["kernel"] == os.uname().release, f"live kernel {h['kernel']!r}")
    check(h["hostname"] == socket.gethostname(), f"live hostname {h['hostname']!r}")
    t = parse_time(h["time"])
    check(start <= t <= end, f"live time {h['time']} not within {start}..{end}")
    return h


def check_capture(bi, top, live):
    with tempfile.TemporaryDirectory() as tmp:
        start = utc_now()
        subprocess.run([os.path.join(top, "scripts/capture-host.sh"), "--no-tools", "-o",
                        os.path.join(tmp, "c.tgz")], check=True, capture_output=True, cwd=tmp)
        end = utc_now()
        with tarfile.open(os.path.join(tmp, "c.tgz")) as t:
            t.extractall(tmp)
        snap = [os.path.join(tmp, d) for d in os.listdir(tmp) if d.startswith("p2pscope-snap-")][0]
        h = report(bi, "--root", snap)["host"]
        for k in ("boot_id", "kernel", "hostname"):
            check(h[k] == live[k], f"capture {k} {h[k]!r}, live {live[k]!r}")
        t = parse_time(h["time"])
        check(start <= t <= end, f"capture time {h['time']} not within {start}..{end}")


def check_fixture(bi, top):
    h = report(bi, "--root", os.path.join(top, "tests/fixtures/h200x2"))["host"]
    check(h["time"] == "2026-11-22T00:27:01Z", f"h200x2 time {h['time']!r}")  # date=20261122T002701Z
    check(h["kernel"] == "6.18.44-fc-v657-gpu", f"h200x2 kernel {h['kernel']!r}")
    check(h["boot_id"] is None, f"h200x2 boot_id {h['boot_id']!r}: the capture has none")


def lspci_acsctl(text):
    """{bdf: set of enabled ACSCtl bits} from lspci -D -vvv output."""
    out, bdf = {}, None
    for line in text.splitlines():
        m = re.match(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", line)
        if m:
            bdf = m.group(1)
        m = re.search(r"ACSCtl:\s*(.*)", line)
        if m and bdf:
            out[bdf] = {w[:-1] for w in m.group(1).split() if w.endswith("+")}
    return out


def check_bridges(bi, top):
    snap = os.path.join(top, "tests/fixtures/qemu-switch/acs-on")
    r = report(bi, "--root", snap, "--peers", "03:00.0,04:00.0,06:00.0")
    on_path = sorted({b for d in r["devices"] if d.get("gpu") for b in d["path"]})
    got = [b["bdf"] for b in r["bridges"]]
    check(got == on_path, f"bridges {got}, expected the path bridges {on_path}")
    ctl = lspci_acsctl(open(os.path.join(snap, "p2pscope/lspci-vvv.txt")).read())
    bits = {"SrcValid": 0x1, "TransBlk": 0x2, "ReqRedir": 0x4, "CmpltRedir": 0x8,
            "UpstreamFwd": 0x10, "EgressCtrl": 0x20, "DirectTrans": 0x40}
    compared = [b["bdf"] for b in r["bridges"] if b["bdf"] in ctl]
    check(len(compared) >= 2, f"lspci shows ACS for too few path bridges: {compared}")
    for b in r["bridges"]:
        want = ctl.get(b["bdf"])
        if want is None:
            check(b["acs"] is None, f"bridge {b['bdf']}: acs {b['acs']}, lspci shows none")
            continue
        check(b["acs"] is not None and b["acs"]["ctl"] == sum(bits[w] for w in want),
              f"bridge {b['bdf']}: acs {b['acs']}, lspci ACSCtl {sorted(want)}")
    check(r["bridges"] and r["bridges"][0]["device_name"] == "QEMU PCIe Root port",
          f"first bridge {r['bridges'][:1]}")


def main():
    bi, top = sys.argv[1], sys.argv[2]
    live = check_live(bi)
    check_capture(bi, top, live)
    check_fixture(bi, top)
    check_bridges(bi, top)
    for f in failures:
        print("identity_test: FAIL " + f)
    if failures:
        sys.exit(1)
    print("identity_test: ok")


if __name__ == "__main__":
    main()
