#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lists the skipped and failed tests of a ctest run, with what each reported missing.

usage: ctest-summary.py JUNIT.xml [TITLE]

JUNIT.xml is what `ctest --output-junit` wrote. scripts/test.sh prints this at the end
of its run, so that a test skipped for want of the shared reference folder (exit status
77, cmake/P2psTesting.cmake) is seen in the final summary rather than only in ctest's
scrolled-away "did not run" list. Prints nothing when every test ran and passed; the
exit status is 0 unless the file cannot be read.
"""
import sys
import xml.etree.ElementTree as ET

# Lines the test helpers print for a missing file (tests/support/p2ps_test.{h,sh}).
MISSING = " missing ("


def reasons(case):
    """The distinct 'PATH missing (...)' lines of one test's output, without prefixes."""
    out = case.findtext("system-out") or ""
    seen = []
    for line in out.splitlines():
        if MISSING not in line:
            continue
        for prefix in ("SKIPPED: ", "FAIL: ", "ERROR: ", "[  ERROR   ] --- "):
            if line.startswith(prefix):
                line = line[len(prefix):]
        if line not in seen:
            seen.append(line)
    return seen


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    title = sys.argv[2] if len(sys.argv) == 3 else sys.argv[1]
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"ctest-summary: {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    groups = {"skipped": [], "failed": []}
    for case in root.iter("testcase"):
        status = case.get("status")
        if status in ("notrun", "disabled"):
            groups["skipped"].append(case)
        elif status == "fail":
            groups["failed"].append(case)
    for what, cases in groups.items():
        if not cases:
            continue
        print(f"{title}: {len(cases)} test(s) {what}:")
        for case in cases:
            why = reasons(case)
            print(f"  {case.get('name')}" + (f": {why[0]}" if why else ""))
            for more in why[1:]:
                print(f"  {'':{len(case.get('name'))}}  {more}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
