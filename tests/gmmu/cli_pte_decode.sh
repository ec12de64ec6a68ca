#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pte-decode end to end: encode/decode/p2p/formats output, and bad input giving one line on
# stderr with exit status 2. Expected entries are the hand-computed ones of
# test_gmmu_vectors.c / test_gmmu_p2p.c.
set -u
P=${P2PS_TOOLS_DIR:?}/pte-decode
SRC=${P2PS_SOURCE_DIR:?}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # name expected actual
	if [ "$2" != "$3" ]; then
		echo "FAIL $1"
		echo "  want: $2"
		echo "  got:  $3"
		fails=$((fails + 1))
	else
		echo "ok   $1"
	fi
}

# bad NAME PATTERN ARGS...: exit 2, nothing on stdout, exactly one stderr line matching PATTERN.
bad() {
	local name=$1 pat=$2
	shift 2
	"$P" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	local lines
	lines=$(wc -l <"$tmp/err")
	if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL $name: rc=$rc stderr lines=$lines: $(cat "$tmp/err")"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

check "encode v2 peer" 0x0600000200000103 \
	"$("$P" encode --chip AD102 VALID=TRUE APERTURE=PEER_MEMORY ADDRESS_VID=0x1000 ADDRESS_VID_PEER=1 KIND=GENERIC_MEMORY)"
check "encode case-insensitive" 0x0600000200000103 \
	"$("$P" encode --chip ad102 valid=true aperture=peer_memory address_vid=0x1000 address_vid_peer=1 kind=generic_memory)"
check "encode --format v2" 0x0600002880000107 \
	"$("$P" encode --format v2 VALID=1 APERTURE=3 ADDRESS_SYS=0x28800001000 KIND=6)"
check "encode dual pde v2" 0x00000000045678040000000000001232 \
	"$("$P" encode --chip AD102 --entry dual-pde APERTURE_BIG=VIDEO_MEMORY ADDRESS_BIG_VID=0x12300 APERTURE_SMALL=SYSTEM_COHERENT_MEMORY ADDRESS_SMALL_SYS=0x45678000)"
check "encode v3 pde" 0x0000000000abc01a \
	"$("$P" encode --chip GH100 --entry pde APERTURE=VIDEO_MEMORY PCF=VALID_UNCACHED_ATS_NOT_ALLOWED ADDRESS=0xabc000)"
check "encode as-written smear" 0xfffffffe00000003 \
	"$("$P" encode --chip AD102 --as-written VALID=TRUE APERTURE=PEER_MEMORY KIND=GENERIC_MEMORY ADDRESS_VID_PEER=0xffffffff)"

check "decode smeared entry" "VALID=TRUE
APERTURE=PEER_MEMORY
VOL=FALSE
ENCRYPTED=FALSE
PRIVILEGE=FALSE
READ_ONLY=FALSE
ATOMIC_DISABLE=FALSE
ADDRESS_VID=0x0
ADDRESS_VID_PEER=7
COMPTAGLINE=0xfffff
KIND=0xff" "$("$P" decode --chip AD102 0xfffffffe00000003)"

check "decode sysmem shows ADDRESS_SYS only" "ADDRESS_SYS=0x28800001000" \
	"$("$P" decode --chip AD102 0x0600002880000107 | grep ADDRESS)"
check "decode v3 pde unexplained bits" "UNEXPLAINED_BITS=0x8000000000000000" \
	"$("$P" decode --format v3 --entry pde 0x800000000000001a | grep UNEXPLAINED)"
check "decode two values" 2 "$("$P" decode --chip TU102 0x1 0x3 | grep -c '^VALID=TRUE')"
check "decode dual pde v3" "ADDRESS_BIG=0x1234500 ADDRESS_SMALL=0x5000 APERTURE_BIG=SYSTEM_NON_COHERENT_MEMORY PCF_SMALL=VALID_UNCACHED_ATS_ALLOWED" \
	"$("$P" decode --chip GB100 --entry dual-pde 0x000000000000500a0000000001234506 | grep -E '^(APERTURE_BIG|ADDRESS_BIG|ADDRESS_SMALL|PCF_SMALL)=' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
check "decode v3 invalid pcf name" "PCF=SPARSE" "$("$P" decode --chip GH100 0x8 | grep PCF)"
check "decode --json" '"value":"PEER_MEMORY"' \
	"$("$P" decode --chip AD102 --json 0x0600000200000103 | grep -o '"value":"PEER_MEMORY"')"
check "decode --json one line per entry" 3 "$("$P" decode --json --chip GB202 0x1 0x3 0x5 | wc -l)"

# The BAR1-P2P forms, by hand from dev_mmu.h: VALID 0:0, APERTURE 2:1 (SYS_COH 2 -> 0x4,
# SYS_NONCOH 3 -> 0x6, PEER 1 -> 0x2), PCF 7:3 (0x11 UNCACHED_ACD -> 0x88, 0x10 -> 0x80,
# 0x00 -> 0), KIND 11:8 = 6 -> 0x600, ADDRESS 51:12 = 0x28923400000 in place.
check "p2p bar1 gb202 (uncached: the driver's default)" 0x000002892340068f \
	"$("$P" p2p --chip GB202 --mode bar1 --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p bar1 gb202 --cached" 0x0000028923400687 \
	"$("$P" p2p --chip GB202 --mode bar1 --bar1 0x28800000000 --offset 0x123400000 --page-size 2M --cached -q)"
check "p2p bar1 gb202 tinygrad" 0x0000028923400605 \
	"$("$P" p2p --chip GB202 --mode bar1 --bar1-form tinygrad --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p bar1 gb202 stock (atomics: SYS_COH)" 0x000002892340068d \
	"$("$P" p2p --chip GB202 --mode bar1 --bar1-form stock --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p bar1 gh100 stock (SYS_NONCOH)" 0x000002892340068f \
	"$("$P" p2p --chip GH100 --mode bar1 --bar1-form stock --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p bar1 gb202 patch-as-published (PEER)" 0x000002892340068b \
	"$("$P" p2p --chip GB202 --mode bar1 --bar1-form patch-as-published --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p bar1 ad102 patch-as-published = patch on v2" \
	"$("$P" p2p --chip AD102 --mode bar1 --bar1 0x28800000000 -q)" \
	"$("$P" p2p --chip AD102 --mode bar1 --bar1-form patch-as-published --bar1 0x28800000000 -q)"
# v2: VALID 1 | SYS_NONCOH 0x6 | VOL 0x8; ADDRESS_SYS 53:8 = 0x28923400; KIND 63:56 = 6.
check "p2p bar1 ad102 (VOL=TRUE)" 0x060000289234000f \
	"$("$P" p2p --chip AD102 --mode bar1 --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
# --peer in bar1 mode: a port that kept the stock peer write. v3: PEER_ID 63:61 = 7 stays, in
# a sysmem entry that uses no peer id; v2: 0xffffffff << 1 fills bits 63:33, then the address
# write restores 53:8, leaving KIND 0xff and 55:54.
check "p2p bar1 gb202 --peer invalid" 0xe00002892340068f \
	"$("$P" p2p --chip GB202 --mode bar1 --peer 0xffffffff --as-written --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p bar1 gb202 --peer: unexplained bits" "UNEXPLAINED_BITS=0xe000000000000000" \
	"$("$P" p2p --chip GB202 --mode bar1 --peer 0xffffffff --as-written --bar1 0x28800000000 --offset 0x123400000 --page-size 2M | grep UNEXPLAINED)"
check "p2p bar1 gb202 as published, --peer invalid: a PEER entry naming peer 7" "APERTURE=PEER_MEMORY PEER_ID=7" \
	"$("$P" p2p --chip GB202 --mode bar1 --bar1-form patch-as-published --peer 0xffffffff --as-written --bar1 0x28800000000 --page-size 2M | grep -E '^(APERTURE|PEER_ID)=' | tr '\n' ' ' | sed 's/ $//')"
check "p2p bar1 ad102 --peer invalid" 0xffc000289234000f \
	"$("$P" p2p --chip AD102 --mode bar1 --peer 0xffffffff --as-written --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p bar1 ad102 --peer 5 overwritten by the address" \
	"$("$P" p2p --chip AD102 --mode bar1 --bar1 0x28800000000 -q)" \
	"$("$P" p2p --chip AD102 --mode bar1 --peer 5 --bar1 0x28800000000 -q)"
check "p2p level line" "# PTE of a 2M page at level PD0 (VA 28:21)" \
	"$("$P" p2p --chip GB202 --mode bar1 --bar1 0x28800000000 --page-size 2M | grep '^# PTE')"
check "p2p says the bits do not depend on the page size" 1 \
	"$("$P" p2p --chip GB202 --mode stock --page-size 64K | grep -c 'same bits for every page size of v3-gb (4K, 64K, 128K, 2M, 512M, 256G)')"
check "p2p 128K level" "# PTE of a 128K page at level PT_BIG (VA 20:17)" \
	"$("$P" p2p --chip AD102 --mode stock --offset 128K --page-size 128K | grep '^# PTE')"
check "p2p --help lists 128K" 1 "$("$P" p2p --help | grep -c '4K (default), 64K, 128K')"
check "p2p --json level and page size" '"level":"PT_BIG","page_size":65536' \
	"$("$P" p2p --chip AD102 --mode stock --page-size 64K --json | grep -o '"level":"PT_BIG","page_size":65536')"
check "p2p stock gb202" 0x200000012340068b \
	"$("$P" p2p --chip GB202 --mode stock --peer 1 --offset 0x123400000 --page-size 2M -q)"
check "p2p nvlink gh100" 0x200010000020068b \
	"$("$P" p2p --chip GH100 --mode nvlink --peer 1 --fabric-base 0x100000000000 --offset 2M --page-size 2M -q)"
# the 580 driver's own entries on two H200s (tests/fixtures/pte-probe/h200-580.159.04-peer*.json):
# the peer GPU's NVSwitch fabric base + FB offset, peer id 0, uncached by default
check "p2p nvlink = the H200 capture (GPU 0 -> 1, PD0[8])" 0x000823000020068b \
	"$("$P" p2p --chip GH100 --mode nvlink --fabric-base 0x8230000000000 --offset 2M --page-size 2M -q)"
check "p2p nvlink = the H200 capture (GPU 1 -> 0, PT_SMALL[13])" 0x000821000000168b \
	"$("$P" p2p --chip GH100 --mode nvlink --fabric-base 0x8210000000000 --offset 4K -q)"
check "p2p nvlink nvswitch ga100" 0x060080020000000b \
	"$("$P" p2p --chip GA100 --mode nvlink --nvswitch --peer 1 --fabric-base 0x1000000000000 -q)"
check "p2p as-written invalid peer" 0xfffffffe0000010b \
	"$("$P" p2p --chip AD102 --mode stock --peer 0xffffffff --offset 4K --as-written -q)"
check "p2p pascal default kind" "KIND=PITCH" "$("$P" p2p --chip GP102 --mode bar1 --bar1 0x4000000000 | grep KIND)"
check "p2p --json mode" '"mode":"bar1"' \
	"$("$P" p2p --chip AD102 --mode bar1 --bar1 0x28800000000 --json | grep -o '"mode":"bar1"')"

# The v2 PDE and dual PDE of Turing's header (NO_ATS, IS_PTE), the sparse
# directory entry, and unknown values that parse back.
check "encode v2 pde NO_ATS" 0x0000000000000122 \
	"$("$P" encode --chip GA102 --entry pde APERTURE=VIDEO_MEMORY NO_ATS=1 ADDRESS_VID=0x1000)"
check "decode v2 pde NO_ATS" "IS_PTE=FALSE APERTURE=VIDEO_MEMORY VOL=FALSE NO_ATS=TRUE ADDRESS_VID=0x1000" \
	"$("$P" decode --chip GA102 --entry pde 0x122 | tr '\n' ' ' | sed 's/ $//')"
check "decode v2 sparse pde" "IS_PTE=FALSE APERTURE=INVALID VOL=SPARSE NO_ATS=FALSE" \
	"$("$P" decode --chip TU102 --entry pde 0x8 | tr '\n' ' ' | sed 's/ $//')"
check "decode pascal sparse pde" "APERTURE=INVALID VOL=SPARSE" \
	"$("$P" decode --chip GP100 --entry pde 0x8 | tr '\n' ' ' | sed 's/ $//')"
check "encode v2 sparse pde" 0x0000000000000008 "$("$P" encode --chip AD102 --entry pde VOL=SPARSE)"
check "decode v2 sparse dual pde (big)" "VOL_BIG=SPARSE" \
	"$("$P" decode --chip TU102 --entry dual-pde 0x8 | grep -E '^VOL_BIG|UNEXPLAINED')"
check "decode v2 sparse dual pde (small)" "VOL_SMALL=SPARSE" \
	"$("$P" decode --chip AD102 --entry dual-pde 0x80000000000000000 | grep -E '^VOL_SMALL|UNEXPLAINED')"
check "decode v2 dual pde NO_ATS (tinygrad's small-only entry)" "NO_ATS=TRUE" \
	"$("$P" decode --chip AD102 --entry dual-pde 0x00000000001234020000000000000020 | grep -E '^NO_ATS|UNEXPLAINED')"
check "decode v2 pde peer index when set" "ADDRESS_VID_PEER=2" \
	"$("$P" decode --chip AD102 --entry pde 0x400000102 | grep -E 'PEER|UNEXPLAINED')"
check "decode unknown kind parses back" "KIND=0xe2" "$("$P" decode --chip AD102 0xe200000000000001 | grep KIND)"
check "encode the decoded unknown kind" 0xe200000000000001 "$("$P" encode --chip AD102 VALID=TRUE KIND=0xe2)"
check "decode --json unknown kind" '"value":"0xe2","value_name":"unknown"' \
	"$("$P" decode --chip AD102 --json 0xe200000000000001 | grep -o '"value":"0xe2","value_name":"unknown"')"
check "decode --json value_name" '"value":"PEER_MEMORY","value_name":"PEER_MEMORY"' \
	"$("$P" decode --chip AD102 --json 0x0600000200000103 | grep -o '"value":"PEER_MEMORY","value_name":"PEER_MEMORY"')"

# verify accepts the model's own BAR1-P2P entries against the SPEC of docs/pte-dumps.md
# (its first ```json block: VOL / PCF uncached, SYS_NONCOH, GENERIC_MEMORY, BAR1 base +
# offset), on v2 and v3.
awk '/^```json/ { on = 1; next } /^```/ { if (on) exit } on' "$SRC/docs/pte-dumps.md" >"$tmp/spec.json"
for chip in AD102 GB202; do
	for i in 0 1 2 3; do
		"$P" p2p --chip $chip --mode bar1 --bar1 0x38000000000 --offset $((i * 2))M --page-size 2M -q
	done >"$tmp/model-$chip.txt"
	sed -e "s/\"AD102\"/\"$chip\"/" -e 's/"24GiB"/"8M"/' "$tmp/spec.json" >"$tmp/spec-$chip.json"
	"$P" verify --chip $chip --text "$tmp/model-$chip.txt" --level PD0 --va 0x7f0000000000 \
		--expect "$tmp/spec-$chip.json" >"$tmp/verify.out" 2>&1
	check "verify accepts the model's bar1 entries ($chip)" 0 "$?"
	for i in 0 1 2 3; do
		"$P" p2p --chip $chip --mode bar1 --cached --bar1 0x38000000000 --offset $((i * 2))M --page-size 2M -q
	done >"$tmp/cached-$chip.txt"
	"$P" verify --chip $chip --text "$tmp/cached-$chip.txt" --level PD0 --va 0x7f0000000000 \
		--expect "$tmp/spec-$chip.json" >"$tmp/verify.out" 2>&1
	check "verify refuses cached entries ($chip)" "1 wrong flags: vol expected 1 found 0" \
		"$? $(grep -o 'wrong flags: vol expected 1 found 0' "$tmp/verify.out" | head -1)"
done

# formats
check "formats lists GB202 under v3-gb" 1 "$("$P" formats | grep -A1 '^v3-gb' | grep -c GB202)"
"$P" formats --markdown >"$tmp/formats.md"
check "formats --markdown is docs/gmmu-formats.md" "" "$(diff "$SRC/docs/gmmu-formats.md" "$tmp/formats.md")"
check "formats --json driver tag" '"driver_tag": "595.45.04"' "$("$P" formats --json | grep -o '"driver_tag": "[0-9.]*"')"
check "--help" 0 "$("$P" --help >/dev/null; echo $?)"
check "encode --help" 0 "$("$P" encode --help >/dev/null; echo $?)"

# bad input: one line, exit 2
# --driver: the BAR1-P2P rows (src/gmmu/bar1_rows.c); the words as test_gmmu_bar1_rows
# derives them by hand from dev_mmu.h and the drivers' code
check "p2p --driver 565 tinygrad ad102" 0x060000289234000f \
	"$("$P" p2p --chip AD102 --mode bar1 --driver 565 --flavor tinygrad --bar1 0x28800000000 --offset 0x123400000 --page-size 2M -q)"
check "p2p --driver 580 gb202 start 512M" 0x000002894340068d \
	"$("$P" p2p --chip GB202 --mode bar1 --driver 580 --bar1 0x28800000000 --start-offset 512M --offset 0x123400000 --page-size 2M -q)"
check "p2p --driver 580 gb202 --path rm" 0x000002894340068f \
	"$("$P" p2p --chip GB202 --mode bar1 --driver 580 --path rm --bar1 0x28800000000 --start-offset 512M --offset 0x123400000 --page-size 2M -q)"
check "p2p --driver JSON names the row" '"driver_row":{"name":"580-615 stock uvm Blackwell"' \
	"$("$P" p2p --chip GB202 --mode bar1 --driver 580 --iova 0x4000000000 --json | grep -o '"driver_row":{"name":"[^"]*"')"
check "p2p --driver JSON base and start" '"base":"0x28800000000","start_offset":"0x20000000"' \
	"$("$P" p2p --chip GB202 --mode bar1 --driver 580 --bar1 0x28800000000 --start-offset 512M --json | grep -o '"base":"[^"]*","start_offset":"[^"]*"')"
# A series without a row of its flavor: the fallback rule's row, said to be assumed (text
# and JSON): tinygrad 580 is modelled as 565.57.01-p2p, the same word as 565's.
"$P" p2p --chip AD102 --mode bar1 --driver 580 --flavor tinygrad --bar1 0x28800000000 --offset 0x123400000 --page-size 2M >"$tmp/assumed"
check "p2p --driver without a row: the entry" 0x060000289234000f "$(head -1 "$tmp/assumed")"
check "p2p --driver without a row: assumed" "driver: 580 tinygrad has no row in the driver table: modelled as tinygrad 565 (565.57.01-p2p), the newest tinygrad row not newer than it (assumed)" \
	"$(grep '^driver:' "$tmp/assumed")"
check "p2p --driver without a row: JSON" 1 \
	"$("$P" p2p --chip AD102 --mode bar1 --driver 580 --flavor tinygrad --bar1 0 --json | grep -c '"driver_assumed":"580 tinygrad has no row')"
# On-demand windows (duanyll, Method 3: nv_gpu_ops.c _nvGpuOpsDynBar1Create): the entry is
# the window's DMA base + the offset in the allocation, SYSTEM_NON_COHERENT on Ada; --bar1
# gives the window base, and the output says the BAR1 offset is the driver's per mapping.
"$P" p2p --chip AD102 --mode bar1 --driver 610 --flavor duanyll --bar1 0x28800000000 --offset 0x123400000 --page-size 2M >"$tmp/window"
check "p2p duanyll window: the entry" 0x060000289234000f "$(head -1 "$tmp/window")"
check "p2p duanyll window: the row" "row: 595-615 duanyll uvm Turing..Ada: SYS_NONCOH" \
	"$(grep -o '^row: 595-615 duanyll uvm Turing..Ada: SYS_NONCOH' "$tmp/window")"
check "p2p duanyll window: per-mapping offset" 1 \
	"$(grep -c '^note: this row maps at a BAR1 offset allocated per mapping' "$tmp/window")"
check "p2p --driver nvlink: the patched PEER field clears the v2 peer index" 0x060000001234000b \
	"$("$P" p2p --chip AD102 --mode nvlink --fabric-base 0 --peer 3 --driver 565 --flavor tinygrad --offset 0x123400000 --page-size 2M -q)"
bad "--flavor without --driver" "need --driver SERIES" p2p --chip AD102 --mode bar1 --bar1 0 --flavor tinygrad
bad "unknown flavor" "unknown flavor 'nvidia' (stock, tinygrad, aikitoria, duanyll)" p2p --chip AD102 --mode bar1 --bar1 0 --driver 565 --flavor nvidia
bad "unknown path" "unknown path 'cuda' (uvm, rm)" p2p --chip AD102 --mode bar1 --bar1 0 --driver 565 --path cuda
bad "entries not read" "driver 575 aikitoria (575 port (PR #31)): its BAR1-P2P entries were not read" p2p --chip AD102 --mode bar1 --bar1 0 --driver 575 --flavor aikitoria
bad "stock has no v2 BAR1-P2P" "the stock driver has no BAR1-P2P on Turing..Ada" p2p --chip AD102 --mode bar1 --bar1 0 --driver 595
bad "--iova on a bus-address row" "takes the peer's BAR1 bus address (gpumgrGetGpuPhysFbAddr), never an IOVA" p2p --chip AD102 --mode bar1 --iova 0 --driver 565 --flavor tinygrad
bad "--iova with --start-offset" "--start-offset goes with --bar1" p2p --chip GB202 --mode bar1 --iova 0 --start-offset 512M --driver 580
bad "start not aligned as 580 places it" "is not aligned to 0x20000000 as series 580-615 places it" p2p --chip GB202 --mode bar1 --bar1 0 --start-offset 2M --driver 580
bad "bad --driver" "bad --driver" p2p --chip GB202 --mode bar1 --bar1 0 --driver 58x
bad "unknown chip" "unknown chip 'RTX4090'" encode --chip RTX4090 VALID=1
bad "unknown format" "unknown format 'v4'" decode --format v4 0x1
bad "unknown field" "unknown field 'PEER_ID'" encode --chip AD102 PEER_ID=1
bad "unknown value" "bad value 'PEER' for APERTURE" encode --chip AD102 APERTURE=PEER
bad "checked overflow" "value 0xffffffff does not fit ADDRESS_VID_PEER (35:33, 3 bits, max 0x7)" \
	encode --chip AD102 ADDRESS_VID_PEER=0xffffffff
bad "address overflow" "address 0x28800000000 does not fit ADDRESS_VID (32:8, 25 bits" \
	encode --chip AD102 ADDRESS_VID=0x28800000000
bad "p2p 25-bit vid field" "does not fit ADDRESS_VID (32:8, 25 bits" \
	p2p --chip AD102 --mode nvlink --fabric-base 0x28800000000
bad "p2p bar1 needs --bar1" "needs --bar1" p2p --chip AD102 --mode bar1
bad "p2p unaligned bar1 for 2M" "not aligned to the page size" \
	p2p --chip GB202 --mode bar1 --bar1 0x28800001000 --page-size 2M
bad "p2p 512M on turing" "page size 0x20000000" p2p --chip TU102 --mode bar1 --bar1 0 --page-size 512M
bad "p2p unaligned offset names the page" "the page that contains it starts at offset 0x0" \
	p2p --chip AD102 --mode bar1 --bar1 0x28800000000 --offset 0x1000 --page-size 2M
bad "p2p stock bar1 form on v2" "path on Hopper, Blackwell and Rubin (v3-gh, v3-gb) only" \
	p2p --chip AD102 --mode bar1 --bar1-form stock --bar1 0x28800000000
# GR100 (Rubin): the driver's GMMU HAL assigns it v3 (kgmmuFmtInitPte_GH10X,
# kgmmuFmtInitLevels_GB10X, 615.71.09); its own dev_mmu.h is not public, so every command
# with --chip GR100 says so on stderr and stdout stays the entry: VALID 0:0, ADDRESS 51:12
# (hopper/gh100 dev_mmu.h NV_MMU_VER3_PTE_*) give 0x1001 for a video page at 0x1000.
"$P" encode --chip GR100 VALID=TRUE APERTURE=VIDEO_MEMORY ADDRESS=0x1000 >"$tmp/out" 2>"$tmp/err"
check "encode --chip GR100 (v3 bits)" 0x0000000000001001 "$(cat "$tmp/out")"
check "--chip GR100 notes the header" 1 \
	"$(grep -c "note: GR100: the formats are the driver's assignment.*dev_mmu.h is not public" "$tmp/err")"
check "--chip GB10C has no note" "0x0000000000001001" \
	"$("$P" encode --chip GB10C VALID=TRUE APERTURE=VIDEO_MEMORY ADDRESS=0x1000 2>&1)"
check "formats: the 615 chips under v3-gb" 1 \
	"$("$P" formats | grep -A1 '^v3-gb' | grep -c 'GB10B GB10C .* GB20C GR100 GR102$')"
check "formats --json: GR100's and GR102's notes" 2 \
	"$("$P" formats --json | grep -c '"note": "the formats are the driver')"
# The generations and formats those messages name come from the tables (the formats' flags).
bad "p2p nvswitch on v3" "mappings on Turing, Ampere and Ada (v2-tu, v2-ga) only" \
	p2p --chip GH100 --mode nvlink --nvswitch --fabric-base 0
bad "p2p --peer with the tinygrad form" "writes no peer index" \
	p2p --chip GB202 --mode bar1 --bar1-form tinygrad --peer 1 --bar1 0x28800000000
bad "p2p --vol and --cached" "not both" p2p --chip GB202 --mode bar1 --bar1 0 --vol --cached
bad "p2p --bar1-form without bar1" "applies to --mode bar1" p2p --chip GB202 --mode stock --bar1-form tinygrad
bad "p2p unknown bar1 form" "unknown BAR1-P2P form 'nvidia'" p2p --chip GB202 --mode bar1 --bar1 0 --bar1-form nvidia
bad "bad entry type" "unknown entry type" decode --chip AD102 --entry pdx 0x1
bad "bad value" "bad pte value" decode --chip AD102 0xzz
bad "too many digits" "bad pte value" decode --chip AD102 0x10000000000000000
bad "no chip" "--chip CHIP or --format" decode 0x1
bad "both chip and format" "not both" decode --chip AD102 --format v3 0x1
bad "no field=value" "expected FIELD=VALUE" encode --chip AD102 VALID
bad "unknown option" "unknown option" encode --chip AD102 --frobnicate VALID=1
bad "option of another command" "not valid here" encode --chip AD102 --mode bar1 VALID=1
bad "unknown command" "unknown command" frob
bad "formats bad option" "unknown option" formats --yaml

echo "cli_pte_decode: $fails failure(s)"
[ "$fails" -eq 0 ]
