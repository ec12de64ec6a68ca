#!/usr/bin/env bash
# pte-probe end to end on the captures the H100 and H200 machines recorded (580.159.04):
#   - the root run replays to "every entry agrees" (exit 0), in text and JSON, and the
#     entries are the ones the device run read (raw values checked against the capture);
#   - one entry altered in the capture (the sysmem PTE's aperture) is reported as differing,
#     naming the field, the driver's value and the model's (exit 1);
#   - the run without root is a partial report (table locations, "needs root", exit 3);
#   - the error cases give exit 2 and one line: unknown driver series, no /dev/nvidiactl,
#     no NVIDIA driver, a device node that is not one, --peer on a one-GPU host, a replay
#     with other options than the recording, a broken capture, bad options.
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
# the H200 machine (same GH100 MMU, 141 GB, same driver): every entry agrees as well
expect 0 "$T" --replay "$F/h200-580.159.04-root.json"
has "$W/out" "(0000:00:06.0, 10de:2335, GH100, format v3-gh), driver 580.159.04"
has "$W/out" "30 entries read (8 tables): 30 agree, 0 differ"
expect 3 "$T" --replay "$F/h200-580.159.04-user.json"
has "$W/out" "reading page-table entries needs root"

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
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build\n' \
	>"$R/proc/driver/nvidia/version"
expect 2 "$T" --root "$R"
one_line_error "NVIDIA driver 565.57.01: the RM API struct layouts of series 565 are not known"
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
# the README section's console example: each "$ pte-probe ..." line, run from the source
# tree, prints the lines that follow it; and README.md holds the section verbatim
python3 - "$D/readme/pte-probe.md" "$P2PS_SOURCE_DIR/README.md" "$T" "$P2PS_SOURCE_DIR" <<'PY' ||
import subprocess, sys
doc = open(sys.argv[1]).read()
assert doc.strip() in open(sys.argv[2]).read(), "README.md lacks docs/readme/pte-probe.md"
block = doc.split("```console\n", 1)[1].split("```", 1)[0]
runs, cmd = [], None
for line in block.splitlines():
    if line.startswith("$ "):
        runs.append([line[2:], []])
    else:
        runs[-1][1].append(line)
assert len(runs) == 2, runs
for cmd, want in runs:
    got = subprocess.run(cmd.replace("pte-probe", sys.argv[3], 1), shell=True, cwd=sys.argv[4],
                         capture_output=True, text=True).stdout.splitlines()
    assert got == want, (cmd, got, want)
PY
	fail "README section or its example"

# a replay's JSON twin of the minimal run
expect 0 "$T" --replay "$MIN" --page-sizes 2M --json
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "cli_pte_probe: all checks passed"
