#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden facts for libgmmu from NVIDIA's open GPU kernel modules.

  gmmu-golden.py extract SRC [--rev REV] [-o FILE]
      SRC is a checkout of NVIDIA/open-gpu-kernel-modules, or a bare/mirror git
      directory read at REV (a tag such as 595.45.04). Finds every dev_mmu.h under
      src/common/inc/swref/published/ and kernel-open/nvidia-uvm/hwref/ and writes
      the facts libgmmu's tables are checked against, one per line:
        header HEADER PATH            a header that exists in the tree
        field  HEADER NAME HI LO      a hi:lo define of a VER2/VER3 entry
        const  HEADER NAME VALUE      __SIZE, ADDRESS_SHIFT, ADDRESS_BIG_SHIFT
        value  HEADER NAME VALUE      a value define (also the v1 aperture and kind
                                      names the driver uses for v2/v3 entries)
        sparse VERSION ENTRY NAME VALUE
                                      the driver's sparse entry templates
                                      (kgmmuFmtFamiliesInit_GM200 / _GH100): which
                                      define gets which value
        chip   NAME PTE COMPTAG LEVELS  HAL implementation suffixes per chip
      HEADER is <arch>/<chip> for swref/published, hwref/<arch>/<chip> for the
      UVM's hwref copies.
  gmmu-golden.py compare GOLDEN (--pte-decode BIN | --json FILE)
      Compares `pte-decode formats --json` with GOLDEN in both directions: every
      field and value libgmmu has is defined by the header it cites, and every
      header of a generation libgmmu models agrees with that generation's format.
      Prints one line per header, each difference, a total, and exits 1 if there
      is any difference.

