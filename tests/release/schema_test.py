#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every tool's --json output on every committed fixture validates against its JSON Schema
(schemas/*.schema.json, draft 2020-12) with a real validator (Debian's python3-jsonschema),
and mutated outputs (a wrong verdict, a missing core key, a bad value) fail validation, so
the schemas are not vacuous.

Runs: bar-inspect on every snapshot, lspci dump and paste under tests/fixtures (plain,
--all, and the QEMU guest with its devices as --peers), the committed bar-inspect reports;
bar-inspect --fleet over all of them; pte-decode decode/p2p/formats and a dump's decode,
--summary and verify; pte-probe --replay of every capture; p2p-bench's committed reports
and `p2p-bench report --json` (p2p-bench itself needs a GPU); every committed run of
`p2p-bench check` and its --replay against its host's snapshot.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("FAIL: python3-jsonschema is missing (scripts/deps.d/release.txt)")
    sys.exit(1)

SRC = os.environ["P2PS_SOURCE_DIR"]
TOOLS = os.environ["P2PS_TOOLS_DIR"]
FX = os.path.join(SRC, "tests", "fixtures")
failures = []
counts = {}


def validator(name):
    with open(os.path.join(SRC, "schemas", name + ".schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


V = {n: validator(n) for n in
     ["bar-inspect", "bar-inspect-fleet", "pte-decode", "pte-probe", "p2p-bench",
      "p2p-bench-check"]}


def run(tool, *args, ok=(0,), stdin=None):
    p = subprocess.run([os.path.join(TOOLS, tool)] + list(args), capture_output=True,
                       text=True, input=stdin)
    if p.returncode not in ok:
        failures.append(f"{tool} {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        return None
    return p.stdout


def check(schema, what, doc):
    errors = sorted(V[schema].iter_errors(doc), key=lambda e: list(e.path))
    counts[schema] = counts.get(schema, 0) + 1
    for e in errors[:3]:
        failures.append(f"{what} against {schema}.schema.json: "
                        f"/{'/'.join(map(str, e.path))}: {e.message[:200]}")


def check_out(schema, what, text, lines=False):
    if text is None:
        return []
    docs = [json.loads(l) for l in text.splitlines() if l.strip()] if lines else [json.loads(text)]
    for d in docs:
        check(schema, what, d)
    return docs


def bar_inspect(reports):
    # snapshot folders: tests/fixtures/X or X/Y with sys/bus/pci (no recursive walk: a
    # snapshot's sysfs has links that lead back up)
    snaps = sorted(os.path.dirname(os.path.dirname(os.path.dirname(p)))
                   for p in glob.glob(os.path.join(FX, "*", "sys", "bus", "pci")) +
                   glob.glob(os.path.join(FX, "*", "*", "sys", "bus", "pci")))
    peers = ["--peers", "03:00.0,04:00.0,06:00.0"]
    for s in snaps:
        for extra in ([], ["--all"]) + ((peers,) if "qemu-switch" in s else ()):
            out = run("bar-inspect", "--root", s, "--json", *extra)
            reports += check_out("bar-inspect", f"bar-inspect --root {s} {' '.join(extra)}", out)
    for d in sorted(glob.glob(os.path.join(FX, "*", "p2pscope", "lspci-x*.txt")) +
                    glob.glob(os.path.join(FX, "*", "*", "p2pscope", "lspci-x*.txt"))):
        out = run("bar-inspect", "--lspci-dump", d, "--json", "--all")
        check_out("bar-inspect", f"bar-inspect --lspci-dump {d}", out)
    for p in sorted(glob.glob(os.path.join(FX, "*paste*", "*.txt"))):
        out = run("bar-inspect", "--paste", p, "--json")
        reports += check_out("bar-inspect", f"bar-inspect --paste {p}", out)
    committed = sorted(glob.glob(os.path.join(FX, "qemu-switch", "*.json")) +
                       glob.glob(os.path.join(FX, "p2p-bench", "*bar-inspect*.json")))
    for c in committed:
        with open(c) as f:
            check("bar-inspect", c, json.load(f))
    return snaps, committed


def fleet(reports, snaps, committed):
    with tempfile.TemporaryDirectory() as tmp:
        for i, r in enumerate(reports):
            with open(os.path.join(tmp, f"r{i}.json"), "w") as f:
                json.dump(r, f)
        out = run("bar-inspect", "--fleet", "--json", tmp, *snaps, *committed,
                  os.path.join(tmp, "absent.json"), ok=(0, 1))
        return check_out("bar-inspect-fleet", "bar-inspect --fleet --json", out)


def pte_decode():
    docs = []
    pd = "pte-decode"
    docs += check_out(pd, "decode", run(pd, "decode", "--chip", "GH100", "--json",
                                        "0x0600_0002_0000_0103", "0x1"), lines=True)
    docs += check_out(pd, "decode v2", run(pd, "decode", "--chip", "AD102", "--entry",
                                           "dual-pde", "--json", "0x1_0000_0000_0000_0008"),
                      lines=True)
    for args in (["--mode", "bar1", "--bar1", "0x2000000000", "--offset", "2M"],
                 ["--mode", "nvlink", "--fabric-base", "0x8230000000000"],
                 ["--mode", "stock", "--peer", "1"]):
        docs += check_out(pd, "p2p " + " ".join(args),
                          run(pd, "p2p", "--chip", "GH100", "--json", *args))
    docs += check_out(pd, "formats", run(pd, "formats", "--json"))
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "d.txt")
        with open(dump, "w") as f:
            f.write("0: 0x000000200000068f 0x000000200000168f 0x0 0x0600000200000103\n")
        spec = os.path.join(tmp, "spec.json")
        with open(spec, "w") as f:
            f.write('{"mappings":[{"va":"0x0","size":"8K","aperture":"SYS_NONCOH",'
                    '"target":"0x2000000000"}]}')
        base = ["--chip", "GH100", "--text", dump, "--json"]
        docs += check_out(pd, "decode --text", run(pd, "decode", *base), lines=True)
        docs += check_out(pd, "decode --summary", run(pd, "decode", *base, "--summary"))
        docs += check_out(pd, "verify", run(pd, "verify", *base, "--expect", spec, ok=(0, 1)))
    return docs


def pte_probe():
    docs = []
    args = {"peer-back": ["--gpu", "1", "--peer", "0"], "peer": ["--peer", "1"],
            "minimal": ["--page-sizes", "2M"]}
    for cap in sorted(glob.glob(os.path.join(FX, "pte-probe", "*.json"))):
        kind = next((k for k in args if cap.endswith(f"-{k}.json")), None)
        out = run("pte-probe", "--replay", cap, "--json", *args.get(kind, []), ok=(0, 1, 3))
        docs += check_out("pte-probe", f"pte-probe --replay {cap}", out)
    return docs


def p2p_bench():
    docs = []
    bench = sorted(glob.glob(os.path.join(FX, "p2p-bench", "*bench*.json")) +
                   glob.glob(os.path.join(SRC, "docs", "results", "p2p-bench", "*",
                                          "p2p-bench*.json")))
    for b in bench:
        with open(b) as f:
            docs.append(json.load(f))
        check("p2p-bench", b, docs[-1])
    if os.path.exists(os.path.join(TOOLS, "p2p-bench")):
        host = glob.glob(os.path.join(FX, "p2p-bench", "*bar-inspect*.json"))[0]
        out = run("p2p-bench", "report", "--bench", bench[0], "--host", host, "--json")
        docs += check_out("p2p-bench", "p2p-bench report", out)
    return docs


def p2p_check():
    """Every committed run of p2p-bench check, and each judged again (--replay) against its
    host's snapshot, as JSON."""
    docs = []
    runs = sorted(glob.glob(os.path.join(FX, "p2p-check", "*", "check-*.json")))
    for r in runs:
        with open(r) as f:
            docs.append(json.load(f))
        check("p2p-bench-check", r, docs[-1])
        snap = os.path.join(os.path.dirname(r), "snapshot")
        if os.path.exists(os.path.join(TOOLS, "p2p-bench")):
            out = run("p2p-bench", "check", "--replay", r, "--root", snap, "--json",
                      ok=(0, 1, 3))
            docs += check_out("p2p-bench-check", f"p2p-bench check --replay {r}", out)
    return docs


def must_fail(schema, what, doc, mutate):
    d = copy.deepcopy(doc)
    mutate(d)
    if V[schema].is_valid(d):
        failures.append(f"negative check: {what} still validates against {schema}")
    else:
        print(f"ok: negative check: {what} fails {schema}.schema.json")


def main():
    reports = []
    snaps, committed = bar_inspect(reports)
    fleets = fleet(reports, snaps, committed)
    decodes = pte_decode()
    probes = pte_probe()
    benches = p2p_bench()
    checks = p2p_check()
    for k, n in sorted(counts.items()):
        print(f"ok: {n} documents validated against {k}.schema.json")
    paired = next(r for r in reports if r["pairs"])
    must_fail("bar-inspect", "a pair verdict 'maybe'", paired,
              lambda d: d["pairs"][0].__setitem__("verdict", "maybe"))
    must_fail("bar-inspect", "a report without schema_version", paired,
              lambda d: d.pop("schema_version"))
    must_fail("bar-inspect", "a device BDF '6:0'", paired,
              lambda d: d["devices"][0].__setitem__("bdf", "6:0"))
    must_fail("bar-inspect-fleet", "a host status 'fine'", fleets[0],
              lambda d: d["hosts"][0].__setitem__("status", "fine"))
    must_fail("pte-decode", "an entry whose raw is not hex", decodes[0],
              lambda d: d.__setitem__("raw", "entry"))
    must_fail("pte-decode", "schema_version 2", decodes[0],
              lambda d: d.__setitem__("schema_version", 2))
    must_fail("pte-probe", "a report without its summary", probes[0],
              lambda d: d.pop("summary"))
    must_fail("p2p-bench", "a negative mismatch count", benches[0],
              lambda d: d["verification"].__setitem__("mismatched_words", -1))
    paired_check = next(c for c in checks if c["pairs"])
    must_fail("p2p-bench-check", "a path form 'fine'", paired_check,
              lambda d: d["pairs"][0]["paths"]["ce"].__setitem__("form", "fine"))
    must_fail("p2p-bench-check", "exit status 2 in a report", paired_check,
              lambda d: d.__setitem__("exit_status", 2))
    must_fail("p2p-bench-check", "a report without its nccl part", paired_check,
              lambda d: d.pop("nccl"))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
