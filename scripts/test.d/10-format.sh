#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh: quick
# Every C/CUDA source is clang-formatted (.clang-format at the top).
set -euo pipefail
cd "$(dirname "$0")/../.."
files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null || find src include tools tests fuzz -name '*.[ch]' -o -name '*.cu')
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
clang-format --dry-run --Werror $files
echo "format: $(echo "$files" | wc -l) files clean"