Only facts (names and numbers) are written, never header or driver text.
"""
import argparse
import contextlib
import json
import os
import re
import subprocess
import sys

HEADER_DIRS = {"src/common/inc/swref/published": "", "kernel-open/nvidia-uvm/hwref": "hwref/"}
HAL_FILE = "src/nvidia/generated/g_kern_gmmu_nvoc.c"
HAL_METHODS = ["kgmmuFmtInitPte", "kgmmuFmtInitPteComptagLine", "kgmmuFmtInitLevels"]
FMT_V2_FILE = "src/nvidia/src/kernel/gpu/mmu/arch/pascal/kern_gmmu_fmt_gp10x.c"
SPARSE_V2_FILE = "src/nvidia/src/kernel/gpu/mmu/arch/maxwell/kern_gmmu_gm200.c"
SPARSE_V3_FILE = "src/nvidia/src/kernel/gpu/mmu/arch/hopper/kern_gmmu_gh100.c"

DEFINE = re.compile(r"^\s*#\s*define\s+(NV_MMU_\w+)\s+(.*?)\s*(/\*.*)?$")
ARITH = re.compile(r"^[0-9+\-*() ]+$")

# Generations whose headers are not compared, and why. Every other generation's formats are
# what `pte-decode formats --json` assigns its chips (generations()).
NOT_MODELLED = {"maxwell": "format version 1 only, no libgmmu format"}
PREFIX_ENTRY = {"PTE": "pte", "PDE": "pde", "DUAL_PDE": "dual-pde"}


# ---- reading a checkout or a git directory ----

def git(src, *args):
    return subprocess.run(["git", "-C", src] + list(args), check=True, capture_output=True,
                          text=True).stdout


def read(src, rev, path):
    if rev or not os.path.exists(os.path.join(src, path)):
        return git(src, "show", "%s:%s" % (rev or "HEAD", path))
    with open(os.path.join(src, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def find_headers(src, rev):
    """HEADER key -> path of every dev_mmu.h under the two header trees."""
    found = {}
    for top, tag in HEADER_DIRS.items():
        if rev or not os.path.isdir(os.path.join(src, top)):
            paths = git(src, "ls-tree", "-r", "--name-only", rev or "HEAD", "--", top).split()
        else:
            paths = [os.path.relpath(os.path.join(d, f), src)
                     for d, _, fs in os.walk(os.path.join(src, top)) for f in fs]
        for p in paths:
            parts = p[len(top) + 1:].split("/")
            if len(parts) == 3 and parts[2] == "dev_mmu.h":
                found[tag + parts[0] + "/" + parts[1]] = p
    return dict(sorted(found.items()))


# ---- extract ----

def arith(expr):
    expr = expr.strip()
    if not ARITH.match(expr):
        raise ValueError(expr)
    return int(eval(expr, {"__builtins__": {}}, {}))  # digits and + - * ( ) only


def number(text):
    text = text.strip()
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
        return int(text, 16)
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    return None


def wanted(name):
    return (name.startswith(("NV_MMU_VER2_", "NV_MMU_VER3_", "NV_MMU_PTE_APERTURE",
                             "NV_MMU_PDE_APERTURE_BIG", "NV_MMU_PTE_KIND_")))


def extract_header(header, text, out):
    for line in text.splitlines():
        m = DEFINE.match(line)
        if not m or not wanted(m.group(1)):
            continue
        name, body = m.group(1), m.group(2).strip()
        if not body:
            continue
        if ":" in body:
            if name.startswith(("NV_MMU_PTE_", "NV_MMU_PDE_")):
                continue  # v1 field positions: not part of v2/v3
            hi, lo = body.split(":", 1)
            out.append("field %s %s %d %d" % (header, name, arith(hi), arith(lo)))
            continue
        v = number(body)
        if v is None:
            continue
        if name.endswith(("__SIZE", "_ADDRESS_SHIFT", "_ADDRESS_BIG_SHIFT")):
            out.append("const %s %s %d" % (header, name, v))
        else:
            out.append("value %s %s %d" % (header, name, v))


def extract_hal(text, out):
    """Per chip, the implementation suffix each HAL method dispatches to."""
    chips = set()
    per_method = {}
    for method in HAL_METHODS:
        # 5xx-era generated files say "// Hal function -- M", newer ones "// M -- halified".
        body = re.search(r"//\s*(?:Hal function -- %s\b|%s -- halified)[^\n]*\n(.*?)\n\s*//"
                         % (method, method), text, re.S)
        if not body:
            raise SystemExit("gmmu-golden: %s not found in %s" % (method, HAL_FILE))
        # Each branch: a condition (with a /* ChipHal: ... */ comment) or a bare else,
        # then the assignment of the implementation.
        branches = re.findall(r"(?:\bif\b|\belse\b)([^{]*)\{\s*pThis->__%s__\s*=\s*&%s_(\w+);"
                              % (method, method), body.group(1), re.S)
        explicit = {}
        default = None
        for cond, impl in branches:
            names = re.search(r"/\*\s*ChipHal:\s*([^*]*)\*/", cond or "")
            if names:
                for c in names.group(1).split("|"):
                    explicit[c.strip()] = impl
            else:
                default = impl
        per_method[method] = (explicit, default)
    for m in re.finditer(r"/\*\s*ChipHal:\s*([^*]*)\*/", text):
        chips.update(c.strip() for c in m.group(1).split("|"))
    for chip in sorted(chips):
        impls = []
        for method in HAL_METHODS:
            explicit, default = per_method[method]
            impls.append(explicit.get(chip, default))
        out.append("chip %s %s" % (chip, " ".join(impls)))


def need(match, what):
    if not match:
        raise SystemExit("gmmu-golden: %s not found" % what)
    return match


def extract_sparse_v2(fmt_text, text, out):
    """kgmmuFmtFamiliesInit_GM200: the v2 sparse templates, as defines and values."""
    # Which define each format field of kgmmuFmtInitPte/Pde/PdeMulti_GP10X uses.
    owner = {"pPte": "pte", "pPde": "pde", "pPdeBig": "big", "pPdeSmall": "small"}
    fld = {}
    for var, f, define in re.findall(r"INIT_FIELD_\w+\(&(p\w+)->(fld\w+),\s*(NV_MMU_VER2_\w+)",
                                     fmt_text):
        if var in owner:
            fld[(owner[var], f)] = define
    body = need(re.search(r"kgmmuFmtFamiliesInit_GM200\s*\(.*?\n}", text, re.S),
                "kgmmuFmtFamiliesInit_GM200").group(0)
    for ent, f, val, tmpl in re.findall(
            r"nvFieldSetBool\(&pFam->(pte|pde)\.(fld\w+),\s*NV_(TRUE|FALSE),\s*pFam->(\w+)\.v8",
            body):
        out.append("sparse v2 %s %s %s" % (ent, fld[(ent, f)], val))
    if re.search(r"gmmuFieldSetAperture\(&pFam->pde\.fldAperture,\s*GMMU_APERTURE_INVALID", body):
        out.append("sparse v2 pde %s INVALID" % fld[("pde", "fldAperture")])
    if re.search(r"gmmuFieldSetAperture\(&pPdeFmt->fldAperture,\s*GMMU_APERTURE_INVALID", body):
        for half in ("big", "small"):
            out.append("sparse v2 dual-pde %s INVALID" % fld[(half, "fldAperture")])
    # The volatile bit goes to sub-level 0 only (the big half).
    m = need(re.search(r"if\s*\(\s*0\s*==\s*i\s*\)\s*\{?\s*nvFieldSetBool\(&pPdeFmt->(fld\w+),"
                       r"\s*NV_(TRUE|FALSE)", body), "kgmmuFmtFamiliesInit_GM200 sub-level 0")
    out.append("sparse v2 dual-pde %s %s" % (fld[("big", m.group(1))], m.group(2)))


def extract_sparse_v3(text, out):
    """kgmmuFmtFamiliesInit_GH100: the v3 sparse templates, PCF named by its SW bits."""
    body = need(re.search(r"kgmmuFmtFamiliesInit_GH100\s*\(.*?\n}", text, re.S),
                "kgmmuFmtFamiliesInit_GH100").group(0)
    pde = body[:body.index("sparsePdeMulti")]
    bits = re.findall(r"pdePcfSw\s*\|=\s*\(1 << SW_MMU_PCF_(\w+)_IDX\)", pde)
    pcf = "_".join(bits)  # SPARSE + ATS_ALLOWED: the hwref name SPARSE_ATS_ALLOWED
    out.append("sparse v3 pde NV_MMU_VER3_PDE_APERTURE INVALID")
    out.append("sparse v3 pde NV_MMU_VER3_PDE_PCF %s" % pcf)
    for half in ("BIG", "SMALL"):
        out.append("sparse v3 dual-pde NV_MMU_VER3_DUAL_PDE_APERTURE_%s INVALID" % half)
    need(re.search(r"if\s*\(\s*i\s*==\s*0\s*\)", body), "kgmmuFmtFamiliesInit_GH100 sub-level 0")
    out.append("sparse v3 dual-pde NV_MMU_VER3_DUAL_PDE_PCF_BIG %s" % pcf)
    m = need(re.search(r"ptePcfSw\s*=\s*\(1 << SW_MMU_PCF_(\w+)_IDX\);\s*"
                       r"nvFieldSetBool\(&pFam->pte\.fldValid,\s*NV_(FALSE|TRUE),\s*"
                       r"pFam->sparsePte", body), "kgmmuFmtFamiliesInit_GH100 sparsePte")
    out.append("sparse v3 pte NV_MMU_VER3_PTE_VALID %s" % m.group(2))
    out.append("sparse v3 pte NV_MMU_VER3_PTE_PCF %s" % m.group(1))


def cmd_extract(args):
    out = ["# libgmmu golden facts: scripts/gmmu-golden.py extract, NVIDIA/open-gpu-kernel-modules %s"
           % (args.rev or "HEAD")]
    headers = find_headers(args.src, args.rev)
    for h, path in headers.items():
        out.append("header %s %s" % (h, path))
    for h, path in headers.items():
        extract_header(h, read(args.src, args.rev, path), out)
    extract_sparse_v2(read(args.src, args.rev, FMT_V2_FILE),
                      read(args.src, args.rev, SPARSE_V2_FILE), out)
    extract_sparse_v3(read(args.src, args.rev, SPARSE_V3_FILE), out)
    extract_hal(read(args.src, args.rev, HAL_FILE), out)
    dest = open(args.output, "w") if args.output else contextlib.nullcontext(sys.stdout)
    with dest as f:
        f.write("\n".join(out) + "\n")
    return 0


# ---- compare ----

# Which format the driver's HAL combination means (see docs/gmmu.md).
CLASSES = {
    ("GP10X", "TU10X", "GP10X"): "v2-tu",
    ("GP10X", "TU10X", "GA10X"): "v2-ga",
    ("GH10X", "none", "GH10X"): "v3-gh",
    ("GH10X", "none", "GB10X"): "v3-gb",
}
# Value names the v2 headers of Pascal do not define per version: the driver encodes them
# with the v1 names (kgmmuFmtInitPteApertures_GM10X, kgmmuFmtInitPdeApertures_GM10X) and one
# kind list.
V1_VALUE_PREFIX = {
    ("pte", "APERTURE"): "NV_MMU_PTE_APERTURE_",
    ("pde", "APERTURE"): "NV_MMU_PDE_APERTURE_BIG_",
    ("dual-pde", "APERTURE_BIG"): "NV_MMU_PDE_APERTURE_BIG_",
    ("dual-pde", "APERTURE_SMALL"): "NV_MMU_PDE_APERTURE_BIG_",
    ("pte", "KIND"): "NV_MMU_PTE_KIND_",
}
# Values libgmmu names from the driver's code rather than a header define.
DRIVER_VALUES = {
    ("VOL", "SPARSE"): "VOL under aperture INVALID: the driver's sparse PDE",
    ("VOL_BIG", "SPARSE"): "VOL_BIG under aperture INVALID: the driver's sparse dual PDE",
    ("VOL_SMALL", "SPARSE"): "by symmetry with VOL_BIG and with v3's PCF_SMALL SPARSE_*; "
                             "the drivers mark a dual PDE sparse through its big half only",
}


def load_golden(path):
    g = {"header": {}, "field": {}, "const": {}, "value": {}, "chip": {}, "sparse": []}
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p or p[0].startswith("#"):
                continue
            if p[0] == "header":
                g["header"][p[1]] = p[2]
            elif p[0] == "field":
                g["field"][(p[1], p[2])] = (int(p[3]), int(p[4]))
            elif p[0] in ("const", "value"):
                g[p[0]][(p[1], p[2])] = int(p[3])
            elif p[0] == "sparse":
                g["sparse"].append((int(p[1][1:]), p[2], p[3], p[4]))
            elif p[0] == "chip":
                g["chip"][p[1]] = tuple(p[2:5])
    return g


class Report:
    def __init__(self):
        self.errors, self.checked, self.lines = [], 0, []

    def ok(self, n=1):
        self.checked += n

    def bad(self, msg):
        self.errors.append(msg)


def header_values(g, src, fld_name, prefix, etype, vname):
    """The header's number for value vname of a field, or None."""
    keys = [prefix + fld_name + "_" + vname]
    v1 = V1_VALUE_PREFIX.get((etype, fld_name))
    if v1:
        keys.append(v1 + vname)
    return next((g["value"][(src, k)] for k in keys if (src, k) in g["value"]), None)


