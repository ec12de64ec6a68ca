#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pte-decode's dump commands end to end: decode --raw/--text/--mem --pdb, --summary,
# --json, verify exit codes 0/1/2, and one-line errors (exit 2, never a crash) for bad
# inputs. Entries are written byte by byte from hand-computed values (see
# test_gmmu_walk.c for the bit arithmetic, from NV_MMU_VER2_* in gp100's dev_mmu.h).
set -u
T=${P2PS_TOOLS_DIR:?}/pte-decode
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# put64 FILE OFFSET VALUE: little-endian 8 bytes at OFFSET (file grows as needed)
put64() {
	local s="" i
	for i in 0 1 2 3 4 5 6 7; do
		s+=$(printf '\\x%02x' $((($3 >> (8 * i)) & 0xff)))
	done
	printf '%b' "$s" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}

# expect RC CMD...: run, keep stdout/stderr in $W/out, $W/err, check the status
expect() {
	local want=$1
	shift
	"$@" >"$W/out" 2>"$W/err"
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "exit $rc, wanted $want: $*"
		sed 's/^/  stderr: /' "$W/err" | head -5
	fi
}

has() { # FILE PATTERN (fixed string)
	grep -qF -- "$2" "$1" || {
		fail "'$2' not in $1: $(head -c 400 "$1")"
	}
}

one_line_error() { # the error is exactly one line, prefixed by the tool's name
	[ "$(wc -l <"$W/err")" -eq 1 ] || fail "error is not one line: $(cat "$W/err")"
	has "$W/err" "pte-decode: "
}

# ---- raw PTE arrays -----------------------------------------------------------
R=$W/ptes.bin
: >"$R"
# 4 vidmem pages 0x100000.. (VALID, VIDEO, ADDRESS_VID 0x100.. << 8, KIND 6), a hole,
# 2 BAR1-P2P pages (VALID|SYS_NONCOH|VOL 0xf, ADDRESS_SYS 0x38000000000 >> 12 << 8)
put64 "$R" 0 0x0600000000010001
put64 "$R" 8 0x0600000000010101
put64 "$R" 16 0x0600000000010201
put64 "$R" 24 0x0600000000010301
put64 "$R" 32 0
put64 "$R" 40 0x060000380000000f
put64 "$R" 48 0x060000380000010f

expect 0 "$T" decode --chip AD102 --raw "$R"
[ "$(wc -l <"$W/out")" -eq 7 ] || fail "decode --raw: want 7 lines"
has "$W/out" "VA 0x000000005000 4K   [5] 0x060000380000000f VALID=TRUE APERTURE=SYSTEM_NON_COHERENT_MEMORY VOL=TRUE"
has "$W/out" "ADDRESS_SYS=0x38000000000"

expect 0 "$T" decode --chip AD102 --raw "$R" --summary --va 0x7f0000000000
has "$W/out" "0x7f0000000000-0x7f0000003fff   4K x 4         VIDEO      0x000000100000-0x000000103fff kind=GENERIC_MEMORY"
has "$W/out" "0x7f0000005000-0x7f0000006fff   4K x 2         SYS_NONCOH 0x038000000000-0x038000001fff kind=GENERIC_MEMORY vol"
has "$W/out" "# 7 entries: 6 valid in 2 ranges, 0 sparse, 1 zero, 0 other invalid"

expect 0 "$T" decode --chip AD102 --raw "$R" --summary --json --level PT_BIG
has "$W/out" '"page_size": 65536'
has "$W/out" '"va_last": "0x3ffff"' # 4 pages of 64K
has "$W/out" '"target": "0x38000000000"'

expect 0 "$T" decode --chip AD102 --raw "$R" --json
[ "$(wc -l <"$W/out")" -eq 7 ] || fail "decode --raw --json: want one object per line"
has "$W/out" '"ADDRESS_VID":"0x103000"'

# the same bytes through a pipe
expect 0 bash -c "cat '$R' | '$T' decode --chip AD102 --raw - --summary"
has "$W/out" "# 7 entries: 6 valid in 2 ranges"

# ---- text dumps ---------------------------------------------------------------
cat >"$W/log.txt" <<'EOF'
# copied from a debug log
0x06000000_00010001 0600000000010101
00000010: 0x0600_0000_0001_0201, 0x0600000000010301   # offset 0x10 = entry 2
EOF
expect 0 "$T" decode --chip AD102 --text "$W/log.txt" --summary
has "$W/out" "0x000000000000-0x000000003fff   4K x 4         VIDEO"
expect 0 bash -c "printf '8: 0x1\n' | '$T' decode --chip AD102 --text - --json"
has "$W/out" '"index":1'

