#!/bin/sh
# SPDX-License-Identifier: MIT
# need-shared.sh REL... -- COMMAND ARGS...
# Runs COMMAND when every REL exists under the shared reference folder; otherwise names
# the missing ones and exits 77 (skipped; 1 under CI=true) without running it.
# cmake/P2psTesting.cmake wraps tests registered with NEEDS_SHARED in it.
# shellcheck source=tests/support/p2ps_test.sh
. "$(dirname "$0")/p2ps_test.sh"
missing=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	p2ps_need_shared "$1" || missing=1
	shift
done
[ "${1:-}" = "--" ] || { echo "usage: need-shared.sh REL... -- COMMAND ARGS..." >&2; exit 2; }
shift
[ "$missing" -eq 0 ] || p2ps_test_exit 0
exec "$@"