def lib_to_headers(g, tables, rep):
    """Every field and value of libgmmu is defined, as it is, by the header it cites."""
    for fmt in tables["formats"]:
        for etype, entry in fmt["entries"].items():
            prefix = entry["prefix"]
            for fld in entry["fields"]:
                src, name = fld["source"], prefix + fld["name"]
                where = "%s %s %s" % (fmt["name"], etype, fld["name"])
                want = g["field"].get((src, name))
                if want is None:
                    rep.bad("%s: %s not defined in %s" % (where, name, src))
                    continue
                rep.ok()
                if want != (fld["hi"], fld["lo"]):
                    rep.bad("%s: libgmmu %d:%d, %s says %d:%d" %
                            (where, fld["hi"], fld["lo"], src, want[0], want[1]))
                vsrc = fld.get("values_source", src)
                for table in ("values", "values_invalid"):
                    for vname, v in fld.get(table, {}).items():
                        if (fld["name"], vname) in DRIVER_VALUES:
                            continue  # checked against the sparse facts
                        hv = header_values(g, vsrc, fld["name"], prefix, etype, vname)
                        if hv is None:
                            rep.bad("%s: value %s not in %s" % (where, vname, vsrc))
                        elif hv != v:
                            rep.bad("%s: value %s is %d, %s says %d" % (where, vname, v, vsrc, hv))
                        else:
                            rep.ok()
            src = entry["fields"][0]["source"]
            for cname, key in (("size", "__SIZE"), ("address_shift", "ADDRESS_SHIFT"),
                               ("address_big_shift", "ADDRESS_BIG_SHIFT")):
                want = g["const"].get((src, prefix + key))
                if cname in entry and want is not None:
                    rep.ok()
                    if want != entry[cname]:
                        rep.bad("%s %s: %s %d, %s says %d" %
                                (fmt["name"], etype, key, entry[cname], src, want))


