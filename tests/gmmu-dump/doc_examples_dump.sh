#!/usr/bin/env bash
# The console examples of docs/readme/pte-dumps.md and docs/pte-dumps.md are run and
# their output compared line by line. The images come from make_example_pd (hand-computed
# entries), the SPEC is the ```json block of docs/pte-dumps.md, and log.txt is the text
# the readme shows with `cat`.
set -u
top=${P2PS_SOURCE_DIR:?}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export PATH=$P2PS_TOOLS_DIR:$PATH
cd "$W" || exit 1
"${P2PS_BINARY_DIR:?}/tests/gmmu-dump/make_example_pd" || exit 1
# the SPEC: the first ```json block of docs/pte-dumps.md
awk '/^```json/ { on = 1; next } /^```/ { if (on) exit } on' "$top/docs/pte-dumps.md" >spec.json
# log.txt: what the readme shows after `$ cat log.txt`
awk '/^\$ cat log.txt/ { on = 1; next } /^\$ / { on = 0 } on' "$top/docs/readme/pte-dumps.md" \
	>log.txt

fails=0
check_doc() { # FILE: run each "$ cmd" of its console blocks, compare with the lines after it
	local doc=$1 cmd="" expected="" in=0 line
	flush() {
		[ -n "$cmd" ] || return 0
		local got
		got=$(bash -c "$cmd" 2>&1)
		if [ "$got" != "$expected" ]; then
			echo "FAIL ($doc): \$ $cmd"
			diff <(printf '%s\n' "$expected") <(printf '%s\n' "$got") | head -20
			fails=$((fails + 1))
		fi
		cmd=""
		expected=""
	}
	while IFS= read -r line; do
		if [[ $line == '```console' ]]; then
			in=1
			continue
		fi
		if [ "$in" -eq 1 ] && [[ $line == '```' ]]; then
			flush
			in=0
			continue
		fi
		[ "$in" -eq 1 ] || continue
		if [[ $line == '$ '* ]]; then
			flush
			cmd=${line#\$ }
		else
			expected+=${expected:+$'\n'}$line
		fi
	done <"$doc"
}
check_doc "$top/docs/readme/pte-dumps.md"
# docs/pte-dumps.md uses plain ``` blocks; its 24 GiB example is checked through the readme's
# copy, and the two must agree:
for l in "0x7f00ec800000-0x7f00ec9fffff   2M x 1         SYS_NONCOH 0x0380eca00000-0x0380ecbfffff kind=GENERIC_MEMORY vol" \
	"verify: DIFFERENT: 1 difference; 23.998 of 24.000 GiB intended mapped as intended (1 mapping)"; do
	grep -qF -- "$l" "$top/docs/pte-dumps.md" || {
		echo "FAIL: docs/pte-dumps.md lacks: $l"
		fails=$((fails + 1))
	}
done
[ "$fails" -eq 0 ] && echo "doc_examples_dump: ok"
[ "$fails" -eq 0 ]
