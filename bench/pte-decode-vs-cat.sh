#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pte-decode against `cat FILE >/dev/null` on the same file, in one run, alternating.
#
#   bench/pte-decode-vs-cat.sh [--short] [--small-writes] [BUILD_DIR] [MIB]
#                                                        (defaults: build, 1024)
#
# Generates a synthetic AD102 dump of 4 KiB PTEs (bench/gen-ad102-dump.c: vidmem in
# 2 MiB- and 64 KiB-contiguous chunks, scattered sysmem pages, BAR1-P2P and stock peer
# mappings, holes) in /tmp, reads it once so that it sits in the page cache, then times
# `cat` and `pte-decode decode --chip AD102 --raw FILE --summary` alternately RUNS times
# (default 5) and prints the best and the median of each, as rates and as the ratio
# pte-decode/cat (the goal: at least 0.80), by wall clock and by CPU time (user+sys,
# steadier on a shared machine). Single-threaded, both from the page cache.
#
# Then the full decode, one line (text) or one JSON object per entry, of a FULL_MIB dump
# (default 16 MiB): its rate in MiB of entries per second and in entries per second
# (median of 3).
#
#   --short         4 MiB, one run, a 1 MiB full decode: what CI runs (no figure checked)
#   --small-writes  also the same dump written in 512 KiB pieces: smaller page-cache
#                   folios, mapped with 4 KiB entries (faults and TLB misses a mapped
#                   read pays and cat does not); the generator's 4 MiB writes leave 2 MiB
#                   folios, as readahead does for a dump read back from disk
#
# Environment: RUNS, FULL_MIB.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
short=0 small=0
args=()
for a in "$@"; do
	case $a in
	--short) short=1 ;;
	--small-writes) small=1 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "pte-decode-vs-cat: unknown option $a (try --help)" >&2; exit 2 ;;
	*) args+=("$a") ;;
	esac
done
build=${args[0]:-$top/build}
mib=${args[1]:-1024}
runs=${RUNS:-5}
full_mib=${FULL_MIB:-16}
if [ "$short" = 1 ]; then
	mib=${args[1]:-4} runs=${RUNS:-1} full_mib=${FULL_MIB:-1}
fi
tool=$build/tools/pte-decode
[ -x "$tool" ] || {
	echo "pte-decode-vs-cat: $tool not found; build first (cmake --build $build)" >&2
	exit 2
}
work=$(mktemp -d /tmp/pte-decode-vs-cat.XXXXXX)
trap 'rm -rf "$work"' EXIT
gen=$build/bench/gen-ad102-dump
[ -x "$gen" ] || { gen=$work/gen && cc -O2 -Wall -I"$top/include" "$top/bench/gen-ad102-dump.c" -o "$gen"; }

# One timed run: `timed CMD...` prints "wall_ns cpu_ns" (cpu = user + sys of CMD), its
# output to /dev/null.
TIMEFORMAT='%R %U %S'
timed() {
	local t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.0f %.0f\n", a[1] * 1e9, (a[2] + a[3]) * 1e9 }'
}
stats() { # ns... -> "best median"
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}
rate() { awk -v b="$1" -v ns="$2" 'BEGIN { printf "%6.0f", b / (ns / 1e9) / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# summary_vs_cat TITLE FILE: the alternating runs and their table.
summary_vs_cat() {
	local title=$1 dump=$2 i w c bytes
	local -a cw=() cc=() pw=() pc=()
	bytes=$(stat -c %s "$dump")
	cat "$dump" >/dev/null # page cache
	for ((i = 0; i < runs; i++)); do
		read -r w c <<<"$(timed cat "$dump")"
		cw+=("$w") cc+=("$c")
		read -r w c <<<"$(timed "$tool" decode --chip AD102 --raw "$dump" --summary)"
		pw+=("$w") pc+=("$c")
	done
	local ranges
	ranges=$(($("$tool" decode --chip AD102 --raw "$dump" --summary | wc -l) - 1))
	echo "== $title: $((bytes >> 20)) MiB, $((bytes / 8)) PTEs, $ranges summary ranges"
	read -r cwb cwm <<<"$(stats "${cw[@]}")"
	read -r pwb pwm <<<"$(stats "${pw[@]}")"
	read -r ccb ccm <<<"$(stats "${cc[@]}")"
	read -r pcb pcm <<<"$(stats "${pc[@]}")"
	echo "  wall clock                   best MiB/s  median MiB/s"
	echo "    cat FILE >/dev/null          $(rate "$bytes" "$cwb")       $(rate "$bytes" "$cwm")"
	echo "    pte-decode decode --summary  $(rate "$bytes" "$pwb")       $(rate "$bytes" "$pwm")"
	echo "    ratio pte-decode/cat         $(ratio "$cwb" "$pwb")         $(ratio "$cwm" "$pwm")   (goal >= 0.80)"
	echo "  CPU time (user+sys)"
	echo "    cat FILE >/dev/null          $(rate "$bytes" "$ccb")       $(rate "$bytes" "$ccm")"
	echo "    pte-decode decode --summary  $(rate "$bytes" "$pcb")       $(rate "$bytes" "$pcm")"
	echo "    ratio pte-decode/cat         $(ratio "$ccb" "$pcb")         $(ratio "$ccm" "$pcm")"
}

echo "pte-decode-vs-cat: $runs alternating runs each; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
dump=$work/ad102-ptes.bin
"$gen" "$dump" $((mib << 20)) 2>/dev/null
summary_vs_cat "dump written in 4 MiB pieces" "$dump"
if [ "$small" = 1 ]; then
	rm -f "$dump"
	"$gen" "$dump" $((mib << 20)) 0x4090 $((512 << 10)) 2>/dev/null
	summary_vs_cat "the same dump written in 512 KiB pieces" "$dump"
fi
rm -f "$dump"

# The full decode: every entry on a line of its own, or as a JSON object.
full=$work/full.bin
"$gen" "$full" $((full_mib << 20)) 2>/dev/null
cat "$full" >/dev/null
fbytes=$(stat -c %s "$full")
full_runs=$((runs < 3 ? runs : 3))
echo "== full decode of $((fbytes >> 20)) MiB ($((fbytes / 8)) PTEs), median of $full_runs"
for mode in text json; do
	flag=()
	[ "$mode" = json ] && flag=(--json)
	ws=()
	for ((i = 0; i < full_runs; i++)); do
		read -r w c <<<"$(timed "$tool" decode --chip AD102 --raw "$full" "${flag[@]}")"
		ws+=("$w")
	done
	read -r _ wm <<<"$(stats "${ws[@]}")"
	awk -v m="$mode" -v b="$fbytes" -v ns="$wm" 'BEGIN {
		printf "  pte-decode decode %-5s %8.1f MiB/s  %6.2f M entries/s\n", m,
		       b / (ns / 1e9) / 1048576, b / 8 / (ns / 1e9) / 1e6 }'
done