def entry_of(tables, fmt_name, define):
    """(entry type, entry) of a VER2/VER3 define in a format, and the rest of the name."""
    fmt = next(f for f in tables["formats"] if f["name"] == fmt_name)
    for etype, entry in sorted(fmt["entries"].items(), key=lambda e: -len(e[1]["prefix"])):
        if define.startswith(entry["prefix"]):
            return etype, entry, define[len(entry["prefix"]):]
    return None, None, None


def value_owner(entry, rest):
    """The field a value define belongs to (longest name match) and the value's name."""
    best = None
    for fld in entry["fields"]:
        if rest.startswith(fld["name"] + "_") and (not best or len(fld["name"]) > len(best["name"])):
            best = fld
    return (best, rest[len(best["name"]) + 1:]) if best else (None, None)


def check_value(fld, vname, v):
    """None when the header's value agrees with libgmmu's field, else the reason."""
    valid, invalid = fld.get("values", {}), fld.get("values_invalid", {})
    if not valid and not invalid:  # a plain number field (the peer index values PEER_0..7)
        return None if v < (1 << (fld["hi"] - fld["lo"] + 1)) else "does not fit"
    for part in vname.split("__OR__"):  # "VALID_CACHED_ATS_ALLOWED__OR__INVALID_ATS_ALLOWED"
        have = [t[part] for t in (valid, invalid) if part in t]
        if not have:
            return "no value %s" % part
        if v not in have:
            return "%s is %s in libgmmu" % (part, have)
    return None


