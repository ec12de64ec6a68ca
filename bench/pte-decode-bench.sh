#!/usr/bin/env bash
# pte-decode summary speed against `cat FILE >/dev/null` on the same file, in one run.
#
# usage: bench/pte-decode-bench.sh [BUILD_DIR] [SIZE_MIB]    (defaults: build, 1024)
#
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
[ -x "$tool" ] || {
	echo "pte-decode-bench: $tool not found; build first (cmake --build $build)" >&2
	exit 2
}
work=$(mktemp -d /tmp/pte-decode-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -I"$top/include" "$top/bench/gen-ad102-dump.c" -o "$work/gen"
dump=$work/ad102-ptes.bin
"$work/gen" "$dump" $((mib << 20))
bytes=$(stat -c %s "$dump")
cat "$dump" >/dev/null # page cache

now() { date +%s%N; }
cat_ns=()
pte_ns=()
for ((i = 0; i < runs; i++)); do
	t0=$(now)
	cat "$dump" >/dev/null
	t1=$(now)
	"$tool" decode --chip AD102 --raw "$dump" --summary >"$work/summary.txt"
	t2=$(now)
	cat_ns+=($((t1 - t0)))
	pte_ns+=($((t2 - t1)))
done
ranges=$(($(wc -l <"$work/summary.txt") - 1))

stats() { # ns... -> "best median"
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}
read -r cat_best cat_med <<<"$(stats "${cat_ns[@]}")"
read -r pte_best pte_med <<<"$(stats "${pte_ns[@]}")"
rate() { awk -v b="$bytes" -v ns="$1" 'BEGIN { printf "%.0f", b / (ns / 1e9) / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "pte-decode-bench: $((bytes >> 20)) MiB, $((bytes / 8)) PTEs, $ranges summary ranges, $runs runs, $(nproc) CPUs"
echo "  cat FILE >/dev/null          best $(rate "$cat_best") MiB/s   median $(rate "$cat_med") MiB/s"
echo "  pte-decode decode --summary  best $(rate "$pte_best") MiB/s   median $(rate "$pte_med") MiB/s"
echo "  ratio pte-decode/cat         best $(ratio "$cat_best" "$pte_best")   median $(ratio "$cat_med" "$pte_med")   (goal >= 0.40)"
