#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --paste on the dev set (tests/fixtures/pastes/*/): every case's report has the
# verdict, causes, first ask and phrases its source.md expects.
set -uo pipefail
bi=${P2PS_TOOLS_DIR:?}/bar-inspect
src=${P2PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
for d in "$src"/tests/fixtures/pastes/*/; do
	name=$(basename "$d")
	[ -f "$d/source.md" ] || continue
	n=$((n + 1))
	"$bi" --paste "$d/paste.txt" >"$tmp/out" 2>"$tmp/err" || { fail "$name: exit $?: $(head -c 200 "$tmp/err")"; continue; }
	grep -q '^source: https://' "$d/source.md" || fail "$name: no source address"
	grep -q '^cause: ' "$d/source.md" || fail "$name: no cause line"
	while IFS= read -r line; do
		key=${line%%: *} val=${line#*: }
		case $key in
		verdict) grep -q "^Verdict from the paste: $val (" "$tmp/out" || fail "$name: verdict is not $val: $(grep '^Verdict' "$tmp/out")" ;;
		cause-code) grep -q "^	cause    $val: " "$tmp/out" || fail "$name: cause $val not named" ;;
		first-ask)
			first=$(sed -n '/^What to send next/{n;p;q}' "$tmp/out")
			[ "$first" = "	$val" ] || fail "$name: first ask is '$first', want '$val'" ;;
		phrase) grep -qF -- "$val" "$tmp/out" || fail "$name: the report lacks '$val'" ;;
		esac
	done <"$d/source.md"
done
[ "$n" -ge 30 ] || fail "only $n cases"
echo "$n cases, $fails failures"
[ "$fails" -eq 0 ]
