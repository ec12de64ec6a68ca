#!/usr/bin/env bash
# Adding a generation is what docs/new-generation.md says, and the tools then accept it:
# the checklist's edits for a hypothetical generation (gx100.edits: GX100, format v3-gx
# with 128 TiB PTEs in PD3) are applied to a copy of the sources, pte-decode is built
# there, and formats, encode, decode, p2p, a page-directory walk and verify must work on
# the new chip with entries computed here by hand. The files the edits touch must be the
# source files the checklist names (so the document lists every place, and nothing more).
set -u
src=${P2PS_SOURCE_DIR:?}
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# ---- the copy, edited as the checklist says ------------------------------------------
mkdir "$W/tree"
for d in CMakeLists.txt cmake include scripts src tools; do
	cp -r "$src/$d" "$W/tree/"
done
changed=$(python3 "$here/apply_edits.py" "$here/gx100.edits" "$W/tree") || exit 1
# the checklist: the `path` in the first column of each row of its table
listed=$(sed -n 's/^| `\([a-z][^`]*\)`.*/\1/p' "$src/docs/new-generation.md" |
	grep -E '^(src|include)/' | sort -u)
[ "$(sort -u <<<"$changed")" = "$listed" ] ||
	fail "the edits touch [$(echo $changed)], docs/new-generation.md lists [$(echo $listed)]"

cmake -S "$W/tree" -B "$W/build" -DP2PS_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
	>"$W/configure.log" 2>&1 || { cat "$W/configure.log"; exit 1; }
cmake --build "$W/build" -j "${JOBS:-2}" --target pte-decode >"$W/build.log" 2>&1 ||
	{ tail -30 "$W/build.log"; exit 1; }
T=$W/build/tools/pte-decode

check() { # NAME EXPECTED ACTUAL
	if [ "$2" != "$3" ]; then
		fail "$1"
		echo "  want: $2"
		echo "  got:  $3"
	else
		echo "ok   $1"
	fi
}

# ---- the tools on GX100 ---------------------------------------------------------------
check "formats lists GX100 under v3-gx" 1 "$("$T" formats | grep -A1 '^v3-gx' | grep -c 'chips: GX100$')"
check "formats --markdown: the 128 TB level" "| PD3 | 55:47 | 8 B PDE | 128 TB |" \
	"$("$T" formats --markdown | grep -A8 '^## v3-gx' | grep '^| PD3')"
check "formats --json: PD3 page shift" 1 \
	"$("$T" formats --json | grep -c '"page_shift": 47')"
# By hand (NV_MMU_VER3_PTE_*): VALID 0:0 = 1, APERTURE 2:1 = 0 (video), KIND 11:8 = 6,
# ADDRESS 51:12 = 0x800000000000 in place.
check "encode" 0x0000800000000601 \
	"$("$T" encode --chip GX100 VALID=TRUE APERTURE=VIDEO_MEMORY KIND=GENERIC_MEMORY ADDRESS=0x800000000000)"
check "decode" "VALID=TRUE APERTURE=VIDEO_MEMORY PCF=REGULAR_RW_ATOMIC_CACHED_ACE KIND=GENERIC_MEMORY ADDRESS=0x800000000000" \
	"$("$T" decode --chip gx100 0x0000800000000601 | tr '\n' ' ' | sed 's/ $//')"
# BAR1-P2P of the 128 TiB page at 0x800000000000: APERTURE 3 (0x6), PCF 0x11 (0x88), KIND 6.
check "p2p 128T" 0x000080000000068f \
	"$("$T" p2p --chip GX100 --mode bar1 --bar1 0x800000000000 --page-size 128T -q)"
check "p2p level line" "# PTE of a 128T page at level PD3 (VA 55:47)" \
	"$("$T" p2p --chip GX100 --mode bar1 --bar1 0x800000000000 --page-size 128T | grep '^# PTE')"
check "p2p lists the new size" 1 \
	"$("$T" p2p --chip GX100 --mode stock | grep -c '(4K, 64K, 128K, 2M, 512M, 256G, 128T)')"
check "unknown chips name GX100" 1 "$("$T" encode --chip GX999 VALID=1 2>&1 | grep -c GX100)"

# A walk: PD4 at vid 0x100000, PD4[0] -> PD3 at 0x101000 (PDE: APERTURE 2:1 = 1 video,
# ADDRESS 51:12 in place: 0x101002); PD3[1] a 128 TiB PTE for VA 0x800000000000 (VA bit 47)
# mapping video memory 0 (0x601).
put64() { # FILE OFFSET VALUE
	local s="" i
	for i in 0 1 2 3 4 5 6 7; do
		s+=$(printf '\\x%02x' $((($3 >> (8 * i)) & 0xff)))
	done
	printf '%b' "$s" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}
M=$W/gx.bin
truncate -s $((0x2000)) "$M"
put64 "$M" 0x0000 0x101002
put64 "$M" 0x1008 0x601
check "walk" "0x800000000000-0xffffffffffff 128T x 1         VIDEO      0x000000000000-0x7fffffffffff kind=GENERIC_MEMORY" \
	"$("$T" decode --chip GX100 --mem 0x100000="$M" --pdb 0x100000 --summary | head -1)"
check "walk totals" "# walk: 2 tables, 1 PDEs followed" \
	"$("$T" decode --chip GX100 --mem 0x100000="$M" --pdb 0x100000 --summary | tail -1)"
cat >"$W/spec.json" <<'JSON'
{ "chip": "GX100", "mappings": [ { "va": "0x800000000000", "size": "128T",
  "page_size": "128T", "aperture": "VIDEO", "target": "0", "kind": "GENERIC_MEMORY" } ] }
JSON
check "verify" "verify: OK: 0 differences; 131072.000 of 131072.000 GiB intended mapped as intended (1 mapping)" \
	"$("$T" verify --chip GX100 --mem 0x100000="$M" --pdb 0x100000 --expect "$W/spec.json")"

[ "$fails" -eq 0 ] && echo "new_generation: ok"
[ "$fails" -eq 0 ]
