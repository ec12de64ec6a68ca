#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every benchmark in bench/ runs once in a short mode (small inputs, one run each): it
# must run to its end and print its table. No figure is checked: speed is measured by
# running the benches themselves (bench/README.md), never asserted in CI. A file in
# bench/ this step does not know fails it, so that a new bench gets its smoke run here.
# Exit 0 all ran, 1 a failure, 77 a run could not happen here (no nvcc; FAIL under
# CI=true), as scripts/test.sh counts steps.
#
# Environment: BUILD_DIR (default build; the bench programs are built there), JOBS.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=35-bench-smoke
build=${BUILD_DIR:-$PWD/build}
logs=$build/bench-smoke
mkdir -p "$logs"
status=0
# shellcheck source=scripts/lib/step.sh
. scripts/lib/step.sh

# The files of bench/ that are not benchmarks, and the benches run below.
known=(README.md CMakeLists.txt gen-ad102-dump.c libgmmu-views.c fleet-gen.py spawn-time.c
	nvml-init.c bar-inspect-vs-lspci.sh pte-decode-vs-cat.sh libgmmu-views.sh fleet-bench.sh
	p2p-bench-device.sh sm-sweep.cu p2p-compare.py p2p-heatmap.py rm-cost.c p2p-check-vs-torch.sh
	paste-vs-cat.sh)
for f in bench/*; do
	name=${f#bench/}
	if [[ " ${known[*]} " != *" $name "* ]]; then
		echo "$step: FAIL: $f has no smoke run in scripts/test.d/$step.sh"
		status=1
	fi
done

# smoke NAME PATTERN CMD...: runs CMD (output in $logs/NAME.log); it must exit 0, print
# PATTERN (an extended regex; empty: nothing asked) and no "FAILED".
smoke() {
	local name=$1 pattern=$2
	shift 2
	local start=$SECONDS
	if ! "$@" >"$logs/$name.log" 2>&1; then
		echo "$step: FAIL: $name exited with an error:"
		tail -n 20 "$logs/$name.log"
		status=1
	elif { [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$logs/$name.log"; } ||
		grep -q FAILED "$logs/$name.log"; then
		echo "$step: FAIL: $name: output lacks /$pattern/ or reports FAILED:"
		tail -n 20 "$logs/$name.log"
		status=1
	else
		echo "$step: $name: ok ($((SECONDS - start)) s)"
	fi
}

cmake --build "$build" -j "${JOBS:-2}" --target bar-inspect pte-decode gen-ad102-dump \
	libgmmu-views spawn-time nvml-init >"$logs/build.log" 2>&1 || {
	echo "$step: FAIL: building the bench programs in $build:"
	tail -n 20 "$logs/build.log"
	exit 1
}

# --short: each bench's own CI mode (a few runs, small inputs).
smoke bar-inspect-vs-lspci '^  bar-inspect --root S --all --json +[0-9]' \
	env BUILD_DIR="$build" bench/bar-inspect-vs-lspci.sh --short
smoke pte-decode-vs-cat 'pte-decode decode json +[0-9]' bench/pte-decode-vs-cat.sh --short "$build"
smoke paste-vs-cat '^  bar-inspect --paste FILE.gz +[0-9]' bench/paste-vs-cat.sh --short "$build"
smoke libgmmu-views 'gmmu_entry_decode: ' env BUILD_DIR="$build" bench/libgmmu-views.sh 4
# --short is also the ctest fleet_bench_short, which checks the counts it prints.
smoke fleet-bench '^ +300 .* ok$' bench/fleet-bench.sh --short "$build"

# rm-cost times the driver's RM calls (GPU hosts only): here it builds, and refuses a bad
# round count with one line and exit 2.
smoke rm-cost '^rm-cost: ROUNDS is 1 to ' sh -c \
	'cmake --build "$1" --target rm-cost >/dev/null && { "$1/bench/rm-cost" 0 2>&1; [ $? -eq 2 ]; }' \
	sh "$build"
# The p2p-bench run needs GPUs: here its options only.
smoke p2p-bench-device '^  --sm-sweep ' bash bench/p2p-bench-device.sh --help
# p2p-bench check against p2p-bench's smallest run and a torch peer check: on a host without a
# GPU only the replay of a committed run is timed and the script exits 77; the step says so
# (its GPU runs are a GPU host's, as p2p-bench-device's are).
if [ -x "$build/tools/p2p-bench" ]; then
	start=$SECONDS
	env BUILD_DIR="$build" bash bench/p2p-check-vs-torch.sh --short >"$logs/p2p-check-vs-torch.log" 2>&1
	rc=$?
	if ! grep -Eq '^  p2p-bench check --replay --root .* +[0-9]' "$logs/p2p-check-vs-torch.log"; then
		echo "$step: FAIL: p2p-check-vs-torch: no replay timing:"
		tail -n 20 "$logs/p2p-check-vs-torch.log"
		status=1
	elif [ $rc -eq 77 ]; then
		echo "$step: p2p-check-vs-torch: replay ok ($((SECONDS - start)) s); its GPU runs need a GPU, none here"
	elif [ $rc -ne 0 ] || grep -q FAILED "$logs/p2p-check-vs-torch.log"; then
		echo "$step: FAIL: p2p-check-vs-torch exited $rc:"
		tail -n 20 "$logs/p2p-check-vs-torch.log"
		status=1
	else
		echo "$step: p2p-check-vs-torch: ok ($((SECONDS - start)) s)"
	fi
else
	step_skip "p2p-check-vs-torch: p2p-bench is not built (no CUDA compiler)"
fi
# The SM copy sweep compiles wherever nvcc is (CI has it, without a GPU). Without nvcc the
# step counts as skipped (exit 77 at the end, after the other smoke runs), and fails under
# CI=true.
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
	smoke sm-sweep-build '' "$nvcc" -std=c++17 -arch=sm_90 bench/sm-sweep.cu -o "$logs/sm-sweep"
else
	step_skip "sm-sweep.cu: no nvcc on this machine (p2p-bench is not built either)"
fi

# The result tools, on a committed device run.
res=docs/results/p2p-bench/2026-11-22-h200x2
smoke p2p-compare '^\| ' python3 bench/p2p-compare.py --blt-ce "$res"/cuda-samples/p2pblt-ce-[0-9].txt \
	--blt-sm "$res"/cuda-samples/p2pblt-sm-*.txt --bench "$res/p2p-bench-cmp.json" \
	--md /dev/stdout
# Debian's matplotlib belongs to Debian's python3, which need not be the first on PATH.
py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import matplotlib' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -n "$py" ]; then
	rm -f "$logs/heatmap.png"
	smoke p2p-heatmap '' "$py" bench/p2p-heatmap.py "$res/p2p-bench.json" "$logs/heatmap.png"
	[ -s "$logs/heatmap.png" ] || { echo "$step: FAIL: p2p-heatmap drew nothing"; status=1; }
else
	echo "$step: FAIL: no python3 with matplotlib (python3-matplotlib, scripts/deps.d/bench.txt)"
	status=1
fi
step_exit "$status"
