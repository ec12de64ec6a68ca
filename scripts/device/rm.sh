#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect's NVIDIA facts through the RM API on a GPU host with any number of GPUs:
# build, a snapshot, the recorded RM session (the capture CI replays), NVML against RM
# field by field, live pte-probe (and --peer 1 with two GPUs or more), and the timings
# against lspci -vvv and nvidia-smi topo -m. Run from the repository root:
#
#   bash scripts/device/rm.sh
#
# Read-only towards the GPUs: bar-inspect issues only read-only RM controls; pte-probe maps
# memory of its own into a VA space of its own (--peer makes an NV50_P2P object while it
# runs). Build dependencies missing on the machine (json-c, libpci, pkg-config, lspci and
# its libkmod) come from ${DEBS:-.cmp/debs}/*.deb, unpacked under /tmp/p2ps-sysroot.
# Results in $OUT (default /tmp/p2ps-out): rm.log (everything printed), rm-results.tar.gz
# (captures, snapshot, reports, comparison, bench).
set -uo pipefail
out=${OUT:-/tmp/p2ps-out}
res=/tmp/p2ps-rm
rm -rf "$res"
mkdir -p "$out" "$res"
exec > >(tee -a "$out/rm.log") 2>&1
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
finish() {
	step "results"
	ls -la "$res"
	tar -czf "$out/rm-results.tar.gz" -C "$res" .
	ls -la "$out"
}
trap finish EXIT

step environment
uname -r
cat /proc/driver/nvidia/version
nvidia-smi -L
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
echo "GPUs: $ngpu"
nvidia-smi topo -m
ls -l /dev/nvidia* 2>&1 | head -12
id
nproc

step build
. scripts/device-deps.sh
p2ps_unpack_debs "${DEBS:-.cmp/debs}" json-c libpci
p2ps_lspci_from_debs "${DEBS:-.cmp/debs}"
ids=$P2PS_PCI_IDS
bld=/tmp/p2ps-rm-build
cmake -S . -B $bld -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=OFF >"$res/cmake.log" 2>&1 &&
	cmake --build $bld -j "$(nproc)" --target bar-inspect pte-probe spawn-time nvml-init rm-cost \
		>>"$res/cmake.log" 2>&1 || { tail -40 "$res/cmake.log"; exit 1; }
bi=$bld/tools/bar-inspect
probe=$bld/tools/pte-probe
idopt=()
[ -z "$ids" ] || idopt=(-i "$ids")

step "snapshot (scripts/capture-host.sh)"
bash scripts/capture-host.sh -o "$res/snapshot.tar.gz" 2>&1 | tail -5
mkdir -p "$res/snap" && tar -xzf "$res/snapshot.tar.gz" -C "$res/snap" --strip-components=1
nvidia-smi -q >"$res/smi-q.txt" 2>&1
nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader >"$res/smi-ids.csv" 2>&1
for k in r w n a p; do nvidia-smi topo -p2p $k >"$res/topo-p2p-$k.txt" 2>&1; done

step "bar-inspect --all --record (the captures: text and JSON)"
"$bi" "${idopt[@]}" --all --record "$res/rm-capture-text.json" >"$res/rm-live.txt" 2>"$res/rm-live.err"
echo "exit $?"
cat "$res/rm-live.txt" "$res/rm-live.err"
"$bi" "${idopt[@]}" --all --json --record "$res/rm-capture.json" >"$res/rm-live.json" 2>&1
echo "exit $?"
step "replays of the captures against the snapshot"
"$bi" "${idopt[@]}" --all --replay "$res/rm-capture-text.json" --root "$res/snap" >"$res/replay.txt" 2>&1
echo "replay text: exit $?"
diff "$res/rm-live.txt" "$res/replay.txt" | head -40
"$bi" "${idopt[@]}" --all --json --replay "$res/rm-capture.json" --root "$res/snap" >"$res/replay.json" 2>&1
echo "replay json: exit $?"
"$bi" "${idopt[@]}" --all --dot --replay "$res/rm-capture.json" --root "$res/snap" >"$res/replay.dot" 2>&1
echo "replay dot (the JSON capture): exit $? (a request differing from the JSON run's is expected to fail only if the runs differ)"

step "NVML against RM, field by field"
"$bi" "${idopt[@]}" --all --json --nvidia-facts nvml --no-cache >"$res/nvml.json" 2>"$res/nvml.err"
echo "nvml: exit $?"
"$bi" "${idopt[@]}" --all --json --nvidia-facts rm --no-cache >"$res/rm.json" 2>"$res/rm.err"
echo "rm: exit $?"
cat "$res/nvml.err" "$res/rm.err"
python3 scripts/device/rm-compare.py "$res/nvml.json" "$res/rm.json" --smi-q "$res/smi-q.txt" \
	--smi-ids "$res/smi-ids.csv" --topo-p2p r="$res/topo-p2p-r.txt" \
	--topo-p2p w="$res/topo-p2p-w.txt" --topo-p2p n="$res/topo-p2p-n.txt" \
	--topo-p2p a="$res/topo-p2p-a.txt" --topo-p2p p="$res/topo-p2p-p.txt" | tee "$res/compare.txt"
echo "compare: exit ${PIPESTATUS[0]}"
step "the RM calls, each timed (bench/rm-cost.c, 21 rounds in process)"
$bld/bench/rm-cost 21 2>&1 | tee "$res/rm-cost.txt"
for f in rm nvml none; do
	echo "-- bar-inspect --all --nvidia-facts $f --no-cache --timings"
	"$bi" "${idopt[@]}" --all --nvidia-facts $f --no-cache --timings 2>&1 >/dev/null
done
if command -v setpriv >/dev/null; then
	step "bar-inspect --nvidia-facts rm as an unprivileged user"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$bi" --json --nvidia-facts rm \
		>"$res/rm-user.json" 2>&1
	echo "exit $?"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=d["host"]["nvidia"]; print("facts:", n.get("facts_source"), "|", n.get("facts_note"))' "$res/rm-user.json" 2>&1
fi

step "pte-probe (live: entries against libgmmu's model)"
dmesg 2>/dev/null | grep -c NVRM >"$res/nvrm-before.txt"
"$probe" --record "$res/pte-probe.json" >"$res/pte-probe.txt" 2>&1
echo "pte-probe: exit $? (0: every entry agrees)"
tail -25 "$res/pte-probe.txt"
if [ "$ngpu" -ge 2 ]; then
	"$probe" --peer 1 --record "$res/pte-probe-peer.json" >"$res/pte-probe-peer.txt" 2>&1
	echo "pte-probe --peer 1: exit $? (0: every entry agrees)"
	tail -30 "$res/pte-probe-peer.txt"
fi
echo "NVRM lines before: $(cat "$res/nvrm-before.txt"), after: $(dmesg 2>/dev/null | grep -c NVRM)"
dmesg 2>/dev/null | grep NVRM | tail -5

step "bench: bar-inspect against lspci -vvv and nvidia-smi topo -m (21 runs)"
BUILD_DIR=$bld bash bench/bar-inspect-vs-lspci.sh --runs 21 --timings ${ids:+--ids "$ids"} \
	"$res/snap" 2>&1 | tee "$res/bench.txt"
