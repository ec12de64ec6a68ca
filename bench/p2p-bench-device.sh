#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs p2p-bench on a GPU machine and gathers everything for docs/results/.
# Meant for a GPU machine (called from the repository root),
# but any CUDA host works:
#
#   bench/p2p-bench-device.sh [--compare] [--capture] [--quick] [--variants] [--sizes]
#                             [--sm-sweep] [--ipc] [--help]
#
#   --compare  also build and run cuda-samples' p2pBandwidthLatencyTest from
#              .cmp/p2pblt/ (a fetched copy, never committed) for comparison
#   --capture  also run scripts/capture-host.sh (host snapshot for bar-inspect)
#   --quick    device list and self-copy only (single-GPU machines)
#   --variants time the SM copy kernels (grid, warp, bulk) at several grid sizes
#   --sizes    one-way bandwidth of the copy engine and SM kernel from 64 KiB to 1 GiB
#   --sm-sweep build and run bench/sm-sweep.cu (SM copy designs, one way)
#   --ipc      the default runs also measure with one process per GPU (p2p-bench --ipc)
#
# Build dependencies missing on the machine are taken from .cmp/debs/*.deb
# (unpacked under /tmp/p2ps-sysroot, never into /). Results go to $OUT
# (default /tmp/p2ps-out): run.log, results.tar.gz and the capture tarball.
set -uo pipefail
compare=0 capture=0 quick=0 variants=0 sizes=0 sm_sweep=0
ipc=()
for a in "$@"; do
	case $a in
	--compare) compare=1 ;;
	--variants) variants=1 ;;
	--sizes) sizes=1 ;;
	--sm-sweep) sm_sweep=1 ;;
	--capture) capture=1 ;;
	--quick) quick=1 ;;
	--ipc) ipc=(--ipc) ;;
	-h | --help)
		sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"
		exit 0
		;;
	*) echo "usage: $0 [--compare] [--capture] [--quick] [--variants] [--sizes] [--sm-sweep] [--ipc] [--help]" >&2; exit 2 ;;
	esac
done
out=${OUT:-/tmp/p2ps-out}
res=/tmp/p2ps-results
mkdir -p "$out" "$res"
exec > >(tee -a "$out/run.log") 2>&1
# The machines are shared: NVLink multicast stays off for anything started here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
jobs=$(nproc)
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

step environment
uname -a
head -2 /etc/os-release
nvidia-smi -L
nvidia-smi --query-gpu=index,pci.bus_id,name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.max.sm --format=csv
nvidia-smi topo -m
nvidia-smi nvlink --status | head -40
command -v cmake nvcc pkg-config gcc lspci || true
nvcc --version | tail -2
for p in json-c libpci; do pkg-config --exists "$p" 2>/dev/null && echo "have $p" || echo "missing $p"; done
{ nvidia-smi -q; nvidia-smi topo -m; nvidia-smi nvlink --status; } >"$res/nvidia-smi.txt" 2>&1

step build dependencies
. scripts/device-deps.sh
p2ps_unpack_debs .cmp/debs json-c libpci

step build p2p-bench
bld=/tmp/p2ps-build
bench=
# No tests here: the GPU machines have no cmocka, and only the tools are needed.
if cmake -S . -B $bld -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=OFF >"$res/cmake.log" 2>&1 &&
	cmake --build $bld -j "$jobs" --target p2p-bench >>"$res/cmake.log" 2>&1; then
	bench=$(find $bld/tools -type f -name p2p-bench -perm -u+x | head -1)
	echo "built with CMake: $bench"
else
	tail -30 "$res/cmake.log"
fi
[ -n "$bench" ] || { echo "p2p-bench did not build"; exit 1; }

step bar-inspect
host_args=()
if cmake --build $bld -j "$jobs" --target bar-inspect >>"$res/cmake.log" 2>&1; then
	bi=$(find $bld/tools -type f -name bar-inspect -perm -u+x | head -1)
	if "$bi" --json >"$res/bar-inspect.json" 2>"$res/bar-inspect.err"; then
		host_args=(--host "$res/bar-inspect.json")
		"$bi" >"$res/bar-inspect.txt" 2>&1
		echo "bar-inspect --json: ok"
	else
		echo "bar-inspect --json failed:"; head -5 "$res/bar-inspect.err"
	fi
else
	echo "bar-inspect not buildable here (yet)"
fi

if [ $quick = 1 ]; then
	step p2p-bench quick: devices and self copy
	"$bench" --no-latency "${host_args[@]}" | tee "$res/p2p-bench.txt"
	"$bench" --no-latency --json "${host_args[@]}" >"$res/p2p-bench.json"
	echo "rc=$?"
else
	step p2p-bench defaults
	"$bench" "${ipc[@]}" "${host_args[@]}" | tee "$res/p2p-bench.txt"
	echo "rc=${PIPESTATUS[0]}"
	"$bench" "${ipc[@]}" --json "${host_args[@]}" >"$res/p2p-bench.json"
	echo "json rc=$?"
fi

