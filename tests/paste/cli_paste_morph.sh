#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --paste judges a paste the same after the damage real threads do to it:
# scripts/paste-morph.py applies each meaning-preserving transformation (quotes, indented and
# fenced code blocks, CRLF, trailing blanks, double spacing, collapsed blanks, no-break
# spaces, HTML entities, <details> blocks, log prefixes, noise around it, eaten '#') to every
# case of the dev set (tests/fixtures/pastes) and compares verdict, causes, blockers and
# warnings, the first ask, GPUs, pairs and working pairs with the original's. Any difference
# in a transformation not listed as known-lossy fails the test; known-lossy ones are printed.
# An argument N runs every Nth case only (CMake passes one under the sanitizers, to keep it short).
# Skipped (77) without the dev set or the tool; failed then under CI=true.
set -uo pipefail
src=${P2PS_SOURCE_DIR:?}
. "$src/tests/support/p2ps_test.sh"
args=(--tool "${P2PS_TOOLS_DIR:?}/bar-inspect" --root "$src" --check)
[ -n "${1:-}" ] && args+=(--cases "$1")
python3 "$src/scripts/paste-morph.py" "${args[@]}"
rc=$?
if [ "$rc" -eq 77 ]; then
	p2ps_missing "the dev set or bar-inspect" "paste-morph.py has nothing to run"
	p2ps_test_exit 0
fi
[ "$rc" -eq 0 ] || echo "FAIL: a transformation changed a judgement (lines above)" >&2
exit "$rc"
