#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pte-probe end to end on the captures the H100 and H200 machines recorded (580.159.04):
#   - the root run replays to "every entry agrees" (exit 0), in text and JSON, and the
#     entries are the ones the device run read (raw values checked against the capture);
#   - one entry altered in the capture (the sysmem PTE's aperture) is reported as differing,
#     naming the field, the driver's value and the model's (exit 1);
#   - the two-H200 peer captures (--peer 1 from GPU 0, --peer 0 from GPU 1) replay to every
#     entry agreeing, with the NVSwitch fabric base the 580 driver adds; the peer entries
#     checked on their own from the capture; altered peer entries differ; caps that say
#     PCIe BAR1-P2P select the BAR1-P2P model;
#   - the run without root is a partial report (table locations, "needs root", exit 3);
#   - the error cases give exit 2 and one line: unknown driver series, no /dev/nvidiactl,
#     no NVIDIA driver, a device node that is not one, --peer on a one-GPU host, a replay
#     with other options than the recording, a broken capture, files that are not a capture
#     (cut short, not JSON, a folder, /dev/zero: where and what was expected), bad options.
set -u
T=${P2PS_TOOLS_DIR:?}/pte-probe
F=${P2PS_SOURCE_DIR:?}/tests/fixtures/pte-probe
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
expect() { # RC CMD...: run with stdout/stderr in $W/out, $W/err
	local want=$1
	shift
	"$@" >"$W/out" 2>"$W/err"
	local rc=$?
	[ "$rc" -eq "$want" ] || {
		fail "exit $rc, wanted $want: $*"
		sed 's/^/  stderr: /' "$W/err" | head -5
	}
}
has() { grep -qF -- "$2" "$1" || fail "'$2' not in $1: $(head -c 300 "$1")"; }
one_line_error() { # exactly one line on stderr, prefixed, naming $1; nothing on stdout
	[ "$(wc -l <"$W/err")" -eq 1 ] || fail "error is not one line: $(cat "$W/err")"
	has "$W/err" "pte-probe: "
	has "$W/err" "$1"
	[ ! -s "$W/out" ] || fail "stdout not empty on error: $(head -c 200 "$W/out")"
}
command -v python3 >/dev/null || {
	echo "cli_pte_probe: python3 is required (scripts/deps.d/pte-probe.txt)" >&2
	exit 1
}
ROOT=$F/h100-580.159.04-root.json
USER_CAP=$F/h100-580.159.04-user.json
MIN=$F/h100-580.159.04-minimal.json
for f in "$ROOT" "$USER_CAP" "$MIN"; do
	[ -f "$f" ] || { echo "FAIL: missing fixture $f"; exit 1; }
done

# ---- the H100 root run: every entry agrees --------------------------------------------
expect 0 "$T" --replay "$ROOT"
has "$W/out" "GH100, format v3-gh), driver 580.159.04"
has "$W/out" "30 entries read (8 tables): 30 agree, 0 differ, 0 not modelled, 0 pages without a PTE, 0 unexplained"
has "$W/out" "RM objects: 14 allocated, 14 freed, 0 left; 13 mappings made, 13 removed"
has "$W/out" "GET_PTE_INFO: refused, NV_ERR_TEST_ONLY_CODE_NOT_ENABLED"
has "$W/out" "PD0[1]        vid 0x5010     0x0000000000200681  agrees (address: GET_SURFACE_PHYS_ATTR)"
[ "$(grep -c 'verdict: agrees' "$W/out")" -eq 13 ] || fail "not 13 mappings agreeing"
! grep -q DIFFERS "$W/out" || fail "DIFFERS in the H100 report"
expect 0 "$T" --replay "$MIN" --page-sizes 2M
has "$W/out" "4 mappings (0 failed)"
has "$W/out" "GET_PDE_INFO: tables 2M in vid 0x5000, 512M in vid 0x3000"
# An address space GET_PDE_INFO does not define (0 video, 1 and 2 system memory) is shown
# as the driver's number, not as video memory.
python3 - "$MIN" "$W/aspace.json" <<'EOF'
import json, sys
cap = json.load(open(sys.argv[1]))
c = next(c for c in cap["calls"] if c.get("what", "").endswith("DMA_GET_PDE_INFO"))
b = bytearray.fromhex(c["out_params"])
for o in range(32, len(b) - 23, 32):  # the tables: page size at +16, address space at +20
    if int.from_bytes(b[o + 16:o + 20], "little"):
        b[o + 20:o + 24] = (7).to_bytes(4, "little")
