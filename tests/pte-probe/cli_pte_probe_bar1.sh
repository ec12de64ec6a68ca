#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pte-probe on BAR1-P2P peers: the two-H200 capture with its peer entries rewritten the way
# each listed driver's RM map step writes them (tests/fixtures/pte-probe/bar1p2p/, made by
# make_bar1_capture.py from the real capture):
#   - each form agrees under its driver row, with the row, the static-BAR1 base and start
#     printed (start 0, 16 MiB, 512 MiB; an IOVA; NV503B's window; per-mapping offsets);
#   - a start the series cannot have is reported, not silently accepted;
#   - one field corrupted at a time (address +4 KiB, +2 MiB, aperture, PEER_ID, PCF cached,
#     KIND 0) differs in exactly that entry, naming the field, in text and JSON.
# The expected words are computed here from hopper/gh100 dev_mmu.h bit positions, not by
# libgmmu.
set -u
T=${P2PS_TOOLS_DIR:?}/pte-probe
F=${P2PS_SOURCE_DIR:?}/tests/fixtures/pte-probe
D=$F/bar1p2p
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
has() { grep -qF -- "$2" "$1" || fail "'$2' not in $1: $(grep -E '^peer|summary' "$1" | head -8)"; }
run() { # RC CAPTURE ARGS...: pte-probe --replay CAPTURE --peer 1 ARGS, output in $W/out
	local want=$1 cap=$2
	shift 2
	"$T" --replay "$cap" --peer 1 "$@" >"$W/out" 2>"$W/err"
	local rc=$?
	[ "$rc" -eq "$want" ] || fail "exit $rc, wanted $want: $cap $* ($(head -c 300 "$W/err"))"
}
command -v python3 >/dev/null || {
	echo "cli_pte_probe_bar1: python3 is required (scripts/deps.d/pte-probe.txt)" >&2
	exit 1
}
ALL="36 entries read (8 tables): 36 agree, 0 differ, 0 not modelled, 0 pages without a PTE, 0 unexplained"
ROW580="peer: BAR1-P2P row 580-615 stock rm Hopper: SYS_NONCOH (dmaAllocBar1P2PMapping_GH100"

# ---- each form as its driver writes it: agrees, base and start printed ----------------
run 0 "$D/h200-580-start512m.json"
has "$W/out" "peer: GPU 1, bar1;"
has "$W/out" "$ROW580"
has "$W/out" "peer: static BAR1 0x108020000000 = bus address 0x108000000000 + start 0x20000000: driver 580.159.04 reports no BAR1-P2P window"
has "$W/out" "taken from peer-4k's first entry less its FB offset, aligned to 2^29 as series 580 requires"
has "$W/out" "$ALL"
has "$W/out" "(address: static BAR1 taken from this entry, FB offset checked)"
has "$W/out" "(address: static BAR1 from the first peer entry + GET_SURFACE_PHYS_ATTR)"
run 0 "$D/h200-580-start0.json"
has "$W/out" "peer: static BAR1 0x108000000000 = bus address 0x108000000000 + start 0x0:"
has "$W/out" "$ALL"
run 0 "$D/h200-580-iova.json"
has "$W/out" "peer: static BAR1 0x4000000000 (an IOVA: the bus address is 0x108000000000)"
has "$W/out" "$ALL"
run 0 "$D/h200-580-window.json"
has "$W/out" "BAR1-P2P window 0x108020000000 (+0x2300000000)"
has "$W/out" "peer: static BAR1 0x108020000000 = bus address 0x108000000000 + start 0x20000000 (NV503B l2pBar1P2PDmaInfo)"
has "$W/out" "$ALL"
has "$W/out" "(address: NV503B BAR1-P2P window + GET_SURFACE_PHYS_ATTR (peer FB offset))"
for fl in stock aikitoria; do
	run 0 "$D/h200-570-start16m.json" --series 570 --flavor $fl
	has "$W/out" "peer: static BAR1 0x108001000000 = bus address 0x108000000000 + start 0x1000000"
	has "$W/out" "aligned to 2^21 as series 570 requires"
	has "$W/out" "$ALL"
done
has "$W/out" "peer: BAR1-P2P row 570 aikitoria rm Hopper: SYS_NONCOH (dmaAllocBar1P2PMapping_GH100 (not edited), aikitoria 570.86.16-p2p)"
run 0 "$D/h200-580-start0.json" --series 565 --flavor tinygrad
has "$W/out" "peer: BAR1-P2P row 565 tinygrad rm Hopper"
has "$W/out" "$ALL"
run 0 "$D/h200-580-start0.json" --series 550
has "$W/out" "peer: BAR1-P2P row 550-565 stock rm Hopper"
has "$W/out" "$ALL"
run 0 "$D/h200-550-dynamic.json" --series 550 --flavor tinygrad
has "$W/out" "peer: BAR1-P2P row 550 tinygrad rm Hopper"
has "$W/out" "peer: the row maps each allocation at a BAR1 offset of its own"
has "$W/out" "$ALL"
# JSON: the row, source, base and start
run 0 "$D/h200-580-start512m.json" --json
python3 - "$W/out" <<'PY' || fail "JSON peer fields"
import json, sys
pe = json.load(open(sys.argv[1]))["peer"]
assert pe["mode"] == "bar1" and pe["bar1_source"] == "inferred", pe
assert pe["bar1_row"] == "580-615 stock rm Hopper" and "dmaAllocBar1P2PMapping_GH100" in pe["bar1_row_source"]
assert (pe["bar1_base"], pe["bar1_start"], pe["bar1_from"]) == ("0x108020000000", "0x20000000", "peer-4k"), pe
PY

