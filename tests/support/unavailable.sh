#!/bin/sh
# SPDX-License-Identifier: MIT
# unavailable.sh WHAT WHY: stands in for a test whose tool was not built or not found
# when configuring (cmake/P2psTesting.cmake, UNAVAILABLE): the test is registered all the
# same and reports SKIPPED with WHAT and WHY (exit 77), or fails under CI=true, where
# every tool must be there.
# shellcheck source=tests/support/p2ps_test.sh
. "$(dirname "$0")/p2ps_test.sh"
p2ps_missing "$1" "$2"
p2ps_test_exit 0
