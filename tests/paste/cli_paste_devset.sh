#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --paste on the two sets of public bug-report pastes: the dev set
# (tests/fixtures/pastes) and the held-back validation set (tests/fixtures/pastes-validation).
# scripts/paste-score.py checks every case's assertions against the JSON report and prints one
# line per case and both scores. Report-only for now: no score threshold. The test fails on a
# malformed source.md, a paste the tool gives no JSON report for, or a set below its size.
set -uo pipefail
bi=${P2PS_TOOLS_DIR:?}/bar-inspect
src=${P2PS_SOURCE_DIR:?}
out=$(python3 "$src/scripts/paste-score.py" --tool "$bi" --root "$src" -v)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
	echo "FAIL: paste-score.py exited $rc (a malformed case or a paste without a report)" >&2
	exit 1
fi
cases() { printf '%s\n' "$out" | sed -n "s/^$1: [0-9]*\/\([0-9]*\) cases pass.*/\1/p"; }
dev=$(cases dev) val=$(cases validation)
if [ "${dev:-0}" -lt 80 ] || [ "${val:-0}" -lt 20 ]; then
	echo "FAIL: $dev dev cases (80 at least), $val validation cases (20 at least)" >&2
	exit 1
fi
