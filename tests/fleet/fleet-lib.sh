# SPDX-License-Identifier: MIT
# Shared by the fleet tests (sourced): where things are, the planted fleet, and the rule
# for a missing engine: SKIPPED (exit 77) on a developer machine, a failure under CI=true.
top=${P2PS_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bi=${P2PS_BAR_INSPECT:-${P2PS_TOOLS_DIR:-$top/build/tools}/bar-inspect}
here=$top/tests/fleet
# shellcheck source=tests/support/p2ps_test.sh
. "$top/tests/support/p2ps_test.sh" # p2ps_in_ci: the project's one reading of CI

# unavailable WHAT: the test cannot run here.
unavailable() {
	if p2ps_in_ci; then
		echo "FAIL: $1 (CI must run this test; scripts/deps.d/fleet.txt lists its packages)" >&2
		exit 1
	fi
	echo "SKIPPED: $1" >&2
	exit 77
}

# plant DIR SPEC...: snapshot folders of made-up hosts (make-fleet-snapshots.py).
plant() {
	local dir=$1
	shift
	python3 "$here/make-fleet-snapshots.py" "$top/tests/fixtures" "$dir" "$@"
}

# tree_sum DIR: one checksum of every file, link and mode under DIR (read-only checks).
tree_sum() {
	(cd "$1" && find . -printf '%p %m %l\n' | LC_ALL=C sort && find . -type f -print0 |
		LC_ALL=C sort -z | xargs -0 cat) | sha256sum
}
