#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --fleet counts each host's GPUDirect RDMA pairs that are not ready, by
# blocker (gpudirect_rdma.pairs[].verdict/reasons of its report). Reports come from the
# committed fixtures: the ASUS ESC8000A-E12 paste (4 GPUs x 4 ConnectX-7 functions; its own
# nvidia-smi topo -m puts 8 of the 16 GPU x NIC pairs across sockets, SYS, which GPUDirect
# RDMA guide 5.4 says may not work), the 2 x H200 snapshot with a --peers device (its
# pairs are ready: it adds nothing), and doctored copies of the first.
set -uo pipefail
. "$(dirname "$0")/fleet-lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

mkdir -p "$tmp/r" "$tmp/m"
"$bi" --paste "$top/tests/fixtures/esc8000a-e12-rdma/paste.txt" --json >"$tmp/r/rdma-esc.json" ||
	bad "report of the paste"
"$bi" --root "$top/tests/fixtures/h200x2" --peers 00:03.0 --json >"$tmp/r/gdr-ready.json" ||
	bad "report of h200x2 --peers"
# A second blocker on one pair, and its path blocker repeated (counted once per pair).
python3 - "$tmp/r/rdma-esc.json" "$tmp/r/rdma-two.json" "$tmp/m/rdma-bad.json" <<'PY' || bad "doctoring"
import copy, json, sys
d = json.load(open(sys.argv[1]))
p = next(p for p in d["gpudirect_rdma"]["pairs"] if p["verdict"] == "not ready")
path = next(r for r in p["reasons"] if r["code"] == "gdr_path")
p["reasons"] += [copy.deepcopy(path), dict(path, code="iommu_translating")]
json.dump(d, open(sys.argv[2], "w"))
d["gpudirect_rdma"]["pairs"] = "none"
json.dump(d, open(sys.argv[3], "w"))
PY

out=$("$bi" --fleet "$tmp/r") || bad "--fleet exit $?"
sec=$(sed -n '/^GPUDirect RDMA pairs not ready/,/^$/p' <<<"$out")
grep -qx '  rdma-esc: 8 of 16 not ready: gdr_path 8' <<<"$sec" || bad "rdma-esc line: $sec"
grep -qx '  rdma-two: 8 of 16 not ready: gdr_path 8, iommu_translating 1' <<<"$sec" ||
	bad "rdma-two line: $sec"
[ "$(grep -c '^  ' <<<"$sec")" = 2 ] || bad "hosts whose pairs are ready must not appear: $sec"

"$bi" --fleet --json "$tmp/r" >"$tmp/f.json" || bad "--fleet --json exit $?"
python3 - "$tmp/f.json" "$tmp/r/gdr-ready.json" <<'PY' || bad "JSON"
import json, sys
rp = json.load(open(sys.argv[2]))["gpudirect_rdma"]["pairs"]
assert rp and all(p["verdict"] == "ready" for p in rp), rp
hosts = {h["name"]: h for h in json.load(open(sys.argv[1]))["hosts"]}
want = {"pairs": 16, "not_ready": 8, "not_ready_by_blocker": {"gdr_path": 8}}
assert hosts["rdma-esc"]["gpudirect_rdma"] == want, hosts["rdma-esc"].get("gpudirect_rdma")
two = hosts["rdma-two"]["gpudirect_rdma"]["not_ready_by_blocker"]
assert two == {"gdr_path": 8, "iommu_translating": 1}, two
ready = [h for h in hosts.values() if h["source"].endswith("gdr-ready.json")]
assert len(ready) == 1 and "gpudirect_rdma" not in ready[0], ready
PY

"$bi" --fleet --csv "$tmp/r" >"$tmp/f.csv" || bad "--fleet --csv exit $?"
python3 - "$tmp/f.csv" <<'PY' || bad "CSV"
import csv, sys
rows = {r["host"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
esc, two = rows["rdma-esc"], rows["rdma-two"]
assert (esc["gdr_pairs"], esc["gdr_not_ready"], esc["gdr_blockers"]) == ("16", "8", "gdr_path:8"), esc
assert two["gdr_blockers"] == "gdr_path:8;iommu_translating:1", two
ready = [r for r in rows.values() if r["source"].endswith("gdr-ready.json")]
assert len(ready) == 1 and ready[0]["gdr_not_ready"] == "0" and not ready[0]["gdr_blockers"], ready
PY

out=$("$bi" --fleet "$tmp/m/rdma-bad.json")
grep -q 'rdma-bad.json: malformed: gpudirect_rdma.pairs' <<<"$out" || bad "malformed pairs: $out"
exit $fail
