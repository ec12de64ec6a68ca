#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The generated bash completion (build/completion/<tool>) through bash's own machinery:
# a fresh bash sources the file, finds the function with `complete -p`, sets COMP_LINE,
# COMP_POINT, COMP_WORDS and COMP_CWORD as readline would, calls it and prints COMPREPLY.
# GPU addresses come from a made-up sysfs root (P2PS_SYSFS_ROOT) with two NVIDIA devices
# and an Intel one that must not be offered.
set -u
. "$P2PS_SOURCE_DIR/tests/support/p2ps_test.sh"
comp=$P2PS_BINARY_DIR/completion
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for d in 0000:41:00.0:0x10de 0000:c1:00.0:0x10de 0000:00:1f.0:0x8086; do
	mkdir -p "$tmp/sys/bus/pci/devices/${d%:*}"
	echo "${d##*:}" >"$tmp/sys/bus/pci/devices/${d%:*}/vendor"
done
mkdir -p "$tmp/snapdir"
: >"$tmp/report.json"

complete_line() { # tool line: prints the completions, one a line, sorted
	P2PS_SYSFS_ROOT=$tmp bash -c '
		source "$1" || exit 1
		spec=$(complete -p "$2") || exit 1
		fn=${spec#*-F }; fn=${fn%% *}
		COMP_LINE=$3; COMP_POINT=${#COMP_LINE}
		read -ra COMP_WORDS <<<"$COMP_LINE"
		[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		"$fn" "$2" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp/$1" "$1" "$2"
}

expect() { # tool line want... (the exact set)
	local tool=$1 line=$2
	shift 2
	local got want
	got=$(cd "$tmp" && complete_line "$tool" "$line" | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		echo "FAIL: '$line': got [$got], want [$want]"
		fail=1
	else
		echo "ok: '$line' -> [$got]"
	fi
}

contains() { # tool line word...: each word is among the completions
	local tool=$1 line=$2 w got
	shift 2
	got=" $(cd "$tmp" && complete_line "$tool" "$line" | tr '\n' ' ') "
	for w in "$@"; do
		if [[ $got != *" $w "* ]]; then
			echo "FAIL: '$line': '$w' missing from [$got]"
			fail=1
			return
		fi
	done
	echo "ok: '$line' offers $*"
}

for t in bar-inspect pte-decode pte-probe; do
	[ -f "$comp/$t" ] || { echo "FAIL: $comp/$t not generated"; fail=1; }
done
[ $fail -eq 0 ] || exit 1

expect bar-inspect "bar-inspect --ro" --root
expect bar-inspect "bar-inspect --vfio-f" --vfio-flow
expect bar-inspect "bar-inspect --vfio-flow " auto legacy cdev
expect bar-inspect "bar-inspect --vfio-flow=le" legacy
contains bar-inspect "bar-inspect --" --check --json --fleet --peers --paste --root
expect bar-inspect "bar-inspect -s " 0000:41:00.0 0000:c1:00.0
# bash splits words at ':': the reply is what follows the last ':' typed.
expect bar-inspect "bar-inspect -s 0000:c" c1:00.0
expect bar-inspect "bar-inspect --peers 0000:41:00.0," "00.0,0000:41:00.0" "00.0,0000:c1:00.0"
expect bar-inspect "bar-inspect --peers 0000:41:00.0,0000:c" c1:00.0
expect bar-inspect "bar-inspect --vfio a" all
expect bar-inspect "bar-inspect --root snap" snapdir
expect bar-inspect "bar-inspect --paste rep" report.json
expect pte-decode "pte-decode " encode decode p2p formats verify
expect pte-decode "pte-decode p2p --mode " stock nvlink bar1
expect pte-decode "pte-decode p2p --mo" --mode
contains pte-decode "pte-decode decode --" --raw --text --mem --chip --entry
expect pte-decode "pte-decode encode --entry d" dual-pde
expect pte-probe "pte-probe --pe" --peer
if [ -f "$comp/p2p-bench" ]; then
	expect p2p-bench "p2p-bench report --b" --bench
	expect p2p-bench "p2p-bench check --no-i" --no-ipc
	contains p2p-bench "p2p-bench " report check --devices --json
	contains p2p-bench "p2p-bench check --a" --alias --allow-single --allow-no-p2p
else
	p2ps_missing "p2p-bench's completion" "p2p-bench is not built: no CUDA compiler"
fi
p2ps_test_exit "$fail"
