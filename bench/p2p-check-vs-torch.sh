#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# p2p-bench check against its yardsticks, in one run, alternating, per number of GPUs: the
# whole process of `p2p-bench check` without NCCL and with it, p2p-bench's smallest
# measurement (its verified copies, every matrix at 16 bytes, one run), and a torch peer
# check (torch.cuda.can_device_access_peer and a verified copy per ordered pair, the check
# serving stacks run before they start). Prints per command the median and minimum wall time
# and the ratio of medians to the check without NCCL.
#
#   bench/p2p-check-vs-torch.sh [--short] [--runs N] [--gpus LIST] [--python PY]
#
#   --short    3 runs on 2 GPUs (or 1): CI's smoke run; on a host without a GPU only the
#              replay of a committed check is timed, the rest says SKIPPED (exit 77)
#   --runs N   runs per command (default 7; environment RUNS too)
#   --gpus L   numbers of GPUs, e.g. 1,2,4 (default: 1, 2 and all); each run sees the first
#              ones through CUDA_VISIBLE_DEVICES
#   --python   the python with torch (default: PYTHON, else python3); without torch that
#              column is left out
#
# On one GPU the check runs with --allow-single (it has no pair: exit 0 instead of 3). Every
# sample is one spawned process up to its exit (bench/spawn-time.c), its output to /dev/null.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) for everything started here.
# Environment: BUILD_DIR (default build), RUNS, PYTHON.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
runs=${RUNS:-7} short=0 gpus="" py=${PYTHON:-python3}
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1 runs=${RUNS:-3} ;;
	--runs) runs=$2; shift ;;
	--gpus) gpus=$2; shift ;;
	--python) py=$2; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "p2p-check-vs-torch: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
build=${BUILD_DIR:-build}
bench=$build/tools/p2p-bench
[ -x "$bench" ] || { echo "p2p-check-vs-torch: $bench not built (needs a CUDA compiler)" >&2; exit 2; }
work=$(mktemp -d /tmp/p2p-check-vs-torch.XXXXXX)
trap 'rm -rf "$work"' EXIT
spawn=$build/bench/spawn-time
if [ ! -x "$spawn" ]; then
	cc -O2 -o "$work/spawn-time" bench/spawn-time.c
	spawn=$work/spawn-time
fi

# group TITLE LABEL -- CMD... [;; LABEL -- CMD...]...: round-robin runs, one line each; the
# first command is the ratio's yardstick.
group() {
	local title=$1 med min label base=
	shift
	echo "== $title"
	printf '  %-58s %10s %9s %8s\n' command "median s" "min s" "x first"
	"$spawn" "$runs" "$@" | while read -r med min label; do
		if [ "$med" = FAILED ]; then
			echo "  FAILED: $min $label"
			continue
		fi
		[ -n "$base" ] || base=$med
		awk -v l="$label" -v m="$med" -v n="$min" -v b="$base" \
			'BEGIN { printf "  %-58s %10.3f %9.3f %8.2f\n", l, m / 1e6, n / 1e6, m / b }'
	done
}

echo "p2p-check-vs-torch: p2p-bench $("$bench" --version | awk '{print $2}'), $runs alternating runs each;" \
	"$(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"

# Without a GPU only the replay is there to time: the judging of the largest committed run
# against its host's snapshot.
run=$(ls tests/fixtures/p2p-check/h200x*/check-[0-9]gpu.json | sort | tail -1)
group "replay of a committed check (no GPU)" \
	"p2p-bench check --replay --root ($(basename "$run"))" -- "$bench" check --replay "$run" --root "$(dirname "$run")/snapshot"

total=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${total:-0}" -lt 1 ] || [ ! -e /dev/nvidiactl ]; then
	echo "p2p-check-vs-torch: SKIPPED: no NVIDIA GPU on this host (the GPU runs need one)"
	exit 77
fi
if [ -z "$gpus" ]; then
	gpus=$([ "$short" = 1 ] && echo $((total < 2 ? total : 2)) ||
		printf '%s\n' 1 2 "$total" | awk -v t="$total" '$1 <= t && !seen[$1]++' | paste -sd,)
fi
have_torch=0
"$py" -c 'import torch' 2>/dev/null && have_torch=1
# The torch check: can_device_access_peer and a verified copy per ordered pair.
torch_check='
import sys, torch
n = torch.cuda.device_count()
ok = True
for a in range(n):
    for b in range(n):
        if a == b:
            continue
        if not torch.cuda.can_device_access_peer(a, b):
            ok = False
            continue
        x = torch.arange(1 << 20, dtype=torch.int32, device=f"cuda:{a}")
        ok &= bool(torch.equal(x.to(f"cuda:{b}").cpu(), x.cpu()))
sys.exit(0 if ok else 1)
'
for k in $(echo "$gpus" | tr , ' '); do
	[ "$k" -ge 1 ] && [ "$k" -le "$total" ] || { echo "p2p-check-vs-torch: no $k GPUs here" >&2; continue; }
	export CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((k - 1)))
	single=()
	[ "$k" -gt 1 ] || single=(--allow-single)
	cmds=("p2p-bench check --no-nccl" -- "$bench" check --no-nccl "${single[@]}" --quiet
		";;" "p2p-bench check (with NCCL)" -- "$bench" check "${single[@]}" --quiet
		";;" "p2p-bench check --no-ipc --no-nccl" -- "$bench" check --no-ipc --no-nccl "${single[@]}" --quiet
		";;" "p2p-bench smallest run (16 B, 1 run, no latency)" -- "$bench" --size 16 --reps 1 --trials 1 --warmup 0 --no-latency --no-sm-read)
	[ "$have_torch" = 0 ] || cmds+=(";;" "torch peer check (can_device_access_peer + copy)" -- "$py" -c "$torch_check")
	group "$k GPU(s): CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES" "${cmds[@]}"
done
[ "$have_torch" = 1 ] || echo "torch peer check: SKIPPED ($py has no torch)"
