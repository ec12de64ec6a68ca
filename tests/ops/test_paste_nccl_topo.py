#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bar-inspect --paste reads NCCL's XML topology (NCCL_TOPO_DUMP_FILE) as one more block:
NCCL's own dump of the H200 VM (tests/fixtures/nccl-topo) gives both GPUs with the ids,
class and link speed NCCL wrote and NV18 between them through the NVSwitch; the same dump
inside a bug report with prose and other blocks around it; bar-inspect's own --nccl-topo
output read back (the PCI tree's parents and links survive); broken XML gives a report,
not a crash.

    test_paste_nccl_topo.py BAR_INSPECT SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

bi, src = sys.argv[1], sys.argv[2]
fx = os.path.join(src, "tests", "fixtures")
dump = os.path.join(fx, "nccl-topo", "h200x2-nccl-topo-dump.xml")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL", msg)


def run(args, stdin=None):
    p = subprocess.run([bi] + args, input=stdin, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"bar-inspect {' '.join(args)}: exit {p.returncode} {p.stderr}")
    return p.stdout


def paste_json(text, *extra):
    return json.loads(run(["--paste", "-", "--json", *extra], stdin=text))


with open(dump) as f:
    nccl = f.read()

# NCCL's own dump. Expected values are NCCL's attributes in the file itself.
r = paste_json(nccl)
gpus = {d["bdf"]: d for d in r["devices"] if d.get("gpu")}
check(sorted(gpus) == ["0000:00:06.0", "0000:00:07.0"], f"GPUs {sorted(gpus)}")
for bdf, d in gpus.items():
    check((d["vendor_id"], d["device_id"]) == (0x10de, 0x2335), f"{bdf} ids")
    check((d["subsystem_vendor_id"], d["subsystem_id"]) == (0x10de, 0x18bf), f"{bdf} subsystem")
    check(d["class"] == 0x030200, f"{bdf} class {d['class']:#x}")
    check(d["link"]["cap_speed_gts"] == 32.0, f"{bdf} link {d['link']}")
    check(d["chip"] and d["chip"]["name"] == "GH100", f"{bdf} chip {d['chip']}")
pairs = r["pairs"]
check(len(pairs) == 1 and pairs[0]["topology"] == "NV18", f"pairs {pairs}")
blocks = r["paste"]["blocks"]
check([b["kind"] for b in blocks] == ["NCCL topology"], f"blocks {blocks}")
check("2 GPUs" in blocks[0]["summary"], f"summary {blocks[0]['summary']}")

# The dump in a bug report, between prose and nvidia-smi's matrix.
report = ("NCCL picks the wrong path, here is the topology it dumped:\n\n```\n" + nccl +
          "```\n\nand nvidia-smi topo -m:\n\n"
          "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
          "GPU0\t X \tNV18\t0-31\t0\t\tN/A\n"
          "GPU1\tNV18\t X \t0-31\t0\t\tN/A\n")
r = paste_json(report)
kinds = [b["kind"] for b in r["paste"]["blocks"] if b["read"]]
check(kinds == ["NCCL topology", "nvidia-smi topo -m"], f"blocks in a report: {kinds}")
check(len([d for d in r["devices"] if d.get("gpu")]) == 2, "GPUs in a report")

# bar-inspect's own file, read back: the switch VM's NIC under its root port.
snap = os.path.join(fx, "qemu-switch", "acs-on")
ours = run(["--root", snap, "--nccl-topo"])
r = paste_json(ours, "--all")
devs = {d["bdf"]: d for d in r["devices"]}
nic = devs.get("0000:07:00.0")
check(nic is not None and nic["parent"] == "0000:00:03.0", f"NIC's parent: {nic}")
check(nic is not None and nic["link"]["cap_speed_gts"] == 2.5 and nic["link"]["cap_width"] == 1,
      f"NIC's link: {nic and nic['link']}")
# And the H200 snapshot's file: the GPU attributes go round unchanged.
ours = run(["--root", os.path.join(fx, "h200x2"), "--nccl-topo"])
again = run(["--paste", "-", "--nccl-topo"], stdin=ours)
gpu_lines = lambda t: [l.strip() for l in t.splitlines() if "class=\"0x0302" in l or "<gpu " in l]
check(gpu_lines(ours) == gpu_lines(again),
      f"--nccl-topo | --paste - --nccl-topo changed the GPUs:\n{ours}\n{again}")

# NCCL's dump through --paste and back out with --nccl-topo: the CPU and every GPU
# attribute NCCL wrote survive (its gdr, host_hash and <nic> are NCCL's own to fill in).
import xml.etree.ElementTree as ET  # noqa: E402
back = ET.fromstring(run(["--paste", dump, "--nccl-topo"]))
ref = ET.fromstring(nccl)
for key in ("numaid", "arch", "vendor", "familyid", "modelid"):
    check(back.find("cpu").get(key) == ref.find("cpu").get(key), f"cpu {key} after the round trip")
for rp in ref.iter("pci"):
    bp = [p for p in back.iter("pci") if p.get("busid") == rp.get("busid")]
    check(len(bp) == 1, f"{rp.get('busid')} after the round trip")
    for key in ("class", "vendor", "device", "subsystem_vendor", "subsystem_device",
                "link_speed"):
        check(bp and bp[0].get(key) == rp.get(key), f"{rp.get('busid')} {key} after the round trip")
    for key in ("dev", "sm", "rank"):
        check(bp and bp[0].find("gpu").get(key) == rp.find("gpu").get(key),
              f"{rp.get('busid')} gpu {key} after the round trip")
    check(bp and [(n.get("count"), n.get("tclass")) for n in bp[0].iter("nvlink")] ==
          [(n.get("count"), n.get("tclass")) for n in rp.iter("nvlink")],
          f"{rp.get('busid')} NVLinks after the round trip")

# Broken XML: a report that says what it skipped, never a crash.
for text in ("<system version=\"1\">\n<cpu numaid=\"0\">\n<pci busid=\"zz\" class=\"0x0302\">\n",
             "<system version=\"1\">\n<pci busid=\"0000:01:00.0\" class=0x030200>\n</cpu>\n",
             "<system version=\"1\">\n" + "<pci busid=\"0000:01:00.0\">\n" * 40,
             "<system>\n<gpu dev=\"0\"><nvlink count=\"99\" tclass=\"0x068000\"/></gpu>\n"):
    r = paste_json(text)
    check(any("not understood" in b["summary"] for b in r["paste"]["blocks"]),
          f"broken XML not reported: {text[:50]!r} -> {r['paste']['blocks']}")

if failures:
    sys.exit(1)
print("ok")
