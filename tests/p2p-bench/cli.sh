#!/bin/sh
# SPDX-License-Identifier: MIT
# p2p-bench command line: errors are one line and exit 2; without a GPU the
# measurement says so and exits 2; the report subcommand joins saved JSON.
# $1: the p2p-bench binary.
bench=$1
fx=$P2PS_SOURCE_DIR/tests/fixtures/p2p-bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() { echo "FAIL: $*"; fail=1; }

# expect_usage_error ARGS...: exit 2, nothing on stdout, exactly one stderr line.
expect_usage_error() {
	"$bench" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || bad "p2p-bench $*: exit $rc, want 2"
	[ ! -s "$tmp/out" ] || bad "p2p-bench $*: printed to stdout"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "p2p-bench $*: stderr not one line: $(cat "$tmp/err")"
	grep -q '^p2p-bench: ' "$tmp/err" || bad "p2p-bench $*: message not prefixed: $(cat "$tmp/err")"
}

expect_usage_error --size 17
expect_usage_error --size 0
expect_usage_error --size 1T
expect_usage_error --reps 0
expect_usage_error --trials 65
expect_usage_error --devices 0,0
expect_usage_error --devices a
expect_usage_error --sm-kernel fastest
expect_usage_error --host /nonexistent/bar.json
expect_usage_error stray-argument
expect_usage_error report --bench "$fx/h200x2-bench.json"
expect_usage_error report --bench /nonexistent.json --host "$fx/h200x2-bar-inspect.json"
printf '{"devices": [' >"$tmp/broken.json"
expect_usage_error report --bench "$tmp/broken.json" --host "$fx/h200x2-bar-inspect.json"
# the file, what is wrong in words and what was expected; never json-c's internals
grep -q "^p2p-bench: --bench $tmp/broken.json: not valid JSON: it ends at line 1 before the document is complete (an object, list or string is not closed); the output of p2p-bench --json was expected\$" "$tmp/err" ||
	bad "broken --bench: $(cat "$tmp/err")"
printf '{"a": 1 "b": 2}' >"$tmp/comma.json"
expect_usage_error report --bench "$fx/h200x2-bench.json" --host "$tmp/comma.json"
grep -q "^p2p-bench: --host $tmp/comma.json: not valid JSON at line 1, column 9: expected a ',' or '}' between an object's members; the output of bar-inspect --json was expected\$" "$tmp/err" ||
	bad "broken --host: $(cat "$tmp/err")"
expect_usage_error report --bench /dev/zero --host "$fx/h200x2-bar-inspect.json"
grep -q "^p2p-bench: --bench /dev/zero: larger than 64 MiB; " "$tmp/err" || bad "/dev/zero: $(cat "$tmp/err")"
expect_usage_error report --bench "$tmp" --host "$fx/h200x2-bar-inspect.json"
grep -q "a folder, not a JSON file" "$tmp/err" || bad "a folder: $(cat "$tmp/err")"
if grep -Eq 'continue|json_tokener|json_object_from_file' "$tmp/err"; then
	bad "the JSON library's internals: $(cat "$tmp/err")"
fi
echo '{"something": "else"}' >"$tmp/other.json"
expect_usage_error report --bench "$tmp/other.json" --host "$fx/h200x2-bar-inspect.json"
grep -q "^p2p-bench: report --bench $tmp/other.json --host $fx/h200x2-bar-inspect.json: bench report lacks devices" "$tmp/err" ||
	bad "not a bench report: $(cat "$tmp/err")"

"$bench" --help >"$tmp/out" 2>&1 || bad "--help failed"
grep -q '^usage: p2p-bench' "$tmp/out" || bad "--help prints no usage"

# The measurement needs a GPU: on a host without one it must say so in one line.
if [ -e /dev/nvidiactl ]; then
	echo "note: this host has an NVIDIA device node, the no-GPU check does not apply"
else
	expect_usage_error
	grep -q 'no CUDA GPU found' "$tmp/err" || bad "no-GPU message: $(cat "$tmp/err")"
	expect_usage_error --no-latency --size 1M
fi

# report: the real H200 measurement against the host facts.
"$bench" report --bench "$fx/h200x2-bench.json" --host "$fx/h200x2-bar-inspect.json" >"$tmp/out" 2>"$tmp/err" ||
	bad "report failed: $(cat "$tmp/err")"
grep -q '^0000:00:06.0 -> 0000:00:07.0 *NV18 *478.1 ' "$tmp/out" || bad "report text: $(cat "$tmp/out")"
"$bench" report --json --bench "$fx/h200x2-bench.json" --host "$fx/h200x2-bar-inspect.json" >"$tmp/out" ||
	bad "report --json failed"
grep -q '"theoretical_gbps": *478.116' "$tmp/out" || bad "report json: $(head -c 600 "$tmp/out")"
[ "$(grep -c '"src":' "$tmp/out")" -eq 2 ] || bad "report json: want 2 directed pairs"

# The same join with host facts bar-inspect derives live from the snapshot
# captured on that machine (bar-inspect is always built beside p2p-bench, the
# snapshot is committed: a missing one fails).
bi=$(dirname "$bench")/bar-inspect
snap=$P2PS_SOURCE_DIR/tests/fixtures/h200x2
if [ -x "$bi" ] && [ -d "$snap/sys" ]; then
	"$bi" --root "$snap" --json >"$tmp/host.json" 2>"$tmp/err" || bad "bar-inspect --root $snap: $(cat "$tmp/err")"
	"$bench" report --bench "$fx/h200x2-bench.json" --host "$tmp/host.json" >"$tmp/out" 2>"$tmp/err" ||
		bad "report on the live bar-inspect output failed: $(cat "$tmp/err")"
	grep -q '^0000:00:07.0 -> 0000:00:06.0 *NV18 *478.1 ' "$tmp/out" ||
		bad "report on the live bar-inspect output: $(cat "$tmp/out")"
else
	bad "bar-inspect ($bi) or the committed snapshot $snap missing"
fi

[ $fail -eq 0 ] && echo "p2p-bench cli: ok"
exit $fail
