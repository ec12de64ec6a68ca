#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bar-inspect --nccl-topo on every committed snapshot and lspci dump, checked as NCCL's
reader takes it (tests/host/nccl_topo_check.py); the H200 VM's snapshot against the file
NCCL itself wrote on that machine at the same time (tests/fixtures/nccl-topo/README.md);
and the checker's own rejections, so that a checker accepting everything fails here.

    test_nccl_topo.py BAR_INSPECT SOURCE_DIR"""
import glob
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET

bi, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests", "host"))
import nccl_topo_check  # noqa: E402

fixtures = os.path.join(src, "tests", "fixtures")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def run(args):
    p = subprocess.run([bi] + args, capture_output=True, text=True, timeout=60)
    if p.returncode:
        fail(f"bar-inspect {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def check_source(label, args):
    xml = run(args + ["--nccl-topo"])
    try:
        counts = nccl_topo_check.check(xml)
    except nccl_topo_check.Bad as e:
        fail(f"{label}: NCCL's reader would reject it: {e}")
        return None
    report = json.loads(run(args + ["--json"]))
    gpus = [d for d in report["devices"] if d.get("gpu")]
    if counts.get("gpu", 0) != len(gpus):
        fail(f"{label}: {counts.get('gpu', 0)} <gpu> elements for {len(gpus)} GPUs")
    print(f"ok {label}: {counts}")
    return xml


tmp = tempfile.mkdtemp(prefix="p2ps-nccl-topo-")
sources = []
for info in sorted(glob.glob(f"{fixtures}/*/p2pscope/snapshot-info") +
                   glob.glob(f"{fixtures}/*/*/p2pscope/snapshot-info")):
    snap = os.path.dirname(os.path.dirname(info))
    sources.append((os.path.relpath(snap, fixtures), ["--root", snap]))
for dump in sorted(glob.glob(f"{fixtures}/*/p2pscope/lspci-xxxx.txt")):
    sources.append((os.path.relpath(dump, fixtures), ["--lspci-dump", dump]))
vm_tar = f"{fixtures}/nccl-topo/h200x2-vm/snapshot.tar.gz"
with tarfile.open(vm_tar) as t:
    t.extractall(tmp)
vm_snap = glob.glob(f"{tmp}/p2pscope-snap-*")[0]
sources.append(("nccl-topo/h200x2-vm", ["--root", vm_snap]))
if len(sources) < 5:
    fail(f"only {len(sources)} fixtures found")
outputs = {label: check_source(label, args) for label, args in sources}

# The H200 VM: NCCL's own file is the reference for every attribute both describe.
nccl_dump = f"{fixtures}/nccl-topo/h200x2-nccl-topo-dump.xml"
with open(nccl_dump) as f:
    ref_text = f.read()
nccl_topo_check.check(ref_text)
ref = ET.fromstring(ref_text)
ours = ET.fromstring(outputs["nccl-topo/h200x2-vm"] or "<system/>")
for key in ("numaid", "arch", "vendor", "familyid", "modelid"):
    a, b = ref.find("cpu").get(key), ours.find("cpu").get(key) if ours.find("cpu") is not None else None
    if a != b:
        fail(f"h200x2-vm: cpu {key}={b!r}, NCCL wrote {a!r}")
ref_pci = {p.get("busid"): p for p in ref.iter("pci") if p.find("gpu") is not None}
our_pci = {p.get("busid"): p for p in ours.iter("pci") if p.find("gpu") is not None}
if sorted(ref_pci) != sorted(our_pci):
    fail(f"h200x2-vm: GPUs {sorted(our_pci)}, NCCL found {sorted(ref_pci)}")
for busid, rp in ref_pci.items():
    op = our_pci.get(busid)
    if op is None:
        continue
    for key in ("class", "vendor", "device", "subsystem_vendor", "subsystem_device", "link_speed"):
        if rp.get(key) != op.get(key):
            fail(f"h200x2-vm {busid}: {key}={op.get(key)!r}, NCCL wrote {rp.get(key)!r}")
    # NCCL's link_width="0" (unknown in the VM) means x16 to NCCL (topo.cc ncclTopoAddPci).
    if op.get("link_width") not in ("16", rp.get("link_width")):
        fail(f"h200x2-vm {busid}: link_width={op.get('link_width')!r}")
    rg, og = rp.find("gpu"), op.find("gpu")
    for key in ("dev", "sm", "rank"):
        if rg.get(key) != og.get(key):
            fail(f"h200x2-vm {busid}: gpu {key}={og.get(key)!r}, NCCL wrote {rg.get(key)!r}")
    rl = sum(int(n.get("count")) for n in rg.iter("nvlink"))
    ol = sum(int(n.get("count")) for n in og.iter("nvlink"))
    if rl != ol:
        fail(f"h200x2-vm {busid}: {ol} NVLinks, NCCL counted {rl}")
    # The links end at the NVSwitch (nvidia-smi -q: Fabric State Completed), as NCCL saw.
    rc = sorted(n.get("tclass") for n in rg.iter("nvlink"))
    oc = sorted(n.get("tclass") for n in og.iter("nvlink"))
    if rc != oc:
        fail(f"h200x2-vm {busid}: NVLink target classes {oc}, NCCL wrote {rc}")
print("ok h200x2-vm against NCCL's own dump")

# The live H200 run (tests/fixtures/nccl-topo/README.md): NCCL loaded bar-inspect's file
# and built the same system and graphs as with its own detection.
live = f"{fixtures}/nccl-topo/h200x2-live"
for name in ("bar-inspect-nccl-topo.xml", "nccl-own-topo-dump.xml",
             "nccl-topo-dump-from-bar-inspect.xml"):
    with open(f"{live}/{name}") as f:
        try:
            nccl_topo_check.check(f.read())
        except nccl_topo_check.Bad as e:
            fail(f"h200x2-live/{name}: {e}")


def normalized(path):
    """NCCL's model as its dump spells it, less what does not change a graph: the file's
    name, the host hash, width 0 (NCCL: x16), the spelling of an unseen switch's address."""
    out = []
    for el in ET.parse(path).getroot().iter():
        attrs = {k: v for k, v in el.attrib.items() if k not in ("name", "host_hash")}
        if el.tag == "pci" and attrs.get("link_width") == "0":
            attrs["link_width"] = "16"
        if el.tag == "nvlink" and attrs.get("tclass") == "0x068000":
            attrs["target"] = "switch"
        out.append((el.tag, sorted(attrs.items())))
    return out


