#!/bin/sh
# SPDX-License-Identifier: MIT
# bar-inspect's VFIO options reject bad input with one line on stderr and exit 2,
# before anything is opened. Runs on any machine (no VFIO needed).
bi="${P2PS_TOOLS_DIR:?}/bar-inspect"
fails=0
expect() { # want-substring args...
	want=$1
	shift
	err=$("$bi" "$@" 2>&1 >/dev/null)
	rc=$?
	lines=$(printf '%s\n' "$err" | wc -l)
	case $err in
	*"$want"*) ;;
	*) echo "FAIL: bar-inspect $*: stderr '$err' lacks '$want'"; fails=$((fails + 1)); return ;;
	esac
	if [ "$rc" != 2 ] || [ "$lines" != 1 ]; then
		echo "FAIL: bar-inspect $*: rc=$rc lines=$lines (want 2 and 1)"
		fails=$((fails + 1))
		return
	fi
	echo "ok: bar-inspect $* -> $err"
}
expect "not 4-byte aligned" --read-reg 0:0x3 -s 00:00.0
expect "BAR must be 0..5" --read-reg 7:0x0 -s 00:00.0
expect "expected BAR:OFFSET" --read-reg 0x0 -s 00:00.0
expect "needs a device" --read-reg 0:0x0
expect "not a PCI address" --vfio zz:00.0
expect "A and B must be PCI addresses" --map-peer 1,2
expect "expected A,B or A,B,BAR" --map-peer 0000:01:00.0
expect "BAR must be 0..5" --map-peer 01:00.0,02:00.0,9
expect "expected auto, legacy or cdev" --vfio-flow nope --vfio 01:00.0
expect "not with --root" --vfio 01:00.0 --root /nonexistent
expect "cannot be combined with --vfio" --vfio 01:00.0 --dot
expect "no such PCI device" --vfio ffff:ff:1f.7
[ "$fails" = 0 ]