c["out_params"] = b.hex()
json.dump(cap, open(sys.argv[2], "w"))
EOF
expect 0 "$T" --replay "$W/aspace.json" --page-sizes 2M
has "$W/out" "GET_PDE_INFO: tables 2M in aperture 7 0x5000, 512M in aperture 7 0x3000"
# the H200 machine (same GH100 MMU, 141 GB, same driver): every entry agrees as well
expect 0 "$T" --replay "$F/h200-580.159.04-root.json"
has "$W/out" "(0000:00:06.0, 10de:2335, GH100, format v3-gh), driver 580.159.04"
has "$W/out" "30 entries read (8 tables): 30 agree, 0 differ"
expect 3 "$T" --replay "$F/h200-580.159.04-user.json"
has "$W/out" "reading page-table entries needs root"

# ---- two H200s on NVLink (NV18, through NVSwitches), 580.159.04: the peer entries, both
# ways. The driver adds the peer's NVSwitch fabric base, which 580 reports nowhere: the
# probe takes it from the first peer entry (held to the 2^39 map-slot alignment GH100
# requires) and checks every other peer entry against it. ------------------------------
PEER=$F/h200-580.159.04-peer.json
BACK=$F/h200-580.159.04-peer-back.json
expect 0 "$T" --replay "$PEER" --peer 1
has "$W/out" "peer: GPU 1, nvlink; this run changed the driver's peer state"
has "$W/out" "peer: id 0 (GET_P2P_CAPS_V2 busPeerIds), caps 0x1b (writes, reads, nvlink, atomics), BAR1-P2P window none"
has "$W/out" "nvlink OK, atomics OK, prop NOT_SUPPORTED, loopback NOT_SUPPORTED, pci NOT_SUPPORTED, c2c NOT_SUPPORTED, pci_bar1 NOT_SUPPORTED"
has "$W/out" "peer: fabric base 0x8230000000000: driver 580.159.04 reports none (NV503B does from 590); taken from peer-4k's first entry"
has "$W/out" "36 entries read (8 tables): 36 agree, 0 differ, 0 not modelled, 0 pages without a PTE, 0 unexplained"
has "$W/out" "PT_SMALL[12]  vid 0x6060     0x000823000000068b  agrees (address: fabric base taken from this entry, FB offset checked)"
has "$W/out" "PD0[8]        vid 0x5080     0x000823000020068b  agrees (address: fabric base from the first peer entry + GET_SURFACE_PHYS_ATTR)"
has "$W/out" "RM objects: 20 allocated, 20 freed, 0 left; 16 mappings made, 16 removed"
[ "$(grep -c 'verdict: agrees' "$W/out")" -eq 16 ] || fail "not 16 mappings agreeing (--peer 1)"
expect 0 "$T" --replay "$BACK" --gpu 1 --peer 0
has "$W/out" "pte-probe: GPU 1 (0000:00:07.0, 10de:2335, GH100, format v3-gh)"
has "$W/out" "peer: fabric base 0x8210000000000: driver 580.159.04 reports none"
has "$W/out" "36 entries read (8 tables): 36 agree, 0 differ"
has "$W/out" "PD0[9]        vid 0x5090     0x000821000040068b  agrees"
[ "$(grep -c 'verdict: agrees' "$W/out")" -eq 16 ] || fail "not 16 mappings agreeing (--peer 0)"
# a capture replays only with the options it was recorded with
expect 2 "$T" --replay "$PEER"
one_line_error "replay: call"

