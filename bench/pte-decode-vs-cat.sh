#!/usr/bin/env bash
# pte-decode summary speed against `cat FILE >/dev/null` on the same file, in one run.
#
# usage: bench/pte-decode-vs-cat.sh [BUILD_DIR] [SIZE_MIB]    (defaults: build, 1024)
#
# Needs pte-decode and gen-ad102-dump built in BUILD_DIR (cmake --build BUILD_DIR).
# Generates a synthetic AD102 dump of 4 KiB PTEs (bench/gen-ad102-dump.c: vidmem in
# 2 MiB- and 64 KiB-contiguous chunks, scattered sysmem pages, BAR1-P2P and stock peer
# mappings, holes) in /tmp, reads it once to bring it into the page cache, then times
# `cat` and `pte-decode decode --chip AD102 --raw FILE --summary` alternately RUNS
# times (default 5) and reports the best and the median of each, the rates and the
# ratio pte-decode/cat (the goal: at least 0.40). Single-threaded, both from cache.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
mib=${2:-1024}
runs=${RUNS:-5}
tool=$build/tools/pte-decode
gen=$build/bench/gen-ad102-dump
for t in "$tool" "$gen"; do
	[ -x "$t" ] || {
		echo "pte-decode-vs-cat: $t not found; build first (cmake --build $build)" >&2
		exit 2
	}
done
work=$(mktemp -d /tmp/pte-decode-vs-cat.XXXXXX)
trap 'rm -rf "$work"' EXIT
dump=$work/ad102-ptes.bin
"$gen" "$dump" $((mib << 20))
bytes=$(stat -c %s "$dump")
cat "$dump" >/dev/null # page cache

# One timed run: `timed OUT CMD...` prints "wall_ns cpu_ns" (cpu = user + sys of CMD),
# CMD's standard output going to OUT.
TIMEFORMAT='%R %U %S'
timed() {
	local out=$1 t
	shift
	t=$({ time "$@" >"$out" 2>/dev/null; } 2>&1)
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.0f %.0f\n", a[1] * 1e9, (a[2] + a[3]) * 1e9 }'
}
cat_wall=() cat_cpu=() pte_wall=() pte_cpu=()
for ((i = 0; i < runs; i++)); do
	read -r w c <<<"$(timed /dev/null cat "$dump")"
	cat_wall+=("$w") cat_cpu+=("$c")
	read -r w c <<<"$(timed /dev/null "$tool" decode --chip AD102 --raw "$dump" --summary)"
	pte_wall+=("$w") pte_cpu+=("$c")
done
"$tool" decode --chip AD102 --raw "$dump" --summary >"$work/summary.txt"
ranges=$(($(wc -l <"$work/summary.txt") - 1))

stats() { # ns... -> "best median"
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}
rate() { awk -v b="$bytes" -v ns="$1" 'BEGIN { printf "%6.0f", b / (ns / 1e9) / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "pte-decode-vs-cat: $((bytes >> 20)) MiB, $((bytes / 8)) PTEs, $ranges summary ranges," \
	"$runs runs, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
read -r cwb cwm <<<"$(stats "${cat_wall[@]}")"
read -r pwb pwm <<<"$(stats "${pte_wall[@]}")"
read -r ccb ccm <<<"$(stats "${cat_cpu[@]}")"
read -r pcb pcm <<<"$(stats "${pte_cpu[@]}")"
echo "  wall clock                   best MiB/s  median MiB/s"
echo "    cat FILE >/dev/null          $(rate "$cwb")       $(rate "$cwm")"
echo "    pte-decode decode --summary  $(rate "$pwb")       $(rate "$pwm")"
echo "    ratio pte-decode/cat         $(ratio "$cwb" "$pwb")         $(ratio "$cwm" "$pwm")   (goal >= 0.40)"
echo "  CPU time (user+sys; steadier on a shared machine)"
echo "    cat FILE >/dev/null          $(rate "$ccb")       $(rate "$ccm")"
echo "    pte-decode decode --summary  $(rate "$pcb")       $(rate "$pcm")"
echo "    ratio pte-decode/cat         $(ratio "$ccb" "$pcb")         $(ratio "$ccm" "$pcm")"
