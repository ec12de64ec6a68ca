#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The steps of scripts/test.d/ cannot pass a check they skipped: scripts/lib/step.sh
# counts a skip (the step exits 77, which scripts/test.sh lists as skipped) and fails it
# under CI=true; and no step prints SKIPPED but through step_skip (a step that printed it
# and exited 0 would pass under CI).
set -u
top=${P2PS_SOURCE_DIR:?}
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

# run CI-VALUE SCRIPT: the helper in a scratch step; sets rc and out.
run() {
	out=$(cd "$top" && CI=$1 bash -c "step=demo; . scripts/lib/step.sh; $2" 2>&1)
	rc=$?
}
run "" 'step_exit 0'
[ "$rc" -eq 0 ] || bad "nothing skipped: exit $rc"
run "" 'step_skip "a check: no tool"; echo after; step_exit 0'
[ "$rc" -eq 77 ] || bad "a skip: exit $rc, want 77"
[[ $out == "demo: SKIPPED: a check: no tool (it fails under CI=true)"$'\n'after ]] ||
	bad "a skip printed '$out'"
run true 'step_skip "a check: no tool"; step_exit 0'
[ "$rc" -eq 1 ] || bad "a skip under CI=true: exit $rc, want 1"
[[ $out == "demo: FAIL: a check: no tool (CI=true: this must run)" ]] || bad "under CI: '$out'"
run "" 'step_skip "x"; step_exit 1'
[ "$rc" -eq 1 ] || bad "a failure and a skip: exit $rc, want 1"
run "" 'step_exit 3'
[ "$rc" -eq 1 ] || bad "a failed status: exit $rc, want 1"

# No step says SKIPPED on its own (comments aside).
for f in "$top"/scripts/test.d/*.sh; do
	if grep -n 'SKIPPED' "$f" | grep -v '^[0-9]*:[[:space:]]*#' >"${TMPDIR:-/tmp}/steps.$$"; then
		bad "$(basename "$f") prints SKIPPED without step_skip: $(cat "${TMPDIR:-/tmp}/steps.$$")"
	fi
	rm -f "${TMPDIR:-/tmp}/steps.$$"
done
[ "$fail" -eq 0 ] && echo "steps: skips counted (77), failed under CI=true; no step skips another way"
exit $fail
