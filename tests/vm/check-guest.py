#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host side of the guest integration tests (tests/vm/).

  check-guest.py extract --out DIR ...   split DIR/data.log into DIR/blocks/,
                                         unpack the sysfs snapshot, write DIR/boot.json
  check-guest.py check --out DIR --boot acs-on|acs-off|cdev|noiommu
                                         assert the facts QEMU was told against what
                                         the guest kernel and bar-inspect reported
  check-guest.py fixtures --dir tests/fixtures/qemu-switch [--replay BAR_INSPECT]
                                         the same checks on the committed captures (ctest)

The expected values (guest_facts.py) are the QEMU command line of run-guest.sh,
restated; check_qemu_argv() makes sure the two never drift apart. P2PS_VM_BREAK=1
flips one expected value (ivshmem 03:00.0's BAR2 size) to show that a wrong fact
fails the test. guest_log.py splits a run's serial log into its blocks.
"""
import argparse
import json
import os
import sys

from guest_facts import (
    IORESOURCE_MEM,
    IORESOURCE_PREFETCH,
    IORESOURCE_MEM_64,
    RP1,
    RP2,
    RP3,
    UP,
    DN1,
    DN2,
    DN3,
    IVS1,
    IVS2,
    NVME,
    IVS3,
    NIC,
    ENDPOINTS,
    SWITCH,
    TOPOLOGY,
    BIG_BARS,
    MEMDEV_SIZES,
    SMALL_BARS,
    vfio_regions,
    VFIO_ENDPOINTS,
    PCIE_TYPE,
    PEERS,
    MATRIX,
    NVME_VS,
    ACS_CAP_ID,
    RP_ACS_CAP,
    RP_ACS_CTL,
)
from guest_log import extract


class Failures:
    def __init__(self, boot):
        self.boot = boot
        self.items = []
        self.passed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.items.append(what)
            print(f"FAIL [{self.boot}] {what}")
        return ok

    def eq(self, got, want, what):
        return self.check(got == want, f"{what}: got {got!r}, want {want!r}")


# ------------------------------------------------------------- sysfs snapshot
class Snapshot:
    def __init__(self, root):
        self.root = root
        self.devs = os.path.join(root, "sys/bus/pci/devices")

    def bdfs(self):
        return sorted(os.listdir(self.devs)) if os.path.isdir(self.devs) else []

    def path(self, bdf, attr=""):
        return os.path.join(self.devs, bdf, attr)

    def read(self, bdf, attr):
        try:
            with open(self.path(bdf, attr)) as f:
                return f.read().strip()
        except OSError:
            return None

    def link(self, bdf, attr):
        p = self.path(bdf, attr)
        return os.path.basename(os.readlink(p)) if os.path.islink(p) else None

    def config(self, bdf):
        try:
            with open(self.path(bdf, "config"), "rb") as f:
                return f.read()
        except OSError:
            return b""

    def resources(self, bdf):
        lines = (self.read(bdf, "resource") or "").splitlines()
        res = []
        for line in lines:
            start, end, flags = (int(x, 16) for x in line.split())
            size = end - start + 1 if end else 0
            res.append((start, size, flags))
        return res

    def ext_cap(self, bdf, cap_id):
        """Offset of an extended capability, walking the chain (bounded)."""
        cfg = self.config(bdf)
        off, seen = 0x100, 0
        while len(cfg) >= 4096 and off and seen < 96:
            hdr = int.from_bytes(cfg[off : off + 4], "little")
            if hdr == 0 or hdr == 0xFFFFFFFF:
                return None
            if hdr & 0xFFFF == cap_id:
                return off
            off = (hdr >> 20) & 0xFFC
            seen += 1
        return None

    def acs(self, bdf):
        off = self.ext_cap(bdf, ACS_CAP_ID)
        if off is None:
            return None
        cfg = self.config(bdf)
        return (
            int.from_bytes(cfg[off + 4 : off + 6], "little"),
            int.from_bytes(cfg[off + 6 : off + 8], "little"),
        )

    def groups(self):
        gdir = os.path.join(self.root, "sys/kernel/iommu_groups")
        out = {}
        if not os.path.isdir(gdir):
            return out
        for g in os.listdir(gdir):
            devs = os.listdir(os.path.join(gdir, g, "devices"))
            try:
                with open(os.path.join(gdir, g, "type")) as f:
                    typ = f.read().strip()
            except OSError:
                typ = None
            out[g] = (frozenset(devs), typ)
        return out


def check_qemu_argv(out, boot, f):
    try:
        with open(os.path.join(out, "qemu.argv")) as fh:
            argv = fh.read()
    except OSError:
        return f.check(False, "qemu.argv missing")
    acs = "on" if boot == "acs-off" else "off"
    f.check(f"id=rp1,bus=pcie.0,addr=0x1,chassis=1,slot=1,disable-acs={acs}\n" in argv,
            f"QEMU was not started with disable-acs={acs} on rp1")
    for memdev, size in MEMDEV_SIZES.items():
        f.check(
            f"memory-backend-memfd,id={memdev},size={size}," in argv,
            f"run-guest.sh no longer gives memdev {memdev} size {size}: update check-guest.py",
        )


def check_snapshot(snap, boot, f):
    bdfs = snap.bdfs()
    for bdf, (ids, cls, parent, _memdev) in TOPOLOGY.items():
        if not f.check(bdf in bdfs, f"{bdf} missing from the guest's sysfs"):
            continue
        vid, did = snap.read(bdf, "vendor"), snap.read(bdf, "device")
        f.eq(f"{vid[2:]}:{did[2:]}", ids, f"{bdf} vendor:device")
        f.eq(int(snap.read(bdf, "class"), 16), cls, f"{bdf} class")
        real = os.path.realpath(snap.path(bdf))
        want_parent = parent or "pci0000:00"
        f.eq(os.path.basename(os.path.dirname(real)), want_parent, f"{bdf} parent in the sysfs tree")
        drv = snap.link(bdf, "driver")
        f.eq(drv, "vfio-pci" if bdf in ENDPOINTS else "pcieport", f"{bdf} driver")
    bars = [(bdf, idx, size, True) for bdf, (idx, size) in BIG_BARS.items()]
    bars += [(bdf, idx, size, False) for bdf, (idx, size) in SMALL_BARS.items()]
    for bdf, idx, size, big in bars:
        res = snap.resources(bdf)
        if not f.check(len(res) > idx, f"{bdf} resource has no line {idx}"):
            continue
        _start, got, flags = res[idx]
        f.eq(got, size, f"{bdf} BAR{idx} size")
        mask = IORESOURCE_MEM | IORESOURCE_PREFETCH | IORESOURCE_MEM_64
        if big:
            want = mask
        elif bdf == NVME:
            want = IORESOURCE_MEM | IORESOURCE_MEM_64  # 64-bit, not prefetchable
        else:
            want = IORESOURCE_MEM
        f.eq(flags & mask, want, f"{bdf} BAR{idx} flags")
    # ivshmem is conventional PCI even on a PCIe port: 256 bytes of config.
    for bdf in (IVS1, IVS2, IVS3):
        f.eq(len(snap.config(bdf)), 256, f"{bdf} config size")
    for bdf in (NVME, NIC, RP1, UP, DN1):
        f.eq(len(snap.config(bdf)), 4096, f"{bdf} config size")

    # ACS: only the root ports have it; the switch ports never.
    for bdf in SWITCH:
        f.eq(snap.acs(bdf), None, f"{bdf} ACS capability")
    # Linux turns ACS on only when an IOMMU asked for it (pci_request_acs()).
    rp_acs = (RP_ACS_CAP, 0 if boot == "noiommu" else RP_ACS_CTL)
    f.eq(snap.acs(RP2), rp_acs, f"{RP2} ACS cap/ctl")
    f.eq(snap.acs(RP1), rp_acs if boot != "acs-off" else None, f"{RP1} ACS cap/ctl")

    groups = snap.groups()
    if boot == "noiommu":
        # vfio's no-IOMMU mode gives each device it binds a group of its own
        # (no domain, type "unknown"); nothing else has a group.
        want = {frozenset([bdf]) for bdf in ENDPOINTS}
        f.eq({m for m, _t in groups.values()}, want, "no-IOMMU groups")
        f.eq({t for _m, t in groups.values()}, {"unknown"}, "no-IOMMU group types")
        return
    members = {m for m, _t in groups.values()}
    types = {t for _m, t in groups.values()}
    f.eq(types, {"DMA-FQ"}, "IOMMU group domain types")
    if boot == "acs-off":
        want = [frozenset([RP1, *SWITCH, IVS1, IVS2, NVME])]
    else:
        # No ACS on the switch ports: each endpoint shares its group with the
        # downstream port above it; everything else is alone.
        want = [
            frozenset([DN1, IVS1]),
            frozenset([DN2, IVS2]),
            frozenset([DN3, NVME]),
            frozenset([RP1]),
            frozenset([UP]),
        ]
    want += [frozenset([RP2]), frozenset([RP3]), frozenset([IVS3]), frozenset([NIC])]
    for w in want:
        f.check(w in members, f"no IOMMU group with exactly {sorted(w)}; groups: {sorted(map(sorted, members))}")


def load_block(out, name, f, want_json=True):
    """A block's parsed JSON (or text), or None after recording why not."""
    path = os.path.join(out, "blocks", name)
    try:
        with open(path) as fh:
            body = fh.read()
    except OSError:
        f.check(False, f"no '{name}' output from the guest")
        return None
    try:
        with open(os.path.join(out, "boot.json")) as fh:
            rc = json.load(fh)["blocks"].get(name)
    except (OSError, KeyError, ValueError):
        rc = None
    if not f.eq(rc, 0, f"exit status of '{name}'"):
        err = os.path.join(out, "blocks", name + ".stderr")
        if os.path.exists(err):
            print(open(err).read().strip())
    if not want_json:
        return body
    try:
        return json.loads(body)
    except ValueError as e:
        f.check(False, f"'{name}' is not JSON: {e}")
        return None


def check_bi_sysfs(doc, snap, boot, f, what="bi-sysfs"):
    """bar-inspect's host model against the QEMU facts and the kernel's sysfs."""
    devs = {d["bdf"]: d for d in doc.get("devices", [])}
    iommu = doc.get("host", {}).get("iommu", {})
    groups = snap.groups()
    if boot == "noiommu":
        f.eq(iommu.get("present"), False, f"{what}: host.iommu.present")
    else:
        f.eq((iommu.get("present"), iommu.get("kind")), (True, "intel"), f"{what}: host.iommu present/kind")
        f.eq(iommu.get("groups"), len(groups), f"{what}: host.iommu.groups vs the kernel's")
    for bdf, (ids, cls, parent, _m) in TOPOLOGY.items():
        d = devs.get(bdf)
        if not f.check(d is not None, f"{what}: {bdf} missing"):
            continue
        f.eq("%04x:%04x" % (d["vendor_id"], d["device_id"]), ids, f"{what}: {bdf} ids")
        f.eq(d["class"], cls, f"{what}: {bdf} class")
        f.eq(d["parent"], parent, f"{what}: {bdf} parent")
        f.eq(d["pcie_type"], PCIE_TYPE[bdf], f"{what}: {bdf} pcie_type")
        f.eq(d["driver"], "vfio-pci" if bdf in ENDPOINTS else "pcieport", f"{what}: {bdf} driver")
        grp = snap.link(bdf, "iommu_group")
        f.eq(d["iommu_group"], int(grp) if grp is not None else None, f"{what}: {bdf} iommu_group vs sysfs")
        if boot != "noiommu":
            f.eq(d["iommu_domain_type"], "DMA-FQ", f"{what}: {bdf} iommu_domain_type")
        acs = d.get("acs")
        got = (acs["cap"], acs["ctl"]) if acs else None
        want = None
        if bdf in (RP1, RP2, RP3) and not (bdf == RP1 and boot == "acs-off"):
            # Linux enables ACS only when an IOMMU is there (pci_request_acs()).
            want = (RP_ACS_CAP, 0 if boot == "noiommu" else RP_ACS_CTL)
        f.eq(got, want, f"{what}: {bdf} ACS cap/ctl")
    bars = {}
    for bdf, (idx, size) in BIG_BARS.items():
        bars[(bdf, idx)] = (size, True, True)
    for bdf, (idx, size) in SMALL_BARS.items():
        bars[(bdf, idx)] = (size, bdf == NVME, False)
    for (bdf, idx), want in bars.items():
        d = devs.get(bdf)
        if d is None:
            continue
        b = {x["index"]: x for x in d["bars"]}.get(idx)
        if f.check(b is not None, f"{what}: {bdf} BAR{idx} missing"):
            f.eq((b["size"], b["is_64bit"], b["prefetchable"]), want, f"{what}: {bdf} BAR{idx} size/64-bit/prefetchable")
            res = snap.resources(bdf)
            f.eq(b["address"], res[idx][0], f"{what}: {bdf} BAR{idx} address vs sysfs resource")


def check_topology(doc, boot, f, what):
    """The matrix and the pair verdicts for the stand-in GPUs. The classes are
    the tree's; the verdict reasons follow ACS and the IOMMU as on real hosts."""
    topo = doc.get("topology", {})
    f.eq(topo.get("gpus"), PEERS, f"{what}: topology.gpus")
    f.eq(topo.get("matrix"), MATRIX, f"{what}: topology matrix")
    pairs = {(p["a"], p["b"]): p for p in doc.get("pairs", [])}
    f.eq(sorted(pairs), [(IVS1, IVS2), (IVS1, IVS3), (IVS2, IVS3)], f"{what}: pairs")
    iommu = boot != "noiommu"
    for (a, b), p in pairs.items():
        reasons = p.get("reasons", [])
        codes = {(r["code"], r["severity"], r.get("device")) for r in reasons}
        if (a, b) == (IVS1, IVS2):
            # Under one switch without ACS: requests turn at the upstream
            # port and never meet the IOMMU, so nothing blocks.
            f.eq((p["topology"], p["common_bridge"], p["verdict"]), ("PIX", UP, "ready"), f"{what}: PIX pair")
            continue
        f.eq(p["topology"], "PHB", f"{what}: {a}<->{b} class")
        # Across root ports: the IOMMU translates (a blocker while it does) and
        # every root port with ACS request redirect on the path is named.
        blockers = {r.get("device") for r in reasons if r["severity"] == "blocker" and r["code"] == "iommu_translating"}
        f.eq(blockers, {a, b} if iommu else set(), f"{what}: {a}<->{b} IOMMU blockers")
        redirect = {r.get("device") for r in reasons if r["code"] == "acs_redirect_root_port"}
        if not iommu:
            want = set()  # no IOMMU: Linux left ACS off on every port
        elif boot == "acs-off":
            want = {RP2}
        else:
            want = {RP1, RP2}
        f.eq(redirect, want, f"{what}: {a}<->{b} root ports redirecting peer traffic")
        f.eq(p["verdict"], "not ready" if iommu else "ready", f"{what}: {a}<->{b} verdict")
        f.check(("path_host_bridge", "info", None) in codes, f"{what}: {a}<->{b} lacks the host-bridge note")


def check_bi_vfio(doc, snap, boot, flow, f, what):
    v = doc.get("vfio", {})
    devs = {d["bdf"]: d for d in v.get("devices", [])}
    io = v.get("iommu", {})
    if flow == "legacy":
        if boot == "noiommu":
            f.eq(io.get("container_iommu_type"), "no-IOMMU", f"{what}: container IOMMU type")
        else:
            f.eq(io.get("container_iommu_type"), "Type1v2", f"{what}: container IOMMU type")
            f.check("Type1v2" in io.get("extensions", []), f"{what}: Type1v2 extension missing")
    for bdf in VFIO_ENDPOINTS:
        regions = vfio_regions(bdf)
        d = devs.get(bdf)
        if not f.check(d is not None, f"{what}: {bdf} not opened through VFIO"):
            continue
        grp = snap.link(bdf, "iommu_group")
        f.eq(d.get("flow"), flow, f"{what}: {bdf} flow")
        if flow == "legacy":
            f.eq(d.get("group"), int(grp) if grp else None, f"{what}: {bdf} group vs sysfs")
            node = f"/dev/vfio/noiommu-{grp}" if boot == "noiommu" else f"/dev/vfio/{grp}"
            f.eq(d.get("node"), node, f"{what}: {bdf} node")
        else:
            f.check(str(d.get("node", "")).startswith("/dev/vfio/devices/vfio"), f"{what}: {bdf} cdev node {d.get('node')!r}")
        f.eq(d.get("num_regions"), 9, f"{what}: {bdf} num_regions")
        regs = {r["index"]: r for r in d.get("regions", [])}
        for idx, size in regions.items():
            r = regs.get(idx, {})
            f.eq(r.get("size"), size, f"{what}: {bdf} region {idx} size")
            flags = set(r.get("flags", []))
            if idx == 7:
                f.eq(flags & {"read", "write", "mmap"}, {"read", "write"}, f"{what}: {bdf} config region flags")
            elif size >= 4096:
                f.check({"read", "write", "mmap"} <= flags, f"{what}: {bdf} region {idx} flags {sorted(flags)} lack read/write/mmap")
        f.check("error" in regs.get(8, {}), f"{what}: {bdf} VGA region should be refused")
        cfg = d.get("config", {})
        f.eq((cfg.get("checked"), cfg.get("identity_match")), (True, True), f"{what}: {bdf} config cross-check with sysfs")
        f.eq(cfg.get("vfio_bytes"), regions[7], f"{what}: {bdf} config bytes through VFIO")
    nv = devs.get(NVME)
    if nv:
        bar0 = {r["index"]: r for r in nv.get("regions", [])}.get(0, {})
        # BAR0 holds the MSI-X table; Linux 6.12 lets it be mmapped anyway and
        # says so with the MSI-X-mappable capability (no sparse areas).
        f.eq(bar0.get("caps"), ["msix_mappable"], f"{what}: nvme BAR0 region capabilities")


def check_map_peer(doc, snap, boot, flow, pair, f, what):
    a, b = pair
    m = doc.get("vfio", {}).get("map_peer")
    if not f.check(isinstance(m, dict), f"{what}: no vfio.map_peer"):
        return
    bar, size = BIG_BARS[b]
    start = snap.resources(b)[bar][0]
    f.eq((m.get("a"), m.get("b"), m.get("bar")), (a, b, bar), f"{what}: pair/BAR")
    f.eq(m.get("bar_size"), size, f"{what}: peer BAR size")
    f.eq(m.get("bar_bus_addr"), hex(start), f"{what}: peer BAR bus address vs sysfs")
    ga, gb = snap.link(a, "iommu_group"), snap.link(b, "iommu_group")
    f.eq(m.get("same_group"), ga is not None and ga == gb, f"{what}: same_group vs sysfs")
    # Without ACS on the root port the whole switch is one group, so the two
    # endpoints under it share their IOMMU context; with ACS they never do.
    under_switch = TOPOLOGY[a][2] in SWITCH and TOPOLOGY[b][2] in SWITCH
    f.eq(m.get("same_group"), boot == "acs-off" and under_switch, f"{what}: same_group")
    if boot == "noiommu":
        # No IOMMU, no DMA mapping API: the kernel must refuse.
        f.eq(m.get("result"), "refused", f"{what}: map result without an IOMMU")
        return
    if flow == "cdev":
        # iommufd pins pages and cannot pin a PFNMAP (BAR) mapping.
        f.eq((m.get("method"), m.get("result")), ("IOMMU_IOAS_MAP", "refused"), f"{what}: cdev method/result")
        return
    f.eq((m.get("method"), m.get("iommu_type")), ("VFIO_IOMMU_MAP_DMA", "Type1v2"), f"{what}: method/IOMMU type")
    f.eq(m.get("result"), "mapped", f"{what}: result")
    f.eq((m.get("map_size"), m.get("iova"), m.get("iova_is_bus_addr")), (size, hex(start), True), f"{what}: size/IOVA")
    f.eq((m.get("unmapped"), m.get("unmapped_size")), (True, size), f"{what}: unmapped again")


def check_bar_inspect(out, snap, boot, f):
    doc = load_block(out, "bi-sysfs", f)
    if doc:
        check_bi_sysfs(doc, snap, boot, f)
        check_topology(doc, boot, f, "bi-sysfs")
    flows = ["legacy", "cdev"] if boot == "cdev" else ["legacy"]
    for flow in flows:
        sfx = "" if flow == "legacy" else "-" + flow
        doc = load_block(out, "bi-vfio" + sfx, f)
        if doc:
            check_bi_vfio(doc, snap, boot, flow, f, "bi-vfio" + sfx)
            check_bi_sysfs(doc, snap, boot, f, "bi-vfio" + sfx)
            check_topology(doc, boot, f, "bi-vfio" + sfx)
        for name, pair in (("pix", (IVS2, IVS1)), ("phb", (IVS3, IVS1))):
            doc = load_block(out, f"bi-map-peer-{name}{sfx}", f)
            if doc:
                check_map_peer(doc, snap, boot, flow, pair, f, f"bi-map-peer-{name}{sfx}")
        doc = load_block(out, "bi-read-reg" + sfx, f)
        if doc:
            rr = doc.get("vfio", {}).get("read_reg", [{}])[0]
            f.eq((rr.get("bdf"), rr.get("value")), (NVME, NVME_VS), f"bi-read-reg{sfx}: NVMe VS register")
            f.eq(rr.get("access"), "vfio-mmap", f"bi-read-reg{sfx}: access path")


def check_no_rdma(doc, snap, tool, f):
    """GPUDirect RDMA in the guest: its emulated NIC (e1000e, Intel Ethernet, class
    02 00) is not an RDMA device (neither class 02 07 nor vendor 15b3, and no
    /sys/class/infiniband), and a host without an NVIDIA GPU has no GPU x device pair, so
    the text report has no GPUDirect RDMA line ("no RDMA NIC found" is said only where an
    NVIDIA GPU could use one)."""
    import subprocess

    nic = {d["bdf"]: d for d in doc["devices"]}.get(NIC, {})
    f.eq(("%04x:%04x" % (nic.get("vendor_id", 0), nic.get("device_id", 0)), nic.get("class")),
         TOPOLOGY[NIC][:2], "replay --root: the emulated NIC is there")
    gdr = doc.get("gpudirect_rdma", {})
    f.eq((gdr.get("known"), gdr.get("rdma_nics_found"), gdr.get("rdma_devices"), gdr.get("pairs")),
         (True, 0, [], []), "replay --root: gpudirect_rdma (no RDMA device, no pair)")
    r = subprocess.run([tool, "--root", snap, "--all"], capture_output=True, text=True)
    f.check(r.returncode == 0 and "GPUDirect RDMA" not in r.stdout,
            "replay --root: no GPUDirect RDMA line without an NVIDIA GPU")


def known_keys(new, old):
    """new with only the object keys old has: JSON keys are only added (docs/architecture.md),
    so a replay by a later bar-inspect may carry keys the committed live run predates."""
    if isinstance(new, dict) and isinstance(old, dict):
        return {k: known_keys(v, old[k]) for k, v in new.items() if k in old}
    if isinstance(new, list) and isinstance(old, list) and len(new) == len(old):
        return [known_keys(a, b) for a, b in zip(new, old)]
    return new


def check_replay(live, snap, tool, f):
    """The offline backends on the host against what bar-inspect saw live in the
    guest: the captured snapshot (--root) must give the same devices, matrix and
    verdicts; the guest's `lspci -xxxx` dump (--lspci-dump) the same config-space
    facts (a dump has no sysfs facts: sizes, drivers, groups)."""
    import subprocess

    runs = {
        "--root": [tool, "--root", snap, "--all", "--json", "--peers", ",".join(PEERS)],
        "--lspci-dump": [tool, "--lspci-dump", os.path.join(snap, "p2pscope/lspci-xxxx.txt"), "--all", "--json"],
    }
    got = {}
    for name, argv in runs.items():
        r = subprocess.run(argv, capture_output=True, text=True)
        if f.eq(r.returncode, 0, f"host bar-inspect {name} exit status ({r.stderr.strip()})"):
            got[name] = json.loads(r.stdout)
    if "--root" in got:
        for key in ("devices", "topology", "pairs"):
            f.check(known_keys(got["--root"][key], live[key]) == live[key],
                    f"replay --root: '{key}' differs from the guest's live run")
    if "--root" in got:
        check_no_rdma(got["--root"], snap, tool, f)
    if "--lspci-dump" in got:
        dump = {d["bdf"]: d for d in got["--lspci-dump"]["devices"]}
        for d in live["devices"]:
            g = dump.get(d["bdf"])
            if not f.check(g is not None, f"replay --lspci-dump: {d['bdf']} missing"):
                continue
            for key in ("vendor_id", "device_id", "class", "revision", "pcie_type", "parent", "acs", "link", "config_bytes"):
                f.eq(g.get(key), d.get(key), f"replay --lspci-dump: {d['bdf']} {key}")
            strip = [{k: v for k, v in b.items() if k != "size"} for b in d["bars"]]
            f.eq([{k: v for k, v in b.items() if k != "size"} for b in g["bars"]], strip, f"replay --lspci-dump: {d['bdf']} BARs")


def check(args):
    out, boot = args.out, args.boot
    f = Failures(boot)
    try:
        with open(os.path.join(out, "boot.json")) as fh:
            info = json.load(fh)
    except OSError:
        info = {}
    f.check(info.get("finished"), "the guest did not reach its end marker (see console.log)")
    check_qemu_argv(out, boot, f)
    snap = Snapshot(os.path.join(out, "snapshot"))
    if f.check(bool(snap.bdfs()), "no sysfs snapshot from the guest"):
        try:
            check_snapshot(snap, boot, f)
            if args.bar_inspect:
                check_bar_inspect(out, snap, boot, f)
            if args.replay:
                live = load_block(out, "bi-sysfs", f)
                if live:
                    check_replay(live, os.path.join(out, "snapshot"), args.replay, f)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            # Output without a field the checks rely on: a failure, not a crash.
            f.check(False, f"unexpected output structure ({type(e).__name__}: {e}); checks stopped")
    print(f"check-guest [{boot}]: {f.passed} passed, {len(f.items)} failed")
    return 1 if f.items else 0


def check_fixtures(args):
    """Offline (ctest): the committed captures in tests/fixtures/qemu-switch/
    still hold the facts the guest run asserted, and the host's bar-inspect
    replays them into what bar-inspect printed live in the guest."""
    rc = 0
    for boot in ("acs-on", "acs-off"):
        f = Failures(boot)
        snap = Snapshot(os.path.join(args.dir, boot))
        docs = {}
        for kind in ("live", "vfio"):
            try:
                with open(os.path.join(args.dir, f"{boot}.{kind}.json")) as fh:
                    docs[kind] = json.load(fh)
            except (OSError, ValueError) as e:
                f.check(False, f"{boot}.{kind}.json: {e}")
        try:
            if f.check(bool(snap.bdfs()), f"no capture in {args.dir}/{boot}"):
                check_snapshot(snap, boot, f)
                if "live" in docs:
                    check_bi_sysfs(docs["live"], snap, boot, f, "live")
                    check_topology(docs["live"], boot, f, "live")
                    if args.replay:
                        check_replay(docs["live"], snap.root, args.replay, f)
                if "vfio" in docs:
                    check_bi_vfio(docs["vfio"], snap, boot, "legacy", f, "vfio")
                    check_topology(docs["vfio"], boot, f, "vfio")
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            f.check(False, f"unexpected structure ({type(e).__name__}: {e}); checks stopped")
        print(f"check-guest fixtures [{boot}]: {f.passed} passed, {len(f.items)} failed")
        rc |= 1 if f.items else 0
    return rc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--out", required=True)
    e.add_argument("--wall", default="0")
    e.add_argument("--qemu-rc", default="0")
    e.add_argument("--kernel", default="")
    e.add_argument("--mode", default="iommu")
    e.add_argument("--rp1-acs", default="on")
    c = sub.add_parser("check")
    c.add_argument("--out", required=True)
    c.add_argument("--boot", required=True, choices=["acs-on", "acs-off", "cdev", "noiommu"])
    c.add_argument("--no-bar-inspect", dest="bar_inspect", action="store_false",
                   help="check only the guest's sysfs (no bar-inspect in the guest)")
    c.add_argument("--replay", metavar="BAR_INSPECT",
                   help="also replay the capture with this host bar-inspect (--root, --lspci-dump)")
    x = sub.add_parser("fixtures")
    x.add_argument("--dir", required=True, help="tests/fixtures/qemu-switch")
    x.add_argument("--replay", metavar="BAR_INSPECT", help="replay the captures with this bar-inspect")
    args = ap.parse_args()
    if args.cmd == "extract":
        return extract(args)
    return check(args) if args.cmd == "check" else check_fixtures(args)


if __name__ == "__main__":
    sys.exit(main())