def generations(tables):
    """Header folder ("ada") -> the libgmmu formats of the generation's chips, from the
    chips libgmmu lists (family = the generation's name), release order; None for the
    generations NOT_MODELLED names."""
    gens = {gen: None for gen in NOT_MODELLED}
    for chip in tables["chips"]:
        formats = gens.setdefault(chip["family"].lower(), [])
        if formats is not None and chip["format"] not in formats:
            formats.append(chip["format"])
    return gens


def header_formats(gens, header):
    gen = header.split("/")[-2]
    return gen, gens.get(gen, "unknown")


def version_format(tables, formats, version):
    """The format of this version among formats, else the newest of the version (libgmmu lists
    formats oldest first): a generation whose header repeats the defines of a version it does
    not run (Hopper's hwref header carries the complete VER2 set) is compared with that."""
    fs = [f for f in formats if next(x for x in tables["formats"] if x["name"] == f)["version"]
          == version]
    return fs[0] if fs else [f["name"] for f in tables["formats"] if f["version"] == version][-1]


def v1_value(g, tables, fmt_name, header, name, v):
    """A v1 aperture or kind value: (checked, excluded, error)."""
    fmt = next(f for f in tables["formats"] if f["name"] == fmt_name)
    for pfx, etype, fname in (("NV_MMU_PTE_APERTURE_", "pte", "APERTURE"),
                              ("NV_MMU_PDE_APERTURE_BIG_", "pde", "APERTURE"),
                              ("NV_MMU_PTE_KIND_", "pte", "KIND")):
        if not name.startswith(pfx):
            continue
        fld = next(x for x in fmt["entries"][etype]["fields"] if x["name"] == fname)
        vname = name[len(pfx):]
        have = fld.get("values", {}).get(vname)
        if have == v:
            return 1, 0, None
        # The hwref copy of the Turing header still lists the pre-Turing 8-bit kinds; the
        # driver's swref header and nouveau (tu102_mmu_kind) use only the 4-bit ones.
        width = fld["hi"] - fld["lo"] + 1
        if fname == "KIND" and have is None and v > 0xf and header.startswith("hwref/") and \
                max(fld["values"].values()) <= 0xf and v < (1 << width):
            return 0, 1, None
        return 0, 0, "%s: %s is %s in %s %s" % (header, name, have, fmt_name, fname)
    return 0, 0, None