if [ $variants = 1 ]; then
	step p2p-bench SM copy kernels and grids
	sms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["sm_count"])' "$res/p2p-bench.json" 2>/dev/null)
	sms=${sms:-132}
	for k in grid warp bulk; do
		for m in 1 2 4 8 16; do
			b=$((sms * m))
			"$bench" --no-latency --sm-kernel $k --sm-blocks $b --json >"$res/sweep-$k-$b.json" &&
				python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], " ".join("%s=%s" % (m["key"], m["values"][0][1] if len(m["values"]) > 1 else m["values"][0][0]) for m in d["matrices"] if m["engine"].startswith("sm")), "verified", d["verification"])' "$res/sweep-$k-$b.json" "$k/$b"
		done
	done
fi

if [ $sizes = 1 ]; then
	step p2p-bench copy size sweep
	for sz in 64K 256K 1M 4M 16M 64M 256M 1G; do
		"$bench" --no-latency --size $sz --reps 10 --trials 5 --json >"$res/size-$sz.json" &&
			python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v={m["key"]: m["values"] for m in d["matrices"]}; n=len(d["devices"]); c=(0,1) if n>1 else (0,0); print(sys.argv[2], *("%s=%.1f" % (k, v[k][c[0]][c[1]]) for k in ("ce_uni_p2p_on","sm_write_uni_p2p_on","sm_read_uni_p2p_on","ce_bi_p2p_on","sm_write_bi_p2p_on")), "bad=%d" % d["verification"]["mismatched_words"])' "$res/size-$sz.json" $sz
	done
fi

if [ $sm_sweep = 1 ]; then
	step "SM copy design sweep (bench/sm-sweep.cu)"
	if nvcc -O3 -std=c++17 -arch=sm_90 bench/sm-sweep.cu -o /tmp/sm-sweep; then
		/tmp/sm-sweep | tee "$res/sm-sweep.md"
		echo "sm-sweep rc=${PIPESTATUS[0]}"
	fi
fi

if [ $compare = 1 ]; then
	step "cuda-samples p2pBandwidthLatencyTest (fetched copy, comparison only)"
	if nvcc -O2 -arch=sm_90 -I.cmp/p2pblt .cmp/p2pblt/p2pBandwidthLatencyTest.cu -o /tmp/p2pblt; then
		for k in 1 2 3; do /tmp/p2pblt >"$res/p2pblt-ce-$k.txt" 2>&1; echo "ce run $k rc=$?"; done
		for k in 1 2 3; do /tmp/p2pblt --sm_copy >"$res/p2pblt-sm-$k.txt" 2>&1; echo "sm run $k rc=$?"; done
		# The sample's first peer cell (0->1) reads low in every run; with the
		# devices listed the other way round, that shows whether the deficit
		# follows the GPU or the measuring order.
		for k in 1 2; do CUDA_VISIBLE_DEVICES=1,0 /tmp/p2pblt >"$res/p2pblt-ce-swapped-$k.txt" 2>&1; done
		cat "$res/p2pblt-ce-1.txt"
		grep -A3 'P2P=Enabled Bandwidth (P2P Writes)' "$res/p2pblt-ce-swapped-1.txt"
		# Same size and repetitions as the sample: 40000000 ints, 5 copies per run.
		"$bench" --size 160000000 --reps 5 --trials 5 --json >"$res/p2p-bench-cmp.json"
		echo "p2p-bench matched run rc=$?"
		# And with the sample's method: no warm-up round, each direction queued as a block.
		for k in 1 2 3; do
			"$bench" --size 160000000 --reps 5 --trials 1 --warmup 0 --grouped --no-sm-read \
				--json >"$res/p2p-bench-cmp-blt-$k.json"
			echo "p2p-bench sample-method run $k rc=$?"
		done
		python3 bench/p2p-compare.py --blt-ce "$res"/p2pblt-ce-[123].txt \
			--blt-sm "$res"/p2pblt-sm-*.txt --bench "$res/p2p-bench-cmp.json" \
			--md "$res/compare.md" --json "$res/compare.json" && grep -v lat "$res/compare.md"
		python3 bench/p2p-compare.py --blt-ce "$res"/p2pblt-ce-[123].txt \
			--blt-sm "$res"/p2pblt-sm-*.txt --bench "$res"/p2p-bench-cmp-blt-*.json \
			--md "$res/compare-sample-method.md" --json "$res/compare-sample-method.json" &&
			grep -v lat "$res/compare-sample-method.md"
	fi
fi

if [ $capture = 1 ]; then
	step capture-host
	if [ -f scripts/capture-host.sh ]; then
		kind=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr -cd 'A-Za-z0-9')
		n=$(nvidia-smi -L | wc -l)
		bash scripts/capture-host.sh -o "$out/capture-${kind}x${n}.tar.gz"
		echo "capture rc=$?"
		tar tzf "$out"/capture-*.tar.gz | head -5
	else
		echo "scripts/capture-host.sh not in this tree"
	fi
fi

step pack
tar -C /tmp -czf "$out/results.tar.gz" p2ps-results
ls -la "$out"
