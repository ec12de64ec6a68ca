#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares bar-inspect's NVIDIA facts from NVML and from the RM API, field by field, and
both with nvidia-smi's own view where it has one.

  rm-compare.py NVML.json RM.json [--smi-q FILE] [--smi-ids FILE] [--topo-p2p KIND=FILE ...]

NVML.json and RM.json are `bar-inspect --all --json --nvidia-facts nvml|rm` of one host.
--smi-q is `nvidia-smi -q` (FB Memory Usage Total/Reserved, BAR1 Total per GPU, by bus id),
--smi-ids is `nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader` and each
--topo-p2p KIND=FILE (KIND r, w, n, a or p) is `nvidia-smi topo -p2p KIND`. Prints one line
per fact: the fact, each source's value and AGREE or DIFFER; then the counts. Exit status 0
when every fact NVML and RM both give agrees, 1 otherwise, 2 on bad input."""
import json
import re
import sys

MIB = 1 << 20
rows = []  # (fact, a, b, agree or None)


def fact(name, a, b, agree=None):
    if agree is None:
        agree = a == b
    rows.append((name, a, b, agree))


def gpus(report):
    out = {}
    for d in report.get("devices", []):
        g = d.get("gpu")
        if g and g.get("is_gpu"):
            out[d["bdf"].lower()] = (d, g)
    return out


def peers(g):
    p = g.get("nvlink_peers")
    return None if p is None else sorted((x["bdf"].lower(), x["links"]) for x in p)


def norm_bus(bus):
    # nvidia-smi's 00000000:1B:00.0 -> 0000:1b:00.0
    m = re.match(r"([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-7])", bus.strip())
    if not m:
        return bus.strip().lower()
    return "%04x:%02x:%02x.%s" % (int(m[1], 16) & 0xFFFF, int(m[2], 16), int(m[3], 16), m[4])


def smi_q(path):
    """Per bus id: FB total/reserved and BAR1 total in MiB."""
    out, bus, section = {}, None, None
    for line in open(path, errors="replace"):
        m = re.match(r"^GPU ([0-9A-Fa-f:.]+)\s*$", line)
        if m:
            bus = norm_bus(m[1])
            out[bus] = {}
            continue
        s = line.strip()
        if s.startswith("FB Memory Usage"):
            section = "fb"
        elif s.startswith("BAR1 Memory Usage"):
            section = "bar1"
        elif s and not s.startswith(("Total", "Reserved", "Used", "Free")):
            section = None if ":" not in s else section
        m = re.match(r"(Total|Reserved)\s*:\s*(\d+) MiB", s)
        if bus and section and m:
            out[bus]["%s_%s" % (section, m[1].lower())] = int(m[2])
    return out


def topo_p2p(path, ids):
    """{(bdf_i, bdf_j): code} from a `nvidia-smi topo -p2p K` matrix."""
    out, header = {}, None
    for line in open(path, errors="replace"):
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        toks = line.split()
        if toks and all(t.startswith("GPU") for t in toks) and header is None:
            header = toks
            continue
        if header and toks and toks[0].startswith("GPU") and len(toks) == len(header) + 1:
            i = int(toks[0][3:])
            for j, code in enumerate(toks[1:]):
                gj = int(header[j][3:])
                if i in ids and gj in ids and i != gj:
                    out[(ids[i], ids[gj])] = code
    return out


SMI_CODE = {"OK": "OK", "CNS": "CHIPSET_NOT_SUPPORTED", "GNS": "GPU_NOT_SUPPORTED",
            "TNS": "IOH_TOPOLOGY_NOT_SUPPORTED", "NS": "NOT_SUPPORTED", "U": "unknown"}
SMI_PATH = {"r": "read", "w": "write", "n": "nvlink", "a": "atomics", "p": "prop"}


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        nv = json.load(open(argv[1]))
        rm = json.load(open(argv[2]))
    except (OSError, ValueError) as e:
        print("rm-compare: %s" % e, file=sys.stderr)
        return 2
    opts = {"--smi-q": None, "--smi-ids": None}
    topo = []
    rest = argv[3:]
    while rest:
        k = rest.pop(0)
        v = rest.pop(0) if rest else None
        if k == "--topo-p2p" and v and "=" in v:
            topo.append(v.split("=", 1))
        elif k in opts:
            opts[k] = v
        else:
            print("rm-compare: bad argument %s" % k, file=sys.stderr)
            return 2
    fact("facts source (NVML run)", nv["host"]["nvidia"].get("facts_source"), "nvml")
    fact("facts source (RM run)", rm["host"]["nvidia"].get("facts_source"), "rm")
    gn, gr = gpus(nv), gpus(rm)
    fact("NVIDIA GPUs", sorted(gn), sorted(gr))
    for bdf in sorted(set(gn) & set(gr)):
        dn, n = gn[bdf]
        dr, r = gr[bdf]
        for k in ("vram", "bar1_driver_total"):
            fact("%s %s" % (bdf, k), n.get(k), r.get(k))
        fact("%s nvlink_peers" % bdf, peers(n), peers(r))
        x = r.get("rm") or {}
        fb = x.get("fb") or {}
        for k in ("ram", "total_ram", "usable", "reserved", "heap", "heap_free", "tax",
                  "bar1_total", "bar1_avail"):
            v = fb.get(k)
            # Information rows: RM's FB fields against NVML's total, in MiB.
            fact("%s RM fb.%s (MiB) vs NVML vram (MiB)" % (bdf, k),
                 None if n.get("vram") is None else n["vram"] // MIB,
                 None if v is None else v // MIB, "info")
        fact("%s RM chip / device id" % bdf, dr.get("device_id"),
             "%s 0x%04x" % (x.get("chip"), x.get("pci_device_id", 0)), "info")
        fact("%s RM static BAR1" % bdf, None,
             "%s size %s (%s)" % (x.get("static_bar1"), x.get("static_bar1_size"),
                                  x.get("static_bar1_status")), "info")
        for l in x.get("nvlinks", []):
            fact("%s RM NVLink %d" % (bdf, l["link"]), None,
                 "%s to %s %s link %d" % (l["state"], l["remote_type"], l["remote"],
                                          l["remote_link"]), "info")
    pn = {(p["a"].lower(), p["b"].lower()): p for p in nv.get("pairs", [])}
    pr = {(p["a"].lower(), p["b"].lower()): p for p in rm.get("pairs", [])}
    for key in sorted(set(pn) & set(pr)):
        for k in ("topology", "nvlinks", "verdict"):
            fact("pair %s-%s %s" % (key[0], key[1], k), pn[key].get(k), pr[key].get(k))
        d = pr[key].get("driver_p2p") or {}
        if d.get("caps") is not None:
            fact("pair %s-%s RM caps == matrix caps" % key, d.get("caps"), d.get("matrix_caps"),
                 d.get("matrix_caps") is None or d.get("caps") == d.get("matrix_caps"))
        for path, st in sorted((d.get("status") or {}).items()):
            fact("pair %s-%s RM status %s" % (key[0], key[1], path), None, st, "info")
    ids = {}
    if opts["--smi-ids"]:
        for line in open(opts["--smi-ids"]):
            if "," in line:
                i, bus = line.split(",", 1)
                ids[int(i)] = norm_bus(bus)
    if opts["--smi-q"]:
        q = smi_q(opts["--smi-q"])
        for bus, v in sorted(q.items()):
            r = gr.get(bus, (None, {}))[1]
            fb = (r.get("rm") or {}).get("fb") or {}
            if "fb_total" in v:
                fact("%s nvidia-smi FB Total (MiB) == RM vram" % bus, v["fb_total"],
                     None if r.get("vram") is None else r["vram"] // MIB)
            if "fb_reserved" in v:
                # nvidia-smi rounds Reserved up to a MiB (615.06 -> 616 on the H200s).
                fact("%s nvidia-smi FB Reserved (MiB) == RM fb.reserved, rounded up" % bus,
                     v["fb_reserved"], None if fb.get("reserved") is None
                     else -(-fb["reserved"] // MIB))
            if "bar1_total" in v:
                fact("%s nvidia-smi BAR1 Total (MiB) == RM bar1" % bus, v["bar1_total"],
                     None if r.get("bar1_driver_total") is None
                     else r["bar1_driver_total"] // MIB)
    for kind, path in topo:
        m = topo_p2p(path, ids)
        for (a, b), code in sorted(m.items()):
            p = pr.get((a, b)) or pr.get((b, a))
            st = ((p or {}).get("driver_p2p") or {}).get("status") or {}
            name = SMI_PATH.get(kind)
            fact("pair %s-%s nvidia-smi topo -p2p %s == RM status %s" % (a, b, kind, name),
                 SMI_CODE.get(code, code), st.get(name))
    agree = sum(1 for r in rows if r[3] is True)
    differ = sum(1 for r in rows if r[3] is False)
    for name, a, b, ok in rows:
        tag = "INFO" if ok == "info" else "AGREE" if ok else "DIFFER"
        print("%-6s %s: %s | %s" % (tag, name, a, b))
    print("rm-compare: %d agree, %d differ, %d informational" % (agree, differ,
          len(rows) - agree - differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
