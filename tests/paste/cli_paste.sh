#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --paste from the command line: a written paste in the three outputs and from
# stdin, and bad pastes (binary data, a missing file, a directory, a block cut mid-line, a
# matrix with mismatched columns, 100 MB of noise): a one-line error with status 2 or a
# report of what was read, never a crash, and the noise within a time limit.
set -uo pipefail
bi=${P2PS_TOOLS_DIR:?}/bar-inspect
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

expect_error() { # name pattern args...
	local name=$1 pattern=$2
	shift 2
	"$bi" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, want 2"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: stderr is not one line: $(head -c 300 "$tmp/err")"
	grep -q "^bar-inspect: .*$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern': $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "$name: wrote to stdout"
}

expect_report() { # name file
	"$bi" --paste "$2" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 0 ] || fail "$1: exit $rc: $(head -c 300 "$tmp/err")"
	grep -q '^Verdict from the paste: ' "$tmp/out" || fail "$1: no verdict"
	grep -q '^Paste ' "$tmp/out" || fail "$1: no block list"
}

cat >"$tmp/paste.txt" <<'PASTE'
I get garbage between my two cards:

```
$ sudo lspci -vvv -s 01:00.0
01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)
	Region 0: Memory at f2000000 (32-bit, non-prefetchable) [size=16M]
	Region 1: Memory at 7000000000 (64-bit, prefetchable) [size=256M]
	Region 3: Memory at 7010000000 (64-bit, prefetchable) [size=32M]
	Kernel driver in use: nvidia
$ nvidia-smi topo -p2p w
 	GPU0	GPU1
 GPU0	X	CNS
 GPU1	CNS	X
```
PASTE

"$bi" --paste "$tmp/paste.txt" >"$tmp/text" || fail "text report"
grep -q '^	read    2, lines 5-9: lspci (`sudo lspci -vvv -s 01:00.0`)' "$tmp/text" || fail "text: block 2 read with its command"
grep -q '^	skipped 1, lines 1-1: text' "$tmp/text" || fail "text: the prose is listed as skipped"
grep -q '^Verdict from the paste: not ready' "$tmp/text" || fail "text: verdict"
grep -q 'cause    bar1_smaller_than_vram' "$tmp/text" || fail "text: BAR1 cause"
grep -q 'cause    nvidia_p2p_status: nvidia-smi topo -p2p w reports CNS' "$tmp/text" || fail "text: CNS cause"
grep -q '^	cat /proc/cmdline$' "$tmp/text" || fail "text: send next"
# The paste draws no tree: the GPU's path is unknown, not "directly on a root bus".
grep -q '^	Path to host bridge: unknown: the paste shows no bridge above 0000:01:00.0' "$tmp/text" ||
	fail "text: path above the GPU not marked unknown"
"$bi" --paste - <"$tmp/paste.txt" >"$tmp/stdin" || fail "stdin"
sed -e 's#paste [^ ]*#paste X#' -e 's#^Paste [^ ]*:#Paste X:#' "$tmp/text" >"$tmp/a"
sed -e 's#paste [^ ]*#paste X#' -e 's#^Paste [^ ]*:#Paste X:#' "$tmp/stdin" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "--paste - differs from --paste FILE"
"$bi" --paste "$tmp/paste.txt" --json >"$tmp/json" || fail "--json"
python3 - "$tmp/json" <<'PY' || fail "json: paste member"
import json, sys
d = json.load(open(sys.argv[1]))
paste = d["paste"]
assert d["host"]["backend"] == "paste"
assert paste["verdict"] == "not ready"
assert [b["kind"] for b in paste["blocks"]] == ["text", "lspci", "nvidia-smi topo -p2p"]
assert paste["blocks"][1]["read"] and not paste["blocks"][0]["read"]
assert paste["facts"]["0000:01:00.0"]["bars"]["line"] == 6
gpu = next(x for x in d["devices"] if x["bdf"] == "0000:01:00.0")
assert gpu["root_bus"] is None, gpu["root_bus"]  # the paste shows no tree above it
assert {c["code"] for c in paste["causes"]} >= {"bar1_smaller_than_vram", "nvidia_p2p_status"}
assert any(a["command"] == "sudo lspci -vvv" for a in paste["send_next"])
PY
"$bi" --paste "$tmp/paste.txt" --dot >"$tmp/dot" || fail "--dot"
grep -q '^  "paste" \[shape=note' "$tmp/dot" || fail "dot: paste note"
! grep -q 'pci0000:01' "$tmp/dot" || fail "dot: a host bridge the paste does not show"
tail -n 1 "$tmp/dot" | grep -q '^}$' || fail "dot: closed graph"
if command -v dot >/dev/null; then
	dot -Tsvg "$tmp/dot" >/dev/null 2>&1 || fail "dot: Graphviz rejects the graph"
