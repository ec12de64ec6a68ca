#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds every libFuzzer target (fuzz/*.c) with clang in build-fuzz/ and runs each one
# briefly from its seed corpus (fuzz/corpus/<target>/, copied: the committed seeds stay
# as they are). Fails on any crash, sanitizer report, leak, timeout or memory blow-up;
# the input that caused it is kept in build-fuzz/artifacts/.
#
# Environment: P2PS_FUZZ_SECONDS (per target, default 20: the whole CI stays within an
# hour on two cores), JOBS.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${P2PS_FUZZ_SECONDS:-20}
jobs=${JOBS:-2}
command -v clang >/dev/null || {
	echo "40-fuzz: clang is not installed (scripts/deps.txt)" >&2
	exit 1
}
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DP2PS_FUZZ=ON \
	>build-fuzz.configure.log 2>&1 || {
	cat build-fuzz.configure.log
	exit 1
}
targets=()
for f in fuzz/*.c; do
	targets+=("$(basename "$f" .c)")
done
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p build-fuzz/artifacts
status=0
for t in "${targets[@]}"; do
	corpus=$work/$t
	mkdir -p "$corpus"
	if [ -d "fuzz/corpus/$t" ]; then
		cp -r "fuzz/corpus/$t/." "$corpus/"
	fi
	log=build-fuzz/$t.log
	if build-fuzz/fuzz/"$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=build-fuzz/artifacts/"$t"- "$corpus" >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "40-fuzz: $t: ok, ${execs:-?} executions in ${secs} s"
	else
		echo "40-fuzz: $t: FAILED (log: $log)"
		tail -n 40 "$log"
		status=1
	fi
done
exit "$status"
