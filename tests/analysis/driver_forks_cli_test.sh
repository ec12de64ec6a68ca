#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect --driver on a paste of four 48 GB RTX 4090s (BAR1 32 GiB; real nvidia-smi -q
# output, tests/fixtures/forks): under a fork that maps BAR1 windows on demand (Duanyll's
# Method 3, LingzheZhao's 610.57.04-p2p-48g) BAR1 below VRAM is a note, not a blocker; under
# stock it still blocks. --libcuda hashes a file (an unknown digest stays unknown).
set -uo pipefail
bi=${P2PS_TOOLS_DIR:?}/bar-inspect
src=${P2PS_SOURCE_DIR:?}
paste=$src/tests/fixtures/forks/4090-48g-method3.paste
. "$src/tests/support/p2ps_test.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

"$bi" --paste "$paste" --driver 610.57.04 --driver-flavor duanyll --check >"$tmp/m3"
rc=$?
[ "$rc" -ne 1 ] || fail "Method 3: exit 1 (not ready)"
grep -q 'blocker.*BAR1 is 32 GiB, smaller than' "$tmp/m3" && fail "Method 3: BAR1 < VRAM is a blocker"
[ "$(grep -c 'info .*BAR1 is 32 GiB, smaller than its 48.0 GiB of VRAM; duanyll .* maps a BAR1 window per peer allocation' "$tmp/m3")" -eq 4 ] ||
	fail "Method 3: want the window note on all four GPUs"
grep -q 'fork: duanyll 610.57.04-p2p-48g (LingzheZhao/open-gpu-kernel-modules), bar1_on_demand' "$tmp/m3" ||
	fail "Method 3: the fork line"
grep -q 'UVM managed memory over BAR1 peers: opt-in, nvidia_uvm uvm_bar1_p2p_managed=1' "$tmp/m3" ||
	fail "Method 3: the UVM opt-in"
grep -q 'libcuda: unknown (not hashed)' "$tmp/m3" || fail "Method 3: libcuda state"

# The branch name says the same as the flavor.
"$bi" --paste "$paste" --driver 610.57.04-p2p-48g >"$tmp/branch"
grep -q 'Driver model: NVIDIA 610.57.04 duanyll (from --driver)' "$tmp/branch" ||
	fail "branch suffix -p2p-48g: not the duanyll flavor"

"$bi" --paste "$paste" --driver 610.57.04 --check >"$tmp/stock"
rc=$?
[ "$rc" -eq 1 ] || fail "stock: exit $rc, want 1 (not ready)"
[ "$(grep -c 'blocker  GPU. .*BAR1 is 32 GiB, smaller than its 48.0 GiB of VRAM$' "$tmp/stock")" -ge 4 ] ||
	fail "stock: BAR1 < VRAM is not a blocker"

# --libcuda: a file whose digest no row holds is unknown; a missing file is an error.
printf 'not a library\n' >"$tmp/libcuda.so.1"
"$bi" --paste "$paste" --driver 615-aikitoria --libcuda "$tmp/libcuda.so.1" --json >"$tmp/j"
grep -q '"libcuda":"unknown"' "$tmp/j" || grep -q '"libcuda": "unknown"' "$tmp/j" ||
	fail "--libcuda: an unknown digest is not unknown"
grep -q "$(sha256sum "$tmp/libcuda.so.1" | cut -c1-64)" "$tmp/j" || fail "--libcuda: digest not shown"
"$bi" --paste "$paste" --driver 615-aikitoria --libcuda "$tmp/none" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] ||
	fail "--libcuda missing file: want one stderr line and a non-zero exit (rc $rc)"
"$bi" --paste "$paste" --driver-flavor nvidia >"$tmp/out" 2>"$tmp/err"
grep -q 'stock, tinygrad, aikitoria, duanyll' "$tmp/err" || fail "--driver-flavor: the flavors named"

[ "$fails" -eq 0 ] && echo "driver_forks_cli_test: all checks passed"
p2ps_test_exit "$fails"
