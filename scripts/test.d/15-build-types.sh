#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The build types users build, besides the suite's own builds: everything (libraries,
# tools, tests, benches) must compile warning-free under -Werror with GCC and clang in
# Debug, Release, RelWithDebInfo and MinSizeRel. Each type sees different code: only
# Debug compiles without NDEBUG, and the optimisation level changes what the flow
# warnings (-Wformat-truncation, -Wmaybe-uninitialized) can prove: a Release fix still
# failed at -Os. Build only, no tests; about 3 minutes on two cores.
#
# Environment: P2PS_BUILD_MATRIX, space-separated COMPILER:TYPE pairs, or "all" (default:
# all eight but GCC RelWithDebInfo, which the suite's build/ already is), JOBS.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=15-build-types
matrix=${P2PS_BUILD_MATRIX:-}
if [ -z "$matrix" ] || [ "$matrix" = all ]; then
	want=$matrix
	matrix=
	for cc in gcc clang; do
		for type in Debug Release RelWithDebInfo MinSizeRel; do
			[ "$want$cc:$type" = gcc:RelWithDebInfo ] || matrix+=" $cc:$type"
		done
	done
fi

status=0
for pair in $matrix; do
	cc=${pair%%:*} type=${pair#*:}
	dir=build-types/$cc-$type
	start=$SECONDS
	mkdir -p "$dir"
	if ! CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" >"$dir.configure.log" 2>&1; then
		echo "$step: FAIL: $cc $type: configure"
		tail -n 20 "$dir.configure.log"
		status=1
		continue
	fi
	# Keep going: every warning of this build type at once, not only the first file's.
	keep_going=(-k)
	[ ! -f "$dir/build.ninja" ] || keep_going=(-k 0)
	if cmake --build "$dir" -j "${JOBS:-2}" -- "${keep_going[@]}" >"$dir.build.log" 2>&1; then
		echo "$step: $cc $type: ok ($((SECONDS - start)) s)"
	else
		echo "$step: FAIL: $cc $type:"
		grep -E -A6 'error:|warning:' "$dir.build.log" | head -n 60
		status=1
	fi
done
exit $status
