#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Decode throughput of libgmmu's fast views (bench/libgmmu-views.c): GB/s of entries
# decoded per format, beside the field-by-field gmmu_entry_decode() rate.
#
# usage: bench/libgmmu-views.sh [MiB of PTEs, default 256]
#
# Environment: BUILD_DIR: an existing, configured build to use as it is (the bench target
# is built there). Without it the script configures its own Release build in build-bench/.
# JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${BUILD_DIR:-}" ]; then
	dir=$BUILD_DIR
else
	dir=build-bench
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$dir" -j "${JOBS:-2}" --target libgmmu-views >/dev/null
"$dir/bench/libgmmu-views" "${1:-256}"
