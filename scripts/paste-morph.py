#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Metamorphic test of bar-inspect --paste: the same paste, damaged as real threads damage it.

For every case of a paste set (tests/fixtures/pastes by default) the script applies each
meaning-preserving transformation below (a quote, an indented code block, fences, CRLF, HTML
entities, a log prefix on every line...), runs `bar-inspect --paste FILE --json` on the original
and the transformed text and compares the judgement: the paste's verdict, its cause codes, the
codes of its blocker and warning findings, the first command it asks for, the number of GPUs and
of pairs, and which pairs work. It prints one line per (transform, case) whose judgement differs,
saying what changed, and the totals per transform.

Some transformations cannot keep the meaning of every syntax (KNOWN_LOSSY says which and why):
they are run and reported, but --check asserts only the others.

Exit status: 0 (no difference in an asserted transform, or without --check), 1 (--check and a
difference), 2 (usage error), 77 (the paste set or the tool is missing: nothing to test).
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

DEV_SET = "tests/fixtures/pastes"


# ---- the transformations: each takes the paste's text and returns the damaged text ----

def lines_of(text):
    """The paste's lines without their line ends (a last line end adds no empty line)."""
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def joined(lines):
    return "\n".join(lines) + "\n"


def quote(text):
    """An email or GitHub reply quotes every line with "> "."""
    return joined(["> " + l if l else ">" for l in lines_of(text)])


def quote2(text):
    """A reply to a reply: ">> "."""
    return joined([">> " + l if l else ">>" for l in lines_of(text)])


def indent4(text):
    """A markdown code block by indentation: every line four spaces in."""
    return joined(["    " + l if l else "" for l in lines_of(text)])


