#!/usr/bin/env python3
"""Differential vectors for libgmmu: what independent encoders write, as data.

Writes tests/gmmu/diff/vectors.txt (run with no arguments from anywhere; --check compares
instead of writing). Each line is one entry some other writer produces:

    SOURCE CHIP ENTRY RAW FIELD=VALUE ... [@sparse|@noview] [!UNEXPLAINED=0x..]

RAW is computed here with plain shifts and masks from what each writer is documented (by
its source) to write for which inputs; FIELD=VALUE is what that entry means in libgmmu's
field names (addresses in bytes). test_gmmu_diff.c checks both directions: encoding the
fields gives RAW, and decoding RAW gives every field back with no unexplained bits (unless
the line records a deliberate departure with !UNEXPLAINED). @sparse: the fast view must
call the entry (or, for a dual PDE, a half) sparse, and without it must not; @noview: the
view is not checked.

The facts, by writer (none of their code is used here):
  nouveau  drivers/gpu/drm/nouveau/nvkm/subdev/mmu/vmmgp100.c (v2, GP100..AD10x),
           vmmgh100.c (v3, GH100, Blackwell), kinds: tu102_mmu_kind (16, 0x7 invalid),
           gm200 kinds on Pascal/Volta.
  tinygrad tinygrad/runtime/support/nv/nvdev.py NVPageTableEntry.set_entry with the
           generated dev_mmu tables (hwref tu102 for v2, gh100 for v3); peer buffers:
           support/system.py p2p_paddrs (the peer's BAR1 base + offset, AddrSpace.SYS).
  rm       NVIDIA open-gpu-kernel-modules 595.45.04: the sparse and nv4k templates
           (kgmmuFmtFamiliesInit_GM200/_GV100/_GH100) and real entries read back from an
           H100 (580.159.04, research/rm-pte-probe-h100.md).
  uvm      the same tree's kernel-open/nvidia-uvm/uvm_turing_mmu.c (TU10x..AD10x) and
           uvm_hopper_mmu.c (GH100+): make_pte, make_pde, sparse, unmapped, poisoned and
           SKED-reflected entries.
"""
import os
import sys

V2 = ["GP100", "GV100", "TU102", "GA102", "AD102"]
V2_TU = {"TU102", "GA102", "AD102"}  # Turing's header: IS_PTE, NO_ATS, 4-bit kinds
V3 = ["GH100", "GB100", "GB202"]

PTE_APER = ["VIDEO_MEMORY", "PEER_MEMORY", "SYSTEM_COHERENT_MEMORY", "SYSTEM_NON_COHERENT_MEMORY"]
PDE_APER = ["INVALID", "VIDEO_MEMORY", "SYSTEM_COHERENT_MEMORY", "SYSTEM_NON_COHERENT_MEMORY"]
KINDS_TU = {0x0: "PITCH", 0x1: "Z16", 0x2: "S8", 0x3: "S8Z24", 0x4: "ZF32_X24S8",
            0x5: "Z24S8", 0x6: "GENERIC_MEMORY", 0x7: "INVALID",
            0x8: "GENERIC_MEMORY_COMPRESSIBLE", 0x9: "GENERIC_MEMORY_COMPRESSIBLE_DISABLE_PLC",
            0xa: "S8_COMPRESSIBLE_DISABLE_PLC", 0xb: "Z16_COMPRESSIBLE_DISABLE_PLC",
            0xc: "S8Z24_COMPRESSIBLE_DISABLE_PLC", 0xd: "ZF32_X24S8_COMPRESSIBLE_DISABLE_PLC",
            0xe: "Z24S8_COMPRESSIBLE_DISABLE_PLC", 0xf: "SMSKED_MESSAGE"}
KINDS_GP = {0x00: "PITCH", 0x2c: "C32_MS4_4CBRA", 0x2d: "C64_MS4_4CBRA", 0xff: "INVALID"}
# tu102_mmu_kind: a compressible kind maps to this uncompressed one when no comptags back it.
TU_UNCOMPRESSED = [0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x6, 0x6, 0x2, 0x1, 0x3, 0x4, 0x5, 0x7]

