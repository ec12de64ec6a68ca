#!/usr/bin/env bash
# host-report-bench.sh — time a whole bar-inspect report from a snapshot against
# `lspci -vvv -A linux-sysfs -O sysfs.path=...` on the same snapshot.
#
# Usage: bench/host-report-bench.sh [-n RUNS] [-b BUILD_DIR] [SNAPSHOT_DIR...]
# Default snapshot: tests/fixtures/h200x2-raw-snap. Prints the median and minimum wall
# time of RUNS runs (default 50) of each command, names off (-n: numeric ids for both,
# so pci.ids parsing is timed in neither), and bar-inspect's --json and --all variants.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=50
build=build
while getopts "n:b:" o; do
	case $o in
	n) runs=$OPTARG ;;
	b) build=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-b BUILD_DIR] [SNAPSHOT_DIR...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- tests/fixtures/h200x2-raw-snap
tool=$build/tools/bar-inspect
[ -x "$tool" ] || { echo "$tool not built (cmake --build $build)" >&2; exit 2; }
command -v lspci >/dev/null || { echo "lspci not installed" >&2; exit 2; }

# time_cmd LABEL CMD...: runs CMD RUNS times (stdout discarded), prints median/min in ms.
time_cmd() {
	local label=$1
	shift
	local t0 t1 i
	local -a ms=()
	"$@" >/dev/null 2>&1 || { echo "$label: command failed: $*" >&2; return 1; }
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		ms+=($(((t1 - t0) / 1000)))
	done
	local sorted
	sorted=$(printf '%s\n' "${ms[@]}" | sort -n)
	local med min
	med=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
	min=$(echo "$sorted" | head -1)
	awk -v l="$label" -v m="$med" -v n="$min" \
		'BEGIN { printf "  %-58s median %7.2f ms   min %7.2f ms\n", l, m / 1000, n / 1000 }'
}

echo "host-report-bench: $runs runs each, $(nproc) CPUs, $(uname -r)"
for snap in "$@"; do
	n=$(ls "$snap/sys/bus/pci/devices" | wc -l)
	echo "snapshot $snap ($n PCI devices)"
	time_cmd "bar-inspect --root DIR -n (GPU report + matrix + verdicts)" \
		"$tool" --root "$snap" -n --no-nvml
	time_cmd "bar-inspect --root DIR -n --all --json" "$tool" --root "$snap" -n --all --json --no-nvml
	time_cmd "lspci -vvv -n -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci" \
		lspci -vvv -n -A linux-sysfs -O "sysfs.path=$snap/sys/bus/pci"
	time_cmd "bar-inspect --root DIR (names from pci.ids)" "$tool" --root "$snap" --no-nvml
	time_cmd "lspci -vvv -A linux-sysfs -O sysfs.path=... (names)" \
		lspci -vvv -A linux-sysfs -O "sysfs.path=$snap/sys/bus/pci"
done
