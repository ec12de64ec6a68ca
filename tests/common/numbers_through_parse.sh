#!/bin/sh
# SPDX-License-Identifier: MIT
# Every number p2pscope reads goes through src/common/parse.c (include/p2pscope/parse.h):
# no strtol/strtoul/strtoull/strtod/strtof, sscanf or atoi/atol anywhere else in src/,
# tools/, bench/ or fuzz/. Left out: the RM client and pte-probe (src/rm, tools/pte-probe),
# and the two bench programs that also build with a bare cc, without the project
# (bench/gen-ad102-dump.c, bench/spawn-time.c).
top=${P2PS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
hits=$(grep -rnE '\b(strto(u?ll?|d|f|ld|imax|umax)|sscanf|atoi|atol|atoll|atof)[[:space:]]*\(' \
	--include='*.c' --include='*.h' src tools bench fuzz |
	grep -vE '^(src/rm/|tools/pte-probe/|(src/common/parse|bench/gen-ad102-dump|bench/spawn-time)\.c:)')
if [ -n "$hits" ]; then
	echo "numbers read outside src/common/parse.c (use parse.h: p2ps_parse_* or p2ps_scan_*):"
	echo "$hits"
	exit 1
fi
echo "numbers_through_parse: no number parsed outside src/common/parse.c"