# The peer entries read on their own (bit positions of hopper/gh100 dev_mmu.h, not libgmmu):
# the words the capture's pages hold, PEER aperture, the peer id GET_P2P_CAPS_V2 answered,
# PCF 0x11 (REGULAR_RW_ATOMIC_UNCACHED_ACD), KIND 6, address = one base + the FB offset,
# the base 2^39-aligned, and each GPU's base its own.
: >"$W/bases"
for run in "$PEER --peer 1" "$BACK --gpu 1 --peer 0"; do
	# shellcheck disable=SC2086
	"$T" --replay $run --json >"$W/peer.json" || fail "JSON replay of $run"
	python3 - "$W/peer.json" "${run%% *}" >>"$W/bases" <<'EOF' || fail "peer entries of $run"
import json, sys
rep = json.load(open(sys.argv[1]))
cap = json.load(open(sys.argv[2]))
pages, off, caps = {}, None, None
for c in cap["calls"]:
    if c["op"] == "escape" and c["what"].startswith("MAP_MEMORY (read-only)"):
        off = int.from_bytes(bytes.fromhex(c["in"])[16:24], "little")
    if c["op"] == "mmap":
        pages[off] = {int(k, 16): int(v, 16) for k, v in c["words"].items()}
    if c["op"] == "escape" and c["what"].endswith("GET_P2P_CAPS_V2"):
        caps = bytes.fromhex(c["out_params"])
word = lambda pa: pages[pa & ~0xfff].get(pa & 0xfff, 0)
assert int.from_bytes(caps[132:136], "little") == 0x1b
peer_id = int.from_bytes(caps[156 + 4:156 + 8], "little")     # busPeerIds[0 * 2 + 1]
ents, bases, n = rep["entries"], set(), 0
for m in rep["mappings"]:
    if m["memory"] != "peer video":
        continue
    assert m["state"] == "mapped" and m["verdict"] == "agrees", m
    for p in m["pages"]:
        e = ents[p["pte_entry"]]
        raw = int(e["raw"], 16)
        assert raw == word(int(e["entry_pa"], 16)) and e["verdict"] == "agrees", e
        assert raw & 1 and (raw >> 1) & 3 == 1, hex(raw)                 # VALID, PEER
        assert (raw >> 3) & 0x1f == 0x11 and (raw >> 8) & 0xf == 6, hex(raw)
        assert raw >> 61 == peer_id, hex(raw)
        addr = raw & ((1 << 52) - 1) & ~0xfff                           # ADDRESS 51:12
        bases.add(addr - int(p["address"], 16))
        n += 1
assert n == 6 and len(bases) == 1, (n, bases)
base = bases.pop()
assert base and base % (1 << 39) == 0 and rep["peer"]["fabric_base"] == hex(base), hex(base)
assert rep["peer"]["fabric_source"] == "inferred" and rep["peer"]["peer_id"] == peer_id
print(hex(base))
EOF
done
[ "$(sort -u "$W/bases" | wc -l)" -eq 2 ] || fail "the two GPUs' fabric bases: $(cat "$W/bases")"

# Altered peer entries must differ: another GPU's base in PT_BIG[5] (ADDRESS), peer id 1 in
# PD0[8] (PEER_ID), and the entry the base is taken from off by a page (no 2^39-aligned
# base: 0 assumed, every peer entry differs).
alter() { # CAPTURE OUT ENTRY_PA XOR: one word of the capture's table pages flipped
	python3 - "$@" <<'EOF'
import json, sys
cap = json.load(open(sys.argv[1]))
pa, xor, off = int(sys.argv[3], 16), int(sys.argv[4], 16), None
for c in cap["calls"]:
    if c["op"] == "escape" and c["what"].startswith("MAP_MEMORY (read-only)"):
        off = int.from_bytes(bytes.fromhex(c["in"])[16:24], "little")
    if c["op"] == "mmap" and off == pa & ~0xfff:
        k = "0x%x" % (pa & 0xfff)
        c["words"][k] = "0x%016x" % (int(c["words"][k], 16) ^ xor)
json.dump(cap, open(sys.argv[2], "w"))
EOF
}
alter "$PEER" "$W/p1.json" 0x7028 0x0000020000000000 || fail "alter PT_BIG[5]"
expect 1 "$T" --replay "$W/p1.json" --peer 1
has "$W/out" "35 agree, 1 differ"
grep -q "ADDRESS  *driver 0x8210000010000  *model 0x8230000010000" "$W/out" ||
	fail "altered peer address not named: $(grep -A2 DIFFERS "$W/out")"