# ---- a walk over a VER2 page-directory image ------------------------------------
# PD3 0x100000 -> PD2 0x101000 -> PD1 0x102000 -> PD0 0x103000 (dual: small PT 0x105000);
# PD0 [1..2] 2M PTEs vidmem 0x40000000, 0x40200000; PT_SMALL [0..3] BAR1-P2P 4K pages.
M=$W/vram.bin
truncate -s $((0x6000)) "$M"
put64 "$M" 0x0000 0x10102 # PD3[0]: APERTURE VIDEO (0x2) | 0x101 << 8
put64 "$M" 0x1000 0x10202
put64 "$M" 0x2000 0x10302
put64 "$M" 0x3008 0x10502 # PD0[0] small half: APERTURE_SMALL 1, ADDRESS_SMALL_VID 0x105
put64 "$M" 0x3010 0x0600000004000001
put64 "$M" 0x3020 0x0600000004020001
for i in 0 1 2 3; do
	put64 "$M" $((0x5000 + 8 * i)) $((0x060000380000000f + (i << 8)))
done
expect 0 "$T" decode --chip AD102 --mem 0x100000="$M" --pdb 0x100000 --summary
has "$W/out" "0x000000000000-0x000000003fff   4K x 4         SYS_NONCOH 0x038000000000-0x038000003fff kind=GENERIC_MEMORY vol"
has "$W/out" "0x000000200000-0x0000005fffff   2M x 2         VIDEO      0x000040000000-0x0000403fffff kind=GENERIC_MEMORY"
has "$W/out" "# walk: 5 tables"
expect 0 "$T" decode --chip AD102 --mem 0x100000="$M" --pdb 0x100000:vid
has "$W/out" "PT_SMALL[3]@vid:0x105018 0x060000380000030f"

# a sparse PTE (VALID=0, VOL=1 -> 0x8) at PT_SMALL[32] (VA 0x20000): listed with --all
cp "$M" "$W/sparse.bin"
put64 "$W/sparse.bin" $((0x5000 + 8 * 32)) 0x8
expect 0 "$T" decode --chip AD102 --mem 0x100000="$W/sparse.bin" --pdb 0x100000 --summary --all
has "$W/out" "0x000000020000-0x000000020fff   4K x 1         SPARSE"
has "$W/out" "1 sparse"
expect 0 "$T" decode --chip AD102 --mem 0x100000="$W/sparse.bin" --pdb 0x100000 --summary
grep -q SPARSE "$W/out" && fail "sparse entry listed without --all"

# ---- verify -------------------------------------------------------------------
cat >"$W/spec.json" <<'EOF'
{ "chip": "AD102",
  "peers": [ { "index": 1, "bar1_base": "0x38000000000" } ],
  "mappings": [
    { "name": "peer1", "va": "0x0", "size": "16K", "page_size": "4K",
      "aperture": "SYS_NONCOH", "peer": 1, "offset": "0", "flags": { "vol": true } },
    { "name": "vram", "va": "0x200000", "size": "4M", "page_size": "2M",
      "aperture": "VIDEO", "target": "0x40000000", "kind": "GENERIC_MEMORY" } ] }
EOF
expect 0 "$T" verify --chip AD102 --mem 0x100000="$M" --pdb 0x100000 --expect "$W/spec.json"
has "$W/out" "verify: OK: 0 differences"

# one entry wrong: PT_SMALL[2] points at +0x3000 instead of +0x2000
put64 "$M" 0x5010 0x060000380000030f
expect 1 "$T" verify --chip AD102 --mem 0x100000="$M" --pdb 0x100000 --expect "$W/spec.json"
has "$W/out" "VA 0x2000-0x2fff (1 x 4K) [peer1]: wrong address: expected 0x38000002000, found 0x38000003000"
has "$W/out" "verify: DIFFERENT: 1 difference"
expect 1 "$T" verify --chip AD102 --mem 0x100000="$M" --pdb 0x100000 --expect "$W/spec.json" --json
has "$W/out" '"match": false'
has "$W/out" '"address"'

# verify over a raw PTE array
cat >"$W/spec2.json" <<'EOF'
{ "format": "v2", "mappings": [
  { "va": "0", "size": "16K", "aperture": "VIDEO", "target": "0x100000" },
  { "va": "0x5000", "size": "12K", "aperture": "SYS_NONCOH", "target": "0x38000000000" } ] }
EOF
expect 1 "$T" verify --chip AD102 --raw "$R" --expect "$W/spec2.json"
has "$W/out" "VA 0x7000-0x7fff [mapping[1]]: missing: intended SYS_NONCOH 0x38000002000 not mapped"

# ---- bad input: exit 2, one line naming where -----------------------------------
head -c 13 "$R" >"$W/odd.bin"
expect 2 "$T" decode --chip AD102 --raw "$W/odd.bin"
one_line_error
has "$W/err" "odd.bin: size 13 is not a multiple of 8-byte entries (5 trailing bytes at offset 0x8)"

printf '0x1\n0x2 zz\n' >"$W/bad.txt"
expect 2 "$T" decode --chip AD102 --text "$W/bad.txt"
one_line_error
has "$W/err" "bad.txt:2:5: 'zz' is not a hex word"

# A directory entry whose index puts its VA past 2^64 (PD2 indexes VA bits 46:38).
printf '0x7ffffffffffff8: 0x2\n' >"$W/far.txt"
expect 2 "$T" decode --chip AD102 --entry pde --level PD2 --text "$W/far.txt"
one_line_error
has "$W/err" "far.txt: entry 4503599627370495: VA 0x0 + 4503599627370495 entries of 2^38 bytes passes 2^64"

