#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The committed tests/fixtures/h200x2-raw-snap must be exactly what the converter makes
# from ../shared/fixtures/h200x2-raw (so nobody edits the fixture by hand). ctest runs it
# through tests/support/need-shared.sh, which reports the folder when it is missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
raw="${P2PS_SHARED_DIR:-$top/../shared}/fixtures/h200x2-raw"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$top/tests/host/convert-raw-capture.sh" "$raw" "$tmp/snap" >/dev/null
diff -r --no-dereference "$tmp/snap" "$top/tests/fixtures/h200x2-raw-snap"
echo "h200x2-raw-snap matches its converter output"