V2_VID_MAX = (1 << 37) - 0x1000  # ADDRESS_VID 32:8: 25 bits of frame
V2_SYS_MAX = (1 << 58) - 0x1000  # ADDRESS_SYS 53:8: 46 bits
V3_MAX = (1 << 52) - 0x1000      # ADDRESS 51:12: 40 bits


def b(x):
    return "TRUE" if x else "FALSE"


def kind_name(chip, k):
    names = KINDS_TU if chip not in ("GP100", "GV100") else KINDS_GP
    return names.get(k, "0x%x" % k)


def pcf_name(vol, priv, ro, noatomic, acd):
    """v3 PTE PCF: the hwref value name spells the bits."""
    return "%s_%s_%s_%s_%s" % ("PRIVILEGE" if priv else "REGULAR", "RO" if ro else "RW",
                               "NO_ATOMIC" if noatomic else "ATOMIC",
                               "UNCACHED" if vol else "CACHED", "ACD" if acd else "ACE")


def pcf_bits(vol, priv, ro, noatomic, acd):
    return vol | priv << 1 | ro << 2 | noatomic << 3 | acd << 4


PDE_PCF_VALID = ["VALID_CACHED_ATS_ALLOWED", "VALID_UNCACHED_ATS_ALLOWED",
                 "VALID_CACHED_ATS_NOT_ALLOWED", "VALID_UNCACHED_ATS_NOT_ALLOWED"]
PDE_PCF_INVALID = ["INVALID_ATS_ALLOWED", "SPARSE_ATS_ALLOWED", "INVALID_ATS_NOT_ALLOWED",
                   "SPARSE_ATS_NOT_ALLOWED"]

out = []


def vec(src, chip, entry, raw, fields, sparse=False, unexplained=0, noview=False):
    width = 32 if entry == "dual-pde" else 16
    line = "%s %s %s 0x%0*x %s" % (src, chip, entry, width, raw, " ".join(fields))
    if sparse:
        line += " @sparse"
    if noview:
        line += " @noview"
    if unexplained:
        line += " !UNEXPLAINED=0x%x" % unexplained
    out.append(line)


# ---- v2 PTE fields by meaning (what the entry says, in libgmmu's names) ----

def v2_pte_fields(chip, valid, aper, addr, vol=0, priv=0, ro=0, ad=0, kind=0, ctag=0, peer=0):
    f = ["VALID=%s" % b(valid), "APERTURE=%s" % PTE_APER[aper], "VOL=%s" % b(vol),
         "PRIVILEGE=%s" % b(priv), "READ_ONLY=%s" % b(ro), "ATOMIC_DISABLE=%s" % b(ad),
         "KIND=%s" % kind_name(chip, kind)]
    if aper >= 2:
        f.append("ADDRESS_SYS=0x%x" % addr)
    else:
        f += ["ADDRESS_VID=0x%x" % addr, "COMPTAGLINE=0x%x" % ctag]
        if aper == 1:
            f.append("ADDRESS_VID_PEER=%d" % peer)
    return f


# ---- nouveau ----

