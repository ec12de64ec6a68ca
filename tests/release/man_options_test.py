#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every option of every tool's option table (src/common/options.h rows, printed by the
hidden --p2ps-option-table) is described in its man page (man/*.in, built into
build/man/) and shown by its --help; every option a man page's OPTIONS section describes
exists; every man page formats cleanly with `groff -man -ww -z` (and `mandoc -T lint`
where mandoc is installed).

A missing option is named with the file to add it to, e.g.
  MISSING in man/bar-inspect.8.in: --nvidia-facts (bar-inspect's table); add a .TP entry
"""
import os
import re
import shutil
import subprocess
import sys

TOOLS = os.environ["P2PS_TOOLS_DIR"]
MAN = os.path.join(os.environ["P2PS_BINARY_DIR"], "man")
SRC = os.environ["P2PS_SOURCE_DIR"]

# page, tool, the argument lists whose tables the page documents
PAGES = [
    ("bar-inspect.8", "bar-inspect", [[]]),
    ("pte-probe.8", "pte-probe", [[]]),
    ("pte-decode.1", "pte-decode",
     [["encode"], ["decode"], ["decode", "--raw", "-"], ["p2p"], ["formats"], ["verify"]]),
    ("p2p-bench.1", "p2p-bench", [[], ["report"], ["check"]]),
]
OTHER_PAGES = ["gmmu.3"]
# Options a tool handles before any table: pte-decode's own, ahead of a command
# (tools/pte-decode/main.c).
OUTSIDE_TABLES = {"pte-decode": {"--version", "--help"}}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def rows(tool, args):
    rc, out, err = run([os.path.join(TOOLS, tool)] + args + ["--p2ps-option-table"])
    if rc != 0:
        fail(f"{tool} {' '.join(args)} --p2ps-option-table: exit {rc}: {err.strip()}")
        return []
    res = []
    for line in out.splitlines():
        name, short, arg, _help = line.split("\t")
        res.append((name, None if short == "-" else short, arg))
    return res


def roff_has(text, opt):
    """opt ("--root" or "-s") written in roff (\\- or -), not as part of a longer name."""
    pat = "".join(r"(?:\\-|-)" if c == "-" else re.escape(c) for c in opt)
    return re.search(r"(?<![A-Za-z0-9])" + pat + r"(?![A-Za-z0-9]|\\-|-)", text) is not None


def plain_has(text, opt):
    return re.search(r"(?<![A-Za-z0-9-])" + re.escape(opt) + r"(?![A-Za-z0-9-])", text)


def documented_options(text):
    """The long options a page's OPTIONS section describes (the line after each .TP)."""
    m = re.search(r"^\.SH OPTIONS\n(.*?)^\.SH ", text, re.S | re.M)
    if not m:
        return set()
    lines = m.group(1).splitlines()
    found = set()
    for i, line in enumerate(lines[:-1]):
        if line.startswith(".TP"):
            for o in re.findall(r"\\-\\-([a-z0-9]+(?:\\-[a-z0-9]+)*)", lines[i + 1]):
                found.add("--" + o.replace("\\-", "-"))
    return found


def check_groff(page):
    path = os.path.join(MAN, page)
    rc, out, err = run(["groff", "-man", "-ww", "-z", path])
    if rc != 0 or err.strip():
        fail(f"groff -man -ww -z {page}: exit {rc}: {err.strip()}")
    if shutil.which("mandoc"):
        rc, out, err = run(["mandoc", "-T", "lint", "-W", "warning", path])
        if rc != 0:
            fail(f"mandoc -T lint {page}: {(out + err).strip()}")


def in_ci():
    """CI=true (as CI services set it): a check that cannot run is then a failure."""
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def main():
    skipped = []
    if not shutil.which("groff"):
        print("groff is missing (scripts/deps.d/release.txt: groff-base)")
        return 1
    for page, tool, arglists in PAGES:
        src = f"man/{page}.in"
        if not os.path.exists(os.path.join(TOOLS, tool)):
            print(("FAIL: " if in_ci() else "SKIPPED: ") +
                  f"{tool} is not built here (p2p-bench needs a CUDA compiler): "
                  f"{src} is checked with groff only")
            skipped.append(tool)
            check_groff(page)
            continue
        with open(os.path.join(MAN, page)) as f:
            text = f.read()
        known = set(OUTSIDE_TABLES.get(tool, ()))
        n = 0
        for args in arglists:
            where = " ".join([tool] + args)
            rc, helptext, _ = run([os.path.join(TOOLS, tool)] + args + ["--help"])
            for name, short, arg in rows(tool, args):
                n += 1
                known.add("--" + name)
                for opt in ["--" + name] + ([f"-{short}"] if short else []):
                    if not roff_has(text, opt):
                        fail(f"MISSING in {src}: {opt} ({where}'s table); add a .TP entry "
                             "under OPTIONS")
                    if not plain_has(helptext, opt):
                        fail(f"MISSING in `{where} --help`: {opt}")
        for opt in sorted(documented_options(text) - known):
            fail(f"{src} describes {opt}, which no table of {tool} has")
        check_groff(page)
        print(f"ok: {page}: {n} option rows of {tool} against the page and --help")
    for page in OTHER_PAGES:
        check_groff(page)
    if failures or (skipped and in_ci()):
        return 1
    return 77 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
