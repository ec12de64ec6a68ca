# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# What the steps of scripts/test.d/ share; a step sets `step` (its name) and sources this
# file. A check that cannot run here is counted, never passed over: scripts/test.sh counts
# a step that exits 77 as skipped and lists it; under CI=true, where everything must run,
# the same check is a failure.
#   in_ci              true under CI=true (or 1, yes)
#   step_skip WHY      "SKIPPED: WHY" and the step goes on (it will exit 77); under CI=true
#                      "FAIL: WHY" and the step will exit 1
#   skip WHY           the step cannot go on here: step_skip WHY, then exit
#   fail WHY           "FAIL: WHY" and exit 1
#   bad WHY            "FAIL: WHY", and the step goes on; step_end exits 1
#   phase WHAT         "WHAT (N s)": the time since the last phase
#   step_exit [STATUS] exits 1 when STATUS is not 0, something was bad or a skip failed
#                      under CI; 77 when a check was skipped; else 0
#   step_end           "ok (N s in all)" when nothing was bad or skipped; then step_exit
# (tests/release/steps_test.sh checks them, and that no step prints SKIPPED another way.)
: "${step:?scripts/lib/step.sh: set step before sourcing it}"
status=0
step_skipped=0
step_ci_failed=0
phase_start=$SECONDS
in_ci() {
	case ${CI:-} in [Tt][Rr][Uu][Ee] | 1 | [Yy][Ee][Ss]) return 0 ;; esac
	return 1
}
step_skip() {
	if in_ci; then
		echo "$step: FAIL: $1 (CI=true: this must run)"
		step_ci_failed=1
	else
		echo "$step: SKIPPED: $1 (it fails under CI=true)"
		step_skipped=$((step_skipped + 1))
	fi
}
step_exit() {
	if [ "${1:-0}" -ne 0 ] || [ "$status" -ne 0 ] || [ "$step_ci_failed" -ne 0 ]; then
		exit 1
	fi
	[ "$step_skipped" -eq 0 ] || exit 77
	exit 0
}
skip() {
	step_skip "$1"
	step_exit 0
}
fail() {
	echo "$step: FAIL: $*"
	exit 1
}
bad() {
	echo "$step: FAIL: $*"
	status=1
}
phase() {
	echo "$step: $1 ($((SECONDS - phase_start)) s)"
	phase_start=$SECONDS
}
step_end() {
	[ "$status" -eq 0 ] && [ "$step_skipped" -eq 0 ] && echo "$step: ok ($SECONDS s in all)"
	step_exit 0
}
