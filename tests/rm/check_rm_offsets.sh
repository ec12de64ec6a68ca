#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# No RM struct offset outside src/rm: the code that talks to the driver's RM API goes through
# the typed controls (include/p2pscope/rm_ctrl.h), whose offsets live in one table
# (src/rm/fields.c). Fails on a byte offset into an RM parameter buffer, a raw RM flag shift
# or an offset/size #define in any file under src/ or tools/ (src/rm aside) that includes an
# RM header or names an RM struct or control.
#
#   tests/rm/check_rm_offsets.sh [TOP]
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 2
# Byte offsets (p2ps_le32(b + 132), p2ps_put_le64(b + 40, ...), b[12] = 1), shifts of RM
# flag words ((fl >> 17) & 3), and offset or size constants (#define P2P_CAPS_CAPS 132).
patterns=(
	'p2ps_(put_)?le(16|32|64)\([^),]*\+ *[0-9]+'
	'\b(b|buf|p|a|params|e|t)\[[1-9][0-9]*\]'
	'\(?(fl|flags|f|caps)\b *>> *[0-9]+\)? *& *(0x)?[0-9a-f]+'
	'#define +[A-Z0-9_]*(SIZE|OFFSET|_CAPS|_STATUS|_COUNT|PEER_IDS)[A-Z0-9_]* +[0-9]{2,}'
)
rm_files() {
	grep -rlE '#include "(p2pscope/rm(_ctrl)?|probe|rm_opts)\.h"|NV(0000|0041|0080|2080)_CTRL|NV503B_|NVOS[0-9]{2}' \
		src tools --include='*.c' --include='*.h' | grep -v '^src/rm/' | sort
}
scan() { # FILE...: prints the offending lines
	local p
	for p in "${patterns[@]}"; do
		# Declarations of local buffers (char buf[64]) are not offsets.
		grep -nHE "$p" "$@" 2>/dev/null |
			grep -vE '^[^:]+:[0-9]+:\s*(static\s+)?(const\s+)?(char|u?int[0-9]*_t|unsigned|int|bool|struct\s+\w+)\s+\w+\['
	done
}
# The check must be able to fail: each pattern finds its planted example.
probe=$(mktemp /tmp/check_rm_offsets.XXXXXX.c)
trap 'rm -f "$probe"' EXIT
cat >"$probe" <<'C'
uint32_t caps = p2ps_le32(b + 132);
b[12] = 1;
unsigned cache = (fl >> 17) & 3;
#define P2P_CAPS_SIZE 8348
C
planted=$(scan "$probe" | wc -l)
if [ "$planted" -lt 4 ]; then
	echo "check_rm_offsets: the patterns found $planted of 4 planted offsets" >&2
	exit 1
fi
mapfile -t files < <(rm_files)
if [ "${#files[@]}" -lt 5 ]; then
	echo "check_rm_offsets: only ${#files[@]} files talk to the RM API (expected tools/pte-probe/*.c and more)" >&2
	exit 1
fi
hits=$(scan "${files[@]}")
if [ -n "$hits" ]; then
	echo "check_rm_offsets: RM struct offsets outside src/rm (use the typed controls of p2pscope/rm_ctrl.h):" >&2
	echo "$hits" >&2
	exit 1
fi
echo "check_rm_offsets: ${#files[@]} files that use the RM API, no struct offsets outside src/rm"
