#!/usr/bin/env bash
# The documentation's examples are tests:
#  * every "$ pte-decode ..." line in a ```console block of docs/gmmu.md and
#    docs/readme/gmmu.md is run, and its output must equal the lines that follow it;
#  * the C example quoted in docs/gmmu.md must equal the doc-example block of
#    tests/gmmu/test_gmmu_example_gb202.c (which ctest runs as test_gmmu_example_gb202).
set -u
SRC=${P2PS_SOURCE_DIR:?}
TOOLS=${P2PS_TOOLS_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
runs=0

run_block() { # file: splits console blocks into command + expected output and compares
	local doc=$1
	awk -v dir="$tmp" '
		/^```console$/ { inblk = 1; next }
		/^```/ { if (inblk && n) close(out); inblk = 0; next }
		inblk && /^\$ / { n++; out = sprintf("%s/case%03d", dir, n); print substr($0, 3) > (out ".cmd"); close(out ".cmd"); printf "" > out; next }
		inblk && n { print >> out }
	' "$doc"
	for cmd in "$tmp"/case*.cmd; do
		[ -e "$cmd" ] || continue
		local want=${cmd%.cmd}
		local line
		line=$(cat "$cmd")
		case "$line" in pte-decode\ *) ;; *) rm -f "$cmd" "$want"; continue ;; esac
		local got
		got=$(cd "$tmp" && PATH="$TOOLS:$PATH" bash -c "$line" 2>&1)
		runs=$((runs + 1))
		if [ "$got" != "$(cat "$want")" ]; then
			echo "FAIL $doc: \$ $line"
			diff <(cat "$want") <(echo "$got") | head -20
			fails=$((fails + 1))
		fi
		rm -f "$cmd" "$want"
	done
}

for doc in "$SRC/docs/gmmu.md" "$SRC/docs/readme/gmmu.md"; do
	[ -e "$doc" ] || { echo "FAIL missing $doc"; fails=$((fails + 1)); continue; }
	run_block "$doc"
done

# The C example.
sed -n '/^\/\* doc-example-begin \*\/$/,/^\/\* doc-example-end \*\/$/p' \
	"$SRC/tests/gmmu/test_gmmu_example_gb202.c" | sed '1d;$d' >"$tmp/want.c"
awk '/^```c$/ { inblk = 1; next } /^```/ { if (inblk) exit; } inblk { print }' \
	"$SRC/docs/gmmu.md" >"$tmp/got.c"
if [ ! -s "$tmp/want.c" ] || ! diff -u "$tmp/want.c" "$tmp/got.c" >/dev/null; then
	echo "FAIL docs/gmmu.md C example differs from tests/gmmu/test_gmmu_example_gb202.c"
	diff -u "$tmp/want.c" "$tmp/got.c" | head -20
	fails=$((fails + 1))
fi

echo "doc_examples_gmmu: $runs commands run, $fails failure(s)"
[ "$runs" -ge 5 ] && [ "$fails" -eq 0 ]
