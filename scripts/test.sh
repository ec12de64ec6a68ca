#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The project's test command.
#
#   scripts/test.sh          the fast suite a user runs (minutes on two cores): both ctest
#                            builds and the quick steps (format, generated docs)
#   scripts/test.sh --full   everything, as CI runs it (.ci/run): also every build type
#                            with GCC and clang, static analysis, the bench smoke runs,
#                            fuzzing and the guest-kernel tests under QEMU
#
# 1. As root, installs the Debian packages in scripts/deps.txt and scripts/deps.d/ that are
#    missing (without --full, not those of lists marked "# test.sh: full").
# 2. Builds and runs the whole ctest suite twice: a normal build (build/) and an
#    ASan+UBSan build (build-asan/).
# 3. Runs the scripts/test.d/*.sh steps in name order: without --full only those marked
#    with a line "# test.sh: quick"; each gets BUILD_DIR and ASAN_BUILD_DIR.
# 4. Ends with a summary: the steps that failed or were left to --full, and every ctest
#    test that was skipped or failed with the file it found missing
#    (scripts/ctest-summary.py).
#
# Tests that need the shared reference folder (P2PS_SHARED_DIR, default ../shared beside
# the checkout; CONTRIBUTING.md) are skipped without it, and fail under CI=true.
#
# Environment: JOBS (parallel build jobs), P2PS_SKIP_STEPS (space-separated
# test.d step names to skip, e.g. "50-vm-guest"), P2PS_ONLY_STEPS (run only these, quick
# or not),
# P2PS_SHARED_DIR, CI.
set -uo pipefail
full=0
case ${1:-} in
--full) full=1 ;;
"") ;;
-h | --help)
	sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "test.sh: unknown argument '$1' (--full or nothing)" >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
jobs=${JOBS:-$(nproc)}
shared=$(realpath -m "${P2PS_SHARED_DIR:-$top/../shared}")

# The package lists: scripts/deps.txt and scripts/deps.d/*.txt; a list whose packages only
# --full's steps use says so in a line "# test.sh: full" and is left out of the fast suite.
dep_lists() {
	local f
	for f in scripts/deps.txt scripts/deps.d/*.txt; do
		[ -e "$f" ] || continue
		if [ "$full" -eq 0 ] && [ -z "${P2PS_ONLY_STEPS:-}" ] && grep -q '^# test.sh: full$' "$f"; then
			continue
		fi
		cat "$f"
	done
}

install_deps() {
	local missing=()
	local pkg
	while read -r pkg; do
		pkg=${pkg%%#*}
		pkg=${pkg//[[:space:]]/}
		[ -n "$pkg" ] || continue
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
	done < <(dep_lists)
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "test.sh: missing Debian packages (run as root to install): ${missing[*]}" >&2
		return 1
	fi
	# A package named with its architecture (libjson-c-dev:arm64, for a cross build)
	# needs that architecture in dpkg before apt-get update fetches its lists.
	local arch
	for arch in $(printf '%s\n' "${missing[@]}" | sed -n 's/^[^:]*:\([a-z0-9]*\)$/\1/p' | sort -u); do
		[ "$arch" = "$(dpkg --print-architecture)" ] && continue
		dpkg --print-foreign-architectures | grep -qx "$arch" && continue
		echo "test.sh: dpkg --add-architecture $arch"
		dpkg --add-architecture "$arch" || return 1
	done
	echo "test.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

passed=0
failed=0
skipped=0
failed_names=()
skipped_names=()
record() { # name status (77: the step could not run here, and said why)
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
	elif [ "$2" -eq 77 ]; then
		skipped=$((skipped + 1))
		skipped_names+=("$1")
	else
		failed=$((failed + 1))
		failed_names+=("$1")
	fi
}

junits=()
build_and_test() { # dir extra-cmake-args...
	local dir=$1
	shift
	echo "=== build $dir $*"
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DP2PS_SHARED_DIR="$shared" "$@" \
		>"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
	cmake --build "$dir" -j "$jobs" || return 1
	echo "=== ctest $dir"
	rm -f "$top/$dir/ctest-junit.xml"
	junits+=("$dir")
	(cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 600 \
		--output-junit "$top/$dir/ctest-junit.xml")
}

# A step runs in the fast suite when its file says so ("# test.sh: quick").
quick_step() { # file
	grep -q '^# test.sh: quick$' "$1"
}

want_step() { # name
	local n=$1
	if [ -n "${P2PS_ONLY_STEPS:-}" ]; then
		[[ " $P2PS_ONLY_STEPS " == *" $n "* ]]
		return
	fi
	[[ " ${P2PS_SKIP_STEPS:-} " != *" $n "* ]]
}

install_deps || exit 1
mkdir -p build build-asan
if [ ! -d "$shared/fixtures" ]; then
	case ${CI:-} in
	[Tt][Rr][Uu][Ee] | 1 | [Yy][Ee][Ss]) what="fail (CI=true)" ;;
	*) what="are skipped (they fail under CI=true)" ;;
	esac
	echo "test.sh: no shared test data at $shared/fixtures: the tests that need it $what;" \
		"README, Development says where it comes from"
fi

if want_step build; then
	build_and_test build
	record "build+ctest" $?
fi
if want_step asan; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		build_and_test build-asan -DP2PS_SANITIZE=ON
	record "asan-build+ctest" $?
fi

export BUILD_DIR=$top/build ASAN_BUILD_DIR=$top/build-asan JOBS=$jobs
left_to_full=()
for step in scripts/test.d/*.sh; do
	[ -e "$step" ] || continue
	name=$(basename "$step" .sh)
	want_step "$name" || continue
	# P2PS_ONLY_STEPS naming a step runs it whatever its kind
	if [ "$full" -eq 0 ] && [ -z "${P2PS_ONLY_STEPS:-}" ] && ! quick_step "$step"; then
		left_to_full+=("$name")
		continue
	fi
	echo "=== step $name"
	start=$(date +%s)
	bash "$step"
	rc=$?
	echo "=== step $name: rc=$rc ($(($(date +%s) - start)) s)"
	record "$name" $rc
done

echo "=== summary"
for dir in "${junits[@]}"; do
	if [ -f "$dir/ctest-junit.xml" ]; then
		python3 scripts/ctest-summary.py "$dir/ctest-junit.xml" "test.sh: ctest in $dir"
	else
		echo "test.sh: ctest in $dir wrote no report"
	fi
done
[ ${#failed_names[@]} -eq 0 ] || echo "test.sh: failed: ${failed_names[*]}"
[ ${#skipped_names[@]} -eq 0 ] || echo "test.sh: skipped (see their SKIPPED lines): ${skipped_names[*]}"
[ ${#left_to_full[@]} -eq 0 ] || echo "test.sh: not run (scripts/test.sh --full runs them): ${left_to_full[*]}"
echo "test.sh: $passed passed, $failed failed${skipped_names:+, $skipped skipped}"
[ "$failed" -eq 0 ]
