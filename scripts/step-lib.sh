# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by the steps of scripts/test.d/ (sourced, after setting `step` to the step's
# name): a check that cannot run here is counted, not passed over. scripts/test.sh counts
# a step that exits 77 as skipped and lists it; under CI=true, where everything must run,
# the same check is a failure.
#
#   step_skip WHAT-AND-WHY   prints "STEP: SKIPPED: WHAT-AND-WHY" and counts it, or under
#                            CI=true "STEP: FAIL: WHAT-AND-WHY" and fails the step
#   step_exit [STATUS]       exits: 1 when STATUS is not 0 or a skip failed under CI, 77
#                            when a check was skipped, else 0
# (tests/release/steps_test.sh checks both, and that no step prints SKIPPED another way.)

step_skipped=0
step_ci_failed=0

# True when the environment says this is a CI run (CI=true, as CI services set it).
step_in_ci() {
	case ${CI:-} in [Tt][Rr][Uu][Ee] | 1 | [Yy][Ee][Ss]) return 0 ;; esac
	return 1
}

step_skip() {
	if step_in_ci; then
		echo "${step:?}: FAIL: $1 (CI=true: this must run)"
		step_ci_failed=1
	else
		echo "${step:?}: SKIPPED: $1 (it fails under CI=true)"
		step_skipped=$((step_skipped + 1))
	fi
}

step_exit() {
	if [ "${1:-0}" -ne 0 ] || [ "$step_ci_failed" -ne 0 ]; then
		exit 1
	fi
	[ "$step_skipped" -eq 0 ] || exit 77
	exit 0
}