alter "$PEER" "$W/p2.json" 0x5080 0x2000000000000000 || fail "alter PD0[8]"
expect 1 "$T" --replay "$W/p2.json" --peer 1
has "$W/out" "35 agree, 1 differ"
grep -q "PEER_ID  *driver 1  *model 0" "$W/out" ||
	fail "altered peer id not named: $(grep -A2 DIFFERS "$W/out")"
alter "$PEER" "$W/p3.json" 0x6060 0x1000 || fail "alter PT_SMALL[12]"
expect 1 "$T" --replay "$W/p3.json" --peer 1
has "$W/out" "peer: fabric base unknown, 0 assumed: driver 580.159.04 reports none and peer-4k's entry implies 0x8230000001000, not aligned to 2^39"
has "$W/out" "30 agree, 6 differ"
# The caps decide the model, as they decide NV50_P2P's connection type: the same capture
# with caps that say PCIe BAR1-P2P (writes, reads, pci, pci_bar1) is checked against the
# BAR1-P2P model, and the driver's NVLink entries differ from it in aperture.
python3 - "$PEER" "$W/bar1caps.json" <<'EOF' || fail "could not edit the caps"
import json, sys
cap = json.load(open(sys.argv[1]))
c = next(c for c in cap["calls"] if c["op"] == "escape" and c["what"].endswith("GET_P2P_CAPS_V2"))
p = bytearray.fromhex(c["out_params"])
p[132:136] = (0x2043).to_bytes(4, "little")
c["out_params"] = p.hex()
json.dump(cap, open(sys.argv[2], "w"))
EOF
expect 1 "$T" --replay "$W/bar1caps.json" --peer 1
has "$W/out" "peer: GPU 1, bar1;"
has "$W/out" "caps 0x2043 (writes, reads, pci, pci_bar1)"
grep -q "APERTURE  *driver PEER_MEMORY  *model SYSTEM_NON_COHERENT_MEMORY" "$W/out" ||
	fail "BAR1-P2P model not used: $(grep -A3 DIFFERS "$W/out" | head -5)"
! grep -q "fabric base" "$W/out" || fail "a fabric base for a BAR1-P2P peer"

# JSON: each PTE the probe mapped is the value the capture's page held at its entry address
# (read independently here from the capture's words), and every entry agrees.
expect 0 "$T" --replay "$ROOT" --json
python3 - "$W/out" "$ROOT" <<'EOF' || fail "JSON report check"
import json, sys
rep = json.load(open(sys.argv[1]))
cap = json.load(open(sys.argv[2]))
pages, off = {}, None
for c in cap["calls"]:
    if c["op"] == "escape" and c["what"].startswith("MAP_MEMORY (read-only)"):
        off = int.from_bytes(bytes.fromhex(c["in"])[16:24], "little")
    if c["op"] == "mmap":
        pages[off] = {int(k, 16): int(v, 16) for k, v in c["words"].items()}
def word(pa):
    return pages[pa & ~0xfff].get(pa & 0xfff, 0)
