#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/p2p-heatmap.py where python3 cannot import matplotlib (a stand-in package that
# fails to import leads PYTHONPATH): one line that names the missing library and how to
# install it, exit 2, no traceback; --help still works. $1: python3.
py=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir "$tmp/matplotlib"
echo 'raise ImportError("No module named matplotlib (stand-in)")' >"$tmp/matplotlib/__init__.py"
res=$P2PS_SOURCE_DIR/docs/results/p2p-bench/2026-11-22-h200x2/p2p-bench.json
PYTHONPATH=$tmp "$py" "$P2PS_SOURCE_DIR/bench/p2p-heatmap.py" "$res" "$tmp/out.png" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: exit $rc, want 2"; fail=1; }
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^p2p-heatmap: needs matplotlib.*apt install python3-matplotlib' "$tmp/err" ||
	{ echo "FAIL: message: $(cat "$tmp/err")"; fail=1; }
! grep -q Traceback "$tmp/err" || { echo "FAIL: a traceback"; fail=1; }
[ ! -e "$tmp/out.png" ] || { echo "FAIL: wrote a picture"; fail=1; }
PYTHONPATH=$tmp "$py" "$P2PS_SOURCE_DIR/bench/p2p-heatmap.py" --help >"$tmp/help" 2>&1 &&
	grep -q '^usage: p2p-heatmap' "$tmp/help" || { echo "FAIL: --help: $(cat "$tmp/help")"; fail=1; }
[ "$fail" -eq 0 ] && echo "p2p-heatmap without matplotlib: one line, exit 2"
exit $fail