def nouveau_v2():
    for chip in V2:
        tu = chip in V2_TU
        kinds = [0x0, 0x6, 0x5, 0xf] if tu else [0x00, 0xfe, 0xfd]  # uncompressed kinds
        # gp100_vmm_valid + gp100_vmm_pgt_pte: (addr >> 4) | type; aperture VRAM 0,
        # HOST 2, NCOH 3; v0 args give vol/ro/priv/kind, the plain ones vol = HOST.
        for aper, addrs in ((0, [0x0, 0x1000, 0x12345000, V2_VID_MAX]),
                            (2, [0x1000, 0x123456789000, V2_SYS_MAX]),
                            (3, [0x1000, 0x38000000000, V2_SYS_MAX])):
            for i, addr in enumerate(addrs):
                # Every flag and kind at one address, the extremes with the plain flags.
                flags = ((aper == 2, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1))
                for vol, priv, ro in flags if i == 1 else flags[:1]:
                    for kind in kinds if i == 1 else kinds[1:2]:
                        if tu and kind != TU_UNCOMPRESSED[kind]:
                            continue
                        raw = (addr >> 4) | 1 | aper << 1 | vol << 3 | priv << 5 | ro << 6 | \
                            kind << 56
                        vec("nouveau", chip, "pte", raw,
                            v2_pte_fields(chip, 1, aper, addr, vol, priv, ro, 0, kind))
        # Compressible VRAM with comptags: the comptag line at 36, the kind kept.
        ckind, cmax = (0x8, (1 << 20) - 1) if tu else (0x2c, (1 << 18) - 1)
        for ctag in (1, 0x1234, cmax):
            addr = 0x40000000
            raw = (addr >> 4) | 1 | ctag << 36 | ckind << 56
            vec("nouveau", chip, "pte", raw, v2_pte_fields(chip, 1, 0, addr, kind=ckind, ctag=ctag))
        # gp100_vmm_pgt_pfn: RO (6) without write, atomic disable (7) without atomics;
        # host pages SYSTEM_COHERENT + VOL.
        for host in (0, 1):
            for w, a in ((1, 1), (0, 1), (1, 0), (0, 0)):
                addr = 0x7654321000 if host else 0x1234000
                raw = 1 | (addr >> 4) | (not w) << 6 | (not a) << 7 | \
                    ((2 << 1 | 1 << 3) if host else 0)
                vec("nouveau", chip, "pte", raw,
                    v2_pte_fields(chip, 1, 2 if host else 0, addr, vol=host, ro=not w, ad=not a))
        # Sparse (VALID 0 + VOL), big-page "ignore the small PTEs" (VALID 0 + PRIV), unmap.
        vec("nouveau", chip, "pte", 0x8, v2_pte_fields(chip, 0, 0, 0, vol=1), sparse=True)
        vec("nouveau", chip, "pte", 0x20, v2_pte_fields(chip, 0, 0, 0, priv=1))
        vec("nouveau", chip, "pte", 0x0, v2_pte_fields(chip, 0, 0, 0))
        nouveau_v2_pdes(chip, tu)


def v2_pde_head(tu):
    return ["IS_PTE=FALSE", "NO_ATS=FALSE"] if tu else []


def nouveau_v2_pdes(chip, tu):
    # gp100_vmm_pde: VRAM aperture 1; HOST aperture 2 + VOL; NCOH 3; pt->addr >> 4.
    for aper, vol in ((1, 0), (2, 1), (3, 0)):
        for addr in (0x1000, 0x7fff000, V2_VID_MAX if aper == 1 else V2_SYS_MAX):
            raw = aper << 1 | vol << 3 | addr >> 4
            fld = "ADDRESS_VID" if aper == 1 else "ADDRESS_SYS"
            vec("nouveau", chip, "pde", raw, v2_pde_head(tu) + [
                "APERTURE=%s" % PDE_APER[aper], "VOL=%s" % b(vol), "%s=0x%x" % (fld, addr)])
    # Dual PDE of PD0 (gp100_vmm_pd0_pde): big half in word 0 (a 256-byte-aligned 64K page
    # table: pt->addr >> 4 puts address >> 8 at bit 4), small half in word 1.
    for big, small in ((0x123400, 0x45678000), (0x123700, None), (None, 0x1000),
                       (0x1fffffff00, V2_VID_MAX)):
        for aper, vol in ((1, 0), (2, 1)):
            w0 = (aper << 1 | vol << 3 | big >> 4) if big is not None else 0
            w1 = (aper << 1 | vol << 3 | small >> 4) if small is not None else 0
            sfx = "VID" if aper == 1 else "SYS"
            f = ["IS_PTE=FALSE"] if tu else []
            for half, a in (("BIG", big), ("SMALL", small)):
                if a is None:
                    f += ["APERTURE_%s=INVALID" % half]
                else:
                    f += ["APERTURE_%s=%s" % (half, PDE_APER[aper]), "VOL_%s=%s" % (half, b(vol)),
                          "ADDRESS_%s_%s=0x%x" % (half, sfx, a)]
            if big is None and tu:
                f.append("NO_ATS=FALSE")
            vec("nouveau", chip, "dual-pde", w1 << 64 | w0, f)
    # Sparse: PD0 VOL_BIG under INVALID (gp100_vmm_pd0_sparse); PD1.. VOL (pgt_sparse).
    vec("nouveau", chip, "dual-pde", 0x8, (["IS_PTE=FALSE", "NO_ATS=FALSE"] if tu else []) +
        ["APERTURE_BIG=INVALID", "VOL_BIG=SPARSE", "APERTURE_SMALL=INVALID"], sparse=True)
    vec("nouveau", chip, "pde", 0x8, v2_pde_head(tu) + ["APERTURE=INVALID", "VOL=SPARSE"],
        sparse=True)
    vec("nouveau", chip, "dual-pde", 0x0, ["APERTURE_BIG=INVALID", "APERTURE_SMALL=INVALID"])


