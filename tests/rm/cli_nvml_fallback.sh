#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect's one line about where the NVIDIA facts came from, as a user sees it on a live
# host (text and JSON):
#   - this host as it is: the RM API where the NVIDIA driver is loaded, else NVML, as the RM
#     API failed because no driver is loaded;
#   - a driver series whose RM layouts p2pscope does not know (610.10, through a
#     /proc/driver/nvidia/version of that series bind-mounted in a private mount namespace,
#     unshare -rm): NVML, with the one line naming the series; --nvidia-facts rm: none, with
#     the same reason; --nvidia-facts none: none, not asked.
# Each run prints exactly one "NVIDIA facts:" line.
#
#   tests/rm/cli_nvml_fallback.sh   (P2PS_SOURCE_DIR, P2PS_TOOLS_DIR from ctest)
set -uo pipefail
top=${P2PS_SOURCE_DIR:?} bi=${P2PS_TOOLS_DIR:?}/bar-inspect
. "$top/tests/support/p2ps_test.sh"
fail=0
tmp=$(mktemp -d /tmp/cli_nvml_fallback.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# expect NAME FILE REGEX: FILE has exactly one "NVIDIA facts:" line and it matches REGEX.
expect() {
	local lines
	lines=$(grep -c 'NVIDIA facts:' "$2")
	if [ "$lines" != 1 ]; then
		echo "FAIL $1: $lines \"NVIDIA facts:\" lines"
		fail=1
	elif ! grep 'NVIDIA facts:' "$2" | grep -Eq "$3"; then
		echo "FAIL $1: $(grep 'NVIDIA facts:' "$2")"
		fail=1
	else
		echo "ok   $1: $(grep 'NVIDIA facts:' "$2" | sed 's/^[[:space:]]*//')"
	fi
}

# json_source NAME FILE SOURCE: the JSON report's host.nvidia.facts_source is SOURCE.
json_source() {
	local got
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["nvidia"]["facts_source"])' "$2" 2>&1)
	[ "$got" = "$3" ] || { echo "FAIL $1: facts_source $got, not $3"; fail=1; }
}

"$bi" -n >"$tmp/live.txt" 2>&1 || { echo "FAIL live: exit $?"; fail=1; }
"$bi" -n --json >"$tmp/live.json" 2>"$tmp/live.err" || { echo "FAIL live --json: exit $?"; fail=1; }
if [ -e /proc/driver/nvidia/version ]; then
	expect "live (NVIDIA driver loaded)" "$tmp/live.txt" "the driver's RM API|NVML, as the RM API failed"
else
	expect "live (no NVIDIA driver)" "$tmp/live.txt" \
		'NVML, as the RM API failed: no NVIDIA kernel driver is loaded'
	json_source "live --json" "$tmp/live.json" nvml
fi

# A driver of a series without known layouts, in a mount namespace of its own.
mkdir -p "$tmp/driver/nvidia"
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.10  Release Build  (builder@)\n' \
	>"$tmp/driver/nvidia/version"
ns() { unshare -rm sh -c 'mount --bind "$1" /proc/driver && shift && exec "$@"' sh "$tmp/driver" "$@"; }
if p2ps_need_cmd unshare util-linux && { ns true >/dev/null 2>&1 || p2ps_missing \
	"a private mount namespace (unshare -rm)" "user namespaces disabled on this kernel"; }; then
	ns "$bi" -n >"$tmp/610.txt" 2>&1 || { echo "FAIL 610: exit $?"; fail=1; }
	expect "series 610, the default" "$tmp/610.txt" \
		'NVML, as the RM API failed: NVIDIA driver 610\.10: the RM API struct layouts of series 610 are not known'
	ns "$bi" -n --json >"$tmp/610.json" 2>&1 || { echo "FAIL 610 --json: exit $?"; fail=1; }
	json_source "series 610 --json" "$tmp/610.json" nvml
	ns "$bi" -n --nvidia-facts rm >"$tmp/610rm.txt" 2>&1 || { echo "FAIL 610 rm: exit $?"; fail=1; }
	expect "series 610, --nvidia-facts rm" "$tmp/610rm.txt" \
		'none: the RM API failed: NVIDIA driver 610\.10: .*series 610'
	ns "$bi" -n --nvidia-facts none >"$tmp/610none.txt" 2>&1 || { echo "FAIL 610 none: exit $?"; fail=1; }
	expect "series 610, --nvidia-facts none" "$tmp/610none.txt" '^[[:space:]]*NVIDIA facts: none'
fi
p2ps_test_exit "$fail"