printf '0x11112222333344445\n' >"$W/wide.txt"
expect 2 "$T" decode --chip AD102 --text "$W/wide.txt"
has "$W/err" "wide.txt:1:1: value has 17 hex digits; a pte is 64 bits"

cp "$M" "$W/cycle.bin"
put64 "$W/cycle.bin" 0x2008 0x10102 # PD1[1] -> PD2 (its own parent)
expect 2 "$T" decode --chip AD102 --mem 0x100000="$W/cycle.bin" --pdb 0x100000 --summary
one_line_error
has "$W/err" "PD1[1] at vid PA 0x102008"
has "$W/err" "cycle"

cp "$M" "$W/outside.bin"
put64 "$W/outside.bin" 0x1008 0x7f0002 # PD2[1] -> frame 0x7f00 = PA 0x7f00000
expect 2 "$T" decode --chip AD102 --mem 0x100000="$W/outside.bin" --pdb 0x100000
one_line_error
has "$W/err" "PD2[1] at vid PA 0x101008 (VA 0x4000000000): PD1 table at vid PA 0x7f00000-0x7f00fff is not inside any memory image"

expect 2 "$T" decode --chip AD102 --mem 0x100000="$M" --pdb 0xffffffffffff0000
has "$W/err" "not inside any memory image"
expect 2 "$T" decode --chip AD102 --mem 0x100000="$M" --mem 0x105000="$M" --pdb 0x100000
has "$W/err" "overlaps"
expect 2 "$T" decode --chip AD102 --mem 0x100000="$M"
has "$W/err" "--mem and --pdb go together"
expect 2 "$T" decode --chip AD102 --mem 0xfffffffffffff000="$M" --pdb 0xfffffffffffff000
has "$W/err" "runs past 2^64"
# the root in system memory; its PDEs say VIDEO_MEMORY, and no vid chunk is given
expect 2 "$T" decode --chip AD102 --mem sys:0x100000="$M" --pdb 0x100000:sys
has "$W/err" "PD3[0] at sys PA 0x100000 (VA 0x0): PD2 table at vid PA 0x101000-0x101fff is not inside any memory image"
expect 2 "$T" decode --chip AD102 --raw "$R" --va 0xfffffffffffff000
has "$W/err" "passes"
expect 2 "$T" decode --chip NV99 --raw "$R"
one_line_error
expect 2 "$T" decode --chip AD102 --raw "$W/nonexistent.bin"
has "$W/err" "nonexistent.bin: open: No such file or directory"
expect 2 "$T" decode --chip AD102 --raw "$R" --level PD3
has "$W/err" "holds no PTEs"
expect 2 "$T" decode --chip AD102 --raw "$R" --entry pde --summary
expect 2 "$T" verify --chip AD102 --raw "$R"
has "$W/err" "--expect SPEC.json is required"
printf '{ "mappings": [ ' >"$W/broken.json"
expect 2 "$T" verify --chip AD102 --raw "$R" --expect "$W/broken.json"
one_line_error
has "$W/err" "broken.json:1: invalid JSON"
expect 2 "$T" decode --chip AD102 --raw
one_line_error
has "$W/err" "option --raw needs an argument"
expect 0 "$T" decode --raw --help
has "$W/out" "usage: pte-decode decode"

# ---- a sparse directory entry ends the walk as sparse (AD102) -------------------
# PD3 0x100000 -> PD2 0x101000 -> PD1 0x102000: [0] -> PD0 0x103000, [1] sparse (APERTURE
# INVALID, VOL 1 = 0x8); PD0 [0] 2M PTE vidmem 0x40000000 (VALID, KIND 6).
S=$W/sparse.bin
: >"$S"
put64 "$S" 0x0000 0x10102
put64 "$S" 0x1000 0x10202
put64 "$S" 0x2000 0x10302
put64 "$S" 0x2008 0x8
put64 "$S" 0x3000 0x0600000004000001
put64 "$S" 0x3ff8 0
expect 0 "$T" decode --chip AD102 --mem 0x100000="$S" --pdb 0x100000 --summary
has "$W/out" "# walk: 4 tables, 3 PDEs followed, 1 sparse"
expect 0 "$T" decode --chip AD102 --mem 0x100000="$S" --pdb 0x100000 --summary --all
has "$W/out" "0x000020000000-0x00003fffffff 512M x 1         SPARSE"
expect 0 "$T" decode --chip AD102 --mem 0x100000="$S" --pdb 0x100000 --all
has "$W/out" "VA 0x000020000000 512M PD1[1]@vid:0x102008 0x0000000000000008 IS_PTE=FALSE APERTURE=INVALID VOL=SPARSE NO_ATS=FALSE"
expect 0 "$T" decode --chip AD102 --mem 0x100000="$S" --pdb 0x100000 --summary --json
has "$W/out" '"sparse_pdes": 1'

if [ "$fails" -ne 0 ]; then
	echo "cli_pte_decode_dump: $fails failures"
	exit 1
fi
echo "cli_pte_decode_dump: ok"