def nouveau_v3():
    for chip in V3:
        # gh100_vmm_valid: PCF {REGULAR,PRIVILEGE}_{RW,RO}_ATOMIC_{CACHED,UNCACHED}_ACD,
        # uncached for HOST; addr | VALID | aperture | PCF << 3 | kind << 8.
        for aper, addrs in ((0, [0x0, 0x1000, 0x1234567000, V3_MAX]),
                            (2, [0x1000, 0x123456789000, V3_MAX]),
                            (3, [0x38000000000, V3_MAX])):
            for priv in (0, 1):
                for ro in (0, 1):
                    for kind in (0x0, 0x6, 0x1, 0xf):
                        for addr in addrs if kind == 0x6 else addrs[1:2]:
                            vol = int(aper == 2)
                            pcf = pcf_bits(vol, priv, ro, 0, 1)
                            raw = addr | 1 | aper << 1 | pcf << 3 | kind << 8
                            vec("nouveau", chip, "pte", raw, [
                                "VALID=TRUE", "APERTURE=%s" % PTE_APER[aper],
                                "PCF=%s" % pcf_name(vol, priv, ro, 0, 1),
                                "KIND=%s" % KINDS_TU[kind], "ADDRESS=0x%x" % addr])
        vec("nouveau", chip, "pte", 0x8, ["VALID=FALSE", "PCF=SPARSE"], sparse=True)
        vec("nouveau", chip, "pte", 0x18, ["VALID=FALSE", "PCF=NO_VALID_4KB_PAGE"])
        vec("nouveau", chip, "pte", 0x0, ["VALID=FALSE", "PCF=INVALID"])
        # gh100_vmm_pde: VRAM cached + ATS not allowed, HOST uncached + ATS allowed, NCOH
        # cached + ATS allowed; pt->addr in place.
        for aper, pcf in ((1, 2), (2, 1), (3, 0)):
            for addr in (0x1000, 0x7fff000, V3_MAX):
                vec("nouveau", chip, "pde", addr | aper << 1 | pcf << 3, [
                    "IS_PTE=FALSE", "APERTURE=%s" % PDE_APER[aper],
                    "PCF=%s" % PDE_PCF_VALID[pcf], "ADDRESS=0x%x" % addr])
            for big, small in ((0x123400, 0x45678000), (None, 0x1000), (0xfffffffffff00, None)):
                w0 = (big | aper << 1 | pcf << 3) if big is not None else 0
                w1 = (small | aper << 1 | pcf << 3) if small is not None else 0
                f = ["IS_PTE=FALSE"]
                for half, a in (("BIG", big), ("SMALL", small)):
                    if a is None:
                        f += ["APERTURE_%s=INVALID" % half, "PCF_%s=INVALID_ATS_ALLOWED" % half]
                    else:
                        f += ["APERTURE_%s=%s" % (half, PDE_APER[aper]),
                              "PCF_%s=%s" % (half, PDE_PCF_VALID[pcf]),
                              "ADDRESS_%s=0x%x" % (half, a)]
                vec("nouveau", chip, "dual-pde", w1 << 64 | w0, f)
        vec("nouveau", chip, "dual-pde", 0x8, ["APERTURE_BIG=INVALID", "PCF_BIG=SPARSE_ATS_ALLOWED",
                                               "APERTURE_SMALL=INVALID"], sparse=True)
        vec("nouveau", chip, "pde", 0x8, ["APERTURE=INVALID", "PCF=SPARSE_ATS_ALLOWED"], sparse=True)


# ---- tinygrad ----

