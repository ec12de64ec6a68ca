#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --paste against `cat FILE >/dev/null` on the same file, in one run,
# alternating.
#
#   bench/paste-vs-cat.sh [--short] [BUILD_DIR] [MIB]      (defaults: build, 50)
#
# Builds a paste of MIB MiB from the committed real pastes (every tests/fixtures/pastes
# case and the nvidia-bug-report.log of tests/fixtures/bugreport, one after the other,
# over and over: every block syntax, with prose between), and its gzip'd copy (the form
# nvidia-bug-report.log.gz arrives in). Reads each once so that it sits in the page
# cache, then times `cat`, `bar-inspect --paste FILE` and `bar-inspect --paste FILE.gz`
# alternately RUNS times (default 5) and prints the best and the median of each, by wall
# clock and by CPU time (user+sys), and the ratio bar-inspect/cat. The figure to watch:
# a 50 MiB paste read in under 10 s.
#
#   --short   2 MiB, one run: what CI runs (no figure checked)
#
# Environment: RUNS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
short=0
args=()
for a in "$@"; do
	case $a in
	--short) short=1 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "paste-vs-cat: unknown option $a (try --help)" >&2; exit 2 ;;
	*) args+=("$a") ;;
	esac
done
build=${args[0]:-$top/build}
mib=${args[1]:-50}
runs=${RUNS:-5}
if [ "$short" = 1 ]; then
	mib=${args[1]:-2} runs=${RUNS:-1}
fi
bi=$build/tools/bar-inspect
[ -x "$bi" ] || {
	echo "paste-vs-cat: $bi not found; build first (cmake --build $build --target bar-inspect)" >&2
	exit 2
}
work=$(mktemp -d /tmp/paste-vs-cat.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The paste: the real ones, round after round, up to MIB MiB.
sources=("$top"/tests/fixtures/pastes/*/paste.txt "$top"/tests/fixtures/bugreport/*/*.log)
paste=$work/paste.txt
want=$((mib * 1048576))
: >"$paste"
while [ "$(stat -c %s "$paste")" -lt "$want" ]; do
	for s in "${sources[@]}"; do
		printf '\nAnother paste from the thread:\n\n' >>"$paste"
		cat "$s" >>"$paste"
	done
done
truncate -s "$want" "$paste"
gzip -c "$paste" >"$paste.gz"

TIMEFORMAT='%R %U %S'
timed() { # CMD... -> "wall_ns cpu_ns", its output to /dev/null
	local t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.0f %.0f\n", a[1] * 1e9, (a[2] + a[3]) * 1e9 }'
}
stats() { # ns... -> "best median"
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }'
}
sec() { awk -v ns="$1" 'BEGIN { printf "%7.2f", ns / 1e9 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }

cat "$paste" "$paste.gz" >/dev/null # page cache
"$bi" --paste "$paste" >/dev/null || { echo "paste-vs-cat: bar-inspect failed on the paste" >&2; exit 1; }
declare -a cw=() cc=() pw=() pc=() zw=() zc=()
for ((i = 0; i < runs; i++)); do
	read -r w c <<<"$(timed cat "$paste")"
	cw+=("$w") cc+=("$c")
	read -r w c <<<"$(timed "$bi" --paste "$paste")"
	pw+=("$w") pc+=("$c")
	read -r w c <<<"$(timed "$bi" --paste "$paste.gz")"
	zw+=("$w") zc+=("$c")
done
read -r cwb cwm <<<"$(stats "${cw[@]}")"
read -r ccb ccm <<<"$(stats "${cc[@]}")"
echo "paste-vs-cat: $mib MiB paste ($(stat -c %s "$paste.gz") bytes gzip'd), $runs run(s), seconds"
printf '  %-34s %7s %7s %7s %7s %9s\n' command "wall" "median" "cpu" "median" "x cat"
printf '  %-34s %s %s %s %s %9s\n' "cat FILE" "$(sec "$cwb")" "$(sec "$cwm")" "$(sec "$ccb")" \
	"$(sec "$ccm")" "1.0"
row() { # LABEL WALLS... -- CPUS...
	local label=$1 b m cb cm
	shift
	local -a w=() c=()
	while [ "$1" != -- ]; do w+=("$1"); shift; done
	shift
	c=("$@")
	read -r b m <<<"$(stats "${w[@]}")"
	read -r cb cm <<<"$(stats "${c[@]}")"
	printf '  %-34s %s %s %s %s %9s\n' "$label" "$(sec "$b")" "$(sec "$m")" "$(sec "$cb")" \
		"$(sec "$cm")" "$(ratio "$m" "$cwm")"
}
row "bar-inspect --paste FILE" "${pw[@]}" -- "${pc[@]}"
row "bar-inspect --paste FILE.gz" "${zw[@]}" -- "${zc[@]}"
