#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --fleet over 100, 1,000 and 10,000 host reports: wall time and peak memory
# (max RSS), to show the cost grows linearly and that 10,000 hosts take under 2 s and
# 500 MB (docs/fleet.md).
#
# usage: bench/fleet-bench.sh [--short] [BUILD_DIR]
#
# The reports are real bar-inspect --json output: the committed captures with
# planted differences (tests/fleet/make-fleet-snapshots.py: IOMMU translating, ACS
# redirect, BAR1 shrunk, link trained down, NVLink, single GPU), analysed once, then
# copied with distinct host names, boot ids and times in a fixed mix (bench/fleet-gen.py;
# one in a thousand truncated, one in a thousand duplicated). Each size is summarised
# RUNS times (default 5) from the page cache; the best and the median wall time, the
# largest max RSS and the time per host are printed. --short (the CI test) runs 100 and
# 300 reports once and checks the counts, without judging the time.
# Environment: RUNS; P2PS_FLEET_THREADS (bar-inspect's reader threads, default: CPUs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
short=0
if [ "${1:-}" = --short ]; then
	short=1
	shift
fi
build=${1:-$top/build}
bi=${P2PS_BAR_INSPECT:-$build/tools/bar-inspect}
runs=${RUNS:-5}
sizes=(100 1000 10000)
if [ "$short" -eq 1 ]; then
	runs=1
	sizes=(100 300)
fi
[ -x "$bi" ] || {
	echo "fleet-bench: $bi not found; build first (cmake --build $build)" >&2
	exit 2
}
work=$(mktemp -d /tmp/fleet-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 "$top/tests/fleet/make-fleet-snapshots.py" "$top/tests/fixtures" "$work/snaps" \
	clean=h200pcie nvlink=h200x2 iommu=h200pcie,iommu bar1=h200pcie,bar1=32 \
	link=h200pcie,link=8 acs=qemu,acs h100=h100
mkdir -p "$work/base"
for s in "$work"/snaps/*; do
	v=$(basename "$s")
	peers=()
	[ "$v" = acs ] && peers=(--peers 03:00.0,04:00.0,06:00.0)
	"$bi" --root "$s" --json "${peers[@]}" >"$work/base/$v.json"
done

# measure OUT CMD...: "wall_s max_rss_kib cpu_s" of CMD (stdout to OUT), via GNU time.
measure() {
	local out=$1
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$work/time" "$@" >"$out" 2>/dev/null || [ $? -eq 1 ]
	tail -n 1 "$work/time" | awk '{ print $1, $2, $3 + $4 }' # after "Command exited ..."
}

echo "fleet-bench: $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $runs runs per size," \
	"threads ${P2PS_FLEET_THREADS:-auto}"
printf '%8s %6s %9s %9s %9s %10s %12s %s\n' hosts MB "best s" "median s" "best cpu" "max RSS" \
	"us per host" check
status=0
for n in "${sizes[@]}"; do
	expect=$(python3 "$top/bench/fleet-gen.py" "$work/base" "$work/r$n" "$n")
	mb=$(du -sm "$work/r$n" | cut -f1)
	cat "$work/r$n"/*.json >/dev/null # page cache
	walls=() rss=0 cpu=
	for ((i = 0; i < runs; i++)); do
		read -r w m c <<<"$(measure "$work/out$n.txt" "$bi" --fleet "$work/r$n")"
		walls+=("$w")
		[ "$m" -gt "$rss" ] && rss=$m
		cpu=$(awk -v a="${cpu:-$c}" -v b="$c" 'BEGIN { print (b < a ? b : a) }')
	done
	read -r best median <<<"$(printf '%s\n' "${walls[@]}" | sort -n |
		awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }')"
	# The summary must count every generated report: hosts plus the planted skips.
	"$bi" --fleet --json "$work/r$n" >"$work/out$n.json" || [ $? -eq 1 ]
	check=$(python3 - "$work/out$n.json" "$expect" <<-'EOF'
		import json, sys
		s, e = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
		kinds = [x["kind"] for x in s["skipped"]]
		ok = (s["counts"]["hosts"] == e["hosts"] and s["counts"]["documents"] == e["documents"]
		      and kinds.count("truncated") == e["truncated"] and kinds.count("duplicate") == e["duplicate"])
		print("ok" if ok else f"WRONG: {s['counts']} vs {e}")
	EOF
	)
	[ "$check" = ok ] || status=1
	awk -v n="$n" -v mb="$mb" -v b="$best" -v m="$median" -v u="$cpu" -v r="$rss" -v c="$check" \
		'BEGIN { printf "%8d %6d %9.3f %9.3f %9.3f %7.1f MB %12.1f %s\n", n, mb, b, m, u, r / 1024,
		         b / n * 1e6, c }'
done
exit $status
