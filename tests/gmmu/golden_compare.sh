#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libgmmu's tables against every dev_mmu.h of NVIDIA's 595.45.04 tree, through the facts in
# golden/dev_mmu-595.45.04.txt: scripts/gmmu-golden.py compare must find 0 differences, and
# its report must be the committed golden/compare-595.45.04.txt (so the record of which
# header was compared with which format, and how many facts agree, stays current).
set -u
SRC=${P2PS_SOURCE_DIR:?}
python3 "$SRC/scripts/gmmu-golden.py" compare "$SRC/tests/gmmu/golden/dev_mmu-595.45.04.txt" \
	--pte-decode "${P2PS_TOOLS_DIR:?}/pte-decode" >"${TMPDIR:-/tmp}/gmmu-golden.$$" 2>&1
rc=$?
cat "${TMPDIR:-/tmp}/gmmu-golden.$$"
if ! diff -u "$SRC/tests/gmmu/golden/compare-595.45.04.txt" "${TMPDIR:-/tmp}/gmmu-golden.$$"; then
	echo "golden_compare: the report differs from tests/gmmu/golden/compare-595.45.04.txt;" \
		"regenerate it with scripts/gmmu-golden.py compare ... > that file"
	rc=1
fi
rm -f "${TMPDIR:-/tmp}/gmmu-golden.$$"
exit $rc
