#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds pte-probe on a GPU machine and records its runs for tests/fixtures/pte-probe/.
# Meant for a GPU machine (called from the repository root), but any host
# with the NVIDIA driver works:
#
#   scripts/pte-probe-device.sh [--peer N] [--tag NAME]
#
#   --peer N   also run with --peer N, and with --gpu N --peer 0 (two GPUs: changes the
#              driver's peer state while each run lasts; see docs/pte-probe.md)
#   --tag NAME name of the captures (default: the chip and driver, e.g. h100-580.159.04)
#
# Read-only towards the GPU: pte-probe only maps memory of its own into a VA space of its own
# and reads the page tables through a read-only window. Build dependencies missing on the
# machine (json-c, libpci, pkg-config) are taken from ${DEBS:-.cmp/debs}/*.deb and unpacked
# under /tmp/p2ps-sysroot, never into /. Results go to $OUT (default /tmp/p2ps-out):
# run.log and pte-probe-captures.tar.gz.
set -uo pipefail
peer="" tag=""
while [ $# -gt 0 ]; do
	case $1 in
	--peer) peer=$2; shift 2 ;;
	--tag) tag=$2; shift 2 ;;
	*) echo "usage: $0 [--peer N] [--tag NAME]" >&2; exit 2 ;;
	esac
done
out=${OUT:-/tmp/p2ps-out}
res=/tmp/p2ps-pte-probe
rm -rf "$res"
mkdir -p "$out" "$res"
exec > >(tee -a "$out/run.log") 2>&1
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

step environment
uname -r
cat /proc/driver/nvidia/version
nvidia-smi -L
ls -l /dev/nvidia* 2>&1 | head -8
id -u

step build
. scripts/device-deps.sh
p2ps_unpack_debs "${DEBS:-.cmp/debs}" json-c libpci
bld=/tmp/p2ps-pte-probe-build
cmake -S . -B $bld -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=OFF >"$res/cmake.log" 2>&1 &&
	cmake --build $bld -j "$(nproc)" --target pte-probe >>"$res/cmake.log" 2>&1 ||
	{ tail -40 "$res/cmake.log"; exit 1; }
probe=$bld/tools/pte-probe
[ -n "$tag" ] || tag=$($probe --help >/dev/null; nvidia-smi --query-gpu=name --format=csv,noheader | head -1 |
	awk '{print tolower($2)}')-$(awk '{for(i=1;i<=NF;i++) if ($i ~ /^[0-9]+\.[0-9]+(\.[0-9]+)?$/) {print $i; exit}}' /proc/driver/nvidia/version)
echo "captures: $tag"

# run NAME ARGS...: one recorded run, its text report, then the replay of the capture, which
# must give the same report (the capture is complete and the replay path works).
run() {
	local name=$1
	shift
	step "pte-probe $* ($name)"
	"$@" --record "$res/$tag-$name.json" >"$res/$tag-$name.txt" 2>"$res/$tag-$name.err"
	echo "exit $?" | tee "$res/$tag-$name.rc"
	cat "$res/$tag-$name.txt" "$res/$tag-$name.err"
}
replay() {
	local name=$1
	shift
	$probe --replay "$res/$tag-$name.json" "$@" >"$res/replay-$name.txt" 2>&1
	echo "replay $name: exit $?"
	diff -u "$res/$tag-$name.txt" "$res/replay-$name.txt" && echo "replay $name: same report"
}

dmesg 2>/dev/null | grep -c NVRM >"$res/nvrm-before.txt"
run minimal $probe --page-sizes 2M
replay minimal --page-sizes 2M
run root $probe
replay root
$probe --replay "$res/$tag-root.json" --json >"$res/$tag-root.report.json" 2>&1
if command -v setpriv >/dev/null; then
	chmod 777 "$res"
	run user setpriv --reuid=65534 --regid=65534 --clear-groups $probe
	replay user
fi
if [ -n "$peer" ]; then
	# Both directions: GPU 0 maps GPU N's memory, then GPU N maps GPU 0's.
	run peer $probe --peer "$peer"
	replay peer --peer "$peer"
	run peer-back $probe --gpu "$peer" --peer 0
	replay peer-back --gpu "$peer" --peer 0
fi
step "kernel log"
dmesg 2>/dev/null | grep NVRM | tail -20
echo "NVRM lines before: $(cat "$res/nvrm-before.txt"), after: $(dmesg 2>/dev/null | grep -c NVRM)"
tar -czf "$out/pte-probe-captures.tar.gz" -C "$res" .
ls -la "$res"
