#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Score bar-inspect --paste on the sets of public bug-report pastes.

Each case is a folder with paste.txt and source.md (tests/fixtures/pastes/README.md
describes the fields and the rule: every expectation is supported by a line of the paste). The script runs `bar-inspect --paste paste.txt --json` on every case
of the chosen sets, checks each assertion of source.md against the report, prints one line
per case and the totals per set.

Exit status: 0 (scores reported; with --min-dev / --min-validation, every set at or above
its threshold), 1 (a set below its threshold, a malformed source.md, or a case the tool gave
no JSON report for), 2 (usage error, bar-inspect not found).
"""
import argparse
import json
import os
import re
import subprocess
import sys

SETS = {"dev": "tests/fixtures/pastes", "validation": "tests/fixtures/pastes-validation"}
REQUIRED = ("source", "date", "tracker", "category", "cause", "confidence", "working")
REPEATABLE = ("cause-code", "cause-expected", "no-wrong-blocker", "argument", "deciding-ask")
KNOWN = set(REQUIRED) | set(REPEATABLE) | {"verdict"}
VERDICTS = ("ready", "not ready", "unknown")
# working: what the paste itself shows. unknown (it shows neither copies that work nor a failure)
# adds no assertion of its own: such a case asserts only its no-wrong-blocker lines (and its
# verdict or deciding-ask where it has them).
WORKING = ("yes", "no", "unknown")
CONFIDENCES = ("fix", "maint", "unresolved")
CATEGORIES = ("bar1-rebar", "iommu", "acs", "geforce-stock-driver", "mixed-models", "cross-socket",
              "nccl-transport", "gdr", "driver-defect", "vm-passthrough", "nvlink", "display", "working",
              "unresolved")
# Assertion kinds, in the order the per-case line prints them.
KINDS = ("verdict", "cause", "no-wrong-blocker", "ask", "working")
NAMED_SEVERITIES = ("blocker", "warning")


class CaseError(Exception):
    """A source.md that does not follow the format."""


def parse_source(path):
    """source.md as {key: value} (REPEATABLE keys: lists); raises CaseError."""
    fields = {k: [] for k in REPEATABLE}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            m = re.match(r"^([a-z-]+): (.+)$", line)
            if not m or m.group(1) not in KNOWN:
                raise CaseError(f"line {n}: not a known 'key: value' line: {line[:60]!r}")
            key, value = m.group(1), m.group(2).strip()
            if key in REPEATABLE:
                fields[key].append(value)
            elif key in fields:
                raise CaseError(f"line {n}: {key} given twice")
            else:
                fields[key] = value
    check_fields(fields)
    return fields


def check_fields(c):
    for key in REQUIRED:
        if key not in c:
            raise CaseError(f"no {key}: line")
    if not c["source"].startswith("https://"):
        raise CaseError("source: is not an https address")
    if not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", c["date"]):
        raise CaseError("date: is not YYYY-MM or YYYY-MM-DD")
    if c["confidence"] not in CONFIDENCES:
        raise CaseError(f"confidence: is not one of {', '.join(CONFIDENCES)}")
    for cat in c["category"].split(", "):
        if cat not in CATEGORIES:
            raise CaseError(f"category: {cat!r} is not one of {', '.join(CATEGORIES)}")
    if c["working"] not in WORKING:
        raise CaseError(f"working: is not one of {', '.join(WORKING)}")
    if "verdict" in c and c["verdict"] not in VERDICTS:
        raise CaseError(f"verdict: is not one of {', '.join(VERDICTS)}")
    resolved = c["confidence"] != "unresolved"
    if not resolved and ("verdict" in c or c["cause-code"] or c["cause-expected"]):
        raise CaseError("an unresolved case asserts no verdict and no cause")
    if resolved and "verdict" not in c and not (c["cause-expected"] and c["deciding-ask"]):
        raise CaseError("a resolved case asserts its verdict, or (its cause not in the paste) "
                        "names the cause in cause-expected and asserts the deciding-ask")
    if c["cause-code"] and "verdict" not in c:
        raise CaseError("a cause-code comes with the verdict it explains")
    if not resolved and not c["deciding-ask"]:
        raise CaseError("an unresolved case asserts its deciding-ask")
    if len(c["deciding-ask"]) > 1:
        raise CaseError("deciding-ask given twice (alternatives go on one line, split by ' || ')")
    clash = {"yes": "not ready", "no": "ready"}.get(c["working"])
    if clash and c.get("verdict") == clash:
        raise CaseError(f"working: {c['working']} contradicts verdict: {clash}")
    if c["working"] == "unknown" and not (c["no-wrong-blocker"] or c["deciding-ask"]
                                          or "verdict" in c):
        raise CaseError("working: unknown asserts nothing by itself: the case needs a verdict, a "
                        "no-wrong-blocker or a deciding-ask")


def named_codes(report, severities):
    """Reason codes the report names with one of the severities, plus its verdict causes."""
    paste = report.get("paste") or {}
    codes = {c.get("code") for c in paste.get("causes") or []}
    reasons = list(paste.get("findings") or [])
    for pair in report.get("pairs") or []:
        reasons += pair.get("reasons") or []
    for pair in (report.get("gpudirect_rdma") or {}).get("pairs") or []:
        reasons += pair.get("reasons") or []
    codes |= {r.get("code") for r in reasons if r.get("severity") in severities}
    return codes


def says_works(paste):
    return paste.get("verdict") == "ready" or any(p.get("p2p_works") for p in paste.get("pairs") or [])


def norm(s):
    return " ".join(s.split())


def score_case(c, report):
    """{kind: [(ok, detail)]} for every assertion of the case."""
    paste = report.get("paste") or {}
    verdict = paste.get("verdict")
    blockers = named_codes(report, ("blocker",))
    named = named_codes(report, NAMED_SEVERITIES)
    asks = [a.get("command", "") for a in paste.get("send_next") or []]
    first = norm(asks[0]) if asks else ""
    out = {k: [] for k in KINDS}
    if "verdict" in c:
        out["verdict"].append((verdict == c["verdict"], f"verdict {verdict!r}, want {c['verdict']!r}"))
    for want in c["cause-code"]:
        alts = want.split("|")
        out["cause"].append((any(a in named for a in alts), f"cause {want} not named"))
    for code in c["no-wrong-blocker"]:
        wrong = [a for a in code.split("|") if a in blockers]
        out["no-wrong-blocker"].append((not wrong, f"blocker {','.join(wrong)} asserted"))
    for want in c["deciding-ask"]:
        alts = [norm(a) for a in want.split("||")]
        ok = any(first.startswith(a) for a in alts if a)
        out["ask"].append((ok, f"first ask {first!r}, want {want!r}"))
    if c["working"] == "yes":
        ok = says_works(paste) and verdict != "not ready" and not blockers
        out["working"].append((ok, f"P2P works not recognised (verdict {verdict!r})"))
    elif c["working"] == "no":
        out["working"].append((verdict != "ready", "verdict 'ready' on a host where P2P fails"))
    return out


def run_tool(tool, paste_path):
    r = subprocess.run([tool, "--paste", paste_path, "--json"], capture_output=True, text=True,
                       check=False)
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {r.stderr.strip()[:200]}")
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"no JSON report: {e}") from e


def case_line(name, kinds):
    parts = []
    for k in KINDS:
        results = kinds[k]
        if results:
            good = sum(ok for ok, _ in results)
            parts.append(f"{k} {good}/{len(results)}")
    return " ".join(parts)


def score_set(tool, root, set_name, args):
    folder = os.path.join(root, SETS[set_name])
    if not os.path.isdir(folder):
        return None
    cases = sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))
    total = passed = errors = 0
    kind_tot = {k: [0, 0] for k in KINDS}
    for name in cases:
        if args.case and args.case not in name:
            continue
        d = os.path.join(folder, name)
        total += 1
        try:
            c = parse_source(os.path.join(d, "source.md"))
            report = run_tool(tool, os.path.join(d, "paste.txt"))
        except (CaseError, RuntimeError, OSError) as e:
            errors += 1
            print(f"ERROR {set_name}/{name}: {e}")
            continue
        kinds = score_case(c, report)
        ok = all(ok for r in kinds.values() for ok, _ in r)
        passed += ok
        for k, results in kinds.items():
            kind_tot[k][0] += sum(o for o, _ in results)
            kind_tot[k][1] += len(results)
        print(f"{'PASS' if ok else 'FAIL'}  {set_name}/{name}: {case_line(name, kinds)}")
        if not ok and args.verbose:
            for results in kinds.values():
                for good, why in results:
                    if not good:
                        print(f"        {why}")
    pct = 100.0 * passed / total if total else 0.0
    by_kind = ", ".join(f"{k} {g}/{n}" for k, (g, n) in kind_tot.items() if n)
    print(f"{set_name}: {passed}/{total} cases pass ({pct:.1f}%); assertions: {by_kind}")
    return pct, errors, total


def spread(root, names):
    """Markdown tables of the sets' cases by category, tracker, year, working and confidence."""
    cases = {}
    for name in names:
        folder = os.path.join(root, SETS[name])
        for d in sorted(os.listdir(folder)):
            src = os.path.join(folder, d, "source.md")
            if os.path.isfile(src):
                cases.setdefault(name, []).append(parse_source(src))
    axes = (("category", lambda c: c["category"].split(", ")),
            ("tracker", lambda c: [c["tracker"]]),
            ("year", lambda c: [c["date"][:4]]),
            ("working", lambda c: [c["working"]]),
            ("confidence", lambda c: [c["confidence"]]))
    for axis, keys in axes:
        counts = {}
        for name, cs in cases.items():
            for c in cs:
                for k in keys(c):
                    counts.setdefault(k, dict.fromkeys(names, 0))[name] += 1
        print(f"| {axis} | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for k in sorted(counts):
            print(f"| {k} | " + " | ".join(str(counts[k][n]) for n in names) + " |")
        print()
    print("cases: " + ", ".join(f"{n} {len(cases.get(n, []))}" for n in names))


def find_tool(arg):
    if arg:
        return arg
    tools = os.environ.get("P2PS_TOOLS_DIR")
    if tools:
        return os.path.join(tools, "bar-inspect")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(root, "build", "tools", "bar-inspect")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("dev", "validation", "both"), default="both")
    ap.add_argument("--tool", help="bar-inspect to run (default $P2PS_TOOLS_DIR/bar-inspect, "
                    "else build/tools/bar-inspect)")
    ap.add_argument("--root", help="source tree holding tests/fixtures (default: this "
                    "script's checkout)")
    ap.add_argument("--min-dev", type=float, help="exit 1 when the dev set scores below this %%")
    ap.add_argument("--min-validation", type=float,
                    help="exit 1 when the validation set scores below this %%")
    ap.add_argument("--case", help="only the cases whose folder name contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each failed assertion")
    ap.add_argument("--spread", action="store_true",
                    help="print the sets' spread (category, tracker, year, working, confidence) "
                    "as markdown tables and exit; runs no tool")
    args = ap.parse_args()
    root = args.root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = ("dev", "validation") if args.set == "both" else (args.set,)
    if args.spread:
        try:
            spread(root, names)
        except (CaseError, OSError) as e:
            print(f"paste-score: {e}", file=sys.stderr)
            return 1
        return 0
    tool = find_tool(args.tool)
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print(f"paste-score: bar-inspect not found at {tool} (--tool or P2PS_TOOLS_DIR)",
              file=sys.stderr)
        return 2
    status = 0
    for name in names:
        result = score_set(tool, root, name, args)
        if result is None:
            print(f"paste-score: no {SETS[name]} under {root}", file=sys.stderr)
            return 2
        pct, errors, total = result
        threshold = args.min_dev if name == "dev" else args.min_validation
        if errors or total == 0:
            status = 1
        if threshold is not None and pct < threshold:
            print(f"{name}: {pct:.1f}% is below the minimum {threshold:g}%")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
