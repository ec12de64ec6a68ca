#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The live backend against independent reads of this machine's sysfs.

For every PCI device: ids and class from the sysfs attribute files, every BAR's
address and size from the `resource` file, the bound driver and IOMMU group from
their links, the NUMA node, the current/max link attributes, and the config space
length a read of `config` returns. Also the host's /proc/cmdline and IOMMU units.

Usage: test_live_sysfs.py HOST_DUMP_BINARY
"""
import json
import os
import subprocess
import sys

SYS = "/sys/bus/pci/devices"
SPEEDS = {"2.5": 2.5, "5.0": 5.0, "8.0": 8.0, "16.0": 16.0, "32.0": 32.0, "64.0": 64.0}


def attr(dev, name):
    try:
        with open(os.path.join(SYS, dev, name)) as f:
            return f.read().strip()
    except OSError:
        return None


def main():
    out = subprocess.run([sys.argv[1], "--live", "--no-nvml", "--numeric"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print("host-dump failed: " + out.stderr.strip())
        return 1
    host = json.loads(out.stdout)
    model = {d["bdf"]: d for d in host["devices"]}
    errors = []

    def check(bdf, what, mine, theirs):
        if mine != theirs:
            errors.append("%s %s: model %r, sysfs %r" % (bdf, what, mine, theirs))

    devs = sorted(os.listdir(SYS))
    check("-", "devices", sorted(model), devs)
    nbars = 0
    for bdf in devs:
        d = model.get(bdf)
        if d is None:
            continue
        check(bdf, "vendor", d["vendor_id"], int(attr(bdf, "vendor"), 16))
        check(bdf, "device", d["device_id"], int(attr(bdf, "device"), 16))
        check(bdf, "class", d["class"], int(attr(bdf, "class"), 16))
        # resource: one "start end flags" line per region; BARs are lines 0..5.
        lines = attr(bdf, "resource").splitlines()
        bars = {b["index"]: b for b in d["bars"]}
        for i, line in enumerate(lines[:6]):
            start, end, flags = (int(x, 16) for x in line.split())
            if start == 0 and end == 0:
                continue
            b = bars.get(i)
            if b is None:
                errors.append("%s BAR %d: missing in the model" % (bdf, i))
                continue
            nbars += 1
            check(bdf, "BAR %d address" % i, b["address"], start)
            check(bdf, "BAR %d size" % i, b["size"], end - start + 1)
            # IORESOURCE_PREFETCH 0x2000, IORESOURCE_MEM_64 0x100000, IORESOURCE_IO 0x100
            check(bdf, "BAR %d io" % i, b["io"], bool(flags & 0x100))
            if not b["io"]:
                check(bdf, "BAR %d prefetchable" % i, b["prefetchable"], bool(flags & 0x2000))
                check(bdf, "BAR %d 64-bit" % i, b["is_64bit"], bool(flags & 0x100000))
        drv = os.path.join(SYS, bdf, "driver")
        check(bdf, "driver", d["driver"],
              os.path.basename(os.readlink(drv)) if os.path.islink(drv) else None)
        grp = os.path.join(SYS, bdf, "iommu_group")
        check(bdf, "iommu_group", d["iommu_group"],
              int(os.path.basename(os.readlink(grp))) if os.path.islink(grp) else None)
        numa = attr(bdf, "numa_node")
        check(bdf, "numa_node", d["numa_node"], int(numa) if numa is not None else -1)
        with open(os.path.join(SYS, bdf, "config"), "rb") as f:
            check(bdf, "config_len", d["config_len"], len(f.read()))
        cur = attr(bdf, "current_link_speed")
        if cur and cur.split()[0] in SPEEDS:
            check(bdf, "current link speed", d["link"]["sysfs_cur"]["speed_gts"],
                  SPEEDS[cur.split()[0]])
            check(bdf, "current link width", d["link"]["sysfs_cur"]["width"],
                  int(attr(bdf, "current_link_width")))
        real = os.path.realpath(os.path.join(SYS, bdf))
        parent = os.path.basename(os.path.dirname(real))
        check(bdf, "parent", d["parent"], parent if parent.count(":") == 2 else None)
    with open("/proc/cmdline") as f:
        check("-", "cmdline", host["cmdline"]["raw"], f.read().strip())
    units = sorted(os.listdir("/sys/class/iommu")) if os.path.isdir("/sys/class/iommu") else []
    check("-", "iommu present", host["iommu"]["present"], bool(units))
    check("-", "is_root", host["is_root"], os.geteuid() == 0)
    for e in errors:
        print("MISMATCH " + e)
    print("live: %d devices, %d BARs compared with sysfs; %d mismatches"
          % (len(devs), nbars, len(errors)))
    return 1 if errors or not devs else 0


if __name__ == "__main__":
    sys.exit(main())
