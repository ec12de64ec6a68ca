#!/usr/bin/env bash
# Benchmark: a whole bar-inspect report from a snapshot against
# `lspci -vvv -A linux-sysfs -O sysfs.path=...` on the same snapshot (the yardstick:
# bar-inspect must take no longer than lspci). Both read the same files through libpci's
# sysfs method; bar-inspect additionally reads the IOMMU, NVIDIA and NCCL facts and runs
# the analysis and a renderer.
#
#   bench/bar-inspect-vs-lspci.sh [SNAPSHOT...]    (default: the bundled ones)
#
# Environment: BUILD_DIR (default build), RUNS (default 50). Prints, per snapshot and
# output format, the median and minimum wall time of RUNS runs, in milliseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
bi=${BUILD_DIR:-build}/tools/bar-inspect
runs=${RUNS:-50}
[ -x "$bi" ] || { echo "bench: $bi not built (cmake --build ${BUILD_DIR:-build} --target bar-inspect)" >&2; exit 2; }
command -v lspci >/dev/null || { echo "bench: lspci not installed" >&2; exit 2; }
snaps=("$@")
[ ${#snaps[@]} -gt 0 ] || snaps=(tests/fixtures/h200x2 tests/fixtures/qemu-switch/acs-on)

# time_ms CMD...: median and minimum wall time of $runs runs, output discarded. A command
# that fails is reported instead of timed (a failing run would time an error path).
time_ms() {
	local i t0 t1
	local -a ts=()
	"$@" >/dev/null 2>&1 || { printf 'FAILED: %s' "$*"; return 0; }
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		ts+=($(((t1 - t0) / 1000)))
	done
	printf '%s\n' "${ts[@]}" | sort -n |
		awk '{a[NR]=$1} END {printf "median %.2f ms  min %.2f ms", a[int((NR+1)/2)]/1000, a[1]/1000}'
}

printf 'bar-inspect %s, lspci %s, %d runs each, %s\n' "$("$bi" --version | awk '{print $2}')" \
	"$(lspci --version | awk '{print $3}')" "$runs" "$(uname -m)"
for s in "${snaps[@]}"; do
	[ -d "$s/sys/bus/pci" ] || { echo "bench: $s is not a snapshot" >&2; continue; }
	n=$(find "$s/sys/bus/pci/devices" -mindepth 1 -maxdepth 1 | wc -l)
	echo "== $s ($n devices)"
	echo "  lspci -vvv (sysfs)          $(time_ms lspci -vvv -A linux-sysfs -O sysfs.path="$s/sys/bus/pci")"
	echo "  bar-inspect --all (text)    $(time_ms "$bi" --no-nvml --root "$s" --all)"
	echo "  bar-inspect --all --json    $(time_ms "$bi" --no-nvml --root "$s" --all --json)"
	echo "  bar-inspect (GPUs, text)    $(time_ms "$bi" --no-nvml --root "$s")"
done