fi

expect_error "paste and root" "mutually exclusive" --paste "$tmp/paste.txt" --root "$tmp"
expect_error "missing paste" "No such file" --paste "$tmp/none.txt"
expect_error "directory" "Is a directory" --paste "$tmp"
head -c 4096 /dev/urandom >"$tmp/bin"
printf '\0' >>"$tmp/bin"
expect_error "binary" "binary data, not text" --paste "$tmp/bin"

# Cut blocks: the paste stops mid-line, inside a device and inside a matrix.
head -c 200 "$tmp/paste.txt" >"$tmp/cut.txt"
expect_report "cut mid-block" "$tmp/cut.txt"
printf 'nvidia-smi topo -m\n\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNV4\tPIX\nGPU1\tNV4\nGPU7\tX\tX\tX\tX\n' >"$tmp/ragged.txt"
expect_report "mismatched matrix" "$tmp/ragged.txt"
grep -q 'matrix has rows whose cells do not match its header' "$tmp/out" || fail "ragged matrix not reported"

# 100 MB of noise: a report (nothing recognised) in bounded time.
head -c 75000000 /dev/urandom | base64 -w 100 >"$tmp/noise.txt"
start=$(date +%s)
expect_report "100 MB of noise" "$tmp/noise.txt"
secs=$(($(date +%s) - start))
grep -q 'no NVIDIA GPU in the paste' "$tmp/out" || fail "noise: verdict"
[ "$secs" -le ${P2PS_PASTE_NOISE_SECONDS:-60} ] || fail "noise took $secs s"
echo "100 MB of noise: $secs s"

# Thousands of distinct GPU device lines: the first 64 GPUs are used, the rest counted, and
# reading stays fast (no pass over all pairs of thousands of devices).
awk 'BEGIN { srand(2); for (i = 0; i < 60000; i++)
	printf "%02x:%02x.%x VGA compatible controller: NVIDIA Corporation Device %04x\n", int(rand() * 256), int(rand() * 32), int(rand() * 8), int(rand() * 65536) }' >"$tmp/gpus.txt"
start=$(date +%s)
expect_report "many devices" "$tmp/gpus.txt"
secs=$(($(date +%s) - start))
grep -q 'more than 64 NVIDIA GPUs: [0-9]* more not used' "$tmp/out" || fail "many devices: cap not reported"
[ "$secs" -le ${P2PS_PASTE_NOISE_SECONDS:-60} ] || fail "many devices took $secs s"

# The documented example (docs/bar-inspect.md) is what the tool prints.
src=${P2PS_SOURCE_DIR:?}
(cd "$src" && "$bi" --paste tests/fixtures/h200x2-paste/paste.txt) | sed -n '/^Paste /,$p' >"$tmp/example"
awk '/^and the part of `bar-inspect --paste` that follows/ { on = 1; next } on && /^```$/ { n++; if (n == 2) exit; next }
     on && n == 1 { print }' "$src/docs/bar-inspect.md" >"$tmp/doc-bi"
cmp -s "$tmp/example" "$tmp/doc-bi" || fail "docs/bar-inspect.md example differs from the output"

[ "$fails" -eq 0 ] && echo "cli_paste: all checks passed"
exit "$fails"