def tinygrad():
    bar1 = {"TU102": 0x4000000000, "GA102": 0x38000000000, "AD102": 0x28800000000}
    for chip in ("TU102", "GA102", "AD102"):
        # set_entry, a page: address_sys = paddr >> 12 (53:8) for every aperture, aperture
        # 2 for system (and peer BAR1) memory, 0 for the GPU's own, vol = uncached, kind 6.
        for aper, addrs in ((0, [0x0, 0x200000, 0x5e9200000, V2_VID_MAX]),
                            (2, [0x1000, 0x7f0012345000, bar1[chip], bar1[chip] + 0x123400000])):
            for vol in (0, 1):
                for addr in addrs:
                    raw = 1 | (addr >> 12) << 8 | aper << 1 | vol << 3 | 6 << 56
                    vec("tinygrad", chip, "pte", raw,
                        v2_pte_fields(chip, 1, aper, addr, vol=vol, kind=6))
        # An unmapped page: valid False, paddr 0 -> only KIND 6 remains.
        vec("tinygrad", chip, "pte", 6 << 56, v2_pte_fields(chip, 0, 0, 0, kind=6))
        # PDEs (tables are always valid when written): is_pte False, aperture 1, vol 0,
        # no_ats 1, the table's address in address_sys (53:8; the same bits as the header's
        # ADDRESS_VID for tables below 128 GiB).
        for addr in (0x1000, 0x2000000, 0x5e91ff000, V2_VID_MAX):
            vec("tinygrad", chip, "pde", 1 << 5 | 1 << 1 | (addr >> 12) << 8,
                ["IS_PTE=FALSE", "NO_ATS=TRUE", "VOL=FALSE", "APERTURE=VIDEO_MEMORY",
                 "ADDRESS_VID=0x%x" % addr])
            # Dual PDE: only the small half (aperture_small, address_small_sys), no_ats in
            # the first word with the big half INVALID.
            vec("tinygrad", chip, "dual-pde", (1 << 1 | (addr >> 12) << 8) << 64 | 1 << 5,
                ["IS_PTE=FALSE", "APERTURE_BIG=INVALID", "NO_ATS=TRUE",
                 "APERTURE_SMALL=VIDEO_MEMORY", "VOL_SMALL=FALSE",
                 "ADDRESS_SMALL_VID=0x%x" % addr])
        # A freed page table's slot: set_entry(idx, 0, valid=False) writes the PTE pattern
        # (KIND 6 in 63:56) into the directory entry, where no PDE field is: a departure.
        vec("tinygrad", chip, "pde", 6 << 56, ["IS_PTE=FALSE", "APERTURE=INVALID"],
            unexplained=6 << 56)
        vec("tinygrad", chip, "dual-pde", 6 << 56, ["IS_PTE=FALSE", "APERTURE_BIG=INVALID",
                                                   "APERTURE_SMALL=INVALID"], unexplained=6 << 56)
    for chip in ("GB202",):
        for aper, addrs in ((0, [0x0, 0x200000, 0x7e7c00000, V3_MAX]),
                            (2, [0x1000, 0x28800000000, 0x28923400000, V3_MAX])):
            for vol in (0, 1):
                for addr in addrs:
                    # v3: address_sys 51:12 in place, pcf = uncached (ACE: bit 4 clear).
                    raw = 1 | addr | aper << 1 | vol << 3 | 6 << 8
                    vec("tinygrad", chip, "pte", raw, [
                        "VALID=TRUE", "APERTURE=%s" % PTE_APER[aper],
                        "PCF=%s" % pcf_name(vol, 0, 0, 0, 0), "KIND=GENERIC_MEMORY",
                        "ADDRESS=0x%x" % addr])
        vec("tinygrad", chip, "pte", 6 << 8, ["VALID=FALSE", "PCF=INVALID", "KIND=GENERIC_MEMORY"])
        for addr in (0x1000, 0x2000000, 0x7e7bff000, V3_MAX):
            # PDE: aperture 1, pcf 0b10 (cached, ATS not allowed), address in place.
            vec("tinygrad", chip, "pde", 1 << 1 | 2 << 3 | addr,
                ["IS_PTE=FALSE", "APERTURE=VIDEO_MEMORY", "PCF=VALID_CACHED_ATS_NOT_ALLOWED",
                 "ADDRESS=0x%x" % addr])
            vec("tinygrad", chip, "dual-pde", (1 << 1 | 2 << 3 | addr) << 64,
                ["IS_PTE=FALSE", "APERTURE_BIG=INVALID", "PCF_BIG=INVALID_ATS_ALLOWED",
                 "APERTURE_SMALL=VIDEO_MEMORY", "PCF_SMALL=VALID_CACHED_ATS_NOT_ALLOWED",
                 "ADDRESS_SMALL=0x%x" % addr])
        vec("tinygrad", chip, "pde", 6 << 8, ["IS_PTE=FALSE", "APERTURE=INVALID",
                                             "PCF=INVALID_ATS_ALLOWED"], unexplained=6 << 8)
        vec("tinygrad", chip, "dual-pde", 6 << 8, ["APERTURE_BIG=INVALID",
                                                  "APERTURE_SMALL=INVALID"], unexplained=6 << 8)


