#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds snapshot folders of made-up hosts from the committed captures, each with planted
differences, for the fleet tests and the fleet benchmark.

Usage: make-fleet-snapshots.py FIXTURES OUT NAME=BASE[,FAULT...] ...

FIXTURES is tests/fixtures. Each NAME becomes OUT/NAME, a copy of one capture with its
host name, boot id and capture time set (so that reports from it name NAME), plus faults:

  BASE   h200x2      the 2 x H200 capture as it is (NVLink between the GPUs)
         h200pcie    the same with NVLink taken out of the captured topo -m, so the pair
                     is a PCIe pair (PHB) whose BAR1 verdict is not moot
         h100        the 1 x H100 capture (no pair)
         qemu        the QEMU guest with an emulated Intel IOMMU and a PCIe switch
                     (tests/fixtures/qemu-switch/acs-on); report it with
                     --peers 03:00.0,04:00.0,06:00.0
  FAULT  iommu       an Intel IOMMU (dmar0) with the GPUs in translating (DMA-FQ) groups
                     and intel_iommu=on on the command line
         bar1=GIB    GPU0's BAR1 shrunk to GIB GiB (the resource file and the BAR1
                     total nvidia-smi -q captured)
         link=W      GPU1's link trained at xW (config space LnkSta and sysfs)
         acs         the switch's downstream ports (02:00.0, 02:01.0) get an ACS
                     capability with ReqRedir+ CmpltRedir+ (copied from the root port's)
         date=YYYYmmddTHHMMSSZ  the capture time (default 20261122T000000Z)

The edits are to the files bar-inspect reads, the way the kernel would show such a host;
nothing here fakes a report. The originals are never modified.
"""
import os
import re
import shutil
import struct
import sys
import uuid

BASES = {
    "h200x2": "h200x2",
    "h200pcie": "h200x2",
    "h100": "h100",
    "qemu": "qemu-switch/acs-on",
}
GPU0, GPU1 = "sys/devices/pci0000:00/0000:00:06.0", "sys/devices/pci0000:00/0000:00:07.0"
SWITCH = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
ROOT_PORT = "sys/devices/pci0000:00/0000:00:01.0"


def die(msg):
    sys.exit("make-fleet-snapshots.py: " + msg)


def edit(path, fn):
    with open(path) as f:
        text = f.read()
    new = fn(text)
    if new == text:
        die(f"{path}: the edit changed nothing (fixture layout changed?)")
    with open(path, "w") as f:
        f.write(new)


def set_identity(snap, name, date):
    def info(text):
        text = re.sub(r"(?m)^hostname=.*$", "hostname=" + name, text)
        return re.sub(r"(?m)^date=.*$", "date=" + date, text)

    edit(os.path.join(snap, "p2pscope/snapshot-info"), info)
    os.makedirs(os.path.join(snap, "proc/sys/kernel/random"), exist_ok=True)
    with open(os.path.join(snap, "proc/sys/kernel/hostname"), "w") as f:
        f.write(name + "\n")
    with open(os.path.join(snap, "proc/sys/kernel/random/boot_id"), "w") as f:
        f.write(str(uuid.uuid5(uuid.NAMESPACE_DNS, name + "/" + date)) + "\n")


def no_nvlink(snap):
    edit(os.path.join(snap, "p2pscope/nvidia-smi-topo-m.txt"), lambda t: t.replace("NV18", "PHB "))
    nvl = os.path.join(snap, "p2pscope/nvidia-smi-nvlink.txt")
    if os.path.exists(nvl):
        os.remove(nvl)


def iommu(snap):
    os.makedirs(os.path.join(snap, "sys/class/iommu/dmar0"), exist_ok=True)
    open(os.path.join(snap, "sys/class/iommu/dmar0/.keep"), "w").close()
    for group, dev in ((20, GPU0), (21, GPU1)):
        gdir = os.path.join(snap, "sys/kernel/iommu_groups", str(group))
        os.makedirs(os.path.join(gdir, "devices"), exist_ok=True)
        with open(os.path.join(gdir, "type"), "w") as f:
            f.write("DMA-FQ\n")
        bdf = os.path.basename(dev)
        os.symlink(f"../../../../devices/pci0000:00/{bdf}", os.path.join(gdir, "devices", bdf))
        os.symlink(f"../../../kernel/iommu_groups/{group}", os.path.join(snap, dev, "iommu_group"))
    edit(os.path.join(snap, "proc/cmdline"), lambda t: "intel_iommu=on " + t)


def bar1(snap, gib):
    size = gib << 30

    def resource(text):
        lines = text.split("\n")
        start = int(lines[2].split()[0], 16)
        flags = lines[2].split()[2]
        lines[2] = f"0x{start:016x} 0x{start + size - 1:016x} {flags}"
        return "\n".join(lines)

    edit(os.path.join(snap, GPU0, "resource"), resource)
    # The first "BAR1 Memory Usage" block of nvidia-smi -q is GPU0's.
    edit(os.path.join(snap, "p2pscope/nvidia-smi-q.txt"),
         lambda t: re.sub(r"(BAR1 Memory Usage\n\s+Total\s+: )\d+ MiB",
                          lambda m: f"{m.group(1)}{size >> 20} MiB", t, count=1))


def capability(config, cap_id):
    ptr = config[0x34]
    while ptr:
        if config[ptr] == cap_id:
            return ptr
        ptr = config[ptr + 1]
    die(f"no capability {cap_id:#x}")


def link(snap, width):
    path = os.path.join(snap, GPU1, "config")
    config = bytearray(open(path, "rb").read())
    lnksta = capability(config, 0x10) + 0x12
    value = struct.unpack_from("<H", config, lnksta)[0]
    struct.pack_into("<H", config, lnksta, (value & ~0x3F0) | (width << 4))
    open(path, "wb").write(config)
    edit(os.path.join(snap, GPU1, "current_link_width"), lambda t: f"{width}\n")


def ext_caps(config):
    off = 0x100
    while off:
        header = struct.unpack_from("<I", config, off)[0]
        yield off, header
        off = header >> 20


def acs(snap):
    root = open(os.path.join(snap, ROOT_PORT, "config"), "rb").read()
    src = [off for off, h in ext_caps(root) if h & 0xFFFF == 0x000D][0]
    for port in ("0000:02:00.0", "0000:02:01.0"):
        path = os.path.join(snap, SWITCH, port, "config")
        config = bytearray(open(path, "rb").read())
        last, header = list(ext_caps(config))[-1]
        new = 0x148  # after the AER capability at 0x100, as on the root port
        if any(config[new:new + 8]) or last >= new:
            die(f"{path}: no room for an ACS capability at {new:#x}")
        struct.pack_into("<I", config, last, (header & 0xFFFFF) | (new << 20))
        struct.pack_into("<I", config, new, 0x000D | (1 << 16))
        config[new + 4:new + 8] = root[src + 4:src + 8]  # ACSCap, ACSCtl (ReqRedir+ CmpltRedir+)
        open(path, "wb").write(config)


def make(fixtures, out, spec):
    name, _, rest = spec.partition("=")
    base, *faults = rest.split(",")
    if base not in BASES:
        die(f"{spec}: unknown base '{base}' ({', '.join(BASES)})")
    snap = os.path.join(out, name)
    shutil.copytree(os.path.join(fixtures, BASES[base]), snap, symlinks=True)
    date = "20261122T000000Z"
    for fault in faults:
        key, _, value = fault.partition("=")
        if key == "iommu":
            iommu(snap)
        elif key == "bar1":
            bar1(snap, int(value))
        elif key == "link":
            link(snap, int(value))
        elif key == "acs":
            acs(snap)
        elif key == "date":
            date = value
        else:
            die(f"{spec}: unknown fault '{fault}'")
    if base == "h200pcie":
        no_nvlink(snap)
    set_identity(snap, name, date)


def main():
    if len(sys.argv) < 4:
        die("usage: make-fleet-snapshots.py FIXTURES OUT NAME=BASE[,FAULT...] ...")
    fixtures, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for spec in sys.argv[3:]:
        make(fixtures, out, spec)


if __name__ == "__main__":
    main()
