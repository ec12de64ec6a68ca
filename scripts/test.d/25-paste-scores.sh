#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh: quick
# Prints bar-inspect --paste's scores on the dev and validation sets of public bug-report
# pastes (scripts/paste-score.py; report-only: no threshold yet). Fails only when a case is
# malformed or the tool gives no JSON report for a paste.
set -uo pipefail
cd "$(dirname "$0")/../.."
tool=${BUILD_DIR:-build}/tools/bar-inspect
if [ ! -x "$tool" ]; then
	echo "paste-scores: $tool not built" >&2
	exit 1
fi
python3 scripts/paste-score.py --tool "$tool" | grep -E '^(ERROR|dev:|validation:)'
exit "${PIPESTATUS[0]}"
