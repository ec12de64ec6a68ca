#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cppcheck and clang-tidy (.clang-tidy says which checks and why) over the C
# sources, using the normal build's compile database, plus the rule that library
# code never prints or exits (only main() decides).
set -euo pipefail
cd "$(dirname "$0")/../.."
cppcheck --quiet --error-exitcode=1 --inline-suppr \
	--enable=warning,performance,portability \
	--suppress=missingIncludeSystem --suppress=unmatchedSuppression \
	--project="$BUILD_DIR/compile_commands.json" \
	-i"$BUILD_DIR" -i"$ASAN_BUILD_DIR" --suppress='*:*/_deps/*'
echo "cppcheck: clean"
# clang-tidy (checks and the reasons in .clang-tidy, tests/.clang-tidy) over every C file
# of the build: not the CUDA kernels (nvcc flags), not what CMake fetched under the build
# directory. Two jobs: CI has two cores; about 4 minutes there. run-clang-tidy always
# colours its output: the log gets it without.
top_re=$(pwd | sed 's/[][\\.*^$+?(){}|]/\\&/g') # the path as a regex (Python's)
log=$BUILD_DIR/clang-tidy.log
if ! run-clang-tidy -quiet -j 2 -p "$BUILD_DIR" "^$top_re/(?!build)[^/]+/.*\\.c\$" 2>&1 |
	sed 's/\x1b\[[0-9;]*m//g' >"$log"; then
	grep -E -A4 '^/.*(warning|error):' "$log" | head -n 200
	echo "clang-tidy: findings above (all of them: $log)" >&2
	exit 1
fi
echo "clang-tidy: clean"
# Library sources must not print to the terminal or end the process.
# shellcheck disable=SC2046
if grep -nE '\b(printf|fprintf|perror|puts|exit|abort)\s*\(' $(find src -name '*.c') |
	grep -v 'snprintf\|vsnprintf'; then
	echo "static-analysis: library code above prints or exits" >&2
	exit 1
fi
echo "library purity: clean"
