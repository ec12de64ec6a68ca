#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds bar-inspect on a GPU host and records what the NVIDIA driver decides for each GPU
# pair next to bar-inspect's driver model:
#
#   scripts/device/gates.sh          (from the repository root; results in $OUT)
#
# nvidia-smi topo -p2p r, w, n, a, p (and rwna where accepted), topo -m,
# /proc/driver/nvidia/params and version, /proc/cpuinfo, a snapshot (scripts/capture-host.sh)
# and bar-inspect --driver auto in text and JSON, live (NVML's per-pair statuses) and
# replayed from the snapshot. Read-only: nothing is written to the GPUs or config space.
# Missing build dependencies come from ${DEBS:-.cmp/debs}/*.deb (unpacked under
# /tmp/p2ps-sysroot). $OUT receives run.log and gates.tar.gz.
set -uo pipefail
out=${OUT:-/tmp/p2ps-out}
res=/tmp/p2ps-gates
rm -rf "$res"
mkdir -p "$out" "$res/raw"
exec > >(tee -a "$out/run.log") 2>&1
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

# raw NAME CMD...: one command's output into raw/NAME, with the command and exit status.
raw() {
	local name=$1
	shift
	{ echo "\$ $*"; timeout 120 "$@" 2>&1; echo "[rc=$?]"; } >"$res/raw/$name"
}

step environment
uname -r
cat /proc/driver/nvidia/version
nvidia-smi -L
for m in r w n a p rwna; do raw "topo-p2p-$m.txt" nvidia-smi topo -p2p "$m"; done
raw topo-m.txt nvidia-smi topo -m
raw params.txt cat /proc/driver/nvidia/params
raw version.txt cat /proc/driver/nvidia/version
raw cpuinfo.txt cat /proc/cpuinfo
cat "$res"/raw/topo-p2p-*.txt

step snapshot
bash scripts/capture-host.sh -o "$res/snapshot.tar.gz" || echo "capture-host.sh failed"

step build
. scripts/device-deps.sh
p2ps_unpack_debs "${DEBS:-.cmp/debs}" json-c libpci
bld=/tmp/p2ps-gates-build
cmake -S . -B $bld -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=OFF >"$res/cmake.log" 2>&1 &&
	cmake --build $bld -j "$(nproc)" --target bar-inspect >>"$res/cmake.log" 2>&1 ||
	{ tail -40 "$res/cmake.log"; exit 1; }
bi=$bld/tools/bar-inspect/bar-inspect
[ -x "$bi" ] || bi=$bld/tools/bar-inspect

step "bar-inspect --driver auto (live, NVML)"
$bi --no-cache --driver auto >"$res/model-live.txt" 2>&1; echo "exit $?"
$bi --no-cache --driver auto --json >"$res/model-live.json" 2>"$res/model-live.err"; echo "exit $?"
sed -n '/^Driver model/,$p' "$res/model-live.txt"

step "bar-inspect --driver auto (snapshot replay)"
snap=$res/snap
mkdir -p "$snap" && tar xzf "$res/snapshot.tar.gz" -C "$snap" --strip-components=1 &&
	{
		$bi --root "$snap" --driver auto >"$res/model-snap.txt" 2>&1
		$bi --root "$snap" --driver auto --json >"$res/model-snap.json" 2>&1
		sed -n '/^Driver model/,$p' "$res/model-snap.txt"
	}
for s in 565-tinygrad 580-aikitoria 610; do
	$bi --root "$snap" --driver "$s" >"$res/model-$s.txt" 2>&1
done

tar -C "$res" -czf "$out/gates.tar.gz" . && echo "results: $out/gates.tar.gz"
