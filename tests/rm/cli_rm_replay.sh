#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --replay on the committed RM captures (tests/fixtures/rm/*/): each replays
# in text, JSON and dot with its snapshot (every recorded call used, each request the
# recorded one), the JSON report agrees with what nvidia-smi said on that machine in the
# same run (replay_check.py), and the text and dot replays carry the JSON's GPUs, classes
# and verdicts (replay_formats.py). A capture against a snapshot without its GPUs fails
# with one line.
#
#   tests/rm/cli_rm_replay.sh   (P2PS_SOURCE_DIR, P2PS_TOOLS_DIR from ctest)
set -uo pipefail
top=${P2PS_SOURCE_DIR:?} bi=${P2PS_TOOLS_DIR:?}/bar-inspect
fail=0 n=0
tmp=$(mktemp -d /tmp/cli_rm_replay.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for d in "$top"/tests/fixtures/rm/*/; do
	[ -f "$d/capture.json" ] || continue
	n=$((n + 1))
	name=$(basename "$d")
	for fmt in text json dot; do
		opt=--$fmt
		[ "$fmt" = text ] && opt=
		# shellcheck disable=SC2086
		"$bi" -n --all $opt --replay "$d/capture.json" --root "$d/root" >"$tmp/$fmt" 2>"$tmp/err"
		rc=$?
		if [ "$rc" != 0 ]; then
			echo "FAIL $name $fmt: exit $rc $(cat "$tmp/err")"
			fail=1
		elif [ -s "$tmp/err" ]; then
			echo "FAIL $name $fmt: stderr: $(cat "$tmp/err")"
			fail=1
		fi
	done
	python3 "$top/tests/rm/replay_check.py" "$tmp/json" "$d" || fail=1
	# The text and the picture carry the JSON's facts (and nvidia-smi's matrix).
	python3 "$top/tests/rm/replay_formats.py" "$tmp/json" "$tmp/text" "$tmp/dot" "$d" || fail=1
	# A snapshot without these GPUs (a QEMU guest): the capture's GPUs are not the model's.
	if "$bi" -n --replay "$d/capture.json" --root "$top/tests/fixtures/qemu-switch/acs-on" >/dev/null 2>"$tmp/err"; then
		echo "FAIL $name: replay against tests/fixtures/qemu-switch/acs-on succeeded"
		fail=1
	elif [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q "^bar-inspect: --replay .*: the capture's GPU .* is not in the snapshot" "$tmp/err"; then
		echo "FAIL $name: replay against another snapshot: $(cat "$tmp/err")"
		fail=1
	fi
	# NVLink through NVSwitches (nvidia-smi topo -m of the same run says NV<k> for every
	# pair): NCCL's topology XML has one link element per GPU to the switch fabric, with the
	# GPU's k links (NCCL's own dump on these hosts: target fffffff:ffff:ff, class 0x068000).
	k=$(grep '^GPU[0-9]' "$d/topo-m.txt" | grep -Eo 'NV[0-9]+' | sort -u)
	if [ "$(wc -w <<<"$k")" = 1 ]; then
		gpus=$(grep -c '^GPU[0-9]' "$d/topo-m.txt")
		"$bi" -n --nccl-topo --replay "$d/capture.json" --root "$d/root" >"$tmp/topo.xml"
		got=$(grep -c "<nvlink target=\"fffffff:ffff:ff\" count=\"${k#NV}\" tclass=\"0x068000\"/>" "$tmp/topo.xml")
		[ "$got" = "$gpus" ] || { echo "FAIL $name: --nccl-topo has $got NVSwitch links of $k, not $gpus"; fail=1; }
	fi
done
if [ "$n" = 0 ]; then
	echo "FAIL: no captures under tests/fixtures/rm"
	exit 1
fi
[ "$fail" = 0 ] && echo "cli_rm_replay: $n captures replayed and checked"
exit $fail
