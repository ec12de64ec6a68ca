#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --fleet as a user runs it, on snapshots planted from the committed captures
# (make-fleet-snapshots.py): report files, a folder, a quoted glob, a concatenated stream
# on stdin, a snapshot folder and a capture-host.sh tarball; damaged, duplicated, newer
# and foreign documents mixed in; an input that never ends (/dev/zero); text, JSON and CSV;
# usage errors.
set -uo pipefail
. "$(dirname "$0")/fleet-lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

plant "$tmp/snaps" gpu-a1=h200pcie gpu-a2=h200pcie gpu-a3=h200pcie,link=8 \
	gpu-iommu=h200pcie,iommu gpu-bar1=h200pcie,bar1=32 sw-acs=qemu,acs gpu-h100=h100 \
	gpu-nv=h200x2 || exit 1
mkdir -p "$tmp/r/rack1" "$tmp/r/rack2"
for h in gpu-a1 gpu-a2 gpu-iommu; do
	"$bi" --root "$tmp/snaps/$h" --json >"$tmp/r/rack1/$h.json" || bad "report $h"
done
"$bi" --root "$tmp/snaps/gpu-bar1" --json >"$tmp/r/rack2/gpu-bar1.json" || bad "report gpu-bar1"
"$bi" --root "$tmp/snaps/sw-acs" --peers 03:00.0,04:00.0,06:00.0 --json >"$tmp/sw-acs.json" ||
	bad "report sw-acs"
# gpu-h100 as a capture-host.sh tarball (captured from its snapshot tree), gpu-a3 as a
# snapshot folder: both analysed by --fleet itself.
(cd "$tmp" && P2PS_CAPTURE_SYSROOT=$tmp/snaps/gpu-h100 "$top/scripts/capture-host.sh" \
	-o "$tmp/r/rack2/gpu-h100.tar.gz" >/dev/null 2>&1) || bad "capture-host.sh"
cp -a "$tmp/snaps/gpu-a3" "$tmp/r/rack2/gpu-a3"
# Damaged and foreign documents, each to be named and skipped.
head -c 2000 "$tmp/r/rack1/gpu-a1.json" >"$tmp/r/rack2/cut.json"
sed 's/"schema_version": 1/"schema_version": 7/' "$tmp/r/rack2/gpu-bar1.json" >"$tmp/r/rack2/future.json"
cp "$tmp/r/rack1/gpu-a2.json" "$tmp/r/rack2/gpu-a2-again.json"
echo 'not json at all' >"$tmp/r/rack2/notes.json"
echo 'garbage' >"$tmp/r/rack2/broken.tar.gz"
echo "# inventory" >"$tmp/expect.txt"
printf 'gpu-a1\ngpu-a2.lab.example\ngpu-a3\ngpu-iommu\ngpu-bar1\ngpu-h100\nsw-acs\ngpu-nv\ngpu-gone\n' \
	>>"$tmp/expect.txt"

run() { # NAME ARGS... -> $tmp/NAME.out, $tmp/NAME.err, status in $rc
	local name=$1
	shift
	"$bi" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
}

# The folder, a quoted glob (expanded by bar-inspect), and a stream on stdin.
"$bi" --root "$tmp/snaps/gpu-nv" --json | cat - "$tmp/sw-acs.json" >"$tmp/stream.json"
run json --fleet --json --expect "$tmp/expect.txt" "$tmp/r" "$tmp/snaps/../r/rack1/gpu-*.json" - \
	<"$tmp/stream.json"
[ "$rc" -eq 1 ] || bad "exit $rc with skipped inputs, expected 1: $(cat "$tmp/json.err")"
[ -s "$tmp/json.err" ] && bad "stderr not empty: $(cat "$tmp/json.err")"
python3 "$here/check_summary.py" "$tmp/json.out" --hosts 8 --documents 16 \
	--host "gpu-iommu=not ready:iommu_translating" \
	--host "gpu-bar1=not ready:bar1_smaller_than_vram" \
	--host "sw-acs=not ready:acs_redirect,iommu_translating" \
	--host "gpu-a1=ready:-" --host "gpu-a2=ready:-" --host "gpu-a3=ready:-" \
	--host "gpu-nv=ready:-" --host "gpu-h100=no pair" \
	--drift "gpu-a3:link width=x8" --drift "gpu-bar1:BAR1=32G" \
	--skipped "rack2/cut.json:truncated" --skipped "rack2/future.json:version" \
	--skipped "rack2/notes.json:malformed" --skipped "rack2/broken.tar.gz:unreadable" \
	--skipped "rack2/gpu-a2-again.json:duplicate" \
	--skipped "rack1/gpu-a1.json:duplicate" --skipped "rack1/gpu-a2.json:duplicate" \
	--skipped "rack1/gpu-iommu.json:duplicate" \
	--missing gpu-gone || fail=1

# Text: the table, the grouped causes with the bridge model and fix, every skipped input.
run text --fleet --expect "$tmp/expect.txt" "$tmp/r" "$tmp/sw-acs.json" "$tmp/no-such.json"
[ "$rc" -eq 1 ] || bad "text: exit $rc, expected 1"
grep -q '^HOST  *GPUS  *BAR1/VRAM  *IOMMU  *P2P  *CAUSES  *DRIFT$' "$tmp/text.out" || bad "no table header"
grep -q '^gpu-bar1  .*32G < 140.4G .*not ready 1/1 .*bar1_smaller_than_vram  *BAR1$' "$tmp/text.out" ||
	bad "gpu-bar1's row"
