#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# p2p-bench check on a GPU host: build; a host snapshot (the fixture CI replays the runs
# against); the check on every GPU with and without NCCL, on one GPU, on two, on a subset
# (CUDA_VISIBLE_DEVICES and --devices), with NCCL_P2P_DISABLE=1, with --uvm, with another
# NCCL library, and under load (while p2p-bench measures on every GPU); p2p-bench's smallest
# run for its verified copies; then the bench (bench/p2p-check-vs-torch.sh). Every check is
# run once, as JSON, timed as a whole process; its text is the replay of that JSON against the
# snapshot. Run from the repository root:
#
#   bash scripts/device/check.sh [--quick] [--runs N]
#
#   --quick   no bench, no run under load
#   --runs N  the bench's runs per command (default 5)
#
# It only reads the GPUs' settings and never changes them; NVLink multicast stays off
# (NCCL_NVLS_ENABLE=0) for everything started here. Build dependencies missing on the machine
# come from ${DEBS:-.cmp/debs}/*.deb, unpacked under /tmp/p2ps-sysroot. Results in $OUT
# (default /tmp/p2ps-out): check.log (everything printed) and check-results.tar.gz.
set -uo pipefail
quick=0 runs=5
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--runs) runs=$2; shift ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [--quick] [--runs N]" >&2; exit 2 ;;
	esac
	shift
done
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
. scripts/device-deps.sh
p2ps_device_results check

step environment
uname -r
cat /proc/driver/nvidia/version
nvidia-smi -L
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
nvidia-smi topo -m
nproc
py=/opt/torch/.venv/bin/python3
[ -x "$py" ] || py=python3
"$py" -c 'import torch; print("torch", torch.__version__, "NCCL", torch.cuda.nccl.version())' 2>&1
torch_nccl=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 2>/dev/null | head -1)
ls -l /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1 | head -3
echo "torch's NCCL: ${torch_nccl:-none}"

step build
p2ps_unpack_debs "${DEBS:-.cmp/debs}" json-c libpci
bld=/tmp/p2ps-check-build
t0=$(date +%s)
cmake -S . -B $bld -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=OFF >"$res/cmake.log" 2>&1 &&
	cmake --build $bld -j "$(nproc)" --target p2p-bench bar-inspect spawn-time \
		>>"$res/cmake.log" 2>&1 || { tail -40 "$res/cmake.log"; exit 1; }
echo "built in $(($(date +%s) - t0)) s"
bench=$bld/tools/p2p-bench
bi=$bld/tools/bar-inspect

step "snapshot (scripts/capture-host.sh) and bar-inspect"
bash scripts/capture-host.sh -o "$res/snapshot.tar.gz" 2>&1 | tail -3
mkdir -p "$res/snap" && tar -xzf "$res/snapshot.tar.gz" -C "$res/snap" --strip-components=1
"$bi" --driver auto --json >"$res/bar-inspect.json" 2>"$res/bar-inspect.err"
echo "bar-inspect --json: exit $?"
"$bi" --driver auto >"$res/bar-inspect.txt" 2>&1

# check NAME [VAR=VALUE...] -- ARGS...: one check as JSON (NAME.json), timed; its text from
# the replay against the snapshot (NAME.txt); the exit status and the summary line.
check() {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local t0 t1 rc
	t0=$(date +%s.%N)
	env "${envs[@]}" "$bench" check --json "$@" >"$res/$name.json" 2>"$res/$name.err"
	rc=$?
	t1=$(date +%s.%N)
	"$bench" check --replay "$res/$name.json" --root "$res/snap" >"$res/$name.txt" 2>&1
	printf '%-28s exit %d  %6.3f s  %s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"$(head -1 "$res/$name.txt")"
	[ ! -s "$res/$name.err" ] || sed 's/^/    stderr: /' "$res/$name.err" | head -5
}

step "checks"
check check-${ngpu}gpu --
check check-${ngpu}gpu-nonccl -- --no-nccl
check check-1gpu CUDA_VISIBLE_DEVICES=0 --
check check-1gpu-allowed CUDA_VISIBLE_DEVICES=0 -- --allow-single
check check-2gpu CUDA_VISIBLE_DEVICES=0,1 --
check check-2gpu-nonccl CUDA_VISIBLE_DEVICES=0,1 -- --no-nccl
check check-2gpu-noipc-nonccl CUDA_VISIBLE_DEVICES=0,1 -- --no-ipc --no-nccl
if [ "$ngpu" -ge 4 ]; then
	check check-subset-1-3 CUDA_VISIBLE_DEVICES=1,3 --
	check check-devices-0-2 -- --devices 0,2
fi
check check-2gpu-noalias-nonccl CUDA_VISIBLE_DEVICES=0,1 -- --no-nccl --alias none
check check-2gpu-p2p-disabled CUDA_VISIBLE_DEVICES=0,1 NCCL_P2P_DISABLE=1 --
check check-2gpu-uvm CUDA_VISIBLE_DEVICES=0,1 -- --uvm --no-nccl
[ -z "$torch_nccl" ] || check check-${ngpu}gpu-torch-nccl -- --nccl "$torch_nccl"
cat "$res/check-${ngpu}gpu.txt"
grep -h "via" "$res/check-2gpu-p2p-disabled.txt" | head -4

step "p2p-bench's smallest run: its verified copies"
t0=$(date +%s.%N)
"$bench" --size 16 --reps 1 --trials 1 --warmup 0 --no-latency --no-sm-read --json \
	>"$res/p2p-bench-small.json" 2>&1
echo "exit $?, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }') s"
grep -A2 '"verification"' "$res/p2p-bench-small.json"

if [ "$quick" = 0 ]; then
	step "under load: the check while p2p-bench measures 1 GiB copies on every GPU"
	"$bench" --size 1G --reps 20 --trials 3 --no-latency >"$res/load-p2p-bench.txt" 2>&1 &
	load=$!
	sleep 3
	check check-${ngpu}gpu-under-load --
	wait $load
	echo "p2p-bench under it: exit $?; $(grep -i 'verif\|mismatch' "$res/load-p2p-bench.txt" | head -2)"

	step "bench/p2p-check-vs-torch.sh"
	BUILD_DIR=$bld PYTHON=$py bash bench/p2p-check-vs-torch.sh --runs "$runs" 2>&1 |
		tee "$res/bench.txt"
fi