ents = rep["entries"]
assert rep["driver"] == "580.159.04" and rep["chip"] == "GH100" and rep["root"], rep
assert len(ents) == 30, len(ents)
assert all(e["verdict"] == "agrees" for e in ents)
ptes = [e for e in ents if e["kind"] == "pte"]
assert len(ptes) == 24, len(ptes)
for e in ptes:
    raw = int(e["raw"], 16)
    assert raw == word(int(e["entry_pa"], 16)), e
    assert e["model"] == e["raw"], e
want = {"vid-2m": 0x200681, "vid-512m": 0x20000681, "vid-2m-ro": 0x2006a1,
        "vid-2m-uncached": 0x200689}
seen = {}
for m in rep["mappings"]:
    assert m["state"] == "mapped" or m["memory"] == "peer video", m
    if m["state"] == "mapped":
        assert m["verdict"] == "agrees", m
        e = ents[m["pages"][0]["pte_entry"]]
        seen[m["name"]] = int(e["raw"], 16)
for k, v in want.items():
    assert seen[k] == v, (k, hex(seen[k]))
# system memory: coherent 0x..d, non-coherent 0x..f, same page
assert seen["sys-4k-coh"] & 7 == 5 and seen["sys-4k-noncoh"] & 7 == 7
assert seen["sys-4k-coh"] >> 12 == seen["sys-4k-noncoh"] >> 12
s = rep["summary"]
assert (s["agree"], s["differ"], s["missing"], s["rm_objects_left"]) == (30, 0, 0, 0), s
EOF

# ---- one altered entry: the capture's sys-4k-coh PTE made non-coherent ----------------
python3 - "$W/out" "$ROOT" "$W/altered.json" <<'EOF' || fail "could not alter the capture"
import json, sys
rep = json.load(open(sys.argv[1]))
cap = json.load(open(sys.argv[2]))
m = next(m for m in rep["mappings"] if m["name"] == "sys-4k-coh")
e = rep["entries"][m["pages"][0]["pte_entry"]]
pa = int(e["entry_pa"], 16)
off = None
for c in cap["calls"]:
    if c["op"] == "escape" and c["what"].startswith("MAP_MEMORY (read-only)"):
        off = int.from_bytes(bytes.fromhex(c["in"])[16:24], "little")
    if c["op"] == "mmap" and off == pa & ~0xfff:
        k = "0x%x" % (pa & 0xfff)
        v = int(c["words"][k], 16)
        c["words"][k] = "0x%016x" % (v | 0x6)   # APERTURE 2 -> 3
json.dump(cap, open(sys.argv[3], "w"))
EOF
expect 1 "$T" --replay "$W/altered.json"
has "$W/out" "29 agree, 1 differ"
has "$W/out" "DIFFERS (model 0x0000000150cdb68d)"
grep -q "APERTURE  *driver SYSTEM_NON_COHERENT_MEMORY  *model SYSTEM_COHERENT_MEMORY" "$W/out" ||
	fail "the altered field is not named with both values: $(grep -A2 DIFFERS "$W/out")"
has "$W/out" "verdict: DIFFERS"
expect 1 "$T" --replay "$W/altered.json" --json
python3 - "$W/out" <<'EOF' || fail "altered JSON"
import json, sys
rep = json.load(open(sys.argv[1]))
d = [e for e in rep["entries"] if e["verdict"] == "differs"]
assert len(d) == 1 and d[0]["differences"] == [{"field": "APERTURE",
    "driver": "SYSTEM_NON_COHERENT_MEMORY", "model": "SYSTEM_COHERENT_MEMORY"}], d
assert [m["name"] for m in rep["mappings"] if m.get("verdict") == "differs"] == ["sys-4k-coh"]
EOF

# ---- a driver that answers GET_PTE_INFO (the 580 build refuses it): the first page's
# answer put into the capture, once as the model has it, once with another aperture --------
for ap in 0 2; do
	python3 - "$ROOT" "$W/pteinfo$ap.json" "$ap" <<'EOF' || fail "could not edit GET_PTE_INFO"
