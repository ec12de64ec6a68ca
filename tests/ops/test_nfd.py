#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bar-inspect --nfd on every committed snapshot (--root), lspci dump (--lspci-dump) and
paste, checked as node-feature-discovery's local source and Kubernetes take it:

- the file: comment lines (# ...), the `# +expiry-time=` directive with an RFC 3339 time,
  NAME=VALUE lines; under nfd-worker's 64 KiB limit;
- every name p2pscope.io/ and a name segment of Kubernetes' label syntax (at most 63
  characters of [A-Za-z0-9_.-], alphanumeric at both ends), every value at most 63 such
  characters, alphanumeric at both ends; no name twice;
- the labels say what the same source's --json says: the endpoints, the pairs by
  verdict, p2p-ready, the blockers' and unknowns' codes with their pair counts, NVLink;
- --nfd-expiry's time is the one asked for; the command-line errors; and the checker's
  own rejections, so that a checker accepting everything fails here.

Syntax: Kubernetes, "Labels and Selectors", Syntax and character set
(kubernetes/website content/en/docs/concepts/overview/working-with-objects/labels.md);
nfd-worker's local source: node-feature-discovery docs/usage/customization-guide.md,
"Local feature source" (input format, expiry-time directive, 64 kB file limit).

    test_nfd.py BAR_INSPECT SOURCE_DIR"""
import datetime
import json
import os
import re
import subprocess
import sys

bi, src = sys.argv[1], sys.argv[2]
fixtures = os.path.join(src, "tests", "fixtures")
failures = []

PREFIX = "p2pscope.io/"
PART = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
EXPIRY = re.compile(r"^# \+expiry-time=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$")
FILE_MAX = 64 * 1024


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


class Bad(Exception):
    pass


def parse(text):
    """The labels of a features.d file as nfd-worker reads it, and its expiry time
    (None without the directive); Bad for anything Kubernetes or NFD would refuse."""
    if len(text.encode()) > FILE_MAX:
        raise Bad(f"{len(text.encode())} bytes: over nfd-worker's 64 KiB limit")
    if text and not text.endswith("\n"):
        raise Bad("the last line has no newline")
    labels, expiry = {}, None
    for line in text.splitlines():
        if line.startswith("#"):
            m = EXPIRY.match(line)
            if line.startswith("# +") and not m:
                raise Bad(f"directive {line!r}: not an expiry-time in RFC 3339 UTC")
            if m:
                expiry = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%SZ")
            continue
        if "=" not in line:
            raise Bad(f"{line!r}: no value (NFD would make it \"true\")")
        name, value = line.split("=", 1)
        prefix, slash, segment = name.rpartition("/")
        if not slash or prefix + "/" != PREFIX:
            raise Bad(f"{name!r}: not in the {PREFIX} namespace")
        if len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix):
            raise Bad(f"{prefix!r}: not a DNS subdomain")
        if not PART.match(segment):
            raise Bad(f"{name!r}: not a label name")
        if value and not PART.match(value):
            raise Bad(f"{name}={value!r}: not a label value")
        if segment in labels:
            raise Bad(f"{name}: twice")
        labels[segment] = value
    return labels, expiry


def run(args, want_rc=0):
    p = subprocess.run([bi] + args, capture_output=True, text=True, timeout=60)
    if p.returncode != want_rc:
        fail(f"bar-inspect {' '.join(args)}: exit {p.returncode} (want {want_rc}): "
             f"{p.stderr.strip()}")
    return p


def expected(report):
    """The labels the --json report calls for (docs/kubernetes.md)."""
    pairs = report["pairs"]
    endpoints = [d for d in report["devices"] if "gpu" in d]  # GPUs and --peers, as shown
    want = {"gpus": str(len(endpoints)), "gpu-pairs": str(len(pairs))}
    if not pairs:
        return want
    verdicts = [p["verdict"] for p in pairs]
    want["p2p-ready"] = ("false" if "not ready" in verdicts else
                         "unknown" if "unknown" in verdicts else "true")
    want["p2p-ready-pairs"] = str(verdicts.count("ready"))
    want["p2p-not-ready-pairs"] = str(verdicts.count("not ready"))
    want["p2p-unknown-pairs"] = str(verdicts.count("unknown"))
    for sev, one in (("blocker", "blocker"), ("unknown", "unknown")):
        for p in pairs:
            for code in {r["code"] for r in p["reasons"] if r["severity"] == sev}:
                key = f"{one}.{code}"
                want[key] = str(int(want.get(key, "0")) + 1)
    nvlinked = sum(1 for p in pairs if p["nvlinks"])
    want["nvlink-pairs"] = str(nvlinked)
    return want


def check_list(label, labels, name, one):
    """name= lists the codes of the one.CODE labels, or as many as fit, then "more"."""
    codes = sorted(k[len(one) + 1:] for k in labels if k.startswith(one + "."))
    if not codes:
        if name in labels:
            fail(f"{label}: {name}={labels[name]} without any {one}.* label")
        return
    listed = labels.get(name, "").split(".")
    if listed and listed[-1] == "more":
        ok = set(listed[:-1]) < set(codes) and len(".".join(codes)) > 63
    else:
        ok = sorted(listed) == codes
    if not ok:
        fail(f"{label}: {name}={labels.get(name)} for the codes {codes}")


def check_source(label, args):
    p = run(args + ["--nfd"])
    if p.returncode:
        return
    try:
        labels, expiry = parse(p.stdout)
    except Bad as e:
        fail(f"{label}: {e}")
        return
    if expiry is not None:
        fail(f"{label}: an expiry-time without --nfd-expiry")
    report = json.loads(run(args + ["--json"]).stdout)
    want = expected(report)
    got = {k: v for k, v in labels.items() if k not in ("blockers", "unknowns", "nvlink")}
    if got != want:
        fail(f"{label}: labels {got}, the JSON report calls for {want}")
    check_list(label, labels, "blockers", "blocker")
    check_list(label, labels, "unknowns", "unknown")
    if report["pairs"]:
        nv = "true" if int(want["nvlink-pairs"]) else None
        if labels.get("nvlink") not in ((nv,) if nv else ("false", "unknown")):
            fail(f"{label}: nvlink={labels.get('nvlink')} with {want['nvlink-pairs']} NVLink pairs")
    elif "nvlink" in labels or "p2p-ready" in labels:
        fail(f"{label}: pair labels without a pair")
    print(f"ok {label}: {len(labels)} labels")
    return labels


sources = []
for dirpath, dirnames, filenames in sorted(os.walk(fixtures)):
    dirnames.sort()
    if os.path.basename(dirpath) == "p2pscope" and "snapshot-info" in filenames:
        snap = os.path.dirname(dirpath)
        sources.append((os.path.relpath(snap, fixtures), ["--root", snap]))
    if "lspci-xxxx.txt" in filenames:
        dump = os.path.join(dirpath, "lspci-xxxx.txt")
        sources.append((os.path.relpath(dump, fixtures), ["--lspci-dump", dump]))
    if "paste.txt" in filenames:
        paste = os.path.join(dirpath, "paste.txt")
        sources.append((os.path.relpath(paste, fixtures), ["--paste", paste]))
snapshots = sum(1 for _, a in sources if a[0] == "--root")
if snapshots < 8:
    fail(f"only {snapshots} snapshots found under {fixtures}")
q = os.path.join(fixtures, "qemu-switch", "acs-on")
sources.append(("qemu-switch/acs-on with peers (blockers)",
                ["--root", q, "--peers", "0000:03:00.0,0000:04:00.0,0000:06:00.0"]))
h200x4 = os.path.join(fixtures, "rm", "h200x4")
sources.append(("rm/h200x4 replay (NVLink)", ["--root", os.path.join(h200x4, "root"),
                                             "--replay", os.path.join(h200x4, "capture.json")]))
sources.append(("h200x2 -s 00:07.0", ["--root", os.path.join(fixtures, "h200x2"), "-s", "00:07.0"]))
seen = {}
for label, args in sources:
    labels = check_source(label, args)
    for k, v in (labels or {}).items():
        seen.setdefault(k, set()).add(v)
# The corpus must reach every kind of answer, or the comparisons above prove little.
for k, v in (("p2p-ready", "true"), ("p2p-ready", "false"), ("p2p-ready", "unknown"),
             ("nvlink", "true"), ("nvlink", "false"), ("nvlink", "unknown")):
    if v not in seen.get(k, ()):
        fail(f"no source gives {k}={v}")
if not any(k.startswith("blocker.") for k in seen):
    fail("no source has a blocker")

# --nfd-expiry: the directive comes before every label, at the time asked for.
h200 = os.path.join(fixtures, "h200x2")
before = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None).replace(microsecond=0)
p = run(["--root", h200, "--nfd", "--nfd-expiry", "3600"])
after = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
try:
    labels, expiry = parse(p.stdout)
    first = next(i for i, l in enumerate(p.stdout.splitlines()) if not l.startswith("#"))
    if expiry is None or not p.stdout.splitlines()[first - 1].startswith("# +expiry-time="):
        fail(f"--nfd-expiry: no expiry-time directive before the labels:\n{p.stdout}")
    elif not (before + datetime.timedelta(seconds=3600) <= expiry
              <= after + datetime.timedelta(seconds=3601)):
        fail(f"--nfd-expiry 3600 run at {before}: expires {expiry}")
    else:
        print(f"ok --nfd-expiry 3600: {expiry}")
except Bad as e:
    fail(f"--nfd-expiry: {e}")

# Command-line errors: one line on stderr, exit 2.
for args, words in ((["--nfd", "--json"], "mutually exclusive"),
                    (["--nfd-expiry", "60"], "needs --nfd"),
                    (["--nfd", "--nfd-expiry", "0"], "--nfd-expiry"),
                    (["--nfd", "--nfd-expiry", "10m"], "--nfd-expiry"),
                    (["--nfd", "--nfd-expiry", "999999999999"], "--nfd-expiry"),
                    (["--fleet", "--nfd", h200], "--fleet")):
    p = run(["--root", h200] + args if args[0] != "--fleet" else args, want_rc=2)
    if words not in p.stderr or p.stdout:
        fail(f"{' '.join(args)}: stderr {p.stderr.strip()!r}, stdout {len(p.stdout)} bytes")

# The checker refuses what Kubernetes or nfd-worker would.
for bad in ("p2pscope.io/" + "a" * 64 + "=1\n",            # name over 63
            "p2pscope.io/x=" + "a" * 64 + "\n",            # value over 63
            "p2pscope.io/x=-a\n", "p2pscope.io/x=a-\n",    # value ends not alphanumeric
            "p2pscope.io/x=a b\n", "p2pscope.io/x=a/b\n",  # characters outside the set
            "p2pscope.io/-x=1\n", "p2pscope.io/x_=1\n",    # name ends not alphanumeric
            "p2pscope.io/=1\n", "x=1\n", "example.com/x=1\n",
            "P2PSCOPE.io/x=1\n",                            # prefix not a DNS subdomain
            "p2pscope.io/x\n",                              # no value
            "p2pscope.io/x=1\np2pscope.io/x=2\n",           # twice
            "# +expiry-time=tomorrow\n",
            "p2pscope.io/x=1",                              # no final newline
            "p2pscope.io/x=" + "a" * 60 + "\n" + "# " + "x" * FILE_MAX + "\n"):
    try:
        parse(bad)
        fail(f"the checker accepts {bad[:80]!r}")
    except Bad:
        pass
for good in ("p2pscope.io/x=\n", "p2pscope.io/a.b_c-d=A.b_9\n# +expiry-time=2030-01-02T03:04:05Z\n"):
    try:
        parse(good)
    except Bad as e:
        fail(f"the checker refuses {good!r}: {e}")

print(f"test_nfd: {len(sources)} sources, {len(failures)} failures")
sys.exit(1 if failures else 0)