# ---- NVIDIA: RM templates and captures, UVM ----

def rm():
    for chip in V2:
        tu = chip in V2_TU
        vec("rm", chip, "pte", 0x8, v2_pte_fields(chip, 0, 0, 0, vol=1), sparse=True)
        vec("rm", chip, "pde", 0x8, v2_pde_head(tu) + ["APERTURE=INVALID", "VOL=SPARSE"],
            sparse=True)
        vec("rm", chip, "dual-pde", 0x8, (["IS_PTE=FALSE", "NO_ATS=FALSE"] if tu else []) +
            ["APERTURE_BIG=INVALID", "VOL_BIG=SPARSE", "APERTURE_SMALL=INVALID"], sparse=True)
        if chip != "GP100":
            # nv4kPte (GV100+): VALID 0, VOL 1, PRIV 1. The fast view does not tell it from
            # a sparse PTE (@noview: not checked there).
            vec("rm", chip, "pte", 0x28, v2_pte_fields(chip, 0, 0, 0, vol=1, priv=1), noview=True)
    for chip in V3:
        vec("rm", chip, "pte", 0x8, ["VALID=FALSE", "PCF=SPARSE"], sparse=True)
        vec("rm", chip, "pte", 0x18, ["VALID=FALSE", "PCF=NO_VALID_4KB_PAGE"])
        vec("rm", chip, "pde", 0x8, ["APERTURE=INVALID", "PCF=SPARSE_ATS_ALLOWED"], sparse=True)
        vec("rm", chip, "dual-pde", 0x8, ["APERTURE_BIG=INVALID", "PCF_BIG=SPARSE_ATS_ALLOWED",
                                          "APERTURE_SMALL=INVALID"], sparse=True)
    # Read back from an H100's page tables (RM mappings of vidmem and sysmem).
    cap = "rm-h100"
    vec(cap, "GH100", "pte", 0x200681, ["VALID=TRUE", "APERTURE=VIDEO_MEMORY",
                                        "PCF=REGULAR_RW_ATOMIC_CACHED_ACD", "KIND=GENERIC_MEMORY",
                                        "ADDRESS=0x200000"])
    vec(cap, "GH100", "pte", 0x114a5568d, ["VALID=TRUE", "APERTURE=SYSTEM_COHERENT_MEMORY",
                                           "PCF=REGULAR_RW_ATOMIC_UNCACHED_ACD",
                                           "KIND=GENERIC_MEMORY", "ADDRESS=0x114a55000"])
    vec(cap, "GH100", "dual-pde", 0x6012 << 64, [
        "APERTURE_BIG=INVALID", "APERTURE_SMALL=VIDEO_MEMORY",
        "PCF_SMALL=VALID_CACHED_ATS_NOT_ALLOWED", "ADDRESS_SMALL=0x6000"])
    for pa in (0x1000, 0x2000, 0x3000, 0x5000):
        vec(cap, "GH100", "pde", pa | 0x12, ["IS_PTE=FALSE", "APERTURE=VIDEO_MEMORY",
                                             "PCF=VALID_CACHED_ATS_NOT_ALLOWED",
                                             "ADDRESS=0x%x" % pa])


PROTS = (("RO", 1, 1), ("RW", 0, 1), ("RW_ATOMIC", 0, 0))  # name, read-only, atomic disable