import json, sys
cap = json.load(open(sys.argv[1]))
c = next(c for c in cap["calls"] if c["op"] == "escape" and c["what"].endswith("GET_PTE_INFO"))
out = bytearray.fromhex(c["out"]); out[28:32] = bytes(4)          # NVOS54 status: NV_OK
p = bytearray.fromhex(c["out_params"])                            # pteBlocks[0] at 16
p[16:24] = (4096).to_bytes(8, "little"); p[24:32] = (8).to_bytes(8, "little")
p[36:40] = (6).to_bytes(4, "little")                              # kind GENERIC_MEMORY
flags = 1 | int(sys.argv[3]) << 3 | 1 << 11 | 1 << 16             # VALID, APERTURE, GPU_CACHED, ATOMIC
p[40:44] = flags.to_bytes(4, "little")
c["out"], c["out_params"] = out.hex(), p.hex()
json.dump(cap, open(sys.argv[2], "w"))
EOF
done
expect 0 "$T" --replay "$W/pteinfo0.json"
has "$W/out" "GET_PTE_INFO: agrees (valid 1, aperture 0 (model 0), cached 1 (model 1), read-only 0 (model 0), kind 6 (model 6))"
has "$W/out" "GET_PTE_INFO: 1 pages agree, 0 differ"
expect 1 "$T" --replay "$W/pteinfo2.json"
has "$W/out" "GET_PTE_INFO: DIFFERS (valid 1, aperture 2 (model 0)"
has "$W/out" "GET_PTE_INFO: 0 pages agree, 1 differ"

# ---- without root: table locations, a note that entries need root, exit 3 -------------
expect 3 "$T" --replay "$USER_CAP"
has "$W/out" "not as root"
has "$W/out" "GET_PDE_INFO: tables 4K in vid 0x6000, 64K in vid 0x7000, 2M in vid 0x5000, 512M in vid 0x3000"
has "$W/out" "reading page-table entries needs root"
has "$W/out" "NV_ERR_INSUFFICIENT_PERMISSIONS"
has "$W/out" "RM objects: 13 allocated, 13 freed, 0 left"

# ---- errors: exit 2, one line --------------------------------------------------------
R=$W/root
mkdir -p "$R/proc/driver/nvidia" "$R/dev"
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.43.02  Release Build\n' \
	>"$R/proc/driver/nvidia/version"
expect 2 "$T" --root "$R"
one_line_error "NVIDIA driver 610.43.02: the RM API struct layouts of series 610 are not known"
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build\n' \
	>"$R/proc/driver/nvidia/version"
expect 2 "$T" --root "$R"
one_line_error "cannot open /dev/nvidiactl: No such file or directory"
: >"$R/dev/nvidiactl"
expect 2 "$T" --root "$R"
one_line_error "RM_ALLOC NV01_ROOT_CLIENT: ioctl("
mkdir -p "$W/empty"
expect 2 "$T" --root "$W/empty"
one_line_error "no NVIDIA kernel driver is loaded"
expect 2 "$T" --replay "$ROOT" --peer 1
one_line_error "--peer 1: needs a second GPU, and the driver lists 1 GPU"
expect 2 "$T" --replay "$ROOT" --gpu 3
one_line_error "--gpu 3: the driver lists 1 GPU"
expect 2 "$T" --replay "$ROOT" --page-sizes 4K
one_line_error "replay: call"
expect 2 "$T" --replay "$W/nonexistent.json"
one_line_error "nonexistent.json"
printf '{"format": "p2pscope-rm-capture", "version": 1, "calls": [{"op": 7}]}' >"$W/bad.json"
expect 2 "$T" --replay "$W/bad.json"
one_line_error "call 0: \"op\": not a string"
# Files that are not a capture: what is wrong in the reader's words (where, what was
# expected), never json-c's internals ("continue", "json_tokener", a byte offset).
head -c 55 "$ROOT" >"$W/cut.json"
expect 2 "$T" --replay "$W/cut.json"
one_line_error "$W/cut.json: not valid JSON: it ends at line 4 before the document is complete"
has "$W/err" "; a capture written by --record was expected"
printf '{"format": "p2pscope-rm-capture",, "version": 1}' >"$W/comma.json"
expect 2 "$T" --replay "$W/comma.json"
one_line_error "$W/comma.json: not valid JSON at line 1, column 34: expected a quoted member name"
expect 2 "$T" --replay "$W"
one_line_error "$W: a folder, not a JSON file"
expect 2 timeout 60 "$T" --replay /dev/zero
one_line_error "/dev/zero: larger than 64 MiB"
for f in cut comma; do
	"$T" --replay "$W/$f.json" 2>&1 | grep -Eq 'continue|json_tokener|near byte' &&
		fail "--replay $f.json shows the JSON library's internals"
