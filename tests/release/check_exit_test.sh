#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --check: every exit status on committed fixtures, for one host and for a
# fleet (the worst host decides).
#   0  every pair ready (h200x2 snapshot), or no pair at all (h100 snapshot)
#   1  a blocker (the QEMU switch guest with its ivshmem devices as --peers: ACS redirect
#      at a root port)
#   3  a verdict unknown (a paste of nvidia-smi topo -m alone); a paste that shows no GPU
#      pair (empty, prose, one GPU); a fleet whose inputs hold no host
#   2  an error (a snapshot folder that does not exist, a bad option)
# A paste decides by its own verdict: the H200 bug-report paste shows P2P copies beating
# host copies (0), a refused peer access is a blocker (1).
set -u
bi=$P2PS_TOOLS_DIR/bar-inspect
fx=$P2PS_SOURCE_DIR/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() { # want description command...
	local want=$1 what=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: $what: exit $rc, want $want ($*)"
		sed 's/^/  stderr: /' "$tmp/err" | head -5
		fail=1
	else
		echo "ok: $what: exit $rc"
	fi
}

peers=(--peers "03:00.0,04:00.0,06:00.0")
expect 0 "ready pair" "$bi" --check --root "$fx/h200x2"
expect 0 "ready pair, JSON" "$bi" --check --json --root "$fx/h200x2"
expect 0 "no pair" "$bi" --check --root "$fx/h100"
expect 1 "blocker" "$bi" --check --root "$fx/qemu-switch/acs-on" "${peers[@]}"
# The same guest's lspci dump has no IOMMU facts: whether ACS redirect blocks is unknown.
expect 3 "unknown verdict, lspci dump" "$bi" --check --lspci-dump \
	"$fx/qemu-switch/acs-on/p2pscope/lspci-xxxx.txt" "${peers[@]}"
printf 'nvidia-smi topo -m\n\tGPU0\tGPU1\nGPU0\t X \tPHB\nGPU1\tPHB\t X\n' >"$tmp/unknown.txt"
expect 3 "unknown verdict" "$bi" --check --paste "$tmp/unknown.txt"
expect 0 "paste: P2P shown working" "$bi" --check --paste "$fx/h200x2-paste/paste.txt"
printf 'Device=0 CANNOT Access Peer Device=1\nDevice=1 CANNOT Access Peer Device=0\n' \
	>"$tmp/refused.txt"
expect 1 "paste: peer access refused" "$bi" --check --paste "$tmp/refused.txt"
: >"$tmp/empty.txt"
expect 3 "paste: empty" "$bi" --check --paste "$tmp/empty.txt"
printf 'My training hangs, any idea?\nThanks!\n' >"$tmp/prose.txt"
expect 3 "paste: prose only" "$bi" --check --paste "$tmp/prose.txt"
printf '01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684]\n' \
	>"$tmp/one-gpu.txt"
expect 3 "paste: one GPU, no pair" "$bi" --check --paste "$tmp/one-gpu.txt"
expect 2 "missing snapshot" "$bi" --check --root "$tmp/none"
expect 2 "bad option" "$bi" --check --no-such-option
# Without --check the verdict does not change the exit status.
expect 0 "blocker without --check" "$bi" --root "$fx/qemu-switch/acs-on" "${peers[@]}"
expect 0 "unknown without --check" "$bi" --paste "$tmp/unknown.txt"

# A report of each kind; the fleet's exit is its worst host's.
"$bi" --json --root "$fx/h200x2" >"$tmp/ready.json" || fail=1
"$bi" --json --root "$fx/qemu-switch/acs-on" "${peers[@]}" >"$tmp/blocked.json" || fail=1
"$bi" --json --paste "$tmp/unknown.txt" >"$tmp/unknown.json" || fail=1
"$bi" --json --paste "$tmp/prose.txt" >"$tmp/nothing.json" || fail=1
expect 0 "fleet: ready host" "$bi" --fleet --check "$tmp/ready.json"
expect 3 "fleet: ready and unknown hosts" "$bi" --fleet --check "$tmp/ready.json" \
	"$tmp/unknown.json"
expect 1 "fleet: every kind of host" "$bi" --fleet --check --json "$tmp/ready.json" \
	"$tmp/unknown.json" "$tmp/blocked.json"
expect 1 "fleet: blocked and unknown hosts, CSV" "$bi" --fleet --check --csv \
	"$tmp/unknown.json" "$tmp/blocked.json"
expect 3 "fleet: an unreadable input" "$bi" --fleet --check "$tmp/ready.json" "$tmp/none.json"
printf 'vm\nnever-reported\n' >"$tmp/expect"
expect 3 "fleet: an expected host missing" "$bi" --fleet --check --expect "$tmp/expect" \
	"$tmp/ready.json"
expect 2 "fleet: no input" "$bi" --fleet --check
mkdir -p "$tmp/no-reports"
expect 3 "fleet: a folder with no report" "$bi" --fleet --check "$tmp/no-reports"
expect 3 "fleet: a paste report that shows no pair" "$bi" --fleet --check "$tmp/nothing.json"
expect 0 "fleet without --check" "$bi" --fleet "$tmp/ready.json" "$tmp/blocked.json"
exit $fail
