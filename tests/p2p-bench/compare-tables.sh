#!/bin/sh
# SPDX-License-Identifier: MIT
# The comparison tables in docs/results/p2p-bench/*/ are what
# bench/p2p-compare.py makes from the raw outputs committed beside them
# (cuda-samples' text and p2p-bench's JSON of the same device run), so nobody
# edits them by hand and the parser keeps reading the sample's format.
top=$P2PS_SOURCE_DIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
checked=0
for d in "$top"/docs/results/p2p-bench/*/; do
	if [ ! -f "$d/compare.md" ] || [ ! -d "$d/cuda-samples" ]; then
		continue
	fi
	sm=$(ls "$d"/cuda-samples/p2pblt-sm-*.txt 2>/dev/null)
	# shellcheck disable=SC2086
	python3 "$top/bench/p2p-compare.py" --blt-ce "$d"/cuda-samples/p2pblt-ce-[0-9].txt \
		--blt-sm $sm --bench "$d/p2p-bench-cmp.json" --md "$tmp/compare.md" ||
		{ echo "FAIL: p2p-compare.py on $d"; fail=1; continue; }
	if ! cmp -s "$tmp/compare.md" "$d/compare.md"; then
		echo "FAIL: $d/compare.md differs from what p2p-compare.py makes:"
		diff "$d/compare.md" "$tmp/compare.md" | head -20
		fail=1
	fi
	if [ -f "$d/compare-sample-method.md" ]; then
		# shellcheck disable=SC2086
		if ! python3 "$top/bench/p2p-compare.py" \
			--blt-ce "$d"/cuda-samples/p2pblt-ce-[0-9].txt --blt-sm $sm \
			--bench "$d"/p2p-bench-cmp-blt-*.json --md "$tmp/sm.md" ||
			! cmp -s "$tmp/sm.md" "$d/compare-sample-method.md"; then
			echo "FAIL: $d/compare-sample-method.md differs from what p2p-compare.py makes"
			fail=1
		fi
	fi
	checked=$((checked + 1))
done
[ $checked -gt 0 ] || { echo "FAIL: no result folder with a comparison found"; fail=1; }
# A sample output without its matrices is an error, not an empty table.
printf 'P2P Connectivity Matrix\n' >"$tmp/empty.txt"
echo '{"matrices": []}' >"$tmp/empty.json"
if python3 "$top/bench/p2p-compare.py" --blt-ce "$tmp/empty.txt" --bench "$tmp/empty.json" \
	>/dev/null 2>&1; then
	echo "FAIL: p2p-compare.py accepted inputs with nothing to compare"
	fail=1
fi
[ $fail -eq 0 ] && echo "p2p-bench comparison tables: $checked result folders reproduced"
exit $fail
