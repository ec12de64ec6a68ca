#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect against its yardsticks, in one run, alternating: on this host
# `bar-inspect --all` (NVIDIA facts from the RM API, NVML, or none) against `lspci -vvv`
# and `nvidia-smi topo -m` where there is one (the "x topo" column),
# on each snapshot `bar-inspect --root S --all` against
# `lspci -vvv -A linux-sysfs -O sysfs.path=S/sys/bus/pci` (the same files through the
# same library). Prints per command the median and minimum wall time and the ratio of
# medians to the yardstick (lspci), which is the figure to watch: the goal is at most 0.5.
#
#   bench/bar-inspect-vs-lspci.sh [--short] [--runs N] [--no-live] [--timings] [--ids FILE]
#                                 [SNAPSHOT...]
#
#   --short    3 runs, and only the first snapshot: what CI runs, to keep the script alive
#              (no figure is checked there)
#   --runs N   runs per command (default 21; environment RUNS too)
#   --no-live  snapshots only
#   --timings  also print one `bar-inspect --timings` breakdown per scenario
#   --ids FILE both tools take device names from this pci.ids (lspci -i, bar-inspect -i):
#              for a machine without one installed (lspci's own package brings it)
#   SNAPSHOT   directories captured by scripts/capture-host.sh (default: the committed
#              tests/fixtures/{h100,h200x2,qemu-switch/acs-on})
#
# On a host with the NVIDIA driver it also times NVML alone (bench/nvml-init.c): a process
# that only loads libnvidia-ml and runs nvmlInit_v2/nvmlShutdown, and prints the
# in-process cost of each NVML query bar-inspect makes.
#
# Environment: BUILD_DIR (default build), LSPCI (default lspci), RUNS. Each sample is
# one run of the whole process, spawned without a shell (bench/spawn-time.c) and with its
# output to /dev/null, up to its exit. spawn-time and nvml-init are the build's
# (BUILD_DIR/bench, every build type makes them); a build of some targets only (as on the
# GPU machines) lacks them, and then they are compiled here with cc.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
runs=${RUNS:-21} short=0 live=1 timings=0
snaps=() ids=()
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1 runs=${RUNS:-3} ;;
	--runs) runs=$2; shift ;;
	--no-live) live=0 ;;
	--timings) timings=1 ;;
	--ids) ids=(-i "$2"); shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bar-inspect-vs-lspci: unknown option $1 (try --help)" >&2; exit 2 ;;
	*) snaps+=("$1") ;;
	esac
	shift
