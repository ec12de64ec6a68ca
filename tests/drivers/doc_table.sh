#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/bar-inspect.md's table of driver series and flavors is what the driver table holds:
# the block between "<!-- driver-table: begin -->" and "<!-- driver-table: end -->" must be
# what `test_nvidia_drivers --markdown` prints from src/gmmu/nvidia_drivers.c.
#
#   tests/drivers/doc_table.sh [--update]    (--update rewrites the block)
set -u
src=${P2PS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${P2PS_BINARY_DIR:-$src/build}/tests/drivers/test_nvidia_drivers
doc=$src/docs/bar-inspect.md
[ -x "$bin" ] || { echo "doc_table: $bin is not built" >&2; exit 1; }
begin='<!-- driver-table: begin -->'
end='<!-- driver-table: end -->'
if [ "$(grep -c -- "$begin" "$doc")" -ne 1 ] || [ "$(grep -c -- "$end" "$doc")" -ne 1 ]; then
	echo "doc_table: $doc has no single $begin ... $end block" >&2
	exit 1
fi
table=$("$bin" --markdown) || { echo "doc_table: $bin --markdown failed" >&2; exit 1; }
block=$(sed -n "/$begin/,/$end/p" "$doc" | sed '1d;$d')
if [ "${1:-}" = --update ]; then
	TABLE=$table python3 - "$doc" "$begin" "$end" <<'PY'
import os, sys
doc, b, e = sys.argv[1:4]
text = open(doc).read()
i, j = text.index(b) + len(b), text.index(e)
open(doc, "w").write(text[:i] + "\n" + os.environ["TABLE"] + "\n" + text[j:])
PY
	echo "doc_table: $doc updated"
	exit 0
fi
if [ "$block" != "$table" ]; then
	diff <(echo "$block") <(echo "$table")
	echo "doc_table: docs/bar-inspect.md's driver table is stale: tests/drivers/doc_table.sh --update" >&2
	exit 1
fi
echo "doc_table: docs/bar-inspect.md's driver table matches the driver table ($(echo "$table" | grep -c '^| [0-9]') rows)"
