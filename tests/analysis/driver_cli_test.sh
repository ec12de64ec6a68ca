#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --driver: the model beside what the driver printed on a real 2 x H200 host
# (tests/fixtures/h200x2-driver: nvidia-smi topo -p2p r, w, n, a, p of driver 580.159.04),
# a series newer than the model, bad arguments, and the shared pastes that show topo -p2p.
set -uo pipefail
bi=${P2PS_TOOLS_DIR:?}/bar-inspect
src=${P2PS_SOURCE_DIR:?}
snap=$src/tests/fixtures/h200x2-driver
. "$src/tests/support/p2ps_test.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

"$bi" --root "$snap" --driver auto >"$tmp/text" || fail "--driver auto exit status"
# What the driver printed there (topo -p2p r/w/n/a: OK, p: NS) and the model's codes.
grep -q 'path nvlink; r OK  w OK  n OK  a OK  p NS' "$tmp/text" || fail "model codes on the H200 pair"
grep -q 'driver reported (nvidia-smi topo -p2p (snapshot)): r OK  w OK  n OK  a OK  p NS : agrees' \
	"$tmp/text" || fail "the driver's own codes, or agreement: $(grep -A1 'driver reported' "$tmp/text")"
grep -q 'CPU: GenuineIntel family 6 model 207: driver CPU type INTEL_OTHER' "$tmp/text" ||
	fail "CPU type (cpu.c: only model 143 is XEON_SPR)"
"$bi" --root "$snap" --driver auto --json >"$tmp/json" || fail "--json exit status"
grep -q '"driver_model"' "$tmp/json" || fail "JSON has no driver_model"
grep -q '"agrees":true' "$tmp/json" || grep -q '"agrees": true' "$tmp/json" || fail "JSON agreement"
# Outputs go to files first: grep -q would end a pipe early (SIGPIPE under pipefail).
"$bi" --root "$snap" --driver auto --dot >"$tmp/dot"
grep -q 'driver: nvlink' "$tmp/dot" || fail "dot edge"
"$bi" --root "$snap" --driver 620 >"$tmp/620"
grep -q 'note: 620 stock has no row in the driver table: modelled as stock 615 (615.71.09), the newest stock row not newer than it (assumed)' "$tmp/620" ||
	fail "a newer series is named and modelled as the nearest, assumed"
# 615.71.09 and 610.57.04 have rows; 610's columns come from forks and 615.71.09 (no NVIDIA
# 610 tree is stored): text and JSON say "assumed". 615's own row also says which columns
# were not re-read at its tag.
for v in 615.71.09 610.57.04; do
	"$bi" --root "$snap" --driver "$v" >"$tmp/$v.txt" || fail "--driver $v exit status"
	grep -q "^Driver model: NVIDIA $v stock (assumed) (from --driver), modelled as ${v%%.*}\$" \
		"$tmp/$v.txt" || fail "--driver $v: modelled as its own row"
	grep -q 'topo -p2p (snapshot)): r OK  w OK  n OK  a OK  p NS : agrees' "$tmp/$v.txt" ||
		fail "--driver $v: the H200 pair"
	"$bi" --root "$snap" --driver "$v" --json >"$tmp/$v.json" || fail "--driver $v --json exit status"
	python3 - "$tmp/$v.json" "$v" <<'PY' || fail "--driver $v --json: model_series and note"
import json, sys
d = json.load(open(sys.argv[1]))["driver_model"]
assert d["model_series"] == int(sys.argv[2].split(".")[0]), d["model_series"]
assert d["note"] and d["note"].endswith("(assumed)"), d["note"]
PY
done
grep -q "note: NVIDIA's 610 sources not read: .*(assumed)\$" "$tmp/610.57.04.txt" ||
	fail "610: the row's assumed columns are not said"
"$bi" --root "$snap" >"$tmp/plain"
grep -q '^Driver model' "$tmp/plain" && fail "the model printed without --driver"

for args in "--driver 58x" "--driver 580-nvidia" "--driver-flavor other"; do
	# shellcheck disable=SC2086
	"$bi" --root "$snap" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] ||
		fail "$args: want one stderr line and exit 2 (rc $rc)"
done

# The driver's own caps through the RM API (a replayed 4 x H200 session, 580.159.04): the
# model agrees with the driver's GET_P2P_CAPS_V2 answer on all six pairs.
rm4=$P2PS_SOURCE_DIR/tests/fixtures/rm/h200x4
"$bi" --root "$rm4/root" --replay "$rm4/capture.json" --driver auto >"$tmp/rm4" 2>&1 ||
	fail "replayed 4-GPU session: exit $?"
[ "$(grep -c 'driver reported (RM GET_P2P_CAPS_V2): r OK  w OK  n OK  a OK  p NS : agrees' "$tmp/rm4")" -eq 6 ] ||
	fail "replayed 4-GPU session: want 6 pairs agreeing with the RM caps"
! grep -q ': differs' "$tmp/rm4" || fail "replayed 4-GPU session: a pair differs"

# The shared pastes with topo -p2p: their facts do not suffice (no driver, no GPU
# addresses): the model says what it needs instead of guessing codes.
pastes=$(p2ps_shared_path fixtures/pastes)
if p2ps_need_shared fixtures/pastes; then
	n=0
	for p in "$pastes"/*/paste.txt; do
		grep -q 'topo -p2p' "$p" || continue
		n=$((n + 1))
		"$bi" --paste "$p" --driver auto >"$tmp/p" 2>&1
		grep -q 'unknown: needs the driver series' "$tmp/p" ||
			grep -q 'driver reported' "$tmp/p" || fail "$(basename "$(dirname "$p")"): no answer"
		"$bi" --paste "$p" --driver 550-tinygrad >"$tmp/p" 2>&1
		grep -q 'Pairs: unknown: needs two GPUs' "$tmp/p" || grep -q 'driver reported' "$tmp/p" ||
			fail "$(basename "$(dirname "$p")"): no pairs and no unknown"
	done
	[ "$n" -ge 1 ] || fail "no shared paste shows topo -p2p"
fi

[ "$fails" -eq 0 ] && echo "driver_cli_test: all checks that ran passed"
p2ps_test_exit "$fails"
