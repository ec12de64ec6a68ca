#!/usr/bin/env bash
# cppcheck over the C sources, using the normal build's compile database, plus
# the rule that library code never prints or exits (only main() decides).
set -euo pipefail
cd "$(dirname "$0")/../.."
cppcheck --quiet --error-exitcode=1 --inline-suppr \
	--enable=warning,performance,portability \
	--suppress=missingIncludeSystem --suppress=unmatchedSuppression \
	--project="$BUILD_DIR/compile_commands.json" \
	-i"$BUILD_DIR" -i"$ASAN_BUILD_DIR" --suppress='*:*/_deps/*'
echo "cppcheck: clean"
# Library sources must not print to the terminal or end the process.
# shellcheck disable=SC2046
if grep -nE '\b(printf|fprintf|perror|puts|exit|abort)\s*\(' $(find src -name '*.c') |
	grep -v 'snprintf\|vsnprintf'; then
	echo "static-analysis: library code above prints or exits" >&2
	exit 1
fi
echo "library purity: clean"