def headers_to_lib(g, tables, rep):
    """Every header of a generation libgmmu models agrees with that generation's format."""
    gens = generations(tables)
    by_header = {}
    for kind in ("field", "value", "const"):
        for (h, name), v in g[kind].items():
            by_header.setdefault(h, []).append((kind, name, v))
    for header in g["header"]:
        gen, formats = header_formats(gens, header)
        facts = by_header.get(header, [])
        if formats is None:
            rep.lines.append("%-22s %-9s not compared: %s" % (header, gen, NOT_MODELLED[gen]))
            continue
        if formats == "unknown":
            rep.bad("%s: generation %s has no chip in libgmmu's table and is not in NOT_MODELLED"
                    % (header, gen))
            continue
        n, excluded, errs = 0, 0, []
        for kind, name, v in facts:
            m = re.match(r"NV_MMU_VER([23])_", name)
            if m:
                c, e = ver_fact(tables, version_format(tables, formats, int(m.group(1))),
                                header, kind, name, v)
            else:
                c, x, e = 0, 0, None
                for f in formats:
                    c1, x1, e1 = v1_value(g, tables, f, header, name, v)
                    c, x, e = c + c1, x + x1, e or e1
                excluded += x
            n += c
            if e:
                errs.append(e)
        used = sorted({version_format(tables, formats, v) for v in (2, 3)
                       if any(re.match(r"NV_MMU_VER%d_" % v, f[1]) for f in facts)} |
                      (set(formats) if any(not f[1].startswith("NV_MMU_VER") for f in facts)
                       else set()))
        rep.lines.append("%-22s %-9s -> %-11s %4d facts agree, %3d excluded, %d differences" %
                         (header, gen, ",".join(used), n, excluded, len(errs)))
        rep.ok(n)
        for e in errs:
            rep.bad(e)
    for gen, formats in gens.items():
        if formats and not any(header_formats(gens, h)[0] == gen for h in g["header"]):
            rep.lines.append("%-22s %-9s no dev_mmu.h in this release (uses %s's tables)"
                             % ("-", gen, ",".join(formats)))


def ver_fact(tables, fmt_name, header, kind, name, v):
    """A VER2/VER3 fact against format fmt_name: (checked, error)."""
    etype, entry, rest = entry_of(tables, fmt_name, name)
    if entry is None:
        return 0, "%s: %s names no entry of %s" % (header, name, fmt_name)
    where = "%s: %s vs %s %s" % (header, name, fmt_name, etype)
    if kind == "field":
        fld = next((x for x in entry["fields"] if x["name"] == rest), None)
        if fld is None:
            return 0, "%s: no field %s" % (where, rest)
        if (fld["hi"], fld["lo"]) != v:
            return 0, "%s: libgmmu %d:%d, header %d:%d" % (where, fld["hi"], fld["lo"], v[0], v[1])
        return 1, None
    if kind == "const":
        key = {"_SIZE": "size", "ADDRESS_SHIFT": "address_shift",
               "ADDRESS_BIG_SHIFT": "address_big_shift"}.get(rest)
        if key is None or entry.get(key) != v:
            return 0, "%s: libgmmu %s, header %d" % (where, entry.get(key), v)
        return 1, None
    fld, vname = value_owner(entry, rest)
    if fld is None:
        return 0, "%s: value of no field" % where
    why = check_value(fld, vname, v)
    return (0, "%s: %s" % (where, why)) if why else (1, None)


