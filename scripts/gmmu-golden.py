#!/usr/bin/env python3
"""Golden facts for libgmmu from NVIDIA's open GPU kernel modules.

  gmmu-golden.py extract SRC [--rev REV] [-o FILE]
      SRC is a checkout of NVIDIA/open-gpu-kernel-modules, or a bare/mirror git
      directory read at REV (a tag such as 595.45.04). Writes the facts libgmmu's
      tables are checked against, one per line:
        field  HEADER NAME HI LO      a hi:lo define of a VER2/VER3 entry
        const  HEADER NAME VALUE      __SIZE, ADDRESS_SHIFT, ADDRESS_BIG_SHIFT
        value  HEADER NAME VALUE      a value define (also the v1 aperture and kind
                                      names the driver uses for v2/v3 entries)
        chip   NAME PTE COMPTAG LEVELS  HAL implementation suffixes per chip
      HEADER is <arch>/<chip> under src/common/inc/swref/published.
  gmmu-golden.py compare GOLDEN (--pte-decode BIN | --json FILE)
      Compares `pte-decode formats --json` with GOLDEN; prints each difference
      and exits 1 if there is any.

Only facts (names and numbers) are written, never header text.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HEADERS = ["pascal/gp100", "volta/gv100", "turing/tu102", "hopper/gh100"]
PUBLISHED = "src/common/inc/swref/published/%s/dev_mmu.h"
HAL_FILE = "src/nvidia/generated/g_kern_gmmu_nvoc.c"
HAL_METHODS = ["kgmmuFmtInitPte", "kgmmuFmtInitPteComptagLine", "kgmmuFmtInitLevels"]

DEFINE = re.compile(r"^\s*#\s*define\s+(NV_MMU_\w+)\s+(.*?)\s*(/\*.*)?$")
ARITH = re.compile(r"^[0-9+\-*() ]+$")


def read(src, rev, path):
    if rev or not os.path.exists(os.path.join(src, path)):
        out = subprocess.run(["git", "-C", src, "show", "%s:%s" % (rev or "HEAD", path)],
                             check=True, capture_output=True, text=True)
        return out.stdout
    with open(os.path.join(src, path), encoding="utf-8", errors="replace") as f:
        return f.read()


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


def cmd_extract(args):
    out = ["# libgmmu golden facts: scripts/gmmu-golden.py extract, NVIDIA/open-gpu-kernel-modules %s"
           % (args.rev or "HEAD")]
    for h in HEADERS:
        extract_header(h, read(args.src, args.rev, PUBLISHED % h), out)
    extract_hal(read(args.src, args.rev, HAL_FILE), out)
    text = "\n".join(out) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


# ---- compare ----

# Which format the driver's HAL combination means (see docs/gmmu.md).
CLASSES = {
    ("GP10X", "TU10X", "GP10X"): "v2-tu",
    ("GP10X", "TU10X", "GA10X"): "v2-ga",
    ("GH10X", "none", "GH10X"): "v3-gh",
    ("GH10X", "none", "GB10X"): "v3-gb",
}
# Value names the v2/v3 headers do not define per version: the driver encodes them with the
# v1 names (kgmmuFmtInitPteApertures_GM10X, kgmmuFmtInitPdeApertures_GM10X) and one kind list.
V1_VALUE_PREFIX = {
    ("pte", "APERTURE"): "NV_MMU_PTE_APERTURE_",
    ("pde", "APERTURE"): "NV_MMU_PDE_APERTURE_BIG_",
    ("dual-pde", "APERTURE_BIG"): "NV_MMU_PDE_APERTURE_BIG_",
    ("dual-pde", "APERTURE_SMALL"): "NV_MMU_PDE_APERTURE_BIG_",
    ("pte", "KIND"): "NV_MMU_PTE_KIND_",
}


def load_golden(path):
    g = {"field": {}, "const": {}, "value": {}, "chip": {}}
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p or p[0].startswith("#"):
                continue
            if p[0] == "field":
                g["field"][(p[1], p[2])] = (int(p[3]), int(p[4]))
            elif p[0] in ("const", "value"):
                g[p[0]][(p[1], p[2])] = int(p[3])
            elif p[0] == "chip":
                g["chip"][p[1]] = tuple(p[2:5])
    return g


def cmd_compare(args):
    g = load_golden(args.golden)
    if args.json:
        with open(args.json) as f:
            tables = json.load(f)
    else:
        tables = json.loads(subprocess.run([args.pte_decode, "formats", "--json"], check=True,
                                           capture_output=True, text=True).stdout)
    errors = []
    checked = 0
    for fmt in tables["formats"]:
        for etype, entry in fmt["entries"].items():
            prefix = entry["prefix"]
            for fld in entry["fields"]:
                src, name = fld["source"], prefix + fld["name"]
                want = g["field"].get((src, name))
                where = "%s %s %s" % (fmt["name"], etype, fld["name"])
                if want is None:
                    errors.append("%s: %s not defined in %s" % (where, name, src))
                    continue
                checked += 1
                if want != (fld["hi"], fld["lo"]):
                    errors.append("%s: libgmmu %d:%d, %s says %d:%d" %
                                  (where, fld["hi"], fld["lo"], src, want[0], want[1]))
                for table in ("values", "values_invalid"):
                    for vname, v in fld.get(table, {}).items():
                        keys = [name + "_" + vname]
                        v1 = V1_VALUE_PREFIX.get((etype, fld["name"]))
                        if v1:
                            keys.append(v1 + vname)
                        # Same header as the field's bits; the first name that exists.
                        vsrc = fld.get("values_source", src)
                        hv = next((g["value"][(vsrc, k)] for k in keys
                                   if (vsrc, k) in g["value"]), None)
                        if hv is None:
                            errors.append("%s: value %s not in the headers" % (where, vname))
                        elif hv != v:
                            errors.append("%s: value %s is %d, header says %d" %
                                          (where, vname, v, hv))
                        else:
                            checked += 1
            for cname, key in (("size", "__SIZE"), ("address_shift", "ADDRESS_SHIFT"),
                               ("address_big_shift", "ADDRESS_BIG_SHIFT")):
                if cname not in entry:
                    continue
                src = entry["fields"][0]["source"]
                want = g["const"].get((src if fmt["version"] == 3 else "pascal/gp100",
                                       prefix + key))
                if want is not None:
                    checked += 1
                    if want != entry[cname]:
                        errors.append("%s %s: %s %d, header says %d" %
                                      (fmt["name"], etype, key, entry[cname], want))
    # Every VER2/VER3 define of a header that has the entry is modelled somewhere.
    modelled = set()
    for fmt in tables["formats"]:
        for entry in fmt["entries"].values():
            for fld in entry["fields"]:
                modelled.add((fld["source"], entry["prefix"] + fld["name"]))
    for (src, name) in g["field"]:
        if (src, name) not in modelled and src != "volta/gv100" and \
                not (src == "turing/tu102" and "COMPTAGLINE" not in name):
            errors.append("%s %s is not in libgmmu's tables" % (src, name))
    # gv100/tu102 repeat a few v2 PTE fields: they must agree with the class using them.
    for (src, name), hl in g["field"].items():
        if src in ("volta/gv100", "turing/tu102"):
            fmt_name = "v2-gp" if src == "volta/gv100" else "v2-tu"
            fmt = next(f for f in tables["formats"] if f["name"] == fmt_name)
            fld = next((x for x in fmt["entries"]["pte"]["fields"]
                        if "NV_MMU_VER2_PTE_" + x["name"] == name), None)
            if fld is None or (fld["hi"], fld["lo"]) != hl:
                errors.append("%s %s %d:%d disagrees with %s" % (src, name, hl[0], hl[1], fmt_name))
            else:
                checked += 1
    chips = {c["name"]: c for c in tables["chips"]}
    for chip, impls in g["chip"].items():
        # Stubs get hash names that change between releases (d44104, b3696a ...).
        ctl = impls[1] if impls[1] in ("GP10X", "TU10X") else "none"
        cls = CLASSES.get((impls[0], ctl, impls[2]))
        if cls is None:
            if impls[0] in ("GP10X", "GH10X"):
                errors.append("chip %s: HAL combination %s is not a known format class" %
                              (chip, "/".join(impls)))
            continue  # display-only HALs (stub PTE init)
        checked += 1
        if chip not in chips:
            errors.append("chip %s (%s) missing from libgmmu" % (chip, cls))
        elif chips[chip]["format"] != cls:
            errors.append("chip %s: libgmmu %s, HAL says %s" % (chip, chips[chip]["format"], cls))
    for e in errors:
        print("gmmu-golden: " + e)
    print("gmmu-golden: %d facts checked, %d differences" % (checked, len(errors)))
    return 1 if errors else 0


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