if normalized(f"{live}/nccl-own-topo-dump.xml") != normalized(
        f"{live}/nccl-topo-dump-from-bar-inspect.xml"):
    fail("h200x2-live: NCCL's model from bar-inspect's file differs from its own detection")
with open(f"{live}/nccl-own.graph.txt") as f:
    own_graph = f.read()
with open(f"{live}/nccl-from-bar-inspect.graph.txt") as f:
    our_graph = f.read()
if own_graph != our_graph or "Pattern 4," not in own_graph or "Ring 00 :" not in own_graph:
    fail("h200x2-live: the graph lines of the two runs differ")
with open(f"{live}/nccl-from-bar-inspect.log") as f:
    if "Loading topology file" not in f.read():
        fail("h200x2-live: NCCL did not log loading the file")
print("ok h200x2-live: NCCL's model and graphs from bar-inspect's file equal its own")

# The checker must reject what NCCL's reader rejects or cannot use.
bad = [
    ('<system version="2"><cpu numaid="0"></cpu></system>', "version"),
    ('<system version="1"><cpu></cpu></system>', "numaid"),
    ('<system version="1"><cpu numaid="0"><gpu dev="0"/></cpu></system>', "cannot be inside"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" class="0x030200" '
     'link_speed="16 GT/s PCI" link_width="16"/></cpu></system>', "link_speed"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" class="0x030200" '
     'link_speed="" link_width="x16"/></cpu></system>', "link_width"),
    ('<system version="1"><cpu numaid="0"><pci busid="1:0.0" class="0x030200" '
     'link_speed="" link_width=""/></cpu></system>', "busid"),
    ('<system version="1"><cpu numaid="0" arch="i386"></cpu></system>', "arch"),
    ('<system version="1"><cpu numaid="0"></pci></system>', "does not close"),
    ('<system version="1"><cpu numaid=0></cpu></system>', "quotes"),
    ('<system version="1">\t<cpu numaid="0"></cpu></system>', "expected '<'"),
    ('<system version="1"><cpu numaid="0">', "unterminated"),
    ('<system version="1" name="' + "x" * 300 + '"><cpu numaid="0"></cpu></system>', "longer"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" class="0x030200" '
     'link_speed="" link_width=""><gpu dev="0"><nvlink target="0000:02:00.0" count="0" '
     'tclass="0x030200"/></gpu></pci></cpu></system>', "count"),
]
for text, want in bad:
    try:
        nccl_topo_check.check(text)
        fail(f"checker accepted {text[:60]}...")
    except nccl_topo_check.Bad as e:
        if want not in str(e):
            fail(f"checker: {e!r} does not mention {want!r}")
print(f"ok checker rejects {len(bad)} broken files")

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
