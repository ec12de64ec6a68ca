# SPDX-License-Identifier: MIT
# What the heavier scripts/test.d steps share; a step sets `step` (its name) and sources
# this file:
#   in_ci        true under CI=true (or 1, yes)
#   skip WHY     the step cannot run here: "SKIPPED: WHY" and exit 77; under CI=true
#                "FAIL: WHY" and exit 1 (CI has everything a step needs)
#   fail WHY     "FAIL: WHY" and exit 1
#   bad WHY      "FAIL: WHY", and the step goes on; step_end exits 1
#   phase WHAT   "WHAT (N s)": the time since the last phase
#   step_end     "ok (N s in all)" when nothing was bad; exits 0 or 1
# shellcheck shell=bash
: "${step:?scripts/lib/step.sh: set step before sourcing it}"
status=0
phase_start=$SECONDS
in_ci() { case ${CI:-} in [Tt][Rr][Uu][Ee] | 1 | [Yy][Ee][Ss]) return 0 ;; esac; return 1; }
skip() {
	if in_ci; then
		echo "$step: FAIL: $1"
		exit 1
	fi
	echo "$step: SKIPPED: $1 (it fails under CI=true)"
	exit 77
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
	[ "$status" -eq 0 ] && echo "$step: ok ($SECONDS s in all)"
	exit "$status"
}
