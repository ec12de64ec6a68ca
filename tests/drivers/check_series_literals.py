#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No NVIDIA driver series is written outside the driver table.

A series is data: a row of src/gmmu/nvidia_drivers.c. Code that tests a series number, or a
message that names one, has to change when a series is added and goes stale when it is
not; it reads the table instead (the fallback rule, the newest row, a row's columns).

The check reads every C source under src/ and tools/ (the table aside) with its comments
removed, and fails on a series literal in code or in a string: a number 515..699 standing
alone (not part of an identifier, a hex number or a longer number), "580", "565-tinygrad",
`>= 580`. A dotted version inside a string ("kbusInitBar1_GM107, 580.142") is a citation of
the tag a fact was read at, and is allowed; so is every comment. ALLOWED lists the numbers in
that range that are no series, each with why. The check proves it can fail: it runs on a
planted file first.

    tests/drivers/check_series_literals.py [TOP]
"""
import os
import re
import sys
import tempfile

TABLE = "src/gmmu/nvidia_drivers.c"
SERIES = re.compile(r"(?<![\w.])(5(?:1[5-9]|[2-9][0-9])|6[0-9]{2})(?![\w.]|\.[0-9])")
# (file, text of the line that holds it): numbers in the range that are no driver series.
ALLOWED = [
    ("src/rm/sys_linux.c", "char p[640];", "a path buffer's size"),
]

def strip(text):
    """The text with comments blanked (newlines kept), strings and characters intact."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)

def hits(path, rel):
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read().split("\n")
    code = strip("\n".join(raw)).split("\n")
    found = []
    for no, line in enumerate(code, 1):
        for m in SERIES.finditer(line):
            if any(rel == a and a_text in raw[no - 1] for a, a_text, _ in ALLOWED):
                continue
            found.append(f"{rel}:{no}: {m.group(1)}: {raw[no - 1].strip()}")
    return found

def sources(top):
    for d in ("src", "tools"):
        for root, _, files in os.walk(os.path.join(top, d)):
            for name in sorted(files):
                if name.endswith((".c", ".h", ".cu", ".cuh")):
                    path = os.path.join(root, name)
                    yield path, os.path.relpath(path, top)

def self_test():
    planted = (
        'if (cfg->series >= 580) return;\n'          # a rule on a series: caught
        'puts("use driver 595 or later");\n'         # a message naming one: caught
        'spec = "565-tinygrad";\n'                   # a spec: caught
        '/* 580: kbusInitBar1_GM107 */\n'            # a comment: allowed
        'src = "kbusInitBar1_GM107, 580.142";\n'     # a citation of a tag: allowed
        'char buf[512]; x = 0x580; y = 5800;\n'      # no series: allowed
    )
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(planted)
    try:
        found = hits(f.name, "planted.c")
    finally:
        os.unlink(f.name)
    lines = sorted({h.split(":")[1] for h in found})
    if lines != ["1", "2", "3"]:
        print(f"check_series_literals: the check finds {found}, wanted lines 1, 2 and 3 of "
              "the planted file", file=sys.stderr)
        return False
    return True

def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "P2PS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    if not self_test():
        return 1
    if not os.path.exists(os.path.join(top, TABLE)):
        print(f"check_series_literals: no {TABLE} under {top}", file=sys.stderr)
        return 2
    found, files = [], 0
    for path, rel in sources(top):
        if rel == TABLE:
            continue
        files += 1
        found += hits(path, rel)
    if found:
        print("check_series_literals: driver series outside the driver table "
              f"({TABLE}: read a row instead):", file=sys.stderr)
        print("\n".join(found), file=sys.stderr)
        return 1
    print(f"check_series_literals: {files} files, no driver series outside {TABLE}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
