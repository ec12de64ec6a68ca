#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The driver model's mutation run (scripts/driver-mutation.py): every column of every row
# of the driver table and every predicate on its list changed once, the model's tests run
# on each mutant; fails when fewer than 90% are caught. Builds its own folder,
# build-mutation/ (Release, three test targets); a few minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v python3 >/dev/null || {
	echo "25-driver-mutation: python3 is not installed (scripts/deps.txt)" >&2
	exit 1
}
exec python3 scripts/driver-mutation.py --build build-mutation --jobs "${JOBS:-2}" --min 90