def uvm_turing():
    for chip in ("TU102", "GA102", "AD102"):
        # make_pte_turing: VALID, aperture, VOL = not cached, RO, ATOMIC_DISABLE unless
        # atomic, KIND GENERIC_MEMORY; sysmem in ADDRESS_SYS, vid/peer in ADDRESS_VID with
        # the bits above it in COMPTAGLINE (47-bit NVSwitch peers), the peer id in 35:33.
        for aper, addrs in ((2, [0x1000, V2_SYS_MAX]), (0, [0x1000, V2_VID_MAX]),
                            (1, [0x0, 0x123456000, 0x7fffffff000])):
            for prot, ro, ad in PROTS:
                for cached in (0, 1):
                    for addr in addrs if cached else addrs[-1:]:
                        for peer in ((0, 7) if aper == 1 else (0,)):
                            frame = addr >> 12
                            raw = 1 | aper << 1 | (not cached) << 3 | ro << 6 | ad << 7 | 6 << 56
                            if aper == 2:
                                raw |= frame << 8
                                f = v2_pte_fields(chip, 1, 2, addr, not cached, 0, ro, ad, 6)
                            else:
                                lo, hi = frame & ((1 << 25) - 1), frame >> 25
                                raw |= lo << 8 | hi << 36 | (peer << 33 if aper == 1 else 0)
                                f = v2_pte_fields(chip, 1, aper, lo << 12, not cached, 0, ro,
                                                  ad, 6, ctag=hi, peer=peer)
                            vec("uvm", chip, "pte", raw, f)
        vec("uvm", chip, "pte", 0x8, v2_pte_fields(chip, 0, 0, 0, vol=1), sparse=True)
        vec("uvm", chip, "pte", 0x20, v2_pte_fields(chip, 0, 0, 0, priv=1))  # unmapped
        vec("uvm", chip, "pte", 0xf << 56 | 1, v2_pte_fields(chip, 1, 0, 0, kind=0xf))  # SKED
        # poisoned: a read-only uncached vid PTE at 0x1bad000000, plus PRIVILEGE.
        raw = 1 | 1 << 3 | 1 << 5 | 1 << 6 | 1 << 7 | (0x1bad000000 >> 12) << 8 | 6 << 56
        vec("uvm", chip, "pte", raw, v2_pte_fields(chip, 1, 0, 0x1bad000000, 1, 1, 1, 1, 6))
        # make_pde_turing: IS_PDE TRUE (bit 0 clear), VOL TRUE, aperture SYS_COH or VIDEO.
        for aper in (1, 2):
            fld = "ADDRESS_VID" if aper == 1 else "ADDRESS_SYS"
            for addr in (0x1000, 0x3fff000):
                vec("uvm", chip, "pde", aper << 1 | 1 << 3 | (addr >> 12) << 8,
                    ["IS_PTE=FALSE", "NO_ATS=FALSE", "APERTURE=%s" % PDE_APER[aper], "VOL=TRUE",
                     "%s=0x%x" % (fld, addr)])
                big, small = addr | 0x100, addr
                sfx = "VID" if aper == 1 else "SYS"
                w0 = aper << 1 | 1 << 3 | (big >> 8) << 4
                w1 = aper << 1 | 1 << 3 | (small >> 12) << 8
                vec("uvm", chip, "dual-pde", w1 << 64 | w0, [
                    "IS_PTE=FALSE", "APERTURE_BIG=%s" % PDE_APER[aper], "VOL_BIG=TRUE",
                    "ADDRESS_BIG_%s=0x%x" % (sfx, big), "APERTURE_SMALL=%s" % PDE_APER[aper],
                    "VOL_SMALL=TRUE", "ADDRESS_SMALL_%s=0x%x" % (sfx, small)])
        vec("uvm", chip, "pde", 0, ["IS_PTE=FALSE", "APERTURE=INVALID"])