# ---- a start the series cannot have: said so, and the entries differ ---------------------
run 1 "$D/h200-580-start512m.json" --series 565
has "$W/out" "peer: static BAR1 unknown, the bus address 0x108000000000 assumed: peer-4k's entry implies start 0x20000000, but series 550-565 places the static BAR1 at offset 0"
has "$W/out" "30 agree, 6 differ"
run 1 "$D/h200-570-start16m.json"
has "$W/out" "peer-4k's entry implies 0x108001000000, not aligned to 2^29 as series 580 places the static BAR1"
# a flavor without the series: its newest older row, said to be assumed (tinygrad 565's RM
# step is NVIDIA's, static BAR1 at offset 0: the 512 MiB start differs)
run 1 "$D/h200-580-start512m.json" --flavor tinygrad
has "$W/out" "peer: driver: 580 tinygrad has no row in the driver table: modelled as tinygrad 565 (565.57.01-p2p), the newest tinygrad row not newer than it (assumed)"
has "$W/out" "but series 565 places the static BAR1 at offset 0"
# no row at all: aikitoria's port was read in nv_gpu_ops.c only
run 3 "$D/h200-580-start512m.json" --flavor aikitoria
has "$W/out" "peer: no BAR1-P2P model: aikitoria's 595.71.05 port was read in its nv_gpu_ops.c only"
# on-demand windows (duanyll): the row says its RM path was not read, so unknown (3), not
# flagged; its UVM rows hold the entries to the window's aperture and flags only
run 3 "$D/h200-580-start512m.json" --flavor duanyll
has "$W/out" "peer: BAR1-P2P row 595-615 duanyll rm Hopper"
has "$W/out" "RM mapping path (NVOS46 through NV50_P2P) was not read"

# ---- one field at a time, on peer-2m's first entry (PD0[8], vid 0x5080) ---------------
# The entry as written: VALID | SYS_NONCOH 3 << 1 | PCF 0x11 << 3 | KIND 6 << 8 |
# ADDRESS 0x108020000000 + FB offset 0x200000.
good=$(printf '0x%016x' $((1 | 3 << 1 | 0x11 << 3 | 6 << 8 | 0x108020200000)))
[ "$good" = 0x000010802020068f ] || fail "expected word $good"
corrupt() { # FIELD DRIVER MODEL: the one difference
	python3 "$D/make_bar1_capture.py" "$F/h200-580.159.04-peer.json" "$W/c.json" \
		--start 0x20000000 --corrupt "$1" || fail "make_bar1_capture --corrupt $1"
	run 1 "$W/c.json"
	has "$W/out" "35 agree, 1 differ"
	has "$W/out" "DIFFERS (model $good)"
	grep -qE "^      $2 +driver $3 +model $4\$" "$W/out" ||
		fail "$1: '$2 driver $3 model $4' not named: $(grep -A2 'DIFFERS (' "$W/out" | head -4)"
	[ "$(grep -cE '^      [A-Z_(]' "$W/out")" -eq 1 ] || fail "$1: more than one field differs"
}
corrupt addr4k ADDRESS 0x108020201000 0x108020200000
corrupt addr2m ADDRESS 0x108020400000 0x108020200000
corrupt aperture APERTURE SYSTEM_COHERENT_MEMORY SYSTEM_NON_COHERENT_MEMORY
corrupt peer_id PEER_ID "0x1 \(unused here\)" "0x0 \(unused here\)"
corrupt pcf_cached PCF REGULAR_RW_ATOMIC_CACHED_ACD REGULAR_RW_ATOMIC_UNCACHED_ACD
corrupt kind0 KIND PITCH GENERIC_MEMORY
"$T" --replay "$W/c.json" --peer 1 --json >"$W/j" 2>/dev/null
python3 - "$W/j" <<'PY' || fail "JSON names KIND"
import json, sys
d = [e for e in json.load(open(sys.argv[1]))["entries"] if e["verdict"] == "differs"]
assert len(d) == 1 and d[0]["differences"] == [{"field": "KIND", "driver": "PITCH", "model": "GENERIC_MEMORY"}], d
PY
# the entry the base is taken from, off by 4 KiB: no base aligned as 580 requires
python3 "$D/make_bar1_capture.py" "$F/h200-580.159.04-peer.json" "$W/c.json" --start 0x20000000 \
	--corrupt addr4k --at 0x6060 || fail "make_bar1_capture --at 0x6060"
run 1 "$W/c.json"
has "$W/out" "peer-4k's entry implies 0x108020001000, not aligned to 2^29"

# ---- the 550-570 patches' gmmuFmtPtePhysAddrFld(PEER) on the real NVLink capture: v3 keeps
# one ADDRESS field for both apertures, so nothing changes, and the report says so ---------
run 0 "$F/h200-580.159.04-peer.json" --series 565 --flavor tinygrad
has "$W/out" "peer: the tinygrad 565 patch makes gmmuFmtPtePhysAddrFld(PEER) return the sysmem address field, and RM's peer entries carry the address there (v3: the same bits, no change)"
has "$W/out" "$ALL"
run 0 "$F/h200-580.159.04-peer.json"
! grep -q "gmmuFmtPtePhysAddrFld" "$W/out" || fail "the PEER-field note on a stock driver"

# ---- bad options ------------------------------------------------------------------------
"$T" --flavor nvidia >/dev/null 2>"$W/err" && fail "--flavor nvidia accepted"
grep -q "^pte-probe: --flavor: unknown flavor 'nvidia' (stock, tinygrad, aikitoria, duanyll)" "$W/err" || fail "flavor error: $(cat "$W/err")"
"$T" --series x >/dev/null 2>"$W/err" && fail "--series x accepted"
grep -q "^pte-probe: --series: 'x' is not a driver series" "$W/err" || fail "series error: $(cat "$W/err")"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "cli_pte_probe_bar1: all checks passed"
