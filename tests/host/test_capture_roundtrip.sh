#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/capture-host.sh on this machine, then the snapshot loaded with --root must
# give the same model as the live backend (apart from which backend and NVML, which
# only a live run can ask). As root it repeats the capture as an unprivileged user
# and checks that the non-root snapshot loads and says which facts need root.
# Usage: test_capture_roundtrip.sh HOST_DUMP_BINARY BAR_INSPECT_BINARY
set -euo pipefail
tool=$1
bar_inspect=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

normalise() { grep -vE '"(backend|nvml_status)"' "$1"; }

(cd "$tmp" && "$top/scripts/capture-host.sh" -o "$tmp/snap.tgz")
mkdir "$tmp/root"
tar xzf "$tmp/snap.tgz" -C "$tmp/root" --strip-components=1
"$tool" --live --no-nvml >"$tmp/live.json"
"$tool" --root "$tmp/root" --no-nvml >"$tmp/snap.json"
grep -q '"backend":"snapshot"' "$tmp/snap.json"
if ! diff <(normalise "$tmp/live.json") <(normalise "$tmp/snap.json"); then
	echo "FAIL: snapshot model differs from the live model" >&2
	exit 1
fi
n=$(grep -c '"bdf"' "$tmp/live.json")
echo "roundtrip: $n devices, snapshot model equals the live model"
# The lspci output captured with it agrees with bar-inspect's report of the snapshot.
if command -v python3 >/dev/null && [ -f "$tmp/root/p2pscope/lspci-vvv.txt" ]; then
	python3 "$top/tests/host/test_snapshot.py" "$bar_inspect" "$tmp/root"
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	# The checkout may sit where that user cannot reach (/root): run copies.
	mkdir "$tmp/bin" && cp "$tool" "$top/scripts/capture-host.sh" "$tmp/bin/" && chmod 755 "$tmp/bin"
	tool="$tmp/bin/$(basename "$tool")"
	mkdir "$tmp/nr" && chmod 777 "$tmp/nr"
	(cd "$tmp/nr" && "${nobody[@]}" "$tmp/bin/capture-host.sh" --no-tools -o "$tmp/nr/s.tgz") 2>"$tmp/nr.err"
	grep -q "not root" "$tmp/nr.err"
	mkdir "$tmp/nrroot"
	tar xzf "$tmp/nr/s.tgz" -C "$tmp/nrroot" --strip-components=1
	"$tool" --root "$tmp/nrroot" --no-nvml >"$tmp/nr.json"
	grep -q '"is_root":false' "$tmp/nr.json"
	grep -q '"config_limited_any":true' "$tmp/nr.json"
	# Every device's config space is cut at 64 bytes, and the model says why.
	[ "$(grep -c '"config_len":64,' "$tmp/nr.json")" -eq "$n" ]
	[ "$(grep -c '"config":"needs root' "$tmp/nr.json")" -eq "$n" ]
	# The live backend run as that user agrees with the non-root snapshot.
	"${nobody[@]}" "$tool" --live --no-nvml >"$tmp/nr-live.json"
	diff <(normalise "$tmp/nr-live.json") <(normalise "$tmp/nr.json")
	echo "non-root: capture and live run agree; $n devices report the 64-byte limit"
fi