def uvm_hopper():
    for chip in V3:
        # make_pte_hopper: aperture SYS 2, SYS_NONCOH 3, VID 0, PEER 1; PCF from pte_pcf
        # (access counters on: ACE; RO and RW without atomics: NO_ATOMIC); KIND 6; vid
        # addresses in the UVM's own 39:12 field (a subset of ADDRESS), others in ADDRESS,
        # and the peer id in 63:61.
        for aper, addrs in ((0, [0x1000, (1 << 40) - 0x1000]), (2, [0x1000, V3_MAX]),
                            (3, [0x1000, V3_MAX]), (1, [0x0, 0x123456000])):
            for prot, ro, noat in PROTS:
                for cached in (0, 1):
                    for ac in (0, 1):
                        for addr in addrs if cached == ac else addrs[:1]:
                            for peer in ((0, 5) if aper == 1 else (0,)):
                                pcf = pcf_bits(not cached, 0, ro, noat, not ac)
                                raw = 1 | aper << 1 | pcf << 3 | 6 << 8 | addr | peer << 61
                                f = ["VALID=TRUE", "APERTURE=%s" % PTE_APER[aper],
                                     "PCF=%s" % pcf_name(not cached, 0, ro, noat, not ac),
                                     "KIND=GENERIC_MEMORY", "ADDRESS=0x%x" % addr]
                                if aper == 1:
                                    f.append("PEER_ID=%d" % peer)
                                vec("uvm", chip, "pte", raw, f)
        vec("uvm", chip, "pte", 0x8, ["VALID=FALSE", "PCF=SPARSE"], sparse=True)
        vec("uvm", chip, "pte", 0x18, ["VALID=FALSE", "PCF=NO_VALID_4KB_PAGE"])  # unmapped
        # SKED reflected: SYS_NONCOH, RW atomic uncached ACE, KIND SMSKED_MESSAGE.
        vec("uvm", chip, "pte", 1 | 3 << 1 | 1 << 3 | 0xf << 8, [
            "VALID=TRUE", "APERTURE=SYSTEM_NON_COHERENT_MEMORY",
            "PCF=REGULAR_RW_ATOMIC_UNCACHED_ACE", "KIND=SMSKED_MESSAGE"])
        # poisoned: a vid PTE at 0x1bad000000 with PCF PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD.
        vec("uvm", chip, "pte", 1 | 0x1f << 3 | 6 << 8 | 0x1bad000000, [
            "VALID=TRUE", "APERTURE=VIDEO_MEMORY", "PCF=PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD",
            "KIND=GENERIC_MEMORY", "ADDRESS=0x1bad000000"])
        # PDEs: IS_PTE FALSE, aperture, ADDRESS, PCF valid uncached (ATS allowed or not), or
        # for an absent table the invalid ATS encodings.
        for aper in (1, 2, 3):
            for ats in (0, 1):
                pcf = 1 | ats << 1
                for addr in (0x1000, V3_MAX):
                    vec("uvm", chip, "pde", aper << 1 | pcf << 3 | addr, [
                        "IS_PTE=FALSE", "APERTURE=%s" % PDE_APER[aper],
                        "PCF=%s" % PDE_PCF_VALID[pcf], "ADDRESS=0x%x" % addr])
                w0 = aper << 1 | pcf << 3 | 0x40100
                w1 = aper << 1 | pcf << 3 | 0x41000
                vec("uvm", chip, "dual-pde", w1 << 64 | w0, [
                    "IS_PTE=FALSE", "APERTURE_BIG=%s" % PDE_APER[aper],
                    "PCF_BIG=%s" % PDE_PCF_VALID[pcf], "ADDRESS_BIG=0x40100",
                    "APERTURE_SMALL=%s" % PDE_APER[aper], "PCF_SMALL=%s" % PDE_PCF_VALID[pcf],
                    "ADDRESS_SMALL=0x41000"])
        for ats in (0, 1):
            vec("uvm", chip, "pde", (ats << 1) << 3, ["IS_PTE=FALSE", "APERTURE=INVALID",
                                                      "PCF=%s" % PDE_PCF_INVALID[ats << 1]])


def generate():
    nouveau_v2()
    nouveau_v3()
    tinygrad()
    rm()
    uvm_turing()
    uvm_hopper()
    head = ["# Differential vectors for libgmmu, written by tests/gmmu/diff/gen_vectors.py from",
            "# what nouveau, tinygrad and NVIDIA's RM and UVM write (see its docstring).",
            "# SOURCE CHIP ENTRY RAW FIELD=VALUE ... [@sparse|@noview] [!UNEXPLAINED=0x..]",
            "# %d vectors" % len(out)]
    return "\n".join(head + out) + "\n"


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.txt")
    text = generate()
    if "--check" in sys.argv[1:]:
        with open(path) as f:
            if f.read() != text:
                print("gen_vectors: %s is stale; run %s" % (path, sys.argv[0]))
                return 1
        print("gen_vectors: %s is current" % path)
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