done
bi=${BUILD_DIR:-build}/tools/bar-inspect
lspci=${LSPCI:-lspci}
[ -x "$bi" ] || { echo "bar-inspect-vs-lspci: $bi not built (cmake --build ${BUILD_DIR:-build} --target bar-inspect)" >&2; exit 2; }
command -v "$lspci" >/dev/null || { echo "bar-inspect-vs-lspci: $lspci not installed" >&2; exit 2; }
[ ${#snaps[@]} -gt 0 ] || snaps=(tests/fixtures/h100 tests/fixtures/h200x2 tests/fixtures/qemu-switch/acs-on)
[ "$short" = 0 ] || snaps=("${snaps[0]}")

# group TITLE LABEL -- CMD... [;; LABEL -- CMD...]...: runs the commands round-robin
# $runs times (bench/spawn-time.c) and prints one line per command; the first command
# is the yardstick of the ratio column.
group() {
	local title=$1 med min label base= topo=
	shift
	echo "== $title"
	printf '  %-52s %10s %9s %8s %7s\n' command "median ms" "min ms" "x first" "x topo"
	"$spawn" "$runs" "$@" | while read -r med min label; do
		if [ "$med" = FAILED ]; then
			echo "  FAILED: $min $label"
			continue
		fi
		[ -n "$base" ] || base=$med
		[ "$label" != "nvidia-smi topo -m" ] || topo=$med
		awk -v l="$label" -v m="$med" -v n="$min" -v b="$base" -v t="$topo" \
			'BEGIN { printf "  %-52s %10.2f %9.2f %8.2f %7s\n", l, m / 1000, n / 1000, m / b,
				t == "" ? "-" : sprintf("%.3f", m / t) }'
	done
}

ndev() { find "$1/sys/bus/pci/devices" -mindepth 1 -maxdepth 1 | wc -l; }

work=$(mktemp -d /tmp/bar-inspect-vs-lspci.XXXXXX)
trap 'rm -rf "$work"' EXIT
# bench_prog NAME [LIBS...]: the path of bench program NAME, the build's or compiled here.
bench_prog() {
	local name=$1 built=${BUILD_DIR:-build}/bench/$1
	shift
	if [ -x "$built" ]; then
		echo "$built"
	else
		cc -O2 -o "$work/$name" "bench/$name.c" "$@" && echo "$work/$name"
	fi
}
spawn=$(bench_prog spawn-time) || { echo "bar-inspect-vs-lspci: cannot build bench/spawn-time.c" >&2; exit 2; }

echo "bar-inspect-vs-lspci: bar-inspect $("$bi" --version | awk '{print $2}'), lspci $("$lspci" --version | awk '{print $3}')," \
	"$runs alternating runs each; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"

if [ "$live" = 1 ] && [ -d /sys/bus/pci/devices ]; then
	cmds=("lspci -vvv" -- "$lspci" "${ids[@]}" -vvv)
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
		cmds+=(";;" "nvidia-smi topo -m" -- nvidia-smi topo -m)
	fi
	cmds+=(";;" "bar-inspect --all" -- "$bi" "${ids[@]}" --all
		";;" "bar-inspect --all --nvidia-facts rm --no-cache" -- "$bi" "${ids[@]}" --all --nvidia-facts rm --no-cache
		";;" "bar-inspect --all --nvidia-facts nvml --no-cache" -- "$bi" "${ids[@]}" --all --nvidia-facts nvml --no-cache
		";;" "bar-inspect --all --nvidia-facts nvml (cache)" -- "$bi" "${ids[@]}" --all --nvidia-facts nvml
		";;" "bar-inspect --all --nvidia-facts none" -- "$bi" "${ids[@]}" --all --nvidia-facts none
		";;" "bar-inspect (NVIDIA GPUs only)" -- "$bi" "${ids[@]}"
		";;" "bar-inspect --all -n (no pci.ids names)" -- "$bi" --all -n)
	nvml=
	if [ -e /dev/nvidiactl ] && prog=$(bench_prog nvml-init -ldl) &&
		"$prog" init 2>/dev/null; then
		nvml=$prog
		cmds+=(";;" "NVML alone: process start (nvml-init none)" -- "$nvml" none
			";;" "NVML alone: dlopen" -- "$nvml" dlopen
			";;" "NVML alone: dlopen, nvmlInit_v2, nvmlShutdown" -- "$nvml" init)
	fi
	group "this host (/sys: $(ndev "") devices)" "${cmds[@]}"
	[ -z "$nvml" ] || "$nvml" calls 2>&1 | sed 's/^/  /'
	if [ "$timings" = 1 ]; then
		for o in none nvml rm; do
			echo "  -- bar-inspect --all --nvidia-facts $o --no-cache --timings"
			"$bi" "${ids[@]}" --all --nvidia-facts $o --no-cache --timings 2>&1 >/dev/null | sed 's/^/  /'
		done
	fi
fi

for s in "${snaps[@]}"; do
	[ -d "$s/sys/bus/pci" ] || { echo "bar-inspect-vs-lspci: $s is not a snapshot" >&2; continue; }
	group "snapshot $s ($(ndev "$s") devices)" \
		"lspci -vvv -A linux-sysfs -O sysfs.path=S" -- "$lspci" "${ids[@]}" -vvv -A linux-sysfs -O sysfs.path="$s/sys/bus/pci" ";;" \
		"bar-inspect --root S --all" -- "$bi" "${ids[@]}" --root "$s" --all ";;" \
		"bar-inspect --root S --all --json" -- "$bi" "${ids[@]}" --root "$s" --all --json ";;" \
		"bar-inspect --root S (NVIDIA GPUs only)" -- "$bi" "${ids[@]}" --root "$s"
	[ "$timings" = 0 ] || "$bi" "${ids[@]}" --root "$s" --all --timings 2>&1 >/dev/null | sed 's/^/  /'
done
