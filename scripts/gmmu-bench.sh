#!/usr/bin/env bash
# Decode throughput of libgmmu's fast views (tests/gmmu/bench_gmmu_view.c) in an optimized
# build. usage: scripts/gmmu-bench.sh [MiB of PTEs, default 256]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD_DIR:-build-bench}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=ON >/dev/null
cmake --build "$dir" -j "${JOBS:-2}" --target bench_gmmu_view >/dev/null
"$dir/tests/gmmu/bench_gmmu_view" "${1:-256}"