grep -q 'ACS redirects peer requests at a switch port \[acs_redirect: XIO3130 PCI Express Switch (Downstream) \[104c:8233\]\]' \
	"$tmp/text.out" || bad "the ACS group does not name the switch"
grep -q '^           fix: boot with intel_iommu=on iommu=pt' "$tmp/text.out" || bad "no IOMMU fix"
grep -q 'gpu-a3 0000:00:07.0: link width x8 (x16 on 9 of 10 GPUs)' "$tmp/text.out" || bad "no link drift line"
grep -q 'no-such.json: unreadable: No such file or directory' "$tmp/text.out" || bad "missing file not named"
grep -q 'broken.tar.gz: unreadable: tar cannot unpack it' "$tmp/text.out" || bad "bad tarball not named"
grep -q '^  gpu-gone$' "$tmp/text.out" || bad "gpu-gone not listed as missing"

# CSV: one row per host, per skipped input and per missing host, after the header.
run csv --fleet --csv --expect "$tmp/expect.txt" "$tmp/r" "$tmp/sw-acs.json"
python3 - "$tmp/csv.out" <<'EOF' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
status = [r["status"] for r in rows]
assert status.count("skipped") == 5 and status.count("missing") == 2, status  # gpu-nv, gpu-gone
row = {r["host"]: r for r in rows}["gpu-bar1"]
assert row["blockers"] == "bar1_smaller_than_vram:GH100 [10de:2335]", row["blockers"]
assert row["bar1"] == str(32 << 30) and row["bar1_covers_vram"] == "no", row
assert "0000:00:06.0 BAR1=32G (majority 256G)" in row["drift"], row["drift"]
assert row["time"] == "2026-11-22T00:00:00Z" and row["boot_id"], row
EOF

# The example in docs/fleet.md is this tool's output on the seven planted hosts.
mkdir -p "$tmp/doc/reports"
for h in gpu-a1 gpu-a2 gpu-a3 gpu-iommu gpu-bar1 gpu-h100; do
	"$bi" --root "$tmp/snaps/$h" --json >"$tmp/doc/reports/$h.json"
done
cp "$tmp/sw-acs.json" "$tmp/doc/reports/"
printf '%s\n' gpu-a1 gpu-a2 gpu-a3 gpu-iommu gpu-bar1 sw-acs gpu-h100 gpu-down >"$tmp/doc/expected"
(cd "$tmp/doc" && "$bi" --fleet --expect expected reports >out.txt)
awk '/^The text output for seven hosts/ { on = 1 } on && /^```$/ { if (n++) exit; next }
	on && n == 1' "$top/docs/fleet.md" >"$tmp/doc/doc.txt"
diff -u "$tmp/doc/doc.txt" "$tmp/doc/out.txt" >"$tmp/doc/diff" ||
	bad "docs/fleet.md's example differs from the output: $(head -n 20 "$tmp/doc/diff")"

# An input that never ends (/dev/zero, also as the stream on stdin) is read up to the
# cap (256 MiB) and skipped as unreadable, saying why; the other inputs still count.
for src in /dev/zero -; do
	timeout 120 "$bi" --fleet --csv "$src" "$tmp/r/rack1/gpu-a1.json" </dev/zero \
		>"$tmp/zero.out" 2>"$tmp/zero.err"
	zrc=$?
	[ "$zrc" -eq 1 ] || bad "--fleet $src: exit $zrc (expected 1, one skipped input)"
	grep -q "^gpu-a1," "$tmp/zero.out" || bad "--fleet $src: gpu-a1 not counted"
	grep -q "larger than 256 MiB: not a bar-inspect report or a stream of them" "$tmp/zero.out" ||
		bad "--fleet $src: $(grep -v '^gpu' "$tmp/zero.out" | head -n 3) $(cat "$tmp/zero.err")"
done

# Every input a host and no one missing: exit 0.
run clean --fleet "$tmp/r/rack1"
[ "$rc" -eq 0 ] || bad "a clean fleet exits $rc"

# Usage errors: one line on stderr, exit 2.
usage() { # EXPECTED-TEXT ARGS...
	local want=$1
	shift
	"$bi" "$@" >/dev/null 2>"$tmp/u.err" </dev/null
	local r=$?
	[ "$r" -eq 2 ] && [ "$(wc -l <"$tmp/u.err")" -eq 1 ] && grep -q "$want" "$tmp/u.err" ||
		bad "bar-inspect $*: exit $r, stderr '$(cat "$tmp/u.err")', expected '$want'"
}
usage 'needs inputs' --fleet
usage 'need --fleet' --csv
usage 'need --fleet' --expect x
usage 'mutually exclusive' --fleet --json --csv x
usage 'do not apply' --fleet --root "$tmp/snaps/gpu-a1" x
usage 'do not apply' --fleet --dot x
usage 'unexpected argument' x
usage 'expect /nonexistent' --fleet --expect /nonexistent x
[ "$fail" -eq 0 ] && echo "fleet cli: ok"
exit $fail
