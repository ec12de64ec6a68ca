#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a bar-inspect --fleet --json summary against what a test planted.

Usage: check_summary.py SUMMARY.json [checks...]

  --hosts N                      exactly N hosts
  --host NAME=STATUS[:CODES]     NAME's status ("ready", "not ready", "unknown", "no pair"),
                                 and the exact set of its deciding causes: the blocker codes
                                 for a not-ready host, the unknown codes otherwise ("-": none)
  --group CODE=N                 the blocker group CODE names exactly N hosts
  --drift NAME:FACT=VALUE        a drift entry for host NAME (the list is exhaustive: every
                                 drift entry must be named)
  --skipped SOURCE:KIND          an input whose source ends with SOURCE was skipped as KIND
                                 (exhaustive too)
  --missing NAME                 NAME is listed as expected without a report (exhaustive)
  --documents N                  N documents and inputs were read (hosts + skipped)

Every failed check is printed; the exit status is 1 if any failed.
"""
import json
import sys

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def deciding(host):
    sev = "blocker" if host["status"] == "not ready" else "unknown"
    return {c["code"] for c in host["causes"] if c["severity"] == sev}


def check_host(hosts, spec):
    name, _, rest = spec.partition("=")
    status, _, codes = rest.partition(":")
    h = hosts.get(name)
    if h is None:
        failures.append(f"host {name}: not in the summary (hosts: {sorted(hosts)})")
        return
    check(h["status"] == status, f"host {name}: status {h['status']!r}, expected {status!r}")
    if codes:
        want = set() if codes == "-" else set(codes.split(","))
        check(deciding(h) == want, f"host {name}: causes {sorted(deciding(h))}, expected {sorted(want)}")


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    with open(args.pop(0)) as f:
        s = json.load(f)
    hosts = {h["name"]: h for h in s["hosts"]}
    check(len(hosts) == len(s["hosts"]), "host names are not unique")
    check(s["counts"]["hosts"] == len(s["hosts"]), "counts.hosts differs from the host list")
    check(s["counts"]["documents"] == len(s["hosts"]) + len(s["skipped"]),
          "counts.documents is not hosts + skipped: an input vanished")
    drift, skipped, missing = [], [], []
    while args:
        opt, val = args.pop(0), args.pop(0)
        if opt == "--hosts":
            check(len(hosts) == int(val), f"{len(hosts)} hosts, expected {val}: {sorted(hosts)}")
        elif opt == "--host":
            check_host(hosts, val)
        elif opt == "--group":
            code, _, n = val.partition("=")
            g = [g for g in s["groups"] if g["code"] == code and g["severity"] == "blocker"]
            got = sum(len(x["hosts"]) for x in g)
            check(got == int(n), f"group {code}: {got} hosts, expected {n}")
        elif opt == "--drift":
            drift.append(val)
        elif opt == "--skipped":
            skipped.append(val)
        elif opt == "--missing":
            missing.append(val)
        elif opt == "--documents":
            check(s["counts"]["documents"] == int(val),
                  f"{s['counts']['documents']} documents, expected {val}")
        else:
            sys.exit(f"check_summary.py: unknown check {opt}")
    got = sorted(f"{d['host']}:{d['fact']}={d['value']}" for d in s["drift"])
    check(got == sorted(drift), f"drift {got}, expected {sorted(drift)}")
    for want in skipped:
        src, _, kind = want.rpartition(":")
        hit = [x for x in s["skipped"] if x["source"].endswith(src) and x["kind"] == kind]
        check(hit, f"no input ending in {src!r} skipped as {kind!r}")
    check(len(s["skipped"]) == len(skipped),
          f"{len(s['skipped'])} skipped, expected {len(skipped)}: "
          + "; ".join(f"{x['source']} ({x['kind']}: {x['reason']})" for x in s["skipped"]))
    check(sorted(s["missing"]) == sorted(missing), f"missing {s['missing']}, expected {missing}")
    for f in failures:
        print("check_summary: FAIL " + f)
    if failures:
        sys.exit(1)
    print(f"check_summary: ok ({len(hosts)} hosts, {len(s['skipped'])} skipped, "
          f"{len(s['drift'])} drift, {len(s['missing'])} missing)")


if __name__ == "__main__":
    main()