done
expect 2 "$T" --gpu x
one_line_error "--gpu: 'x' is not a GPU index"
expect 2 "$T" --page-sizes 3M
one_line_error "--page-sizes: '3M'"
expect 2 "$T" --record "$W/a" --replay "$ROOT"
one_line_error "exclude each other"
expect 2 "$T" --peer 0
one_line_error "--peer 0 is the GPU probed"
expect 2 "$T" --bogus
one_line_error "unknown option --bogus"
expect 0 "$T" --help
has "$W/out" "changes"

# ---- the documentation stays true ----------------------------------------------------
D=$P2PS_SOURCE_DIR/docs
# the excluded-control list in docs/pte-probe.md is what the library refuses
"$T" --excluded >"$W/excluded"
awk '/^0x0080180a/ { on = 1 } on && /^```/ { exit } on' "$D/pte-probe.md" >"$W/excluded.doc"
diff -u "$W/excluded.doc" "$W/excluded" || fail "docs/pte-probe.md's excluded list is stale"
[ "$(wc -l <"$W/excluded")" -ge 15 ] || fail "excluded list too short"
# the committed H100 reports are what the capture replays to
R=$D/results/pte-probe/2026-11-24-h100
"$T" --replay "$ROOT" | diff -u "$R/pte-probe.txt" - >/dev/null ||
	fail "$R/pte-probe.txt differs from the replay (regenerate it)"
"$T" --replay "$ROOT" --json | diff -u "$R/pte-probe.json" - >/dev/null ||
	fail "$R/pte-probe.json differs from the replay"
"$T" --replay "$USER_CAP" | diff -u "$R/pte-probe-user.txt" - >/dev/null ||
	fail "$R/pte-probe-user.txt differs from the replay"
R=$D/results/pte-probe/2026-11-24-h200x2
"$T" --replay "$PEER" --peer 1 | diff -u "$R/pte-probe-peer.txt" - >/dev/null ||
	fail "$R/pte-probe-peer.txt differs from the replay"
"$T" --replay "$PEER" --peer 1 --json | diff -u "$R/pte-probe-peer.json" - >/dev/null ||
	fail "$R/pte-probe-peer.json differs from the replay"
"$T" --replay "$BACK" --gpu 1 --peer 0 | diff -u "$R/pte-probe-peer-back.txt" - >/dev/null ||
	fail "$R/pte-probe-peer-back.txt differs from the replay"
# the device run's own report (the model without the fabric base then): only the peer
# entries' ADDRESS differed, and the replay differs from it in exactly those places
[ "$(grep -c "^      ADDRESS  *driver 0x823" "$R/device-run-peer.txt")" -eq 6 ] &&
	[ "$(grep -c "DIFFERS (model" "$R/device-run-peer.txt")" -eq 6 ] &&
	[ "$(grep -cE "^      [A-Z_]+  +driver" "$R/device-run-peer.txt")" -eq 6 ] ||
	fail "$R/device-run-peer.txt: not 6 ADDRESS differences and nothing else"
# (the docs' console examples of replays are run and compared by ctest doc_commands)

# a replay's JSON twin of the minimal run
expect 0 "$T" --replay "$MIN" --page-sizes 2M --json
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "cli_pte_probe: all checks passed"
