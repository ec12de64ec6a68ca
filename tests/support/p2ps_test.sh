# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Helpers for test scripts (POSIX sh), the shell side of tests/support/p2ps_test.h:
#
#   . "$P2PS_SOURCE_DIR/tests/support/p2ps_test.sh"
#   if p2ps_need_shared fixtures/pciutils-tests; then ...checks on those files...; fi
#   p2ps_test_exit "$fails"
#
# A file outside the repository that is missing skips the checks that need it, with a
# "SKIPPED: PATH missing" line, and p2ps_test_exit then exits 77, which ctest reports as
# skipped (cmake/P2psTesting.cmake). Under CI=true a missing file is a failure instead.

p2ps_skipped=0
p2ps_ci_missing=0

# True when the environment says this is a CI run (CI=true, as CI services set it).
p2ps_in_ci() {
	case $(printf '%s' "${CI:-}" | tr '[:upper:]' '[:lower:]') in
	true | 1 | yes) return 0 ;;
	esac
	return 1
}

# p2ps_shared_path REL: REL under the shared reference folder (P2PS_SHARED_DIR from
# ctest; ../shared beside the checkout otherwise).
p2ps_shared_path() {
	printf '%s/%s\n' "${P2PS_SHARED_DIR:-${P2PS_SOURCE_DIR:-.}/../shared}" "$1"
}

# p2ps_missing WHAT WHY: reports WHAT missing and counts a skip (a failure under CI=true);
# returns false, so that `p2ps_need ... && checks` reads naturally.
p2ps_missing() {
	if p2ps_in_ci; then
		echo "FAIL: $1 missing ($2; CI=true: it must be present)"
		p2ps_ci_missing=$((p2ps_ci_missing + 1))
	else
		echo "SKIPPED: $1 missing ($2)"
		p2ps_skipped=$((p2ps_skipped + 1))
	fi
	return 1
}

# p2ps_need PATH WHY: true when PATH exists, p2ps_missing otherwise.
p2ps_need() {
	[ -e "$1" ] || p2ps_missing "$1" "$2"
}

# p2ps_need_cmd COMMAND PACKAGE: true when COMMAND is on PATH, p2ps_missing otherwise
# (test.sh installs PACKAGE from scripts/deps.txt or scripts/deps.d/).
p2ps_need_cmd() {
	command -v "$1" >/dev/null 2>&1 || p2ps_missing "command $1" "Debian package $2"
}

# p2ps_need_shared REL: p2ps_need for REL under the shared reference folder.
p2ps_need_shared() {
	p2ps_need "$(p2ps_shared_path "$1")" "shared test data, see CONTRIBUTING.md"
}

# p2ps_test_exit FAILS: exits 1 when checks failed or a file was missing under CI, 77
# when checks were skipped, 0 otherwise.
p2ps_test_exit() {
	if [ "${1:-0}" -ne 0 ] || [ "$p2ps_ci_missing" -ne 0 ]; then
		exit 1
	fi
	if [ "$p2ps_skipped" -ne 0 ]; then
		echo "SKIPPED: $p2ps_skipped check(s) could not run, see the SKIPPED lines above"
		exit 77
	fi
	exit 0
}

# p2ps_fail MESSAGE: says FAIL: MESSAGE and counts it in p2ps_fails.
p2ps_fails=0
p2ps_fail() {
	echo "FAIL: $*"
	p2ps_fails=$((p2ps_fails + 1))
}

# p2ps_check NAME WANT GOT: "ok   NAME" when GOT is WANT, a p2ps_fail with both otherwise.
p2ps_check() {
	if [ "$2" != "$3" ]; then
		p2ps_fail "$1"
		echo "  want: $2"
		echo "  got:  $3"
	else
		echo "ok   $1"
	fi
}