def sparse_facts(g, tables, rep):
    """libgmmu's sparse entries and SPARSE value names are the driver's templates."""
    want = {}
    for ver, etype, define, val in g["sparse"]:
        want.setdefault((ver, etype), []).append((define, val))
    for fmt in tables["formats"]:
        src_fmt = fmt["name"]
        for etype, entry in fmt["entries"].items():
            facts = want.get((fmt["version"], etype))
            if not facts:
                rep.bad("%s %s: no sparse template in the driver facts" % (src_fmt, etype))
                continue
            w = [0, 0]
            for define, val in facts:
                fld = next((x for x in entry["fields"]
                            if entry["prefix"] + x["name"] == define), None)
                if fld is None:
                    rep.bad("%s %s: sparse template sets %s, not a field" % (src_fmt, etype, define))
                    continue
                num = {"TRUE": 1, "FALSE": 0}.get(val)
                if num is None:
                    num = header_values(g, fld["source"], fld["name"], entry["prefix"], etype, val)
                w[fld["lo"] // 64] |= num << (fld["lo"] % 64)
                if val == "TRUE" and fld["kind"] == "bool" and etype != "pte":
                    if fld.get("values_invalid", {}).get("SPARSE") != 1:
                        rep.bad("%s %s: %s is not named SPARSE under INVALID" %
                                (src_fmt, etype, fld["name"]))
            have = int(entry["sparse"], 16)
            expect = w[0] | (w[1] << 64)
            rep.ok()
            if have != expect:
                rep.bad("%s %s: libgmmu's sparse entry %s, driver template 0x%x" %
                        (src_fmt, etype, entry["sparse"], expect))


def chips_to_hal(g, tables, rep):
    chips = {c["name"]: c for c in tables["chips"]}
    for chip, impls in g["chip"].items():
        # Stubs get hash names that change between releases (d44104, b3696a ...).
        ctl = impls[1] if impls[1] in ("GP10X", "TU10X") else "none"
        cls = CLASSES.get((impls[0], ctl, impls[2]))
        if cls is None:
            if impls[0] in ("GP10X", "GH10X"):
                rep.bad("chip %s: HAL combination %s is not a known format class" %
                        (chip, "/".join(impls)))
            continue  # display-only HALs (stub PTE init)
        rep.ok()
        if chip not in chips:
            rep.bad("chip %s (%s) missing from libgmmu" % (chip, cls))
        elif chips[chip]["format"] != cls:
            rep.bad("chip %s: libgmmu %s, HAL says %s" % (chip, chips[chip]["format"], cls))


def cmd_compare(args):
    g = load_golden(args.golden)
    if args.json:
        with open(args.json) as f:
            tables = json.load(f)
    else:
        tables = json.loads(subprocess.run([args.pte_decode, "formats", "--json"], check=True,
                                           capture_output=True, text=True).stdout)
    rep = Report()
    headers_to_lib(g, tables, rep)
    lib_to_headers(g, tables, rep)
    sparse_facts(g, tables, rep)
    chips_to_hal(g, tables, rep)
    for line in rep.lines:
        print("gmmu-golden: " + line)
    for e in rep.errors:
        print("gmmu-golden: DIFFERENCE " + e)
    print("gmmu-golden: %d headers, %d facts checked, %d differences" %
          (len(g["header"]), rep.checked, len(rep.errors)))
    return 1 if rep.errors else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("src")
    e.add_argument("--rev")
    e.add_argument("-o", "--output")
    c = sub.add_parser("compare")
    c.add_argument("golden")
    grp = c.add_mutually_exclusive_group(required=True)
    grp.add_argument("--pte-decode")
    grp.add_argument("--json")
    args = ap.parse_args()
    return cmd_extract(args) if args.cmd == "extract" else cmd_compare(args)


if __name__ == "__main__":
    sys.exit(main())