def tabs(text):
    """A code block indented by a tab, the paste's own indentation re-expressed as tabs
    (tab stops every 8 columns, as the terminal printed it)."""
    out = []
    for l in lines_of(text):
        m = re.match(r"^ +", l)
        lead = len(m.group(0)) if m else 0
        out.append("\t" + "\t" * (lead // 8) + " " * (lead % 8) + l[lead:] if l else "")
    return joined(out)


def fence(text):
    """The whole paste between ``` fences."""
    return "```\n" + joined(lines_of(text)) + "```\n"


def split_points(lines, parts):
    """Indices of blank lines (at most parts-1) near the even split points of lines: a paste
    is split into fenced blocks only where the poster had a blank line."""
    blanks = [i for i, l in enumerate(lines) if not l.strip()]
    points = []
    for k in range(1, parts):
        want = len(lines) * k // parts
        cands = [b for b in blanks if b not in points and (not points or b > points[-1])]
        if cands:
            points.append(min(cands, key=lambda b: abs(b - want)))
    return points


def fence_lang(text):
    """2-3 fenced blocks with a language marker (```text, ```console, ```shell), a blank line
    between them, split where the paste has a blank line."""
    lines = lines_of(text)
    langs = ("text", "console", "shell")
    out, start = [], 0
    for i, p in enumerate(split_points(lines, 3) + [len(lines)]):
        if out:
            out.append("")
        out += ["```" + langs[i % 3]] + lines[start:p] + ["```"]
        start = p + 1
    return joined(out)


def crlf(text):
    """Windows line ends."""
    return "".join(l + "\r\n" for l in lines_of(text))


def trailing(text):
    """Trailing spaces on every line (editors, copied terminal rectangles)."""
    return joined([l + "   " for l in lines_of(text)])


def blank_between(text):
    """Forum double spacing: a blank line after every line."""
    return "".join(l + "\n\n" for l in lines_of(text))


def collapse_ws(text):
    """HTML rendering: runs of blanks collapse to one space, leading blanks vanish; tables
    lose their alignment."""
    return joined([re.sub(r"[ \t]+", " ", l).strip(" ") for l in lines_of(text)])


def nbsp(text):
    """Copied from a web page: spaces are U+00A0 (no-break space)."""
    return text.replace(" ", "\u00a0")


def html_entities(text):
    """Copied from a page's source or an escaped renderer: &amp; &lt; &gt;."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def details(text):
    """GitHub's folded block: <details><summary>log</summary> ... </details>."""
    return "<details><summary>log</summary>\n\n" + joined(lines_of(text)) + "\n</details>\n"


def details_indent(text):
    """A folded block whose output is an indented code block inside it (GitHub needs the blank
    line after the summary), the summary naming the command."""
    return ("<details>\n<summary>nvidia-smi and logs</summary>\n\n" + indent4(text) +
            "\n</details>\n")


KERNEL_STAMP = re.compile(r"^\[\s*\d+\.\d+\] ")
KERNEL_TAG = re.compile(r"^(NVRM: |nvidia-nvlink: |pci 0000:|pci_bus 0|AMD-Vi: |DMAR: |DMAR-IR: |"
                        r"iommu: |nvidia-modeset: |nvidia [0-9a-f]{4}:)")


def log_prefix(text):
    """A container log's time stamp on every line; a kernel line as the system log writes it
    ("Mar 01 10:00:00 host kernel: [   12.345] ...", /var/log/kern.log) or journalctl -k (the
    kernel's own tag, no stamp)."""
    out = []
    for i, l in enumerate(lines_of(text)):
        if KERNEL_STAMP.match(l) or KERNEL_TAG.match(l):
            out.append("Mar 01 10:00:%02d gpu-host kernel: %s" % (i % 60, l))
        else:
            out.append("2025-03-01T10:00:%02d.%06dZ %s" % (i % 60, 123456 + i, l))
    return joined(out)


def rank_prefix(text):
    """torchrun's per-rank prefix on every line."""
    return joined(["[rank0]: " + l for l in lines_of(text)])


def mpi_tag(text):
    """Open MPI's --tag-output on every line."""
    return joined(["[1,0]<stdout>:" + l for l in lines_of(text)])


def compose_prefix(text):
    """docker compose's service column on every line."""
    return joined(["vllm-worker-1  | " + l for l in lines_of(text)])


NOISE_BEFORE = ["$ pip freeze", "certifi==2024.2.2", "filelock==3.13.1", "Jinja2==3.1.3",
                "numpy==1.26.4", "packaging==24.0", "PyYAML==6.0.1", "requests==2.31.0",
                "tqdm==4.66.2", ""]
NOISE_AFTER = ["", "user@box:~/work$ ls", "data  logs  README.md  train.py  venv", ""]


def noise(text):
    """An unrelated block before (a pip freeze list) and after (a shell prompt with ls)."""
    return joined(NOISE_BEFORE + lines_of(text) + NOISE_AFTER)


def hash_eaten(text):
    """Markdown turns "# text" into a heading: the line loses its "#" marks, the blanks after
    them stay (as pasted from the rendered page). Returns None when the paste has no such line
    (nothing to damage)."""
    if not re.search(r"^#{1,6}( |$)", text, re.M):
        return None
    return joined([re.sub(r"^#{1,6}( |$)", "", l) for l in lines_of(text)])


TRANSFORMS = {f.__name__: f for f in (
    quote, quote2, indent4, tabs, fence, fence_lang, crlf, trailing, blank_between, collapse_ws,
    nbsp, html_entities, details, details_indent, log_prefix, rank_prefix, compose_prefix, mpi_tag,
    noise, hash_eaten)}

# Transformations that cannot keep the meaning of every syntax: run and reported, never asserted.
KNOWN_LOSSY = {}


# ---- the judgement ----

def pair_key(p):
    return "%s<->%s" % (p.get("a"), p.get("b"))


def judgement(report):
    """The parts of a --json report that a damaged paste must not change."""
    p = report.get("paste") or {}
    first = (p.get("send_next") or [{}])[0].get("command")
    return {
        "verdict": p.get("verdict"),
        "causes": sorted({c.get("code") for c in p.get("causes") or []}),
        "findings": sorted({"%s:%s" % (f.get("severity"), f.get("code"))
                            for f in p.get("findings") or []
                            if f.get("severity") in ("blocker", "warning")}),
        "ask": first,
        "gpus": len(report.get("devices") or []),
        "pairs": len(p.get("pairs") or []),
        "working": sorted(pair_key(q) for q in p.get("pairs") or [] if q.get("p2p_works")),
    }


def run_tool(tool, path):
    try:
        r = subprocess.run([tool, "--paste", path, "--json"], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return {"error": "timed out"}
    try:
        return judgement(json.loads(r.stdout.decode("utf-8", "replace")))
    except (ValueError, AttributeError):
        return {"error": "no JSON report (exit %d)" % r.returncode}


def describe(a, b):
    """What changed between two judgements, in one line."""
    if "error" in a or "error" in b:
        return "%s -> %s" % (a.get("error", "report"), b.get("error", "report"))
    out = []
    for k in a:
        if a[k] == b[k]:
            continue
        if isinstance(a[k], list):
            gone = [x for x in a[k] if x not in b[k]]
            new = [x for x in b[k] if x not in a[k]]
            out.append("%s %s%s" % (k, " ".join("-" + x for x in gone),
                                    (" " if gone and new else "") + " ".join("+" + x for x in new)))
        else:
            out.append("%s %r -> %r" % (k, a[k], b[k]))
    return "; ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", default="build/tools/bar-inspect", help="the bar-inspect binary")
    ap.add_argument("--root", default=".", help="the source tree (default: .)")
    ap.add_argument("--set", default=DEV_SET, help="folder of cases (default: %(default)s)")
    ap.add_argument("--transform", action="append", choices=sorted(TRANSFORMS),
                    help="run only these (repeatable; default: all)")
    ap.add_argument("--cases", type=int, default=0,
                    help="only every Nth case (a quicker run, e.g. under ASan)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on a difference in a transform not known to be lossy")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()

    tool = os.path.abspath(args.tool)
    folder = os.path.join(args.root, args.set)
    if not os.path.isdir(folder):
        print("SKIP: no paste set at %s" % folder)
        return 77
    if not os.access(tool, os.X_OK):
        print("SKIP: no bar-inspect at %s" % tool)
        return 77
    cases = sorted(c for c in os.listdir(folder)
                   if os.path.isfile(os.path.join(folder, c, "paste.txt")))
    if args.cases > 1:
        cases = cases[::args.cases]
    if not cases:
        print("SKIP: no case in %s" % folder)
        return 77
    names = args.transform or list(TRANSFORMS)

    with tempfile.TemporaryDirectory(prefix="paste-morph.") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        jobs = {}
        for c in cases:
            path = os.path.join(folder, c, "paste.txt")
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", "surrogateescape")
            jobs[(None, c)] = pool.submit(run_tool, tool, path)
            for t in names:
                damaged = TRANSFORMS[t](text)
                if damaged is None:
                    continue
                out = os.path.join(tmp, "%s.%s.txt" % (c, t))
                with open(out, "wb") as f:
                    f.write(damaged.encode("utf-8", "surrogateescape"))
                jobs[(t, c)] = pool.submit(run_tool, tool, out)
        got = {k: f.result() for k, f in jobs.items()}

    failed = False
    totals = []
    for t in names:
        ran = differ = 0
        for c in cases:
            if (t, c) not in got:
                continue
            ran += 1
            if got[(t, c)] != got[(None, c)]:
                differ += 1
                print("%s %s: %s" % (t, c, describe(got[(None, c)], got[(t, c)])))
        lossy = t in KNOWN_LOSSY
        if differ and not lossy:
            failed = True
        totals.append("%-14s %3d/%d differ%s" % (t, differ, ran,
                                                  " (known lossy: %s)" % KNOWN_LOSSY[t]
                                                  if lossy else ""))
    print("\n".join(totals))
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
