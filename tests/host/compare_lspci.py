#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares what bar-inspect reports for an lspci dump (`bar-inspect --lspci-dump FILE
--all --json`, the tool users run) with Debian's own decoding of the same dump
(`lspci -D -F FILE -vvv`, and `lspci -t` for the tree): per device the BAR regions
(index, address or unassigned, 32/64-bit, prefetchable, I/O, size where lspci shows
one), PCIe LnkCap/LnkSta speed and width, the ACS capability and control registers,
every Resizable BAR entry (BAR, current size, supported sizes) and the parent bridge.

Usage: compare_lspci.py BAR_INSPECT_BINARY DUMP_FILE
(test_snapshot.py reuses compare() on lspci -vvv text captured on the host itself.)
Exit 0 when every fact matches (and at least one device was compared), 1 otherwise.
"""
import json
import re
import subprocess
import sys

SPEEDS = {"2.5GT/s": 1, "5GT/s": 2, "8GT/s": 3, "16GT/s": 4, "32GT/s": 5, "64GT/s": 6}
ACS_NAMES = ["SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl",
             "DirectTrans"]
UNITS = {"MB": 0, "GB": 10, "TB": 20, "PB": 30, "EB": 40}
DEV_RE = re.compile(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ")
REGION_RE = re.compile(r"^\tRegion (\d): (Memory at|I/O ports at) (\S+)(.*)$")
LINK_RE = re.compile(r"^\t\tLnk(Cap|Sta):\t(?:Port #\d+, )?Speed ([^ ,]+)(?: \([a-z]+\))?, "
                     r"Width x(\d+)")
ACS_RE = re.compile(r"^\t\tACS(Cap|Ctl):\t(.*)$")
REBAR_RE = re.compile(r"^\t\tBAR (\d): current size: (\S+), supported: (.*)$")


def size_log2_mib(text):
    m = re.fullmatch(r"(\d+)(MB|GB|TB|PB|EB)", text)
    if not m:
        raise ValueError("unknown ReBAR size " + text)
    n = int(m.group(1))
    return n.bit_length() - 1 + UNITS[m.group(2)]


def parse_lspci(text):
    devs = {}
    cur = None
    in_rebar = False
    for line in text.splitlines():
        m = DEV_RE.match(line)
        if m:
            cur = devs.setdefault(m.group(1), {"bars": {}, "link": {}, "acs": {}, "rebar": []})
            in_rebar = False
            continue
        if cur is None:
            continue
        if line.startswith("\tCapabilities:"):
            # Only the physical capability: "Virtual Resizable BAR" is the VF variant.
            in_rebar = "Physical Resizable BAR" in line
            continue
        m = REGION_RE.match(line)
        if m:
            idx, kind, where, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            bar = {"io": kind.startswith("I/O")}
            bar["unassigned"] = where in ("<unassigned>", "<ignored>")
            sm = re.search(r"\[size=(\d+)([KMGT]?)\]", rest)
            if sm:
                bar["size"] = int(sm.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30,
                                                   "T": 40}[sm.group(2)]
            bar["address"] = None if where.startswith("<") else int(where, 16)
            if not bar["io"]:
                bar["is_64bit"] = "(64-bit" in rest
                bar["prefetchable"] = ", prefetchable)" in rest
            cur["bars"][idx] = bar
            continue
        m = LINK_RE.match(line)
        if m:
            cur["link"][m.group(1).lower()] = (SPEEDS.get(m.group(2), 0), int(m.group(3)))
            continue
        m = ACS_RE.match(line)
        if m:
            mask = 0
            for bit, name in enumerate(ACS_NAMES):
                if name + "+" in m.group(2).split():
                    mask |= 1 << bit
                elif name + "-" not in m.group(2).split():
                    raise ValueError("ACS flag %s missing in %r" % (name, line))
            cur["acs"][m.group(1).lower()] = mask
            continue
        m = REBAR_RE.match(line) if in_rebar else None
        if m:
            sizes = 0
            for s in m.group(3).split():
                sizes |= 1 << size_log2_mib(s)
            cur["rebar"].append((int(m.group(1)), size_log2_mib(m.group(2)), sizes))
    return devs


TREE_TOKEN = re.compile(r"\[([0-9a-f]{4}):([0-9a-f]{2})\]|\[([0-9a-f]{2})(?:-[0-9a-f]{2})?\]"
                        r"|([0-9a-f]{2})\.([0-7])|[+\\]")


def parse_tree(text):
    """Parent of every device from `lspci -t`: {bdf: parent bdf or None}.

    The tree is drawn with junctions ('+', '\\') whose column ties a continuation line
    to the bus context of the line that opened the junction."""
    parents = {}
    ctx_at = {}
    for line in text.splitlines():
        cur = None
        seen_content = False
        for m in TREE_TOKEN.finditer(line):
            tok = m.group(0)
            if tok in "+\\":
                if not seen_content:
                    cur = ctx_at.get(m.start())
                else:
                    ctx_at[m.start()] = cur
                continue
            seen_content = True
            if m.group(1):
                cur = (int(m.group(1), 16), int(m.group(2), 16), None)
            elif m.group(3):
                last = parents_last[0]
                cur = (last[0], int(m.group(3), 16), last[1])
            elif cur is not None:
                bdf = "%04x:%02x:%s.%s" % (cur[0], cur[1], m.group(4), m.group(5))
                parents[bdf] = cur[2]
                parents_last[0] = (cur[0], bdf)
    return parents


parents_last = [None]


def speed_code(gts):
    table = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
    return table.get(gts, 0) if gts is not None else 0


def log2_mib(nbytes):
    """ReBAR sizes are powers of two from 1 MiB: bytes -> log2(MiB)."""
    if nbytes < 1 << 20 or nbytes & (nbytes - 1):
        raise ValueError("not a ReBAR size: %r" % nbytes)
    return nbytes.bit_length() - 21


def compare(model_devices, lspci_text, tree_text, label):
    """Compares bar-inspect's JSON devices[] with lspci -vvv text and lspci -t text.
    Returns (errors, summary line)."""
    ref = parse_lspci(lspci_text)
    model = {d["bdf"]: d for d in model_devices}
    tree_parents = parse_tree(tree_text) if tree_text else {}
    errors = []
    checked = {"bars": 0, "links": 0, "acs": 0, "rebar": 0, "parents": 0}

    def check(bdf, what, mine, theirs):
        if mine != theirs:
            errors.append("%s %s: model %r, lspci %r" % (bdf, what, mine, theirs))

    check("-", "device list", sorted(model), sorted(ref))
    for bdf, r in ref.items():
        d = model.get(bdf)
        if d is None:
            continue
        if bdf in tree_parents:
            checked["parents"] += 1
            check(bdf, "parent", d["parent"], tree_parents[bdf])
        bars = {b["index"]: b for b in d["bars"]}
        # lspci 3.9 in dump mode lists the upper register of a 64-bit BAR as a region
        # of its own when it is non-zero (e.g. "Region 1: Memory at <unassigned>"
        # after a 64-bit Region 0 above 4 GiB); the model has no such BAR.
        for idx in [i for i in r["bars"] if i - 1 in bars and bars[i - 1]["is_64bit"]]:
            del r["bars"][idx]
        check(bdf, "BAR indexes", sorted(bars), sorted(r["bars"]))
        for idx, rb in r["bars"].items():
            b = bars.get(idx)
            if b is None:
                continue
            checked["bars"] += 1
            mine = {"io": b["io"], "unassigned": b["unassigned"],
                    "address": None if b["unassigned"] else b["address"]}
            if not b["io"]:
                mine["is_64bit"] = b["is_64bit"]
                mine["prefetchable"] = b["prefetchable"]
            if "size" in rb:
                mine["size"] = b["size"]
            check(bdf, "BAR %d" % idx, mine, rb)
        link = d.get("link") or {}
        for key, prefix in (("cap", "cap_"), ("sta", "")):
            theirs = r["link"].get(key)
            # No PCI Express capability (pcie_type null): lspci shows no Lnk lines.
            mine = None
            if d.get("pcie_type") is not None:
                # LnkSta Width x0 is a fact (a link that is down): the model must say 0, not
                # null. A capability of width 0 says nothing: the model leaves it unknown.
                width = link.get(prefix + "width")
                mine = (speed_code(link.get(prefix + "speed_gts")),
                        width or 0 if key == "cap" else width)
            if theirs is None and mine is not None and mine not in ((0, 0), (0, None)):
                errors.append("%s Lnk%s: model %r, lspci shows none" % (bdf, key, mine))
            elif theirs is not None:
                checked["links"] += 1
                check(bdf, "Lnk" + key.capitalize(), mine, theirs)
        acs = d.get("acs")
        if r["acs"] or acs:
            checked["acs"] += 1
            mine = {"cap": acs["cap"] & 0x7f, "ctl": acs["ctl"] & 0x7f} if acs else {}
            check(bdf, "ACS", mine, r["acs"])
        rebar = (d.get("rebar") or {}).get("entries") or []
        if r["rebar"] or rebar:
            checked["rebar"] += 1
            # lspci 3.9 lists sizes from the capability register only (bits 31:4:
            # 1 MiB .. 128 TiB); larger ones come from the control register.
            mine = [(e["bar"], log2_mib(e["current_size"]),
                     sum(1 << log2_mib(s) for s in e["supported_sizes"] if log2_mib(s) < 28))
                    for e in rebar]
            check(bdf, "Resizable BAR", mine, r["rebar"])
    summary = ("%s: %d devices; compared %d parents, %d BARs, %d link registers, %d ACS, "
               "%d ReBAR; %d mismatches" % (label, len(ref), checked["parents"],
                                            checked["bars"], checked["links"], checked["acs"],
                                            checked["rebar"], len(errors)))
    if not ref:
        errors.append("lspci decoded no devices")
    return errors, summary


def run_bar_inspect(tool, *args):
    """bar-inspect's JSON report of every device (--all), without NVML or pci.ids names."""
    out = subprocess.run([tool, *args, "--all", "--json", "--no-nvml", "--numeric"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("bar-inspect failed: " + out.stderr.strip())
    doc = json.loads(out.stdout)
    if doc.get("tool") != "bar-inspect":
        raise SystemExit("%s: not bar-inspect's JSON report" % tool)
    return doc


def main():
    tool, dump = sys.argv[1], sys.argv[2]
    lspci = subprocess.run(["lspci", "-D", "-F", dump, "-vvv"], capture_output=True, text=True)
    if lspci.returncode != 0:
        print("lspci failed: " + lspci.stderr.strip())
        return 1
    tree = subprocess.run(["lspci", "-F", dump, "-t"], capture_output=True, text=True)
    host = run_bar_inspect(tool, "--lspci-dump", dump)
    errors, summary = compare(host["devices"], lspci.stdout, tree.stdout,
                              dump.rsplit("/", 1)[-1])
    for e in errors:
        print("MISMATCH " + e)
    print(summary)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
